/**
 * Compile a valid FlowGraph into a live pipeline and run turns on it.
 *
 * A turn: the conversation goes through the message shapers wired into the
 * protocol (in wiring order), the protocol streams one model round, the
 * codec decodes it through the one-active-tool-channel gate, router.mcp
 * runs the tool uses (advisor.gate may ask the host first), the results go
 * back through the codec into the conversation, and the next round starts —
 * until the model answers without tools. Values leaving a block's output
 * port are delivered along the graph's edges to the sinks wired there.
 * Each turn is bounded by fuel, time and rounds, and traced.
 */
import { blockSpec, type PortType } from '../catalog.ts'
import { problem, type FlowGraph, type FlowNode } from '../graph.ts'
import { advertise, codecChannel, collector, encodeRound, gateRound, type McpToolInfo } from './codecs.ts'
import { ModelHttpError, PROTOCOLS } from './protocols.ts'
import { McpRouterError, type McpRouter } from './router.ts'
import { SHAPERS, gateApplies, toolRisk, type Risk } from './shapers.ts'
import { deliver } from './sinks.ts'
import {
  FUEL_COST, TURN_DEFAULTS, type ChatMessage, type FlowEvent, type FlowHost, type NeutralToolResult, type NeutralToolUse, type ToolChannel, type TraceEntry, type TurnResult,
} from './types.ts'

/** State that outlives one turn (codec.auto's detected channel). */
export interface FlowRunState {
  autoChannel?: ToolChannel
}

export interface CompiledFlow {
  graph: FlowGraph
  runTurn(history: readonly ChatMessage[], input: string, turn: number): Promise<TurnResult>
}

class TurnStop extends Error {
  constructor(readonly code: 'TURN_FUEL' | 'TURN_TIMEOUT' | 'TURN_ROUNDS', readonly params: Record<string, string | number>) { super(code) }
}

const byRole = (graph: FlowGraph, role: string): FlowNode[] => graph.nodes.filter((n) => blockSpec(n.type)?.role === role)

/** The shapers feeding the protocol's `messages.in`, first to last. */
function messageChain(graph: FlowGraph, protocol: FlowNode): FlowNode[] {
  const chain: FlowNode[] = []
  let target = protocol.id
  for (let guard = 0; guard < graph.nodes.length; guard++) {
    const edge = graph.edges.find((e) => e.to[0] === target && e.to[1] === 'messages.in')
    const node = edge && graph.nodes.find((n) => n.id === edge.from[0])
    if (!node || !SHAPERS[node.type] || chain.includes(node)) break
    chain.unshift(node)
    target = node.id
  }
  return chain
}

/** Compile a graph (it must have passed validateFlowGraph). */
export function compileFlow(graph: FlowGraph, host: FlowHost, router: McpRouter, state: FlowRunState): CompiledFlow {
  const protocol = byRole(graph, 'protocol')[0]!
  const codec = byRole(graph, 'codec')[0]!
  const routerNode = byRole(graph, 'router')[0]!
  const advertiser = graph.nodes.find((n) => n.type === 'tools.negotiation_advertise')
  const chain = messageChain(graph, protocol)
  const gates = graph.nodes.filter((n) => n.type === 'advisor.gate' && (n.options.when as string[] | undefined)?.includes('preTool'))
  const nudge = graph.nodes.find((n) => n.type === 'scheduler.idle_nudge')
  const stream = PROTOCOLS[protocol.type as keyof typeof PROTOCOLS]
  const fixed = codecChannel(codec.type)
  const prefer = (codec.options.prefer as ToolChannel | undefined) ?? 'functions'
  const given = host.limits ?? {}
  const limits = {
    timeoutMs: given.timeoutMs ?? TURN_DEFAULTS.timeoutMs,
    fuel: given.fuel ?? TURN_DEFAULTS.fuel,
    maxRounds: given.maxRounds ?? TURN_DEFAULTS.maxRounds,
  }

  const emit = (from: FlowNode, port: string, value: unknown) => {
    const type = blockSpec(from.type)!.outputs[port] as PortType
    for (const e of graph.edges) {
      if (e.from[0] !== from.id || e.from[1] !== port) continue
      const to = graph.nodes.find((n) => n.id === e.to[0])
      if (to && blockSpec(to.type)?.role === 'sink') deliver(to, type, value, host)
    }
  }

  async function runTurn(history: readonly ChatMessage[], input: string, turn: number): Promise<TurnResult> {
    const started = Date.now()
    const trace: TraceEntry[] = []
    const note = (node: FlowNode, kind: string, detail?: Record<string, unknown>) => {
      const entry: TraceEntry = { turn, at: Date.now() - started, node: node.id, kind, ...(detail ? { detail } : {}) }
      trace.push(entry)
      host.onTrace?.(entry)
    }
    let fuelUsed = 0
    const charge = (n: number) => {
      fuelUsed += n
      if (fuelUsed > limits.fuel) throw new TurnStop('TURN_FUEL', { fuel: limits.fuel })
    }
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(new TurnStop('TURN_TIMEOUT', { ms: limits.timeoutMs })), limits.timeoutMs)
    const conversation: ChatMessage[] = [...history, { role: 'user', content: input }]
    const added: ChatMessage[] = [conversation.at(-1)!]
    const unsupported: string[] = []
    let rounds = 0
    let toolCalls = 0
    let nudges = 0
    let callNo = 0
    const result = (text: string, error?: TurnResult['error']): TurnResult => ({
      text, messages: added, trace, fuelUsed, rounds, toolCalls, ...(error ? { error } : {}), ...(unsupported.length ? { unsupported } : {}),
    })
    try {
      let tools: Array<McpToolInfo & { server: string }> = await untilAborted(router.tools(routerNode.options.servers as string[] | undefined), abort.signal)
      const only = advertiser?.options.tools as string[] | undefined
      if (only) tools = tools.filter((t) => only.includes(t.name))
      note(routerNode, 'tools', { names: tools.map((t) => t.name) })
      for (;;) {
        if (rounds >= limits.maxRounds) throw new TurnStop('TURN_ROUNDS', { rounds })
        rounds++
        charge(FUEL_COST.round)
        const base: ChatMessage[] = host.system ? [{ role: 'system', content: host.system }, ...conversation] : conversation
        const shaped = chain.reduce((msgs, node) => SHAPERS[node.type]!(msgs, node.options), base)
        const request = advertise(codec.type, tools, shaped)
        note(protocol, 'request', { round: rounds, messages: request.messages.length, tools: tools.length })
        const collect = collector()
        for await (const d of stream({
          baseUrl: host.llm?.baseUrl ?? String(protocol.options.baseUrl),
          model: host.llm?.model ?? (protocol.options.model as string | undefined) ?? 'default',
          apiKey: host.llm?.apiKey ?? (protocol.options.apiKey as string | undefined),
          temperature: protocol.options.temperature as number | undefined,
          messages: request.messages, tools: request.tools, signal: abort.signal,
        })) {
          charge(FUEL_COST.chunk)
          collect.add(d)
          if (d.type === 'text') emit(protocol, 'stream.delta', d)
          if (d.type === 'usage') emit(protocol, 'usage.out', d)
        }
        const round = collect.done()
        note(protocol, 'response', { round: rounds, chars: round.text.length, nativeCalls: round.native.length })
        emit(protocol, 'messages.out', { role: 'assistant', content: round.text } satisfies ChatMessage)
        const gate = gateRound(round, fixed ?? state.autoChannel, prefer, () => `call_${turn}_${++callNo}`)
        if (!fixed && gate.active && !state.autoChannel) {
          state.autoChannel = gate.active
          note(codec, 'detect', { channel: gate.active })
        }
        if (gate.dropped.length) {
          const event: FlowEvent = { type: 'gate', dropped: gate.dropped, active: gate.active!, reason: 'one active tool channel' }
          note(codec, 'gate', { active: gate.active, dropped: gate.dropped.map((u) => `${u.channel}:${u.name}`) })
          emit(codec, 'events.out', event)
        }
        if (gate.uses.length === 0) {
          if (gate.dropped.length && fixed) {
            // The model called tools in a format this codec cannot route: nothing ran.
            unsupported.push(...gate.dropped.map((u) => `${u.name} (${u.channel})`))
          }
          if (!gate.visible.trim() && !gate.dropped.length && nudge && nudges < Number(nudge.options.maxNudges ?? 1)) {
            nudges++
            const msg: ChatMessage = { role: 'user', content: String(nudge.options.message) }
            note(nudge, 'nudge', { n: nudges })
            conversation.push({ role: 'assistant', content: '' }, msg)
            added.push({ role: 'assistant', content: '' }, msg)
            continue
          }
          const final: ChatMessage = { role: 'assistant', content: gate.visible }
          added.push(final)
          note(codec, 'final', { chars: gate.visible.length })
          emit(codec, 'messages.out', final)
          return result(gate.visible)
        }
        const results: NeutralToolResult[] = []
        for (const use of gate.uses) {
          charge(FUEL_COST.toolCall)
          toolCalls++
          note(codec, 'tool_use', { id: use.id, name: use.name, channel: use.channel })
          emit(codec, 'events.out', { type: 'tool_use', use } satisfies FlowEvent)
          const tool = tools.find((t) => t.name === use.name)
          let res: NeutralToolResult | undefined
          const denied = tool && await deniedByGate(gates, use, toolRisk(tool), host)
          if (denied) res = { id: use.id, name: use.name, content: `The tool call was not approved (advisor.gate ${denied}).`, isError: true }
          else if (!tool) res = undefined
          else res = await untilAborted(router.call(use, abort.signal, routerNode.options.servers as string[] | undefined), abort.signal)
          if (!res) {
            unsupported.push(use.name)
            const p = problem('TOOL_UNSUPPORTED', '', { name: use.name })
            res = { id: use.id, name: use.name, content: p.message, isError: true }
          }
          note(routerNode, 'tool_result', { id: use.id, name: use.name, isError: res.isError })
          emit(routerNode, 'events.out', { type: 'tool_result', result: res } satisfies FlowEvent)
          results.push(res)
        }
        const msgs = encodeRound(gate.active!, round, gate, results)
        conversation.push(...msgs)
        added.push(...msgs)
      }
    } catch (e) {
      const stop = e instanceof TurnStop ? e : abort.signal.reason instanceof TurnStop ? abort.signal.reason : undefined
      let p
      if (stop) p = problem(stop.code, '', stop.params)
      else if (e instanceof ModelHttpError) p = problem('LLM_ERROR', '', { detail: e.message })
      else if (e instanceof McpRouterError) p = problem('MCP_ERROR', '', { server: e.server, detail: e.message })
      else throw e
      note(protocol, 'error', { code: p.code, message: p.message })
      return result('', { code: p.code, name: p.name, message: p.message, hint: p.hint })
    } finally {
      clearTimeout(timer)
    }
  }

  return { graph, runTurn }
}

/** Starting an MCP server cannot be cancelled mid-handshake: the turn stops waiting when its signal fires. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    work.then(
      (v) => { signal.removeEventListener('abort', stop); resolve(v) },
      (e) => { signal.removeEventListener('abort', stop); reject(e) },
    )
  })
}

/** The gate that refused (by node id), or undefined when every applicable gate approved. */
async function deniedByGate(gates: FlowNode[], use: NeutralToolUse, risk: Risk, host: FlowHost): Promise<string | undefined> {
  for (const g of gates) {
    if (!gateApplies(g.options.threshold as Risk, risk)) continue
    const ok = host.approve ? await host.approve({ kind: 'tool', use, risk }) : false
    if (!ok) return g.id
  }
  return undefined
}
