/**
 * The format mini-language (`format(x, spec)`, f-string `{x:spec}`,
 * `str.format`) and printf-style `%` formatting, for int, float and str.
 */
import { PyDeque, PyDict, PyFloat, PyInstance, PyNumeric, PyRange, isTuple, typeName } from './values.ts'
import { MISSING, callIf } from './dunders.ts'
import { raise, typeError, valueError } from './errors.ts'
import { repr, str } from './core.ts'
import { INT_MAX, SSIZE_MAX, decimalText, fitsCInt, fitsSsize, floatOf, intOf, isFloatValue, isIntValue, truncFloat } from './numbers.ts'
import { expParts, expText, fixedAbs, floatRepr, generalAbs } from './float-text.ts'
import { strLen } from './text.ts'
import { getItem } from './items.ts'
import { payChars, type PyRun } from './fuel.ts'
import { timeFormat } from './datetime.ts'
import { getAttr } from './extended.ts'

interface Spec {
  fill: string
  align: string
  sign: string
  z: boolean
  alt: boolean
  zero: boolean
  width: number
  grouping: string
  precision: number | null
  type: string
}

// The type is any one character, as CPython's parser (an unknown one is the formatter's 'Unknown format code').
const SPEC = /^(?:(.)?([<>=^]))?([+\- ])?(z)?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?(.)?$/su
/** What comes before a grouping or a precision, for CPython's messages when the spec does not parse. */
const HEAD = String.raw`^(?:.?[<>=^])?[+\- ]?z?#?0?\d*`
const TWO_GROUPINGS = new RegExp(HEAD + '([,_])([,_])', 'su')
const NO_PRECISION = new RegExp(HEAD + '[,_]?\\.(?!\\d)', 'su')

/** Parsed specs by text (a spec in a loop is parsed once; Spec objects are never changed). */
const specs = new Map<string, Spec | null>()

/** A parsed spec, or null when it is no spec (CPython's message names the value's type). */
function parseSpec(spec: string): Spec | null {
  let s = specs.get(spec)
  if (s === undefined) {
    s = parseSpecText(spec)
    if (specs.size >= 1024) specs.clear()
    specs.set(spec, s)
  }
  return s
}

function parseSpecText(spec: string): Spec | null {
  const m = SPEC.exec(spec)
  // A '.' or a second grouping read as the type is CPython's message for what precedes it.
  if (!m || m[10] === '.' || (m[8] !== undefined && (m[10] === ',' || m[10] === '_'))) {
    const two = TWO_GROUPINGS.exec(spec)
    if (two) valueError(two[1] === two[2] ? `Cannot specify '${two[1]}' with '${two[2]}'.` : "Cannot specify both ',' and '_'.")
    if (NO_PRECISION.test(spec)) valueError('Format specifier missing precision')
    return null
  }
  // CPython refuses a width or precision that does not fit a Py_ssize_t (leading zeros are no digits too many).
  if ((m[7] && BigInt(m[7]) > SSIZE_MAX) || (m[9] && BigInt(m[9]) > SSIZE_MAX)) valueError('Too many decimal digits in format string')
  return {
    // CPython: the 0 flag makes '0' the fill unless one is given; '=' the alignment only of numbers, when none is given (pad).
    fill: m[1] ?? (m[6] ? '0' : ' '),
    align: m[2] ?? '',
    sign: m[3] ?? '',
    z: !!m[4],
    alt: !!m[5],
    zero: !!m[6],
    width: m[7] ? Number(m[7]) : 0,
    grouping: m[8] ?? '',
    precision: m[9] !== undefined ? Number(m[9]) : null,
    type: m[10] ?? '',
  }
}

/** Pad to the spec's width; the fill is paid for before it is built. */
function pad(rt: PyRun, body: string, sign: string, spec: Spec, defaultAlign: string): string {
  const len = strLen(sign) + strLen(body)
  const n = spec.width - len
  if (n <= 0) return sign + body
  payChars(rt, spec.width)
  const align = spec.align || (spec.zero && defaultAlign === '>' ? '=' : defaultAlign)
  const fill = spec.fill
  switch (align) {
    case '<': return sign + body + fill.repeat(n)
    case '>': return fill.repeat(n) + sign + body
    case '^': { const l = Math.floor(n / 2); return fill.repeat(l) + sign + body + fill.repeat(n - l) }
    default: return sign + fill.repeat(n) + body
  }
}

/** Digits with a separator every `every` from the right: one pass (issue 23, class 5). */
function group(digits: string, sep: string, every: number): string {
  if (!sep) return digits
  const first = digits.length % every || every
  const parts = [digits.slice(0, first)]
  for (let i = first; i < digits.length; i += every) parts.push(digits.slice(i, i + every))
  return parts.join(sep)
}

/** Length of `n` digits grouped by a one-character separator every `every`. */
const groupedLength = (n: number, every: number): number => n + Math.floor((n - 1) / every)

/**
 * Grouping of the integer part when zero padding: CPython pads with grouped
 * zeros up to the width (never starting with a separator). The number of
 * zeros is computed, not searched for, and paid for before it is built.
 */
function zeroGroup(rt: PyRun, intPart: string, rest: string, sign: string, spec: Spec, every: number): string {
  if (!(spec.fill === '0' && (spec.align === '=' || (!spec.align && spec.zero))) || !spec.grouping) return group(intPart, spec.grouping, every) + rest
  const target = spec.width - strLen(sign) - strLen(rest)
  if (groupedLength(intPart.length, every) >= target) return group(intPart, spec.grouping, every) + rest
  // The fewest digits whose grouped length reaches the target.
  let n = Math.max(intPart.length, target - Math.floor(target / (every + 1)))
  while (groupedLength(n, every) < target) n++
  while (n > intPart.length && groupedLength(n - 1, every) >= target) n--
  payChars(rt, groupedLength(n, every))
  return group('0'.repeat(n - intPart.length) + intPart, spec.grouping, every) + rest
}

/** CPython's message for a type code no formatter knows (a non-ASCII one as '\\x20ac'). */
function unknownCode(t: string, type: string): never {
  const cp = t.codePointAt(0)!
  return valueError(`Unknown format code '${cp > 127 ? `\\x${cp.toString(16)}` : t}' for object of type '${type}'`)
}

function signOf(neg: boolean, spec: Spec): string {
  if (neg) return '-'
  return spec.sign === '+' ? '+' : spec.sign === ' ' ? ' ' : ''
}

function formatInt(rt: PyRun, v: number | bigint, spec: Spec, name = 'int'): string {
  const t = spec.type || 'd'
  if ('eEfFgG%'.includes(t)) return formatFloat(rt, Number(v), spec)
  if (!'bcdoxXn'.includes(t)) unknownCode(t, name)
  if (spec.precision !== null) valueError('Precision not allowed in integer format specifier')
  const neg = v < 0
  const a = neg ? -v : v
  if (t === 'c') {
    if (spec.sign !== '') valueError("Sign not allowed with integer format specifier 'c'")
    if (neg || a > 0x10ffff) raise('OverflowError', '%c arg not in range(0x110000)')
    return pad(rt, String.fromCodePoint(Number(a)), '', spec, '>')
  }
  let digits: string
  let prefix = ''
  if (typeof a === 'bigint' && 'boxX'.includes(t)) {
    // Power-of-two bases have no digit limit: pay for the digits before they are made.
    const hex = a.toString(16).length
    payChars(rt, t === 'b' ? hex * 4 : t === 'o' ? Math.ceil((hex * 4) / 3) : hex)
  }
  switch (t) {
    case 'b': digits = a.toString(2); prefix = '0b'; break
    case 'o': digits = a.toString(8); prefix = '0o'; break
    case 'x': digits = a.toString(16); prefix = '0x'; break
    case 'X': digits = a.toString(16).toUpperCase(); prefix = '0X'; break
    case 'd': case 'n': digits = decimalText(a); break
    default: return unknownCode(t, name)
  }
  if (spec.grouping === ',' && 'bcoxX'.includes(t)) valueError("Cannot specify ',' with '" + t + "'.")
  const sign = signOf(neg, spec) + (spec.alt ? prefix : '')
  const every = 'bxXo'.includes(t) ? 4 : 3
  return pad(rt, zeroGroup(rt, digits, '', sign, spec, every), sign, spec, '>')
}

function formatFloat(rt: PyRun, v: number, spec: Spec): string {
  // CPython formats a float's digits with a C int precision (checked before an inf or nan too).
  if (spec.precision !== null && spec.precision > INT_MAX) valueError('precision too big')
  let t = spec.type
  // An inf or nan is refused an integer's or a string's code too ('x', 's', ...), as every float is.
  if (t !== '' && !'eEfFgGn%'.includes(t)) return unknownCode(t, 'float')
  if (t === 'n') t = 'g'
  const neg = v < 0 || Object.is(v, -0)
  let a = Math.abs(v)
  let body: string
  if (!Number.isFinite(a)) {
    body = Number.isNaN(a) ? 'nan' : 'inf'
    if (t === 'E' || t === 'F' || t === 'G') body = body.toUpperCase()
    if (t === '%') body += '%'
    const s = signOf(neg && !Number.isNaN(v), spec)
    return pad(rt, body, s, spec, '>')
  }
  const p = spec.precision
  // A float's digits: the precision plus at most 309 before the point (and a few signs and marks).
  if (p !== null) payChars(rt, p + 320)
  switch (t) {
    case 'f': case 'F': body = fixedAbs(a, p ?? 6); if (spec.alt && !body.includes('.')) body += '.'; break
    case 'e': case 'E': {
      const { mant, exp } = expParts(a, p ?? 6)
      body = (spec.alt && !mant.includes('.') ? mant + '.' : mant) + expText(exp)
      if (t === 'E') body = body.toUpperCase()
      break
    }
    case 'g': case 'G':
      body = generalAbs(a, p === null ? 6 : Math.max(p, 1), spec.alt)
      if (t === 'G') body = body.toUpperCase()
      break
    case '%': a *= 100; body = fixedAbs(a, p ?? 6) + '%'; break
    case '':
      if (p === null) body = floatRepr(a)
      else {
        body = generalAbs(a, Math.max(p, 1), spec.alt)
        if (!/[.e]/.test(body)) body += '.0'
      }
      break
    default: return unknownCode(t, 'float')
  }
  let isZero = !/[1-9]/.test(body.replace(/e[+-]\d+$/, ''))
  const sign = signOf(neg && !(spec.z && isZero), spec)
  const dot = body.search(/[.e%]/)
  const intPart = dot < 0 ? body : body.slice(0, dot)
  const rest = dot < 0 ? '' : body.slice(dot)
  isZero = false
  return pad(rt, zeroGroup(rt, intPart, rest, sign, spec, 3), sign, spec, '>')
}

function formatStr(rt: PyRun, s: string, spec: Spec): string {
  if (spec.type && spec.type !== 's') unknownCode(spec.type, 'str')
  // CPython's checks, in its order.
  if (spec.grouping) valueError(`Cannot specify '${spec.grouping}' with 's'.`)
  if (spec.sign !== '') valueError(`${spec.sign === ' ' ? 'Space' : 'Sign'} not allowed in string format specifier`)
  if (spec.alt) valueError('Alternate form (#) not allowed in string format specifier')
  if (spec.align === '=') valueError("'=' alignment not allowed in string format specifier")
  let body = s
  if (spec.precision !== null) body = Array.from(s).slice(0, spec.precision).join('')
  return pad(rt, body, '', spec, '<')
}

/** format(value, spec). */
export function format(rt: PyRun, value: unknown, spec: string): string {
  if (spec === '') return value instanceof PyInstance ? guestFormat(rt, value, spec) : rt.chargeString(str(value))
  const time = timeFormat(value, spec)
  if (time !== undefined) return rt.chargeString(time)
  if (typeof value !== 'string' && !isIntValue(value) && !isFloatValue(value)) {
    if (value instanceof PyInstance) return guestFormat(rt, value, spec)
    if (value instanceof PyNumeric && value.format) return rt.chargeString(value.format(rt, spec))
    // object.__format__ takes no spec (checked before the spec is parsed, as CPython).
    return typeError(`unsupported format string passed to ${typeName(value)}.__format__`)
  }
  const sp = parseSpec(spec)
  if (sp === null) return valueError(`Invalid format specifier '${spec}' for object of type '${typeName(value)}'`)
  let out: string
  if (typeof value === 'string') out = formatStr(rt, value, sp)
  else if (isIntValue(value)) out = formatInt(rt, intOf(value), sp, typeName(value))
  else out = formatFloat(rt, floatOf(value), sp)
  return rt.chargeString(out)
}

/** A guest object's `__format__(spec)` (even an empty spec, as CPython's format()), else object's. */
function guestFormat(rt: PyRun, value: PyInstance, spec: string): string {
  const r = callIf(value, '__format__', [spec])
  if (r === MISSING) return spec === '' ? rt.chargeString(str(value)) : typeError(`unsupported format string passed to ${typeName(value)}.__format__`)
  return typeof r === 'string' ? rt.chargeString(r) : typeError(`__format__ must return a str, not ${typeName(r)}`)
}

/** `!r`, `!s`, `!a` conversions. */
export function convert(value: unknown, conv: string): string {
  if (conv === 'r') return repr(value)
  if (conv === 'a') return repr(value).replace(/[^\x00-\x7f]/gu, (c) => {
    const cp = c.codePointAt(0)!
    return cp <= 0xff ? '\\x' + cp.toString(16).padStart(2, '0') : cp <= 0xffff ? '\\u' + cp.toString(16).padStart(4, '0') : '\\U' + cp.toString(16).padStart(8, '0')
  })
  return str(value)
}

// --- printf-style --------------------------------------------------------------

const PERCENT = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/gs

/** `fmt % args`. */
export function percentFormat(rt: PyRun, fmt: string, args: unknown): string {
  // CPython takes any subscriptable non-tuple, non-str argument as the mapping (a list or range too):
  // `'ab' % [2]` converts nothing and is no error.
  const isMap = args instanceof PyDict || (Array.isArray(args) && !Object.isFrozen(args) && !(args instanceof PyDeque)) || args instanceof PyRange
  const list = isTuple(args) ? args : [args]
  let i = 0
  let usedMap = false
  const next = (): unknown => {
    if (i >= list.length) typeError('not enough arguments for format string')
    return list[i++]
  }
  let out = ''
  let last = 0
  PERCENT.lastIndex = 0
  for (let m = PERCENT.exec(fmt); m; m = PERCENT.exec(fmt)) {
    const between = fmt.slice(last, m.index)
    if (between.includes('%')) valueError(`unsupported format character '${between[between.indexOf('%') + 1] ?? ''}'`)
    out += between
    last = PERCENT.lastIndex
    const [, key, flags = '', w, prec, conv] = m
    if (conv === '%') { out += '%'; continue }
    // CPython's bounds, checked before anything is built: a width is a Py_ssize_t, a precision a C int.
    if (w && w !== '*' && BigInt(w) > SSIZE_MAX) valueError('width too big')
    if (prec && prec !== '*' && BigInt(prec) > INT_MAX) valueError('precision too big')
    let width = w === '*' ? starArg(next(), false) : w ? Number(w) : 0
    const precision = prec === '*' ? Math.max(0, starArg(next(), true)) : prec !== undefined ? Number(prec) : null
    let v: unknown
    if (key !== undefined) {
      if (!isMap) typeError('format requires a mapping')
      usedMap = true
      v = getItem(rt, args, key)
    } else v = isMap && list.length === 1 && !usedMap && false ? args : next()
    let left = flags.includes('-')
    if (width < 0) { left = true; width = -width }
    const spec: Spec = {
      fill: flags.includes('0') && !left && 'diouxXeEfFgG'.includes(conv!) ? '0' : ' ',
      align: left ? '<' : flags.includes('0') && 'diouxXeEfFgG'.includes(conv!) ? '=' : '>',
      sign: flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '',
      z: false, alt: flags.includes('#'), zero: false, width, grouping: '', precision, type: '',
    }
    let piece: string
    switch (conv) {
      case 's': case 'r': case 'a': {
        let s = conv === 's' ? str(v) : convert(v, conv)
        if (precision !== null) s = Array.from(s).slice(0, precision).join('')
        piece = pad(rt, s, '', { ...spec, fill: ' ' }, '>')
        break
      }
      case 'd': case 'i': case 'u': {
        if (v instanceof PyNumeric) v = v.unary('int', undefined, rt)
        if (!isIntValue(v) && !isFloatValue(v)) typeError(`%${conv} format: a real number is required, not ${typeName(v)}`)
        const n = isFloatValue(v) ? truncFloat(floatOf(v)) : intOf(v)
        piece = formatInt(rt, n, { ...spec, type: 'd', precision: null })
        if (precision !== null) piece = padDigits(rt, piece, precision, spec)
        break
      }
      case 'o': case 'x': case 'X': {
        if (!isIntValue(v)) typeError(`%${conv} format: an integer is required, not ${typeName(v)}`)
        piece = formatInt(rt, intOf(v), { ...spec, type: conv, precision: null })
        break
      }
      case 'c': {
        const cp = typeof v === 'string' ? 0 : intOf(v)
        if (cp < 0 || cp > 0x10ffff) raise('OverflowError', '%c arg not in range(0x110000)')
        const s = typeof v === 'string' ? v : String.fromCodePoint(Number(cp))
        piece = pad(rt, s, '', { ...spec, fill: ' ' }, '>')
        break
      }
      default: {
        if (v instanceof PyNumeric) v = v.unary('float')
        if (!isIntValue(v) && !isFloatValue(v)) typeError(`must be real number, not ${typeName(v)}`)
        piece = formatFloat(rt, floatOf(v), { ...spec, type: conv!, precision: precision ?? 6 })
      }
    }
    out += piece
  }
  const tail = fmt.slice(last)
  if (tail.includes('%')) valueError('incomplete format')
  out += tail
  if (!isMap && i < list.length) typeError('not all arguments converted during string formatting')
  return rt.chargeString(out)
}

/** A `*` width (a Py_ssize_t) or precision (a C int): an int only (no __index__), as CPython's. */
function starArg(v: unknown, precision: boolean): number {
  if (!isIntValue(v)) typeError('* wants int')
  const n = intOf(v)
  if (precision ? !fitsCInt(n) : typeof n === 'bigint' && !fitsSsize(n)) raise('OverflowError', `Python int too large to convert to C ${precision ? 'int' : 'ssize_t'}`)
  // CPython negates a negative width: -(-2^63) wraps to itself, still negative, so no padding.
  return n === -SSIZE_MAX - 1n ? 0 : Number(n)
}

function padDigits(rt: PyRun, piece: string, precision: number, spec: Spec): string {
  const m = /^(\s*)([-+ ]?)(\d+)(\s*)$/.exec(piece)
  if (!m) return piece
  payChars(rt, Math.max(precision + 1, spec.width))
  const digits = m[3]!.padStart(precision, '0')
  const body = m[2]! + digits
  return spec.align === '<' ? body.padEnd(spec.width) : body.padStart(spec.width)
}

// --- str.format --------------------------------------------------------------------

/** `template.format(*args, **kwargs)`. */
/** `s.format_map(mapping)`: the named fields looked up in any mapping (a defaultdict's missing keys made), no positional ones. */
export function strFormatMap(rt: PyRun, template: string, mapping: unknown): string {
  return strFormat(rt, template, POSITIONAL_REFUSED, mapping)
}

/** The arguments of format_map: a positional field is CPython's ValueError, not an index error. */
const POSITIONAL_REFUSED: unknown[] = []

export function strFormat(rt: PyRun, template: string, args: unknown[], kwargs: unknown): string {
  let out = ''
  let auto = 0
  let i = 0
  const n = template.length
  while (i < n) {
    const c = template[i]!
    if (c === '{') {
      if (template[i + 1] === '{') { out += '{'; i += 2; continue }
      const end = findClose(template, i)
      const field = template.slice(i + 1, end)
      i = end + 1
      out += formatField(rt, field, args, kwargs, () => auto++)
      continue
    }
    if (c === '}') {
      if (template[i + 1] === '}') { out += '}'; i += 2; continue }
      valueError("Single '}' encountered in format string")
    }
    out += c
    i++
  }
  return rt.chargeString(out)
}

function findClose(s: string, open: number): number {
  let depth = 0
  for (let j = open; j < s.length; j++) {
    if (s[j] === '{') depth++
    else if (s[j] === '}') { depth--; if (depth === 0) return j }
  }
  return valueError("Single '{' encountered in format string")
}

function formatField(rt: PyRun, field: string, args: unknown[], kwargs: unknown, nextAuto: () => number): string {
  const m = /^([^!:[.]*)((?:\[[^\]]*\]|\.[A-Za-z_][A-Za-z0-9_]*)*)(?:!([rsa]))?(?::(.*))?$/s.exec(field)
  if (!m) return valueError(`invalid format field ${field}`)
  const [, name = '', index = '', conv, specRaw = ''] = m
  let value: unknown
  if (args === POSITIONAL_REFUSED && (name === '' || /^\d+$/.test(name))) valueError('Format string contains positional fields')
  if (name === '') {
    const k = nextAuto()
    if (k >= args.length) raise('IndexError', `Replacement index ${k} out of range for positional args tuple`)
    value = args[k]
  } else if (/^\d+$/.test(name)) {
    const k = Number(name)
    if (k >= args.length) raise('IndexError', `Replacement index ${k} out of range for positional args tuple`)
    value = args[k]
  } else {
    if (kwargs === null) raise('KeyError', `'${name}'`)
    value = getItem(rt, kwargs, name)
  }
  for (const part of index.match(/\[[^\]]*\]|\.[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    if (part[0] === '.') {
      // `{p.x}`: an attribute (dunders stay out of reach, as everywhere).
      if (part.startsWith('.__')) raise('AttributeError', `attribute '${part.slice(1)}' is not available here`)
      value = getAttr(value, part.slice(1))
      continue
    }
    const key = part.slice(1, -1)
    value = getItem(rt, value, /^\d+$/.test(key) ? Number(key) : key)
  }
  const spec = specRaw.includes('{') ? strFormat(rt, specRaw, args, kwargs) : specRaw
  if (conv) return format(rt, convert(value, conv), spec)
  return format(rt, value, spec)
}

export { PyFloat }
