/**
 * `datetime.strptime(date_string, format)` (extended profile), as CPython 3.11's `_strptime` in the C
 * locale and a UTC machine (a run's local zone is UTC): the format becomes the same regular
 * expression (each directive a named group, whitespace any run of whitespace, matched from the start,
 * ignoring case), then the fields are read and checked in CPython's order with its messages:
 * "time data '2024-13-01' does not match format '%Y-%m-%d'", "unconverted data remains: ...",
 * "'q' is a bad directive in format '%q'", a directive used twice re.error's "redefinition of group
 * name ...", the date's and time's range errors. `%z` makes an aware datetime (`%Z` names its zone);
 * `%Z` alone matches UTC or GMT and leaves it naive, as CPython on a UTC machine.
 */
import { PyDict, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { strRepr } from './text.ts'
import { work, type PyRun } from './fuel.ts'
import { DAYS, MAX_ORDINAL, MONTHS, PyTime, checkDate, checkTime, delta, leap, makeTz, ymd } from './datetime.ts'

/** An alternation of names, longest first (CPython's `__seqToRE`; all are plain letters). */
const names = (key: string, list: string[]): string => `(?P<${key}>${[...list].sort((x, y) => y.length - x.length).join('|')})`
const lower = (xs: string[], n?: number): string[] => xs.map((x) => (n ? x.slice(0, n) : x).toLowerCase())

/**
 * CPython's TimeRE in the C locale, in Python's regex syntax (the positions of re.error count in it);
 * made on first use (datetime.ts, whose names it reads, imports this module).
 */
let table: Record<string, string> | undefined
function directives(): Record<string, string> {
  if (table) return table
  table = {
    d: '(?P<d>3[0-1]|[1-2]\\d|0[1-9]|[1-9]| [1-9])',
    f: '(?P<f>[0-9]{1,6})',
    H: '(?P<H>2[0-3]|[0-1]\\d|\\d)',
    I: '(?P<I>1[0-2]|0[1-9]|[1-9])',
    G: '(?P<G>\\d\\d\\d\\d)',
    j: '(?P<j>36[0-6]|3[0-5]\\d|[1-2]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9])',
    m: '(?P<m>1[0-2]|0[1-9]|[1-9])',
    M: '(?P<M>[0-5]\\d|\\d)',
    S: '(?P<S>6[0-1]|[0-5]\\d|\\d)',
    U: '(?P<U>5[0-3]|[0-4]\\d|\\d)',
    W: '(?P<W>5[0-3]|[0-4]\\d|\\d)',
    w: '(?P<w>[0-6])',
    u: '(?P<u>[1-7])',
    V: '(?P<V>5[0-3]|0[1-9]|[1-4]\\d|\\d)',
    y: '(?P<y>\\d\\d)',
    Y: '(?P<Y>\\d\\d\\d\\d)',
    z: '(?P<z>[+-]\\d\\d:?[0-5]\\d(:?[0-5]\\d(\\.\\d{1,6})?)?|(?-i:Z))',
    A: names('A', lower(DAYS)),
    a: names('a', lower(DAYS, 3)),
    B: names('B', lower(MONTHS)),
    b: names('b', lower(MONTHS, 3)),
    p: '(?P<p>am|pm)',
    Z: '(?P<Z>gmt|utc)',
    '%': '%',
  }
  table.c = pattern('%a %b %d %H:%M:%S %Y', '%c')
  table.x = pattern('%m/%d/%y', '%x')
  table.X = pattern('%H:%M:%S', '%X')
  return table
}

/** TimeRE.pattern: the format's regex characters escaped, whitespace runs `\s+`, each directive its group. */
function pattern(format: string, original = format): string {
  let f = format.replace(/([\\.^$*+?(){}[\]|])/g, '\\$1').replace(/\s+/g, '\\s+')
  let out = ''
  for (let i = f.indexOf('%'); i >= 0; i = f.indexOf('%')) {
    if (i + 1 >= f.length) valueError(`stray % in format '${original}'`)
    const c = String.fromCodePoint(f.codePointAt(i + 1)!)
    const d = directives()[c]
    // A `\` here is an escaped character (or whitespace) after the `%`: CPython reports the `%`.
    if (d === undefined) valueError(`'${c === '\\' ? '%' : c}' is a bad directive in format '${original}'`)
    out += f.slice(0, i) + d
    f = f.slice(i + 1 + c.length)
  }
  return out + f
}

/** The named groups in order, and re.error's "redefinition of group name" as Python's compiler reports it. */
function groupNames(py: string): string[] {
  const seen = new Map<string, number>()
  let groups = 0
  for (let i = 0; i < py.length; i++) {
    const ch = py[i]
    if (ch === '\\') { i++; continue }
    if (ch !== '(') continue
    if (py[i + 1] !== '?') { groups++; continue }
    const m = /^\(\?P<(\w+)>/.exec(py.slice(i, i + 40))
    if (!m) continue
    groups++
    const first = seen.get(m[1]!)
    if (first !== undefined) raise('error', `redefinition of group name ${strRepr(m[1]!)} as group ${groups}; was group ${first} at position ${i + 4}`)
    seen.set(m[1]!, groups)
  }
  return [...seen.keys()]
}

export function strptime(rt: PyRun, a: unknown[], kw: PyDict | null): PyTime {
  if (kw?.size) typeError('strptime() takes no keyword arguments')
  if (a.length !== 2) typeError(`strptime() takes exactly 2 arguments (${a.length} given)`)
  const [text, format] = a
  if (typeof text !== 'string') return typeError(`strptime() argument 1 must be str, not ${typeName(text)}`)
  if (typeof format !== 'string') return typeError(`strptime() argument 2 must be str, not ${typeName(format)}`)
  work(rt, text.length + format.length)
  const py = pattern(format)
  const keys = groupNames(py)
  // The same expression for the engine: named groups in its syntax; %z's `Z` is checked for case below.
  const found = new RegExp(`^(?:${py.replace(/\(\?P</g, '(?<').replace('(?-i:Z)', 'Z')})`, 'i').exec(text)
  if (!found || found.groups?.z === 'z') return valueError(`time data ${strRepr(text)} does not match format ${strRepr(format)}`)
  if (found[0].length !== text.length) valueError(`unconverted data remains: ${text.slice(found[0].length)}`)
  return fields(keys.map((k) => [k, found.groups![k]!] as const))
}

const num = (s: string): number => parseInt(s.trim(), 10)

/** `_strptime` after the match: the fields in group order, then CPython's checks and calendar arithmetic. */
function fields(groups: ReadonlyArray<readonly [string, string]>): PyTime {
  let isoYear: number | null = null, year: number | null = null, month = 1, day = 1, hour = 0, minute = 0, second = 0, fraction = 0
  let gmtoff: number | null = null, gmtoffFraction = 0, isoWeek: number | null = null, weekOfYear: number | null = null, weekStartsMon = false
  let weekday: number | null = null, julian: number | null = null, tzname: string | null = null
  const found = new Map(groups)
  for (const [k, v] of groups) {
    switch (k) {
      case 'y': year = num(v); year += year <= 68 ? 2000 : 1900; break
      case 'Y': year = num(v); break
      case 'G': isoYear = num(v); break
      case 'm': month = num(v); break
      case 'B': month = lower(MONTHS).indexOf(v.toLowerCase()) + 1; break
      case 'b': month = lower(MONTHS, 3).indexOf(v.toLowerCase()) + 1; break
      case 'd': day = num(v); break
      case 'H': hour = num(v); break
      case 'I': {
        hour = num(v)
        const ampm = (found.get('p') ?? '').toLowerCase()
        if (ampm === '' || ampm === 'am') { if (hour === 12) hour = 0 } else if (hour !== 12) hour += 12
        break
      }
      case 'M': minute = num(v); break
      case 'S': second = num(v); break
      case 'f': fraction = num(v.padEnd(6, '0')); break
      case 'A': weekday = lower(DAYS).indexOf(v.toLowerCase()); break
      case 'a': weekday = lower(DAYS, 3).indexOf(v.toLowerCase()); break
      case 'w': weekday = num(v) === 0 ? 6 : num(v) - 1; break
      case 'u': weekday = num(v) - 1; break
      case 'j': julian = num(v); break
      case 'U': case 'W': weekOfYear = num(v); weekStartsMon = k === 'W'; break
      case 'V': isoWeek = num(v); break
      case 'z': [gmtoff, gmtoffFraction] = offset(v); break
      case 'Z': tzname = v; break
    }
  }
  if (year === null && isoYear !== null) {
    if (isoWeek === null || weekday === null) valueError("ISO year directive '%G' must be used with the ISO week directive '%V' and a weekday directive ('%A', '%a', '%w', or '%u').")
    if (julian !== null) valueError("Day of the year directive '%j' is not compatible with ISO year directive '%G'. Use '%Y' instead.")
  } else if (weekOfYear === null && isoWeek !== null) {
    if (weekday === null) valueError("ISO week directive '%V' must be used with the ISO year directive '%G' and a weekday directive ('%A', '%a', '%w', or '%u').")
    valueError("ISO week directive '%V' is incompatible with the year directive '%Y'. Use the ISO year '%G' instead.")
  }
  // No year but February 29th: computed in 1904, then the year is set back to 1900 (whose Feb 29th is out of range).
  const leapYearFix = year === null && month === 2 && day === 29
  let y = year ?? (leapYearFix ? 1904 : 1900)
  if (julian === null && weekday !== null) {
    if (weekOfYear !== null) julian = julianOfWeek(y, weekOfYear, weekday, weekStartsMon)
    else if (isoYear !== null && isoWeek !== null) [y, julian] = julianOfIsoWeek(isoYear, isoWeek, weekday + 1)
    if (julian !== null && julian <= 0) {
      y -= 1
      julian += leap(y) ? 366 : 365
    }
  }
  if (julian === null) julian = checkDate(y, month, day) - checkDate(y, 1, 1) + 1
  else {
    const n = julian - 1 + checkDate(y, 1, 1)
    if (n < 1) valueError('ordinal must be >= 1')
    if (n > MAX_ORDINAL) valueError(`year ${ymd(n)[0]} is out of range`)
    ;[y, month, day] = ymd(n)
  }
  if (leapYearFix) y = 1900
  const date = checkDate(y, month, day)
  const time = checkTime(hour, minute, second, fraction)
  const tz = gmtoff === null ? null : makeTz(delta(gmtoff * 1e6 + gmtoffFraction), tzname ?? undefined)
  return new PyTime('datetime', date, time, fraction, tz)
}

/** `%z`: `Z`, or ±HH[:]MM[[:]SS[.ffffff]] as seconds and microseconds (CPython's "Inconsistent use of :"). */
function offset(v: string): [number, number] {
  if (v === 'Z') return [0, 0]
  let z = v
  if (z[3] === ':') {
    z = z.slice(0, 3) + z.slice(4)
    if (z.length > 5) {
      if (z[5] !== ':') valueError(`Inconsistent use of : in ${v}`)
      z = z.slice(0, 5) + z.slice(6)
    }
  }
  const secs = num(z.slice(1, 3)) * 3600 + num(z.slice(3, 5)) * 60 + (z.length > 5 ? num(z.slice(5, 7)) : 0)
  const frac = z.length > 8 ? num(z.slice(8).padEnd(6, '0')) : 0
  return z.startsWith('-') ? [-secs, -frac] : [secs, frac]
}

/** `_calc_julian_from_U_or_W`: the day of the year of a week number (weeks from Sunday for %U, Monday for %W) and weekday. */
function julianOfWeek(year: number, week: number, weekday: number, mondayFirst: boolean): number {
  let first = (checkDate(year, 1, 1) + 6) % 7
  if (!mondayFirst) {
    first = (first + 1) % 7
    weekday = (weekday + 1) % 7
  }
  if (week === 0) return 1 + weekday - first
  return 1 + ((7 - first) % 7) + 7 * (week - 1) + weekday
}

/** `_calc_julian_from_V`: the year and day of the year of an ISO year, week and weekday (1 = Monday). */
function julianOfIsoWeek(isoYear: number, isoWeek: number, isoWeekday: number): [number, number] {
  const correction = ((checkDate(isoYear, 1, 4) + 6) % 7) + 1 + 3
  let n = isoWeek * 7 + isoWeekday - correction
  if (n < 1) {
    n += checkDate(isoYear, 1, 1)
    isoYear -= 1
    n -= checkDate(isoYear, 1, 1)
  }
  return [isoYear, n]
}
