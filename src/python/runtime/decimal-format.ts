/**
 * Format specs of `decimal.Decimal` (`f"{d:,.2f}"`, `format(d, "%")`), as CPython 3.11's
 * `Decimal.__format__`: the digits are rounded in decimal with the context's rounding mode (never
 * through a float), no type is like `g` with the context's capitals, and a precision is kept
 * exactly (`f"{Decimal('1.005'):.2f}"` is `1.00` under ROUND_HALF_EVEN, `1.01` under ROUND_HALF_UP).
 */
import { valueError } from './errors.ts'
import { SSIZE_MAX } from './numbers.ts'
import * as N from './decimal-num.ts'
import { Dec, type Ctx } from './decimal-num.ts'

/** libmpdec's MPD_MAX_PREC on 64-bit builds: a larger width or precision is read as Infinity. */
const MPD_MAX_PREC = 10n ** 18n - 1n
const limited = (digits: string): number => (BigInt(digits) > MPD_MAX_PREC ? Infinity : Number(digits))

// CPython's C implementation takes neither `#` nor `_`.
const SPEC = /^(?:(.)?([<>=^]))?([-+ ])?(z)?()(0)?((?!0)\d+)?(,)?(?:\.(0|(?!0)\d+))?([eEfFgGn%])?$/su

interface Spec {
  fill: string
  align: string
  sign: string
  noNegZero: boolean
  alt: boolean
  zeropad: boolean
  width: number
  sep: string
  precision: number | null
  type: string
}

function parse(text: string): Spec {
  const m = SPEC.exec(text)
  if (!m) return valueError('invalid format string')
  // libmpdec reads a width and a precision as Py_ssize_t: beyond it the spec is invalid.
  if ((m[7] && BigInt(m[7]) > SSIZE_MAX) || (m[9] && BigInt(m[9]) > SSIZE_MAX)) valueError('invalid format string')
  const zeropad = m[6] !== undefined
  // libmpdec's spec has no 0 flag after an alignment (format(Decimal(1), '>09') is invalid; '0=9' is a fill).
  if (zeropad && m[2] !== undefined) valueError('invalid format string')
  let precision = m[9] !== undefined ? limited(m[9]) : null
  const type = m[10] ?? ''
  if (precision === 0 && (type === '' || 'gGn'.includes(type))) precision = 1
  if (type === 'n' && m[8]) valueError('invalid format string')
  return {
    fill: zeropad && !m[2] ? '0' : m[1] ?? ' ',
    align: m[2] ?? (zeropad ? '=' : '>'),
    sign: m[3] ?? '-',
    noNegZero: m[4] !== undefined,
    alt: false,
    zeropad: zeropad && !m[2],
    width: m[7] ? limited(m[7]) : 0,
    sep: m[8] ?? '',
    precision,
    type: type === 'n' ? 'g' : type,
  }
}

const signOf = (neg: boolean, spec: Spec): string => (neg ? '-' : spec.sign === '-' ? '' : spec.sign)

function align(sign: string, body: string, spec: Spec): string {
  const n = spec.width - [...sign].length - [...body].length
  if (n <= 0) return sign + body
  const pad = spec.fill.repeat(n)
  switch (spec.align) {
    case '<': return sign + body + pad
    case '=': return sign + pad + body
    case '^': { const h = n >> 1; return spec.fill.repeat(h) + sign + body + spec.fill.repeat(n - h) }
    default: return pad + sign + body
  }
}

/** Digits with the separator every three, zero-padded to minWidth when zero padding (CPython's `_insert_thousands_sep`). */
function group(digits: string, spec: Spec, minWidth: number): string {
  if (!spec.sep) return digits.padStart(Math.max(minWidth, 1), '0')
  const groups: string[] = []
  for (;;) {
    const l = Math.min(Math.max(digits.length, minWidth, 1), 3)
    groups.push(digits.slice(-l).padStart(l, '0'))
    digits = digits.slice(0, -l)
    minWidth -= l
    if (!digits && minWidth <= 0) break
    minWidth -= spec.sep.length
  }
  return groups.reverse().join(spec.sep)
}

/** `pay(n)`: pay for a text of n characters before it is built (a width or a long run of zeros). */
export function formatDecimal(x: Dec, specText: string, ctx: Ctx, pay: (n: number) => void): string {
  const spec = parse(specText)
  // _decimal refuses a width (and a finite number's precision) beyond libmpdec's MPD_MAX_PREC before building.
  if (spec.width === Infinity || (x.finite && spec.precision === Infinity)) valueError('format specification exceeds internal limits of _decimal')
  pay(spec.width)
  if (!x.finite) {
    let body = N.sciText(N.absolute(x), ctx.capitals)
    if (spec.type === '%') body += '%'
    // _decimal pads an infinity or a NaN with spaces, right-aligned, where the 0 flag asked for zeros ('  NaN'); an explicit '0=' keeps them.
    return align(signOf(x.sign === 1, spec), body, spec.zeropad ? { ...spec, fill: ' ', align: '>' } : spec)
  }
  const type = spec.type || (ctx.capitals ? 'G' : 'g')
  if (type === '%') x = new Dec(x.sign, x.coef, x.exp + 2)
  const p = spec.precision
  if (p !== null) {
    if ('eE'.includes(type)) x = N.roundDigits(x, p + 1, ctx.rounding, ctx)
    else if ('fF%'.includes(type)) x = N.rescale(x, -p, ctx.rounding, ctx)
    else if (x.digits > p) x = N.roundDigits(x, p, ctx.rounding, ctx)
  }
  if (x.zero && x.exp > 0 && 'fF%'.includes(type)) x = N.rescale(x, 0, ctx.rounding, ctx)
  const neg = x.sign === 1 && !(x.zero && spec.noNegZero)
  const digits = N.digitText(x.coef)
  const left = x.exp + digits.length
  let dot: number
  if ('eE'.includes(type)) dot = x.zero && p !== null ? 1 - p : 1
  else if ('fF%'.includes(type)) dot = left
  else dot = x.exp <= 0 && left > -6 ? left : 1
  pay(digits.length + Math.abs(dot))
  let int: string, frac: string
  if (dot < 0) { int = '0'; frac = '0'.repeat(-dot) + digits }
  else if (dot > digits.length) { int = digits + '0'.repeat(dot - digits.length); frac = '' }
  else { int = digits.slice(0, dot) || '0'; frac = digits.slice(dot) }
  const exp = left - dot
  const sign = signOf(neg, spec)
  if (frac || spec.alt) frac = '.' + frac
  if (exp !== 0 || 'eE'.includes(type)) frac += `${'EG'.includes(type) ? 'E' : 'e'}${exp < 0 ? '-' : '+'}${Math.abs(exp)}`
  if (type === '%') frac += '%'
  const minWidth = spec.zeropad ? spec.width - frac.length - sign.length : 0
  return align(sign, group(int, spec, minWidth) + frac, spec)
}
