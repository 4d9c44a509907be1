/**
 * The codecs: how MCP tools are advertised to a model, how its tool calls
 * are decoded into neutral tool uses, and how results go back.
 *
 * The one-active-tool-channel gate lives here (`gateRound`): a round's tool
 * uses come from exactly one channel — native `tool_calls` ("functions") or
 * `<tool_call>` text ("xml"). The other channel's calls are dropped and
 * reported, never executed, so a model that writes the same call both ways
 * gets it run once. Fixed codecs own one channel; `codec.auto` takes the
 * channel of the first round that calls a tool (its `prefer` option breaks
 * a tie inside that round) and keeps it for the session.
 */
import type { ChatMessage, NeutralToolResult, NeutralToolUse, StreamDelta, ToolCallWire, ToolChannel } from './types.ts'

export interface McpToolInfo {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean }
}

/** Everything one model round produced. */
export interface RoundOutput {
  text: string
  native: Array<{ id?: string; name: string; argumentsText: string; arguments?: Record<string, unknown> }>
}

export function collector(): { add(d: StreamDelta): void; done(): RoundOutput } {
  let text = ''
  const calls = new Map<number, { id?: string; name: string; argumentsText: string; arguments?: Record<string, unknown> }>()
  return {
    add(d) {
      if (d.type === 'text') text += d.text
      else if (d.type === 'tool_call') {
        const c = calls.get(d.index) ?? { name: '', argumentsText: '' }
        if (d.id) c.id = d.id
        if (d.name) c.name += d.name
        if (d.argumentsText) c.argumentsText += d.argumentsText
        if (d.arguments) c.arguments = d.arguments
        calls.set(d.index, c)
      }
    },
    done: () => ({ text, native: [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c) }),
  }
}

const XML_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g

/** `<tool_call>{"name", "arguments"}</tool_call>` blocks of a text (malformed ones are reported, not run). */
export function parseXmlToolCalls(text: string): { calls: Array<{ name: string; arguments: Record<string, unknown> }>; malformed: string[]; visible: string } {
  const calls: Array<{ name: string; arguments: Record<string, unknown> }> = []
  const malformed: string[] = []
  for (const m of text.matchAll(XML_CALL)) {
    try {
      const v = JSON.parse(m[1]!)
      const args = typeof v?.arguments === 'string' ? JSON.parse(v.arguments) : v?.arguments ?? {}
      if (typeof v?.name !== 'string' || args === null || typeof args !== 'object' || Array.isArray(args)) throw new Error('shape')
      calls.push({ name: v.name, arguments: args })
    } catch {
      malformed.push(m[1]!.slice(0, 200))
    }
  }
  return { calls, malformed, visible: text.replace(XML_CALL, '').trim() }
}

function parseArgs(text: string): Record<string, unknown> {
  if (!text.trim()) return {}
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
  } catch {
    return { _raw: text }
  }
}

export interface GateResult {
  uses: NeutralToolUse[]
  dropped: NeutralToolUse[]
  active: ToolChannel | undefined
  /** Text without `<tool_call>` blocks when xml is active. */
  visible: string
}

/**
 * Decode a round into neutral tool uses through exactly one channel.
 * `fixed` is the codec's own channel; for codec.auto it is the channel
 * detected so far (undefined before the first tool call).
 */
export function gateRound(round: RoundOutput, fixed: ToolChannel | undefined, prefer: ToolChannel, nextId: () => string): GateResult {
  const native: NeutralToolUse[] = round.native.map((c) => ({
    id: c.id || nextId(), name: c.name, arguments: c.arguments ?? parseArgs(c.argumentsText), channel: 'functions' as const,
  }))
  const xml = parseXmlToolCalls(round.text)
  const xmlUses: NeutralToolUse[] = xml.calls.map((c) => ({ id: nextId(), name: c.name, arguments: c.arguments, channel: 'xml' as const }))
  let active = fixed
  if (!active) active = native.length && xmlUses.length ? prefer : native.length ? 'functions' : xmlUses.length ? 'xml' : undefined
  const uses = active === 'functions' ? native : active === 'xml' ? xmlUses : []
  const dropped = active === 'functions' ? xmlUses : active === 'xml' ? native : []
  const seen = new Set<string>()
  const unique = uses.filter((u) => (seen.has(u.id) ? false : (seen.add(u.id), true)))
  return { uses: unique, dropped, active, visible: active === 'xml' || (xmlUses.length && active === 'functions') ? xml.visible : round.text }
}

export function functionTools(tools: McpToolInfo[]): unknown[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema } }))
}

/** The Qwen/Hermes tool prompt: signatures in `<tools>`, calls in `<tool_call>`. */
export function xmlToolPrompt(tools: McpToolInfo[]): string {
  const sigs = functionTools(tools).map((t) => JSON.stringify(t)).join('\n')
  return [
    '# Tools', '', 'You may call one or more functions to assist with the user query.', '',
    'You are provided with function signatures within <tools></tools> XML tags:', '<tools>', sigs, '</tools>', '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>', '{"name": <function-name>, "arguments": <args-json-object>}', '</tool_call>',
  ].join('\n')
}

/** The request's messages and tools for a codec (channel: the fixed/detected one, or undefined for auto). */
export function advertise(codec: string, tools: McpToolInfo[], messages: ChatMessage[]): { messages: ChatMessage[]; tools?: unknown[] } {
  if (!tools.length) return { messages }
  if (codec === 'codec.mcp_over_xml') {
    const prompt = xmlToolPrompt(tools)
    const [first, ...rest] = messages
    if (first?.role === 'system') return { messages: [{ ...first, content: `${first.content ?? ''}\n\n${prompt}` }, ...rest] }
    return { messages: [{ role: 'system', content: prompt }, ...messages] }
  }
  return { messages, tools: functionTools(tools) }
}

/** The messages a round with tool uses adds to the conversation, results included. */
export function encodeRound(channel: ToolChannel, round: RoundOutput, gate: GateResult, results: NeutralToolResult[]): ChatMessage[] {
  if (channel === 'xml') {
    return [
      { role: 'assistant', content: round.text },
      { role: 'user', content: results.map((r) => `<tool_response>\n${r.content}\n</tool_response>`).join('\n') },
    ]
  }
  const calls: ToolCallWire[] = gate.uses.map((u) => ({ id: u.id, type: 'function', function: { name: u.name, arguments: JSON.stringify(u.arguments) } }))
  return [
    { role: 'assistant', content: gate.visible || null, tool_calls: calls },
    ...results.map((r): ChatMessage => ({ role: 'tool', tool_call_id: r.id, name: r.name, content: r.content })),
  ]
}

/** The channel a codec type owns (undefined: detected at run time). */
export function codecChannel(codec: string): ToolChannel | undefined {
  return codec === 'codec.mcp_over_functions' ? 'functions' : codec === 'codec.mcp_over_xml' ? 'xml' : undefined
}
