/**
 * The `Map` statics: what a Map variable's methods lower to (src/transpiler/lower/maps.ts). AJS values
 * are plain data, so a Map is the array of its `[key, value]` entries in insertion order, kept in a
 * variable the guest only reaches through these statics. Keys compare as a Map's do (SameValueZero:
 * NaN is one key, -0 is 0, objects by identity). A host-side index per entries array (a WeakMap the
 * guest never sees) makes `get`, `has` and `set` one lookup, as JavaScript's; it is checked against
 * the array on every use and rebuilt, paid for, when the array changed under it (an AST written by
 * hand may pass any array).
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'

type Entry = [unknown, unknown]
type MapStatic = (rt: Run, args: any[]) => unknown

interface Index { keys: Map<unknown, number>; length: number }
const indexes = new WeakMap<Entry[], Index>()

function entriesOf(v: unknown): Entry[] {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', 'A Map method was called on something that is not a Map')
  return v as Entry[]
}

/** The key index of `m`, rebuilt (and paid for) when the array is not the one it was built for. */
function indexOf(rt: Run, m: Entry[]): Map<unknown, number> {
  const known = indexes.get(m)
  if (known && known.length === m.length) return known.keys
  chargeScan(rt, m.length)
  rt.chargeSlots(m.length)
  const keys = new Map<unknown, number>()
  for (let i = 0; i < m.length; i++) {
    const e = m[i]
    if (!Array.isArray(e)) throw vmError('TYPE_ERROR', 'A Map method was called on something that is not a Map')
    keys.set(e[0], i)
  }
  indexes.set(m, { keys, length: m.length })
  return keys
}

/** Where key `k` is in `m`, or -1; an index entry the array no longer agrees with is rebuilt first. */
function find(rt: Run, m: Entry[], k: unknown): number {
  let keys = indexOf(rt, m)
  let i = keys.get(k)
  if (i !== undefined && !sameKey(m[i]?.[0], k)) {
    indexes.delete(m)
    keys = indexOf(rt, m)
    i = keys.get(k)
  }
  return i ?? -1
}

const sameKey = (a: unknown, b: unknown): boolean => a === b || (a !== a && b !== b)

/** `new Map(items)`: each item an array or object read as `[key, value]`; a later key replaces the earlier value in its place. */
function from(rt: Run, items: unknown): Entry[] {
  if (items === null || items === undefined) return []
  if (!Array.isArray(items)) throw vmError('TYPE_ERROR', 'new Map(...) takes an array of [key, value] entries')
  chargeScan(rt, items.length)
  chargeTexts(rt, items.map((e) => (Array.isArray(e) ? e[0] : undefined)))
  rt.chargeSlots(items.length * 3)
  const out: Entry[] = []
  const keys = new Map<unknown, number>()
  for (const e of items) {
    if (e === null || typeof e !== 'object') throw vmError('TYPE_ERROR', `Iterator value ${String(e)} is not an entry object`)
    const k = Object.is((e as Entry)[0], -0) ? 0 : (e as Entry)[0]
    const at = keys.get(k)
    if (at === undefined) { keys.set(k, out.length); out.push([k, (e as Entry)[1]]) } else out[at] = [k, (e as Entry)[1]]
  }
  indexes.set(out, { keys, length: out.length })
  return out
}

const copy = (rt: Run, m: Entry[], pick: (e: Entry) => unknown): unknown[] => {
  rt.chargeSlots(m.length * 3)
  return m.map(pick)
}

/** Map's statics by name: `from` (what `new Map(items)` lowers to) and one per method. */
export const MAP_STATICS: Record<string, MapStatic> = {
  from: (rt, [items]) => from(rt, items),
  get: (rt, [m, k]) => { const e = entriesOf(m); const i = find(rt, e, k); return i < 0 ? undefined : e[i]![1] },
  has: (rt, [m, k]) => find(rt, entriesOf(m), k) >= 0,
  set: (rt, [m, k, v]) => {
    const e = entriesOf(m)
    chargeTexts(rt, [k])
    const i = find(rt, e, k)
    const key = Object.is(k, -0) ? 0 : k
    // A fresh pair either way: a pair handed out by entries() or spread is the guest's, never the Map's.
    if (i >= 0) e[i] = [e[i]![0], v]
    else { rt.chargeSlots(3); indexOf(rt, e).set(key, e.length); e.push([key, v]); indexes.get(e)!.length = e.length }
    return e
  },
  delete: (rt, [m, k]) => {
    const e = entriesOf(m)
    const i = find(rt, e, k)
    if (i < 0) return false
    chargeScan(rt, e.length - i)
    e.splice(i, 1)
    indexes.delete(e)
    return true
  },
  clear: (_rt, [m]) => { const e = entriesOf(m); e.length = 0; indexes.delete(e); return undefined },
  size: (_rt, [m]) => entriesOf(m).length,
  keys: (rt, [m]) => copy(rt, entriesOf(m), (e) => e[0]),
  values: (rt, [m]) => copy(rt, entriesOf(m), (e) => e[1]),
  entries: (rt, [m]) => copy(rt, entriesOf(m), (e) => [e[0], e[1]]),
}
