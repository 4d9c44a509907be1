/**
 * The `Map` statics: what a Map variable's methods lower to (src/transpiler/lower/maps.ts). AJS values
 * are plain data, so a Map is the array of its `[key, value]` entries in insertion order, kept in a
 * variable the guest only reaches through these statics. Keys compare as a Map's do (SameValueZero:
 * NaN is one key, -0 is 0, objects by identity). A host-side index per entries array (a WeakMap the
 * guest never sees) makes `get`, `has` and `set` one lookup, as JavaScript's; it is checked against
 * the array on every use and rebuilt, paid for, when the array changed under it (an AST written by
 * hand may pass any array). A key is hashed and compared whole: a long text is paid per character first.
 *
 * `delete` leaves its index's tombstone (an empty array, one per index) in the entry's place, so a loop
 * of deletes and sets is linear, as JavaScript's (the entries were spliced and the index rebuilt on the
 * next call: quadratic); once more than half the entries are tombstones they are dropped and the index
 * rebuilt, paid as any rebuild (amortized, a few entries per delete). What a program reads of a Map
 * (`size`, `keys`, `values`, `entries`, the copies `[...m]`, `for...of` and `new Map(m)` lower to)
 * skips them; only an AST written by hand that reads the array itself sees them.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { MAX_KEY_CHARS, chargeScan, chargeTexts } from './sizes.ts'

type Entry = [unknown, unknown]

/** runtime.ts's PULL and PULL_DONE, registered symbols: imported, runtime.ts would bring 50 B of its own into this part. */
const PULL = Symbol.for('ajs-lang.pull'), PULL_DONE = Symbol.for('ajs-lang.pullDone')
type MapStatic = (rt: Run, args: any[]) => unknown

/**
 * Where each key is in one entries array. V8 hashes a text over MAX_KEY_CHARS by its length alone, so in
 * one native Map every such text of one length would share a bucket, each compared with all the others
 * (1,000 keys of 100,000 characters: 25 s for one Map.from in Node). Such a text is keyed instead as in
 * text-tokens.ts: cut in pieces of MAX_KEY_CHARS (hashed whole), each distinct piece numbered, and the
 * numbers of its pieces, a short text, key it in `long`. Only `set` numbers new pieces: a lookup of a key
 * with a piece never seen is a miss, and keeps nothing of the text it was given.
 */
interface Index {
  length: number; dead: number; tomb: Entry
  /** Each entry's number in the order the Map was given its keys (a walk's place, see walk), and the next one to give. */
  seqs: number[]; next: number
  get(k: unknown): number | undefined; set(k: unknown, i: number): void; delete(k: unknown): void
}

/** An empty index; `prev`'s tombstone and numbering go on (a walk across a clear or a rebuild keeps its place). */
function newIndex(prev?: Index): Index {
  const keys = new Map<unknown, number>(), long = new Map<string, number>(), pieces = new Map<string, number>()
  /** The short key of a long text, or undefined when one of its pieces is new and `add` is false. */
  const code = (s: string, add?: boolean): string | undefined => {
    let key = ''
    for (let i = 0; i < s.length; i += MAX_KEY_CHARS) {
      const p = s.slice(i, i + MAX_KEY_CHARS)
      let n = pieces.get(p)
      if (n === undefined) {
        if (!add) return undefined
        pieces.set(p, (n = pieces.size))
      }
      key += String.fromCharCode(n & 0xffff, n >>> 16)
    }
    return key
  }
  const isLong = (k: unknown): k is string => typeof k === 'string' && k.length > MAX_KEY_CHARS
  return {
    length: 0,
    dead: 0,
    tomb: prev?.tomb ?? [] as unknown as Entry,
    seqs: [],
    next: prev?.next ?? 0,
    get: (k) => (isLong(k) ? long.get(code(k)!) : keys.get(k)),
    set: (k, i) => { if (isLong(k)) long.set(code(k, true)!, i); else keys.set(k, i) },
    delete: (k) => { if (isLong(k)) long.delete(code(k)!); else keys.delete(k) },
  }
}
const indexes = new WeakMap<Entry[], Index>()

const notAMap = () => vmError('TYPE_ERROR', 'A Map method was called on something that is not a Map')

function entriesOf(v: unknown): Entry[] {
  if (!Array.isArray(v)) throw notAMap()
  return v as Entry[]
}

/** The keys of `m` (each entry checked, a hole too: an AST written by hand may pass any array). */
const keysOf = (m: Entry[]): unknown[] => Array.from(m, (e) => { if (!Array.isArray(e)) throw notAMap(); return e[0] })

/** The key index of `m`, rebuilt (and paid for: each key's text is hashed again) when the array is not the one it was built for (its tombstones kept). */
function indexOf(rt: Run, m: Entry[]): Index {
  const known = indexes.get(m)
  if (known && known.length === m.length) return known
  chargeScan(rt, m.length)
  rt.chargeSlots(m.length)
  const ks = keysOf(m)
  chargeTexts(rt, ks)
  const keys = newIndex(known)
  keys.length = m.length
  // The numbers of the entries still where they were (all of them after a delete's compaction, which moves
  // them with their entries); an entry an AST written by hand added is numbered anew.
  keys.seqs = known ? known.seqs.slice(0, m.length) : []
  while (keys.seqs.length < m.length) keys.seqs.push(keys.next++)
  for (let i = 0; i < ks.length; i++) if (m[i] === keys.tomb) keys.dead++; else keys.set(ks[i], i)
  indexes.set(m, keys)
  return keys
}

/** Where key `k` is in `m`, or -1; an index entry the array no longer agrees with is rebuilt first. */
function find(rt: Run, m: Entry[], k: unknown): number {
  chargeTexts(rt, [k])
  let keys = indexOf(rt, m)
  let i = keys.get(k)
  if (i !== undefined && !sameKey(m[i]?.[0], k)) {
    keys.length = -1
    keys = indexOf(rt, m)
    i = keys.get(k)
  }
  return i ?? -1
}

const sameKey = (a: unknown, b: unknown): boolean => a === b || (a !== a && b !== b)

/** Sets `k` to `v` in `m`, where `keys` found it at `i` (or -1): a fresh pair either way (a pair handed out by entries() or spread is the guest's, never the Map's). */
function put(keys: Index, m: Entry[], i: number, k: unknown, v: unknown): void {
  if (i >= 0) m[i] = [m[i]![0], v]
  else { keys.set((k = k === 0 ? 0 : k), m.length); m.push([k, v]); keys.seqs.push(keys.next++); keys.length = m.length }
}

/** `new Map(items)`: each item an array or object read as `[key, value]`; a later key replaces the earlier value in its place. */
function from(rt: Run, items: unknown): Entry[] {
  if (items === null || items === undefined) return []
  const notEntries = () => vmError('TYPE_ERROR', 'new Map(...) takes an array of [key, value] entries')
  if (!Array.isArray(items)) throw notEntries()
  chargeScan(rt, items.length)
  chargeTexts(rt, items.map((e) => e?.[0]))
  rt.chargeSlots(items.length * 3)
  const out: Entry[] = []
  const keys = newIndex()
  for (const e of items) {
    if (e === null || typeof e !== 'object') throw notEntries()
    put(keys, out, keys.get(e[0]) ?? -1, e[0], e[1])
  }
  indexes.set(out, keys)
  return out
}

/** A fresh array of `pick` of each entry, the tombstones skipped. */
const copy = (rt: Run, m: Entry[], pick: (e: Entry) => unknown): unknown[] => {
  const { dead, tomb } = indexOf(rt, m)
  rt.chargeSlots((m.length - dead) * 3)
  keysOf(m)
  return (dead ? m.filter((e) => e !== tomb) : m).map(pick)
}

/**
 * `for (const [k, v] of m)` (`m.keys()`, `m.values()`) and `m.forEach(...)`: the entries as JavaScript's
 * iterator reads them, one per turn of the loop (`PULL`), each a fresh pair (or its key or value, `pick` 0
 * or 1) paid as a copy's: an entry set during the walk is reached, one deleted before its turn is not, a
 * key set again keeps its place, and after a clear only the entries set since are. The walk keeps the
 * number of the entry it gave last (Index.seqs, increasing along the array) and goes on from the first
 * entry numbered after it, wherever a compaction, clear or rebuild moved them. A loop that keeps setting
 * new keys pays for each, so fuel or the heap limit ends it.
 */
function walk(rt: Run, m: Entry[], pick: number): object {
  let last = -1
  // Frozen: read-only to the guest, and a run's result or an atom's input copies it (an empty object), so
  // the function in it never reaches the host.
  return Object.freeze({
    [PULL]() {
      const { seqs, tomb } = indexOf(rt, m)
      let i = 0, hi = seqs.length
      while (i < hi) { const mid = (i + hi) >>> 1; if (seqs[mid]! > last) hi = mid; else i = mid + 1 }
      const from = i
      while (m[i] === tomb) i++
      chargeScan(rt, i - from)
      const e = m[i]
      if (i >= m.length) return PULL_DONE
      if (!Array.isArray(e)) throw notAMap()
      last = seqs[i]!
      rt.chargeSlots(3)
      return pick < 0 ? [e[0], e[1]] : e[pick]
    },
  })
}

/** Map's statics by name: `from` (what `new Map(items)` lowers to) and one per method. */
export const MAP_STATICS: Record<string, MapStatic> = {
  from: (rt, [items]) => from(rt, items),
  get: (rt, [m, k]) => { const e = entriesOf(m); const i = find(rt, e, k); return i < 0 ? undefined : e[i]![1] },
  has: (rt, [m, k]) => find(rt, entriesOf(m), k) >= 0,
  set: (rt, [m, k, v]) => {
    const e = entriesOf(m)
    const i = find(rt, e, k)
    if (i < 0) rt.chargeSlots(3)
    put(indexOf(rt, e), e, i, k, v)
    return e
  },
  delete: (rt, [m, k]) => {
    const e = entriesOf(m)
    const i = find(rt, e, k)
    if (i < 0) return false
    const keys = indexOf(rt, e)
    keys.delete(e[i]![0])
    e[i] = keys.tomb
    if (++keys.dead * 2 > e.length) {
      // Most entries are tombstones: drop them in place; the next call sees the length change and rebuilds the index (paid there).
      chargeScan(rt, e.length)
      let j = 0
      e.forEach((x, n) => { if (x !== keys.tomb) { keys.seqs[j] = keys.seqs[n]!; e[j++] = x } })
      e.length = keys.seqs.length = j
    }
    return true
  },
  clear: (_rt, [m]) => { const e = entriesOf(m); e.length = 0; indexes.set(e, newIndex(indexes.get(e))); return undefined },
  size: (rt, [m]) => { const e = entriesOf(m); return e.length - indexOf(rt, e).dead },
  keys: (rt, [m]) => copy(rt, entriesOf(m), (e) => e[0]),
  values: (rt, [m]) => copy(rt, entriesOf(m), (e) => e[1]),
  entries: (rt, [m]) => copy(rt, entriesOf(m), (e) => [e[0], e[1]]),
  // `Map.walk(m)` walks the entries; `Map.walk(m, 'keys')` and `Map.walk(m, 'values')` what those give.
  walk: (rt, [m, kind]) => walk(rt, entriesOf(m), kind === 'keys' ? 0 : kind === 'values' ? 1 : -1),
}
