/**
 * `decimal.Decimal` (extended profile), as CPython 3.11's: exact decimal numbers (sign, big-int
 * coefficient, exponent: decimal-num.ts) rounded to the run's context (`getcontext()`: precision 28,
 * ROUND_HALF_EVEN; `getcontext().prec = n`, `localcontext()` in a `with`), built from text, ints,
 * other decimals and floats (exactly); arithmetic with ints and decimals, comparisons with ints,
 * floats and fractions (exact), hashing and dict keys shared with equal ints, floats and fractions,
 * `str`/`repr`/format specs as CPython's, `quantize` with the rounding constants. Each operation
 * records its conditions in the context's flags and raises the trapped ones (decimal-num.ts'
 * `settle`; by default InvalidOperation, DivisionByZero and Overflow), with CPython's messages.
 * Arithmetic with a float is CPython's TypeError; a float in `Decimal(f)` or an ordering comparison
 * is FloatOperation (an equality comparison only flags it), as CPython's.
 */
import { PyDict, PyNamedTuple, PyNamedTupleType, PyNumeric, mkFloat, mkInt, tuple, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { floatOf, intOf, isFloatValue, isIntValue } from './numbers.ts'
import { bigWorkUnits, payChars, type PyRun } from './fuel.ts'
import { HASH_MOD } from './set-order.ts'
import { PyFraction } from './fractions.ts'
import { asciiDigits } from './text.ts'
import * as Q from './rational.ts'
import * as N from './decimal-num.ts'
import { Dec, settle, type Ctx, type Rounding } from './decimal-num.ts'
import { formatDecimal } from './decimal-format.ts'
import { PySignalDict } from './decimal-signals.ts'
import { sciText } from './decimal-num.ts'
import { expCR, lnCR, log10CR } from './decimal-transcend.ts'
import { classify, contextOperation } from './decimal-context-ops.ts'
import { moreDecimal } from './decimal-more.ts'
import { CONTEXT_FUNCTIONS, DIGIT_BITS, MAX_EMAX, MAX_PREC, PyContext, contextManagerMethod, contextOf, ctxOf, roundingOf } from './decimal-context.ts'


const ndigitsOf = (x: bigint): number => N.ndigits(x < 0n ? -x : x)

let nanSerial = 0
const SSIZE_MAX = 2n ** 63n - 1n
const BEYOND = 4 * MAX_EMAX

export class PyDecimal extends PyNumeric {
  readonly typeName = 'decimal.Decimal'
  private nanId = 0
  /** `rt`: the run that made it, whose context a comparison flags (comparisons are not given the run). */
  constructor(readonly d: Dec, readonly rt?: PyRun) {
    super()
  }

  override repr(): string {
    return `Decimal('${this.str()}')`
  }

  /** As CPython's: the exponent's letter is the current context's `capitals` (`1e+5` when it is 0). */
  str(): string {
    return sciText(this.d, this.rt === undefined ? 1 : contextOf(this.rt).capitals)
  }

  truth(): boolean {
    return !this.d.zero
  }

  /** The exact ratio of a finite decimal (10 ** |exp| paid for first when the run is known). */
  ratio(rt?: PyRun): Q.Ratio {
    const { sign, coef, exp } = this.d
    rt?.charge(bigWorkUnits((this.d.digits + Math.abs(exp)) * DIGIT_BITS))
    const n = sign ? -coef : coef
    return exp >= 0 ? Q.fromInt(n * N.pow10(exp)) : Q.ratio(n, N.pow10(-exp))
  }

  hashKey(): unknown {
    const d = this.d
    if (d.kind === 'N') typeError('Cannot hash a signaling NaN value')
    if (d.kind === 'n') return `\u0001DN${this.nanId || (this.nanId = ++nanSerial)}`
    if (d.kind === 'F') return d.sign ? -Infinity : Infinity
    if (d.coef === 0n) return 0
    const [c, k] = N.stripZeros(d.coef)
    const e = d.exp + k
    // Within these bounds it may equal an int, a float or a fraction: it shares their key.
    if (e <= 4300 && e >= -1100) return new PyDecimal(new Dec(d.sign, c, e)).fraction().hashKey()
    return `\u0001D${d.sign ? '-' : ''}${c}e${e}`
  }

  private fraction(): PyFraction {
    return PyFraction.of(this.ratio())
  }

  compareTo(other: unknown, ordering = false): number | undefined {
    const a = this.d
    let b: Dec
    if (other instanceof PyDecimal) b = other.d
    else if (isIntValue(other)) b = decOfInt(intOf(other))
    else if (isFloatValue(other)) {
      // CPython: FloatOperation, raised when trapped only by an ordering comparison.
      this.condition(N.FLOAT, other, ordering)
      b = decOfFloat(floatOf(other))
    } else if (other instanceof PyFraction) {
      if (a.nan) return this.unordered(ordering)
      if (!a.finite) return a.sign ? -1 : 1
      // Far apart in magnitude: decided without building 10 ** |exp| (at most the fraction's size is built).
      const mag = ndigitsOf(other.n) - ndigitsOf(other.d)
      if (!a.zero && other.n !== 0n && Math.abs(a.adjusted - mag) > 2) {
        if (a.sign !== (other.n < 0n ? 1 : 0)) return a.sign ? -1 : 1
        return (a.adjusted > mag) !== (a.sign === 1) ? 1 : -1
      }
      if (a.zero || other.n === 0n) return Q.cmp(a.zero ? Q.ZERO : Q.fromInt(a.sign ? -1n : 1n), other)
      return Q.cmp(this.ratio(), other)
    } else return undefined
    if (a.nan || b.nan) {
      if (a.kind === 'N' || b.kind === 'N') this.condition(N.INVALID, other, true)
      return this.unordered(ordering, other)
    }
    return N.cmp(a, b)
  }

  /** A comparison with a NaN: unequal; ordering it is InvalidOperation (unordered when not trapped). */
  private unordered(ordering: boolean, other?: unknown): number {
    if (ordering) this.condition(N.INVALID, other, true)
    return NaN
  }

  /** A condition of a comparison, in the context of the run that made either operand (raised when trapped and `trap`). */
  private condition(bits: number, other: unknown, trap: boolean): void {
    const rt = this.rt ?? (other instanceof PyDecimal ? other.rt : undefined)
    // No run known (a decimal made by the runtime): CPython's default traps, no flags to keep.
    if (rt === undefined) { if (trap && bits & N.INVALID) N.raiseSignal(bits); return }
    const ctx = ctxOf(rt)
    if (trap) { ctx.status |= bits; settle(ctx) } else contextOf(rt).sig.flags |= bits
  }

  binop(rtu: unknown, op: string, other: unknown, reflected: boolean): unknown {
    const rt = rtu as PyRun
    let o: Dec
    if (other instanceof PyDecimal) o = other.d
    else if (isIntValue(other)) o = decOfInt(intOf(other))
    else return undefined
    const [a, b] = reflected ? [o, this.d] : [this.d, o]
    const ctx = ctxOf(rt)
    const r = decimalArith(op, a, b, ctx)
    return r === undefined ? undefined : settled(rt, ctx, r)
  }

  toFloat(): number {
    const d = this.d
    if (d.kind === 'N') valueError('cannot convert signaling NaN to float')
    if (d.nan) return NaN
    if (d.kind === 'F') return d.sign ? -Infinity : Infinity
    return Number(sciText(d, 1))
  }

  unary(op: string, nd?: unknown, rtu?: unknown): unknown {
    const rt = rtu as PyRun | undefined
    const d = this.d
    switch (op) {
      case 'neg': case 'pos': case 'abs': {
        const ctx = ctxOf(rt)
        return settled(rt, ctx, decimalSign(op, d, ctx))
      }
      case 'int': case 'trunc': return this.integer('ROUND_DOWN', rt)
      case 'floor': return this.integer('ROUND_FLOOR', rt)
      case 'ceil': return this.integer('ROUND_CEILING', rt)
      case 'float': return mkFloat(this.toFloat())
      case 'round': {
        if (nd === undefined || nd === null) return this.integer('ROUND_HALF_EVEN', rt)
        if (!isIntValue(nd)) typeError('optional arg must be an integer')
        const big = BigInt(intOf(nd))
        if (big > SSIZE_MAX || big < -SSIZE_MAX - 1n) raise('OverflowError', 'Python int too large to convert to C ssize_t')
        const n = Number(big)
        const ctx = ctxOf(rt)
        return settled(rt, ctx, N.quantize(d, new Dec(0, 1n, -n), ctx.rounding, ctx))
      }
      case 'hash': return mkInt(hash(d))
    }
    return undefined
  }

  /** int(d), math.floor/ceil(d), round(d): CPython's errors for NaN and infinity. */
  private integer(mode: Rounding, rt: PyRun | undefined): unknown {
    const d = this.d
    if (d.nan) valueError('cannot convert NaN to integer')
    if (d.kind === 'F') raise('OverflowError', 'cannot convert Infinity to integer')
    const ctx = ctxOf(rt)
    const r = d.exp >= 0 ? d : N.rescale(d, 0, mode, ctx)
    ctx.work(r.digits + r.exp)
    const n = r.coef * N.pow10(r.exp)
    return mkInt(r.sign ? -n : n)
  }

  method(rtu: unknown, name: string, a: unknown[], kw: PyDict | null): unknown {
    return decimalMethod(rtu as PyRun, this, name, a, kw)
  }

  attr(name: string): unknown {
    if (name === 'real') return this
    if (name === 'imag') return new PyDecimal(N.ZERO, this.rt)
    return undefined
  }

  override format(rt: PyRun, spec: string): string {
    const c = contextOf(rt)
    return formatDecimal(this.d, spec, c.of(rt), (n) => payChars(rt, n))
  }
}

/** `a op b` of two decimals in ctx (its conditions not yet settled); undefined for another operator. */
export function decimalArith(op: string, a: Dec, b: Dec, ctx: Ctx): Dec | undefined {
  switch (op) {
    case '+': return N.add(a, b, ctx)
    case '-': return N.sub(a, b, ctx)
    case '*': return N.mul(a, b, ctx)
    case '/': return N.div(a, b, ctx)
    case '//': return N.floorDiv(a, b, ctx)
    case '%': return N.mod(a, b, ctx)
    case '**': return power(a, b, ctx)
  }
  return undefined
}

/** `-d`, `+d`, `abs(d)` in ctx: a zero loses its sign unless rounding toward -inf (CPython's __neg__/__pos__/__abs__). */
export function decimalSign(op: 'neg' | 'pos' | 'abs', d: Dec, ctx: Ctx): Dec {
  const sign: 0 | 1 = d.zero && ctx.rounding !== 'ROUND_FLOOR' ? 0 : op === 'neg' ? (d.sign ? 0 : 1) : op === 'pos' ? d.sign : 0
  return d.nan ? nanResult(d, ctx) : N.fix(new Dec(sign, d.coef, d.exp, d.kind), ctx)
}

/** A result settled in its context: the conditions flagged, the trapped ones raised. */
export function settled(rt: PyRun | undefined, ctx: Ctx, r: Dec): PyDecimal {
  if (ctx.status !== 0) settle(ctx)
  return new PyDecimal(r, rt)
}

/** A NaN operand's result (a signaling one is InvalidOperation, quieted). */
const nanResult = (d: Dec, ctx: Ctx): Dec => N.nanOf(d, undefined, ctx)!

/** `x.exp()`, `x.ln()`, `x.log10()`: correctly rounded, half even whatever the context's rounding (as libmpdec). */
function transcendental(name: 'exp' | 'ln' | 'log10', d: Dec, ctx: Ctx): Dec {
  if (d.nan) return nanResult(d, ctx)
  const even: Ctx = { ...ctx, rounding: 'ROUND_HALF_EVEN' }
  if (name === 'exp') {
    if (d.kind === 'F') return d.sign ? N.ZERO : d
    // exp(0) is 1 as it is, not rounded into the context (libmpdec).
    if (d.zero) return N.ONE
    // Far out of range: decided before any digit is computed.
    const est = d.adjusted > 20 ? Infinity : Math.abs(Number(sciText(d, 1)))
    if (est > (ctx.Emax + 2) * Math.LN10 + 10 && !d.sign) return N.fixIn(new Dec(0, 1n, ctx.Emax + 1), even, ctx)
    ctx.status |= N.INEXACT | N.ROUNDED
    if (est > (ctx.prec - ctx.Emin + 2) * Math.LN10 + 10 && d.sign) return N.fixIn(new Dec(0, 1n, ctx.Emin - ctx.prec), even, ctx)
    return inexact((p) => expCR(d, p, ctx), even, ctx)
  }
  if (d.zero) return N.INF(1)
  if (d.sign) return N.invalid(ctx)
  if (d.kind === 'F') return d
  // Exact only for ln(1) and the log10 of a power of ten (libmpdec's results are otherwise inexact).
  const [c, k] = N.stripZeros(d.coef)
  const compute = (p: number): Dec => (name === 'ln' ? lnCR(d, p, ctx) : log10CR(d, p, ctx))
  if (c === 1n && (name === 'log10' || d.exp + k === 0)) return N.fixIn(compute(ctx.prec), even, ctx)
  ctx.status |= N.INEXACT | N.ROUNDED
  return inexact(compute, even, ctx)
}

/**
 * An inexact result, correctly rounded by `compute(p)` to p digits, in the context. libmpdec rounds
 * the exact value once: a subnormal one is computed again to the digits left above Etiny (not
 * rounded twice), and is Underflow.
 */
function inexact(compute: (p: number) => Dec, even: Ctx, ctx: Ctx): Dec {
  let r = compute(ctx.prec)
  if (r.finite && !r.zero && r.adjusted < ctx.Emin) {
    const p = r.adjusted - (ctx.Emin - ctx.prec + 1) + 1
    if (p >= 1 && p < ctx.prec) r = compute(p)
    ctx.status |= N.UNDERFLOW | N.SUBNORMAL
  }
  return N.fixIn(r, even, ctx)
}

/** CPython's exponent limits on a 64-bit build, for the steps of a power (libmpdec's maximum context). */
const MAX_CTX = (ctx: Ctx, prec: number): Ctx => ({ ...ctx, prec, rounding: 'ROUND_HALF_EVEN', Emax: MAX_EMAX, Emin: -MAX_EMAX, clamp: 0, status: 0 })

/** a ** b: an integral or infinite b exactly as CPython; another b as libmpdec's exp(b · ln a), each step at the precision + 23 digits. */
function power(a: Dec, b: Dec, ctx: Ctx): Dec {
  if (b.nan || a.nan) return N.add(a, b, ctx)
  if (b.kind === 'F') {
    // CPython's rules for an infinite exponent: by the base's size against 1.
    if (a.zero) return b.sign ? N.INF(0) : N.ZERO
    if (a.sign) return N.invalid(ctx)
    if (a.kind === 'F') return b.sign ? N.ZERO : N.INF(0)
    const c = N.cmp(a, N.ONE)
    if (c === 0) {
      // 1 ** ±Infinity: one at the full precision, inexact (libmpdec).
      ctx.status |= N.INEXACT | N.ROUNDED
      return new Dec(0, N.pow10(ctx.prec - 1), 1 - ctx.prec)
    }
    return (c > 0) === (b.sign === 0) ? N.INF(0) : N.ZERO
  }
  let integral = true
  if (b.exp < 0 && !b.zero) {
    const whole = N.rescale(b, 0, 'ROUND_DOWN', ctx)
    if (N.cmp(whole, b) !== 0) integral = false
    else b = whole
  }
  if (a.finite && !a.zero && !b.zero && (integral || !a.sign)) {
    const certain = powBounds(a, b, integral && (b.coef & 1n) === 1n && b.exp === 0 ? a.sign : 0, ctx)
    if (certain) return certain
  }
  if (!integral) return realPower(a, b, ctx)
  ctx.work(b.digits + Math.max(b.exp, 0))
  const n = b.coef * N.pow10(Math.max(b.exp, 0))
  return N.powInt(a, b.sign ? -n : n, ctx)
}

/** Digits of |n| (libmpdec's `mpd_exp_digits`). */
const expDigits = (n: number): number => String(Math.abs(n)).length

/**
 * A power certain to overflow or underflow, decided from the operands' exponents alone: the result
 * rounded in the context from just past its range (libmpdec's `_qcheck_pow_bounds`); else undefined.
 */
function powBounds(x: Dec, y: Dec, sign: 0 | 1, ctx: Ctx): Dec | undefined {
  const t = x.adjusted
  let zeta: number
  if (t > 0) zeta = expDigits(t) - 1
  else if (t < -1) zeta = expDigits(t + 1) - 1
  else {
    // Near 1: by the size of |x| - 1.
    const d = N.sub(N.absolute(x), N.ONE, MAX_CTX(ctx, Number.MAX_SAFE_INTEGER))
    if (d.zero) return undefined
    zeta = t === 0 ? d.adjusted - 2 : d.adjusted - 1
  }
  const theta = y.adjusted
  const grows = (t < 0 ? 1 : 0) === y.sign
  const bound = expDigits(grows ? ctx.Emax : ctx.Emin - ctx.prec + 1)
  if (bound >= zeta + theta) return undefined
  return N.fix(new Dec(sign, 1n, grows ? ctx.Emax + 1 : ctx.Emin - ctx.prec), ctx)
}

const asDec = (x: unknown): Dec | undefined => (x instanceof PyDecimal ? x.d : isIntValue(x) ? decOfInt(intOf(x)) : undefined)

/** `divmod(a, b)` with a decimal: the quotient and the remainder, their conditions settled at once (as CPython's); undefined for other operands. */
export function decimalDivmod(rt: PyRun, a: unknown, b: unknown, ctx = ctxOf(rt)): readonly unknown[] | undefined {
  const x = asDec(a), y = asDec(b)
  if (!x || !y) return undefined
  const q = N.floorDiv(x, y, ctx), r = N.mod(x, y, ctx)
  if (ctx.status !== 0) settle(ctx)
  return tuple([new PyDecimal(q, rt), new PyDecimal(r, rt)])
}

/** `pow(a, b, m)` with decimals: integral operands, the result an integral Decimal (CPython's `_power_modulo`). */
export function decimalPowMod(rt: PyRun, a: unknown, b: unknown, m: unknown, ctx = ctxOf(rt)): PyDecimal | undefined {
  const x = asDec(a), e = asDec(b), md = asDec(m)
  if (!x || !e || !md) return undefined
  if (x.nan || e.nan || md.nan) return settled(rt, ctx, N.add(N.add(x, e, ctx), md, ctx))
  const integral = (d: Dec): boolean => d.finite && (d.exp >= 0 || N.stripZeros(d.coef, -d.exp)[1] === -d.exp || d.zero)
  if (!integral(x) || !integral(e) || !integral(md) || e.sign || md.zero || md.adjusted >= ctx.prec || (x.zero && e.zero)) return settled(rt, ctx, N.invalid(ctx))
  const whole = (d: Dec): bigint => {
    ctx.work(d.digits + Math.max(d.exp, 0))
    return d.exp >= 0 ? d.coef * N.pow10(d.exp) : d.coef / N.pow10(-d.exp)
  }
  const mod = whole(md), n = whole(e)
  rt.charge(Math.max(1, n.toString(2).length) * 100)
  const r = Q.modPow(whole(x) % mod, n, mod)
  return new PyDecimal(new Dec((n & 1n) === 1n ? x.sign : 0, r, 0), rt)
}

function realPower(a: Dec, b: Dec, ctx: Ctx): Dec {
  if (a.zero) return b.sign ? N.INF(0) : N.ZERO
  if (a.sign) return N.invalid(ctx)
  if (a.kind === 'F') return b.sign ? N.ZERO : N.INF(0)
  const wp = Math.max(a.digits, ctx.prec) + 4 + 19
  const work = MAX_CTX(ctx, wp)
  // The steps' own rounding is not the result's; a non-integral power is inexact (libmpdec's `_mpd_qpow_real`).
  ctx.status |= N.INEXACT | N.ROUNDED
  const r = expCR(N.mul(lnCR(a, wp, work), b, work), wp, work)
  // A result of exactly one is written with the full precision (1.000...), as libmpdec's.
  if (N.cmp(r, N.ONE) === 0) return new Dec(0, N.pow10(ctx.prec - 1), 1 - ctx.prec)
  return N.fix(r, ctx)
}

const HASH_10INV = Q.modPow(10n, HASH_MOD - 2n, HASH_MOD)

/** CPython's `Decimal.__hash__`: the hash of the rational value (equal ints, floats and fractions hash alike). */
function hash(d: Dec): bigint {
  if (d.kind === 'N') typeError('Cannot hash a signaling NaN value')
  if (d.kind === 'n') return BigInt(++nanSerial)
  if (d.kind === 'F') return d.sign ? -314159n : 314159n
  const e = d.exp >= 0 ? Q.modPow(10n, BigInt(d.exp), HASH_MOD) : Q.modPow(HASH_10INV, BigInt(-d.exp), HASH_MOD)
  const h = (d.coef * e) % HASH_MOD
  const ans = d.sign ? -h : h
  return ans === -1n ? -2n : ans
}

/** `x.max(y)` / `x.min(y)`: a quiet NaN gives way to a number; equal values by their exponents (CPython's compare_total). */
function maxMin(name: 'max' | 'min', a: Dec, b: Dec, ctx: Ctx): Dec {
  if (a.nan || b.nan) {
    if (a.kind === 'N' || b.kind === 'N') return N.nanOf(a, b, ctx)!
    if (!a.nan) return N.fix(a, ctx)
    if (!b.nan) return N.fix(b, ctx)
    return N.nanOf(a, b, ctx)!
  }
  let c = N.cmp(a, b)
  if (c === 0) c = a.sign !== b.sign ? (a.sign ? -1 : 1) : a.exp === b.exp ? 0 : (a.exp < b.exp) !== (a.sign === 1) ? -1 : 1
  const pick = name === 'max' ? (c === -1 ? b : a) : c === -1 ? a : b
  return N.fix(pick, ctx)
}

/** `next_plus` / `next_minus`: the closest representable neighbour in the context. */
function nextToward(d: Dec, dir: 1 | -1, ctx: Ctx): Dec {
  if (d.nan) return nanResult(d, ctx)
  if (d.kind === 'F') {
    if ((d.sign === 0) === (dir === 1)) return d
    // The largest finite number of the context, with the infinity's sign.
    return new Dec(dir === 1 ? 1 : 0, N.pow10(ctx.prec) - 1n, ctx.Emax - ctx.prec + 1)
  }
  const rounding = dir === 1 ? 'ROUND_CEILING' : 'ROUND_FLOOR'
  // Only the errors of the steps are the result's conditions (libmpdec's `mpd_qnext_plus`).
  const c: Ctx = { ...ctx, rounding, status: 0 }
  const fixed = N.fix(d, c)
  if (c.status & N.INEXACT) return fixed
  const tiny = new Dec(dir === 1 ? 0 : 1, 1n, ctx.Emin - ctx.prec)
  return N.add(d, tiny, c)
}

export const decOfInt = (n: number | bigint): Dec => {
  const b = BigInt(n)
  return new Dec(b < 0n ? 1 : 0, b < 0n ? -b : b, 0)
}

/** A float, exactly (`Decimal(0.1)` is `0.1000000000000000055511151231257827021181583404541015625`). */
export function decOfFloat(f: number): Dec {
  if (Number.isNaN(f)) return N.NAN
  if (!Number.isFinite(f)) return N.INF(f < 0 ? 1 : 0)
  const sign = f < 0 || Object.is(f, -0) ? 1 : 0
  const r = Q.fromFloat(Math.abs(f))
  // n / 2^k = n·5^k / 10^k.
  const k = r.d.toString(2).length - 1
  return new Dec(sign, r.n * 5n ** BigInt(k), -k)
}

const DEC_TEXT = /^([-+])?(?:(?=\d|\.\d)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?|(inf(?:inity)?)|(s)?nan(\d*))$/i

/**
 * Decimal(text): CPython's syntax (surrounding whitespace, `_` between digits); else ConversionSyntax
 * (a NaN, raised when trapped: the caller settles ctx). `exact` (Decimal(), not create_decimal): the
 * value as written, InvalidOperation past CPython's largest exponents; else the caller rounds it.
 */
function parseDecimal(rt: PyRun | undefined, text: string, ctx: Ctx, exact: boolean): Dec {
  // CPython's C implementation drops every underscore (`Decimal('1__0')` is 10).
  const s = asciiDigits(text).trim().replace(/_/g, '')
  const m = DEC_TEXT.exec(s)
  if (!m) return N.invalid(ctx, N.CONVERSION)
  const sign = m[1] === '-' ? 1 : 0
  if (m[5]) return N.INF(sign)
  if (m[7] !== undefined) {
    const payload = m[7].replace(/^0+/, '')
    if (!exact && payload.length > ctx.prec - ctx.clamp) return N.invalid(ctx, N.CONVERSION)
    return new Dec(sign, payload ? BigInt(payload) : 0n, 0, m[6] ? 'N' : 'n')
  }
  const int = m[2] ?? '', frac = m[3] ?? ''
  // An exponent past any context's reach stands as one just past it (the rounding overflows or underflows).
  const exp = m[4] ? Math.max(-BEYOND, Math.min(BEYOND, Number(m[4]))) : 0
  const digits = (int + frac).replace(/^0+(?=\d)/, '')
  if (rt && digits.length > 4096) rt.charge(bigWorkUnits(digits.length * DIGIT_BITS))
  const e = exp - frac.length, top = digits === '0' ? e : e + digits.length - 1
  // Not representable exactly in CPython's largest context: InvalidOperation (its `PyDecType_FromCStringExact`).
  if (exact && (top > MAX_EMAX || e < 1 - 2 * MAX_EMAX)) return N.invalid(ctx)
  return new Dec(sign, BigInt(digits), e)
}

/** `Decimal(value="0", context=None)`. */
export function makeDecimal(rt: PyRun, a: unknown[], kw: PyDict | null): PyDecimal {
  const args = [...a]
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const at = k === 'value' ? 0 : k === 'context' ? 1 : -1
      if (at < 0) typeError(`'${String(k)}' is an invalid keyword argument for Decimal()`)
      args[at] = v
    }
  }
  if (args.length > 2) typeError(`Decimal() takes at most 2 arguments (${args.length} given)`)
  const [x = '0', c = null] = args
  if (c !== null && !(c instanceof PyContext)) typeError('optional argument must be a context')
  // The conditions of the conversion are the given context's, else the run's.
  const ctx = c === null ? ctxOf(rt) : (c as PyContext).of(rt)
  return settled(rt, ctx, decOf(rt, x, ctx))
}

/** The exact value of Decimal(x): a float is FloatOperation, bad text ConversionSyntax (in ctx, settled by the caller). */
function decOf(rt: PyRun, x: unknown, ctx: Ctx, exact = true): Dec {
  if (x instanceof PyDecimal) return x.d
  if (isIntValue(x)) return decOfInt(intOf(x))
  if (isFloatValue(x)) {
    ctx.status |= N.FLOAT
    return decOfFloat(floatOf(x))
  }
  if (typeof x === 'string') return parseDecimal(rt, x, ctx, exact)
  if (Array.isArray(x)) return decOfTuple(x)
  return typeError(`conversion from ${typeName(x)} to Decimal is not supported`)
}

/** Decimal((sign, digits, exponent)). */
function decOfTuple(t: readonly unknown[]): Dec {
  if (t.length !== 3) valueError('argument must be a sequence of length 3')
  const [s, digits, e] = t
  if (s !== 0 && s !== 1) valueError('sign must be an integer with the value 0 or 1')
  if (!Array.isArray(digits)) valueError('coefficient must be a tuple of digits')
  let text = ''
  for (const x of digits as unknown[]) {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 9) valueError('coefficient must be a tuple of digits')
    text += String(x)
  }
  const coef = BigInt(text || '0')
  if (e === 'F') return N.INF(s as 0 | 1)
  if (e === 'n' || e === 'N') return new Dec(s as 0 | 1, coef, 0, e)
  if (!isIntValue(e) || typeof e === 'boolean') valueError("exponent must be an integer")
  return new Dec(s as 0 | 1, coef, Number(intOf(e)))
}

const DECIMAL_TUPLE = new PyNamedTupleType('DecimalTuple', ['sign', 'digits', 'exponent'], [])

function decimalTuple(d: Dec): PyNamedTuple {
  const t = new PyNamedTuple()
  t.ntype = DECIMAL_TUPLE
  const digits = d.kind === 'F' ? [0] : d.nan && d.coef === 0n ? [] : [...N.digitText(d.coef)].map(Number)
  t.push(d.sign, tuple(digits), d.kind === 'f' ? d.exp : d.kind === 'F' ? 'F' : d.kind)
  return Object.freeze(t)
}

/** Where a method takes its `context` argument when not the first (CPython's signatures). */
const CONTEXT_AT: Record<string, number> = {
  quantize: 2, to_integral_value: 1, to_integral: 1, to_integral_exact: 1, fma: 2, compare: 1, max: 1, min: 1, scaleb: 1, same_quantum: 1, copy_sign: 1,
  compare_total: 1, compare_total_mag: 1, compare_signal: 1, max_mag: 1, min_mag: 1, next_toward: 1, remainder_near: 1,
  shift: 1, rotate: 1, logical_and: 1, logical_or: 1, logical_xor: 1,
}

/** The methods of a Decimal; `inCtx`: called by a Context's method (`ctx.sqrt(x)`), in that context, without a `context` argument. */
export function decimalMethod(rt: PyRun, x: PyDecimal, name: string, a: unknown[], kw: PyDict | null, inCtx?: Ctx): unknown {
  const d = x.d
  const opt = (i: number, key: string): unknown => (a.length > i ? a[i] : kw?.map.get(key)?.[1] ?? null)
  // `context=`: the context the method rounds in and flags (the run's by default).
  const given = inCtx ? null : opt(CONTEXT_AT[name] ?? 0, 'context')
  if (given !== null && !(given instanceof PyContext)) typeError('optional argument must be a context')
  const ctx = inCtx ?? (given === null ? ctxOf(rt) : (given as PyContext).of(rt))
  const rounding = (i: number): Rounding => { const r = opt(i, 'rounding'); return r === null ? ctx.rounding : roundingOf(r) }
  const other = (): Dec => { const o = opt(0, 'other'); return o instanceof PyDecimal ? o.d : isIntValue(o) ? decOfInt(intOf(o)) : typeError(`conversion from ${typeName(o)} to Decimal is not supported`) }
  const dec = (r: Dec): PyDecimal => settled(rt, ctx, r)
  switch (name) {
    case 'quantize': {
      const q = opt(0, 'exp')
      const qd = q instanceof PyDecimal ? q.d : isIntValue(q) ? decOfInt(intOf(q)) : typeError(`conversion from ${typeName(q)} to Decimal is not supported`)
      return dec(N.quantize(d, qd, rounding(1), ctx))
    }
    case 'normalize': return dec(N.normalize(d, ctx))
    case 'sqrt': return dec(N.sqrt(d, ctx))
    case 'to_integral_value': case 'to_integral': case 'to_integral_exact': {
      if (!d.finite) return dec(d.nan ? nanResult(d, ctx) : d)
      if (d.exp >= 0) return dec(d)
      const r = N.rescale(d, 0, rounding(0), ctx)
      // Only the exact form flags what it rounds (libmpdec's TO_INT_EXACT); a zero is not rounded.
      if (name === 'to_integral_exact' && !d.zero) ctx.status |= N.lostDigits() ? N.ROUNDED | N.INEXACT : N.ROUNDED
      return dec(r)
    }
    case 'is_zero': return d.zero
    case 'is_nan': return d.nan
    case 'is_qnan': return d.kind === 'n'
    case 'is_snan': return d.kind === 'N'
    case 'is_infinite': return d.kind === 'F'
    case 'is_finite': return d.finite
    case 'is_signed': return d.sign === 1
    case 'adjusted': return d.finite ? (d.zero ? d.exp : d.adjusted) : 0
    case 'as_tuple': return decimalTuple(d)
    case 'as_integer_ratio': {
      if (d.nan) valueError('cannot convert NaN to integer ratio')
      if (!d.finite) raise('OverflowError', 'cannot convert Infinity to integer ratio')
      const r = x.ratio(rt)
      return tuple([mkInt(r.n), mkInt(r.d)])
    }
    case 'copy_abs': return dec(N.absolute(d))
    case 'copy_negate': return dec(N.negate(d))
    case 'copy_sign': return dec(new Dec(other().sign, d.coef, d.exp, d.kind))
    case 'compare': {
      const o = other()
      if (d.nan || o.nan) return dec(N.add(d, o, ctx))
      return dec(decOfInt(N.cmp(d, o)))
    }
    case 'fma': {
      const o = other(), t = opt(1, 'third')
      const td = t instanceof PyDecimal ? t.d : isIntValue(t) ? decOfInt(intOf(t)) : typeError(`conversion from ${typeName(t)} to Decimal is not supported`)
      // The product exact (its only condition an invalid one), then the sum rounded to the context.
      const exact: Ctx = { ...ctx, prec: Number.MAX_SAFE_INTEGER, Emax: Number.MAX_SAFE_INTEGER, Emin: -Number.MAX_SAFE_INTEGER, clamp: 0 }
      const p = N.mul(d, o, exact)
      ctx.status |= exact.status
      return dec(N.add(p, td, ctx))
    }
    case 'exp': case 'ln': case 'log10': return dec(transcendental(name, d, ctx))
    case 'max': case 'min': return dec(maxMin(name, d, other(), ctx))
    case 'to_eng_string': return sciText(d, ctx.capitals, true)
    case 'same_quantum': { const o = other(); return d.finite && o.finite ? d.exp === o.exp : d.kind === o.kind || (d.nan && o.nan) }
    case 'next_plus': case 'next_minus': return dec(nextToward(d, name === 'next_plus' ? 1 : -1, ctx))
    // Every Decimal is canonical (libmpdec's only encoding); the radix is 10.
    case 'canonical': return x
    case 'is_canonical': return true
    case 'radix': return new PyDecimal(decOfInt(10), rt)
    case 'is_normal': case 'is_subnormal': case 'number_class': return classify(name, d, ctx)
    case 'scaleb': {
      const o = other()
      if (d.nan || o.nan) return dec(N.add(d, o, ctx))
      // An integral shift within twice the exponent range and precision (libmpdec's `mpd_qscaleb`).
      if (o.exp !== 0 || !o.finite || o.digits > 18 || Number(o.coef) > 2 * (ctx.Emax + ctx.prec)) return dec(N.invalid(ctx))
      return dec(d.finite ? N.fix(new Dec(d.sign, d.coef, d.exp + Number(o.sign ? -o.coef : o.coef)), ctx) : d)
    }
  }
  const more = moreDecimal(name, d, other, ctx, nextToward)
  return more === undefined ? undefined : dec(more)
}

/** statistics' `_convert` of an exact ratio (or a non-finite float) to a Decimal: n / d in the run's context. */
export function decimalOfRatio(rt: PyRun | undefined, v: Q.Ratio | number): PyDecimal {
  if (typeof v === 'number') return new PyDecimal(decOfFloat(v), rt)
  const ctx = ctxOf(rt)
  return settled(rt, ctx, N.div(decOfInt(v.n), decOfInt(v.d), ctx))
}

/** statistics' `_decimal_sqrt_of_frac`: √(n/d) to the context, moved a step up or down when the context's sqrt of the quotient is off. */
export function decimalSqrtOfRatio(rt: PyRun | undefined, v: Q.Ratio): PyDecimal {
  let n = v.n, m = v.d
  if (n <= 0n) {
    if (n === 0n) return new PyDecimal(new Dec(0, 0n, -1), rt)
    n = -n; m = -m
  }
  const ctx = ctxOf(rt)
  const root = N.sqrt(N.div(decOfInt(n), decOfInt(m), ctx), ctx)
  const ratioOf = (x: Dec): [bigint, bigint] => { const r = new PyDecimal(x).ratio(); return [r.n, r.d] }
  const [nr, dr] = ratioOf(root)
  const plus = nextToward(root, 1, ctx)
  const [np, dp] = ratioOf(plus)
  if (4n * n * (dr * dp) ** 2n > m * (dr * np + dp * nr) ** 2n) return settled(rt, ctx, plus)
  const minus = nextToward(root, -1, ctx)
  const [nm, dm] = ratioOf(minus)
  if (4n * n * (dr * dm) ** 2n < m * (dr * nm + dm * nr) ** 2n) return settled(rt, ctx, minus)
  return settled(rt, ctx, root)
}

/** `Decimal.from_float(f)`: an int or a float, exactly. */
function fromFloat(rt: PyRun, a: unknown[]): PyDecimal {
  if (a.length !== 1) typeError(`Decimal.from_float() takes exactly one argument (${a.length} given)`)
  const f = a[0]
  if (isIntValue(f)) return new PyDecimal(decOfInt(intOf(f)), rt)
  if (!isFloatValue(f)) typeError('argument must be int or float')
  return new PyDecimal(decOfFloat(floatOf(f)), rt)
}

/** The methods of a context (`ctx.create_decimal(x)`, `ctx.copy()`) and of a `localcontext()` manager. */
export function contextMethod(rt: PyRun, o: unknown, name: string, a: unknown[], kw: PyDict | null): unknown {
  if (o instanceof PyContext) {
    const r = contextOperation(rt, o, name, a, kw)
    if (r !== undefined) return r
  }
  if (o instanceof PyContext && name === 'create_decimal') {
    // Rounded to this context, its conditions flagged in it (a float is FloatOperation).
    const ctx = o.of(rt)
    const d = decOf(rt, a.length ? a[0] : '0', ctx, false)
    return settled(rt, ctx, d.nan ? d : N.fix(d, ctx))
  }
  if (o instanceof PyContext && name === 'create_decimal_from_float') {
    // Exactly, then rounded to this context; an explicit conversion, not FloatOperation.
    const f = a[0]
    if (!isIntValue(f) && !isFloatValue(f)) typeError('argument must be int or float')
    const ctx = o.of(rt)
    const d = isIntValue(f) ? decOfInt(intOf(f)) : decOfFloat(floatOf(f))
    return settled(rt, ctx, d.nan ? d : N.fix(d, ctx))
  }
  if (o instanceof PyContext && (name === 'Etiny' || name === 'Etop')) {
    const big = (k: string): bigint => BigInt(o.get(k) as number | bigint)
    return mkInt((name === 'Etiny' ? big('Emin') : big('Emax')) - big('prec') + 1n)
  }
  if (o instanceof PySignalDict) return o.method(name, a, kw)
  return contextManagerMethod(rt, o, name)
}

export const DECIMAL_FUNCTIONS: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  Decimal: (rt, a, kw) => makeDecimal(rt, a, kw),
  'Decimal.from_float': (rt, a) => fromFloat(rt, a),
  ...CONTEXT_FUNCTIONS,
}

/** The module's constants: the rounding modes (strings, as CPython's) and the signal classes. */
export const DECIMAL_CONSTANTS: Record<string, unknown> = {
  ...Object.fromEntries(N.ROUNDINGS.map((r) => [r, r])),
  MAX_PREC, MAX_EMAX: MAX_PREC, MIN_EMIN: -MAX_PREC, MIN_ETINY: -2n * MAX_PREC + 1n,
}

/** The signal classes (exception types, values.ts) the module names. */
export const DECIMAL_SIGNALS = ['DecimalException', 'Clamped', 'InvalidOperation', 'ConversionSyntax', 'DivisionImpossible', 'DivisionUndefined', 'InvalidContext', 'DivisionByZero', 'Inexact', 'Rounded', 'Subnormal', 'Overflow', 'Underflow', 'FloatOperation']

