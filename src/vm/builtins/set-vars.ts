/**
 * The statics a Set variable's methods lower to (src/transpiler/lower/set-vars.ts), registered by the maps
 * part (`ajs-lang/vm/maps`) beside Map's. AJS values are plain data, so a Set kept in a variable is the
 * array of its members in insertion order, which the guest only reaches through these statics. Members
 * compare as a Set's do (SameValueZero: NaN is one member, -0 is 0, objects by identity). Their names are
 * not the core `Set.*` helpers' (builtins/sets.ts: `Set.has(a, x)`, `Set.add(a, x)` read any array and
 * give a new one), since these change the Set in place:
 *
 * - `Set.create(items)`: `new Set(items)` (an array, a text's characters, nothing for null or undefined);
 * - `Set.contains(s, x)`, `Set.insert(s, x)` (gives `s`, so `s.add(a).add(b)` chains), `Set.remove(s, x)`,
 *   `Set.clear(s)`, `Set.count(s)`: `has`, `add`, `delete`, `clear` and `size`;
 * - `Set.values(s)`, `Set.entries(s)`: fresh arrays (`[...s]`, `Array.from(s)`, `s.values()`, `s.entries()`);
 * - `Set.walk(s)`, `Set.walk(s, 'entries')`: `for...of` and `forEach`, live as JavaScript's iterator;
 * - `Set.merge(a, b, kind)`, `Set.relate(a, b, kind)`: `a.union(b)` (`intersection`, `difference`,
 *   `symmetricDifference`), a new Set, and `a.isSubsetOf(b)` (`isSupersetOf`, `isDisjointFrom`).
 *
 * The host-side index of ordered-index.ts, shared with the Map statics, makes `has`, `add` and `delete` one
 * lookup (`delete` leaves a tombstone, which what a program reads skips) and walks the members live.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'
import { orderedArrays } from './ordered-index.ts'

type SetStatic = (rt: Run, args: any[]) => unknown

const S = orderedArrays('Set', false)

/** `new Set(items)`: an array's items or a text's characters, each once, in the order first seen (-0 as 0). */
function create(rt: Run, items: unknown): unknown[] {
  if (items === null || items === undefined) return []
  if (typeof items === 'string') { chargeScan(rt, items.length); items = [...items] }
  if (!Array.isArray(items)) throw vmError('TYPE_ERROR', 'new Set(...) takes an array or a text')
  chargeScan(rt, items.length)
  chargeTexts(rt, items)
  rt.chargeSlots(items.length * 2)
  const [out, index] = S.fresh()
  for (const x of items) if (index.get(x) === undefined) S.add(index, out, x === 0 ? 0 : x, x === 0 ? 0 : x)
  return out
}

const member = (x: unknown): unknown => x
const pair = (x: unknown): unknown => [x, x]

/**
 * `a.union(b)`, `intersection`, `difference`, `symmetricDifference` (`kind`), as JavaScript's (ES2025): a new
 * Set, in JavaScript's order (an intersection walks the smaller of the two, as the spec's does). `b` is a
 * Set's members or a Map's keys (a fresh array, indexed here when first read).
 */
function merge(rt: Run, a: unknown[], b: unknown[], kind: unknown): unknown[] {
  const as = S.copy(rt, a, member, 1), bs = S.copy(rt, b, member, 1)
  const inA = (x: unknown) => S.find(rt, a, x) >= 0, inB = (x: unknown) => S.find(rt, b, x) >= 0
  const items = kind === 'union' ? [...as, ...bs]
    : kind === 'intersection' ? (as.length <= bs.length ? as.filter(inB) : bs.filter(inA))
    : kind === 'difference' ? as.filter((x) => !inB(x))
    : [...as.filter((x) => !inB(x)), ...bs.filter((x) => !inA(x))]
  return create(rt, items)
}

/** `a.isSubsetOf(b)`, `isSupersetOf`, `isDisjointFrom` (`kind`), as JavaScript's. */
function relate(rt: Run, a: unknown[], b: unknown[], kind: unknown): boolean {
  const inA = (x: unknown) => S.find(rt, a, x) >= 0, inB = (x: unknown) => S.find(rt, b, x) >= 0
  if (kind === 'isSubsetOf') return S.size(rt, a) <= S.size(rt, b) && S.copy(rt, a, member, 1).every(inB)
  if (kind === 'isSupersetOf') return S.size(rt, a) >= S.size(rt, b) && S.copy(rt, b, member, 1).every(inA)
  return !S.copy(rt, a, member, 1).some(inB)
}

/** The statics by name (see the top of this file). */
export const SET_VAR_STATICS: Record<string, SetStatic> = {
  create: (rt, [items]) => create(rt, items),
  contains: (rt, [s, x]) => S.find(rt, S.arrayOf(s), x) >= 0,
  insert: (rt, [s, x]) => {
    const e = S.changing(s)
    if (S.find(rt, e, x) < 0) { rt.chargeSlots(1); S.add(S.indexOf(rt, e), e, x === 0 ? 0 : x, x === 0 ? 0 : x) }
    return e
  },
  remove: (rt, [s, x]) => S.remove(rt, S.changing(s), x),
  clear: (_rt, [s]) => { S.clear(S.changing(s)); return undefined },
  count: (rt, [s]) => S.size(rt, S.arrayOf(s)),
  values: (rt, [s]) => S.copy(rt, S.arrayOf(s), member, 1),
  entries: (rt, [s]) => S.copy(rt, S.arrayOf(s), pair, 3),
  merge: (rt, [a, b, kind]) => merge(rt, S.arrayOf(a), S.arrayOf(b), kind),
  relate: (rt, [a, b, kind]) => relate(rt, S.arrayOf(a), S.arrayOf(b), kind),
  // `Set.walk(s)` walks the members (`for...of`), `Set.walk(s, 'entries')` gives each as `[x, x]` (forEach's value and key).
  walk: (rt, [s, kind]) => S.walk(rt, S.arrayOf(s), kind === 'entries' ? pair : member, kind === 'entries' ? 3 : 1),
}
