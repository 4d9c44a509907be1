/**
 * Battery atoms: real LLM and vector-store work as ordinary atoms, defined
 * with `defineAtom` over two capabilities:
 *
 * - `capabilities.llm`: `predict`/`embed` (the kit's OpenAI-compatible LLM),
 *   plus `chat` for tools and images (`createBatteryLLM` has all three);
 * - `capabilities.store`: the kit's memory store (cosine `vectorSearch`,
 *   `addVector`), or any store with `get`/`set`/`vectorSearch`.
 *
 * Collections are key prefixes (`docs:<id>`); a collection's settings live
 * under `__collection:<name>` so they never appear among its vectors.
 */
import { defineAtom } from '../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../vm/atoms/types.ts'
import type { ChatAnswer, ChatMessage, ChatRequest, ContentPart } from './chat.ts'

const str = { type: 'string' }
const num = { type: 'number' }
const vector = { type: 'array', items: num }
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required })

const LLM_TIMEOUT = 120_000
const STORE_TIMEOUT = 10_000

/** A capability method, or a clear error naming what the host must provide. */
function method(ctx: AtomContext, cap: 'llm' | 'store', name: string): (...args: any[]) => any {
  const c = ctx.capabilities[cap]
  const fn = c?.[name]
  if (typeof fn !== 'function') {
    const how = cap === 'llm' ? (name === 'chat' ? 'createBatteryLLM()' : 'createBatteryLLM() or createOpenAICompatibleLLM()') : 'createMemoryStore()'
    throw Object.assign(new Error(`${ctx.op} needs capabilities.${cap}.${name} (use ${how})`), { code: 'CAPABILITY_MISSING' })
  }
  return fn.bind(c)
}

const metaKey = (collection: string) => `__collection:${collection}`

function checkName(collection: unknown, op: string): string {
  if (typeof collection !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(collection)) {
    throw new Error(`${op}: collection must be 1-128 characters of letters, digits, _ . -`)
  }
  return collection
}

async function embedOne(ctx: AtomContext, text: string, model?: string): Promise<number[]> {
  const v = await method(ctx, 'llm', 'embed')(text, { signal: ctx.signal, ...(model ? { model } : {}) })
  return v as number[]
}

interface PredictInput {
  user: string
  system?: string
  tools?: unknown[]
  responseFormat?: 'json' | Record<string, unknown>
  model?: string
  temperature?: number
  maxTokens?: number
  history?: ChatMessage[]
}

/** Chat when the capability has it; plain `predict` otherwise (then tools are refused). */
async function chatOrPredict(ctx: AtomContext, req: ChatRequest, user: string, system?: string): Promise<ChatAnswer> {
  const llm = ctx.capabilities['llm']
  if (typeof llm?.chat === 'function') return method(ctx, 'llm', 'chat')(req, { signal: ctx.signal })
  if (req.tools?.length) method(ctx, 'llm', 'chat') // throws: tools need chat
  const content = await method(ctx, 'llm', 'predict')(user, {
    system, model: req.model, temperature: req.temperature, maxTokens: req.maxTokens, responseFormat: req.responseFormat, signal: ctx.signal,
  })
  return { role: 'assistant', content }
}

export const llmPredictBattery = defineAtom(
  'llmPredictBattery',
  obj({ user: str, system: str, tools: { type: 'array' }, responseFormat: {}, model: str, temperature: num, maxTokens: { type: 'integer' }, history: { type: 'array' } }, ['user']),
  obj({ role: str, content: {}, tool_calls: { type: 'array' } }),
  async (input: PredictInput, ctx) => {
    const messages: ChatMessage[] = [
      ...(input.system ? [{ role: 'system' as const, content: input.system }] : []),
      ...(input.history ?? []),
      { role: 'user', content: input.user },
    ]
    const { user, system, history: _h, ...rest } = input
    return chatOrPredict(ctx, { ...rest, messages }, user, system)
  },
  { cost: 100, timeoutMs: LLM_TIMEOUT, docs: 'Chat completion: { system?, user, tools?, responseFormat?, model?, history? } -> assistant message { role, content, tool_calls? }.' },
)

export const llmVision = defineAtom(
  'llmVision',
  obj({ prompt: str, images: { type: 'array', items: str }, system: str, model: str, responseFormat: {}, maxTokens: { type: 'integer' } }, ['prompt', 'images']),
  obj({ role: str, content: {} }),
  async (input: { prompt: string; images: string[]; system?: string; model?: string; responseFormat?: ChatRequest['responseFormat']; maxTokens?: number }, ctx) => {
    const parts: ContentPart[] = [{ type: 'text', text: input.prompt }, ...input.images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))]
    const messages: ChatMessage[] = [...(input.system ? [{ role: 'system' as const, content: input.system }] : []), { role: 'user', content: parts }]
    const { prompt: _p, images: _i, system: _s, ...rest } = input
    return method(ctx, 'llm', 'chat')({ ...rest, messages }, { signal: ctx.signal })
  },
  { cost: 150, timeoutMs: LLM_TIMEOUT, docs: 'Ask a vision model about images (URLs or data:image URLs): { prompt, images, system?, model? } -> assistant message.' },
)

export const storeVectorize = defineAtom(
  'storeVectorize',
  obj({ text: {}, model: str }, ['text']),
  {},
  async ({ text, model }: { text: string | string[]; model?: string }, ctx) =>
    method(ctx, 'llm', 'embed')(text, { signal: ctx.signal, ...(model ? { model } : {}) }),
  { cost: (i) => 5 + (Array.isArray(i.text) ? i.text.length : 1), timeoutMs: LLM_TIMEOUT, docs: 'Embed a text (-> vector) or a list of texts (-> list of vectors) with capabilities.llm.embed.' },
)

export const storeCreateCollection = defineAtom(
  'storeCreateCollection',
  obj({ collection: str, dimensions: { type: 'integer' } }, ['collection']),
  obj({ collection: str, dimensions: {} }),
  async ({ collection, dimensions }: { collection: string; dimensions?: number }, ctx) => {
    const name = checkName(collection, 'storeCreateCollection')
    if (dimensions !== undefined && !(Number.isSafeInteger(dimensions) && dimensions > 0)) throw new Error('storeCreateCollection: dimensions must be a positive integer')
    const settings = { collection: name, dimensions: dimensions ?? null }
    await method(ctx, 'store', 'set')(metaKey(name), settings)
    return settings
  },
  { cost: 2, timeoutMs: STORE_TIMEOUT, docs: 'Create (or reset the settings of) a vector collection, optionally fixing its dimensions.' },
)

export const storeVectorAdd = defineAtom(
  'storeVectorAdd',
  obj({ collection: str, id: str, vector, text: str, meta: { type: 'object' } }, ['collection', 'id']),
  obj({ collection: str, id: str, dimensions: num }),
  async (input: { collection: string; id: string; vector?: number[]; text?: string; meta?: Record<string, unknown> }, ctx) => {
    const name = checkName(input.collection, 'storeVectorAdd')
    if (input.vector === undefined && input.text === undefined) throw new Error('storeVectorAdd needs a vector or a text to embed')
    const v = input.vector ?? await embedOne(ctx, input.text!)
    const settings = await method(ctx, 'store', 'get')(metaKey(name)) as { dimensions?: number | null } | null
    if (settings?.dimensions && v.length !== settings.dimensions) {
      throw new Error(`storeVectorAdd: collection "${name}" has ${settings.dimensions} dimensions, the vector has ${v.length}`)
    }
    const meta = { ...(input.text !== undefined ? { text: input.text } : {}), ...input.meta }
    const store = ctx.capabilities['store']
    if (typeof store?.addVector === 'function') await method(ctx, 'store', 'addVector')(name, input.id, v, meta)
    else await method(ctx, 'store', 'set')(`${name}:${input.id}`, { ...meta, vector: v })
    return { collection: name, id: input.id, dimensions: v.length }
  },
  { cost: 3, timeoutMs: LLM_TIMEOUT, docs: 'Add a vector (given, or embedded from `text`) with metadata to a collection.' },
)

export const storeSearch = defineAtom(
  'storeSearch',
  obj({ collection: str, query: str, vector, k: { type: 'integer' }, filter: { type: 'object' } }, ['collection']),
  { type: 'array' },
  async (input: { collection: string; query?: string; vector?: number[]; k?: number; filter?: Record<string, unknown> }, ctx) => {
    const name = checkName(input.collection, 'storeSearch')
    if (input.vector === undefined && input.query === undefined) throw new Error('storeSearch needs a query text or a vector')
    const v = input.vector ?? await embedOne(ctx, input.query!)
    return method(ctx, 'store', 'vectorSearch')({ collection: name, vector: v, k: input.k ?? 5, ...(input.filter ? { filter: input.filter } : {}) })
  },
  { cost: 10, timeoutMs: LLM_TIMEOUT, docs: 'Nearest neighbours (cosine) in a collection for a query text (embedded) or a vector: [{ id, score, meta }].' },
)

/** All battery atoms, ready for `new AgentVM(batteryAtoms)`. */
export const batteryAtoms: AtomDef[] = ([llmPredictBattery, llmVision, storeVectorize, storeCreateCollection, storeVectorAdd, storeSearch])
