/**
 * `datetime` (extended profile): `date`, `datetime` (naive, or aware of a fixed-offset `timezone`)
 * and `timedelta`, exact against CPython for construction, arithmetic, comparison, hashing,
 * `isoformat`/`fromisoformat`, `strftime`, `astimezone` and repr. `datetime.now()` / `date.today()`
 * read the run's clock (the `now` run option; journaled by a workflow), in UTC: the local time zone
 * inside a run is UTC. There is no zone database (`zoneinfo`): a zone's offset would depend on the
 * database of the machine that runs the program, and a run must give the same result anywhere.
 */
import { PyDict, PyFloat, PyNamedTuple, PyNamedTupleType, PyOpaque, mkFloat, mkInt, typeName as typeNameOf } from './values.ts'
import { strRepr } from './text.ts'
import { raise, typeError, valueError } from './errors.ts'
import { intOf, isIntValue, isNumber, floatOf } from './numbers.ts'
import type { PyRun } from './fuel.ts'
import { strptime } from './strptime.ts'
import { clockMethod, combine, makeTime, timeFromIso } from './datetime-time.ts'

type Kind = 'date' | 'datetime' | 'timedelta' | 'time'
const US_DAY = 86_400_000_000

/**
 * d: days (a date's proleptic Gregorian ordinal; a timedelta's days; 0 for a time), s: seconds,
 * u: microseconds; a datetime's and a time's fields are its local time, `tz` its zone (null: naive).
 */
export class PyTime extends PyOpaque {
  constructor(readonly kind: Kind, readonly d: number, readonly s = 0, readonly u = 0, readonly tz: PyTz | null = null) {
    super()
  }
  // CPython's C types are named by their module in messages (`unsupported operand type(s) for +: 'datetime.timedelta' and 'int'`).
  get typeName(): string { return `datetime.${this.kind}` }
  override repr(): string { return timeRepr(this) }
}

/** `datetime.timezone`: a fixed offset from UTC in microseconds, and an optional name. */
export class PyTz extends PyOpaque {
  readonly typeName = 'datetime.timezone'
  constructor(readonly offset: number, readonly name: string | null) {
    super()
  }
  override repr(): string {
    if (this === UTC) return 'datetime.timezone.utc'
    return `datetime.timezone(${timeRepr(delta(this.offset))}${this.name === null ? '' : `, ${strRepr(this.name)}`})`
  }
  /** `tzname()` and `str()`: the name, or `UTC±HH:MM` from the offset. */
  label(): string {
    if (this.name !== null) return this.name
    if (this.offset === 0) return 'UTC'
    const sign = this.offset < 0 ? '-' : '+'
    const a = Math.abs(this.offset)
    const h = Math.floor(a / 3.6e9), mi = Math.floor(a / 6e7) % 60, sec = Math.floor(a / 1e6) % 60, us = a % 1e6
    return `UTC${sign}${pad(h)}:${pad(mi)}${us ? `:${pad(sec)}.${pad(us, 6)}` : sec ? `:${pad(sec)}` : ''}`
  }
}

/** `timezone.utc`: also what `timezone(timedelta(0))` gives, as in CPython. */
export const UTC = new PyTz(0, null)

/** `+HH:MM[:SS[.ffffff]]` (isoformat, sep ':') or `+HHMM[SS[.ffffff]]` (%z, sep ''). */
function offsetText(us: number, sep: string): string {
  const sign = us < 0 ? '-' : '+'
  const a = Math.abs(us)
  const h = Math.floor(a / 3.6e9), mi = Math.floor(a / 6e7) % 60, sec = Math.floor(a / 1e6) % 60, u = a % 1e6
  return `${sign}${pad(h)}${sep}${pad(mi)}${sec || u ? `${sep}${pad(sec)}${u ? `.${pad(u, 6)}` : ''}` : ''}`
}

export function makeTz(offset: unknown, name: unknown): PyTz {
  if (!(offset instanceof PyTime) || offset.kind !== 'timedelta') return typeError(`timezone() argument 1 must be datetime.timedelta, not ${typeNameOf(offset)}`)
  if (name !== undefined && name !== null && typeof name !== 'string') typeError(`timezone() argument 2 must be str, not ${typeNameOf(name)}`)
  const us = totalUs(offset)
  if (Math.abs(us) >= US_DAY) valueError(`offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not ${timeRepr(offset)}.`)
  if (us === 0 && (name === undefined || name === null)) return UTC
  return new PyTz(us, typeof name === 'string' ? name : null)
}

export function tzArg(x: unknown): PyTz | null {
  if (x === undefined || x === null) return null
  if (!(x instanceof PyTz)) return typeError(`tzinfo argument must be None or of a tzinfo subclass, not type '${typeNameOf(x)}'`)
  return x
}

/** The same instant as a naive datetime in UTC (an aware datetime), or the fields as they are (naive). */
function inUtc(t: PyTime): PyTime {
  if (t.kind === 'time' && t.tz !== null && t.tz.offset !== 0) {
    // A time has no date to move into: its microseconds less the offset, which may pass midnight either way.
    const us = t.s * 1e6 + t.u - t.tz.offset
    return new PyTime('time', 0, Math.floor(us / 1e6), ((us % 1e6) + 1e6) % 1e6)
  }
  return t.tz === null || t.tz.offset === 0 ? t : dateTimeAt(t.d, t.s * 1e6 + t.u - t.tz.offset)
}

/** The instant `utc` (a naive UTC datetime) as local time in `tz`. */
function atZone(utc: PyTime, tz: PyTz): PyTime {
  const local = tz.offset === 0 ? utc : dateTimeAt(utc.d, utc.s * 1e6 + utc.u + tz.offset)
  return new PyTime('datetime', local.d, local.s, local.u, tz)
}

/** Microseconds from b to a (two datetimes), days kept apart so no precision is lost. */
const diffUs = (a: PyTime, b: PyTime): number => (a.d - b.d) * US_DAY + (a.s - b.s) * 1e6 + (a.u - b.u)


export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
export const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
export const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const monthDays = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!
const beforeYear = (y: number) => { const p = y - 1; return p * 365 + Math.floor(p / 4) - Math.floor(p / 100) + Math.floor(p / 400) }
export function ordinal(y: number, m: number, d: number): number {
  let n = beforeYear(y)
  for (let i = 1; i < m; i++) n += monthDays(y, i)
  return n + d
}
export const MAX_ORDINAL = ordinal(9999, 12, 31)
/** [year, month, day] of an ordinal (1 = 0001-01-01). */
export function ymd(n: number): [number, number, number] {
  const t = new Date(0)
  t.setUTCFullYear(1, 0, 1)
  t.setUTCDate(n)
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()]
}
const pad = (n: number, w = 2) => String(n).padStart(w, '0')

export function int(x: unknown): number {
  if (!isIntValue(x)) typeError(`'${typeof x === 'object' && x instanceof PyFloat ? 'float' : typeof x === 'number' ? 'float' : 'str'}' object cannot be interpreted as an integer`)
  return Number(intOf(x))
}
export function checkDate(y: number, m: number, d: number): number {
  if (y < 1 || y > 9999) valueError(`year ${y} is out of range`)
  if (m < 1 || m > 12) valueError('month must be in 1..12')
  if (d < 1 || d > monthDays(y, m)) valueError('day is out of range for month')
  return ordinal(y, m, d)
}
export function checkTime(h: number, mi: number, s: number, u: number): number {
  if (h < 0 || h > 23) valueError('hour must be in 0..23')
  if (mi < 0 || mi > 59) valueError('minute must be in 0..59')
  if (s < 0 || s > 59) valueError('second must be in 0..59')
  if (u < 0 || u > 999999) valueError('microsecond must be in 0..999999')
  return h * 3600 + mi * 60 + s
}

/** Positional and keyword arguments by name (CPython's errors for unknown and repeated ones). */
export function args(fn: string, names: string[], a: unknown[], kw: PyDict | null, required: number): unknown[] {
  if (a.length > names.length) typeError(`${fn}() takes at most ${names.length} argument${names.length === 1 ? '' : 's'} (${a.length} given)`)
  const out: unknown[] = a.slice()
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const i = names.indexOf(k as string)
      if (i < 0) typeError(`'${String(k)}' is an invalid keyword argument for ${fn}()`)
      if (i < a.length) typeError(`argument for ${fn}() given by name ('${String(k)}') and position (${i + 1})`)
      out[i] = v
    }
  }
  for (let i = 0; i < required; i++) if (out[i] === undefined) typeError(`${fn}() missing required argument '${names[i]}' (pos ${i + 1})`)
  return out
}

export function mkDate(y: number, m: number, d: number): PyTime { return new PyTime('date', checkDate(y, m, d)) }

function dateAt(d: number): PyTime {
  if (d < 1 || d > MAX_ORDINAL) raise('OverflowError', 'date value out of range')
  return new PyTime('date', d)
}
function dateTimeAt(d: number, us: number, tz: PyTz | null = null): PyTime {
  d += Math.floor(us / US_DAY)
  us = ((us % US_DAY) + US_DAY) % US_DAY
  if (d < 1 || d > MAX_ORDINAL) raise('OverflowError', 'date value out of range')
  return new PyTime('datetime', d, Math.floor(us / 1e6), us % 1e6, tz)
}
/** A timedelta of `us` microseconds (an integer), normalized as CPython's. */
export function delta(us: number): PyTime {
  const d = Math.floor(us / US_DAY)
  const rest = us - d * US_DAY
  if (Math.abs(d) > 999999999) raise('OverflowError', `days=${d}; must have magnitude <= 999999999`)
  return new PyTime('timedelta', d, Math.floor(rest / 1e6), rest % 1e6)
}
const totalUs = (t: PyTime): number => t.d * US_DAY + t.s * 1e6 + t.u
const US_DAY_BIG = 86_400_000_000n
const bigUs = (t: PyTime): bigint => BigInt(t.d) * US_DAY_BIG + BigInt(t.s * 1e6 + t.u)

/** A timedelta of exactly `us` microseconds (CPython's OverflowError beyond ±999999999 days). */
function deltaBig(us: bigint): PyTime {
  const d = floorDivBig(us, US_DAY_BIG), rest = us - d * US_DAY_BIG
  // CPython converts the days to a C int first.
  if (d > 2147483647n || d < -2147483648n) raise('OverflowError', 'Python int too large to convert to C int')
  if (d > 999999999n || d < -999999999n) raise('OverflowError', `days=${d}; must have magnitude <= 999999999`)
  return new PyTime('timedelta', Number(d), Number(rest / 1_000_000n), Number(rest % 1_000_000n))
}

function floorDivBig(x: bigint, y: bigint): bigint {
  const q = x / y
  return x % y !== 0n && (x < 0n) !== (y < 0n) ? q - 1n : q
}

/** `-td`, `+td`, `abs(td)` (undefined: not a timedelta). */
export function timeUnary(op: 'neg' | 'pos' | 'abs', x: unknown): PyTime | undefined {
  if (!(x instanceof PyTime) || x.kind !== 'timedelta') return undefined
  if (op === 'pos' || (op === 'abs' && x.d >= 0)) return x
  return deltaBig(-bigUs(x))
}

/** Round half to even to a whole number. */
function roundEven(x: number): number {
  const f = Math.floor(x), r = x - f
  return r > 0.5 || (r === 0.5 && f % 2 !== 0) ? f + 1 : f
}

const clock = (rt: PyRun): number => {
  const now = (rt as PyRun & { now?: () => number }).now
  if (typeof now !== 'function') return raise('RuntimeError', 'this run has no clock')
  return now.call(rt)
}
const EPOCH = ordinal(1970, 1, 1)

function fromIso(s: unknown, kind: 'date' | 'datetime'): PyTime {
  if (typeof s !== 'string') return typeError(`fromisoformat: argument must be str`)
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{3}|\d{6}))?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d{6})?)?)?)?)?$/.exec(s)
  if (!m || (kind === 'date' && m[4] !== undefined)) return valueError(`Invalid isoformat string: '${s}'`)
  const d = checkDate(+m[1]!, +m[2]!, +m[3]!)
  if (kind === 'date') return new PyTime('date', d)
  const u = m[7] ? +m[7].padEnd(6, '0') : 0
  const sec = checkTime(+(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), u)
  return new PyTime('datetime', d, sec, u, m[8] === undefined ? null : isoOffset(m[8], s))
}

/** The zone of an ISO offset: `Z`, `+HH`, `+HH:MM`, `+HHMM`, `+HH:MM:SS[.ffffff]`. */
function isoOffset(text: string, whole: string): PyTz {
  if (text === 'Z') return UTC
  const p = /^([+-])(\d{2}):?(\d{2})?(?::?(\d{2})(?:\.(\d{6}))?)?$/.exec(text)
  const [h, mi, sec, us] = [p?.[2], p?.[3], p?.[4], p?.[5]].map((x) => (x === undefined ? 0 : +x))
  if (!p || mi! > 59 || sec! > 59) return valueError(`Invalid isoformat string: '${whole}'`)
  const off = (h! * 3600 + mi! * 60 + sec!) * 1e6 + us!
  return makeTz(delta(p[1] === '-' ? -off : off), null)
}

/** The module's functions (`datetime.date(...)`, `datetime.datetime.now()`, ...). */
export const DATETIME: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  date: (_rt, a, kw) => { const [y, m, d] = args('date', ['year', 'month', 'day'], a, kw, 3); return mkDate(int(y), int(m), int(d)) },
  datetime: (_rt, a, kw) => {
    const v = args('datetime', ['year', 'month', 'day', 'hour', 'minute', 'second', 'microsecond', 'tzinfo'], a, kw, 3)
    const [y, m, d, h, mi, s, u] = Array.from({ length: 7 }, (_, i) => (v[i] === undefined ? 0 : int(v[i])))
    return new PyTime('datetime', checkDate(y!, m!, d!), checkTime(h!, mi!, s!, u!), u!, tzArg(v[7]))
  },
  timezone: (_rt, a, kw) => { const [off, name] = args('timezone', ['offset', 'name'], a, kw, 1); return makeTz(off, name) },
  timedelta: (_rt, a, kw) => {
    const v = args('timedelta', ['days', 'seconds', 'microseconds', 'milliseconds', 'minutes', 'hours', 'weeks'], a, kw, 0)
    const scale = [US_DAY, 1e6, 1, 1e3, 6e7, 3.6e9, 7 * US_DAY]
    v.forEach((x, i) => {
      if (x !== undefined && !isNumber(x)) typeError(`unsupported type for timedelta ${['days', 'seconds', 'microseconds', 'milliseconds', 'minutes', 'hours', 'weeks'][i]} component: ${typeNameOf(x)}`)
    })
    // Whole components are exact (a timedelta's microseconds can pass 2^53).
    if (v.every((x) => x === undefined || isIntValue(x))) return deltaBig(v.reduce<bigint>((t, x, i) => (x === undefined ? t : t + BigInt(intOf(x)) * BigInt(scale[i]!)), 0n))
    return delta(roundEven(v.reduce<number>((t, x, i) => (x === undefined ? t : t + floatOf(x) * scale[i]!), 0)))
  },
  'date.today': (rt) => new PyTime('date', EPOCH + Math.floor(clock(rt) / 86_400_000)),
  'datetime.now': (rt, a, kw) => {
    const tz = tzArg(args('now', ['tz'], a, kw, 0)[0])
    const utc = dateTimeAt(EPOCH, Math.floor(clock(rt)) * 1000)
    return tz ? atZone(utc, tz) : utc
  },
  'datetime.fromtimestamp': (_rt, a, kw) => {
    const [ts, tzv] = args('fromtimestamp', ['timestamp', 'tz'], a, kw, 1)
    if (!isNumber(ts)) typeError(`'${typeNameOf(ts)}' object cannot be interpreted as an integer`)
    const tz = tzArg(tzv)
    const utc = dateTimeAt(EPOCH, roundEven(floatOf(ts) * 1e6))
    return tz ? atZone(utc, tz) : utc
  },
  'datetime.utcnow': (rt) => { const ms = clock(rt); return dateTimeAt(EPOCH, Math.floor(ms) * 1000) },
  'date.fromisoformat': (_rt, a) => fromIso(a[0], 'date'),
  'datetime.fromisoformat': (_rt, a) => fromIso(a[0], 'datetime'),
  'datetime.strptime': (rt, a, kw) => strptime(rt, a, kw),
  time: (_rt, a, kw) => makeTime(a, kw),
  'time.fromisoformat': (_rt, a) => timeFromIso(a[0]),
  'datetime.combine': (_rt, a, kw) => combine(a, kw),
  'date.fromordinal': (_rt, a) => { const n = int(a[0]); if (n < 1 || n > MAX_ORDINAL) valueError(`ordinal must be >= 1`); return new PyTime('date', n) },
}

/** The classes' bounds and resolutions (`datetime.min`, `timedelta.max`, ...): immutable, shared by every run. */
const DAY_END = 86399
export const DATETIME_CONSTANTS: Record<string, PyTime> = {
  'date.min': new PyTime('date', 1), 'date.max': new PyTime('date', MAX_ORDINAL), 'date.resolution': new PyTime('timedelta', 1),
  'datetime.min': new PyTime('datetime', 1), 'datetime.max': new PyTime('datetime', MAX_ORDINAL, DAY_END, 999999), 'datetime.resolution': new PyTime('timedelta', 0, 0, 1),
  'time.min': new PyTime('time', 0), 'time.max': new PyTime('time', 0, DAY_END, 999999), 'time.resolution': new PyTime('timedelta', 0, 0, 1),
  'timedelta.min': new PyTime('timedelta', -999999999), 'timedelta.max': new PyTime('timedelta', 999999999, DAY_END, 999999), 'timedelta.resolution': new PyTime('timedelta', 0, 0, 1),
}

function isoDate(t: PyTime): string { const [y, m, d] = ymd(t.d); return `${pad(y, 4)}-${pad(m)}-${pad(d)}` }
/** The time part of isoformat(), to `timespec` (CPython's values; 'auto' shows microseconds when there are any). */
export function isoTime(t: PyTime, timespec = 'auto'): string {
  const h = Math.floor(t.s / 3600), mi = Math.floor(t.s / 60) % 60, s = t.s % 60
  const zone = t.tz ? offsetText(t.tz.offset, ':') : ''
  switch (timespec) {
    case 'auto': return `${pad(h)}:${pad(mi)}:${pad(s)}${t.u ? `.${pad(t.u, 6)}` : ''}${zone}`
    case 'hours': return `${pad(h)}${zone}`
    case 'minutes': return `${pad(h)}:${pad(mi)}${zone}`
    case 'seconds': return `${pad(h)}:${pad(mi)}:${pad(s)}${zone}`
    case 'milliseconds': return `${pad(h)}:${pad(mi)}:${pad(s)}.${pad(Math.floor(t.u / 1000), 3)}${zone}`
    case 'microseconds': return `${pad(h)}:${pad(mi)}:${pad(s)}.${pad(t.u, 6)}${zone}`
  }
  return valueError('Unknown timespec value')
}
function deltaText(t: PyTime): string {
  const h = Math.floor(t.s / 3600), mi = Math.floor(t.s / 60) % 60, s = t.s % 60
  const time = `${h}:${pad(mi)}:${pad(s)}${t.u ? `.${pad(t.u, 6)}` : ''}`
  return t.d ? `${t.d} day${Math.abs(t.d) === 1 ? '' : 's'}, ${time}` : time
}

export function timeStr(t: PyTime): string {
  if (t.kind === 'date') return isoDate(t)
  if (t.kind === 'datetime') return `${isoDate(t)} ${isoTime(t)}`
  if (t.kind === 'time') return isoTime(t)
  return deltaText(t)
}

function timeRepr(t: PyTime): string {
  if (t.kind === 'timedelta') {
    const parts = [t.d ? `days=${t.d}` : '', t.s ? `seconds=${t.s}` : '', t.u ? `microseconds=${t.u}` : ''].filter(Boolean)
    return `datetime.timedelta(${parts.length ? parts.join(', ') : '0'})`
  }
  const [y, m, d] = ymd(t.d)
  if (t.kind === 'date') return `datetime.date(${y}, ${m}, ${d})`
  const h = Math.floor(t.s / 3600), mi = Math.floor(t.s / 60) % 60, s = t.s % 60
  const tail = t.u ? `, ${s}, ${t.u}` : s ? `, ${s}` : ''
  const fields = `${t.kind === 'time' ? '' : `${y}, ${m}, ${d}, `}${h}, ${mi}${tail}`
  return `datetime.${t.kind}(${fields}${t.tz ? `, tzinfo=${t.tz.repr()}` : ''})`
}

/** An aware datetime hashes by its instant (equal instants in two zones are one dict key). */
export const timeHash = (t: PyTime): string => {
  if (t.tz === null) return `${t.kind}:${t.d}:${t.s}:${t.u}`
  const utc = inUtc(t)
  return `aware:${utc.d}:${utc.s}:${utc.u}`
}

/** Three-way comparison of two values of one kind (undefined: not both times of one kind). */
export function timeCompare(a: unknown, b: unknown, op: string): number | undefined {
  if (!(a instanceof PyTime) && !(b instanceof PyTime)) return undefined
  if (!(a instanceof PyTime) || !(b instanceof PyTime) || a.kind !== b.kind) {
    const kinds = [a, b].map((x) => (x instanceof PyTime ? x.kind : ''))
    if (kinds.includes('date') && kinds.includes('datetime')) return typeError("can't compare datetime.datetime to datetime.date")
    return typeError(`'${op}' not supported between instances of '${typeNameOf(a)}' and '${typeNameOf(b)}'`)
  }
  if ((a.tz === null) !== (b.tz === null)) return typeError(`can't compare offset-naive and offset-aware ${a.kind}s`)
  const [x, y] = [inUtc(a), inUtc(b)]
  return x.d !== y.d ? (x.d < y.d ? -1 : 1) : x.s !== y.s ? (x.s < y.s ? -1 : 1) : x.u !== y.u ? (x.u < y.u ? -1 : 1) : 0
}

export function timeEq(a: unknown, b: unknown): boolean | undefined {
  // Timezones are equal by their offsets (the names aside), as CPython's.
  if (a instanceof PyTz || b instanceof PyTz) return a instanceof PyTz && b instanceof PyTz && a.offset === b.offset
  if (!(a instanceof PyTime) && !(b instanceof PyTime)) return undefined
  if (!(a instanceof PyTime) || !(b instanceof PyTime) || a.kind !== b.kind) return false
  // A naive and an aware datetime are never equal (CPython 3.11: no error for ==).
  if ((a.tz === null) !== (b.tz === null)) return false
  const [x, y] = [inUtc(a), inUtc(b)]
  return x.d === y.d && x.s === y.s && x.u === y.u
}

/** `+`, `-`, `*`, `/`, `//`, `%` with a date, datetime or timedelta operand (undefined: not one). */
export function timeArith(op: string, a: unknown, b: unknown): unknown {
  const ta = a instanceof PyTime ? a : null, tb = b instanceof PyTime ? b : null
  if (!ta && !tb) return undefined
  if (op === '+') {
    // Exact: a timedelta's microseconds can pass 2^53, so its days are added apart.
    if (ta?.kind === 'timedelta' && tb?.kind === 'timedelta') return deltaBig(bigUs(ta) + bigUs(tb))
    const [t, dt] = ta?.kind === 'timedelta' ? [tb, ta] : [ta, tb]
    if (t && dt?.kind === 'timedelta') {
      if (t.kind === 'date') return dateAt(t.d + dt.d)
      if (t.kind === 'datetime') return dateTimeAt(t.d + dt.d, (t.s + dt.s) * 1e6 + t.u + dt.u, t.tz)
    }
  }
  // A time takes no arithmetic (CPython's TypeError names the operand types).
  if (ta?.kind === 'time' || tb?.kind === 'time') return undefined
  if (op === '-' && ta) {
    if (tb?.kind === 'timedelta') {
      if (ta.kind === 'timedelta') return deltaBig(bigUs(ta) - bigUs(tb))
      if (ta.kind === 'date') return dateAt(ta.d - tb.d)
      return dateTimeAt(ta.d - tb.d, (ta.s - tb.s) * 1e6 + ta.u - tb.u, ta.tz)
    }
    if (tb && tb.kind === ta.kind) {
      if (ta.kind !== 'datetime') return delta(totalUs(ta) - totalUs(tb))
      if ((ta.tz === null) !== (tb.tz === null)) return typeError("can't subtract offset-naive and offset-aware datetimes")
      const [x, y] = [inUtc(ta), inUtc(tb)]
      // Exact in microseconds (past 2^53 over about 285 years).
      return deltaBig(BigInt(x.d - y.d) * US_DAY_BIG + BigInt((x.s - y.s) * 1e6 + (x.u - y.u)))
    }
  }
  if (op === '*') {
    const [t, n] = ta ? [ta, b] : [tb!, a]
    if (t.kind === 'timedelta' && isNumber(n)) return delta(isIntValue(n) ? totalUs(t) * Number(intOf(n)) : roundEven(totalUs(t) * floatOf(n)))
  }
  if ((op === '//' || op === '%') && ta?.kind === 'timedelta') {
    // Exact in microseconds (a timedelta's can pass 2^53): td // td is an int, td % td and td // int timedeltas.
    if (tb?.kind === 'timedelta') {
      const x = bigUs(ta), y = bigUs(tb)
      if (y === 0n) raise('ZeroDivisionError', op === '//' ? 'integer division or modulo by zero' : 'integer modulo by zero')
      const q = floorDivBig(x, y)
      return op === '//' ? mkInt(q) : deltaBig(x - q * y)
    }
    if (op === '//' && isIntValue(b)) {
      const n = BigInt(intOf(b))
      if (n === 0n) raise('ZeroDivisionError', 'integer division or modulo by zero')
      return deltaBig(floorDivBig(bigUs(ta), n))
    }
  }
  if (op === '/' && ta?.kind === 'timedelta') {
    if (tb?.kind === 'timedelta') { if (totalUs(tb) === 0) raise('ZeroDivisionError', 'division by zero'); return mkFloat(totalUs(ta) / totalUs(tb)) }
    if (isNumber(b)) { if (floatOf(b) === 0) raise('ZeroDivisionError', 'division by zero'); return delta(roundEven(totalUs(ta) / floatOf(b))) }
  }
  return undefined
}

/** `d.year`, `td.days`, ... (undefined: not a time value). */
export function timeAttr(x: unknown, name: string): unknown {
  if (!(x instanceof PyTime)) return undefined
  if (x.kind === 'timedelta') {
    if (name === 'days') return x.d
    if (name === 'seconds') return x.s
    if (name === 'microseconds') return x.u
    return undefined
  }
  if (x.kind === 'time') return clockAttr(x, name)
  const [y, m, d] = ymd(x.d)
  switch (name) {
    case 'year': return y
    case 'month': return m
    case 'day': return d
  }
  return x.kind === 'datetime' ? clockAttr(x, name) : undefined
}

/** The time of day fields of a datetime or a time. */
function clockAttr(x: PyTime, name: string): unknown {
  switch (name) {
    case 'hour': return Math.floor(x.s / 3600)
    case 'minute': return Math.floor(x.s / 60) % 60
    case 'second': return x.s % 60
    case 'microsecond': return x.u
    case 'tzinfo': return x.tz
  }
  return undefined
}

export function strftime(t: PyTime, fmt: string): string {
  // A time is formatted on 1900-01-01, as CPython's time.strftime.
  if (t.kind === 'time') t = new PyTime('datetime', ordinal(1900, 1, 1), t.s, t.u, t.tz)
  const [y, m, d] = ymd(t.d)
  const h = Math.floor(t.s / 3600), mi = Math.floor(t.s / 60) % 60, s = t.s % 60
  const wd = (t.d + 6) % 7
  return fmt.replace(/%(.)/g, (all, c: string) => {
    switch (c) {
      case 'Y': return pad(y, 4)
      case 'y': return pad(y % 100)
      case 'm': return pad(m)
      case 'd': return pad(d)
      case 'H': return pad(h)
      case 'I': return pad(h % 12 === 0 ? 12 : h % 12)
      case 'p': return h < 12 ? 'AM' : 'PM'
      case 'M': return pad(mi)
      case 'S': return pad(s)
      case 'f': return pad(t.u, 6)
      case 'z': return t.tz ? offsetText(t.tz.offset, '') : ''
      case 'Z': return t.tz ? t.tz.label() : ''
      case 'j': return pad(t.d - ordinal(y, 1, 1) + 1, 3)
      case 'a': return DAYS[wd]!.slice(0, 3)
      case 'A': return DAYS[wd]!
      case 'w': return String((wd + 1) % 7)
      case 'u': return String(wd + 1)
      case 'b': case 'h': return MONTHS[m - 1]!.slice(0, 3)
      case 'B': return MONTHS[m - 1]!
      case 'F': return `${pad(y, 4)}-${pad(m)}-${pad(d)}`
      case 'T': return `${pad(h)}:${pad(mi)}:${pad(s)}`
      case '%': return '%'
    }
    return all
  })
}

/** `f"{d:%Y-%m}"`, `format(d, spec)`: strftime, as date.__format__ (undefined: not a date or datetime). */
export function timeFormat(x: unknown, spec: string): string | undefined {
  if (!(x instanceof PyTime) || x.kind === 'timedelta') return undefined
  return strftime(x, spec)
}

const ISO_CALENDAR = new PyNamedTupleType('datetime.IsoCalendarDate', ['year', 'week', 'weekday'], [])

/** The Monday that starts ISO week 1 of a year (CPython's _isoweek1monday). */
function isoWeek1Monday(year: number): number {
  const first = ordinal(year, 1, 1)
  const wd = (first + 6) % 7
  return first - wd + (wd > 3 ? 7 : 0)
}

/** `d.isocalendar()`: (ISO year, week, weekday), a named tuple as CPython's. */
function isoCalendar(day: number): PyNamedTuple {
  let year = ymd(day)[0]
  let monday = isoWeek1Monday(year)
  let week = Math.floor((day - monday) / 7)
  if (week < 0) {
    year -= 1
    monday = isoWeek1Monday(year)
    week = Math.floor((day - monday) / 7)
  } else if (week >= 52 && day >= isoWeek1Monday(year + 1)) {
    year += 1
    week = 0
  }
  const t = new PyNamedTuple()
  t.push(year, week + 1, ((day + 6) % 7) + 1)
  t.ntype = ISO_CALENDAR
  return Object.freeze(t)
}

/** CPython's TypeError for an argument to a method that takes none. */
export function noArgs(owner: string, name: string, a: unknown[], kw: PyDict | null): void {
  if (kw?.size) typeError(`${owner}.${name}() takes no keyword arguments`)
  if (a.length) typeError(`${owner}.${name}() takes no arguments (${a.length} given)`)
}

/** Methods of date, datetime and timedelta values (undefined: not one). */
export function timeMethod(x: unknown, name: string, a: unknown[], kw: PyDict | null): unknown {
  if (x instanceof PyTz) {
    if (name !== 'utcoffset' && name !== 'tzname') return undefined
    const n = a.length + (kw?.size ?? 0)
    if (n !== 1 || kw?.size) typeError(kw?.size && n === 1 ? `timezone.${name}() takes no keyword arguments` : `timezone.${name}() takes exactly one argument (${n} given)`)
    if (a[0] !== null && !(a[0] instanceof PyTime && a[0].kind === 'datetime')) typeError(`${name}(dt) argument must be a datetime instance or None, not ${typeNameOf(a[0])}`)
    return name === 'utcoffset' ? delta(x.offset) : x.label()
  }
  if (!(x instanceof PyTime)) return undefined
  if (x.kind === 'timedelta') {
    if (name === 'total_seconds') { noArgs('timedelta', name, a, kw); return mkFloat(totalUs(x) / 1e6) }
    return undefined
  }
  if (x.kind === 'time') return clockMethod(x, name, a, kw)
  switch (name) {
    case 'isoformat': {
      if (x.kind === 'date') { noArgs('date', name, a, kw); return isoDate(x) }
      const [sep = 'T', timespec = 'auto'] = args('isoformat', ['sep', 'timespec'], a, kw, 0)
      if (typeof sep !== 'string' || [...sep].length !== 1) typeError(`isoformat() argument 1 must be a unicode character, not ${typeNameOf(sep)}`)
      if (typeof timespec !== 'string') typeError(`isoformat() argument 2 must be str, not ${typeNameOf(timespec)}`)
      return `${isoDate(x)}${sep as string}${isoTime(x, timespec as string)}`
    }
    case 'strftime': {
      const [f] = args('strftime', ['format'], a, kw, 1)
      if (typeof f !== 'string') return typeError(`strftime() argument 1 must be str, not ${typeNameOf(f)}`)
      return strftime(x, f)
    }
    // Defined on date (a datetime inherits them): CPython's messages name date.
    case 'weekday': noArgs('date', name, a, kw); return (x.d + 6) % 7
    case 'isocalendar': noArgs('date', name, a, kw); return isoCalendar(x.d)
    case 'isoweekday': noArgs('date', name, a, kw); return ((x.d + 6) % 7) + 1
    case 'toordinal': noArgs('date', name, a, kw); return x.d
    case 'date': if (x.kind === 'datetime') { noArgs('datetime', name, a, kw); return new PyTime('date', x.d) } return undefined
    case 'time': case 'timetz': if (x.kind === 'datetime') { noArgs('datetime', name, a, kw); return new PyTime('time', 0, x.s, x.u, name === 'timetz' ? x.tz : null) } return undefined
  }
  if (x.kind === 'datetime') {
    if (name === 'utcoffset' || name === 'tzname' || name === 'timestamp') noArgs('datetime', name, a, kw)
    switch (name) {
      case 'utcoffset': return x.tz ? delta(x.tz.offset) : null
      case 'tzname': return x.tz ? x.tz.label() : null
      // A naive datetime is local time, which is UTC inside a run.
      case 'astimezone': {
        const tz = tzArg(args('astimezone', ['tz'], a, kw, 0)[0]) ?? UTC
        return atZone(inUtc(x), tz)
      }
      case 'timestamp': return mkFloat((diffUs(inUtc(x), new PyTime('datetime', EPOCH)) / 1e6))
    }
  }
  switch (name) {
    case 'replace': {
      const [y, m, d] = ymd(x.d)
      const cur: Record<string, number> = { year: y, month: m, day: d, hour: Math.floor(x.s / 3600), minute: Math.floor(x.s / 60) % 60, second: x.s % 60, microsecond: x.u }
      const names = x.kind === 'date' ? ['year', 'month', 'day'] : ['year', 'month', 'day', 'hour', 'minute', 'second', 'microsecond', 'tzinfo']
      const v = args('replace', names, a, kw, 0)
      names.slice(0, 7).forEach((n, i) => { if (v[i] !== undefined) cur[n] = int(v[i]) })
      const day = checkDate(cur.year!, cur.month!, cur.day!)
      if (x.kind === 'date') return new PyTime('date', day)
      // `tzinfo=None` makes it naive; leaving it out keeps the zone.
      const tz = names.length > 7 && (a.length > 7 || (kw !== null && [...kw.map.values()].some(([k]) => k === 'tzinfo'))) ? tzArg(v[7]) : x.tz
      return new PyTime('datetime', day, checkTime(cur.hour!, cur.minute!, cur.second!, cur.microsecond!), cur.microsecond!, tz)
    }
  }
  return undefined
}
