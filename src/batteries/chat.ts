/**
 * `createBatteryLLM`: the capability kit's OpenAI-compatible LLM (`predict`,
 * `embed`) plus `chat`, the full chat-completions call the battery atoms
 * need: a message list (text or image parts), tools and a response format,
 * answered with the assistant message (content and tool calls).
 *
 * Same limits as the kit: one deadline per call combined with the run's
 * signal, a response size cap, and the guest-controlled request checked
 * before anything is sent.
 */
import { createOpenAICompatibleLLM, type OpenAICompatibleLLM, type OpenAICompatibleLLMOptions } from '../capabilities/llm.ts'
import { BodyTooLargeError, decodeText, readLimited, type ByteSource } from '../capabilities/body.ts'
import { createDeadline } from '../capabilities/deadline.ts'
import { CapabilityError, fail } from '../capabilities/errors.ts'

/** A content part: text, or an image by URL (`https:` or a `data:` URL). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | ContentPart[] | null
  tool_calls?: ToolCall[]
  tool_call_id?: string
}

export interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface ChatRequest {
  messages: ChatMessage[]
  /** OpenAI tool definitions (`vm.getTools()` gives them for a VM's atoms). */
  tools?: unknown[]
  /** `'json'` or an OpenAI `response_format` object. */
  responseFormat?: 'json' | Record<string, unknown>
  model?: string
  temperature?: number
  maxTokens?: number
}

/** The assistant's answer. */
export interface ChatAnswer {
  role: 'assistant'
  content: string | null
  tool_calls?: ToolCall[]
}

export interface BatteryLLM extends OpenAICompatibleLLM {
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatAnswer>
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])
const MAX_MESSAGES = 256
const MAX_CHARS = 1_000_000

function checkRequest(req: ChatRequest): void {
  const bad = (msg: string) => fail('LLM_BAD_PROMPT', msg)
  if (!Array.isArray(req.messages) || req.messages.length === 0 || req.messages.length > MAX_MESSAGES) {
    throw bad(`messages must be a non-empty array of at most ${MAX_MESSAGES} messages`)
  }
  let chars = 0
  for (const m of req.messages) {
    if (!m || !ROLES.has(m.role)) throw bad('each message needs a role: system, user, assistant or tool')
    if (typeof m.content === 'string') chars += m.content.length
    else if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (p?.type === 'text' && typeof p.text === 'string') chars += p.text.length
        else if (p?.type === 'image_url' && typeof p.image_url?.url === 'string' && /^(https?:|data:image\/)/.test(p.image_url.url)) chars += p.image_url.url.length
        else throw bad('content parts are { type: "text", text } or { type: "image_url", image_url: { url } } (http(s) or data:image URL)')
      }
    } else if (m.content !== null || !m.tool_calls) throw bad('message content must be a string or an array of parts')
  }
  if (chars > MAX_CHARS) throw bad(`the messages are longer than ${MAX_CHARS} characters`)
  if (req.tools !== undefined && !Array.isArray(req.tools)) throw fail('LLM_BAD_OPTIONS', 'tools must be an array')
  if (req.temperature !== undefined && !(typeof req.temperature === 'number' && req.temperature >= 0 && req.temperature <= 2)) throw fail('LLM_BAD_OPTIONS', 'temperature must be 0..2')
  if (req.maxTokens !== undefined && !(Number.isSafeInteger(req.maxTokens) && req.maxTokens > 0)) throw fail('LLM_BAD_OPTIONS', 'maxTokens must be a positive integer')
}

/** Create `capabilities.llm` with `predict`, `embed` and `chat`. */
export function createBatteryLLM(options: OpenAICompatibleLLMOptions): BatteryLLM {
  const base = createOpenAICompatibleLLM(options)
  const root = options.baseUrl.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxBytes = options.maxBytes ?? 5_000_000
  const fetchImpl = (options.fetchImpl ?? globalThis.fetch) as (url: string, init: object) => Promise<{ status: number; body: ByteSource | null }>
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers }
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`

  async function chat(req: ChatRequest, callOptions: { signal?: AbortSignal } = {}): Promise<ChatAnswer> {
    checkRequest(req)
    const body: Record<string, unknown> = { model: req.model ?? options.model, messages: req.messages }
    if (req.tools && req.tools.length > 0) body['tools'] = req.tools
    if (req.responseFormat === 'json') body['response_format'] = { type: 'json_object' }
    else if (req.responseFormat && typeof req.responseFormat === 'object') body['response_format'] = req.responseFormat
    if (req.temperature !== undefined) body['temperature'] = req.temperature
    if (req.maxTokens !== undefined) body['max_tokens'] = req.maxTokens
    const deadline = createDeadline(callOptions.signal, timeoutMs)
    try {
      const res = await fetchImpl(`${root}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body), signal: deadline.signal })
      const text = decodeText(await readLimited(res.body, maxBytes))
      let json: any
      try {
        json = JSON.parse(text)
      } catch {
        throw fail(res.status >= 200 && res.status < 300 ? 'LLM_BAD_RESPONSE' : 'LLM_HTTP', `/chat/completions answered ${res.status}: ${text.slice(0, 200)}`)
      }
      if (res.status < 200 || res.status >= 300) throw fail('LLM_HTTP', `/chat/completions answered ${res.status}: ${String(json?.error?.message ?? json?.error ?? '').slice(0, 300)}`)
      const msg = json?.choices?.[0]?.message
      if (!msg || (typeof msg.content !== 'string' && msg.content !== null && msg.content !== undefined)) throw fail('LLM_BAD_RESPONSE', 'no choices[0].message in the answer')
      const answer: ChatAnswer = { role: 'assistant', content: typeof msg.content === 'string' ? msg.content : null }
      if (Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) answer.tool_calls = msg.tool_calls as ToolCall[]
      return answer
    } catch (e) {
      if (e instanceof CapabilityError) throw e
      if (e instanceof BodyTooLargeError) throw fail('LLM_TOO_LARGE', `the response is over maxBytes (${maxBytes})`)
      if (deadline.reason() === 'aborted') throw fail('LLM_ABORTED', 'the model call was aborted')
      if (deadline.reason() === 'timeout') throw fail('LLM_TIMEOUT', `no answer within ${timeoutMs} ms`)
      throw fail('LLM_NETWORK', `${root}: ${(e as Error)?.message ?? String(e)}`, e)
    } finally {
      deadline.dispose()
    }
  }

  return Object.freeze({ predict: base.predict, embed: base.embed, chat })
}
