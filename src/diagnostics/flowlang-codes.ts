/**
 * Stable codes of FlowLang problems (graph validation, flow sources, repair,
 * pipeline turns). Tests and tools match on `code`; messages are templates
 * filled with `{param}` values like the transpiler's registry.
 *
 * Ranges: FLOW1xxx graph shape, FLOW2xxx blocks, ports and wires, FLOW3xxx
 * kernel rules, FLOW4xxx flow sources (scripts and .flow text), FLOW5xxx
 * flow_repair guards, FLOW6xxx running a pipeline.
 */

export interface FlowCodeSpec {
  code: string
  message: string
  hint: string
}

const c = (code: string, message: string, hint: string): FlowCodeSpec => ({ code, message, hint })

export const FLOW_CODES = {
  SHAPE: c('FLOW1001', '{detail}', 'A graph is `{ version: 1, name: "…", nodes: [{ id, type, options }], edges: [{ from: [id, port], to: [id, port] }] }` with at least one node and one edge.'),
  UNKNOWN_FIELD: c('FLOW1002', 'Unknown field `{name}`', 'Remove it; nodes carry `id`, `type`, `options` (and `ports`, which is ignored), edges `from` and `to`.'),
  DUPLICATE_ID: c('FLOW1003', 'Node id `{id}` is used twice', 'Give every node its own id.'),
  UNKNOWN_BLOCK: c('FLOW2001', 'Unknown block type `{type}`', '{suggest}See the catalog in docs/flowlang.md for every block type.'),
  UNKNOWN_NODE: c('FLOW2002', 'No node has the id `{id}`', '{suggest}Declare the node before wiring it, or fix the id.'),
  UNKNOWN_PORT: c('FLOW2003', '`{type}` has no {direction} port `{port}`', '{suggest}Its {direction} ports: {ports}.'),
  PORT_DIRECTION: c('FLOW2004', '`{port}` is an {actual} port of `{type}`, not an {direction} port', 'Wire edges from an output port to an input port.'),
  PORT_TYPE_MISMATCH: c('FLOW2005', 'Port type mismatch: `{from}` ({fromType}) cannot feed `{to}` ({toType})', 'Connect ports of the same type, e.g. `stream.delta` → a codec\'s `stream.delta`.'),
  MULTIPLE_WRITERS: c('FLOW2006', 'Input `{to}` has {count} writers ({writers})', 'Keep one edge into each input; merge upstream instead.'),
  CYCLE: c('FLOW2007', 'Cycle on the {kind} path: {cycle}', 'Remove one edge of the cycle; only the codec ⇄ router.mcp tool round trip may loop.'),
  UNKNOWN_OPTION: c('FLOW2008', '`{type}` has no option `{name}`', '{suggest}Its options: {options}.'),
  OPTION_TYPE: c('FLOW2009', 'Option `{name}` of `{type}` must be {expected}', 'Write e.g. `{ {name}: {example} }`.'),
  KERNEL_WIRING: c('FLOW3001', '{detail}', 'Wire protocol `stream.delta` → codec `stream.delta`, codec `tool_use.neutral` → router.mcp `tool_use.neutral` and router.mcp `tool_result.neutral` → codec `tool_result.neutral`.'),
  KERNEL_COUNT: c('FLOW3002', 'A flow needs exactly one {role}; this one has {count}{list}', 'Keep one {role} block: one protocol feeds one codec, which feeds router.mcp.'),
  NEGOTIATION_DISABLED: c('FLOW3003', 'Negotiation cannot be disabled (`{name}: false` on `{id}`)', 'Remove the `{name}` option; tool-format negotiation is owned by the codecs and the runtime.'),
  SCRIPT_SYNTAX: c('FLOW4001', '{detail}', 'A flow script is an AJS module: `export default function build({ blocks }) { … return { version: 1, name, nodes, edges } }`.'),
  SCRIPT_EXPORT: c('FLOW4002', '{detail}', 'Write `export default function build({ blocks }) { … }` as the last function of the file.'),
  SCRIPT_BLOCK_CALL: c('FLOW4003', '{detail}', 'Instantiate blocks as `blocks.<group>.<name>(options)`, e.g. `blocks.protocol.openai({ baseUrl })`.'),
  SCRIPT_RUNTIME: c('FLOW4004', 'The flow script failed: {detail}', '{hint}'),
  TEXT_SYNTAX: c('FLOW4101', '{detail}', 'Lines are `block <id> <type> [key=value …]`, `use <type>`, `link <id>.<port> -> <id>.<port>`, `set key=value`, `when key=value … endif`, `end`.'),
  REPAIR_PATCH: c('FLOW5001', '{detail}', 'Call flow_repair with `{ path, patch: { nodes?: [{ id, type, options }], edges?: [{ from: [id, port], to: [id, port] }] } }`.'),
  REPAIR_KERNEL: c('FLOW5002', '{detail}', 'Kernel blocks stay: keep router.mcp and the protocol → codec → router.mcp wiring in the patch.'),
  REPAIR_IMMUTABLE: c('FLOW5003', 'flow_repair cannot change `{name}` of `{id}` ({type})', 'Provider credentials and base URLs are immutable for repairs; change them in the flow file yourself.'),
  REPAIR_PATH: c('FLOW5004', '{detail}', 'Pass a flow file path inside the directory `ajsc flowlang serve-tools --root <dir>` serves.'),
  REPAIR_DENIED: c('FLOW5005', 'The advisor.gate (prePatch) did not approve this repair', 'Ask the user to approve the patch.'),
  // FLOW6001 and FLOW6002 are retired: a turn runs on the AgentVM, whose TIMEOUT and FUEL_EXHAUSTED it reports.
  TURN_ROUNDS: c('FLOW6003', 'The model asked for tools {rounds} rounds in a row', 'Raise `limits.maxRounds`, or check the tools answer what the model needs.'),
  LLM_ERROR: c('FLOW6004', 'The model endpoint failed: {detail}', 'Check the protocol block\'s baseUrl and model (CLI: --llm URL --model NAME).'),
  TOOL_UNSUPPORTED: c('FLOW6005', 'unsupported tool use `{name}`: no MCP server offers it', 'Name the MCP server that provides it (CLI: --mcp "<command>"), or fix the tool name.'),
  MCP_ERROR: c('FLOW6006', 'MCP server `{server}` failed: {detail}', 'Check the server command (CLI: --mcp "<command>") and its stderr.'),
  SAFE_MODE: c('FLOW6007', 'The turn ran in Safe Mode (the baseline, not your flow): {reason}', 'Fix the flow (`ajsc flowlang validate <file>` lists its problems), or pass --allow-safe-mode to accept answers from the baseline.'),
} as const satisfies Record<string, FlowCodeSpec>

export type FlowCodeName = keyof typeof FLOW_CODES
