/**
 * Array methods that take a callback (`map`, `filter`, `reduce`, ...).
 * Implemented here rather than delegated to Array.prototype so every
 * iteration is metered, noticed by the deadline check, and may await a
 * callback that calls an atom (callbacks then run one after another).
 */
import type { Frame } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { isP } from '../compile/async.ts'
import { toPrim } from './coerce.ts'
import { SLOT_COST } from '../fuel.ts'
import { chargeScan } from './sizes.ts'
import type { CallbackMethodName } from '../../ast/globals.ts'
import { TEXT_HOF_METHODS } from './replace-callback.ts'

/**
 * A hole (left by `a[5] = v` past the end, a longer `length` or `delete a[i]`): JS's
 * map, forEach, filter, some, every, reduce, reduceRight and flatMap skip it (find*
 * and sort do not). Only an undefined read can be one, so dense arrays pay one compare.
 * No callback pays for a skipped hole, and `a[8e6] = 1` leaves eight million (some 30 ms
 * a pass): each costs SLOT_COST and a tick, so a loop over them meets its fuel and deadline.
 */
const hole = (f: Frame, arr: unknown[], i: number, v: unknown): boolean =>
  v === undefined && !(i in arr) && (f.rt.charge(SLOT_COST), f.rt.tick(), true)

export interface Callable {
  /** Positional arguments (no array per call): value/index/array, or acc/value/index/array. */
  call: (f: Frame, a?: unknown, b?: unknown, c?: unknown, d?: unknown) => unknown
  async: boolean
}

export interface HofSpec {
  run: (f: Frame, arr: unknown[], cb: Callable, extra: unknown[]) => unknown
  /** The callback must be synchronous (sort comparators). */
  syncOnly?: boolean
  /** A text method (`replace`): its target is a string, not an array. */
  text?: boolean
  /** Which argument is the callback (the others are `extra`): 0 unless given. */
  callbackAt?: number
}

/**
 * Drive `step(i, value)` over i = from .. to (exclusive, or downwards when
 * `dir` is -1), switching to promise chaining if a callback returns a Promise.
 * `step` returns true to stop early.
 */
function drive(
  f: Frame, arr: unknown[], cb: Callable, dir: 1 | -1,
  step: (i: number, v: unknown) => boolean, done: () => unknown, skipHoles = true,
): unknown {
  const n = arr.length
  let i = dir === 1 ? 0 : n - 1
  const more = () => (dir === 1 ? i < n : i >= 0)
  const loop = (): unknown => {
    while (more()) {
      const k = i
      const x = arr[k]
      i += dir
      if (skipHoles && hole(f, arr, k, x)) continue
      const v = cb.call(f, x, k, arr)
      if (isP(v)) return v.then((r) => (step(k, r) ? done() : loop()))
      if (step(k, v)) return done()
    }
    return done()
  }
  return loop()
}

// Synchronous callbacks (no atom or helper that can wait) take plain loops: no
// per-call closures; waiting ones go through `drive`.

const map: HofSpec = {
  run(f, arr, cb) {
    const n = arr.length
    const out = new Array(n)
    f.rt.chargeSlots(n)
    if (!cb.async) {
      for (let i = 0; i < n; i++) {
        const x = arr[i]
        if (!hole(f, arr, i, x)) out[i] = cb.call(f, x, i, arr)
      }
      return out
    }
    return drive(f, arr, cb, 1, (i, v) => { out[i] = v; return false }, () => out)
  },
}

const forEach: HofSpec = {
  run(f, arr, cb) {
    if (!cb.async) {
      const n = arr.length // JS visits the length the array had when the call began
      for (let i = 0; i < n; i++) {
        const x = arr[i]
        if (!hole(f, arr, i, x)) cb.call(f, x, i, arr)
      }
      return undefined
    }
    return drive(f, arr, cb, 1, () => false, () => undefined)
  },
}

const filter: HofSpec = {
  run(f, arr, cb) {
    const out: unknown[] = []
    if (!cb.async) {
      const n = arr.length
      for (let i = 0; i < n; i++) {
        const v = arr[i] // read once, as JS does (the callback may change arr[i])
        if (!hole(f, arr, i, v) && cb.call(f, v, i, arr)) out.push(v)
      }
      f.rt.chargeSlots(out.length)
      return out
    }
    return drive(f, arr, cb, 1, (i, v) => { if (v) out.push(arr[i]); return false }, () => {
      f.rt.chargeSlots(out.length)
      return out
    })
  },
}

function finder(dir: 1 | -1, want: 'value' | 'index'): HofSpec {
  return {
    run(f, arr, cb) {
      let found = -1
      return drive(f, arr, cb, dir, (i, v) => { if (v) { found = i; return true } return false },
        () => (want === 'index' ? found : found < 0 ? undefined : arr[found]), false)
    },
  }
}

const some: HofSpec = {
  run(f, arr, cb) {
    let hit = false
    return drive(f, arr, cb, 1, (_i, v) => { if (v) hit = true; return hit }, () => hit)
  },
}

const every: HofSpec = {
  run(f, arr, cb) {
    let ok = true
    return drive(f, arr, cb, 1, (_i, v) => { if (!v) ok = false; return !ok }, () => ok)
  },
}

function reducer(dir: 1 | -1): HofSpec {
  return {
    run(f, arr, cb, extra) {
      const n = arr.length
      let acc: unknown
      let i = dir === 1 ? 0 : n - 1
      if (extra.length > 0) acc = extra[0]
      else {
        // The first value that is not a hole starts the accumulator, as in JS.
        while ((dir === 1 ? i < n : i >= 0) && hole(f, arr, i, arr[i])) i += dir
        if (dir === 1 ? i >= n : i < 0) throw vmError('TYPE_ERROR', 'Reduce of empty array with no initial value')
        acc = arr[i]
        i += dir
      }
      if (!cb.async && dir === 1) {
        for (; i < n; i++) {
          const x = arr[i]
          if (!hole(f, arr, i, x)) acc = cb.call(f, acc, x, i, arr)
        }
        return acc
      }
      const loop = (): unknown => {
        while (dir === 1 ? i < n : i >= 0) {
          const k = i
          i += dir
          const x = arr[k]
          if (hole(f, arr, k, x)) continue
          const v = cb.call(f, acc, x, k, arr)
          if (isP(v)) return v.then((r) => { acc = r; return loop() })
          acc = v
        }
        return acc
      }
      return loop()
    },
  }
}

const flatMap: HofSpec = {
  run(f, arr, cb) {
    const out: unknown[] = []
    return drive(f, arr, cb, 1, (_i, v) => {
      if (Array.isArray(v)) for (const x of v) out.push(x)
      else out.push(v)
      return false
    }, () => {
      f.rt.chargeSlots(out.length)
      return out
    })
  },
}

const sort: HofSpec = {
  syncOnly: true,
  run(f, arr, cb) {
    // n log n comparisons, each metered through the callback itself; the engine's copy of the n
    // elements out and back (holes and undefineds, never compared, too) paid before.
    f.rt.chargeSlots(arr.length)
    return arr.sort((a, b) => {
      const r = cb.call(f, a, b)
      // JS reads the comparator's result with ToNumber: (a, b) => a > b gives true, 1; NaN counts as 0.
      // Reading a text is a scan of it (one of 30M characters, returned by every call, took 30 ms each).
      const p = typeof r === 'number' ? r : toPrim(f.rt, r)
      if (typeof p === 'string') chargeScan(f.rt, p.length)
      const n = Number(p)
      return n === n ? n : 0
    })
  },
}

export const HOF_METHODS: Record<CallbackMethodName, HofSpec> = {
  map,
  forEach,
  filter,
  find: finder(1, 'value'),
  findIndex: finder(1, 'index'),
  findLast: finder(-1, 'value'),
  findLastIndex: finder(-1, 'index'),
  some,
  every,
  reduce: reducer(1),
  reduceRight: reducer(-1),
  flatMap,
  sort,
  toSorted: { syncOnly: true, run: (f, arr, cb, extra) => { f.rt.chargeSlots(arr.length); return sort.run(f, arr.slice(), cb, extra) } },
  ...TEXT_HOF_METHODS,
}
