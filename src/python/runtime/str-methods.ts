/** The methods of `str`, by code point. */
import { PyDict, isTuple, tuple, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { iterate, str } from './core.ts'
import { codePoints, hasAstral, strLen } from './text.ts'
import { cIntArg, intOf, ssizeArg } from './numbers.ts'
import { sliceIndices } from './items.ts'
import { strFormat, strFormatMap } from './format.ts'
import { payChars, work, type PyRun } from './fuel.ts'

type StrMethod = (rt: PyRun, s: string, args: unknown[], kw: PyDict | null) => unknown

const WS = /[\s\x1c-\x1f\x85]/u

function argStr(v: unknown, method: string, i = 1): string {
  if (typeof v !== 'string') typeError(`${method}() argument ${i} must be str, not ${typeName(v)}`)
  return v as string
}

function kwArg(kw: PyDict | null, name: string): unknown {
  if (!kw) return undefined
  const e = kw.map.get(name)
  return e ? e[1] : undefined
}

function stripChars(s: string, chars: unknown, left: boolean, right: boolean): string {
  const cps = codePoints(s)
  const isStrip = chars === undefined || chars === null ? (c: string) => WS.test(c) : (c: string) => (argStr(chars, 'strip') as string).includes(c)
  let a = 0, b = cps.length
  if (left) while (a < b && isStrip(cps[a]!)) a++
  if (right) while (b > a && isStrip(cps[b - 1]!)) b--
  return cps.slice(a, b).join('')
}

function splitWs(s: string, maxsplit: number): string[] {
  const out: string[] = []
  const cps = codePoints(s)
  let i = 0
  const n = cps.length
  while (i < n) {
    while (i < n && WS.test(cps[i]!)) i++
    if (i >= n) break
    if (maxsplit >= 0 && out.length === maxsplit) {
      out.push(cps.slice(i).join(''))
      return out
    }
    let j = i
    while (j < n && !WS.test(cps[j]!)) j++
    out.push(cps.slice(i, j).join(''))
    i = j
  }
  return out
}

function rsplitWs(s: string, maxsplit: number): string[] {
  if (maxsplit < 0) return splitWs(s, -1)
  const rev = splitWs(codePoints(s).reverse().join(''), maxsplit)
  return rev.map((p) => codePoints(p).reverse().join('')).reverse()
}

function split(s: string, sep: unknown, maxsplit: number, fromRight: boolean): string[] {
  if (sep === null || sep === undefined) return fromRight ? rsplitWs(s, maxsplit) : splitWs(s, maxsplit)
  const d = argStr(sep, 'split')
  if (d === '') valueError('empty separator')
  const parts = s.split(d)
  if (maxsplit < 0 || parts.length - 1 <= maxsplit) return parts
  if (!fromRight) return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(d)]
  return [parts.slice(0, parts.length - maxsplit).join(d), ...parts.slice(parts.length - maxsplit)]
}

/** Code point index range [start, end) from optional start/end arguments. */
function range(s: string, start: unknown, end: unknown): [string, number] {
  const n = strLen(s)
  const lo = start === undefined || start === null ? 0 : Number(intOf(start))
  const hi = end === undefined || end === null ? n : Number(intOf(end))
  const { start: a, count } = sliceIndices(n, lo, hi, 1)
  const sub = hasAstral(s) ? codePoints(s).slice(a, a + count).join('') : s.slice(a, a + count)
  return [sub, a]
}

const cpIndex = (s: string, unitIndex: number): number => (hasAstral(s) ? codePoints(s.slice(0, unitIndex)).length : unitIndex)

function find(s: string, args: unknown[], fromRight: boolean): number {
  const sub = argStr(args[0], fromRight ? 'rfind' : 'find')
  const [part, offset] = range(s, args[1], args[2])
  if (args[1] !== undefined && strLen(s) < Number(intOf(args[1] ?? 0)) && sub === '') return -1
  const i = fromRight ? part.lastIndexOf(sub) : part.indexOf(sub)
  return i < 0 ? -1 : offset + cpIndex(part, i)
}

const isCased = (c: string): boolean => c.toLowerCase() !== c.toUpperCase()

/** The four Unicode digraphs whose title case differs from their upper case (ǅ, ǈ, ǋ, ǲ). */
const TITLECASE: Readonly<Record<string, string>> = {
  Ǆ: 'ǅ', ǅ: 'ǅ', ǆ: 'ǅ', Ǉ: 'ǈ', ǈ: 'ǈ', ǉ: 'ǈ', Ǌ: 'ǋ', ǋ: 'ǋ', ǌ: 'ǋ', Ǳ: 'ǲ', ǲ: 'ǲ', ǳ: 'ǲ',
}
const toTitle = (c: string): string => TITLECASE[c] ?? c.toUpperCase()

function title(s: string): string {
  let out = ''
  let prevCased = false
  for (const c of s) {
    out += prevCased ? c.toLowerCase() : toTitle(c)
    prevCased = isCased(c)
  }
  return out
}

function test(s: string, re: RegExp): boolean {
  return s.length > 0 && [...s].every((c) => re.test(c))
}

/** `startswith` / `endswith`: one string or a tuple of them, within `s[start:end]`. */
function affix(s: string, args: unknown[], method: 'startswith' | 'endswith'): boolean {
  const [part] = range(s, args[1], args[2])
  const matches = (x: string) => (method === 'startswith' ? part.startsWith(x) : part.endsWith(x))
  const arg = args[0]
  if (isTuple(arg)) return arg.some((p) => matches(argStr(p, method)))
  if (typeof arg !== 'string') typeError(`${method} first arg must be str or a tuple of str, not ${typeName(arg)}`)
  return matches(arg as string)
}

function justify(rt: PyRun, s: string, args: unknown[], how: 'l' | 'r' | 'c'): string {
  const width = ssizeArg(args[0])
  const fill = args[1] === undefined ? ' ' : argStr(args[1], 'justify', 2)
  if (strLen(fill) !== 1) typeError('The fill character must be exactly one character long')
  const n = width - strLen(s)
  if (n <= 0) return s
  rt.chargeString({ length: width } as string)
  if (how === 'l') return s + fill.repeat(n)
  if (how === 'r') return fill.repeat(n) + s
  const left = Math.floor(n / 2) + (n & width & 1)
  return fill.repeat(left) + s + fill.repeat(n - left)
}

/**
 * `str.expandtabs(size)`: the result's length is counted first (one pass, no
 * building), paid for, then built once — a large tab size never reaches
 * `repeat` unpaid (issue 23, class 4).
 */
function expandTabs(rt: PyRun, s: string, size: number): string {
  work(rt, s.length)
  let length = 0, col = 0
  for (const c of s) {
    if (c === '\t') { const k = size > 0 ? size - (col % size) : 0; length += k; col += k } else if (c === '\n' || c === '\r') { length += c.length; col = 0 } else { length += c.length; col++ }
  }
  if (!Number.isFinite(length)) rt.chargeString({ length: Infinity } as string)
  payChars(rt, length)
  const parts: string[] = []
  col = 0
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 9) {
      parts.push(s.slice(start, i))
      const k = size > 0 ? size - (col % size) : 0
      parts.push(' '.repeat(k))
      col += k
      start = i + 1
    } else if (c === 10 || c === 13) col = 0
    else if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800)) col++ // a surrogate pair is one column
  }
  parts.push(s.slice(start))
  return parts.join('')
}

export const STR_METHODS: Record<string, StrMethod> = {
  upper: (_rt, s) => s.toUpperCase(),
  lower: (_rt, s) => s.toLowerCase(),
  // Full case folding (ß → ss, ﬁ → fi, ς → σ): upper case first, then lower.
  casefold: (_rt, s) => s.toUpperCase().toLowerCase().replace(/ς/g, 'σ'),
  // Only cased letters swap; a titlecase letter (ǅ) is neither upper nor lower and stays.
  swapcase: (_rt, s) => [...s].map((c) => { const u = c.toUpperCase(), l = c.toLowerCase(); return u === c && l !== c ? l : l === c && u !== c ? u : c }).join(''),
  title: (_rt, s) => title(s),
  capitalize: (_rt, s) => { const cps = codePoints(s); return cps.length ? toTitle(cps[0]!) + cps.slice(1).join('').toLowerCase() : '' },
  strip: (_rt, s, a) => stripChars(s, a[0], true, true),
  lstrip: (_rt, s, a) => stripChars(s, a[0], true, false),
  rstrip: (_rt, s, a) => stripChars(s, a[0], false, true),
  split: (rt, s, a, kw) => { work(rt, s.length); return split(s, a[0] ?? kwArg(kw, 'sep'), ssizeArg(a[1] ?? kwArg(kw, 'maxsplit') ?? -1), false) },
  rsplit: (rt, s, a, kw) => { work(rt, s.length); return split(s, a[0] ?? kwArg(kw, 'sep'), ssizeArg(a[1] ?? kwArg(kw, 'maxsplit') ?? -1), true) },
  splitlines: (_rt, s, a, kw) => {
    const keep = !!(a[0] ?? kwArg(kw, 'keepends'))
    const out: string[] = []
    const re = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g
    let last = 0
    for (let m = re.exec(s); m; m = re.exec(s)) {
      out.push(s.slice(last, keep ? m.index + m[0].length : m.index))
      last = m.index + m[0].length
    }
    if (last < s.length) out.push(s.slice(last))
    return out
  },
  join: (rt, s, a) => {
    const items = iterate(a[0], rt)
    items.forEach((x, i) => { if (typeof x !== 'string') typeError(`sequence item ${i}: expected str instance, ${typeName(x)} found`) })
    return rt.chargeString(items.join(s))
  },
  replace: (rt, s, a) => {
    const old = argStr(a[0], 'replace'), rep = argStr(a[1], 'replace', 2)
    const count = a[2] === undefined ? -1 : ssizeArg(a[2])
    work(rt, s.length)
    let out: string
    if (count < 0) out = old === '' ? [...s].map((c) => rep + c).join('') + rep : s.split(old).join(rep)
    else {
      const parts = old === '' ? ['', ...codePoints(s).map((c) => c)] : s.split(old)
      if (old === '') {
        const cps = codePoints(s)
        out = ''
        for (let i = 0; i < cps.length; i++) out += (i < count ? rep : '') + cps[i]
        if (cps.length < count) out += rep
      } else out = parts.slice(0, count + 1).join(rep) + (parts.length > count + 1 ? old + parts.slice(count + 1).join(old) : '')
    }
    return rt.chargeString(out)
  },
  startswith: (_rt, s, a) => affix(s, a, 'startswith'),
  endswith: (_rt, s, a) => affix(s, a, 'endswith'),
  find: (_rt, s, a) => find(s, a, false),
  rfind: (_rt, s, a) => find(s, a, true),
  index: (_rt, s, a) => { const i = find(s, a, false); if (i < 0) valueError('substring not found'); return i },
  rindex: (_rt, s, a) => { const i = find(s, a, true); if (i < 0) valueError('substring not found'); return i },
  count: (rt, s, a) => {
    const sub = argStr(a[0], 'count')
    const [part] = range(s, a[1], a[2])
    work(rt, part.length)
    if (sub === '') return strLen(part) + 1
    return part.split(sub).length - 1
  },
  isdigit: (_rt, s) => test(s, /[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089]/u),
  isdecimal: (_rt, s) => test(s, /\p{Nd}/u),
  isnumeric: (_rt, s) => test(s, /[\p{N}]/u),
  isalpha: (_rt, s) => test(s, /\p{L}/u),
  isalnum: (_rt, s) => test(s, /[\p{L}\p{N}]/u),
  isspace: (_rt, s) => test(s, WS),
  isupper: (_rt, s) => [...s].some(isCased) && s === s.toUpperCase() && [...s].every((c) => !isCased(c) || c !== c.toLowerCase() || c === c.toUpperCase()),
  islower: (_rt, s) => [...s].some(isCased) && s === s.toLowerCase(),
  istitle: (_rt, s) => [...s].some(isCased) && title(s) === s,
  isidentifier: (_rt, s) => /^[\p{L}_][\p{L}\p{N}_]*$/u.test(s),
  isascii: (_rt, s) => /^[\x00-\x7f]*$/.test(s),
  center: (rt, s, a) => justify(rt, s, a, 'c'),
  ljust: (rt, s, a) => justify(rt, s, a, 'l'),
  rjust: (rt, s, a) => justify(rt, s, a, 'r'),
  zfill: (rt, s, a) => {
    const width = ssizeArg(a[0])
    const n = width - strLen(s)
    if (n <= 0) return s
    rt.chargeString({ length: width } as string)
    const sign = s[0] === '-' || s[0] === '+' ? s[0] : ''
    return sign + '0'.repeat(n) + s.slice(sign.length)
  },
  partition: (_rt, s, a) => {
    const sep = argStr(a[0], 'partition')
    if (sep === '') valueError('empty separator')
    const i = s.indexOf(sep)
    return i < 0 ? tuple([s, '', '']) : tuple([s.slice(0, i), sep, s.slice(i + sep.length)])
  },
  rpartition: (_rt, s, a) => {
    const sep = argStr(a[0], 'rpartition')
    if (sep === '') valueError('empty separator')
    const i = s.lastIndexOf(sep)
    return i < 0 ? tuple(['', '', s]) : tuple([s.slice(0, i), sep, s.slice(i + sep.length)])
  },
  removeprefix: (_rt, s, a) => { const p = argStr(a[0], 'removeprefix'); return p && s.startsWith(p) ? s.slice(p.length) : s },
  removesuffix: (_rt, s, a) => { const p = argStr(a[0], 'removesuffix'); return p && s.endsWith(p) ? s.slice(0, s.length - p.length) : s },
  expandtabs: (rt, s, a, kw) => { const n = a[0] ?? kwArg(kw, 'tabsize'); return expandTabs(rt, s, n === undefined ? 8 : cIntArg(n)) },
  format: (rt, s, a, kw) => strFormat(rt, s, a, kw),
  format_map: (rt, s, a, kw) => {
    if (kw?.size) typeError('str.format_map() takes no keyword arguments')
    if (a.length !== 1) typeError(`str.format_map() takes exactly one argument (${a.length} given)`)
    return strFormatMap(rt, s, a[0])
  },
}

export function strMethod(rt: PyRun, s: string, name: string, args: unknown[], kw: PyDict | null): unknown {
  const m = Object.prototype.hasOwnProperty.call(STR_METHODS, name) ? STR_METHODS[name] : undefined
  if (!m) raise('AttributeError', `'str' object has no attribute '${name}'`)
  return m!(rt, s, args, kw)
}

export { str }
