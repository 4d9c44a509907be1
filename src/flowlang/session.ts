/**
 * A FlowSession runs a user's flow turn after turn, with Safe Mode.
 *
 * Triggers: the flow fails to load (script error, validation problem), or
 * a turn meets an "unsupported tool use" (a tool no MCP server offers, or
 * tool calls in a format the flow's codec cannot route). Then the user's
 * graph is suspended and the baseline chain runs instead — the flow's
 * protocol (same type, base URL and credentials) → codec.auto → router.mcp
 * → sink.ui.messages — and a short system message names the failure and
 * the fix. When the model's tool calls were not routed, the same turn is
 * run again on the baseline. A valid `load` or an adopted `repair` leaves
 * Safe Mode. A session opened on a file reloads it when it changes (so a
 * `flow_repair` served by `ajsc flowlang serve-tools` takes effect on the
 * next turn).
 */
import { readFileSync } from 'node:fs'
import type { AjsProgram } from '../ast/types.ts'
import { blockSpec } from './catalog.ts'
import { problem, type FlowGraph, type FlowProblem } from './graph.ts'
import { applyFlowRepair, type FlowRepairResult } from './repair.ts'
import { loadFlowSource, type LoadFlowOptions } from './sources.ts'
import { validateFlowGraph, type FlowValidation } from './validate.ts'
import { compileFlow, type CompiledFlow, type FlowRunState, type TurnOptions } from './runtime/pipeline.ts'
import { McpRouter } from './runtime/router.ts'
import type { ChatMessage, FlowHost, TurnResult } from './runtime/types.ts'

export type FlowInput = { graph: unknown } | ({ source: string } & LoadFlowOptions) | ({ path: string } & LoadFlowOptions)

export interface FlowSessionOptions {
  host?: FlowHost
  /** The protocol of the baseline when no flow ever named one (default protocol.openai with its defaults). */
  baseline?: { type: 'protocol.openai' | 'protocol.ollama'; options?: Record<string, unknown> }
}

export interface SessionTurn extends TurnResult {
  mode: 'normal' | 'safe'
  /** The Safe Mode message, when this turn entered Safe Mode or ran in it. */
  notice?: string
}

/** The known-good chain: protocol → codec.auto → router.mcp → sink.ui.messages. */
export function baselineGraph(protocol: { type: string; options?: Record<string, unknown> }): FlowGraph {
  const g = {
    version: 1,
    name: 'baseline',
    nodes: [
      { id: 'protocol', type: protocol.type, options: protocol.options ?? {} },
      { id: 'codec', type: 'codec.auto', options: {} },
      { id: 'router', type: 'router.mcp', options: {} },
      { id: 'sink', type: 'sink.ui.messages', options: {} },
    ],
    edges: [
      { from: ['protocol', 'stream.delta'], to: ['codec', 'stream.delta'] },
      { from: ['codec', 'tool_use.neutral'], to: ['router', 'tool_use.neutral'] },
      { from: ['router', 'tool_result.neutral'], to: ['codec', 'tool_result.neutral'] },
      { from: ['codec', 'messages.out'], to: ['sink', 'messages.out'] },
    ],
  }
  return validateFlowGraph(g).graph
}

export class FlowSession {
  readonly history: ChatMessage[] = []
  mode: 'normal' | 'safe' = 'normal'
  /** Why Safe Mode is on. */
  notice?: string
  /** Problems of the last load or repair. */
  problems: FlowProblem[] = []
  /** The user's graph as last loaded (raw when it failed validation). */
  userGraph: unknown
  private flow?: CompiledFlow
  private lastGood?: FlowGraph
  private readonly router: McpRouter
  private readonly state: FlowRunState = {}
  private readonly host: FlowHost
  private file?: { path: string; text: string; options: LoadFlowOptions }
  private turns = 0

  private constructor(private readonly options: FlowSessionOptions) {
    this.host = options.host ?? {}
    this.router = new McpRouter(this.host.mcpServers ?? {})
  }

  /** Open a session on a flow (graph, source text or file path). Never throws on a bad flow: it starts in Safe Mode. */
  static async open(input: FlowInput, options: FlowSessionOptions = {}): Promise<FlowSession> {
    const session = new FlowSession(options)
    await session.load(input)
    return session
  }

  /** The graph turns run on now (the user's, or the baseline in Safe Mode). */
  get graph(): FlowGraph | undefined {
    return this.flow?.graph
  }

  /** The "ajs/1" program a turn runs on the AgentVM (of the graph turns run on now). */
  get program(): AjsProgram | undefined {
    return this.flow?.program
  }

  /** Load (or reload) the user's flow; a failure switches to Safe Mode, success leaves it. */
  async load(input: FlowInput): Promise<FlowValidation> {
    let result: FlowValidation
    let raw: unknown
    if ('graph' in input) {
      raw = input.graph
      result = validateFlowGraph(raw)
    } else {
      let text: string
      if ('path' in input) {
        text = readFileSync(input.path, 'utf8')
        this.file = { path: input.path, text, options: { ...input, filename: input.filename ?? input.path } }
      } else text = input.source
      result = await loadFlowSource(text, { ...input, filename: input.filename ?? ('path' in input ? input.path : undefined) })
      raw = result.graph
    }
    this.userGraph = raw
    this.problems = result.problems
    if (result.valid) this.adopt(result.graph)
    else this.enterSafeMode(`the flow failed validation: ${summary(result.problems)}`, 'fix the flow file, or call flow_repair with a patch', raw)
    return result
  }

  /** Apply a guarded repair to the user's graph; an adopted repair leaves Safe Mode. */
  async repair(patch: unknown): Promise<FlowRepairResult> {
    const gate = (this.lastGood ?? this.flow?.graph)?.nodes.find((n) => n.type === 'advisor.gate' && (n.options.when as string[]).includes('prePatch'))
    if (gate && !(this.host.approve && await this.host.approve({ kind: 'patch', path: this.file?.path ?? '', patch }))) {
      return { adopted: false, problems: [problem('REPAIR_DENIED', '/patch')] }
    }
    // The protocol running now when the user's graph names none: a repair adding one keeps its immutable options.
    const result = applyFlowRepair(this.userGraph, patch, { baseline: this.baselineProtocol(this.userGraph) })
    this.problems = result.problems
    if (result.adopted) {
      this.userGraph = result.graph
      this.adopt(result.graph)
    }
    return result
  }

  /** Run one user turn (on the AgentVM; `options.signal` cancels it). */
  async turn(input: string, options: TurnOptions = {}): Promise<SessionTurn> {
    await this.reloadIfChanged()
    const turnNo = ++this.turns
    let result = await this.flow!.runTurn(this.history, input, turnNo, options)
    if (result.unsupported?.length && this.mode === 'normal') {
      this.enterSafeMode(`unsupported tool use: ${result.unsupported.join(', ')}`, 'check the codec matches the model\'s tool-call format (codec.auto detects it) and the MCP servers offer the tools', this.userGraph)
      if (result.toolCalls === 0) result = await this.flow!.runTurn(this.history, input, turnNo, options)
    }
    // A failed turn leaves the conversation as it was: its question, and any half-done tool round, would make
    // the next request one the model never answered (or an invalid one, for a strict API).
    if (!result.error) this.history.push(...result.messages)
    return { ...result, mode: this.mode, ...(this.mode === 'safe' ? { notice: this.notice } : {}) }
  }

  async close(): Promise<void> {
    await this.router.close()
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  private adopt(graph: FlowGraph): void {
    this.lastGood = graph
    this.flow = compileFlow(graph, this.host, this.router, this.state)
    if (this.mode === 'safe') this.say(`Safe Mode off: the flow \`${graph.name}\` is valid again.`)
    this.mode = 'normal'
    this.notice = undefined
  }

  private enterSafeMode(failure: string, action: string, raw: unknown): void {
    this.mode = 'safe'
    this.notice = `Safe Mode: ${failure}. Running the baseline (protocol → codec.auto → router.mcp → sink). Suggested action: ${action}.`
    this.flow = compileFlow(baselineGraph(this.baselineProtocol(raw)), this.host, this.router, this.state)
    this.say(this.notice)
  }

  /** The flow's own protocol (type and immutable options) when it names one, else the last good one, else the configured baseline. */
  private baselineProtocol(raw: unknown): { type: string; options: Record<string, unknown> } {
    const pick = (g: unknown) => {
      const nodes = (g as { nodes?: unknown })?.nodes
      const p = Array.isArray(nodes) ? nodes.find((n: any) => blockSpec(String(n?.type))?.role === 'protocol') : undefined
      if (!p) return undefined
      const spec = blockSpec(p.type)!
      const options: Record<string, unknown> = {}
      for (const [k, v] of Object.entries((p.options ?? {}) as Record<string, unknown>)) {
        const name = spec.options[k] ? k : Object.keys(spec.options).find((n) => spec.options[n]!.alias === k)
        if (name && ['baseUrl', 'apiKey', 'model'].includes(name)) options[name] = v
      }
      return { type: String(p.type), options }
    }
    return pick(raw) ?? pick(this.lastGood) ?? { type: this.options.baseline?.type ?? 'protocol.openai', options: this.options.baseline?.options ?? {} }
  }

  private say(text: string): void {
    const message: ChatMessage = { role: 'system', content: text }
    if (this.host.onMessage) this.host.onMessage(message, { sink: 'session' })
    else this.host.output?.write(`${text}\n`)
    this.host.onEvent?.({ type: 'notice', text }, { sink: 'session' })
  }

  private async reloadIfChanged(): Promise<void> {
    if (!this.file) return
    let text: string
    try { text = readFileSync(this.file.path, 'utf8') } catch { return }
    if (text !== this.file.text) await this.load({ path: this.file.path, ...this.file.options })
  }
}

function summary(problems: FlowProblem[]): string {
  const first = problems[0]
  if (!first) return 'no graph'
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
  return `${first.code} ${first.message}${first.path ? ` at ${first.path}` : ''}${more}`
}
