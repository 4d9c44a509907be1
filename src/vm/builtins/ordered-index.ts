/**
 * What the Map statics (maps.ts: the `[key, value]` entries of a Map variable) and the statics of a Set
 * variable (set-vars.ts: its members) share: an array in insertion order that the guest reaches only
 * through them, and its host-side index (a WeakMap per kind, which the guest never sees), which makes a
 * lookup one native Map lookup. Keys compare as a Map's do (SameValueZero: NaN is one key, -0 is 0,
 * objects by identity); a key is hashed whole, so a long text is paid per character first, and keyed by
 * long-keys.ts (V8 hashes a text over 16,383 characters by its length alone). The index is checked against
 * the array on every use and rebuilt, paid for, when the array changed under it: an AST written by hand
 * may pass any array, and change it. (An item it replaced in place, the array's length the same, is not
 * seen until a lookup lands on it: a lookup of its new key is a miss, only on the guest's own data;
 * checking the whole array on each miss would make every miss cost the Map's size.)
 *
 * A delete leaves the index's tombstone (an empty array) in the item's place, so a loop of deletes and sets
 * is linear, as JavaScript's; once more than half the array is tombstones they are dropped in place and the
 * index rebuilt, paid as any rebuild (amortized, a few items per delete). What a program reads skips them.
 *
 * Each item has a number in the order it was added (Index.seqs, increasing along the array, moved with the
 * items by a compaction and continued across a clear or a rebuild): a walk (`for...of`, `forEach`) keeps the
 * number of the item it gave last and goes on from the first one numbered after it, so it reads the items
 * as JavaScript's iterator does: one added during the walk is reached, one deleted before its turn is not,
 * and after a clear only those added since are.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'
import { isLongKey, longKeyCoder } from './long-keys.ts'

/** runtime.ts's PULL and PULL_DONE, registered symbols: importing runtime.ts would bring 50 B of its own into the part. */
const PULL = Symbol.for('ajs-lang.pull'), PULL_DONE = Symbol.for('ajs-lang.pullDone')

export interface Index {
  /** The array length the index was built for (-1: rebuild). */
  length: number
  /** Tombstones in the array, and this array's tombstone: an empty array never handed to the guest. */
  dead: number; tomb: unknown
  /** Each item's number in the order it was added (a walk's place), and the next one to give. */
  seqs: number[]; next: number
  get(k: unknown): number | undefined; set(k: unknown, i: number): void; delete(k: unknown): void
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
    get: (k) => (isLongKey(k) ? long.get(code(k)!) : keys.get(k)),
    set: (k, i) => { if (isLongKey(k)) long.set(code(k, true)!, i); else keys.set(k, i) },
    delete: (k) => { if (isLongKey(k)) long.delete(code(k)!); else keys.delete(k) },
  }
}

const same = (a: unknown, b: unknown): boolean => a === b || (a !== a && b !== b)

/**
 * The work on the arrays of one kind, `what` ('Map' or 'Set', for the guest's TYPE_ERRORs). With `entries`
 * each item is a `[key, value]` pair keyed by its key (an item that is no array is the TYPE_ERROR);
 * without, an item is its own key.
 */
export function orderedArrays(what: string, entries: boolean) {
  const indexes = new WeakMap<unknown[], Index>()
  const notOne = () => vmError('TYPE_ERROR', `A ${what} method was called on something that is not a ${what}`)
  const keyOf = (x: unknown): unknown => {
    if (!entries) return x
    if (!Array.isArray(x)) throw notOne()
    return x[0]
  }

  /** The array `v`, or the TYPE_ERROR. */
  const arrayOf = (v: unknown): unknown[] => {
    if (!Array.isArray(v)) throw notOne()
    return v
  }

  /** The array `v` to change: a guest's own (guards.ts isWritable: an AST written by hand may pass a frozen one, or a library's). */
  const changing = (v: unknown): unknown[] => {
    const a = arrayOf(v)
    if (Object.getPrototypeOf(a) !== Array.prototype || Object.isFrozen(a)) throw vmError('TYPE_ERROR', `A ${what} method would change a read-only array`)
    return a
  }

  /** The index of `a`, rebuilt (and paid for: each key's text is hashed again) when the array is not the one it was built for. */
  const indexOf = (rt: Run, a: unknown[]): Index => {
    const known = indexes.get(a)
    if (known && known.length === a.length) return known
    chargeScan(rt, a.length)
    rt.chargeSlots(a.length)
    // Each item checked, a hole too.
    const ks = Array.from(a, keyOf)
    chargeTexts(rt, ks)
    const index = newIndex(known)
    index.length = a.length
    // The numbers of the items still where they were (all of them after a compaction, which moves them with
    // their items); an item an AST written by hand added is numbered anew.
    index.seqs = known ? known.seqs.slice(0, a.length) : []
    while (index.seqs.length < a.length) index.seqs.push(index.next++)
    for (let i = 0; i < a.length; i++) if (a[i] === index.tomb) index.dead++; else index.set(ks[i], i)
    indexes.set(a, index)
    return index
  }

  /** Where key `k` is in `a`, or -1; an index entry the array no longer agrees with is rebuilt first. */
  const find = (rt: Run, a: unknown[], k: unknown): number => {
    chargeTexts(rt, [k])
    let index = indexOf(rt, a)
    let i = index.get(k)
    if (i !== undefined && !same(keyOf(a[i]), k)) {
      index.length = -1
      index = indexOf(rt, a)
      i = index.get(k)
    }
    return i ?? -1
  }

  /** A new empty array and its index: `new Map(items)` and `new Set(items)` add to them. */
  const fresh = (): [unknown[], Index] => {
    const a: unknown[] = [], index = newIndex()
    indexes.set(a, index)
    return [a, index]
  }

  /** Adds `item` of key `k`, which `a` has not, at its end. */
  const add = (index: Index, a: unknown[], k: unknown, item: unknown): void => {
    index.set(k, a.length)
    a.push(item)
    index.seqs.push(index.next++)
    index.length = a.length
  }

  /** Deletes the item of key `k` (false when `a` has none). */
  const remove = (rt: Run, a: unknown[], k: unknown): boolean => {
    const i = find(rt, a, k)
    if (i < 0) return false
    const index = indexOf(rt, a)
    index.delete(keyOf(a[i]))
    a[i] = index.tomb
    if (++index.dead * 2 > a.length) {
      // Most of the array is tombstones: drop them in place, each item's number with it; the next call sees the length change and rebuilds the index (paid there).
      chargeScan(rt, a.length)
      let j = 0
      a.forEach((x, n) => { if (x !== index.tomb) { index.seqs[j] = index.seqs[n]!; a[j++] = x } })
      a.length = index.seqs.length = j
    }
    return true
  }

  /** A fresh array of `pick` of each item, the tombstones skipped, `slots` paid for each. */
  const copy = (rt: Run, a: unknown[], pick: (x: any) => unknown, slots: number): unknown[] => {
    const { dead, tomb } = indexOf(rt, a)
    rt.chargeSlots((a.length - dead) * slots)
    // Each item checked: one an AST written by hand put in place is not seen by the index.
    return (dead ? a.filter((x) => x !== tomb) : a).map((x) => (keyOf(x), pick(x)))
  }

  /**
   * `for...of` and `forEach`: `pick` of each item as JavaScript's iterator reaches it, one per turn of the
   * loop (`PULL`), `slots` paid for each and SCAN_COST for each tombstone skipped. Frozen: read-only to the
   * guest, and a run's result or an atom's input copies it (an empty object), so its function never
   * reaches the host. A loop that keeps adding pays for each item, so fuel or time ends it.
   */
  const walk = (rt: Run, a: unknown[], pick: (x: any) => unknown, slots: number): object => {
    let last = -1
    return Object.freeze({
      [PULL]() {
        const { seqs, tomb } = indexOf(rt, a)
        let i = 0, hi = seqs.length
        while (i < hi) { const mid = (i + hi) >>> 1; if (seqs[mid]! > last) hi = mid; else i = mid + 1 }
        const from = i
        while (a[i] === tomb) i++
        chargeScan(rt, i - from)
        if (i >= a.length) return PULL_DONE
        keyOf(a[i]) // an item an AST written by hand put in place: checked
        last = seqs[i]!
        rt.chargeSlots(slots)
        return pick(a[i])
      },
    })
  }

  return {
    arrayOf, changing, indexOf, find, fresh, add, remove, copy, walk,
    size: (rt: Run, a: unknown[]): number => a.length - indexOf(rt, a).dead,
    clear: (a: unknown[]): void => { a.length = 0; indexes.set(a, newIndex(indexes.get(a))) },
  }
}
