/**
 * The FlowLang atoms: each block of a pipeline turn (shapers, the codec's
 * advertise/decode/encode, the protocol's model round, router.mcp's tool
 * calls) as an atom the compiled turn program (program.ts) calls. They run
 * on the AgentVM like any other atom: the VM charges their cost on its fuel
 * meter, bounds them by the run's deadline and AbortSignal, traces them,
 * and reports their failures as AgentErrors.
 *
 * Atoms hold no state and reach nothing by themselves: all I/O goes through
 * the run's capabilities, which the host (the session) provides:
 * - `model`: `stream(protocolType, request)` → stream deltas (the protocol's HTTP call);
 * - `mcp`: `tools(servers?)` and `call(use, { signal, servers })` (router.mcp's tool calls);
 * - `approve`: advisor.gate's approval callback (missing: not approved);
 * - `flowlang`: `emit(node, port, value)` to the sinks wired there, `trace(node, kind, detail?)`.
 *
 * Costs, in the VM's fuel: a model round 100 (like `llmPredict`), a tool call
 * 10 (like `httpFetch`), listing the tools 1, the pure codec and shaper steps
 * 0.1 (like `map` or `template`); what an atom returns is charged per
 * character and element as it enters the program, like every atom's result.
 */
import { defineAtom, type DefineAtomOptions } from '../../vm/atoms/define.ts'
import { LIBRARIES } from '../../ast/libraries.ts'
import type { AtomContext, AtomDef, AtomFn, JsonSchema } from '../../vm/atoms/types.ts'
import { VmError } from '../../vm/errors.ts'
import { problem } from '../graph.ts'
import type { FlowCodeName } from '../../diagnostics/flowlang-codes.ts'
import { advertise, collector, encodeRound, gateRound, type GateResult, type McpToolInfo, type RoundOutput } from './codecs.ts'
import { ModelHttpError, type ModelRequest } from './protocols.ts'
import { McpRouterError } from './router-error.ts'
import { SHAPERS, gateApplies, toolRisk, type Risk } from './shapers.ts'
import type { ApprovalRequest, ChatMessage, FlowEvent, NeutralToolResult, NeutralToolUse, StreamDelta, ToolChannel } from './types.ts'

/** A tool as the tools capability lists it (the server it came from, when known). */
export type FlowToolInfo = McpToolInfo & { server?: string }

/** router.mcp's capability: the tools on offer and their execution. */
export interface McpCapability {
  tools(servers?: readonly string[]): Promise<FlowToolInfo[]> | FlowToolInfo[]
  /** Run one tool use; `undefined` when no server offers the tool. */
  call(use: NeutralToolUse, options: { signal: AbortSignal; servers?: readonly string[] }): Promise<NeutralToolResult | undefined> | NeutralToolResult | undefined
}

/** The protocol's capability: one streamed model round. */
export interface ModelCapability {
  stream(protocol: string, request: Omit<ModelRequest, 'baseUrl' | 'model'> & { baseUrl?: string; model?: string }): AsyncIterable<StreamDelta>
}

/** Where a turn's values and trace leave for the host. */
export interface FlowOutputCapability {
  emit(node: string, port: string, value: unknown): void
  trace(node: string, kind: string, detail?: Record<string, unknown>): void
}

export interface FlowCapabilities {
  model: ModelCapability
  mcp: McpCapability
  flowlang: FlowOutputCapability
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>
  [name: string]: unknown
}

const any: JsonSchema = {}
const obj = (props: Record<string, JsonSchema>, required: string[] = Object.keys(props)): JsonSchema => ({ type: 'object', properties: props, required })
const str: JsonSchema = { type: 'string' }
const list: JsonSchema = { type: 'array' }

/** A FlowLang problem as the VM error a run reports (code FLOW…, message and hint from the registry). */
export function flowError(name: FlowCodeName, params: Record<string, string | number> = {}): VmError {
  const p = problem(name, '', params)
  return new VmError(p.code, p.message, { hint: p.hint })
}

function caps(ctx: AtomContext): FlowCapabilities {
  return ctx.capabilities as FlowCapabilities
}

/** defineAtom with the input typed by the implementation (the schemas here are plain JSON Schema). */
function atom<I>(op: string, input: JsonSchema, output: JsonSchema | undefined, fn: (input: I, ctx: AtomContext) => unknown, options: DefineAtomOptions<I> & { io?: boolean }): AtomDef {
  const { io, ...rest } = options
  const def: AtomDef = defineAtom(op, input, output, fn as AtomFn, rest as DefineAtomOptions<unknown>)
  // I/O atoms: a capability that throws is the VM's CAPABILITY_ERROR, as for httpFetch or llmPredict.
  return io ? { ...def, io: true } : def
}

const PURE = { cost: 0.1, timeoutMs: 0 }
const IO = { timeoutMs: 0, io: true }

/** `flowTools`: the tools router.mcp offers (narrowed by tools.negotiation_advertise). */
export const flowTools = atom('flowTools', obj({ node: str, servers: any, only: any }, ['node']), list, async (input: { node: string; servers?: string[] | null; only?: string[] | null }, ctx) => {
  const mcp = caps(ctx).mcp
  let tools: FlowToolInfo[]
  try {
    tools = [...await mcp.tools(input.servers ?? undefined)]
  } catch (e) {
    if (e instanceof McpRouterError) throw flowError('MCP_ERROR', { server: e.server, detail: e.message })
    throw e
  }
  if (ctx.signal.aborted) throw ctx.signal.reason
  if (input.only) tools = tools.filter((t) => input.only!.includes(t.name))
  caps(ctx).flowlang.trace(input.node, 'tools', { names: tools.map((t) => t.name) })
  return tools.map(({ server: _server, ...t }) => t)
}, { cost: 1, ...IO, docs: 'router.mcp: list the tools of the MCP capability.' })

/** `flowShape`: one message shaper (family.qwen3, advisor.deliberate, ...). */
export const flowShape = atom('flowShape', obj({ type: str, options: { type: 'object' }, messages: list }), list, (input: { type: string; options: Record<string, unknown>; messages: ChatMessage[] }) => {
  const shaper = SHAPERS[input.type]
  return shaper ? shaper(input.messages, input.options) : input.messages
}, { ...PURE, docs: 'A message shaper block applied to the request messages.' })

/** `flowAdvertise`: the codec's request: messages and tools in its format. */
export const flowAdvertise = atom('flowAdvertise', obj({ codec: str, tools: list, messages: list }), obj({ messages: list, tools: any }, ['messages']), (input: { codec: string; tools: McpToolInfo[]; messages: ChatMessage[] }) => {
  const r = advertise(input.codec, input.tools, input.messages)
  return { messages: r.messages, tools: r.tools ?? null }
}, { ...PURE, docs: 'A codec advertising the tools to the model.' })

/** `flowModelRound`: the protocol streams one model round; deltas, usage and the message reach the sinks. */
export const flowModelRound = atom('flowModelRound', obj({ node: str, protocol: str, options: { type: 'object' }, messages: list, tools: any, round: { type: 'number' } }, ['node', 'protocol', 'options', 'messages', 'round']), obj({ text: str, native: list }),
  async (input: { node: string; protocol: string; options: Record<string, unknown>; messages: ChatMessage[]; tools?: unknown[] | null; round: number }, ctx): Promise<RoundOutput> => {
    const { model, flowlang } = caps(ctx)
    const o = input.options
    flowlang.trace(input.node, 'request', { round: input.round, messages: input.messages.length, tools: input.tools?.length ?? 0 })
    const collect = collector()
    try {
      for await (const d of model.stream(input.protocol, {
        baseUrl: typeof o.baseUrl === 'string' ? o.baseUrl : undefined,
        model: typeof o.model === 'string' ? o.model : undefined,
        apiKey: typeof o.apiKey === 'string' ? o.apiKey : undefined,
        temperature: typeof o.temperature === 'number' ? o.temperature : undefined,
        messages: input.messages, tools: input.tools ?? undefined, signal: ctx.signal,
      })) {
        if (ctx.signal.aborted) break
        collect.add(d)
        if (d.type === 'text') flowlang.emit(input.node, 'stream.delta', d)
        if (d.type === 'usage') flowlang.emit(input.node, 'usage.out', d)
      }
    } catch (e) {
      if (ctx.signal.aborted) throw e
      if (e instanceof ModelHttpError) throw flowError('LLM_ERROR', { detail: e.message })
      throw e
    }
    if (ctx.signal.aborted) throw ctx.signal.reason
    const round = collect.done()
    flowlang.trace(input.node, 'response', { round: input.round, chars: round.text.length, nativeCalls: round.native.length })
    flowlang.emit(input.node, 'messages.out', { role: 'assistant', content: round.text } satisfies ChatMessage)
    return { text: round.text, native: round.native.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, argumentsText: c.argumentsText, ...(c.arguments ? { arguments: c.arguments } : {}) })) }
  }, { cost: 100, ...IO, docs: 'A protocol block: one streamed model round through the model capability.' })

/**
 * `flowDecode`: the one-active-tool-channel gate. `channel` is the codec's
 * own (fixed) or the one detected so far; `calls` numbers ids of calls
 * without one. Returns the uses, the dropped calls, the channel to keep and
 * the calls the codec cannot route (`unrouted`).
 */
export const flowDecode = atom('flowDecode', obj({ node: str, fixed: any, channel: any, prefer: str, round: { type: 'object' }, turn: { type: 'number' }, calls: { type: 'number' } }, ['node', 'prefer', 'round', 'turn', 'calls']), { type: 'object' },
  (input: { node: string; fixed?: ToolChannel | null; channel?: ToolChannel | null; prefer: ToolChannel; round: RoundOutput; turn: number; calls: number }, ctx) => {
    const { flowlang } = caps(ctx)
    let calls = input.calls
    const fixed = input.fixed ?? undefined
    const known = fixed ?? input.channel ?? undefined
    const gate: GateResult = gateRound(input.round, known, input.prefer, () => `call_${input.turn}_${++calls}`)
    const channel = fixed ? null : (input.channel ?? gate.active ?? null)
    if (!fixed && gate.active && !input.channel) flowlang.trace(input.node, 'detect', { channel: gate.active })
    if (gate.dropped.length) {
      const event: FlowEvent = { type: 'gate', dropped: gate.dropped, active: gate.active!, reason: 'one active tool channel' }
      flowlang.trace(input.node, 'gate', { active: gate.active, dropped: gate.dropped.map((u) => `${u.channel}:${u.name}`) })
      flowlang.emit(input.node, 'events.out', event)
    }
    // The model called tools in a format this codec cannot route: nothing ran.
    const unrouted = gate.uses.length === 0 && fixed ? gate.dropped.map((u) => `${u.name} (${u.channel})`) : []
    return { uses: gate.uses, dropped: gate.dropped, active: gate.active ?? null, visible: gate.visible, channel, calls, unrouted }
  }, { ...PURE, docs: 'A codec decoding tool uses through one active tool channel.' })

/** `flowFinal`: the answer of the turn, delivered from the codec's `messages.out`. */
export const flowFinal = atom('flowFinal', obj({ node: str, text: str }), { type: 'object' }, (input: { node: string; text: string }, ctx) => {
  const final: ChatMessage = { role: 'assistant', content: input.text }
  caps(ctx).flowlang.trace(input.node, 'final', { chars: input.text.length })
  caps(ctx).flowlang.emit(input.node, 'messages.out', final)
  return final
}, { ...PURE, docs: 'The final assistant message of a turn.' })

/** `flowTrace`: a trace entry of a block (scheduler.idle_nudge's nudges). */
export const flowTrace = atom('flowTrace', obj({ node: str, kind: str, detail: any }, ['node', 'kind']), undefined, (input: { node: string; kind: string; detail?: Record<string, unknown> | null }, ctx) => {
  caps(ctx).flowlang.trace(input.node, input.kind, input.detail ?? undefined)
  return null
}, { ...PURE, docs: 'A FlowLang trace entry.' })

/**
 * `flowToolCall`: one tool use through router.mcp: traced and observable,
 * advisor.gate asks the host first, the tools capability runs it. An
 * unknown tool gives `unsupported: true` and an error result for the model.
 */
export const flowToolCall = atom('flowToolCall', obj({ router: str, codec: str, use: { type: 'object' }, tools: list, gates: list, servers: any }, ['router', 'codec', 'use', 'tools', 'gates']), obj({ result: { type: 'object' }, unsupported: { type: 'boolean' } }),
  async (input: { router: string; codec: string; use: NeutralToolUse; tools: McpToolInfo[]; gates: Array<{ id: string; threshold: Risk }>; servers?: string[] | null }, ctx) => {
    const { mcp, flowlang, approve } = caps(ctx)
    const use = input.use
    flowlang.trace(input.codec, 'tool_use', { id: use.id, name: use.name, channel: use.channel })
    flowlang.emit(input.codec, 'events.out', { type: 'tool_use', use } satisfies FlowEvent)
    const tool = input.tools.find((t) => t.name === use.name)
    let res: NeutralToolResult | undefined
    let denied: string | undefined
    if (tool) {
      const risk = toolRisk(tool)
      for (const g of input.gates) {
        if (!gateApplies(g.threshold, risk)) continue
        if (!(approve && await approve({ kind: 'tool', use, risk }))) { denied = g.id; break }
      }
    }
    if (denied) res = { id: use.id, name: use.name, content: `The tool call was not approved (advisor.gate ${denied}).`, isError: true }
    else if (tool) {
      try {
        res = await mcp.call(use, { signal: ctx.signal, servers: input.servers ?? undefined })
      } catch (e) {
        if (ctx.signal.aborted) throw e
        if (e instanceof McpRouterError) throw flowError('MCP_ERROR', { server: e.server, detail: e.message })
        throw e
      }
    }
    // A cancelled turn (time limit, the host's signal) delivers nothing more, whatever the tool answered late.
    if (ctx.signal.aborted) throw ctx.signal.reason
    const unsupported = !res
    if (!res) res = { id: use.id, name: use.name, content: problem('TOOL_UNSUPPORTED', '', { name: use.name }).message, isError: true }
    flowlang.trace(input.router, 'tool_result', { id: use.id, name: use.name, isError: res.isError })
    flowlang.emit(input.router, 'events.out', { type: 'tool_result', result: res } satisfies FlowEvent)
    return { result: { id: res.id, name: res.name, content: String(res.content), isError: res.isError === true }, unsupported }
  }, { cost: 10, ...IO, docs: 'router.mcp: run one tool use through the MCP capability (advisor.gate asks first).' })

/** `flowEncode`: the messages a round with tool uses adds to the conversation, results included. */
export const flowEncode = atom('flowEncode', obj({ channel: str, round: { type: 'object' }, gate: { type: 'object' }, results: list }), list,
  (input: { channel: ToolChannel; round: RoundOutput; gate: GateResult; results: NeutralToolResult[] }) => encodeRound(input.channel, input.round, input.gate, input.results),
  { ...PURE, docs: 'A codec sending tool results back to the model.' })

/** `flowStop`: ends the turn with a FlowLang error (the rounds limit). */
export const flowStop = atom('flowStop', obj({ problem: str, params: { type: 'object' } }), undefined, (input: { problem: FlowCodeName; params: Record<string, string | number> }) => {
  throw flowError(input.problem, input.params)
}, { ...PURE, docs: 'End the turn with a FlowLang error.' })

/** Every FlowLang atom, for `new AgentVM(FLOW_ATOMS)`. */
export const FLOW_ATOMS: readonly AtomDef[] = [flowTools, flowShape, flowAdvertise, flowModelRound, flowDecode, flowFinal, flowTrace, flowToolCall, flowEncode, flowStop]
export const FLOW_ATOM_NAMES: readonly string[] = FLOW_ATOMS.map((a) => a.op)

/** The version of the FlowLang runtime library a turn program declares (`libraries: { flowlang: 1 }`). */
export const FLOWLANG_LIBRARY_VERSION = LIBRARIES.flowlang.version
