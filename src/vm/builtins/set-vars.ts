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
 * - `Set.walk(s)`, `Set.walk(s, 'entries')`: `for...of` and `forEach`, live as JavaScript's iterator.
 *
 * A host-side index per members array (a WeakMap the guest never sees) makes `has`, `add` and `delete` one
 * lookup; it is checked against the array on every use and rebuilt, paid for, when the array changed under
 * it (an AST written by hand may pass any array). A member is hashed whole: a long text is paid per
 * character first, and keyed by long-keys.ts (V8 hashes a text over 16,383 characters by its length).
 * `delete` leaves the index's tombstone in the member's place (linear delete-and-add loops, as
 * JavaScript's); once more than half the array is tombstones they are dropped and the index rebuilt.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'
import { isLongKey, longKeyCoder } from './long-keys.ts'

/** runtime.ts's PULL and PULL_DONE, registered symbols (importing runtime.ts would bring more of it into the part). */
const PULL = Symbol.for('ajs-lang.pull'), PULL_DONE = Symbol.for('ajs-lang.pullDone')
type SetStatic = (rt: Run, args: any[]) => unknown

interface Index {
  /** The array length the index was built for (-1: rebuild). */
  length: number
  /** Tombstones in the array, and this Set's tombstone: an empty array never handed to the guest. */
  dead: number; tomb: unknown
  /** Each member's number in the order it was added (a walk's place, see walk), and the next one to give. */
  seqs: number[]; next: number
  get(x: unknown): number | undefined; set(x: unknown, i: number): void; delete(x: unknown): void
}

/** An empty index; `prev`'s tombstone and numbering go on (a walk across a clear or a rebuild keeps its place). */
function newIndex(prev?: Index): Index {
  const keys = new Map<unknown, number>(), long = new Map<string, number>(), code = longKeyCoder()
  return {
    length: 0,
    dead: 0,
    tomb: prev?.tomb ?? [],
    seqs: [],
    next: prev?.next ?? 0,
    get: (x) => (isLongKey(x) ? long.get(code(x)!) : keys.get(x)),
    set: (x, i) => { if (isLongKey(x)) long.set(code(x, true)!, i); else keys.set(x, i) },
    delete: (x) => { if (isLongKey(x)) long.delete(code(x)!); else keys.delete(x) },
  }
}
const indexes = new WeakMap<unknown[], Index>()

function membersOf(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', 'A Set method was called on something that is not a Set')
  return v
}

/** The members of `v` to change: a guest's own array (guards.ts isWritable: an AST written by hand may pass a frozen one, or a library's). */
function changing(v: unknown): unknown[] {
  const e = membersOf(v)
  if (Object.getPrototypeOf(e) !== Array.prototype || Object.isFrozen(e)) throw vmError('TYPE_ERROR', 'A Set method would change a read-only array')
  return e
}

/** The index of `s`, rebuilt (and paid for: each member's text is hashed again) when the array is not the one it was built for. */
function indexOf(rt: Run, s: unknown[]): Index {
  const known = indexes.get(s)
  if (known && known.length === s.length) return known
  chargeScan(rt, s.length)
  rt.chargeSlots(s.length)
  chargeTexts(rt, s)
  const index = newIndex(known)
  index.length = s.length
  // The numbers of the members still where they were (all of them after a compaction, which moves them with
  // their members); a member an AST written by hand added is numbered anew.
  index.seqs = known ? known.seqs.slice(0, s.length) : []
  while (index.seqs.length < s.length) index.seqs.push(index.next++)
  for (let i = 0; i < s.length; i++) if (s[i] === index.tomb) index.dead++; else index.set(s[i], i)
  indexes.set(s, index)
  return index
}

const same = (a: unknown, b: unknown): boolean => a === b || (a !== a && b !== b)

/** Where `x` is in `s`, or -1; an index entry the array no longer agrees with is rebuilt first. */
function find(rt: Run, s: unknown[], x: unknown): number {
  chargeTexts(rt, [x])
  let index = indexOf(rt, s)
  let i = index.get(x)
  if (i !== undefined && !same(s[i], x)) {
    index.length = -1
    index = indexOf(rt, s)
    i = index.get(x)
  }
  return i ?? -1
}

/** Adds `x`, not in `s`, at its end (-0 as 0, as a Set keeps it). */
function push(index: Index, s: unknown[], x: unknown): void {
  if (x === 0) x = 0
  index.set(x, s.length)
  s.push(x)
  index.seqs.push(index.next++)
  index.length = s.length
}

/** `new Set(items)`: an array's items or a text's characters, each once, in the order first seen. */
function create(rt: Run, items: unknown): unknown[] {
  if (items === null || items === undefined) return []
  if (typeof items === 'string') { chargeScan(rt, items.length); items = [...items] }
  if (!Array.isArray(items)) throw vmError('TYPE_ERROR', 'new Set(...) takes an array or a text')
  chargeScan(rt, items.length)
  chargeTexts(rt, items)
  rt.chargeSlots(items.length * 2)
  const out: unknown[] = []
  const index = newIndex()
  for (const x of items) if (index.get(x) === undefined) push(index, out, x)
  indexes.set(out, index)
  return out
}

/** A fresh array of `pick` of each member, the tombstones skipped. */
function copy(rt: Run, s: unknown[], pick: (x: unknown) => unknown, slots: number): unknown[] {
  const { dead, tomb } = indexOf(rt, s)
  rt.chargeSlots((s.length - dead) * slots)
  return (dead ? s.filter((x) => x !== tomb) : s).map(pick)
}

const member = (x: unknown): unknown => x
const pair = (x: unknown): unknown => [x, x]

/**
 * `for (const x of s)` and `s.forEach(...)`: the members as JavaScript's iterator reads them, one per turn
 * of the loop (`PULL`): a member added during the walk is reached, one deleted before its turn is not (one
 * deleted and added again is reached again), and after a clear only the members added since are. The walk
 * keeps the number of the member it gave last (Index.seqs, increasing along the array) and goes on from the
 * first member numbered after it, wherever a compaction, clear or rebuild moved them. A loop that keeps
 * adding pays for each member, so fuel or the heap limit ends it.
 */
function walk(rt: Run, s: unknown[], pick: (x: unknown) => unknown): object {
  let last = -1
  return {
    [PULL]() {
      const { seqs, tomb } = indexOf(rt, s)
      let i = 0, hi = seqs.length
      while (i < hi) { const mid = (i + hi) >>> 1; if (seqs[mid]! > last) hi = mid; else i = mid + 1 }
      const from = i
      while (i < s.length && s[i] === tomb) i++
      chargeScan(rt, i - from)
      if (i >= s.length) return PULL_DONE
      last = seqs[i]!
      rt.chargeSlots(1)
      return pick(s[i])
    },
  }
}

/** The statics by name (see the top of this file). */
export const SET_VAR_STATICS: Record<string, SetStatic> = {
  create: (rt, [items]) => create(rt, items),
  contains: (rt, [s, x]) => find(rt, membersOf(s), x) >= 0,
  insert: (rt, [s, x]) => {
    const e = changing(s)
    if (find(rt, e, x) < 0) { rt.chargeSlots(1); push(indexOf(rt, e), e, x) }
    return e
  },
  remove: (rt, [s, x]) => {
    const e = changing(s)
    const i = find(rt, e, x)
    if (i < 0) return false
    const index = indexOf(rt, e)
    index.delete(e[i])
    e[i] = index.tomb
    if (++index.dead * 2 > e.length) {
      // Most of the array is tombstones: drop them in place, each member's number with it; the next call sees the length change and rebuilds the index (paid there).
      chargeScan(rt, e.length)
      let j = 0
      e.forEach((x, n) => { if (x !== index.tomb) { index.seqs[j] = index.seqs[n]!; e[j++] = x } })
      e.length = index.seqs.length = j
    }
    return true
  },
  clear: (_rt, [s]) => { const e = changing(s); e.length = 0; indexes.set(e, newIndex(indexes.get(e))); return undefined },
  count: (rt, [s]) => { const e = membersOf(s); return e.length - indexOf(rt, e).dead },
  values: (rt, [s]) => copy(rt, membersOf(s), member, 1),
  entries: (rt, [s]) => copy(rt, membersOf(s), pair, 3),
  walk: (rt, [s, kind]) => walk(rt, membersOf(s), kind === 'entries' ? pair : member),
}
