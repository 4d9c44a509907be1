/**
 * Option checking shared by the capability factories: unknown keys are
 * refused (a misspelt `maxByte` must not silently mean "no limit"), numbers
 * are range-checked, and the result is frozen.
 */

import { fail, type CapabilityErrorCode } from './errors.ts'

/** A check for one option value; returns an error summary or null. */
export type OptionCheck = (value: unknown) => string | null

/** Integer in [min, max]. */
export const int = (min: number, max: number): OptionCheck => (v) =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? null : `an integer in [${min}, ${max}]`

/** Finite number in [min, max]. */
export const num = (min: number, max: number): OptionCheck => (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? null : `a number in [${min}, ${max}]`

export const bool: OptionCheck = (v) => (typeof v === 'boolean' ? null : 'a boolean')
export const str: OptionCheck = (v) => (typeof v === 'string' && v.length > 0 ? null : 'a non-empty string')
export const fn: OptionCheck = (v) => (typeof v === 'function' ? null : 'a function')
export const strings: OptionCheck = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0) ? null : 'an array of non-empty strings'
export const record: OptionCheck = (v) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string')
    ? null
    : 'an object of strings'

/**
 * Check `options` against `schema` (every key optional unless in `required`),
 * fill `defaults`, and return a frozen copy.
 */
export function checkOptions<T extends object>(
  code: CapabilityErrorCode,
  factory: string,
  options: unknown,
  schema: Record<string, OptionCheck>,
  defaults: Partial<T>,
  required: readonly string[] = [],
): Readonly<T> {
  if (options === undefined) options = {}
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw fail(code, `${factory}: options must be an object`)
  }
  const given = options as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!(key in schema)) {
      throw fail(code, `${factory}: unknown option '${key}' (known: ${Object.keys(schema).join(', ')})`)
    }
  }
  const out: Record<string, unknown> = { ...defaults }
  for (const [key, check] of Object.entries(schema)) {
    const value = given[key]
    if (value === undefined) {
      if (required.includes(key)) throw fail(code, `${factory}: option '${key}' is required`)
      continue
    }
    const problem = check(value)
    if (problem) throw fail(code, `${factory}: option '${key}' must be ${problem}`)
    out[key] = value
  }
  return Object.freeze(out) as Readonly<T>
}
