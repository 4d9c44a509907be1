/** Parsing of numeric flag values; a malformed value is a usage error (exit 2). */
import { usageError } from './io.ts'

/** A non-negative number, or undefined when the flag is absent. */
export function numberOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw usageError(`${flag} must be a non-negative number, got "${value}"`)
  return n
}

/** An integer >= `min`, or undefined when the flag is absent. */
export function intOption(value: string | undefined, flag: string, min = 0): number | undefined {
  const n = numberOption(value, flag)
  if (n !== undefined && (!Number.isInteger(n) || n < min)) throw usageError(`${flag} must be an integer >= ${min}, got "${value}"`)
  return n
}
