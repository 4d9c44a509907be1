/**
 * `math.fsum` and what it takes, shared by `math` and `statistics` (whose fmean, covariance,
 * correlation and linear_regression call CPython's math.fsum).
 */
import { PyNumeric, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { floatOf, isNumber } from './numbers.ts'

/** A number as a float, as math's functions take it (no text; an int past the float range is CPython's OverflowError). */
export function real(x: unknown): number {
  if (x instanceof PyNumeric) return floatOf(x.unary('float'))
  if (!isNumber(x)) typeError(`must be real number, not ${typeName(x)}`)
  const v = floatOf(x)
  if (typeof x === 'bigint' && !Number.isFinite(v)) raise('OverflowError', 'int too large to convert to float')
  return v
}

/**
 * Exactly rounded sum: Shewchuk's partials as CPython's fsum, with its errors — a partial sum of
 * finite floats that overflows is OverflowError, infinities of both signs ValueError; a NaN or
 * infinity in the items is the result (the partials are dropped, as CPython does).
 */
export function fsum(xs: Iterable<number>): number {
  const partials: number[] = []
  let special = 0, inf = 0
  for (const item of xs) {
    let x = item
    let i = 0
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo) partials[i++] = lo
      x = hi
    }
    if (x !== 0) {
      if (!Number.isFinite(x)) {
        if (Number.isFinite(item)) raise('OverflowError', 'intermediate overflow in fsum')
        if (!Number.isNaN(item)) inf += item
        special += item
        i = 0
      } else partials[i++] = x
    }
    partials.length = i
  }
  if (special !== 0 || Number.isNaN(special)) {
    if (Number.isNaN(inf)) valueError('-inf + inf in fsum')
    return special
  }
  let n = partials.length
  let hi = 0
  if (n > 0) {
    hi = partials[--n]!
    let lo = 0
    while (n > 0) {
      const x = hi
      const y = partials[--n]!
      hi = x + y
      const yr = hi - x
      lo = y - yr
      if (lo) break
    }
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2
      const x = hi + y
      if (y === x - hi) hi = x
    }
  }
  return hi
}
