/**
 * Set-like helpers over plain arrays (the guest has no Set objects): results
 * are arrays with duplicates removed, in first-seen order, using SameValueZero.
 * Each helper reads its arrays in one native call, so every array read is
 * charged per element (SCAN_COST) before the call, and results per slot.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, chargeTexts } from './sizes.ts'
import { tokenizer, untoken } from './text-tokens.ts'

const arr = (rt: Run, v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', `Set.${what} expects arrays`)
  chargeScan(rt, v.length)
  // Hashed or compared whole (new Set, includes): a long text pays its characters.
  chargeTexts(rt, v)
  return v
}

const done = (rt: Run, out: unknown[]) => { rt.chargeSlots(out.length); return out }

/**
 * A call's native Sets: a text over 16,383 characters stands in them as its token (text-tokens.ts; V8 hashes
 * such a text by its length alone), `tok` giving an array's items so, `list` the items of a Set as they were.
 */
function sets() {
  const tok = tokenizer()
  return { tok, set: (xs: unknown[]) => new Set(tok(xs)), list: untoken }
}

export const SET_HELPERS: Record<string, (rt: Run, args: any[]) => unknown> = {
  // As `new Set(a)` takes them (what `[...new Set(a)]` lowers to): no items for null or undefined, a text's characters.
  from: (rt, [a]) => { const xs = a == null ? [] : typeof a === 'string' ? (chargeScan(rt, a.length), [...a]) : arr(rt, a, 'from'); rt.chargeSlots(xs.length); const k = sets(); return k.list(k.set(xs)) },
  has: (rt, [a, x]) => { const xs = arr(rt, a, 'has'); chargeTexts(rt, [x]); return xs.includes(x) },
  add: (rt, [a, x]) => { const xs = arr(rt, a, 'add'); rt.chargeSlots(xs.length + 1); const k = sets(); return k.list(k.set(xs.includes(x) ? xs : [...xs, x])) },
  delete: (rt, [a, x]) => { const xs = arr(rt, a, 'delete'); rt.chargeSlots(xs.length); const k = sets(); return k.list(k.set(xs)).filter((y) => !Object.is(y, x) && !(y === x)) },
  union: (rt, [a, b]) => { const xs = arr(rt, a, 'union'), ys = arr(rt, b, 'union'); rt.chargeSlots(xs.length + ys.length); const k = sets(); return k.list(k.set([...xs, ...ys])) },
  intersection: (rt, [a, b]) => { const k = sets(), s = k.set(arr(rt, b, 'intersection')); return done(rt, k.list([...k.set(arr(rt, a, 'intersection'))].filter((x) => s.has(x)))) },
  difference: (rt, [a, b]) => { const k = sets(), s = k.set(arr(rt, b, 'difference')); return done(rt, k.list([...k.set(arr(rt, a, 'difference'))].filter((x) => !s.has(x)))) },
  isSubsetOf: (rt, [a, b]) => { const k = sets(), s = k.set(arr(rt, b, 'isSubsetOf')); return k.tok(arr(rt, a, 'isSubsetOf')).every((x) => s.has(x)) },
  size: (rt, [a]) => sets().set(arr(rt, a, 'size')).size,
}
