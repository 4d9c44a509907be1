/**
 * `createMemoryStore`: an in-memory, size-limited `capabilities.store`.
 *
 * One keyspace of JSON values. Every value is deep-copied on `set` and on the
 * way out, so neither writer nor reader ever holds a reference into the store.
 * A value that is an object with a numeric `vector` field is also indexed for
 * `vectorSearch`; a *collection* is simply a key prefix `collection:`
 * (`addVector('docs', 'a', v, meta)` is `set('docs:a', { ...meta, vector: v })`).
 *
 * Everything lives in the instance: two stores never share state, and
 * `clear()` / `[Symbol.dispose]()` drop it all.
 */

import { fail } from './errors.ts'
import { checkOptions, int } from './options.ts'
import { copyJson, jsonEqual, JsonValueError, type JsonLimits } from './plain-json.ts'
import { cosineSimilarity, indexVector, topK, type IndexedVector } from './vector.ts'

/** Options of `createMemoryStore` (all optional). */
export interface MemoryStoreOptions {
  /** Maximum number of keys. Default 10,000. */
  maxKeys?: number
  /** Maximum total size (approximate JSON bytes of keys and values). Default 50,000,000. */
  maxBytes?: number
  /** Maximum size of one value. Default 1,000,000. */
  maxValueBytes?: number
  /** Maximum key length. Default 1,024. */
  maxKeyLength?: number
  /** Maximum nesting depth of a value. Default 64. */
  maxDepth?: number
  /** Maximum results of `query` and `k` of `vectorSearch`. Default 1,000. */
  maxResults?: number
  /** Maximum vector length. Default 8,192. */
  maxDimensions?: number
}

/** `store.query` input: every field optional; results are sorted by key. */
export interface StoreQuery {
  /** Only keys starting with this string. */
  prefix?: string
  /** Only object values whose top-level fields equal these JSON values. */
  where?: Record<string, unknown>
  /** At most this many results (default 100, at most `maxResults`). */
  limit?: number
  /** Skip this many matches first (default 0). */
  offset?: number
}

/** `store.vectorSearch` input. */
export interface VectorQuery {
  /** Search keys `collection:*` only; omitted = every vector in the store. */
  collection?: string | null
  vector: number[]
  /** How many results (default 10, at most `maxResults`). */
  k?: number | null
  /** Same as `where` in `query`, applied to the stored value. */
  filter?: Record<string, unknown> | null
}

/** One vector search hit. */
export interface VectorHit {
  key: string
  /** The key without the `collection:` prefix. */
  id: string
  /** Cosine similarity in [-1, 1]. */
  score: number
  /** The stored value without its `vector` field. */
  meta: Record<string, unknown>
}

/** The store object placed at `capabilities.store`. */
export interface MemoryStore {
  get(key: string): unknown
  set(key: string, value: unknown): null
  delete(key: string): boolean
  has(key: string): boolean
  query(query?: StoreQuery): Array<{ key: string; value: unknown }>
  vectorSearch(query: VectorQuery): VectorHit[]
  addVector(collection: string, id: string, vector: number[], meta?: Record<string, unknown>): null
  stats(): { keys: number; bytes: number }
  clear(): void
  [Symbol.dispose](): void
}

interface Entry {
  value: unknown
  bytes: number
  vector: IndexedVector | null
}

const DEFAULTS: Required<MemoryStoreOptions> = {
  maxKeys: 10_000,
  maxBytes: 50_000_000,
  maxValueBytes: 1_000_000,
  maxKeyLength: 1024,
  maxDepth: 64,
  maxResults: 1000,
  maxDimensions: 8192,
}

const SCHEMA = {
  maxKeys: int(0, 100_000_000),
  maxBytes: int(0, 2 ** 40),
  maxValueBytes: int(1, 2 ** 31),
  maxKeyLength: int(1, 1_000_000),
  maxDepth: int(1, 10_000),
  maxResults: int(1, 1_000_000),
  maxDimensions: int(1, 1_000_000),
}

const QUERY_KEYS = new Set(['prefix', 'where', 'limit', 'offset', 'signal'])
const VECTOR_KEYS = new Set(['collection', 'vector', 'k', 'filter', 'signal'])

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function checkKeys(given: Record<string, unknown>, known: Set<string>, code: 'STORE_BAD_QUERY', what: string): void {
  for (const k of Object.keys(given)) {
    if (!known.has(k)) throw fail(code, `${what}: unknown field '${k}'`)
  }
}

function optionalCount(v: unknown, fallback: number, max: number, what: string): number {
  if (v === undefined || v === null) return fallback
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw fail('STORE_BAD_QUERY', `${what} must be a non-negative integer`)
  return Math.min(v as number, max)
}

/** True when `value` is an object whose fields equal every field of `where`. */
function matchesWhere(value: unknown, where: Record<string, unknown> | undefined): boolean {
  if (!where) return true
  if (!isRecord(value)) return false
  for (const [field, expected] of Object.entries(where)) {
    if (!Object.hasOwn(value, field) || !jsonEqual(value[field], expected)) return false
  }
  return true
}

function checkWhere(where: unknown, what: string): Record<string, unknown> | undefined {
  if (where === undefined || where === null) return undefined
  if (!isRecord(where)) throw fail('STORE_BAD_QUERY', `${what} must be an object of field values`)
  return where
}

/** Create an in-memory store; see the module docs and docs/capabilities.md. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const opts = checkOptions<Required<MemoryStoreOptions>>('STORE_OPTIONS', 'createMemoryStore', options, SCHEMA, DEFAULTS)
  const limits: JsonLimits = { maxDepth: opts.maxDepth, maxBytes: opts.maxValueBytes }
  const outLimits: JsonLimits = { maxDepth: opts.maxDepth + 1, maxBytes: Number.MAX_SAFE_INTEGER }
  const entries = new Map<string, Entry>()
  let totalBytes = 0

  const checkKey = (key: unknown): string => {
    if (typeof key !== 'string' || key.length === 0) throw fail('STORE_BAD_KEY', 'the key must be a non-empty string')
    if (key.length > opts.maxKeyLength) throw fail('STORE_BAD_KEY', `the key is longer than ${opts.maxKeyLength} characters`)
    return key
  }

  const copyIn = (value: unknown): { value: unknown; bytes: number } => {
    try {
      return copyJson(value, limits)
    } catch (e) {
      if (e instanceof JsonValueError) throw fail('STORE_BAD_VALUE', e.message, e)
      throw e
    }
  }

  const copyOut = (value: unknown): unknown => copyJson(value, outLimits).value

  const store: MemoryStore = {
    get(key) {
      const entry = entries.get(checkKey(key))
      return entry ? copyOut(entry.value) : null
    },

    set(key, value) {
      const k = checkKey(key)
      const copied = copyIn(value)
      const vec = isRecord(copied.value) && Object.hasOwn(copied.value, 'vector')
        ? indexVector(copied.value['vector'], opts.maxDimensions, `value.vector of '${k.slice(0, 100)}'`)
        : null
      const bytes = copied.bytes + k.length
      const previous = entries.get(k)
      if (!previous && entries.size >= opts.maxKeys) throw fail('STORE_FULL', `the store already holds maxKeys (${opts.maxKeys}) keys`)
      const nextTotal = totalBytes - (previous?.bytes ?? 0) + bytes
      if (nextTotal > opts.maxBytes) throw fail('STORE_FULL', `writing '${k.slice(0, 100)}' would exceed maxBytes (${opts.maxBytes})`)
      entries.set(k, { value: copied.value, bytes, vector: vec })
      totalBytes = nextTotal
      return null
    },

    delete(key) {
      const k = checkKey(key)
      const entry = entries.get(k)
      if (!entry) return false
      entries.delete(k)
      totalBytes -= entry.bytes
      return true
    },

    has(key) {
      return entries.has(checkKey(key))
    },

    query(query = {}) {
      if (!isRecord(query)) throw fail('STORE_BAD_QUERY', 'query must be an object')
      checkKeys(query, QUERY_KEYS, 'STORE_BAD_QUERY', 'query')
      const { prefix } = query
      if (prefix !== undefined && prefix !== null && typeof prefix !== 'string') throw fail('STORE_BAD_QUERY', 'prefix must be a string')
      const where = checkWhere(query.where, 'where')
      const limit = optionalCount(query.limit, 100, opts.maxResults, 'limit')
      const offset = optionalCount(query.offset, 0, Number.MAX_SAFE_INTEGER, 'offset')
      const keys = [...entries.keys()].filter((k) => !prefix || k.startsWith(prefix)).sort()
      const out: Array<{ key: string; value: unknown }> = []
      let skipped = 0
      for (const key of keys) {
        if (out.length >= limit) break
        const entry = entries.get(key)!
        if (!matchesWhere(entry.value, where)) continue
        if (skipped++ < offset) continue
        out.push({ key, value: copyOut(entry.value) })
      }
      return out
    },

    vectorSearch(query) {
      if (!isRecord(query)) throw fail('STORE_BAD_QUERY', 'vectorSearch takes { collection?, vector, k?, filter? }')
      checkKeys(query, VECTOR_KEYS, 'STORE_BAD_QUERY', 'vectorSearch')
      const { collection } = query
      if (collection !== undefined && collection !== null && (typeof collection !== 'string' || collection === '')) {
        throw fail('STORE_BAD_QUERY', 'collection must be a non-empty string')
      }
      const probe = indexVector(query.vector, opts.maxDimensions, 'the query vector')
      const k = optionalCount(query.k, 10, opts.maxResults, 'k')
      const filter = checkWhere(query.filter, 'filter')
      const prefix = collection ? `${collection}:` : ''
      const scored: Array<{ key: string; score: number; entry: Entry }> = []
      for (const [key, entry] of entries) {
        if (!entry.vector || !key.startsWith(prefix)) continue
        if (entry.vector.values.length !== probe.values.length) continue
        if (!matchesWhere(entry.value, filter)) continue
        scored.push({ key, score: cosineSimilarity(probe, entry.vector), entry })
      }
      return topK(scored, k).map(({ key, score, entry }) => {
        const meta = copyOut(entry.value) as Record<string, unknown>
        delete meta['vector']
        return { key, id: key.slice(prefix.length), score, meta }
      })
    },

    addVector(collection, id, vector, meta = {}) {
      if (typeof collection !== 'string' || collection === '') throw fail('STORE_BAD_KEY', 'collection must be a non-empty string')
      if (typeof id !== 'string' || id === '') throw fail('STORE_BAD_KEY', 'id must be a non-empty string')
      if (!isRecord(meta)) throw fail('STORE_BAD_VALUE', 'meta must be an object')
      return store.set(`${collection}:${id}`, { ...meta, vector })
    },

    stats() {
      return { keys: entries.size, bytes: totalBytes }
    },

    clear() {
      entries.clear()
      totalBytes = 0
    },

    [Symbol.dispose]() {
      store.clear()
    },
  }
  return store
}
