/**
 * `createTtlCache`: a small bounded cache with per-entry expiry and LRU
 * eviction, for host code (memoising capability answers, rate-limit windows).
 * It stores values as given (no copying): it is a host tool, not a guest
 * store. The clock is injectable so expiry is testable without waiting.
 */

import { fail } from './errors.ts'
import { checkOptions, fn, int } from './options.ts'

/** Options of `createTtlCache`. */
export interface TtlCacheOptions {
  /** Entries kept before the least recently used is evicted. Default 1,000. */
  maxEntries?: number
  /** Default lifetime of an entry in ms. Default 60,000. */
  ttlMs?: number
  /** Clock in ms. Default `Date.now`. */
  now?: () => number
}

/** A bounded TTL + LRU cache. */
export interface TtlCache<V> {
  get(key: string): V | undefined
  set(key: string, value: V, ttlMs?: number): void
  has(key: string): boolean
  delete(key: string): boolean
  /** Drop expired entries; returns how many were dropped. */
  prune(): number
  clear(): void
  readonly size: number
  [Symbol.dispose](): void
}

const SCHEMA = { maxEntries: int(1, 100_000_000), ttlMs: int(1, 2 ** 42), now: fn }

/** Create a TTL cache owned by the caller. */
export function createTtlCache<V>(options: TtlCacheOptions = {}): TtlCache<V> {
  const opts = checkOptions<Required<TtlCacheOptions>>('CACHE_OPTIONS', 'createTtlCache', options, SCHEMA, {
    maxEntries: 1000,
    ttlMs: 60_000,
    now: Date.now,
  })
  // Map iteration order is insertion order; re-inserting on read makes it LRU order.
  const entries = new Map<string, { value: V; expiresAt: number }>()
  const live = (key: string) => {
    const e = entries.get(key)
    if (!e) return undefined
    if (e.expiresAt <= opts.now()) { entries.delete(key); return undefined }
    return e
  }
  const cache: TtlCache<V> = {
    get(key) {
      const e = live(key)
      if (!e) return undefined
      entries.delete(key)
      entries.set(key, e)
      return e.value
    },
    set(key, value, ttlMs = opts.ttlMs) {
      if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw fail('CACHE_OPTIONS', 'ttlMs must be a positive number')
      entries.delete(key)
      entries.set(key, { value, expiresAt: opts.now() + ttlMs })
      while (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value as string)
    },
    has: (key) => live(key) !== undefined,
    delete: (key) => entries.delete(key),
    prune() {
      const t = opts.now()
      let n = 0
      for (const [k, e] of entries) if (e.expiresAt <= t) { entries.delete(k); n++ }
      return n
    },
    clear: () => entries.clear(),
    get size() { return entries.size },
    [Symbol.dispose]: () => entries.clear(),
  }
  return cache
}
