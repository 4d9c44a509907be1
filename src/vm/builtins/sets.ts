/**
 * Set-like helpers over plain arrays (the guest has no Set objects): results
 * are arrays with duplicates removed, in first-seen order, using SameValueZero.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'

const arr = (v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw vmError('TYPE_ERROR', `Set.${what} expects arrays`)
  return v
}

const done = (rt: Run, out: unknown[]) => { rt.chargeSlots(out.length); return out }

export const SET_HELPERS: Record<string, (rt: Run, args: any[]) => unknown> = {
  from: (rt, [a]) => done(rt, [...new Set(arr(a, 'from'))]),
  has: (_rt, [a, x]) => arr(a, 'has').includes(x),
  add: (rt, [a, x]) => done(rt, arr(a, 'add').includes(x) ? [...new Set(a)] : [...new Set(a), x]),
  delete: (rt, [a, x]) => done(rt, [...new Set(arr(a, 'delete'))].filter((y) => !Object.is(y, x) && !(y === x))),
  union: (rt, [a, b]) => done(rt, [...new Set([...arr(a, 'union'), ...arr(b, 'union')])]),
  intersection: (rt, [a, b]) => { const s = new Set(arr(b, 'intersection')); return done(rt, [...new Set(arr(a, 'intersection'))].filter((x) => s.has(x))) },
  difference: (rt, [a, b]) => { const s = new Set(arr(b, 'difference')); return done(rt, [...new Set(arr(a, 'difference'))].filter((x) => !s.has(x))) },
  isSubsetOf: (_rt, [a, b]) => { const s = new Set(arr(b, 'isSubsetOf')); return arr(a, 'isSubsetOf').every((x) => s.has(x)) },
  size: (_rt, [a]) => new Set(arr(a, 'size')).size,
}
