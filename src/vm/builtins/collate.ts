/**
 * `localeCompare` as JavaScript's: `Intl.Collator` with the guest's locales and options; and
 * `toLocaleLowerCase` / `toLocaleUpperCase` in the locales given. The default locale is "en", not
 * the host's: a program compares and cases text in the same locale on every host (a workflow
 * replayed elsewhere takes the same branches). Collators are cached by their arguments.
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
const cache = new Map<string, Intl.Collator>()

function tooLarge(): never {
  throw vmError('RANGE_ERROR', `Locales and options hold at most ${MAX_ITEMS} primitives of at most ${MAX_TEXT} characters`)
}

/** The locales or options argument: a short primitive, or an array or object of at most MAX_ITEMS of them. */
function checkSmall(v: unknown): void {
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'string' && v.length > MAX_TEXT) tooLarge()
    return
  }
  let n = 0
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k]
    if (++n > MAX_ITEMS || (typeof x === 'object' && x !== null) || (typeof x === 'string' && x.length > MAX_TEXT)) tooLarge()
  }
  // Intl reads a locales object as a list of `length` items, however large ({ length: 'Infinity' } hung the host in
  // one native call): the length (a primitive, checked above) is a few items too (NaN is refused, though JS reads 0).
  if ('length' in v && !(Number((v as { length: unknown }).length) <= MAX_ITEMS)) tooLarge()
}

export function localeCompare(rt: Run, s: string, that: string, locales: unknown, options: unknown): number {
  chargeScan(rt, s.length + that.length)
  let key = ''
  if (locales !== undefined || options !== undefined) {
    checkSmall(locales)
    checkSmall(options)
    // Charged on every call that names them, cached or not: a run's fuel never depends on earlier runs.
    chargeScan(rt, NEW_COLLATOR_CHARS)
    // Each primitive tagged with its type: plain JSON made NaN and null one key, so a collator cached for
    // localeCompare(s, NaN) answered localeCompare(s, null), JS's TypeError, after it.
    key = JSON.stringify([locales, options], (_k, v) => (typeof v === 'object' && v !== null ? v : typeof v + String(v)))
  }
  let c = cache.get(key)
  if (!c) {
    // Intl's own errors keep their kind (nativeOp): a bad tag is a RangeError, a locale that is not text (null, [1]) a TypeError.
    c = nativeOp('RANGE_ERROR', () => new Intl.Collator(locales === undefined ? 'en' : (locales as string), options as Intl.CollatorOptions))
    if (cache.size >= MAX_CACHED) cache.clear()
    cache.set(key, c)
  }
  return c.compare(s, that)
}

/** The case mapping of toLocaleLowerCase / toLocaleUpperCase in the locales given (without, the methods are toLowerCase's). */
export function localeCase(locales: unknown, upper: boolean): (s: string) => string {
  checkSmall(locales)
  const tags = locales as string
  return (s) => nativeOp('RANGE_ERROR', () => (upper ? s.toLocaleUpperCase(tags) : s.toLocaleLowerCase(tags)))
}
