/**
 * Message shapers (the blocks on the message path into the protocol) and
 * the advisor.gate risk policy. Each shaper is a pure function of the
 * message list and its node options; the chain runs in wiring order.
 *
 * - family.qwen3: system messages merged into one leading system message;
 *   `<think>…</think>` removed from earlier assistant messages (Qwen3's
 *   guidance: history keeps final answers only); with `thinking` set, the
 *   last user message ends with Qwen3's `/think` or `/no_think` switch.
 * - advisor.deliberate: its `prompt` appended to the system message.
 * - advisor.gate / scheduler.idle_nudge: do not change requests; the gate
 *   acts before tools run (and before repairs), the nudge after an empty
 *   round (see pipeline.ts).
 */
import type { McpToolInfo } from './codecs.ts'
import type { ChatMessage } from './types.ts'

type Shaper = (messages: ChatMessage[], options: Record<string, unknown>) => ChatMessage[]

function withSystemNote(messages: ChatMessage[], note: string): ChatMessage[] {
  const [first, ...rest] = messages
  if (first?.role === 'system') return [{ ...first, content: `${first.content ?? ''}\n\n${note}`.trim() }, ...rest]
  return [{ role: 'system', content: note }, ...messages]
}

const THINK = /<think>[\s\S]*?<\/think>\s*/g

export const SHAPERS: Record<string, Shaper> = {
  'family.qwen3': (messages, options) => {
    const system = messages.filter((m) => m.role === 'system').map((m) => m.content ?? '').filter(Boolean)
    let out: ChatMessage[] = messages.filter((m) => m.role !== 'system')
      .map((m) => (m.role === 'assistant' && m.content ? { ...m, content: m.content.replace(THINK, '') } : m))
    if (system.length) out = [{ role: 'system', content: system.join('\n\n') }, ...out]
    if (typeof options.thinking === 'boolean') {
      const last = out.map((m) => m.role).lastIndexOf('user')
      if (last >= 0) {
        const switchWord = options.thinking ? '/think' : '/no_think'
        const m = out[last]!
        if (!String(m.content ?? '').trimEnd().endsWith(switchWord)) out[last] = { ...m, content: `${m.content ?? ''} ${switchWord}` }
      }
    }
    return out
  },
  'advisor.deliberate': (messages, options) => withSystemNote(messages, String(options.prompt ?? '')),
  'advisor.gate': (messages) => messages,
  'scheduler.idle_nudge': (messages) => messages,
}

export type Risk = 'low' | 'medium' | 'high'
const RANK: Record<Risk, number> = { low: 0, medium: 1, high: 2 }

/** A tool's risk from its MCP annotations: read-only low, destructive high, otherwise medium. */
export function toolRisk(tool: McpToolInfo | undefined): Risk {
  if (tool?.annotations?.destructiveHint === true) return 'high'
  if (tool?.annotations?.readOnlyHint === true) return 'low'
  return 'medium'
}

/** Whether a gate with this threshold asks before a tool of this risk. */
export const gateApplies = (threshold: Risk, risk: Risk): boolean => RANK[risk] >= RANK[threshold]
