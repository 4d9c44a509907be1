/**
 * The `Date` statics: `Date.time(...)`, what `new Date(...)` lowers to, and one static per Date method,
 * `Date.getMonth(t)` for `d.getMonth()` (ast/globals.ts DATE_METHODS). A Date is its time value, so a
 * guest never holds a host Date: each call builds one from the number, asks it, and lets it go.
 *
 * The VM's time zone is UTC on every host: the local getters and setters are the UTC ones and
 * `toString` writes GMT+0000, so a program prints and branches alike everywhere (a replayed workflow
 * takes the same path). JavaScript on a host set to UTC gives the same answers.
 */
import type { Run } from '../runtime.ts'
import { DATE_FIELD_NAMES } from '../../ast/globals.ts'
import { vmError } from '../errors.ts'
import { FREE_TEXT_CHARS, chargeScan, chargeText } from './sizes.ts'
import { toPrim } from './coerce.ts'
import { parseDate } from './date-parse.ts'
import { checkSmall, dateLocaleString, type DateTextKind } from './collate.ts'

type DateStatic = (rt: Run, args: any[]) => unknown

/** The largest time value a Date holds (ECMAScript's TimeClip): 100,000,000 days either side of 1970. */
const MAX_TIME = 8.64e15
const clip = (t: number): number => (Math.abs(t) <= MAX_TIME ? Math.trunc(t) + 0 : NaN)

/** ToNumber of an argument: an object through the guarded conversion, a long text paid first. */
function toNum(rt: Run, v: unknown): number {
  if (typeof v === 'number') return v
  const p = typeof v === 'object' && v !== null ? toPrim(rt, v) : v
  if (typeof p === 'string' && p.length > FREE_TEXT_CHARS) chargeText(rt, p)
  return Number(p)
}

/** The time value `new Date(...args)` holds: now, a time value, a text read by Date.parse, or fields in UTC. */
function time(rt: Run, a: unknown[]): number {
  if (a.length === 0) return rt.now()
  if (a.length === 1) {
    const v = a[0]
    const p = typeof v === 'object' && v !== null ? toPrim(rt, v) : v
    if (typeof p !== 'string') return clip(toNum(rt, p))
    chargeScan(rt, p.length)
    return parseDate(p)
  }
  const fields = a.slice(0, 7).map((x) => toNum(rt, x)) as [number, number]
  return clip(Date.UTC(...fields))
}

const hostDate = (rt: Run, t: unknown): Date => new Date(toNum(rt, t))

/** `Fri, 27 Nov 2026 10:00:00 GMT` in pieces (the engine writes toUTCString alike on every host), or undefined for an invalid date. */
function utcParts(rt: Run, t: unknown): { day: string; date: string; month: string; year: string; time: string } | undefined {
  const d = hostDate(rt, t)
  if (Number.isNaN(d.getTime())) return undefined
  const [day, date, month, year, time] = d.toUTCString().split(' ') as [string, string, string, string, string]
  return { day: day.slice(0, 3), date, month, year, time }
}

const ZONE = 'GMT+0000 (Coordinated Universal Time)'
const INVALID = 'Invalid Date'

function text(rt: Run, t: unknown, write: (p: NonNullable<ReturnType<typeof utcParts>>) => string): string {
  const p = utcParts(rt, t)
  return rt.chargeString(p ? write(p) : INVALID)
}

function isoText(rt: Run, t: unknown): string {
  const d = hostDate(rt, t)
  if (Number.isNaN(d.getTime())) throw vmError('RANGE_ERROR', 'Invalid time value')
  return d.toISOString()
}

/**
 * What making an Intl.DateTimeFormat costs, in characters scanned: 0.13-0.4 ms in Node 20 (the locale's
 * data, the zone's rules), where a run spends ~0.1 ms for a fuel unit. Formatters are cached for the
 * process (collate.ts, 16), so a run naming 20 zones or locales in turn made one on every call: 0.25 fuel
 * for 0.41 ms. Paid the first time a run formats with a kind, locales and options, and on every call once
 * it has named more than FORMATS_PER_RUN (the cache can no longer be counted on to hold them): the fuel
 * depends on the run alone, never on what other runs left in the cache.
 */
const NEW_FORMAT_CHARS = 300_000
const FORMATS_PER_RUN = 8
const formats = new WeakMap<Run, Set<string>>()

function format(rt: Run, d: Date, locales: unknown, options: unknown, kind: DateTextKind): string {
  checkSmall(rt, locales)
  checkSmall(rt, options)
  // Each primitive tagged with its type, as collate.ts keys its cache (null and NaN are two formats).
  const key = kind + JSON.stringify([locales, options], (_k, v) => (typeof v === 'object' && v !== null ? v : typeof v + String(v)))
  let seen = formats.get(rt)
  if (!seen) formats.set(rt, (seen = new Set()))
  if (!seen.has(key) || seen.size > FORMATS_PER_RUN) {
    chargeScan(rt, NEW_FORMAT_CHARS)
    seen.add(key)
  }
  return dateLocaleString(rt, d, locales, options, kind)
}

const localeText = (kind: DateTextKind): DateStatic => (rt, [t, locales, options]) => {
  const d = hostDate(rt, t)
  return Number.isNaN(d.getTime()) ? INVALID : format(rt, d, locales, options, kind)
}

type HostGet = () => number
type HostSet = (...xs: number[]) => number

/** Date's statics by name: `time`, and one per method of ast/globals.ts DATE_METHODS. */
export const DATE_STATICS: Record<string, DateStatic> = {
  time: (rt, a) => time(rt, a),
  getTime: (rt, [t]) => toNum(rt, t),
  getTimezoneOffset: (rt, [t]) => (Number.isNaN(toNum(rt, t)) ? NaN : 0),
  setTime: (rt, [, v]) => clip(toNum(rt, v)),
  toJSON: (rt, [t]) => (Number.isNaN(toNum(rt, t)) ? null : isoText(rt, t)),
  toDateString: (rt, [t]) => text(rt, t, (p) => `${p.day} ${p.month} ${p.date} ${p.year}`),
  toTimeString: (rt, [t]) => text(rt, t, (p) => `${p.time} ${ZONE}`),
  toUTCString: (rt, [t]) => rt.chargeString(hostDate(rt, t).toUTCString()),
  toLocaleString: localeText('any'),
  toLocaleDateString: localeText('date'),
  toLocaleTimeString: localeText('time'),
  /** `new Intl.DateTimeFormat(locales, options).format(d)`, written in place (lower/intl.ts): an invalid time is its RangeError. */
  intlFormat: (rt, [t, locales, options]) => {
    const d = hostDate(rt, t)
    if (Number.isNaN(d.getTime())) throw vmError('RANGE_ERROR', 'Invalid time value')
    return format(rt, d, locales, options, 'format')
  },
}
// Named through an index: in a literal these two would be typed as Object.prototype's own methods.
DATE_STATICS['valueOf'] = DATE_STATICS.getTime!
DATE_STATICS['toString'] = (rt, [t]) => text(rt, t, (p) => `${p.day} ${p.month} ${p.date} ${p.year} ${p.time} ${ZONE}`)
for (const field of [...DATE_FIELD_NAMES, 'Day'] as const) {
  const name = `getUTC${field}` as const
  const get: DateStatic = (rt, [t]) => { const d = hostDate(rt, t); return (d[name] as HostGet).call(d) }
  DATE_STATICS[`get${field}`] = DATE_STATICS[name] = get
}
for (const field of DATE_FIELD_NAMES) {
  const name = `setUTC${field}` as const
  // A setter's fields are converted in order, at most the four the engine reads (setUTCHours: hours, minutes, seconds, ms).
  const set: DateStatic = (rt, [t, ...fields]) => {
    const d = hostDate(rt, t)
    return (d[name] as HostSet).apply(d, fields.slice(0, 4).map((x) => toNum(rt, x)))
  }
  DATE_STATICS[`set${field}`] = DATE_STATICS[name] = set
}
