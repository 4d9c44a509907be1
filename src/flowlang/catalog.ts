/**
 * The FlowLang block catalog: every block type with its typed ports and
 * options, declared once. The validator, the sandbox's `blocks` API, the
 * runtime and docs/flowlang.md (the catalog table there is checked against
 * this file by a test) all read this table.
 *
 * Port names follow the seed: a port name is `<kind>.<detail>`
 * (`messages.in`, `stream.delta`, `tool_use.neutral`). Sinks name their
 * inputs after the output they consume (`messages.out`, `events.out`), which
 * is how the seed's own examples wire them.
 */

/** What flows over a wire. */
export const PORT_TYPES = {
  messages: 'a chat message list (requests) or one complete assistant message',
  stream: 'incremental model output: text deltas and native tool-call fragments',
  tool_use: 'neutral tool uses `{ id, name, arguments }` decoded from the model output',
  tool_result: 'neutral tool results `{ id, name, content, isError }` from MCP servers',
  events: 'observable pipeline events `{ type, ... }` (deltas, tool uses, results, notices)',
  usage: 'token usage of one model round',
} as const

export type PortType = keyof typeof PORT_TYPES

/**
 * Whether an input of type `to` accepts an output of type `from`. Equal
 * types connect; an `events` input also takes messages and usage, because
 * every value a block emits can be observed as an event (the seed's own
 * example wires `messages.out` into a sink's `events.out`).
 */
export function portAccepts(to: PortType, from: PortType): boolean {
  return to === from || (to === 'events' && (from === 'messages' || from === 'usage'))
}

export type OptionType = 'string' | 'number' | 'boolean' | 'string[]'

export interface OptionSpec {
  type: OptionType
  doc: string
  default?: unknown
  /** Allowed values (for strings and string lists). */
  values?: readonly string[]
  /** Another name accepted for this option (the line DSL writes `base=` for `baseUrl`). */
  alias?: string
  /** Credentials and endpoints: `flow_repair` may never change them. */
  immutable?: boolean
}

export type BlockRole = 'protocol' | 'codec' | 'router' | 'tools' | 'family' | 'advisor' | 'sink'

export interface BlockSpec {
  role: BlockRole
  doc: string
  inputs: Readonly<Record<string, PortType>>
  outputs: Readonly<Record<string, PortType>>
  options: Readonly<Record<string, OptionSpec>>
  /** Kernel blocks are injected when missing and cannot be removed (only `router.mcp`). */
  kernel?: boolean
}

const MESSAGE_SHAPER = { inputs: { 'messages.in': 'messages' }, outputs: { 'messages.out': 'messages' } } as const

const PROTOCOL_PORTS = {
  inputs: { 'messages.in': 'messages' },
  outputs: { 'stream.delta': 'stream', 'messages.out': 'messages', 'usage.out': 'usage' },
} as const

const CODEC_PORTS = {
  inputs: { 'stream.delta': 'stream', 'tool_result.neutral': 'tool_result' },
  outputs: { 'tool_use.neutral': 'tool_use', 'messages.out': 'messages', 'events.out': 'events' },
} as const

const MODEL_OPTION: OptionSpec = { type: 'string', doc: 'model name sent with every request (the host\'s `model` wins)' }
const TEMPERATURE_OPTION: OptionSpec = { type: 'number', doc: 'sampling temperature' }

/** Every block type, by its stable name. */
export const BLOCKS = {
  'protocol.openai': {
    role: 'protocol',
    doc: 'OpenAI-compatible chat completions with SSE streaming (LM Studio, vLLM, llama.cpp, OpenAI).',
    ...PROTOCOL_PORTS,
    options: {
      baseUrl: { type: 'string', doc: 'API base URL, e.g. http://localhost:1234/v1', default: 'http://localhost:1234/v1', alias: 'base', immutable: true },
      apiKey: { type: 'string', doc: 'bearer token (prefer the host\'s `apiKey`)', immutable: true },
      model: MODEL_OPTION,
      temperature: TEMPERATURE_OPTION,
    },
  },
  'protocol.ollama': {
    role: 'protocol',
    doc: 'Ollama /api/chat with its NDJSON stream.',
    ...PROTOCOL_PORTS,
    options: {
      baseUrl: { type: 'string', doc: 'Ollama server URL', default: 'http://127.0.0.1:11434', alias: 'base', immutable: true },
      model: MODEL_OPTION,
      temperature: TEMPERATURE_OPTION,
    },
  },
  'codec.mcp_over_functions': {
    role: 'codec',
    doc: 'Native function calling: advertises MCP tools as `tools`, maps streamed `tool_calls` to neutral tool uses and results back to `tool` messages.',
    ...CODEC_PORTS,
    options: {},
  },
  'codec.mcp_over_xml': {
    role: 'codec',
    doc: 'Tool calls written in the text as `<tool_call>{"name","arguments"}</tool_call>` (Qwen/Hermes style); tools advertised in the system prompt, results sent back as `<tool_response>`.',
    ...CODEC_PORTS,
    options: {},
  },
  'codec.auto': {
    role: 'codec',
    doc: 'Detects which channel the model uses (native `tool_calls` or `<tool_call>` text) on its first tool call and keeps it for the session.',
    ...CODEC_PORTS,
    options: {
      prefer: { type: 'string', doc: 'channel kept when one response uses both before any was detected', values: ['functions', 'xml'], default: 'functions' },
    },
  },
  'router.mcp': {
    role: 'router',
    kernel: true,
    doc: 'The neutral boundary: executes every neutral tool use on the host\'s MCP servers (official MCP SDK) and returns neutral results.',
    inputs: { 'tool_use.neutral': 'tool_use' },
    outputs: { 'tool_result.neutral': 'tool_result', 'events.out': 'events' },
    options: {
      servers: { type: 'string[]', doc: 'names of host MCP servers this router may use (default: all)' },
    },
  },
  'tools.negotiation_advertise': {
    role: 'tools',
    doc: 'Advertises the MCP tools to the model in the codec\'s format; `tools` narrows the list. Negotiation itself cannot be disabled.',
    inputs: {},
    outputs: {},
    options: {
      tools: { type: 'string[]', doc: 'only these tool names are advertised (default: all)' },
    },
  },
  'family.qwen3': {
    role: 'family',
    doc: 'Qwen3 message shaping: one leading system message, `<think>` blocks stripped from history, optional /think or /no_think switch.',
    ...MESSAGE_SHAPER,
    options: {
      thinking: { type: 'boolean', doc: 'append Qwen3\'s /think (true) or /no_think (false) switch to the last user message' },
    },
  },
  'advisor.gate': {
    role: 'advisor',
    doc: 'Approval gate: before a tool runs (preTool) or a flow patch is adopted (prePatch), asks the host\'s `approve` callback when the risk reaches `threshold`.',
    ...MESSAGE_SHAPER,
    options: {
      threshold: { type: 'string', doc: 'low: every tool; medium: tools not marked read-only; high: destructive tools only', values: ['low', 'medium', 'high'], default: 'medium' },
      when: { type: 'string[]', doc: 'moments gated', values: ['preTool', 'prePatch'], default: ['preTool'] },
    },
  },
  'advisor.deliberate': {
    role: 'advisor',
    doc: 'Adds a system instruction asking the model to state why before it calls a tool.',
    ...MESSAGE_SHAPER,
    options: {
      prompt: { type: 'string', doc: 'the instruction', default: 'Before calling a tool, state in one sentence why it is needed.' },
    },
  },
  'scheduler.idle_nudge': {
    role: 'advisor',
    doc: 'When a model round ends with neither text nor a tool call, appends a nudge and asks again.',
    ...MESSAGE_SHAPER,
    options: {
      message: { type: 'string', doc: 'the nudge sent as a user message', default: 'Please continue and give your answer.' },
      maxNudges: { type: 'number', doc: 'nudges per turn', default: 1 },
    },
  },
  'sink.ui.messages': {
    role: 'sink',
    doc: 'Delivers complete messages to the host\'s `onMessage` callback (or the output stream).',
    inputs: { 'messages.out': 'messages', 'events.out': 'events' },
    outputs: {},
    options: {},
  },
  'sink.plain.events': {
    role: 'sink',
    doc: 'Delivers every event to the host\'s `onEvent` callback (or the output stream as NDJSON).',
    inputs: { 'events.out': 'events', 'messages.out': 'messages', 'stream.delta': 'stream', 'usage.out': 'usage' },
    outputs: {},
    options: {},
  },
} as const satisfies Record<string, BlockSpec>

export type BlockType = keyof typeof BLOCKS

/** The option names that would switch negotiation off; they may never be false. */
export const NEGOTIATION_SWITCHES = ['negotiation', 'capProbe', 'cap_probe', 'autodetect'] as const

export function blockSpec(type: string): BlockSpec | undefined {
  return Object.prototype.hasOwnProperty.call(BLOCKS, type) ? (BLOCKS as Record<string, BlockSpec>)[type] : undefined
}

export const BLOCK_TYPES = Object.keys(BLOCKS) as BlockType[]

/** The port of a block, with its direction and type. */
export function portOf(spec: BlockSpec, port: string, direction: 'in' | 'out'): PortType | undefined {
  const table = direction === 'in' ? spec.inputs : spec.outputs
  return Object.prototype.hasOwnProperty.call(table, port) ? table[port] : undefined
}

type OptionValue<O> = O extends { type: 'string' } ? string : O extends { type: 'number' } ? number : O extends { type: 'boolean' } ? boolean : O extends { type: 'string[]' } ? string[] : never

/** The options of a block type, typed from the catalog (`BlockOptions<'protocol.openai'>`). */
export type BlockOptions<T extends BlockType> = { -readonly [K in keyof (typeof BLOCKS)[T]['options']]?: OptionValue<(typeof BLOCKS)[T]['options'][K]> }

/** The catalog as markdown tables (docs/flowlang.md embeds this; a test keeps it current). */
export function catalogMarkdown(): string {
  const code = (s: string) => `\`${s}\``
  const ports = (t: Readonly<Record<string, PortType>>) => Object.entries(t).map(([p, ty]) => `${code(p)} (${ty})`).join(', ') || '—'
  const options = (o: Readonly<Record<string, OptionSpec>>) => Object.entries(o).map(([name, spec]) => {
    const extra = [spec.values ? `one of ${spec.values.join(', ')}` : '', spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : '', spec.alias ? `alias ${code(spec.alias)}` : '', spec.immutable ? 'immutable for repairs' : ''].filter(Boolean).join('; ')
    return `${code(name)}: ${spec.type}${extra ? ` (${extra})` : ''}`
  }).join('<br>') || '—'
  const rows = BLOCK_TYPES.map((type) => {
    const spec: BlockSpec = BLOCKS[type]
    return `| ${code(type)}${spec.kernel ? ' (kernel)' : ''} | ${spec.role} | ${ports(spec.inputs)} | ${ports(spec.outputs)} | ${options(spec.options)} | ${spec.doc.replace(/\|/g, '\\|')} |`
  })
  const types = Object.entries(PORT_TYPES).map(([t, doc]) => `| ${code(t)} | ${doc} |`)
  return [
    '| block | role | inputs | outputs | options | what it does |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '| port type | carries |',
    '| --- | --- |',
    ...types,
  ].join('\n')
}
