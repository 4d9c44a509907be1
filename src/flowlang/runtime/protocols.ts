/**
 * The two model protocols, as async generators of stream deltas.
 *
 * protocol.openai: POST `<baseUrl>/chat/completions` with `stream: true`;
 * the answer is Server-Sent Events (`data: {chunk}` lines, `data: [DONE]`);
 * tool calls arrive as `delta.tool_calls[{ index, id?, function: { name?,
 * arguments? } }]` fragments.
 *
 * protocol.ollama: POST `<baseUrl>/api/chat` with `stream: true`; the answer
 * is NDJSON, one `{ message: { content, tool_calls? }, done }` per line;
 * tool calls arrive whole with `arguments` as an object, and Ollama wants
 * tool-call arguments back as objects and `tool` messages with `tool_name`.
 *
 * Both read a non-streaming answer too: an endpoint that ignores
 * `stream: true` and answers one JSON completion (a proxy, a gateway, a
 * server without streaming) gives the same deltas, never an empty answer.
 * A body that is neither a stream nor a completion is a ModelHttpError.
 */
import type { ChatMessage, StreamDelta } from './types.ts'

export interface ModelRequest {
  baseUrl: string
  model: string
  apiKey?: string
  temperature?: number
  messages: ChatMessage[]
  /** OpenAI-style function tools (`[{ type: 'function', function: { name, description, parameters } }]`). */
  tools?: unknown[]
  signal: AbortSignal
}

export class ModelHttpError extends Error {
  override name = 'ModelHttpError'
}

const MAX_LINE = 4 * 1024 * 1024

/** Split a byte stream into lines (bounded line length). */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buf = ''
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true })
    let nl: number
    while ((nl = buf.indexOf('\n')) >= 0) {
      yield buf.slice(0, nl).replace(/\r$/, '')
      buf = buf.slice(nl + 1)
    }
    if (buf.length > MAX_LINE) throw new ModelHttpError(`a stream line is longer than ${MAX_LINE} bytes`)
  }
  buf += decoder.decode()
  if (buf) yield buf
}

async function post(url: string, body: unknown, headers: Record<string, string>, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  let res: Response
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal })
  } catch (e) {
    if (signal.aborted) throw e
    throw new ModelHttpError(`${url}: ${(e as Error).message}`)
  }
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '')
    throw new ModelHttpError(`${url} answered ${res.status}${text ? `: ${text.slice(0, 300)}` : ''}`)
  }
  return res.body
}

const trimSlash = (u: string) => u.replace(/\/+$/, '')

/** Collects the lines that are not stream data, to read a non-streaming JSON answer at the end (bounded). */
class Leftover {
  private text = ''
  add(line: string): void {
    if (this.text.length + line.length > MAX_LINE) throw new ModelHttpError(`the answer is neither a stream nor a JSON completion shorter than ${MAX_LINE} bytes`)
    this.text += `${line}\n`
  }
  get empty(): boolean { return this.text.trim() === '' }
  /** The whole body as JSON, or a ModelHttpError naming what came instead. */
  json(what: string): any {
    try {
      return JSON.parse(this.text)
    } catch {
      throw new ModelHttpError(`the answer is not ${what} nor a JSON completion: ${this.text.trim().slice(0, 200)}`)
    }
  }
}

/** The deltas of a non-streaming OpenAI chat completion (`choices[0].message`). */
function* openaiCompletion(answer: any): Generator<StreamDelta> {
  if (answer?.error) throw new ModelHttpError(String(answer.error?.message ?? JSON.stringify(answer.error)))
  const message = answer?.choices?.[0]?.message
  if (!message || typeof message !== 'object') throw new ModelHttpError(`the JSON answer has no choices[0].message: ${JSON.stringify(answer).slice(0, 200)}`)
  if (typeof message.content === 'string' && message.content) yield { type: 'text', text: message.content }
  const calls: any[] = Array.isArray(message.tool_calls) ? message.tool_calls : []
  for (const [index, call] of calls.entries()) {
    const args = call?.function?.arguments
    yield {
      type: 'tool_call', index, id: call?.id, name: call?.function?.name,
      ...(args && typeof args === 'object' ? { arguments: args } : { argumentsText: typeof args === 'string' ? args : '{}' }),
    }
  }
  if (answer?.usage) yield { type: 'usage', promptTokens: answer.usage.prompt_tokens, completionTokens: answer.usage.completion_tokens }
}

export async function* openaiStream(req: ModelRequest): AsyncGenerator<StreamDelta> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages, stream: true, stream_options: { include_usage: true } }
  if (req.tools?.length) body.tools = req.tools
  if (req.temperature !== undefined) body.temperature = req.temperature
  const headers: Record<string, string> = req.apiKey ? { authorization: `Bearer ${req.apiKey}` } : {}
  const stream = await post(`${trimSlash(req.baseUrl)}/chat/completions`, body, headers, req.signal)
  const rest = new Leftover()
  let streamed = false
  for await (const line of lines(stream)) {
    if (!line.startsWith('data:')) {
      if (!streamed) rest.add(line)
      continue
    }
    streamed = true
    const data = line.slice(5).trim()
    if (data === '[DONE]') return
    let chunk: any
    try { chunk = JSON.parse(data) } catch { throw new ModelHttpError(`invalid SSE data: ${data.slice(0, 200)}`) }
    if (chunk?.error) throw new ModelHttpError(String(chunk.error?.message ?? JSON.stringify(chunk.error)))
    const delta = chunk?.choices?.[0]?.delta
    if (typeof delta?.content === 'string' && delta.content) yield { type: 'text', text: delta.content }
    for (const call of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      yield { type: 'tool_call', index: Number(call.index ?? 0), id: call.id, name: call.function?.name, argumentsText: call.function?.arguments }
    }
    if (chunk?.usage) yield { type: 'usage', promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens }
  }
  // No `data:` line at all: the endpoint answered without streaming.
  if (!streamed) {
    if (rest.empty) throw new ModelHttpError('the model answered with an empty body')
    yield* openaiCompletion(rest.json('Server-Sent Events'))
  }
}

/** Ollama wants tool-call arguments as objects. */
function toOllamaMessages(messages: ChatMessage[]): unknown[] {
  return messages.map((m) => {
    const out: Record<string, unknown> = { role: m.role, content: m.content ?? '' }
    if (m.tool_calls) out.tool_calls = m.tool_calls.map((c) => ({ function: { name: c.function.name, arguments: safeParse(c.function.arguments) } }))
    if (m.role === 'tool' && m.name) out.tool_name = m.name
    return out
  })
}

const safeParse = (text: string): unknown => { try { return JSON.parse(text) } catch { return {} } }

export async function* ollamaStream(req: ModelRequest): AsyncGenerator<StreamDelta> {
  const body: Record<string, unknown> = { model: req.model, messages: toOllamaMessages(req.messages), stream: true }
  if (req.tools?.length) body.tools = req.tools
  if (req.temperature !== undefined) body.options = { temperature: req.temperature }
  const stream = await post(`${trimSlash(req.baseUrl)}/api/chat`, body, {}, req.signal)
  let index = 0
  const rest = new Leftover()
  let streamed = false
  const chunks = async function* (): AsyncGenerator<any> {
    for await (const line of lines(stream)) {
      if (!line.trim()) continue
      // A pretty-printed (non-streaming) JSON answer spans lines: gather them and parse the whole.
      if (!streamed && !rest.empty) { rest.add(line); continue }
      let chunk: any
      try { chunk = JSON.parse(line) } catch {
        if (streamed) throw new ModelHttpError(`invalid NDJSON line: ${line.slice(0, 200)}`)
        rest.add(line)
        continue
      }
      streamed = true
      yield chunk
    }
    if (!streamed) {
      if (rest.empty) throw new ModelHttpError('the model answered with an empty body')
      yield rest.json('NDJSON')
    }
  }
  for await (const chunk of chunks()) {
    if (chunk?.error) throw new ModelHttpError(String(chunk.error))
    const msg = chunk?.message
    if (typeof msg?.content === 'string' && msg.content) yield { type: 'text', text: msg.content }
    for (const call of Array.isArray(msg?.tool_calls) ? msg.tool_calls : []) {
      const args = call.function?.arguments
      yield { type: 'tool_call', index: index++, name: call.function?.name, arguments: args && typeof args === 'object' ? args : safeParse(String(args ?? '{}')) as Record<string, unknown> }
    }
    if (chunk?.done) {
      if (chunk.prompt_eval_count !== undefined || chunk.eval_count !== undefined) yield { type: 'usage', promptTokens: chunk.prompt_eval_count, completionTokens: chunk.eval_count }
      return
    }
  }
}

export const PROTOCOLS = {
  'protocol.openai': openaiStream,
  'protocol.ollama': ollamaStream,
} as const
