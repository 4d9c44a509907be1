/**
 * Set-like helpers over plain arrays (the guest has no Set objects): results
 * are arrays with duplicates removed, in first-seen order, using SameValueZero.
 * Each helper reads its arrays in one native call, so every array read is
 * charged per element (SCAN_COST) before the call, and results per slot.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'

const arr = (rt: Run, v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', `Set.${what} expects arrays`)
  chargeScan(rt, v.length)
  // Hashed or compared whole (new Set, includes): a long text pays its characters.
  chargeTexts(rt, v)
  return v
}

const done = (rt: Run, out: unknown[]) => { rt.chargeSlots(out.length); return out }

export const SET_HELPERS: Record<string, (rt: Run, args: any[]) => unknown> = {
  // As `new Set(a)` takes them (what `[...new Set(a)]` lowers to): no items for null or undefined, a text's characters.
  from: (rt, [a]) => { const xs = a == null ? [] : typeof a === 'string' ? (chargeScan(rt, a.length), [...a]) : arr(rt, a, 'from'); rt.chargeSlots(xs.length); return [...new Set(xs)] },
  has: (rt, [a, x]) => { const xs = arr(rt, a, 'has'); chargeTexts(rt, [x]); return xs.includes(x) },
  add: (rt, [a, x]) => { const xs = arr(rt, a, 'add'); rt.chargeSlots(xs.length + 1); return xs.includes(x) ? [...new Set(xs)] : [...new Set(xs), x] },
  delete: (rt, [a, x]) => { const xs = arr(rt, a, 'delete'); rt.chargeSlots(xs.length); return [...new Set(xs)].filter((y) => !Object.is(y, x) && !(y === x)) },
  union: (rt, [a, b]) => { const xs = arr(rt, a, 'union'), ys = arr(rt, b, 'union'); rt.chargeSlots(xs.length + ys.length); return [...new Set([...xs, ...ys])] },
  intersection: (rt, [a, b]) => { const s = new Set(arr(rt, b, 'intersection')); return done(rt, [...new Set(arr(rt, a, 'intersection'))].filter((x) => s.has(x))) },
  difference: (rt, [a, b]) => { const s = new Set(arr(rt, b, 'difference')); return done(rt, [...new Set(arr(rt, a, 'difference'))].filter((x) => !s.has(x))) },
  isSubsetOf: (rt, [a, b]) => { const s = new Set(arr(rt, b, 'isSubsetOf')); return arr(rt, a, 'isSubsetOf').every((x) => s.has(x)) },
  size: (rt, [a]) => new Set(arr(rt, a, 'size')).size,
}
