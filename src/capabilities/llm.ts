/**
 * `createOpenAICompatibleLLM`: `capabilities.llm` for any endpoint speaking
 * the OpenAI chat-completions API (OpenAI, LM Studio, Ollama, vLLM, ...).
 *
 * `predict(prompt, options)` POSTs `${baseUrl}/chat/completions` and returns
 * the assistant message text; `embed(input)` POSTs `${baseUrl}/embeddings`.
 * The endpoint is chosen by the host, so it is trusted (no allowlist, and
 * local servers are fine); what the guest controls — prompt and per-call
 * options — is checked, and the response is size- and time-limited.
 */

import { BodyTooLargeError, decodeText, readLimited, type ByteSource } from './body.ts'
import { createDeadline, type Deadline } from './deadline.ts'
import { CapabilityError, fail } from './errors.ts'
import { checkOptions, fn, int, record, str } from './options.ts'

/** A WHATWG fetch (the subset used here). */
export type LlmFetch = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) =>
  Promise<{ status: number; body: ByteSource | null }>

/** Options of `createOpenAICompatibleLLM`. */
export interface OpenAICompatibleLLMOptions {
  /** API root including the version, e.g. `http://127.0.0.1:1234/v1`. Required. */
  baseUrl: string
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string
  /** Default chat model. Required. */
  model: string
  /** Default embeddings model for `embed` (defaults to `model`). */
  embeddingModel?: string
  /** Default 60,000 ms per call. */
  timeoutMs?: number
  /** Maximum response size in bytes. Default 5,000,000. */
  maxBytes?: number
  /** Extra request headers. */
  headers?: Record<string, string>
  /** Default `globalThis.fetch`. */
  fetchImpl?: LlmFetch
}

/** Per-call options of `predict` (what a guest may pass). */
export interface PredictOptions {
  system?: string
  model?: string
  temperature?: number
  maxTokens?: number
  topP?: number
  stop?: string | string[]
  seed?: number
  /** `'json'` for `{ type: 'json_object' }`, or a raw OpenAI `response_format` object. */
  responseFormat?: 'json' | Record<string, unknown>
  signal?: AbortSignal
}

/** The object placed at `capabilities.llm`. */
export interface OpenAICompatibleLLM {
  predict(prompt: string, options?: PredictOptions): Promise<string>
  embed(input: string | string[], options?: { model?: string; signal?: AbortSignal }): Promise<number[] | number[][]>
}

type Resolved = Required<Omit<OpenAICompatibleLLMOptions, 'apiKey' | 'embeddingModel' | 'fetchImpl'>> &
  Pick<OpenAICompatibleLLMOptions, 'apiKey' | 'embeddingModel' | 'fetchImpl'>

const SCHEMA = {
  baseUrl: str,
  apiKey: str,
  model: str,
  embeddingModel: str,
  timeoutMs: int(1, 24 * 3600 * 1000),
  maxBytes: int(1, 2 ** 31),
  headers: record,
  fetchImpl: fn,
}

/** Checks for guest-supplied predict options: key → [check, wire name]. */
const PREDICT_FIELDS: Record<string, [(v: unknown) => boolean, string]> = {
  model: [(v) => typeof v === 'string' && v.length > 0, 'model'],
  temperature: [(v) => typeof v === 'number' && v >= 0 && v <= 2, 'temperature'],
  maxTokens: [(v) => Number.isSafeInteger(v) && (v as number) > 0, 'max_tokens'],
  topP: [(v) => typeof v === 'number' && v >= 0 && v <= 1, 'top_p'],
  stop: [(v) => typeof v === 'string' || (Array.isArray(v) && v.length <= 4 && v.every((s) => typeof s === 'string')), 'stop'],
  seed: [(v) => Number.isSafeInteger(v), 'seed'],
}

const MAX_PROMPT_CHARS = 1_000_000

function describeError(json: unknown): string {
  const err = (json as { error?: unknown } | null)?.error
  const msg = typeof err === 'string' ? err : (err as { message?: unknown } | undefined)?.message
  return typeof msg === 'string' ? msg.slice(0, 300) : ''
}

/** Create an LLM capability for an OpenAI-compatible endpoint. */
export function createOpenAICompatibleLLM(options: OpenAICompatibleLLMOptions): OpenAICompatibleLLM {
  const opts = checkOptions<Resolved>('LLM_OPTIONS', 'createOpenAICompatibleLLM', options, SCHEMA,
    { timeoutMs: 60_000, maxBytes: 5_000_000, headers: {} }, ['baseUrl', 'model'])
  let base: URL
  try {
    base = new URL(opts.baseUrl)
  } catch {
    throw fail('LLM_OPTIONS', `baseUrl '${opts.baseUrl}' is not an absolute URL`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw fail('LLM_OPTIONS', 'baseUrl must be http:// or https://')
  const root = base.href.replace(/\/+$/, '')
  const fetchImpl = opts.fetchImpl ?? (globalThis.fetch as unknown as LlmFetch)
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers }
  if (opts.apiKey) headers['authorization'] = `Bearer ${opts.apiKey}`

  const mapError = (e: unknown, deadline: Deadline): CapabilityError => {
    if (e instanceof CapabilityError) return e
    if (deadline.reason() === 'aborted') return fail('LLM_ABORTED', 'the model call was aborted')
    if (deadline.reason() === 'timeout') return fail('LLM_TIMEOUT', `no answer within ${opts.timeoutMs} ms`)
    return fail('LLM_NETWORK', `${root}: ${(e as Error)?.message ?? String(e)}`, e)
  }

  /** POST JSON, read the answer under the limits, return the parsed JSON. */
  async function post(path: string, payload: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const deadline = createDeadline(signal, opts.timeoutMs)
    try {
      if (deadline.signal.aborted) throw fail('LLM_ABORTED', 'the model call was aborted')
      const res = await fetchImpl(`${root}${path}`, { method: 'POST', headers, body: JSON.stringify(payload), signal: deadline.signal })
      let text: string
      try {
        text = decodeText(await readLimited(res.body, opts.maxBytes))
      } catch (e) {
        if (e instanceof BodyTooLargeError) throw fail('LLM_TOO_LARGE', `the response is over maxBytes (${opts.maxBytes})`)
        throw e
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        if (res.status < 200 || res.status >= 300) throw fail('LLM_HTTP', `${path} answered ${res.status}: ${text.slice(0, 200)}`)
        throw fail('LLM_BAD_RESPONSE', `${path} answered with non-JSON text: ${text.slice(0, 200)}`)
      }
      if (res.status < 200 || res.status >= 300) {
        throw fail('LLM_HTTP', `${path} answered ${res.status}${describeError(json) ? `: ${describeError(json)}` : ''}`)
      }
      return json
    } catch (e) {
      throw mapError(e, deadline)
    } finally {
      deadline.dispose()
    }
  }

  return Object.freeze({
    async predict(prompt: string, callOptions: PredictOptions = {}): Promise<string> {
      if (typeof prompt !== 'string' || prompt.length === 0) throw fail('LLM_BAD_PROMPT', 'the prompt must be a non-empty string')
      if (prompt.length > MAX_PROMPT_CHARS) throw fail('LLM_BAD_PROMPT', `the prompt is longer than ${MAX_PROMPT_CHARS} characters`)
      if (typeof callOptions !== 'object' || callOptions === null) throw fail('LLM_BAD_OPTIONS', 'options must be an object')
      const body: Record<string, unknown> = { model: opts.model }
      let system: string | undefined
      for (const [key, value] of Object.entries(callOptions)) {
        if (value === undefined || value === null || key === 'signal') continue
        if (key === 'system') {
          if (typeof value !== 'string') throw fail('LLM_BAD_OPTIONS', 'system must be a string')
          system = value
        } else if (key === 'responseFormat') {
          if (value === 'json') body['response_format'] = { type: 'json_object' }
          else if (typeof value === 'object' && !Array.isArray(value)) body['response_format'] = value
          else throw fail('LLM_BAD_OPTIONS', "responseFormat must be 'json' or an object")
        } else {
          const field = PREDICT_FIELDS[key]
          if (!field) throw fail('LLM_BAD_OPTIONS', `unknown option '${key}'`)
          if (!field[0](value)) throw fail('LLM_BAD_OPTIONS', `option '${key}' has an invalid value`)
          body[field[1]] = value
        }
      }
      body['messages'] = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: prompt }]
      const json = await post('/chat/completions', body, callOptions.signal)
      const content = (json as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0]?.message?.content
      if (typeof content !== 'string') throw fail('LLM_BAD_RESPONSE', 'no choices[0].message.content string in the answer')
      return content
    },

    async embed(input: string | string[], callOptions: { model?: string; signal?: AbortSignal } = {}): Promise<number[] | number[][]> {
      const many = Array.isArray(input)
      const texts = many ? input : [input]
      if (texts.length === 0 || texts.some((t) => typeof t !== 'string' || t.length === 0)) {
        throw fail('LLM_BAD_PROMPT', 'embed takes a non-empty string or array of non-empty strings')
      }
      const model = callOptions.model ?? opts.embeddingModel ?? opts.model
      const json = await post('/embeddings', { model, input: many ? texts : texts[0] }, callOptions.signal)
      const data = (json as { data?: Array<{ embedding?: unknown; index?: number }> })?.data
      if (!Array.isArray(data) || data.length !== texts.length) throw fail('LLM_BAD_RESPONSE', `expected ${texts.length} embeddings`)
      const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      const vectors = ordered.map((d) => {
        const v = d.embedding
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
          throw fail('LLM_BAD_RESPONSE', 'an embedding is not an array of numbers')
        }
        return v as number[]
      })
      return many ? vectors : vectors[0]!
    },
  })
}
