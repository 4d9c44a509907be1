/**
 * `localeCompare` as JavaScript's: `Intl.Collator` with the guest's locales and options;
 * `toLocaleLowerCase` / `toLocaleUpperCase` in the locales given; a number's `toLocaleString`
 * through `Intl.NumberFormat`. The default locale is "en", not
 * the host's: a program compares and cases text in the same locale on every host (a workflow
 * replayed elsewhere takes the same branches). Collators and formats are cached by their arguments.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { chargeScan, nativeOp } from './sizes.ts'

/** What a call naming locales or options is charged, in characters scanned (making a collator loads and tailors collation data). */
const NEW_COLLATOR_CHARS = 1_000
/** Locales and options are a few short primitives: checked before anything is built from them. */
const MAX_ITEMS = 8
const MAX_TEXT = 64
const MAX_CACHED = 16
const cache = new Map<string, unknown>()

function tooLarge(): never {
  throw vmError('RANGE_ERROR', `Locales and options hold at most ${MAX_ITEMS} primitives of at most ${MAX_TEXT} characters`)
}

/** The locales or options argument: a short primitive, or an array or object of at most MAX_ITEMS of them. */
export function checkSmall(rt: Run, v: unknown): void {
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'string' && v.length > MAX_TEXT) tooLarge()
    return
  }
  // The engine lists every key before the first is seen (an array of 8M undefineds, or an object of a
  // million keys, took 10 to 60 ms a call, unpaid): an array's length is checked first, the keys paid.
  if (Array.isArray(v) && v.length > MAX_ITEMS) tooLarge()
  const keys = Object.keys(v)
  rt.chargeSlots(keys.length)
  if (keys.length > MAX_ITEMS) tooLarge()
  for (const k of keys) {
    const x = (v as Record<string, unknown>)[k]
    if ((typeof x === 'object' && x !== null) || (typeof x === 'string' && x.length > MAX_TEXT)) tooLarge()
  }
  // Intl reads a locales object as a list of `length` items, however large ({ length: 'Infinity' } hung the host in
  // one native call): the length (a primitive, checked above) is a few items too (NaN is refused, though JS reads 0).
  if ('length' in v && !(Number((v as { length: unknown }).length) <= MAX_ITEMS)) tooLarge()
}

/**
 * The guest's locales with "en" last. Intl falls back to the host's default locale for an empty list
 * ([], {}) or tags it does not support ('zz'): a guest read the host's language through it (on a de-DE
 * host 1234.5 was '1.234,5', on a tr-TR host 'i' uppercased to 'İ') and its results moved with the host.
 */
const tags = (locales: unknown): string | string[] => (locales === undefined ? 'en' : [...Intl.getCanonicalLocales(locales as string), 'en'])

/**
 * An Intl formatter or collator for the guest's locales and options, "en" when none are given. Each
 * call naming them is charged (cached or not: a run's fuel never depends on earlier runs).
 */
function intl<T>(rt: Run, kind: string, locales: unknown, options: unknown, make: (locales: string | string[], options: any) => T): T {
  let key = kind
  if (locales !== undefined || options !== undefined) {
    checkSmall(rt, locales)
    checkSmall(rt, options)
    chargeScan(rt, NEW_COLLATOR_CHARS)
    // Each primitive tagged with its type: plain JSON made NaN and null one key, so a collator cached for
    // localeCompare(s, NaN) answered localeCompare(s, null), JS's TypeError, after it.
    key += JSON.stringify([locales, options], (_k, v) => (typeof v === 'object' && v !== null ? v : typeof v + String(v)))
  }
  let c = cache.get(key) as T | undefined
  if (!c) {
    // Intl's own errors keep their kind (nativeOp): a bad tag is a RangeError, a locale that is not text (null, [1]) a TypeError.
    c = nativeOp('RANGE_ERROR', () => make(tags(locales), options))
    if (cache.size >= MAX_CACHED) cache.clear()
    cache.set(key, c)
  }
  return c
}

export function localeCompare(rt: Run, s: string, that: string, locales: unknown, options: unknown): number {
  chargeScan(rt, s.length + that.length)
  return intl(rt, 'c', locales, options, (l, o) => new Intl.Collator(l, o)).compare(s, that)
}

/** A number's toLocaleString: Intl.NumberFormat's text (grouping, currency, percent, units), "en" by default. */
export function numberLocaleString(rt: Run, n: number, locales: unknown, options: unknown): string {
  const text = intl(rt, 'n', locales, options, (l, o) => new Intl.NumberFormat(l, o)).format(n)
  return rt.chargeString(text)
}

/** The case mapping of toLocaleLowerCase / toLocaleUpperCase in the locales given (without, the methods are toLowerCase's). */
export function localeCase(rt: Run, locales: unknown, upper: boolean): (s: string) => string {
  checkSmall(rt, locales)
  // The tags once (a long text is mapped in pieces); a bad one is RangeError/TypeError as in JavaScript, for '' too.
  const list = nativeOp('RANGE_ERROR', () => tags(locales))
  return (s) => nativeOp('RANGE_ERROR', () => (upper ? s.toLocaleUpperCase(list) : s.toLocaleLowerCase(list)))
}

/**
 * Which of a Date's toLocale* methods, or `format` for `new Intl.DateTimeFormat(...).format(d)`: the fields
 * each writes when the options name none (ECMA-402's ToDateTimeOptions; `format` reads any, writes the date).
 */
export type DateTextKind = 'date' | 'time' | 'any' | 'format'
const DATE_PARTS = ['weekday', 'year', 'month', 'day'] as const
const TIME_PARTS = ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits'] as const

/** The options a toLocale*String call formats with: the guest's, in UTC unless it names a zone, with the default fields. */
function dateOptions(options: unknown, kind: DateTextKind): Record<string, unknown> {
  const o: Record<string, unknown> = { timeZone: 'UTC', ...(typeof options === 'object' && options !== null ? options : {}) }
  const named = (parts: readonly string[]) => parts.some((p) => o[p] !== undefined)
  const none = o.dateStyle === undefined && o.timeStyle === undefined &&
    !(kind !== 'time' && named(DATE_PARTS)) && !(kind !== 'date' && named(TIME_PARTS))
  if (none && kind !== 'time') o.year = o.month = o.day = 'numeric'
  if (none && (kind === 'time' || kind === 'any')) o.hour = o.minute = o.second = 'numeric'
  return o
}

/** A Date's toLocaleString / toLocaleDateString / toLocaleTimeString: Intl.DateTimeFormat's text, "en" and UTC by default. */
export function dateLocaleString(rt: Run, d: Date, locales: unknown, options: unknown, kind: DateTextKind): string {
  const text = intl(rt, `d${kind}`, locales, options, (l, o) => new Intl.DateTimeFormat(l, dateOptions(o, kind))).format(d)
  return rt.chargeString(text)
}
