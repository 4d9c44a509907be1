/**
 * Strings by code point, as Python sees them. JS strings are UTF-16; most
 * strings have no surrogate pairs, and for those code units are code points,
 * so the check is done once per string (cached for the last one seen).
 */

const SURROGATE = /[\uD800-\uDFFF]/

let lastChecked = ''
let lastAstral = false

/** True when the string holds characters outside the BMP (so UTF-16 indexes are not code point indexes). */
export function hasAstral(s: string): boolean {
  if (s.length < 2) return false
  if (s === lastChecked) return lastAstral
  lastChecked = s
  lastAstral = SURROGATE.test(s)
  return lastAstral
}

/** The code points of a string, as one-character strings. */
export const codePoints = (s: string): string[] => Array.from(s)

/** len(s). */
export function strLen(s: string): number {
  if (!hasAstral(s)) return s.length
  let n = 0
  for (const _ of s) n++
  return n
}

/** Compare two strings by code point: -1, 0 or 1. */
export function compareStr(a: string, b: string): number {
  if (a === b) return 0
  if (!hasAstral(a) && !hasAstral(b)) return a < b ? -1 : 1
  const x = codePoints(a), y = codePoints(b)
  const n = Math.min(x.length, y.length)
  for (let i = 0; i < n; i++) {
    const c = x[i]!.codePointAt(0)!, d = y[i]!.codePointAt(0)!
    if (c !== d) return c < d ? -1 : 1
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1
}

const NON_PRINTABLE = /[\p{C}\p{Z}]/u

/** repr(str): quotes chosen as CPython chooses them, escapes for non-printable characters. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === quote || ch === '\\') out += '\\' + ch
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0')
    else if (c < 0x7f || ch === ' ') out += ch
    else if (NON_PRINTABLE.test(ch)) {
      if (c <= 0xff) out += '\\x' + c.toString(16).padStart(2, '0')
      else if (c <= 0xffff) out += '\\u' + c.toString(16).padStart(4, '0')
      else out += '\\U' + c.toString(16).padStart(8, '0')
    } else out += ch
  }
  return out + quote
}

/** Unicode decimal digits (`١٢٣`, `１２`) as ASCII ones, as CPython's int() and float() read them. */
export function asciiDigits(s: string): string {
  if (!/[^\x00-\x7f]/.test(s)) return s
  return s.replace(/\p{Nd}/gu, (d) => {
    const cp = d.codePointAt(0)!
    // Decimal digits come in runs of ten from a zero: the value is the distance from the run's start.
    let zero = cp
    while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--
    return String((cp - zero) % 10)
  })
}
