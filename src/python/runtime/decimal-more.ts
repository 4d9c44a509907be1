/**
 * The Decimal methods models reach for less often, as CPython 3.11's (libmpdec's results and
 * conditions, the same as _pydecimal's): `compare_total`, `compare_total_mag`, `compare_signal`,
 * `max_mag`, `min_mag`, `next_toward`, `logb`, `remainder_near`. Each takes its operands as decoded
 * (decimal.ts converts them and settles the context's conditions); a context's method of the same
 * name runs the same code (decimal-context-ops.ts).
 */
import * as N from './decimal-num.ts'
import { Dec, type Ctx } from './decimal-num.ts'
import { digitwise } from './decimal-digitwise.ts'

/** The names here (decimal.ts dispatches them; builtins-table.ts lets them be called). */
export const MORE_DECIMAL_METHODS = ['compare_total', 'compare_total_mag', 'compare_signal', 'max_mag', 'min_mag', 'next_toward', 'logb', 'remainder_near'] as const

const ofInt = (n: number): Dec => new Dec(n < 0 ? 1 : 0, BigInt(Math.abs(n)), 0)

/** 1 for a quiet NaN, 2 for a signaling one, else 0 (_pydecimal's `_isnan`). */
const nanKind = (d: Dec): number => (d.kind === 'n' ? 1 : d.kind === 'N' ? 2 : 0)

/** The total order of the abstract representations: by sign, NaNs beyond infinities (signaling below quiet), then value, then exponent. */
export function compareTotal(a: Dec, b: Dec): number {
  if (a.sign !== b.sign) return a.sign ? -1 : 1
  const s = a.sign ? -1 : 1
  const an = nanKind(a), bn = nanKind(b)
  if (an || bn) {
    if (an === bn) return a.coef === b.coef ? 0 : (a.coef < b.coef ? -s : s)
    // A quiet NaN is above a signaling one, both above every number (for a positive sign).
    const rank = (k: number): number => (k === 1 ? 2 : k === 2 ? 1 : 0)
    return rank(an) > rank(bn) ? s : -s
  }
  const c = N.cmp(a, b)
  if (c !== 0) return c
  if (!a.finite || a.exp === b.exp) return 0
  return a.exp < b.exp ? -s : s
}

/** `max_mag` / `min_mag`: by absolute value, a tie decided by compare_total; a quiet NaN gives way to a number. */
function maxMinMag(name: 'max_mag' | 'min_mag', a: Dec, b: Dec, ctx: Ctx): Dec {
  const an = nanKind(a), bn = nanKind(b)
  if (an || bn) {
    if (bn === 1 && an === 0) return N.fix(a, ctx)
    if (an === 1 && bn === 0) return N.fix(b, ctx)
    return N.nanOf(a, b, ctx)!
  }
  let c = N.cmp(N.absolute(a), N.absolute(b))
  if (c === 0) c = compareTotal(a, b)
  const pick = name === 'max_mag' ? (c === -1 ? b : a) : c === -1 ? a : b
  return N.fix(pick, ctx)
}

/** `remainder_near`: x - y·n for the integer n nearest x/y (half to even), with the ideal exponent. */
function remainderNear(a: Dec, b: Dec, ctx: Ctx): Dec {
  const nan = N.nanOf(a, b, ctx)
  if (nan) return nan
  if (!a.finite) return N.invalid(ctx)
  if (b.zero) return N.invalid(ctx, a.zero ? N.UNDEFINED : N.INVALID)
  if (!b.finite) return N.fix(a, ctx)
  const ideal = Math.min(a.exp, b.exp)
  if (a.zero) return N.fix(new Dec(a.sign, 0n, ideal), ctx)
  const expdiff = a.adjusted - b.adjusted
  if (expdiff >= ctx.prec + 1) return N.invalid(ctx, N.IMPOSSIBLE)
  if (expdiff <= -2) return N.fix(N.rescale(a, ideal, ctx.rounding, ctx), ctx)
  ctx.work(a.digits + b.digits)
  const x = a.coef * N.pow10(a.exp - ideal), y = b.coef * N.pow10(b.exp - ideal)
  let q = x / y, r = x % y
  if (2n * r + (q & 1n) > y) { r -= y; q += 1n }
  if (q >= N.pow10(ctx.prec)) return N.invalid(ctx, N.IMPOSSIBLE)
  const sign = r < 0n ? (a.sign ? 0 : 1) : a.sign
  return N.fix(new Dec(sign, r < 0n ? -r : r, ideal), ctx)
}

/**
 * `d.name(other)` of these methods (other undefined for logb); `next` is decimal.ts's next_plus /
 * next_minus. A number for compare_total and compare_total_mag (no context), else a Decimal's value.
 */
export function moreDecimal(name: string, d: Dec, other: () => Dec, ctx: Ctx, next: (d: Dec, dir: 1 | -1, ctx: Ctx) => Dec): Dec | undefined {
  switch (name) {
    case 'compare_total': return ofInt(compareTotal(d, other()))
    case 'compare_total_mag': return ofInt(compareTotal(N.absolute(d), N.absolute(other())))
    case 'compare_signal': {
      const o = other()
      if (d.nan || o.nan) {
        // Any NaN, quiet too, is InvalidOperation here (libmpdec's `mpd_qcompare_signal`).
        const r = N.nanOf(d, o, ctx)!
        ctx.status |= N.INVALID
        return r
      }
      return ofInt(N.cmp(d, o))
    }
    case 'max_mag': case 'min_mag': return maxMinMag(name, d, other(), ctx)
    case 'remainder_near': return remainderNear(d, other(), ctx)
    case 'logb': {
      const nan = N.nanOf(d, undefined, ctx)
      if (nan) return nan
      if (d.kind === 'F') return N.INF(0)
      if (d.zero) { ctx.status |= N.DIV_ZERO; return N.INF(1) }
      return N.fix(ofInt(d.adjusted), ctx)
    }
    case 'next_toward': {
      const o = other()
      const nan = N.nanOf(d, o, ctx)
      if (nan) return nan
      const c = N.cmp(d, o)
      if (c === 0) return new Dec(o.sign, d.coef, d.exp, d.kind)
      const r = next(d, c < 0 ? 1 : -1, ctx)
      // libmpdec's `mpd_qnext_toward`: the conditions of where the step landed.
      if (r.kind === 'F') ctx.status |= N.OVERFLOW | N.ROUNDED | N.INEXACT
      else if (!r.zero && r.adjusted < ctx.Emin) ctx.status |= N.UNDERFLOW | N.SUBNORMAL | N.ROUNDED | N.INEXACT
      else if (r.zero) ctx.status |= N.UNDERFLOW | N.SUBNORMAL | N.ROUNDED | N.INEXACT | N.CLAMPED
      return r
    }
  }
  return digitwise(name, d, other, ctx)
}
