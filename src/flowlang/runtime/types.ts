/**
 * Shared runtime types: chat messages (the OpenAI chat shape is the
 * internal form; protocols convert at their edge), neutral tool uses and
 * results, stream deltas, events, host options and turn results.
 */

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

export interface TurnLimits {
  /** Wall-clock limit of one turn in ms (default 60000). */
  timeoutMs?: number
  /** Fuel of one turn (default 10000): 1 per stream chunk, 5 per model round, 10 per tool call. */
  fuel?: number
  /** Model rounds per turn (default 8). */
  maxRounds?: number
}

export const TURN_DEFAULTS = Object.freeze({ timeoutMs: 60_000, fuel: 10_000, maxRounds: 8 })
export const FUEL_COST = Object.freeze({ chunk: 1, round: 5, toolCall: 10 })

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
  fuelUsed: number
  rounds: number
  toolCalls: number
  /** Set when the turn failed (limits, model endpoint, MCP). */
  error?: { code: string; name: string; message: string; hint: string }
  /** Tool calls the flow could not route (a Safe Mode trigger). */
  unsupported?: string[]
}
