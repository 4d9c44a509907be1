/**
 * `fractions.Fraction` (extended profile), as CPython 3.11's: exact rationals on the runtime's big
 * ints, built from ints, other fractions, floats (exactly), and text (`'3/4'`, `'-1.25e-3'`);
 * arithmetic with ints and fractions stays exact, with a float it is float arithmetic on
 * `float(fraction)`; comparisons are exact against floats too; `str` is `3/4`, `repr` is
 * `Fraction(3, 4)`; hashing and dict keys agree with equal ints and floats. The operators reach it
 * through PyNumeric (values.ts).
 */
import { PyDict, PyNumeric, mkFloat, mkInt, tuple, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { floatOf, intOf, isFloatValue, isIntValue, isNumber, numArith, roundHalfEven, unsupported, MAX_POW_BITS, MAX_STR_DIGITS, strToIntLimit } from './numbers.ts'
import { bigWorkUnits, type PyRun } from './fuel.ts'
import { HASH_MOD, numberHash } from './set-order.ts'
import { repr } from './core.ts'
import * as Q from './rational.ts'

const bits = (x: bigint): number => (x === 0n ? 0 : Q.abs(x).toString(16).length * 4)

/** Whether x is an int or a fraction (CPython's numbers.Rational). */
const isRational = (x: unknown): boolean => isIntValue(x) || x instanceof PyFraction

/** An int or a fraction as a ratio. */
function ratioOf(x: unknown): Q.Ratio {
  if (x instanceof PyFraction) return x
  return Q.fromInt(BigInt(intOf(x)))
}

export class PyFraction extends PyNumeric implements Q.Ratio {
  readonly typeName = 'Fraction'
  constructor(readonly n: bigint, readonly d: bigint) {
    super()
  }

  static of(r: Q.Ratio): PyFraction {
    return new PyFraction(r.n, r.d)
  }

  override repr(): string {
    return `Fraction(${decimal(this.n)}, ${decimal(this.d)})`
  }

  str(): string {
    return this.d === 1n ? decimal(this.n) : `${decimal(this.n)}/${decimal(this.d)}`
  }

  truth(): boolean {
    return this.n !== 0n
  }

  hashKey(): unknown {
    if (this.d === 1n) return mkInt(this.n)
    // A fraction a float equals is that float's key (Fraction(1, 2) and 0.5 are one dict key).
    if ((this.d & (this.d - 1n)) === 0n && bits(this.n) - bits(this.d) < 1020) {
      const f = this.toFloat()
      if (Q.cmp(Q.fromFloat(f), this) === 0) return f
    }
    return `\u0001F${this.n}/${this.d}`
  }

  compareTo(other: unknown): number | undefined {
    if (isRational(other)) return Q.cmp(this, ratioOf(other))
    if (isFloatValue(other)) {
      const f = floatOf(other)
      if (Number.isNaN(f)) return NaN
      if (!Number.isFinite(f)) return f > 0 ? -1 : 1
      return Q.cmp(this, Q.fromFloat(f))
    }
    return undefined
  }

  binop(rtu: unknown, op: string, other: unknown, reflected: boolean): unknown {
    const rt = rtu as PyRun
    if (isFloatValue(other)) {
      const self = mkFloat(this.toFloat())
      return reflected ? numArith(rt, op, other, self) : numArith(rt, op, self, other)
    }
    if (op === '**' && !isRational(other)) {
      // CPython's __pow__ computes float(a) ** b and __rpow__ b ** (an int or a float): another operand's
      // TypeError names those types ('float' and 'str'), not the Fraction.
      const [x, y] = reflected ? [other, this.d === 1n ? mkInt(this.n) : mkFloat(this.toFloat())] : [mkFloat(this.toFloat()), other]
      const r = numArith(rt, '**', x, y)
      return r !== undefined ? r : unsupported('** or pow()', x, y)
    }
    if (!isRational(other)) return undefined
    const o = ratioOf(other)
    rt.charge(bigWorkUnits(Math.max(bits(this.n), bits(this.d)), Math.max(bits(o.n), bits(o.d))))
    const [a, b] = reflected ? [o, this as Q.Ratio] : [this as Q.Ratio, o]
    switch (op) {
      case '+': return PyFraction.of(Q.add(a, b))
      case '-': return PyFraction.of(Q.sub(a, b))
      case '*': return PyFraction.of(Q.mul(a, b))
      case '/': {
        if (b.n === 0n) {
          // CPython's _div reduces by gcd(na, nb) before it finds the zero denominator.
          const g = Q.gcd(a.n, 0n)
          raise('ZeroDivisionError', `Fraction(${decimal((g > 1n ? a.n / g : a.n) * (b.d / Q.gcd(b.d, a.d)))}, 0)`)
        }
        return PyFraction.of(Q.div(a, b))
      }
      case '//': {
        if (b.n === 0n) raise('ZeroDivisionError', 'integer division or modulo by zero')
        return mkInt(Q.floorDiv(a.n * b.d, a.d * b.n))
      }
      case '%': {
        if (b.n === 0n) raise('ZeroDivisionError', 'integer modulo by zero')
        const x = a.n * b.d, y = b.n * a.d
        return PyFraction.of(Q.ratio(x - Q.floorDiv(x, y) * y, a.d * b.d))
      }
      case '**': return reflected ? rpow(rt, other, this) : fracPow(rt, this, o)
    }
    return undefined
  }

  toFloat(): number {
    return Q.toFloat(this)
  }

  unary(op: string, nd?: unknown, rt?: unknown): unknown {
    switch (op) {
      case 'neg': return new PyFraction(-this.n, this.d)
      case 'pos': return this
      case 'abs': return new PyFraction(Q.abs(this.n), this.d)
      case 'int': case 'trunc': return mkInt(this.n < 0n ? -(-this.n / this.d) : this.n / this.d)
      case 'floor': return mkInt(Q.floorDiv(this.n, this.d))
      case 'ceil': return mkInt(-Q.floorDiv(-this.n, this.d))
      case 'float': return mkFloat(this.toFloat())
      case 'round': return round(rt as PyRun, this, nd)
      case 'hash': return mkInt(hash(this))
    }
    return undefined
  }

  method(_rt: unknown, name: string, a: unknown[], kw: PyDict | null): unknown {
    switch (name) {
      case 'limit_denominator': {
        const max = a.length ? a[0] : kw?.map.get('max_denominator')?.[1] ?? 1000000
        if (!isIntValue(max)) typeError(`'<' not supported between instances of '${typeName(max)}' and 'int'`)
        return limitDenominator(this, BigInt(intOf(max)))
      }
      case 'as_integer_ratio': return tuple([mkInt(this.n), mkInt(this.d)])
    }
    return undefined
  }

  attr(name: string): unknown {
    if (name === 'numerator') return mkInt(this.n)
    if (name === 'denominator') return mkInt(this.d)
    return undefined
  }
}

function decimal(x: bigint): string {
  const s = x.toString()
  if (s.length - (x < 0n ? 1 : 0) > MAX_STR_DIGITS) valueError('Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit')
  return s
}

/** a ** b: an integer power stays exact; any other is float arithmetic. */
function fracPow(rt: PyRun, a: PyFraction, b: Q.Ratio): unknown {
  if (b.d !== 1n) return numArith(rt, '**', mkFloat(a.toFloat()), mkFloat(Q.toFloat(b)))
  const p = mkInt(b.n < 0n ? -b.n : b.n)
  const ipow = (x: bigint): bigint => BigInt(intOf(numArith(rt, '**', mkInt(x), p)))
  if (b.n >= 0n) return new PyFraction(ipow(a.n), ipow(a.d))
  const [n, d] = a.n >= 0n ? [ipow(a.d), ipow(a.n)] : [ipow(-a.d), ipow(-a.n)]
  if (d === 0n) raise('ZeroDivisionError', `Fraction(${decimal(n)}, 0)`)
  return new PyFraction(n, d)
}

/** x ** fraction, x an int or a float (CPython's __rpow__). */
function rpow(rt: PyRun, x: unknown, b: PyFraction): unknown {
  if (b.d === 1n && b.n >= 0n) return numArith(rt, '**', x, mkInt(b.n))
  if (isIntValue(x)) return fracPow(rt, new PyFraction(BigInt(intOf(x)), 1n), b)
  return numArith(rt, '**', x, b.d === 1n ? mkInt(b.n) : mkFloat(b.toFloat()))
}

/** round(f) half to even (an int); round(f, nd) a fraction. */
function round(rt: PyRun, f: PyFraction, nd: unknown): unknown {
  if (nd === undefined || nd === null) return mkInt(halfEven(f))
  // CPython's __round__ computes 10 ** abs(nd) first.
  if (!isNumber(nd) && !(nd instanceof PyNumeric)) typeError(`bad operand type for abs(): '${typeName(nd)}'`)
  if (!isIntValue(nd)) return roundBy(rt, f, nd)
  const k = Number(intOf(nd))
  // 10 ** |nd| under the int `**` size limit (numbers.ts), with its MemoryError.
  if (Math.abs(k) * 3.33 > MAX_POW_BITS) raise('MemoryError', 'the result of ** is too large')
  const shift = 10n ** BigInt(Math.abs(k))
  if (k > 0) return PyFraction.of(Q.ratio(halfEven(Q.mul(f, Q.fromInt(shift))), shift))
  return PyFraction.of(Q.fromInt(halfEven(Q.div(f, Q.fromInt(shift))) * shift))
}

const halfEven = (r: Q.Ratio): bigint => {
  const fl = Q.floorDiv(r.n, r.d), twice = (r.n - fl * r.d) * 2n
  return twice < r.d ? fl : twice > r.d ? fl + 1n : fl % 2n === 0n ? fl : fl + 1n
}

/**
 * round(f, nd) for an nd that is a float, a fraction or a Decimal: CPython's __round__ line by line
 * (`shift = 10 ** abs(nd)`, then `Fraction(round(f * shift), shift)` or `Fraction(round(f / shift) * shift)`),
 * so its results and errors are CPython's: a float shift makes Fraction(n, 100.0) 'both arguments should
 * be Rational instances' for a positive nd, and a float product, made exact, for a negative one.
 */
function roundBy(rt: PyRun, f: PyFraction, nd: unknown): unknown {
  const op = (o: string, a: unknown, b: unknown): unknown => numArith(rt, o, a, b) ?? unsupported(o === '**' ? '** or pow()' : o, a, b)
  const toInt = (x: unknown): unknown => (x instanceof PyFraction ? mkInt(halfEven(x)) : roundHalfEven(floatOf(x)))
  const size = nd instanceof PyNumeric ? nd.unary('abs', undefined, rt) : mkFloat(Math.abs(floatOf(nd)))
  const shift = op('**', 10, size)
  const positive = nd instanceof PyNumeric ? nd.compareTo(0, true)! > 0 : floatOf(nd) > 0
  if (positive) return makeFraction(rt, [toInt(op('*', f, shift)), shift], null)
  return makeFraction(rt, [op('*', toInt(op('/', f, shift)), shift)], null)
}

/** CPython's hash of a rational: n · d⁻¹ mod 2^61 - 1, with the sign (equal ints and floats hash alike). */
function hash(f: Q.Ratio): bigint {
  if (f.d === 1n) return numberHash(mkInt(f.n))!
  const dinv = Q.modPow(f.d % HASH_MOD, HASH_MOD - 2n, HASH_MOD)
  let h = dinv === 0n ? 314159n : ((Q.abs(f.n) % HASH_MOD) * dinv) % HASH_MOD
  if (f.n < 0n) h = -h
  return h === -1n ? -2n : h
}

/** The closest fraction with a denominator at most max (CPython's continued-fraction walk). */
function limitDenominator(f: PyFraction, max: bigint): PyFraction {
  if (max < 1n) valueError('max_denominator should be at least 1')
  if (f.d <= max) return f
  let p0 = 0n, q0 = 1n, p1 = 1n, q1 = 0n, n = f.n, d = f.d
  for (;;) {
    const a = Q.floorDiv(n, d)
    const q2 = q0 + a * q1
    if (q2 > max) break
    ;[p0, q0, p1, q1] = [p1, q1, p0 + a * p1, q2]
    ;[n, d] = [d, n - a * d]
  }
  const k = (max - q0) / q1
  const bound1 = Q.ratio(p0 + k * p1, q0 + k * q1)
  const bound2 = Q.ratio(p1, q1)
  const dist = (b: Q.Ratio): Q.Ratio => { const x = Q.sub(b, f); return { n: Q.abs(x.n), d: x.d } }
  return PyFraction.of(Q.cmp(dist(bound2), dist(bound1)) <= 0 ? bound2 : bound1)
}

const RATIONAL_TEXT = /^\s*([-+]?)(?=\d|\.\d)(\d*|\d+(?:_\d+)*)(?:(?:\/(\d+(?:_\d+)*))?|(?:\.(d*|\d+(?:_\d+)*))?(?:[eE]([-+]?\d+(?:_\d+)*))?)\s*$/

function parse(rt: PyRun, text: string): Q.Ratio {
  const m = RATIONAL_TEXT.exec(text)
  if (!m) return valueError(`Invalid literal for Fraction: ${repr(text)}`)
  const int = (s: string): bigint => {
    const digits = s.replace(/_/g, '')
    if (digits.length > MAX_STR_DIGITS) valueError(strToIntLimit(digits.length))
    return BigInt(digits || '0')
  }
  let n = int(m[2]!), d = 1n
  if (m[3]) d = int(m[3])
  else {
    // CPython's pattern reads a literal `d*` here: only digits (or nothing) follow the point.
    const dec = m[4] && /^[\d_]+$/.test(m[4]) ? m[4].replace(/_/g, '') : ''
    if (dec) { const scale = 10n ** BigInt(dec.length); n = n * scale + BigInt(dec); d *= scale }
    if (m[5]) {
      // 10 ** e as the int `**` makes it: charged first, MemoryError past its size limit.
      const scale = BigInt(intOf(numArith(rt, '**', 10, mkInt(int(m[5].replace(/^[-+]/, ''))))))
      if (m[5].startsWith('-')) d *= scale
      else n *= scale
    }
  }
  if (m[1] === '-') n = -n
  if (d === 0n) raise('ZeroDivisionError', `Fraction(${decimal(n)}, 0)`)
  return Q.ratio(n, d)
}

/** The exact ratio of a finite float (`float.as_integer_ratio`, CPython's errors for nan and inf). */
export function floatRatio(f: number): Q.Ratio {
  if (Number.isNaN(f)) valueError('cannot convert NaN to integer ratio')
  if (!Number.isFinite(f)) raise('OverflowError', 'cannot convert Infinity to integer ratio')
  return Q.fromFloat(f)
}

/** `Fraction(numerator=0, denominator=None)`. */
export function makeFraction(rt: PyRun, a: unknown[], kw: PyDict | null): PyFraction {
  const args = [...a]
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const at = k === 'numerator' ? 0 : k === 'denominator' ? 1 : -1
      if (at < 0) typeError(`Fraction.__new__() got an unexpected keyword argument '${String(k)}'`)
      if (args[at] !== undefined) typeError(`Fraction.__new__() got multiple values for argument '${String(k)}'`)
      args[at] = v
    }
  }
  if (args.length > 2) typeError(`Fraction.__new__() takes from 1 to 3 positional arguments but ${args.length + 1} were given`)
  const [x = 0, y = null] = args
  if (y === null) {
    if (isRational(x)) return x instanceof PyFraction ? x : new PyFraction(BigInt(intOf(x)), 1n)
    if (isFloatValue(x)) return PyFraction.of(floatRatio(floatOf(x)))
    if (typeof x === 'string') return PyFraction.of(parse(rt, x))
    return typeError('argument should be a string or a Rational instance')
  }
  if (!isRational(x) || !isRational(y)) return typeError('both arguments should be Rational instances')
  const p = ratioOf(x), q = ratioOf(y)
  const n = p.n * q.d, d = q.n * p.d
  if (d === 0n) raise('ZeroDivisionError', `Fraction(${decimal(n)}, 0)`)
  return PyFraction.of(Q.ratio(n, d))
}

/** `Fraction.from_float(f)`: an int or a float, exactly. */
export function fractionFromFloat(a: unknown[]): PyFraction {
  if (a.length !== 1) typeError(`Fraction.from_float() takes 2 positional arguments but ${a.length + 1} were given`)
  const f = a[0]
  if (isIntValue(f)) return new PyFraction(BigInt(intOf(f)), 1n)
  if (!isFloatValue(f)) typeError(`Fraction.from_float() only takes floats, not ${repr(f)} (${typeName(f)})`)
  return PyFraction.of(floatRatio(floatOf(f)))
}

export const FRACTION_FUNCTIONS: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  Fraction: (rt, a, kw) => makeFraction(rt, a, kw),
  'Fraction.from_float': (_rt, a) => fractionFromFloat(a),
}

