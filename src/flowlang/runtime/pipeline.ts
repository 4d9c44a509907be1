/**
 * Compile a valid FlowGraph into a turn program and run turns on the AgentVM.
 *
 * A turn: the conversation goes through the message shapers wired into the
 * protocol (in wiring order), the protocol streams one model round, the
 * codec decodes it through the one-active-tool-channel gate, router.mcp
 * runs the tool uses (advisor.gate may ask the host first), the results go
 * back through the codec into the conversation, and the next round starts —
 * until the model answers without tools. Values leaving a block's output
 * port are delivered along the graph's edges to the sinks wired there.
 *
 * The turn is an "ajs/1" program (program.ts) whose block steps are the
 * FlowLang atoms (atoms.ts), run by an AgentVM: fuel, the time limit,
 * cancellation, the VM trace and the error shape are the VM's. The model
 * endpoint, the MCP tools, approvals, sinks and the FlowLang trace reach the
 * atoms only as the run's capabilities.
 */
import type { AjsProgram } from '../../ast/types.ts'
import type { AgentVM } from '../../vm/agent-vm.ts'
import { assembleVM } from '../../host/assemble.ts'
import type { AgentError } from '../../vm/errors.ts'
import { blockSpec, type PortType } from '../catalog.ts'
import type { FlowGraph, FlowNode } from '../graph.ts'
import { type FlowCapabilities, type McpCapability, type ModelCapability } from './atoms.ts'
import { compileTurnProgram } from './program.ts'
import { flowlangLibrary } from './library.ts'
import { PROTOCOLS } from './protocols.ts'
import type { McpRouter } from './router.ts'
import { deliver } from './sinks.ts'
import { TURN_DEFAULTS, type ChatMessage, type FlowHost, type ToolChannel, type TraceEntry, type TurnResult } from './types.ts'

/** State that outlives one turn (codec.auto's detected channel). */
export interface FlowRunState {
  autoChannel?: ToolChannel
}

export interface TurnOptions {
  /** Cancels the turn (the model request and a running tool call included): error `ABORTED`. */
  signal?: AbortSignal
}

export interface CompiledFlow {
  graph: FlowGraph
  /** The turn program the VM runs (valid "ajs/1"). */
  program: AjsProgram
  runTurn(history: readonly ChatMessage[], input: string, turn: number, options?: TurnOptions): Promise<TurnResult>
}

let sharedVm: AgentVM | undefined
/** The VM FlowLang turns run on: the core atoms plus the FlowLang runtime library. */
export function flowVm(): AgentVM {
  return (sharedVm ??= assembleVM({ libraries: [flowlangLibrary] }))
}

/** The default model capability: the protocol blocks' HTTP streams, the host's `llm` winning over the block's options. */
export function modelCapability(host: FlowHost): ModelCapability {
  return {
    stream(protocol, request) {
      const stream = PROTOCOLS[protocol as keyof typeof PROTOCOLS]
      if (!stream) throw new Error(`no protocol ${protocol}`)
      return stream({
        ...request,
        baseUrl: host.llm?.baseUrl ?? String(request.baseUrl),
        model: host.llm?.model ?? request.model ?? 'default',
        apiKey: host.llm?.apiKey ?? request.apiKey,
      })
    },
  }
}

/** router.mcp's capability over the session's MCP router. */
export function routerCapability(router: McpRouter): McpCapability {
  return {
    tools: (servers) => router.tools(servers),
    call: (use, { signal, servers }) => router.call(use, signal, servers),
  }
}

const TURN_HINTS: Record<string, string> = {
  TIMEOUT: 'Raise `limits.timeoutMs` (CLI: --timeout).',
  FUEL_EXHAUSTED: 'Raise `limits.fuel` (CLI: --fuel), or ask for less work per turn.',
}

/** Compile a graph (it must have passed validateFlowGraph). */
export function compileFlow(graph: FlowGraph, host: FlowHost, router: McpRouter, state: FlowRunState): CompiledFlow {
  const program = compileTurnProgram(graph)
  const protocol = graph.nodes.find((n) => blockSpec(n.type)?.role === 'protocol')!
  const given = host.limits ?? {}
  const limits = {
    timeoutMs: given.timeoutMs ?? TURN_DEFAULTS.timeoutMs,
    fuel: given.fuel ?? TURN_DEFAULTS.fuel,
    maxRounds: given.maxRounds ?? TURN_DEFAULTS.maxRounds,
  }
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]))
  const emit = (from: FlowNode, port: string, value: unknown) => {
    const type = blockSpec(from.type)!.outputs[port] as PortType
    for (const e of graph.edges) {
      if (e.from[0] !== from.id || e.from[1] !== port) continue
      const to = nodes.get(e.to[0])
      if (to && blockSpec(to.type)?.role === 'sink') deliver(to, type, value, host)
    }
  }
  const model = host.model ?? modelCapability(host)
  const mcp = host.mcp ?? routerCapability(router)

  async function runTurn(history: readonly ChatMessage[], input: string, turn: number, options: TurnOptions = {}): Promise<TurnResult> {
    const started = Date.now()
    const trace: TraceEntry[] = []
    const note = (node: string, kind: string, detail?: Record<string, unknown>) => {
      const entry: TraceEntry = { turn, at: Date.now() - started, node, kind, ...(detail ? { detail } : {}) }
      trace.push(entry)
      host.onTrace?.(entry)
    }
    const capabilities: FlowCapabilities = {
      ...host.capabilities,
      model, mcp,
      ...(host.approve ? { approve: host.approve } : {}),
      flowlang: {
        emit: (node, port, value) => { const n = nodes.get(node); if (n) emit(n, port, value) },
        trace: note,
      },
    }
    const args = { history, input, turn, channel: state.autoChannel ?? null, maxRounds: limits.maxRounds, system: host.system ?? null }
    const run = await flowVm().run<{ text: string; messages: ChatMessage[]; rounds: number; toolCalls: number; unsupported: string[]; channel: ToolChannel | null }>(program, args, {
      fuel: limits.fuel, timeoutMs: limits.timeoutMs, capabilities,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(host.costOverrides ? { costOverrides: host.costOverrides } : {}),
      ...(host.trace ? { trace: true } : {}),
    })
    const vm = run.trace ? { vmTrace: run.trace } : {}
    if (run.error || !run.result) {
      const error: AgentError = run.error ?? { name: 'AgentError', code: 'INTERNAL', message: 'The turn program returned nothing' }
      if (TURN_HINTS[error.code]) error.hint = TURN_HINTS[error.code]
      note(protocol.id, 'error', { code: error.code, message: error.message })
      const count = (kind: string) => trace.filter((e) => e.kind === kind).length
      return { text: '', messages: [], trace, fuelUsed: run.fuelUsed, rounds: count('request'), toolCalls: count('tool_use'), error, ...vm }
    }
    const r = run.result
    if (r.channel && !state.autoChannel) state.autoChannel = r.channel
    return {
      text: r.text, messages: r.messages, trace, fuelUsed: run.fuelUsed, rounds: r.rounds, toolCalls: r.toolCalls,
      ...(r.unsupported.length ? { unsupported: r.unsupported } : {}), ...vm,
    }
  }

  return { graph, program, runTurn }
}
