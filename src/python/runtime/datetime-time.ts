/**
 * `datetime.time` (extended profile): a time of day, naive or aware of a fixed-offset `timezone`,
 * as CPython 3.11's: `time(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)` with its range
 * errors, `time.fromisoformat` (3.11's wider ISO 8601 forms), `datetime.combine(date, time,
 * tzinfo=time.tzinfo)`, `dt.time()` / `dt.timetz()` (datetime.ts), attributes, `isoformat`,
 * `strftime` (on 1900-01-01), `replace`, `utcoffset`, `tzname`, comparison (aware times by their
 * UTC time, naive against aware CPython's TypeError), hashing, `str` and `repr`. A time takes no
 * arithmetic, as in CPython. Held as a PyTime of kind 'time' (datetime.ts).
 */
import { PyDict, typeName } from './values.ts'
import { typeError, valueError } from './errors.ts'
import { PyTime, PyTz, UTC, args, checkTime, delta, int, isoTime, makeTz, noArgs, strftime, tzArg } from './datetime.ts'

const FIELDS = ['hour', 'minute', 'second', 'microsecond', 'tzinfo']

/** `time(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)`. */
export function makeTime(a: unknown[], kw: PyDict | null): PyTime {
  // CPython's parser names no function for an unknown keyword here.
  for (const [k] of kw?.map.values() ?? []) if (!FIELDS.includes(String(k))) typeError(`'${String(k)}' is an invalid keyword argument for this function`)
  const v = args('time', FIELDS, a, kw, 0)
  const [h, mi, s, u] = Array.from({ length: 4 }, (_, i) => (v[i] === undefined ? 0 : int(v[i])))
  const tz = tzArg(v[4])
  return new PyTime('time', 0, checkTime(h!, mi!, s!, u!), u!, tz)
}

/** `time.fromisoformat(s)`: `[T]HH[:MM[:SS[.f...]]]` or `HHMM[SS]`, then `Z` or an offset (3.11's parser). */
export function timeFromIso(s: unknown): PyTime {
  if (typeof s !== 'string') return typeError(`fromisoformat: argument must be str`)
  const m = /^T?(\d{2})(?:(:?)(\d{2})(?:\2(\d{2})(?:[.,](\d+))?)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,6}))?)?)?)?$/.exec(s)
  if (!m) return valueError(`Invalid isoformat string: '${s}'`)
  // More than six digits of a second are cut, not rounded (as CPython's parser).
  const u = m[5] ? +m[5].slice(0, 6).padEnd(6, '0') : 0
  const sec = checkTime(+m[1]!, +(m[3] ?? 0), +(m[4] ?? 0), u)
  let tz: PyTz | null = null
  if (m[6]) tz = UTC
  else if (m[7]) {
    const off = ((+m[8]! * 60 + +(m[9] ?? 0)) * 60 + +(m[10] ?? 0)) * 1e6 + (m[11] ? +m[11].padEnd(6, '0') : 0)
    tz = makeTz(delta(m[7] === '-' ? -off : off), null)
  }
  return new PyTime('time', 0, sec, u, tz)
}

/** `datetime.combine(date, time, tzinfo=time.tzinfo)`. */
export function combine(a: unknown[], kw: PyDict | null): PyTime {
  const [d, t, tz] = args('combine', ['date', 'time', 'tzinfo'], a, kw, 2)
  if (!(d instanceof PyTime) || (d.kind !== 'date' && d.kind !== 'datetime')) return typeError(`combine() argument 1 must be datetime.date, not ${typeName(d)}`)
  if (!(t instanceof PyTime) || t.kind !== 'time') return typeError(`combine() argument 2 must be datetime.time, not ${typeName(t)}`)
  return new PyTime('datetime', d.d, t.s, t.u, tz === undefined ? t.tz : tzArg(tz))
}

/** The methods of a time (undefined: another name). */
export function clockMethod(x: PyTime, name: string, a: unknown[], kw: PyDict | null): unknown {
  switch (name) {
    case 'isoformat': {
      const [timespec = 'auto'] = args('isoformat', ['timespec'], a, kw, 0)
      if (typeof timespec !== 'string') typeError(`isoformat() argument 1 must be str, not ${typeName(timespec)}`)
      return isoTime(x, timespec as string)
    }
    case 'strftime': {
      const [f] = args('strftime', ['format'], a, kw, 1)
      if (typeof f !== 'string') return typeError(`strftime() argument 1 must be str, not ${typeName(f)}`)
      return strftime(x, f)
    }
    case 'replace': {
      const v = args('replace', FIELDS, a, kw, 0)
      const cur = [Math.floor(x.s / 3600), Math.floor(x.s / 60) % 60, x.s % 60, x.u]
      const [h, mi, s, u] = cur.map((c, i) => (v[i] === undefined ? c : int(v[i])))
      // `tzinfo=None` makes it naive; leaving it out keeps the zone.
      const named = a.length > 4 || (kw !== null && [...kw.map.values()].some(([k]) => k === 'tzinfo'))
      return new PyTime('time', 0, checkTime(h!, mi!, s!, u!), u!, named ? tzArg(v[4]) : x.tz)
    }
    case 'utcoffset': noArgs('time', name, a, kw); return x.tz ? delta(x.tz.offset) : null
    case 'tzname': noArgs('time', name, a, kw); return x.tz ? x.tz.label() : null
  }
  return undefined
}
