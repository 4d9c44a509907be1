/**
 * Exact rationals on bigints, what `fractions.Fraction` holds and what `statistics` sums with, as
 * CPython's do: a float converts exactly (`as_integer_ratio`), a rational to a float is rounded once
 * (int / int true division), and a square root of a rational is rounded once (statistics'
 * `_float_sqrt_of_frac`).
 */
import { bigTrueDiv } from './numbers.ts'
import { raise } from './errors.ts'

/** n/d in lowest terms, d > 0. */
export interface Ratio { readonly n: bigint; readonly d: bigint }

export const abs = (x: bigint): bigint => (x < 0n ? -x : x)

export function gcd(a: bigint, b: bigint): bigint {
  a = abs(a); b = abs(b)
  while (b) [a, b] = [b, a % b]
  return a
}

/** n/d reduced (d must not be 0). */
export function ratio(n: bigint, d: bigint): Ratio {
  if (d === 1n) return { n, d }
  let g = gcd(n, d)
  if (d < 0n) g = -g
  return g === 1n ? { n, d } : { n: n / g, d: d / g }
}

export const ZERO: Ratio = { n: 0n, d: 1n }
export const fromInt = (n: bigint): Ratio => ({ n, d: 1n })

export const add = (a: Ratio, b: Ratio): Ratio => (a.d === b.d ? ratio(a.n + b.n, a.d) : ratio(a.n * b.d + b.n * a.d, a.d * b.d))
export const sub = (a: Ratio, b: Ratio): Ratio => add(a, { n: -b.n, d: b.d })
export const mul = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.n, a.d * b.d)
/** a / b; b must not be 0. */
export const div = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d, a.d * b.n)
export const cmp = (a: Ratio, b: Ratio): number => {
  const x = a.n * b.d, y = b.n * a.d
  return x < y ? -1 : x > y ? 1 : 0
}

/** Python's `//` on bigints (toward negative infinity). */
export const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q
}

/** A finite float, exactly (`x.as_integer_ratio()`). */
export function fromFloat(x: number): Ratio {
  let m = x, e = 0
  // Doubling is exact: at most 1074 steps reach an integer.
  while (!Number.isInteger(m)) { m *= 2; e++ }
  return ratio(BigInt(m), 1n << BigInt(e))
}

/** The float nearest n/d (CPython's int / int: rounded once; OverflowError beyond the float range). */
export const toFloat = (r: Ratio): number => (r.d === 1n && abs(r.n) < 2n ** 53n ? Number(r.n) : bigTrueDiv(r.n, r.d))

/** b ** e mod m (the hashes of fractions and decimals: CPython's modular inverses). */
export function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n
  for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m
  return r
}

/** ⌊√n⌋ of a non-negative bigint (Newton's iteration from above). */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1)
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x) return x
    x = y
  }
}

const bitLength = (x: bigint): number => (x === 0n ? 0 : abs(x).toString(2).length)

/** √(n/m) rounded once to a float (statistics' `_float_sqrt_of_frac`, round-to-odd then one rounding). */
export function sqrtOfRatio(n: bigint, m: bigint): number {
  if (n < 0n) raise('ValueError', 'math domain error')
  const rto = (a: bigint, b: bigint): bigint => {
    const s = isqrt(a / b)
    return s | (s * s * b !== a ? 1n : 0n)
  }
  const q = Math.floor((bitLength(n) - bitLength(m) - 109) / 2)
  if (q >= 0) return toFloat({ n: rto(n, m << BigInt(2 * q)) << BigInt(q), d: 1n })
  return bigTrueDiv(rto(n << BigInt(-2 * q), m), 1n << BigInt(-q))
}
