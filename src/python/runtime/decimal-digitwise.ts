/**
 * Decimal's digit-wise methods, as CPython 3.11's (libmpdec's results, _pydecimal's steps): `shift`
 * and `rotate` (the coefficient as `prec` digits, moved left for a positive count, right for a
 * negative one; the sign and exponent kept) and `logical_and`, `logical_or`, `logical_xor`,
 * `logical_invert` (operands of 0 and 1 digits with sign 0 and exponent 0, read as `prec` digits).
 * Operands come decoded from decimal.ts (decimal-more.ts dispatches here); a context's method of
 * the same name runs the same code. Big results are paid before they are built (`Ctx.work`).
 */
import * as N from './decimal-num.ts'
import { Dec, type Ctx } from './decimal-num.ts'

/** The names here taking another operand; `logical_invert` takes none. */
export const DIGITWISE_BINARY = ['shift', 'rotate', 'logical_and', 'logical_or', 'logical_xor'] as const

/** The last `prec` digits of a finite coefficient (what these operations see of it). */
const kept = (d: Dec, prec: number): bigint => (d.digits > prec ? d.coef % N.pow10(prec) : d.coef)

/** A logical operand: finite, sign 0, exponent 0, every digit 0 or 1. */
const isLogical = (d: Dec): boolean => d.kind === 'f' && d.sign === 0 && d.exp === 0 && /^[01]+$/.test(N.digitText(d.coef))

function logical(name: string, a: Dec, b: Dec, ctx: Ctx): Dec {
  if (!isLogical(a) || !isLogical(b)) return N.invalid(ctx)
  const x = N.digitText(kept(a, ctx.prec)), y = N.digitText(kept(b, ctx.prec))
  const n = Math.max(x.length, y.length)
  if (n > 64) ctx.work(n)
  const xs = x.padStart(n, '0'), ys = y.padStart(n, '0')
  let out = ''
  for (let i = 0; i < n; i++) {
    const p = xs.charCodeAt(i) === 49, q = ys.charCodeAt(i) === 49
    out += (name === 'logical_and' ? p && q : name === 'logical_or' ? p || q : p !== q) ? '1' : '0'
  }
  return new Dec(0, BigInt(out), 0)
}

/** `prec` ones minus the operand: every digit flipped (no digit borrows, each is 0 or 1). */
function invert(d: Dec, ctx: Ctx): Dec {
  if (!isLogical(d)) return N.invalid(ctx)
  if (ctx.prec > 64) ctx.work(ctx.prec)
  return new Dec(0, (N.pow10(ctx.prec) - 1n) / 9n - kept(d, ctx.prec), 0)
}

function shiftRotate(name: 'shift' | 'rotate', d: Dec, o: Dec, ctx: Ctx): Dec {
  const nan = N.nanOf(d, o, ctx)
  if (nan) return nan
  // The count: an integer (exponent 0) within the precision either way.
  if (o.kind !== 'f' || o.exp !== 0 || o.coef > BigInt(ctx.prec)) return N.invalid(ctx)
  if (d.kind === 'F') return d
  const prec = ctx.prec
  const k = o.sign ? -Number(o.coef) : Number(o.coef)
  const c = kept(d, prec)
  let r: bigint
  if (name === 'shift') {
    if (k < 0) r = c / N.pow10(-k)
    else {
      if (d.digits + k > 64) ctx.work(d.digits + k)
      r = (c * N.pow10(k)) % N.pow10(prec)
    }
  } else {
    // Left by k digits of `prec`; right by k is left by prec - k.
    const left = k < 0 ? prec + k : k
    if (prec > 64) ctx.work(prec)
    const low = N.pow10(prec - left)
    r = (c % low) * N.pow10(left) + c / low
  }
  return new Dec(d.sign, r, d.exp)
}

/** `d.name(other)` of these methods, undefined for other names. */
export function digitwise(name: string, d: Dec, other: () => Dec, ctx: Ctx): Dec | undefined {
  switch (name) {
    case 'shift': case 'rotate': return shiftRotate(name, d, other(), ctx)
    case 'logical_and': case 'logical_or': case 'logical_xor': return logical(name, d, other(), ctx)
    case 'logical_invert': return invert(d, ctx)
  }
  return undefined
}
