/**
 * int and float arithmetic with Python's rules: exact ints (bigint beyond
 * 2^53), true division always a float, floor division and modulo rounding
 * toward negative infinity, `**` exact for ints, bool as an int.
 */
import { PyFloat, PyInstance, PyNumeric, mkFloat, mkInt } from './values.ts'
import { MISSING, guestBinop, guestIndex, guestUnary } from './dunders.ts'
import { raise, typeError } from './errors.ts'
import { bigWorkUnits, type PyRun } from './fuel.ts'
import { typeName } from './values.ts'
import { timeUnary } from './datetime.ts'

/** A numeric operand, classified: an int (number or bigint) or a float (JS number). */
export const isIntValue = (x: unknown): boolean => (typeof x === 'number' && Number.isInteger(x)) || typeof x === 'bigint' || typeof x === 'boolean'
export const isFloatValue = (x: unknown): boolean => (typeof x === 'number' && !Number.isInteger(x)) || x instanceof PyFloat
export const isNumber = (x: unknown): boolean => typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean' || x instanceof PyFloat

/** The int value of an int or bool (number or bigint). */
export function intOf(x: unknown): number | bigint {
  if (typeof x === 'boolean') return x ? 1 : 0
  return x as number | bigint
}

/** The float value of any number (bigints too large for a float raise OverflowError). */
export function floatOf(x: unknown): number {
  if (typeof x === 'number') return x
  if (x instanceof PyFloat) return x.v
  if (typeof x === 'boolean') return x ? 1 : 0
  if (typeof x === 'bigint') {
    const f = Number(x)
    if (!Number.isFinite(f)) raise('OverflowError', 'int too large to convert to float')
    return f
  }
  return typeError(`must be real number, not ${typeName(x)}`)
}

const big = (x: number | bigint): bigint => (typeof x === 'bigint' ? x : BigInt(x))

function unsupported(op: string, a: unknown, b: unknown): never {
  return typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`)
}

/** Bits of an int's magnitude (a bigint's from its hex length: one linear pass). */
const bitsOf = (x: number | bigint): number => (typeof x === 'bigint' ? x.toString(16).length * 4 : 53)

/** Charge for bigint work, before it is done: proportional to the digits involved (linear ops). */
function chargeBig(rt: PyRun, ...xs: Array<number | bigint>): void {
  let bits = 0
  for (const x of xs) if (typeof x === 'bigint') bits += x.toString(16).length * 4
  if (bits > 0) rt.charge(bits * 10)
}

/** Charge for a bigint product or quotient, before it is done: super-linear in the digits (see bigWorkUnits). */
function chargeBigMul(rt: PyRun, a: number | bigint, b: number | bigint): void {
  if (typeof a === 'bigint' || typeof b === 'bigint') rt.charge(bigWorkUnits(bitsOf(a), bitsOf(b)))
}

export type NumOp = (rt: PyRun, a: unknown, b: unknown) => unknown

/** int op int (both ints already): numbers when exact, bigint otherwise. */
function intArith(rt: PyRun, op: string, a: number | bigint, b: number | bigint): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+': { const r = a + b; if (Number.isSafeInteger(r)) return r; break }
      case '-': { const r = a - b; if (Number.isSafeInteger(r)) return r; break }
      case '*': { const r = a * b; if (Number.isSafeInteger(r)) return r === 0 ? 0 : r; break }
      case '//': {
        if (b === 0) raise('ZeroDivisionError', 'integer division or modulo by zero')
        // a - (a mod b) is a multiple of b, divided exactly while it is a safe integer (not near 2^53).
        const t = a - pyModInt(a, b)
        if (Number.isSafeInteger(t)) return t === 0 ? 0 : t / b
        break
      }
      case '%': {
        if (b === 0) raise('ZeroDivisionError', 'integer modulo by zero')
        return pyModInt(a, b)
      }
    }
  }
  if (op === '+' || op === '-') chargeBig(rt, a, b)
  else chargeBigMul(rt, a, b)
  const x = big(a), y = big(b)
  switch (op) {
    case '+': return mkInt(x + y)
    case '-': return mkInt(x - y)
    case '*': return mkInt(x * y)
    case '//': {
      if (y === 0n) raise('ZeroDivisionError', 'integer division or modulo by zero')
      let q = x / y
      if ((x % y !== 0n) && ((x < 0n) !== (y < 0n))) q -= 1n
      return mkInt(q)
    }
    case '%': {
      if (y === 0n) raise('ZeroDivisionError', 'integer modulo by zero')
      let m = x % y
      if (m !== 0n && (m < 0n) !== (y < 0n)) m += y
      return mkInt(m)
    }
  }
  throw new Error(`intArith: ${op}`)
}

/** Python's int modulo on safe integers (the sign of the divisor). */
export function pyModInt(a: number, b: number): number {
  let m: number
  if ((a | 0) === a && (b | 0) === b) {
    m = a % b
    if (m !== 0 && (m < 0) !== (b < 0)) m += b
  } else if (a < TWO52 && a > -TWO52 && b < TWO52 && b > -TWO52) {
    // The engines' double `%` is a slow fmod; a floating quotient is at most one off below 2^52,
    // where every product and difference here is exact: one correction step gives the remainder.
    m = a - Math.floor(a / b) * b
    if (b > 0) { if (m < 0) m += b; else if (m >= b) m -= b } else if (m > 0) m += b; else if (m <= b) m -= b
  } else {
    m = a % b
    if (m !== 0 && (m < 0) !== (b < 0)) m += b
  }
  return m === 0 ? 0 : m
}
const TWO52 = 2 ** 52

/** CPython's float_divmod: returns [floordiv, mod]. */
function floatDivmod(vx: number, wx: number, what: string): [number, number] {
  if (wx === 0) raise('ZeroDivisionError', what)
  let mod = vx % wx
  let div = (vx - mod) / wx
  if (mod) {
    if ((wx < 0) !== (mod < 0)) { mod += wx; div -= 1 }
  } else {
    mod = wx < 0 ? -0 : 0
  }
  let floordiv: number
  if (div) {
    floordiv = Math.floor(div)
    if (div - floordiv > 0.5) floordiv += 1
  } else {
    floordiv = (vx / wx) < 0 || Object.is(vx / wx, -0) ? -0 : 0
  }
  return [floordiv, mod]
}

function floatArith(op: string, x: number, y: number): unknown {
  switch (op) {
    case '+': return mkFloat(x + y)
    case '-': return mkFloat(x - y)
    case '*': return mkFloat(x * y)
    case '/':
      if (y === 0) raise('ZeroDivisionError', 'float division by zero')
      return mkFloat(x / y)
    case '//': return mkFloat(floatDivmod(x, y, 'float floor division by zero')[0])
    case '%': return mkFloat(floatDivmod(x, y, 'float modulo')[1])
  }
  throw new Error(`floatArith: ${op}`)
}

/** CPython's PY_SSIZE_T_MAX (64-bit builds): the largest index, length or count. */
export const SSIZE_MAX = 2n ** 63n - 1n
/** Whether an int fits a Py_ssize_t. */
export const fitsSsize = (n: bigint): boolean => n <= SSIZE_MAX && n >= -SSIZE_MAX - 1n

/**
 * An int argument that CPython's C function reads as a Py_ssize_t (`'a'.ljust(n)`, `xs.pop(i)`,
 * `s.split(sep, n)`): `__index__` honoured, CPython's TypeError for another type and OverflowError
 * beyond an index-sized int (before anything is built).
 */
export function ssizeArg(x: unknown): number {
  const n = indexArg(x)
  if (typeof n === 'bigint' && !fitsSsize(n)) raise('OverflowError', 'Python int too large to convert to C ssize_t')
  return Number(n)
}

/** CPython's INT_MAX: the bound of an argument its C function reads as an `int`. */
export const INT_MAX = 2 ** 31 - 1

/** Whether an int fits a C int. */
export const fitsCInt = (n: number | bigint): boolean => n <= INT_MAX && n >= -INT_MAX - 1

/** As ssizeArg, for an argument CPython reads as a C int (`s.expandtabs(n)`). */
export function cIntArg(x: unknown): number {
  const n = indexArg(x)
  if (!fitsCInt(n)) raise('OverflowError', 'Python int too large to convert to C int')
  return Number(n)
}

function indexArg(x: unknown): number | bigint {
  if (isIntValue(x)) return intOf(x)
  const g = guestIndex(x)
  if (g === MISSING) typeError(`'${typeName(x)}' object cannot be interpreted as an integer`)
  return intOf(g)
}

/** A binary arithmetic operator on two numbers (ints, bools, floats); undefined when an operand is not a number. */
export function numArith(rt: PyRun, op: string, a: unknown, b: unknown): unknown {
  if (!isNumber(a) || !isNumber(b)) {
    // A guest object's `__add__`/`__radd__`/... (runtime/dunders.ts).
    if (a instanceof PyInstance || b instanceof PyInstance) return guestBinop(op, a, b)
    // A module's number type (fractions.Fraction) on either side; the right one's reflected method when
    // the left one's declines (Decimal ** Fraction is Fraction.__rpow__).
    if (a instanceof PyNumeric) {
      const r = a.binop(rt, op, b, false)
      if (r !== undefined || !(b instanceof PyNumeric)) return r
    }
    return b instanceof PyNumeric ? b.binop(rt, op, a, true) : undefined
  }
  if (op === '/') {
    const x = floatOf(a), y = floatOf(b)
    if (y === 0) raise('ZeroDivisionError', isFloatValue(a) || isFloatValue(b) ? 'float division by zero' : 'division by zero')
    if (typeof a === 'bigint' || typeof b === 'bigint') return mkFloat(bigTrueDiv(intOf(a), intOf(b)))
    return mkFloat(x / y)
  }
  if (op === '**') return pow(rt, a, b)
  if (isFloatValue(a) || isFloatValue(b)) return floatArith(op, floatOf(a), floatOf(b))
  return intArith(rt, op, intOf(a), intOf(b))
}

/** int / int when an operand is beyond 2^53: correctly rounded, like CPython. */
export function bigTrueDiv(a: number | bigint, b: number | bigint): number {
  let x = big(a), y = big(b)
  const neg = (x < 0n) !== (y < 0n)
  if (x < 0n) x = -x
  if (y < 0n) y = -y
  const shift = y.toString(2).length - x.toString(2).length + 66
  const num = shift >= 0 ? x << BigInt(shift) : x
  const den = shift >= 0 ? y : y << BigInt(-shift)
  let q = num / den
  if (num % den !== 0n) q |= 1n // sticky bit: the one rounding below is then correct
  const r = Number(q) * 2 ** -shift
  if (!Number.isFinite(r)) raise('OverflowError', 'integer division result too large for a float')
  return neg ? -r : r
}

/**
 * CPython's limit on int <-> decimal (and every non-power-of-two base) text
 * conversion, `sys.int_info.default_max_str_digits`: converting is quadratic,
 * so longer texts are refused before any work (issue 23, class 4).
 */
export const MAX_STR_DIGITS = 4300

/** CPython's ValueError for an int too large to write in decimal. */
export const INT_TO_STR_LIMIT = `Exceeds the limit (${MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`

/** CPython's ValueError for a text with too many digits to parse. */
export const strToIntLimit = (digits: number): string =>
  `Exceeds the limit (${MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`

/** The decimal text of an int, with CPython's limit of 4300 digits, checked from the bit length before converting. */
export function decimalText(x: number | bigint): string {
  if (typeof x === 'number') return String(x)
  const bits = (x < 0n ? -x : x).toString(16).length * 4
  // bits - 4 <= the real bit length, and 2^(bits-4) has floor((bits-4)·log10 2) + 1 digits
  if ((bits - 4) * 0.30102 >= MAX_STR_DIGITS) raise('ValueError', INT_TO_STR_LIMIT)
  const text = x.toString()
  if (text.length - (x < 0n ? 1 : 0) > MAX_STR_DIGITS) raise('ValueError', INT_TO_STR_LIMIT)
  return text
}

/** The largest result of an int `**` (64,000,000 bits, 8 MB); CPython has no such cap (a difference, docs/python.md). */
export const MAX_POW_BITS = 64_000_000

export function pow(rt: PyRun, a: unknown, b: unknown): unknown {
  if (isFloatValue(a) || isFloatValue(b)) {
    const x = floatOf(a), y = floatOf(b)
    if (x === 0 && y < 0) raise('ZeroDivisionError', '0.0 cannot be raised to a negative power')
    if (x < 0 && !Number.isInteger(y) && Number.isFinite(y)) raise('ValueError', 'negative number cannot be raised to a fractional power (complex results are not supported)')
    const r = floatPow(x, y)
    if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) raise('OverflowError', '(34, \'Numerical result out of range\')')
    return mkFloat(r)
  }
  const x = intOf(a), y = intOf(b)
  if (y < 0) {
    if (x === 0 || x === 0n) raise('ZeroDivisionError', '0.0 cannot be raised to a negative power')
    const r = floatPow(floatOf(x), floatOf(y))
    if (!Number.isFinite(r)) raise('OverflowError', '(34, \'Numerical result out of range\')')
    return mkFloat(r)
  }
  if (typeof x === 'number' && typeof y === 'number') {
    const r = Math.pow(x, y)
    if (Math.abs(r) < 2 ** 31) return r
  }
  const bx = big(x), by = big(y)
  // 0, 1 and -1 to any power: no digits to build.
  if (bx === 0n) return by === 0n ? 1 : 0
  if (bx === 1n) return 1
  if (bx === -1n) return (by & 1n) === 1n ? -1 : 1
  // The result's size is known before it is computed: refuse past the cap, pay, then build.
  const bits = Number(by) * Math.max(1, bitsOf(bx < 0n ? -bx : bx))
  if (bits > MAX_POW_BITS) raise('MemoryError', 'the result of ** is too large')
  rt.charge(bigWorkUnits(bits))
  return mkInt(bx ** by)
}

export function negate(rt: PyRun, a: unknown): unknown {
  if (typeof a === 'number') return Number.isInteger(a) ? (a === 0 ? 0 : -a) : -a
  if (typeof a === 'boolean') return a ? -1 : 0
  if (typeof a === 'bigint') { chargeBig(rt, a); return mkInt(-a) }
  if (a instanceof PyFloat) return new PyFloat(-a.v)
  if (a instanceof PyNumeric) return a.unary('neg', undefined, rt)
  return timeUnary('neg', a) ?? guestOr('neg', a, '-')
}

/** A guest object's unary method's result (a None result is null); CPython's TypeError when it has none. */
function guestOr(op: 'neg' | 'pos' | 'inv', a: unknown, sign: string): unknown {
  const r = guestUnary(op, a)
  return r === MISSING ? typeError(`bad operand type for unary ${sign}: '${typeName(a)}'`) : r ?? null
}

export function positive(a: unknown, rt?: PyRun): unknown {
  if (typeof a === 'boolean') return a ? 1 : 0
  if (isNumber(a)) return a
  if (a instanceof PyNumeric) return a.unary('pos', undefined, rt)
  return timeUnary('pos', a) ?? guestOr('pos', a, '+')
}

export function invert(a: unknown): unknown {
  if (isIntValue(a)) {
    const x = intOf(a)
    return typeof x === 'number' ? -x - 1 : mkInt(-x - 1n)
  }
  return guestOr('inv', a, '~')
}

/** `& | ^ << >>` on ints (bools give bools for & | ^). */
export function bitwise(rt: PyRun, op: string, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'boolean' && typeof b === 'boolean' && op !== '<<' && op !== '>>') {
    return op === '&' ? a && b : op === '|' ? a || b : a !== b
  }
  if (!isIntValue(a) || !isIntValue(b)) {
    if (a instanceof PyInstance || b instanceof PyInstance) { const r = guestBinop(op, a, b); if (r !== undefined) return r }
    return unsupported(aug ? `${op}=` : op, a, b)
  }
  const x = big(intOf(a)), y = big(intOf(b))
  chargeBig(rt, intOf(a), intOf(b))
  switch (op) {
    case '&': return mkInt(x & y)
    case '|': return mkInt(x | y)
    case '^': return mkInt(x ^ y)
    case '<<':
      if (y < 0n) raise('ValueError', 'negative shift count')
      if (y > 1_000_000n) raise('MemoryError', 'shift count too large')
      rt.charge(Number(y) * 10)
      return mkInt(x << y)
    case '>>':
      if (y < 0n) raise('ValueError', 'negative shift count')
      return mkInt(x >> y)
  }
  return unsupported(op, a, b)
}

export { unsupported }

/** round(x) / round(x, n) for ints. */
export function roundInt(x: number | bigint, n: number): number | bigint {
  if (n >= 0) return x
  const p = 10n ** BigInt(-n)
  const v = big(x)
  let q = v / p
  let r = v % p
  if (r < 0n) { r += p; q -= 1n }
  const twice = 2n * r
  if (twice > p || (twice === p && (q & 1n) === 1n)) q += 1n
  return mkInt(q * p)
}

/** The int value of a float, truncated (int(2.7) == 2); infinities and NaN raise. */
export function truncFloat(f: number): number | bigint {
  if (Number.isNaN(f)) raise('ValueError', 'cannot convert float NaN to integer')
  if (!Number.isFinite(f)) raise('OverflowError', 'cannot convert float infinity to integer')
  const t = Math.trunc(f)
  return Number.isSafeInteger(t) ? (t === 0 ? 0 : t) : BigInt(t)
}

/** Round half to even to an int (round(2.5) == 2). */
export function roundHalfEven(f: number): number | bigint {
  if (Number.isNaN(f)) raise('ValueError', 'cannot convert float NaN to integer')
  if (!Number.isFinite(f)) raise('OverflowError', 'cannot convert float infinity to integer')
  const fl = Math.floor(f)
  const d = f - fl
  let r = d > 0.5 ? fl + 1 : d < 0.5 ? fl : (fl % 2 === 0 ? fl : fl + 1)
  if (r === 0) r = 0
  return Number.isSafeInteger(r) ? r : BigInt(r)
}

/**
 * x ** y for floats, correctly rounded where CPython's libm pow is: integer exponents are computed
 * exactly (the engine's Math.pow may be one ulp off), ** 0.5 is the square root.
 */
export function floatPow(x: number, y: number): number {
  if (y === 0.5 && x !== -Infinity && !Object.is(x, -0)) return Math.sqrt(x)
  if (y === 2 || y === 1 || y === -1) return y === 2 ? x * x : y === 1 ? x : 1 / x
  if (!Number.isInteger(y) || Math.abs(y) > 2048 || !Number.isFinite(x) || x === 0) return Math.pow(x, y)
  const [mant, exp] = decompose(Math.abs(x))
  const n = Math.abs(y)
  const m = mant ** BigInt(n)
  const e = exp * n
  const negative = x < 0 && n % 2 === 1
  let r: number
  if (y > 0) r = scaled(m, e)
  else {
    // 1 / (m * 2^e) = 2^-e / m, rounded once: a 66-bit quotient with a sticky bit.
    const shift = m.toString(2).length + 66
    let q = (1n << BigInt(shift)) / m
    if ((1n << BigInt(shift)) % m !== 0n) q |= 1n
    r = scaled(q, -e - shift)
  }
  return negative ? -r : r
}

/** |x| = mant * 2^exp with mant an integer. */
function decompose(x: number): [bigint, number] {
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, x)
  const hi = buf.getUint32(0), lo = buf.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  if (biased === 0) return [mant, -1074]
  mant |= 1n << 52n
  return [mant, biased - 1075]
}

/** m * 2^e as the nearest double (m keeps 64 bits plus a sticky bit before the one rounding). */
function scaled(m: bigint, e: number): number {
  const bits = m.toString(2).length
  let q = m
  let s = 0
  if (bits > 64) {
    s = bits - 64
    const rest = m & ((1n << BigInt(s)) - 1n)
    q = (m >> BigInt(s)) | (rest !== 0n ? 1n : 0n)
  }
  const k = e + s
  const base = Number(q)
  // Scale in two steps so neither factor overflows or underflows on its own.
  const half = Math.trunc(k / 2)
  return base * 2 ** half * 2 ** (k - half)
}
