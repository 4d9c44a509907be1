/**
 * `Decimal.exp()`, `ln()`, `log10()` and `x ** y` for a non-integral y, as CPython 3.11's C
 * implementation (libmpdec) gives them: exp, ln and log10 correctly rounded (half even) to the
 * precision; a power is `exp(y * ln(x))` with each step correctly rounded at the precision plus 23
 * digits, then rounded to the context (libmpdec's `_mpd_qpow_real`).
 *
 * Correct rounding by Ziv's method: the value is computed in fixed point (a bigint at a scale of S
 * decimal digits) with a bound on its error; when the values at both ends of the error interval
 * round to the same decimal, that decimal is the answer, else S grows. The results are irrational
 * (but for the exact cases, handled first), so the loop ends.
 */
import * as N from './decimal-num.ts'
import { Dec, type Ctx } from './decimal-num.ts'

const abs = (x: bigint): bigint => (x < 0n ? -x : x)

/** x at scale s, truncated toward zero (error < 1 unit). */
function fixed(x: Dec, s: number, ctx: Ctx): bigint {
  const shift = x.exp + s
  ctx.work(x.digits + Math.max(shift, 0))
  const v = shift >= 0 ? x.coef * N.pow10(shift) : x.coef / N.pow10(-shift)
  return x.sign ? -v : v
}

/** atanh(1/q) at scale s: error at most 2 units per term. */
function atanhInv(q: bigint, s: number, ctx: Ctx): [bigint, number] {
  const q2 = q * q
  let p = N.pow10(s) / q, sum = 0n, terms = 0
  for (let j = 1n; p !== 0n; j += 2n, terms++) {
    ctx.work(s)
    sum += p / j
    p /= q2
  }
  return [sum, 2 * terms + 2]
}

/** atanh(z) at scale s for a fixed-point z (|z| <= 0.6): error at most 3 units per term. */
function atanh(z: bigint, s: number, ctx: Ctx): [bigint, number] {
  const one = N.pow10(s)
  const z2 = (z * z) / one
  let p = z, sum = 0n, terms = 0
  for (let j = 1n; p !== 0n; j += 2n, terms++) {
    ctx.work(s, s)
    sum += p / j
    p = (p * z2) / one
  }
  return [sum, 3 * terms + 3]
}

const LN10 = { s: -1, v: 0n, err: 0 }
/** ln 10 at scale s (3 ln 2 + ln 1.25, each 2 atanh of a unit fraction), kept for the next call. */
function ln10(s: number, ctx: Ctx): [bigint, number] {
  if (LN10.s < s) {
    const w = s + 10
    const [a, ea] = atanhInv(3n, w, ctx), [b, eb] = atanhInv(9n, w, ctx)
    LN10.s = w; LN10.v = 6n * a + 2n * b; LN10.err = 6 * ea + 2 * eb
  }
  const drop = LN10.s - s
  return [LN10.v / N.pow10(drop), Math.ceil(LN10.err / 10 ** Math.min(drop, 15)) + 1]
}

/**
 * The p-digit half-even rounding of the value a / 10^s known within ±err units, when both ends of
 * the interval round alike; undefined when more digits are needed.
 */
function roundWithin(a: bigint, s: number, err: bigint, p: number): Dec | undefined {
  const sign: 0 | 1 = a < 0n ? 1 : 0
  const m = abs(a)
  const lo = m - err, hi = m + err
  if (lo <= 0n || N.ndigits(lo) <= p + 1) return undefined
  const round = (x: bigint): [bigint, number] => {
    let drop = N.ndigits(x) - p
    let c = N.dropDigits(x, drop, 0, 'ROUND_HALF_EVEN')
    if (N.ndigits(c) > p) { c /= 10n; drop++ }
    return [c, drop - s]
  }
  const [c1, e1] = round(lo), [c2, e2] = round(hi)
  return c1 === c2 && e1 === e2 ? new Dec(sign, c1, e1) : undefined
}

/** Ziv's loop: `approx(s)` gives the value at scale s and its error bound; s grows until the rounding is certain. */
function ziv(p: number, start: number, approx: (s: number) => [bigint, number], ctx: Ctx): Dec {
  let s = start
  for (let guard = 8; ; guard *= 2) {
    const [a, err] = approx(s)
    const r = roundWithin(a, s, BigInt(err), p)
    if (r) return r
    // Too few digits (a value near zero) or an ambiguous last digit: more scale.
    const have = a === 0n ? 0 : N.ndigits(abs(a))
    s += Math.max(guard, p + 2 + String(err).length - have)
    ctx.work(s)
  }
}

/** x = m · 10^t with m in [0.316, 3.16) (no cancellation between ln m and t ln 10): t and m's ratio c / 10^k. */
function split(x: Dec): { t: number; c: bigint; k: number } {
  let t = x.adjusted, k = x.digits - 1
  if (x.coef * 100n >= 316n * N.pow10(k)) { t++; k++ }
  return { t, c: x.coef, k }
}

/** ln x at scale s for a positive finite x, and its error bound in units. */
function lnFixed(x: Dec, s: number, ctx: Ctx): [bigint, number] {
  const { t, c, k } = split(x)
  const w = s + String(Math.abs(t)).length + 3
  const ten = N.pow10(k)
  const z = ((c - ten) * N.pow10(w)) / (c + ten)
  const [at, ea] = atanh(z, w, ctx)
  const [l10, el] = ln10(w, ctx)
  const v = 2n * at + BigInt(t) * l10
  const down = w - s
  return [v / N.pow10(down), Math.ceil((2 * ea + 2 + Math.abs(t) * el) / 10 ** Math.min(down, 15)) + 2]
}

/** A rough log10 |v| of a fixed-point value at scale s (where its first digit is). */
const magnitude = (v: bigint, s: number): number => (v === 0n ? -s : N.ndigits(abs(v)) - 1 - s)

/** ln of a positive finite x, correctly rounded to p digits (unbounded exponent). */
export function lnCR(x: Dec, p: number, ctx: Ctx): Dec {
  if (N.cmp(x, N.ONE) === 0) return N.ZERO
  const [rough] = lnFixed(x, 20, ctx)
  return ziv(p, p + 8 - Math.min(0, magnitude(rough, 20)), (s) => lnFixed(x, s, ctx), ctx)
}

/** log10 of a positive finite x, correctly rounded to p digits; a power of ten exactly. */
export function log10CR(x: Dec, p: number, ctx: Ctx): Dec {
  const [c] = N.stripZeros(x.coef)
  if (c === 1n) {
    const t = x.adjusted
    return new Dec(t < 0 ? 1 : 0, BigInt(Math.abs(t)), 0)
  }
  const [rough] = lnFixed(x, 20, ctx)
  return ziv(p, p + 8 - Math.min(0, magnitude(rough, 20)), (s) => {
    const w = s + 4
    const [l, el] = lnFixed(x, w, ctx)
    const [l10, e10] = ln10(w, ctx)
    // l / l10 with l10 > 2.3 units: the error of l shrinks, that of l10 grows with the quotient (< 10^|t|... bounded by |l|/l10).
    const q = (l * N.pow10(w)) / l10
    const qmag = Math.max(1, N.ndigits(abs(q)) - w + 1)
    return [q / N.pow10(4), Math.ceil((el + e10 * 10 ** Math.min(qmag, 300) + 2) / 1e4) + 2]
  }, ctx)
}

const SQUARINGS = 8

/** exp of a finite x, correctly rounded to p digits (unbounded exponent). */
export function expCR(x: Dec, p: number, ctx: Ctx): Dec {
  if (x.zero) return N.ONE
  // x = n ln 10 + r with |r| about ln 10 / 2 at most: exp(x) = 10^n · exp(r); n from a rough quotient.
  const X20 = fixed(x, 20, ctx), [L20] = ln10(20, ctx)
  const n = (2n * X20 + L20) / (2n * L20) - (2n * X20 + L20 < 0n && (2n * X20 + L20) % (2n * L20) !== 0n ? 1n : 0n)
  const extra = String(abs(n)).length + 2
  const r = ziv(p, p + 8, (s) => {
    const w = s + 6
    const one = N.pow10(w)
    const X = fixed(x, w, ctx)
    const [l10, el] = ln10(w + extra, ctx)
    const rr = X - (n * l10) / N.pow10(extra)
    const errR = 2 + Math.ceil((Math.abs(Number(n)) * el) / 10 ** extra)
    // exp(r / 2^k) by its series, squared k times.
    const rk = rr / BigInt(1 << SQUARINGS)
    let sum = one, term = one, terms = 0
    for (let j = 1n; term !== 0n; j++, terms++) {
      ctx.work(w, w)
      term = (term * rk) / (one * j)
      sum += term
    }
    for (let i = 0; i < SQUARINGS; i++) { ctx.work(w, w); sum = (sum * sum) / one }
    const err = (errR + (terms + 10) * 2 ** SQUARINGS) * 40
    return [sum / N.pow10(6), Math.ceil(err / 1e6) + 2]
  }, ctx)
  return new Dec(r.sign, r.coef, r.exp + Number(n))
}
