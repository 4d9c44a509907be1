/**
 * `statistics` (extended profile), CPython 3.11's algorithms and so its results to the last bit:
 * `mean`, `variance`, `pvariance`, `stdev`, `pstdev` and `harmonic_mean` sum exactly (ints, floats
 * and fractions as exact ratios, rational.ts) and round once at the end, in the type CPython picks
 * (all ints: an int when exact; a float among them: a float; fractions: a Fraction; decimals: a
 * Decimal, divided and square-rooted in the run's context as CPython's `_convert` and
 * `_decimal_sqrt_of_frac` do); `fmean`,
 * `covariance`, `correlation` and `linear_regression` are float arithmetic over `fsum`, which is
 * the exact sum rounded once; the medians, `quantiles` and the modes use the runtime's own
 * operators and comparisons, as CPython uses the values' own.
 */
import { PyDict, PyNamedTupleType, PyNumeric, mkFloat, mkInt, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { floatOf, intOf, isFloatValue, isIntValue, isNumber } from './numbers.ts'
import { hashKey, iterate, lt, repr, truth } from './core.ts'
import { add, mul, sub, truediv } from './ops.ts'
import { sortItems, float as toFloatValue } from './builtins.ts'
import { makeNamedTuple } from './namedtuple.ts'
import { PyFraction } from './fractions.ts'
import { PyDecimal, decimalOfRatio, decimalSqrtOfRatio } from './decimal.ts'
import { bigWorkUnits, type PyRun } from './fuel.ts'
import * as Q from './rational.ts'
import { fsum as mathFsum, real } from './fsum.ts'

type Fn = (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown
/** The type CPython converts a result to (`_coerce` over the data's types). */
type Kind = 'int' | 'float' | 'Fraction' | 'Decimal'
/** An exact total, or the float sum of the infinities and NaNs among the data (CPython's `partials[None]`). */
type Total = Q.Ratio | number

const fail = (message: string): never => raise('StatisticsError', message)

/** A number as CPython's `_exact_ratio` reads it: its kind and ratio, or a non-finite float. */
function exact(x: unknown, rt?: PyRun): [Kind, Total] {
  if (isIntValue(x)) return ['int', Q.fromInt(BigInt(intOf(x)))]
  if (isFloatValue(x)) {
    const f = floatOf(x)
    return ['float', Number.isFinite(f) ? Q.fromFloat(f) : f]
  }
  if (x instanceof PyFraction) return ['Fraction', x]
  if (x instanceof PyDecimal) return ['Decimal', x.d.finite ? x.ratio(rt) : x.toFloat()]
  return typeError(`can't convert type '${typeName(x)}' to numerator/denominator`)
}

/** CPython's `_coerce`: int gives way to any type, Fraction to float; Decimal mixes with neither. */
function coerce(t: Kind, s: Kind): Kind {
  if (t === s || s === 'int') return t
  if (t === 'int') return s
  if (t !== 'Decimal' && s !== 'Decimal') return 'float'
  return typeError(`don't know how to coerce ${t} and ${s}`)
}

const bitsOf = (r: Q.Ratio): number => Math.max(Q.abs(r.n).toString(16).length, r.d.toString(16).length) * 4

/** CPython's `_sum`: the kind, the exact total and the count. */
function exactSum(rt: PyRun, items: readonly unknown[]): { kind: Kind; total: Total; count: number } {
  let kind: Kind = 'int', special: number | null = null
  // Grouped by denominator as CPython's partials are: a float's is a power of two, few distinct ones.
  const partials = new Map<bigint, bigint>()
  for (const x of items) {
    const [k, r] = exact(x, rt)
    kind = coerce(kind, k)
    if (typeof r === 'number') { special = (special ?? 0) + r; continue }
    rt.charge(bigWorkUnits(bitsOf(r)))
    partials.set(r.d, (partials.get(r.d) ?? 0n) + r.n)
  }
  let total: Total = special ?? Q.ZERO
  if (special === null) for (const [d, n] of partials) total = Q.add(total as Q.Ratio, Q.ratio(n, d))
  return { kind, total, count: items.length }
}

/** CPython's `_convert`: an int when the kind is int and the value whole, else a float; a Fraction stays one. */
function convert(v: Total, kind: Kind, rt?: PyRun): unknown {
  if (kind === 'Decimal') return decimalOfRatio(rt, v)
  if (typeof v === 'number') return v
  if (kind === 'Fraction') return PyFraction.of(v)
  if (kind === 'int' && v.d === 1n) return mkInt(v.n)
  return mkFloat(Q.toFloat(v))
}

const divBy = (t: Total, n: number | Q.Ratio): Total => (typeof t === 'number' ? t / (typeof n === 'number' ? n : Q.toFloat(n)) : Q.div(t, typeof n === 'number' ? Q.fromInt(BigInt(n)) : n))

/** `math.fsum` over the items (fsum.ts), each charged as the exact work of its value. */
function fsum(rt: PyRun, xs: readonly unknown[]): number {
  const floats = xs.map(real)
  for (const f of floats) if (Number.isFinite(f)) rt.charge(bigWorkUnits(bitsOf(Q.fromFloat(f))))
  return mathFsum(floats)
}

/** CPython's `_ss`: kind, sum of squared deviations, and count (c given: deviations from c). */
function squares(rt: PyRun, items: readonly unknown[], c: unknown): { kind: Kind; ss: Total; count: number } {
  if (c !== null && c !== undefined) {
    const { kind, total, count } = exactSum(rt, items.map((x) => { const d = sub(rt, x, c); return mul(rt, d, d) }))
    return { kind, ss: total, count }
  }
  let kind: Kind = 'int', special: number | null = null
  const sx = new Map<bigint, bigint>(), sxx = new Map<bigint, bigint>()
  for (const x of items) {
    const [k, r] = exact(x, rt)
    kind = coerce(kind, k)
    if (typeof r === 'number') { special = (special ?? 0) + r; continue }
    rt.charge(bigWorkUnits(bitsOf(r)) * 2)
    sx.set(r.d, (sx.get(r.d) ?? 0n) + r.n)
    sxx.set(r.d, (sxx.get(r.d) ?? 0n) + r.n * r.n)
  }
  const count = items.length
  if (count === 0) return { kind, ss: Q.ZERO, count }
  if (special !== null) return { kind, ss: special, count }
  let s1 = Q.ZERO, s2 = Q.ZERO
  for (const [d, n] of sx) s1 = Q.add(s1, Q.ratio(n, d))
  for (const [d, n] of sxx) s2 = Q.add(s2, Q.ratio(n, d * d))
  const k = Q.fromInt(BigInt(count))
  return { kind, ss: Q.div(Q.sub(Q.mul(k, s2), Q.mul(s1, s1)), k), count }
}

/** The positional arguments, CPython's TypeError past `max`; keywords only as `names` allows. */
function args(name: string, a: unknown[], kw: PyDict | null, min: number, names: readonly string[], positional = names.length): unknown[] {
  const out = [...a]
  if (a.length > positional) typeError(`${name}() takes ${positional === 1 ? '1 positional argument' : `from ${min} to ${positional} positional arguments`} but ${a.length} were given`)
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const at = names.indexOf(k as string)
      if (at < 0 || (at < positional && at < a.length)) typeError(at < 0 ? `${name}() got an unexpected keyword argument '${String(k)}'` : `${name}() got multiple values for argument '${String(k)}'`)
      out[at] = v
    }
  }
  for (let i = 0; i < min; i++) if (out[i] === undefined) typeError(`${name}() missing 1 required positional argument: '${names[i]}'`)
  return out
}

const data = (rt: PyRun, x: unknown): readonly unknown[] => iterate(x, rt)
const sortedData = (rt: PyRun, x: unknown): unknown[] => sortItems(rt, [...iterate(x, rt)], null, false)

/** `_float_sqrt_of_frac` of a mean square (a non-finite one has no numerator, as in CPython). */
function sqrtOf(t: Total): number {
  if (typeof t === 'number') return raise('AttributeError', "'float' object has no attribute 'numerator'")
  return Q.sqrtOfRatio(t.n, t.d)
}

function spread(name: string, sample: boolean, root: boolean): Fn {
  return (rt, a, kw) => {
    const [xs, c] = args(name, a, kw, 1, ['data', sample ? 'xbar' : 'mu'])
    const { kind, ss, count } = squares(rt, data(rt, xs), c)
    const need = sample ? 2 : 1
    if (count < need) fail(`${name} requires at least ${sample ? 'two data points' : 'one data point'}`)
    const m = divBy(ss, sample ? count - 1 : count)
    if (root && kind === 'Decimal' && typeof m !== 'number') return decimalSqrtOfRatio(rt, m)
    return root ? mkFloat(sqrtOf(m)) : convert(m, kind, rt)
  }
}

function modes(rt: PyRun, x: unknown): Array<[unknown, number]> {
  const counts = new Map<unknown, [unknown, number]>()
  const items = iterate(x, rt)
  rt.chargeSlots(items.length)
  for (const v of items) {
    const k = hashKey(v)
    const e = counts.get(k)
    if (e) e[1]++
    else counts.set(k, [v, 1])
  }
  return [...counts.values()]
}

function pairs(name: string, rt: PyRun, a: unknown[], kw: PyDict | null, what: string, extra: readonly string[] = []): [unknown[], unknown[], unknown[]] {
  if (a.length > 2) typeError(`${name}() takes 2 positional arguments but ${a.length} were given`)
  if (a.length < 2) typeError(a.length === 0 ? `${name}() missing 2 required positional arguments: 'x' and 'y'` : `${name}() missing 1 required positional argument: 'y'`)
  const opts: unknown[] = []
  if (kw) for (const [k, v] of kw.map.values()) { const at = extra.indexOf(k as string); if (at < 0) typeError(`${name}() got an unexpected keyword argument '${String(k)}'`); opts[at] = v }
  const x = [...iterate(a[0], rt)], y = [...iterate(a[1], rt)]
  if (x.length !== y.length) fail(`${what} requires that both inputs have same number of data points`)
  if (x.length < 2) fail(`${what} requires at least two data points`)
  return [x, y, opts]
}

/** Sums of products about the means: sxy, sxx, syy (CPython's generator expressions over fsum). */
function moments(rt: PyRun, x: unknown[], y: unknown[]): { xbar: unknown; ybar: unknown; sxy: number; sxx: number; syy: number } {
  const n = x.length
  rt.chargeSlots(3 * n)
  const xbar = mkFloat(fsum(rt, x) / n), ybar = mkFloat(fsum(rt, y) / n)
  const dx = x.map((v) => sub(rt, v, xbar)), dy = y.map((v) => sub(rt, v, ybar))
  return {
    xbar, ybar,
    sxy: fsum(rt, dx.map((d, i) => mul(rt, d, dy[i]))),
    sxx: fsum(rt, dx.map((d) => mul(rt, d, d))),
    syy: fsum(rt, dy.map((d) => mul(rt, d, d))),
  }
}

const LINEAR_REGRESSION = new PyNamedTupleType('LinearRegression', ['slope', 'intercept'], [])

function checkNegative(rt: PyRun, xs: readonly unknown[], message: string): void {
  for (const x of xs) if (lt(x, 0)) fail(message)
  rt.chargeSlots(xs.length)
}

export const STATISTICS_FUNCTIONS: Record<string, Fn> = {
  mean: (rt, a, kw) => {
    const [xs] = args('mean', a, kw, 1, ['data'])
    const { kind, total, count } = exactSum(rt, data(rt, xs))
    if (count < 1) fail('mean requires at least one data point')
    return convert(divBy(total, count), kind, rt)
  },
  fmean: (rt, a, kw) => {
    const [xs, weights] = args('fmean', a, kw, 1, ['data', 'weights'])
    const d = data(rt, xs)
    if (weights === undefined || weights === null) {
      const total = fsum(rt, d)
      if (d.length === 0) fail('fmean requires at least one data point')
      return mkFloat(total / d.length)
    }
    const w = data(rt, weights)
    rt.chargeSlots(d.length)
    const num = fsum(rt, d.slice(0, w.length).map((x, i) => mul(rt, x, w[i])))
    if (d.length !== w.length) fail('data and weights must be the same length')
    const den = fsum(rt, w)
    if (den === 0) fail('sum of weights must be non-zero')
    return mkFloat(num / den)
  },
  harmonic_mean: (rt, a, kw) => {
    const [xs, weights] = args('harmonic_mean', a, kw, 1, ['data', 'weights'])
    const d = data(rt, xs)
    const message = 'harmonic mean does not support negative values'
    if (d.length < 1) fail('harmonic_mean requires at least one data point')
    if (d.length === 1 && (weights === undefined || weights === null)) {
      const x = d[0]
      if (!isNumber(x) && !(x instanceof PyNumeric)) typeError('unsupported type')
      if (lt(x, 0)) fail(message)
      return x
    }
    let w: readonly unknown[], sumWeights: Total
    if (weights === undefined || weights === null) {
      w = d.map(() => 1)
      sumWeights = Q.fromInt(BigInt(d.length))
    } else {
      w = data(rt, weights)
      if (w.length !== d.length) fail('Number of weights does not match data size')
      checkNegative(rt, w, message)
      sumWeights = exactSum(rt, w).total
    }
    const terms: unknown[] = []
    for (let i = 0; i < d.length; i++) {
      if (lt(d[i], 0)) fail(message)
      if (!truth(w[i])) { terms.push(0); continue }
      try {
        terms.push(truediv(rt, w[i], d[i]))
      } catch (e) {
        if ((e as { value?: { pyType?: string } })?.value?.pyType === 'ZeroDivisionError') return 0
        throw e
      }
    }
    const { kind, total } = exactSum(rt, terms)
    if (typeof total === 'number' ? total <= 0 : total.n <= 0n) fail('Weighted sum must be positive')
    if (typeof total === 'number' || typeof sumWeights === 'number') return mkFloat(Q.toFloat(sumWeights as Q.Ratio) / (typeof total === 'number' ? total : Q.toFloat(total)))
    return convert(Q.div(sumWeights, total), kind, rt)
  },
  median: (rt, a, kw) => {
    const [xs] = args('median', a, kw, 1, ['data'])
    const s = sortedData(rt, xs), n = s.length
    if (n === 0) fail('no median for empty data')
    if (n % 2 === 1) return s[n >> 1]
    return truediv(rt, add(rt, s[n / 2 - 1], s[n / 2]), 2)
  },
  median_low: (rt, a, kw) => {
    const [xs] = args('median_low', a, kw, 1, ['data'])
    const s = sortedData(rt, xs), n = s.length
    if (n === 0) fail('no median for empty data')
    return n % 2 === 1 ? s[n >> 1] : s[n / 2 - 1]
  },
  median_high: (rt, a, kw) => {
    const [xs] = args('median_high', a, kw, 1, ['data'])
    const s = sortedData(rt, xs), n = s.length
    if (n === 0) fail('no median for empty data')
    return s[n >> 1]
  },
  median_grouped: (rt, a, kw) => {
    const [xs, interval = 1.0] = args('median_grouped', a, kw, 1, ['data', 'interval'])
    const s = sortedData(rt, xs), n = s.length
    if (n === 0) fail('no median for empty data')
    const x = s[n >> 1]
    let i = 0
    while (i < n && lt(s[i], x)) i++
    let j = i
    while (j < n && !lt(x, s[j])) j++
    const asFloat = (v: unknown): number => {
      try {
        return floatOf(toFloatValue(v))
      } catch (e) {
        if ((e as { value?: { pyType?: string } })?.value?.pyType === 'ValueError') typeError('Value cannot be converted to a float')
        throw e
      }
    }
    const w = asFloat(interval), xf = asFloat(x)
    return mkFloat(xf - w / 2.0 + w * (n / 2 - i) / (j - i))
  },
  mode: (rt, a, kw) => {
    const [xs] = args('mode', a, kw, 1, ['data'])
    const counts = modes(rt, xs)
    if (counts.length === 0) fail('no mode for empty data')
    let best = counts[0]!
    for (const e of counts) if (e[1] > best[1]) best = e
    return best[0]
  },
  multimode: (rt, a, kw) => {
    const [xs] = args('multimode', a, kw, 1, ['data'])
    const counts = modes(rt, xs)
    const max = Math.max(0, ...counts.map((e) => e[1]))
    return counts.filter((e) => e[1] === max).map((e) => e[0])
  },
  quantiles: (rt, a, kw) => {
    const [xs, nArg = 4, method = 'exclusive'] = args('quantiles', a, kw, 1, ['data', 'n', 'method'], 1)
    if (!isIntValue(nArg)) typeError(`'<' not supported between instances of '${typeName(nArg)}' and 'int'`)
    const n = Number(intOf(nArg))
    if (n < 1) fail('n must be at least 1')
    const s = sortedData(rt, xs), ld = s.length
    if (ld < 2) fail('must have at least two data points')
    const out: unknown[] = []
    const point = (lo: unknown, hi: unknown, delta: number) => truediv(rt, add(rt, mul(rt, lo, n - delta), mul(rt, hi, delta)), n)
    if (method === 'inclusive') {
      const m = ld - 1
      for (let i = 1; i < n; i++) {
        const j = Math.floor((i * m) / n), delta = (i * m) % n
        out.push(point(s[j], s[j + 1], delta))
      }
      return out
    }
    if (method === 'exclusive') {
      const m = ld + 1
      for (let i = 1; i < n; i++) {
        let j = Math.floor((i * m) / n)
        j = j < 1 ? 1 : j > ld - 1 ? ld - 1 : j
        out.push(point(s[j - 1], s[j], i * m - j * n))
      }
      return out
    }
    return valueError(`Unknown method: ${repr(method)}`)
  },
  variance: spread('variance', true, false),
  pvariance: spread('pvariance', false, false),
  stdev: spread('stdev', true, true),
  pstdev: spread('pstdev', false, true),
  covariance: (rt, a, kw) => {
    const [x, y] = pairs('covariance', rt, a, kw, 'covariance')
    return mkFloat(moments(rt, x, y).sxy / (x.length - 1))
  },
  correlation: (rt, a, kw) => {
    const [x, y] = pairs('correlation', rt, a, kw, 'correlation')
    const { sxy, sxx, syy } = moments(rt, x, y)
    const den = Math.sqrt(sxx * syy)
    if (den === 0) fail('at least one of the inputs is constant')
    return mkFloat(sxy / den)
  },
  linear_regression: (rt, a, kw) => {
    const [x, y, [proportional]] = pairs('linear_regression', rt, a, kw, 'linear regression', ['proportional'])
    let sxy: number, sxx: number, xbar: unknown = 0, ybar: unknown = 0
    if (truth(proportional ?? false)) {
      rt.chargeSlots(2 * x.length)
      sxy = fsum(rt, x.map((v, i) => mul(rt, v, y[i])))
      sxx = fsum(rt, x.map((v) => mul(rt, v, v)))
    } else {
      ({ sxy, sxx, xbar, ybar } = moments(rt, x, y))
    }
    if (sxx === 0) fail('x is constant')
    const slope = sxy / sxx
    const intercept = truth(proportional ?? false) ? 0.0 : floatOf(sub(rt, ybar, mul(rt, mkFloat(slope), xbar)))
    return makeNamedTuple(LINEAR_REGRESSION, [mkFloat(slope), mkFloat(intercept)], null)
  },
}
