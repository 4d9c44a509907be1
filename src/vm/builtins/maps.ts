/**
 * The `Map` statics: what a Map variable's methods lower to (src/transpiler/lower/maps.ts). AJS values
 * are plain data, so a Map is the array of its `[key, value]` entries in insertion order, kept in a
 * variable the guest only reaches through these statics, with a host-side index that makes `get`, `has`
 * and `set` one lookup, as JavaScript's; `delete` leaves a tombstone, and `Map.walk` reads the entries
 * live for `for...of` and `forEach` (all in ordered-index.ts, shared with a Set variable's statics). What a
 * program reads of a Map (`size`, `keys`, `values`, `entries`, the copies `[...m]` and `new Map(m)` lower
 * to, the walks) skips the tombstones; only an AST written by hand that reads the array itself sees them.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'
import { orderedArrays } from './ordered-index.ts'

type Entry = [unknown, unknown]
type MapStatic = (rt: Run, args: any[]) => unknown

const M = orderedArrays('Map', true)

/** Sets `k` to `v` in `m`, where it was found at `i` (or -1): a fresh pair either way (a pair handed out by entries() or spread is the guest's, never the Map's). */
function put(rt: Run, m: unknown[], i: number, k: unknown, v: unknown): void {
  if (i >= 0) m[i] = [(m[i] as Entry)[0], v]
  else { k = k === 0 ? 0 : k; M.add(M.indexOf(rt, m), m, k, [k, v]) }
}

/** `new Map(items)`: each item an array or object read as `[key, value]`; a later key replaces the earlier value in its place. */
function from(rt: Run, items: unknown): unknown[] {
  if (items === null || items === undefined) return []
  const notEntries = () => vmError('TYPE_ERROR', 'new Map(...) takes an array of [key, value] entries')
  if (!Array.isArray(items)) throw notEntries()
  chargeScan(rt, items.length)
  chargeTexts(rt, items.map((e) => e?.[0]))
  rt.chargeSlots(items.length * 3)
  const [out, index] = M.fresh()
  for (const e of items) {
    if (e === null || typeof e !== 'object') throw notEntries()
    const i = index.get(e[0]) ?? -1
    if (i >= 0) out[i] = [(out[i] as Entry)[0], e[1]]
    else { const k = e[0] === 0 ? 0 : e[0]; M.add(index, out, k, [k, e[1]]) }
  }
  return out
}

/** What `m.keys()`, `m.values()` and `m.entries()` (and the walks of `for...of` over them) give of an entry: never the Map's own pair. */
const PICKS: Record<string, (e: Entry) => unknown> = { keys: (e) => e[0], values: (e) => e[1], entries: (e) => [e[0], e[1]] }

/** Map's statics by name: `from` (what `new Map(items)` lowers to) and one per method. */
export const MAP_STATICS: Record<string, MapStatic> = {
  from: (rt, [items]) => from(rt, items),
  get: (rt, [m, k]) => { const e = M.arrayOf(m); const i = M.find(rt, e, k); return i < 0 ? undefined : (e[i] as Entry)[1] },
  has: (rt, [m, k]) => M.find(rt, M.arrayOf(m), k) >= 0,
  set: (rt, [m, k, v]) => {
    const e = M.changing(m)
    const i = M.find(rt, e, k)
    if (i < 0) rt.chargeSlots(3)
    put(rt, e, i, k, v)
    return e
  },
  delete: (rt, [m, k]) => M.remove(rt, M.changing(m), k),
  clear: (_rt, [m]) => { M.clear(M.changing(m)); return undefined },
  size: (rt, [m]) => M.size(rt, M.arrayOf(m)),
  keys: (rt, [m]) => M.copy(rt, M.arrayOf(m), PICKS.keys!, 3),
  values: (rt, [m]) => M.copy(rt, M.arrayOf(m), PICKS.values!, 3),
  entries: (rt, [m]) => M.copy(rt, M.arrayOf(m), PICKS.entries!, 3),
  // `Map.walk(m)` walks the entries; `Map.walk(m, 'keys')` and `Map.walk(m, 'values')` what those give.
  walk: (rt, [m, kind]) => M.walk(rt, M.arrayOf(m), PICKS[kind === 'keys' || kind === 'values' ? kind : 'entries']!, 3),
}
