/**
 * Shared runtime types: chat messages (the OpenAI chat shape is the
 * internal form; protocols convert at their edge), neutral tool uses and
 * results, stream deltas, events, host options and turn results.
 */
import type { McpCapability, ModelCapability } from './atoms.ts'
import type { AgentError } from '../../vm/errors.ts'
import type { TraceEntry as VmTraceEntry } from '../../vm/result.ts'
import type { CostFn } from '../../vm/runtime.ts'

/** The capabilities a host may give a turn instead of the defaults (see atoms.ts). */
export type { McpCapability, ModelCapability, FlowToolInfo } from './atoms.ts'

export interface ToolCallWire {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: ToolCallWire[]
  tool_call_id?: string
  /** The tool's name on `tool` messages (Ollama wants it). */
  name?: string
}

/** The channel a tool call came through. */
export type ToolChannel = 'functions' | 'xml'

export interface NeutralToolUse {
  id: string
  name: string
  arguments: Record<string, unknown>
  channel: ToolChannel
}

export interface NeutralToolResult {
  id: string
  name: string
  content: string
  isError: boolean
}

/** One piece of a streamed model response. */
export type StreamDelta =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsText?: string; arguments?: Record<string, unknown> }
  | { type: 'usage'; promptTokens?: number; completionTokens?: number }

/** What sinks and `onEvent` receive. */
export type FlowEvent =
  | { type: 'delta'; text: string }
  | { type: 'message'; message: ChatMessage }
  | { type: 'tool_use'; use: NeutralToolUse }
  | { type: 'tool_result'; result: NeutralToolResult }
  | { type: 'gate'; dropped: NeutralToolUse[]; active: ToolChannel; reason: string }
  | { type: 'usage'; promptTokens?: number; completionTokens?: number }
  | { type: 'notice'; text: string }

/** A stdio MCP server the host names (the router starts it with the official SDK). */
export interface McpServerSpec {
  command: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
}

/** The limits of one turn: the AgentVM run options of the turn program, and its rounds. */
export interface TurnLimits {
  /** Wall-clock limit of one turn in ms (default 60000): the run's `timeoutMs` (error `TIMEOUT`). */
  timeoutMs?: number
  /** Fuel of one turn (default 10000): the run's `fuel`, on the VM's meter (error `FUEL_EXHAUSTED`). */
  fuel?: number
  /** Model rounds per turn (default 8; error `FLOW6003`). */
  maxRounds?: number
}

export const TURN_DEFAULTS = Object.freeze({ timeoutMs: 60_000, fuel: 10_000, maxRounds: 8 })

/** A request to the host's `approve` callback (advisor.gate). */
export type ApprovalRequest =
  | { kind: 'tool'; use: NeutralToolUse; risk: 'low' | 'medium' | 'high' }
  | { kind: 'patch'; path: string; patch: unknown }

export interface FlowHost {
  /** The model endpoint; wins over the protocol block's options (CLI: --llm, --model). */
  llm?: { baseUrl?: string; model?: string; apiKey?: string }
  /** MCP servers by name (CLI: --mcp "<command>"). */
  mcpServers?: Record<string, McpServerSpec>
  /** System prompt put first in every request. */
  system?: string
  /** Receives messages from sink.ui.messages. */
  onMessage?: (message: ChatMessage, from: { sink: string }) => void
  /** Receives events from sink.plain.events (and non-message values reaching sink.ui.messages). */
  onEvent?: (event: FlowEvent, from: { sink: string }) => void
  /** Receives every trace entry as it happens. */
  onTrace?: (entry: TraceEntry) => void
  /** A text stream for sinks without callbacks (messages as text, events as NDJSON). */
  output?: { write(chunk: string): unknown }
  /** advisor.gate asks here; no callback means "not approved". */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>
  limits?: TurnLimits
  /**
   * The tools capability router.mcp calls (`tools(servers?)`, `call(use, { signal, servers })`);
   * default: the MCP servers of `mcpServers`. Every tool call of a turn goes through it.
   */
  mcp?: McpCapability
  /** The model capability the protocol blocks call (`stream(protocol, request)`); default: their HTTP streams. */
  model?: ModelCapability
  /** More capabilities for the turn's run (the AgentVM's `capabilities` option). */
  capabilities?: Record<string, unknown>
  /** Per-turn atom costs (the AgentVM's `costOverrides`), e.g. `{ flowModelRound: 50 }`. */
  costOverrides?: Record<string, number | CostFn>
  /** Record the VM trace of each turn (`TurnResult.vmTrace`). */
  trace?: boolean
}

export interface TraceEntry {
  turn: number
  /** ms since the turn started. */
  at: number
  node: string
  kind: string
  detail?: Record<string, unknown>
}

export interface TurnResult {
  /** The final assistant text ('' when the turn failed). */
  text: string
  /** Messages this turn added to the conversation. */
  messages: ChatMessage[]
  trace: TraceEntry[]
  /** Fuel the turn's run used, on the AgentVM's meter. */
  fuelUsed: number
  rounds: number
  toolCalls: number
  /** Set when the turn failed (limits, model endpoint, MCP, cancellation): the VM's AgentError. */
  error?: AgentError
  /** The VM trace of the turn's run (every step with its fuel), when `host.trace` is set. */
  vmTrace?: VmTraceEntry[]
  /** Tool calls the flow could not route (a Safe Mode trigger). */
  unsupported?: string[]
}
