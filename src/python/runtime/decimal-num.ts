/**
 * The arithmetic of `decimal.Decimal` (extended profile), as the General Decimal Arithmetic
 * specification and CPython 3.11 define it: a number is a sign, a big-int coefficient and an
 * exponent (exact, never a JS float); each operation computes the exact result (or enough of it)
 * and rounds once to the context's precision with its rounding mode (`fix`), as CPython's
 * `_pydecimal` does step for step. Each condition an operation meets (libmpdec's: Inexact, Rounded,
 * Subnormal, Underflow, Clamped, Overflow, DivisionByZero, InvalidOperation and its kinds) is a bit
 * of `Ctx.status`, and the operation goes on with the specification's result (a NaN, a signed
 * infinity, ...); after it, `settle` adds the bits to the context's flags and raises the trapped ones
 * as CPython's C implementation does: the first trapped signal's class, with the list of the
 * trapped conditions (`[<class 'decimal.Inexact'>, <class 'decimal.Rounded'>]`) as its argument.
 *
 * Work is paid before it is done: every step that builds a big coefficient charges for its digits
 * first (`Ctx.work`), so a huge precision or exponent ends the run on fuel, not on memory.
 */
import { PyRaise } from './errors.ts'
import { PyException, typeByName } from './values.ts'

export type Kind = 'f' | 'F' | 'n' | 'N'

/** A decimal: kind 'f' finite, 'F' infinity, 'n' quiet NaN, 'N' signaling NaN (coef: the NaN's payload). */
export class Dec {
  constructor(readonly sign: 0 | 1, readonly coef: bigint, readonly exp: number, readonly kind: Kind = 'f') {}
  get finite(): boolean { return this.kind === 'f' }
  get nan(): boolean { return this.kind === 'n' || this.kind === 'N' }
  get zero(): boolean { return this.kind === 'f' && this.coef === 0n }
  /** The number of digits of the coefficient. */
  get digits(): number { return ndigits(this.coef) }
  /** The exponent of the most significant digit (CPython's `adjusted()`). */
  get adjusted(): number { return this.exp + this.digits - 1 }
}

export const ROUNDINGS = ['ROUND_DOWN', 'ROUND_HALF_UP', 'ROUND_HALF_EVEN', 'ROUND_CEILING', 'ROUND_FLOOR', 'ROUND_UP', 'ROUND_HALF_DOWN', 'ROUND_05UP'] as const
export type Rounding = (typeof ROUNDINGS)[number]

/** An arithmetic context: CPython's `Context` fields an operation reads, and how to pay for work. */
export interface Ctx {
  prec: number
  rounding: Rounding
  Emin: number
  Emax: number
  capitals: number
  clamp: number
  /** Pay for a big-int step on operands of about `a` and `b` decimal digits, before it is done. */
  work(a: number, b?: number): void
  /** The conditions met by the operation under way (bits below), settled after it. */
  status: number
  /** The flags and traps of the context it was made from (shared by every Ctx made from it). */
  readonly sig: Signals
}

/**
 * The conditions, one bit each, in the order CPython lists them in a trapped signal's argument
 * (the kinds of InvalidOperation first, then the signals).
 */
export const INVALID = 1, CONVERSION = 2, IMPOSSIBLE = 4, UNDEFINED = 8, INVALID_CONTEXT = 16, FLOAT = 32, DIV_ZERO = 64,
  OVERFLOW = 128, UNDERFLOW = 256, SUBNORMAL = 512, INEXACT = 1024, ROUNDED = 2048, CLAMPED = 4096
export const CONDITIONS = ['InvalidOperation', 'ConversionSyntax', 'DivisionImpossible', 'DivisionUndefined', 'InvalidContext', 'FloatOperation', 'DivisionByZero', 'Overflow', 'Underflow', 'Subnormal', 'Inexact', 'Rounded', 'Clamped'] as const
/** The signals (`ctx.traps` keys, in CPython's order) and the condition bits each one covers. */
export const SIGNALS: ReadonlyArray<readonly [string, number]> = [['InvalidOperation', 31], ['FloatOperation', FLOAT], ['DivisionByZero', DIV_ZERO], ['Overflow', OVERFLOW],
  ['Underflow', UNDERFLOW], ['Subnormal', SUBNORMAL], ['Inexact', INEXACT], ['Rounded', ROUNDED], ['Clamped', CLAMPED]]

/** A context's flags (sticky) and traps, as condition bits. CPython's default traps: InvalidOperation, DivisionByZero, Overflow. */
export class Signals {
  flags = 0
  traps = 31 | DIV_ZERO | OVERFLOW
}

/** After an operation: its conditions become flags, and a trapped one raises (CPython's `dec_addstatus`). */
export function settle(ctx: Ctx): void {
  const s = ctx.status
  ctx.status = 0
  ctx.sig.flags |= s
  const t = s & ctx.sig.traps
  if (t !== 0) raiseSignal(t)
}

/** Raise trapped conditions: the first signal's class, the conditions' classes as its argument. */
export function raiseSignal(t: number): never {
  const types = CONDITIONS.flatMap((c, i) => (t & (1 << i) ? [typeByName(c)!] : []))
  const cls = typeByName(SIGNALS.find(([, bits]) => (t & bits) !== 0)![0])!
  const message = `[${types.map((x) => `<class 'decimal.${x.name}'>`).join(', ')}]`
  throw new PyRaise(new PyException(cls, [types], message), message)
}

/** An invalid operation (`cond`: which kind): its result is a quiet NaN. */
export function invalid(ctx: Ctx, cond = INVALID): Dec {
  ctx.status |= cond
  return NAN
}

/**
 * The decimal digits of a coefficient. Writing a big int in decimal takes more than linear time
 * (a quarter second for a million digits), and operations read a coefficient's digits again and
 * again, also of new numbers sharing one (`-x`): the texts of the last few big ones are kept.
 */
export function digitText(c: bigint): string {
  if (c < BIG) return c.toString()
  let t = BIG_TEXTS.get(c)
  if (t === undefined) {
    t = c.toString()
    if (BIG_TEXTS.size >= 8) BIG_TEXTS.delete(BIG_TEXTS.keys().next().value!)
    BIG_TEXTS.set(c, t)
  }
  return t
}
const BIG_TEXTS = new Map<bigint, string>()
const BIG = 10n ** 300n

export const ndigits = (c: bigint): number => (c < 10n ? 1 : c < 10000000000n ? String(c).length : digitText(c).length)

const POW10: bigint[] = [1n]
/** 10 ** k (k >= 0; callers pay for large k). */
export function pow10(k: number): bigint {
  if (k < 64) {
    while (POW10.length <= k) POW10.push(POW10[POW10.length - 1]! * 10n)
    return POW10[k]!
  }
  return 10n ** BigInt(k)
}

/** c without its trailing zeros (at most `max` of them) and how many went: one pass over the digits, not a division per zero. */
export function stripZeros(c: bigint, max = Infinity): [bigint, number] {
  if (c === 0n || max <= 0 || c % 10n !== 0n) return [c, 0]
  const s = digitText(c)
  let k = 0
  while (k < max && s[s.length - 1 - k] === '0') k++
  return [BigInt(s.slice(0, s.length - k)), k]
}

export const ZERO = new Dec(0, 0n, 0)
export const ONE = new Dec(0, 1n, 0)
export const INF = (sign: 0 | 1): Dec => new Dec(sign, 0n, 0, 'F')
export const NAN = new Dec(0, 0n, 0, 'n')

/**
 * Drop the last `k` (>= 1) digits of `c`, rounding as `mode` says for a number of sign `sign`:
 * the kept digits and whether they were rounded up (CPython's `_round_*` functions).
 */
export function dropDigits(c: bigint, k: number, sign: 0 | 1, mode: Rounding): bigint {
  // A coefficient shorter than the digits dropped is below half a unit: one sticky digit stands for it.
  if (k > ndigits(c) + 1) { c = c === 0n ? 0n : 1n; k = 2 }
  const p = pow10(k)
  const q = c / p, r = c - q * p
  lost = r !== 0n
  if (r === 0n) return q
  const half = p / 2n
  let up: boolean
  switch (mode) {
    case 'ROUND_DOWN': up = false; break
    case 'ROUND_UP': up = true; break
    case 'ROUND_HALF_UP': up = r >= half; break
    case 'ROUND_HALF_DOWN': up = r > half; break
    case 'ROUND_HALF_EVEN': up = r > half || (r === half && (q & 1n) === 1n); break
    case 'ROUND_CEILING': up = sign === 0; break
    case 'ROUND_FLOOR': up = sign === 1; break
    case 'ROUND_05UP': { const d = q % 10n; up = d === 0n || d === 5n; break }
  }
  return up ? q + 1n : q
}

/** Whether the last `dropDigits` (or `rescale`) dropped a digit other than 0 (the result is inexact). */
let lost = false
export const lostDigits = (): boolean => lost

/** CPython's `_rescale(exp, rounding)`: the same value at exponent `exp` (digits added or rounded away). */
export function rescale(x: Dec, exp: number, mode: Rounding, ctx: Ctx): Dec {
  lost = false
  if (x.coef === 0n) return new Dec(x.sign, 0n, exp)
  if (x.exp >= exp) {
    ctx.work(x.digits + x.exp - exp)
    return new Dec(x.sign, x.coef * pow10(x.exp - exp), exp)
  }
  if (x.digits > 64) ctx.work(x.digits)
  return new Dec(x.sign, dropDigits(x.coef, exp - x.exp, x.sign, mode), exp)
}

/**
 * CPython's rounding of a result to the context (libmpdec's `mpd_qfinalize`): past Emax it overflows,
 * with clamp=1 an exponent above Etop folds down (Clamped), below Emin it is subnormal (rounded at
 * Etiny: Underflow when digits are lost), else it is rounded to the precision (Rounded; Inexact
 * when a digit other than 0 goes).
 */
export function fix(x: Dec, ctx: Ctx): Dec {
  if (!x.finite) return x
  const Etiny = ctx.Emin - ctx.prec + 1, Etop = ctx.Emax - ctx.prec + 1
  if (x.coef === 0n) {
    const expMax = ctx.clamp ? Etop : ctx.Emax
    const e = Math.min(Math.max(x.exp, Etiny), expMax)
    if (e === x.exp) return x
    ctx.status |= CLAMPED
    return new Dec(x.sign, 0n, e)
  }
  const digits = x.digits, adjusted = x.exp + digits - 1
  if (adjusted > ctx.Emax) return overflow(x.sign, ctx)
  if (ctx.clamp && x.exp > Etop) {
    ctx.work(digits + x.exp - Etop)
    // Folded down below Emin (a tiny Emax and precision): also subnormal.
    ctx.status |= adjusted < ctx.Emin ? CLAMPED | SUBNORMAL : CLAMPED
    return new Dec(x.sign, x.coef * pow10(x.exp - Etop), Etop)
  }
  if (adjusted < ctx.Emin) {
    ctx.status |= SUBNORMAL
    if (x.exp >= Etiny) return x
    if (digits > 64) ctx.work(digits)
    const c = dropDigits(x.coef, Etiny - x.exp, x.sign, ctx.rounding)
    ctx.status |= ROUNDED
    if (lost) ctx.status |= c === 0n ? INEXACT | UNDERFLOW | CLAMPED : INEXACT | UNDERFLOW
    return new Dec(x.sign, c, Etiny)
  }
  if (digits <= ctx.prec) return x
  // Dropping digits divides by 10^k: paid by the coefficient's size.
  if (digits > 64) ctx.work(digits)
  let c = dropDigits(x.coef, digits - ctx.prec, x.sign, ctx.rounding), e = x.exp + digits - ctx.prec
  ctx.status |= lost ? ROUNDED | INEXACT : ROUNDED
  if (ndigits(c) > ctx.prec) {
    c /= 10n
    if (++e > Etop) return overflow(x.sign, ctx)
  }
  return new Dec(x.sign, c, e)
}

/** A result past Emax: an infinity, or the largest number when rounding toward zero (CPython's Overflow). */
function overflow(sign: 0 | 1, ctx: Ctx): Dec {
  ctx.status |= OVERFLOW | INEXACT | ROUNDED
  const r = ctx.rounding
  const toInf = r === 'ROUND_HALF_UP' || r === 'ROUND_HALF_EVEN' || r === 'ROUND_HALF_DOWN' || r === 'ROUND_UP' || (r === 'ROUND_CEILING' ? sign === 0 : r === 'ROUND_FLOOR' && sign === 1)
  if (toInf) return INF(sign)
  ctx.work(ctx.prec)
  return new Dec(sign, pow10(ctx.prec) - 1n, ctx.Emax - ctx.prec + 1)
}

/** A NaN operand's result, else undefined: a signaling NaN is InvalidOperation and quieted (libmpdec's `mpd_qcheck_nans`). */
export function nanOf(a: Dec, b: Dec | undefined, ctx: Ctx): Dec | undefined {
  let n: Dec
  if (a.kind === 'N') { ctx.status |= INVALID; n = a }
  else if (b?.kind === 'N') { ctx.status |= INVALID; n = b }
  else if (a.kind === 'n') n = a
  else if (b?.kind === 'n') n = b
  else return undefined
  // A payload longer than the precision allows keeps its last digits (libmpdec's `_mpd_fix_nan`).
  const room = ctx.prec - ctx.clamp
  const keep = n.coef === 0n || n.digits <= room
  return n.kind === 'n' && keep ? n : new Dec(n.sign, keep ? n.coef : room > 0 ? n.coef % pow10(room) : 0n, 0, 'n')
}

/** CPython's `_normalize`: line up two operands, shortening the much smaller one to a sticky digit. */
function align(a: Dec, b: Dec, prec: number, ctx: Ctx): [bigint, bigint, number] {
  const [hi, lo] = a.exp < b.exp ? [b, a] : [a, b]
  let loCoef = lo.coef, loExp = lo.exp
  const e = hi.exp + Math.min(-1, hi.digits - prec - 2)
  if (lo.digits + lo.exp - 1 < e) { loCoef = 1n; loExp = e }
  ctx.work(hi.digits + hi.exp - loExp)
  const hiCoef = hi.coef * pow10(hi.exp - loExp)
  return a.exp < b.exp ? [loCoef, hiCoef, loExp] : [hiCoef, loCoef, loExp]
}

export function add(a: Dec, b: Dec, ctx: Ctx): Dec {
  if (!a.finite || !b.finite) {
    const n = nanOf(a, b, ctx)
    if (n) return n
    if (a.kind === 'F') {
      if (b.kind === 'F' && a.sign !== b.sign) return invalid(ctx)
      return a
    }
    return b
  }
  let exp = Math.min(a.exp, b.exp)
  const negZero: 0 | 1 = ctx.rounding === 'ROUND_FLOOR' && a.sign !== b.sign ? 1 : 0
  if (a.zero && b.zero) return fix(new Dec(negZero || (Math.min(a.sign, b.sign) as 0 | 1), 0n, exp), ctx)
  if (a.zero || b.zero) {
    const x = a.zero ? b : a
    exp = Math.max(exp, x.exp - ctx.prec - 1)
    return fix(rescale(x, exp, ctx.rounding, ctx), ctx)
  }
  const [ca, cb, e] = align(a, b, ctx.prec, ctx)
  const s = (a.sign ? -ca : ca) + (b.sign ? -cb : cb)
  if (s === 0n) return fix(new Dec(negZero, 0n, exp), ctx)
  return fix(new Dec(s < 0n ? 1 : 0, s < 0n ? -s : s, e), ctx)
}

export const negate = (x: Dec): Dec => new Dec(x.sign ? 0 : 1, x.coef, x.exp, x.kind)
export const absolute = (x: Dec): Dec => (x.sign ? new Dec(0, x.coef, x.exp, x.kind) : x)

export function sub(a: Dec, b: Dec, ctx: Ctx): Dec {
  if (b.nan) return nanOf(a, b, ctx)!
  return add(a, negate(b), ctx)
}

export function mul(a: Dec, b: Dec, ctx: Ctx): Dec {
  const sign = (a.sign ^ b.sign) as 0 | 1
  if (!a.finite || !b.finite) {
    const n = nanOf(a, b, ctx)
    if (n) return n
    if (a.zero || b.zero) return invalid(ctx)
    return INF(sign)
  }
  if (a.zero || b.zero) return fix(new Dec(sign, 0n, a.exp + b.exp), ctx)
  ctx.work(a.digits, b.digits)
  return fix(new Dec(sign, a.coef * b.coef, a.exp + b.exp), ctx)
}

/** a / b, correctly rounded (CPython's `__truediv__`). */
export function div(a: Dec, b: Dec, ctx: Ctx): Dec {
  const sign = (a.sign ^ b.sign) as 0 | 1
  if (!a.finite || !b.finite) {
    const n = nanOf(a, b, ctx)
    if (n) return n
    if (a.kind === 'F' && b.kind === 'F') return invalid(ctx)
    if (a.kind === 'F') return INF(sign)
    // x / Infinity: a zero at the smallest exponent, Clamped (libmpdec).
    ctx.status |= CLAMPED
    return new Dec(sign, 0n, ctx.Emin - ctx.prec + 1)
  }
  if (b.zero) return byZero(a, sign, ctx)
  let coef: bigint, exp: number
  if (a.zero) { coef = 0n; exp = a.exp - b.exp }
  else {
    const shift = b.digits - a.digits + ctx.prec + 1
    exp = a.exp - b.exp - shift
    ctx.work(a.digits + Math.max(shift, 0), b.digits + Math.max(-shift, 0))
    const [x, y] = shift >= 0 ? [a.coef * pow10(shift), b.coef] : [a.coef, b.coef * pow10(-shift)]
    coef = x / y
    if (x - coef * y !== 0n) {
      // Inexact: a last digit of 0 or 5 would read as an exact half or zero when rounded; nudge it.
      if (coef % 5n === 0n) coef += 1n
    } else {
      const [c, k] = stripZeros(coef, a.exp - b.exp - exp)
      coef = c
      exp += k
    }
  }
  return fix(new Dec(sign, coef, exp), ctx)
}

/** The integer quotient (toward zero) and remainder of finite a, b (b not 0): CPython's `_divide`. */
function divide(a: Dec, b: Dec, ctx: Ctx): [Dec, Dec] {
  const sign = (a.sign ^ b.sign) as 0 | 1
  const ideal = Math.min(a.exp, b.exp)
  const expdiff = a.adjusted - b.adjusted
  if (a.zero || expdiff <= -2) return [new Dec(sign, 0n, 0), rescale(a, ideal, ctx.rounding, ctx)]
  if (expdiff <= ctx.prec) {
    ctx.work(a.digits + Math.max(a.exp - b.exp, 0), b.digits + Math.max(b.exp - a.exp, 0))
    const x = a.exp >= b.exp ? a.coef * pow10(a.exp - b.exp) : a.coef
    const y = b.exp >= a.exp ? b.coef * pow10(b.exp - a.exp) : b.coef
    const q = x / y
    if (q < pow10(ctx.prec)) return [new Dec(sign, q, 0), new Dec(a.sign, x - q * y, ideal)]
  }
  return [invalid(ctx, IMPOSSIBLE), NAN]
}

/** x / 0: DivisionByZero, an infinity with the quotient's sign; 0 / 0: DivisionUndefined, NaN. */
function byZero(a: Dec, sign: 0 | 1, ctx: Ctx): Dec {
  if (a.zero) return invalid(ctx, UNDEFINED)
  ctx.status |= DIV_ZERO
  return INF(sign)
}

/** a // b (truncated toward zero, as CPython's Decimal). */
export function floorDiv(a: Dec, b: Dec, ctx: Ctx): Dec {
  const sign = (a.sign ^ b.sign) as 0 | 1
  if (!a.finite || !b.finite) {
    const n = nanOf(a, b, ctx)
    if (n) return n
    if (a.kind === 'F') return b.kind === 'F' ? invalid(ctx) : INF(sign)
    return new Dec(sign, 0n, 0)
  }
  if (b.zero) return byZero(a, sign, ctx)
  const q = divide(a, b, ctx)[0]
  return q.nan ? q : fix(q, ctx)
}

/** a % b (the sign of a, as CPython's Decimal). */
export function mod(a: Dec, b: Dec, ctx: Ctx): Dec {
  if (!a.finite || !b.finite) {
    const n = nanOf(a, b, ctx)
    if (n) return n
    if (a.kind === 'F') return invalid(ctx)
    return fix(a, ctx)
  }
  if (b.zero) return invalid(ctx, a.zero ? UNDEFINED : INVALID)
  const r = divide(a, b, ctx)[1]
  return r.nan ? r : fix(r, ctx)
}

/** -1, 0, 1 for finite or infinite a, b (not NaN). */
export function cmp(a: Dec, b: Dec): number {
  if (!a.finite || !b.finite) {
    // An infinity against anything: only its sign and the other's kind matter.
    const ia = a.finite ? 0 : a.sign ? -1 : 1, ib = b.finite ? 0 : b.sign ? -1 : 1
    return ia === ib ? 0 : ia < ib ? -1 : 1
  }
  if (a.zero) return b.zero ? 0 : b.sign ? 1 : -1
  if (b.zero) return a.sign ? -1 : 1
  if (a.sign !== b.sign) return a.sign ? -1 : 1
  const s = a.sign ? -1 : 1
  if (a.adjusted !== b.adjusted) return a.adjusted > b.adjusted ? s : -s
  // Same magnitude: compare the coefficients at a common exponent (at most the longer one's digits).
  const e = Math.min(a.exp, b.exp)
  const x = a.coef * pow10(a.exp - e), y = b.coef * pow10(b.exp - e)
  return x === y ? 0 : x > y ? s : -s
}

/** x.quantize(q, rounding): x at q's exponent (CPython's checks against the context). */
export function quantize(x: Dec, q: Dec, mode: Rounding, ctx: Ctx): Dec {
  if (!x.finite || !q.finite) {
    const n = nanOf(x, q, ctx)
    if (n) return n
    if (x.kind === 'F' && q.kind === 'F') return x
    return invalid(ctx)
  }
  if (!(ctx.Emin - ctx.prec + 1 <= q.exp && q.exp <= ctx.Emax)) return invalid(ctx)
  if (x.zero) return fix(new Dec(x.sign, 0n, q.exp), ctx)
  if (x.adjusted > ctx.Emax || x.adjusted - q.exp + 1 > ctx.prec) return invalid(ctx)
  const ans = rescale(x, q.exp, mode, ctx)
  if (ans.adjusted > ctx.Emax || ans.digits > ctx.prec) return invalid(ctx)
  if (ans.exp > x.exp) ctx.status |= lost ? INEXACT | ROUNDED : ROUNDED
  if (!ans.zero && ans.adjusted < ctx.Emin) ctx.status |= SUBNORMAL
  return fix(ans, ctx)
}

/** `x.sqrt()`, correctly rounded (half even) to the context's precision (CPython's algorithm). */
export function sqrt(x: Dec, ctx: Ctx): Dec {
  if (!x.finite) {
    const n = nanOf(x, undefined, ctx)
    if (n) return n
    if (x.sign === 0) return x
  }
  if (x.zero) return fix(new Dec(x.sign, 0n, Math.floor(x.exp / 2)), ctx)
  if (x.sign) return invalid(ctx)
  const prec = ctx.prec + 1
  let e = x.exp >> 1, c: bigint, l: number
  if (x.exp & 1) { c = x.coef * 10n; l = (x.digits >> 1) + 1 } else { c = x.coef; l = (x.digits + 1) >> 1 }
  const shift = prec - l
  let exact: boolean
  ctx.work(2 * prec + x.digits, 2 * prec)
  if (shift >= 0) { c *= pow10(2 * shift); exact = true } else { const p = pow10(-2 * shift), q = c / p; exact = c - q * p === 0n; c = q }
  e -= shift
  let n = pow10(prec)
  for (;;) {
    const q = c / n
    if (n <= q) break
    n = (n + q) >> 1n
  }
  exact = exact && n * n === c
  if (exact) {
    if (shift >= 0) n /= pow10(shift)
    else n *= pow10(-shift)
    e += shift
  } else if (n % 5n === 0n) n += 1n
  return fixIn(new Dec(0, n, e), { ...ctx, rounding: 'ROUND_HALF_EVEN' }, ctx)
}

/** `fix` in a context derived from ctx (`{ ...ctx, rounding }`): its conditions are ctx's. */
export function fixIn(x: Dec, derived: Ctx, ctx: Ctx): Dec {
  const r = fix(x, derived)
  ctx.status |= derived.status
  return r
}

/** `x.normalize()`: the shortest coefficient (trailing zeros stripped), rounded to the context. */
export function normalize(x: Dec, ctx: Ctx): Dec {
  if (!x.finite) return nanOf(x, undefined, ctx) ?? x
  const d = fix(x, ctx)
  if (!d.finite) return d
  if (d.zero) return new Dec(d.sign, 0n, 0)
  const expMax = ctx.clamp ? ctx.Emax - ctx.prec + 1 : ctx.Emax
  const [c, k] = stripZeros(d.coef, expMax - d.exp)
  return new Dec(d.sign, c, d.exp + k)
}

/** x rounded to `places` significant digits (CPython's `_round`, for format specs). */
export function roundDigits(x: Dec, places: number, mode: Rounding, ctx: Ctx): Dec {
  if (!x.finite || x.zero) return x
  let ans = rescale(x, x.adjusted + 1 - places, mode, ctx)
  if (ans.adjusted !== x.adjusted) ans = rescale(ans, ans.adjusted + 1 - places, mode, ctx)
  return ans
}

/**
 * x ** n for an integral n, as libmpdec computes it: left-to-right binary powering, each product
 * rounded half even to the context's precision plus the exponent's digits and 2 (one more, on
 * 1/x, for a negative n), then rounded once more to the context.
 */
export function powInt(x: Dec, n: bigint, ctx: Ctx): Dec {
  const odd = (n & 1n) === 1n
  const sign = (x.sign && odd ? 1 : 0) as 0 | 1
  if (!x.finite) {
    const nn = nanOf(x, undefined, ctx)
    if (nn) return nn
    if (n === 0n) return ONE
    return n > 0n ? INF(sign) : new Dec(sign, 0n, 0)
  }
  // x ** 0 is 1 as it is, not rounded into the context (libmpdec).
  if (n === 0n) return x.zero ? invalid(ctx) : ONE
  if (x.zero) return n > 0n ? new Dec(sign, 0n, 0) : INF(sign)
  const m = n < 0n ? -n : n
  const work: Ctx = { ...ctx, prec: ctx.prec + ndigits(m) + 2 + (n < 0n ? 1 : 0), rounding: 'ROUND_HALF_EVEN', clamp: 0 }
  // The result's size is known before any product: past the exponent limits it overflows or underflows.
  const mag = Number(m) * (x.adjusted + Math.log10(Number(digitText(x.coef).slice(0, 15)) / 10 ** (Math.min(x.digits, 15) - 1) || 1))
  const huge = new Dec(sign, 1n, ctx.Emax + 1)
  if (Number.isFinite(mag) && (n > 0n ? mag : -mag) > ctx.Emax + 1) return fix(huge, ctx)
  let base = new Dec(0, x.coef, x.exp)
  if (n < 0n) base = div(ONE, base, work)
  let r = base
  for (let bit = BigInt(m.toString(2).length - 2); bit >= 0n; bit--) {
    r = mul(r, r, work)
    if ((m >> bit) & 1n) r = mul(r, base, work)
    if (r.zero || r.kind === 'F') break
  }
  // Every condition of the steps is the result's (libmpdec's `_mpd_qpow_int`); past Emax, an overflow in the context.
  ctx.status |= work.status
  return fix(r.kind === 'F' ? huge : new Dec(sign, r.coef, r.exp), ctx)
}

/** CPython's `__str__` (to-scientific-string): `0.000001`, `1E-7`, `1E+2`, `-Infinity`, `NaN`; `eng`: exponents in threes. */
export function sciText(d: Dec, capitals: number, eng = false): string {
  const sign = d.sign ? '-' : ''
  if (d.kind === 'F') return `${sign}Infinity`
  if (d.nan) return `${sign}${d.kind === 'N' ? 'sNaN' : 'NaN'}${d.coef ? String(d.coef) : ''}`
  const digits = digitText(d.coef)
  const left = d.exp + digits.length
  const dot = d.exp <= 0 && left > -6 ? left : !eng ? 1 : d.coef === 0n ? ((left + 1) % 3 + 3) % 3 - 1 : ((left - 1) % 3 + 3) % 3 + 1
  let int: string, frac: string
  if (dot <= 0) { int = '0'; frac = '.' + '0'.repeat(-dot) + digits }
  else if (dot >= digits.length) { int = digits + '0'.repeat(dot - digits.length); frac = '' }
  else { int = digits.slice(0, dot); frac = '.' + digits.slice(dot) }
  const e = left === dot ? '' : `${capitals ? 'E' : 'e'}${left - dot >= 0 ? '+' : ''}${left - dot}`
  return sign + int + frac + e
}
