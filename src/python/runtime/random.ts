/**
 * `random` (extended profile): CPython's generator (MT19937) and its derivations, so a seeded block
 * (`random.seed(42)`) draws exactly what CPython draws. The state belongs to the run; an unseeded one
 * starts from the run's random source (the `random` run option, journaled by a workflow).
 */
import { PyDict, isList, mkFloat } from './values.ts'
import { typeError, valueError, raise } from './errors.ts'
import { intOf, isIntValue, isNumber, floatOf } from './numbers.ts'
import { iterate } from './core.ts'
import type { PyRun } from './fuel.ts'

const N = 624, M = 397

class MT {
  readonly mt = new Uint32Array(N)
  i = N + 1
  initGenrand(s: number): void {
    this.mt[0] = s >>> 0
    for (let i = 1; i < N; i++) {
      const p = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30)
      this.mt[i] = (Math.imul(1812433253, p) + i) >>> 0
    }
    this.i = N
  }
  initByArray(key: number[]): void {
    this.initGenrand(19650218)
    let i = 1, j = 0
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const p = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30)
      this.mt[i] = ((this.mt[i]! ^ Math.imul(p, 1664525)) + key[j]! + j) >>> 0
      i++; j++
      if (i >= N) { this.mt[0] = this.mt[N - 1]!; i = 1 }
      if (j >= key.length) j = 0
    }
    for (let k = N - 1; k > 0; k--) {
      const p = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30)
      this.mt[i] = ((this.mt[i]! ^ Math.imul(p, 1566083941)) - i) >>> 0
      i++
      if (i >= N) { this.mt[0] = this.mt[N - 1]!; i = 1 }
    }
    this.mt[0] = 0x80000000
  }
  next32(): number {
    if (this.i >= N) {
      const mt = this.mt
      for (let k = 0; k < N; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % N]! & 0x7fffffff)
        mt[k] = mt[(k + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)
      }
      this.i = 0
    }
    let y = this.mt[this.i++]!
    y ^= y >>> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    y ^= y >>> 18
    return y >>> 0
  }
  random(): number {
    const a = this.next32() >>> 5, b = this.next32() >>> 6
    return (a * 67108864 + b) / 9007199254740992
  }
  bits(k: number): bigint | number {
    if (k <= 32) return this.next32() >>> (32 - k)
    let out = 0n, shift = 0n
    for (let left = k; left > 0; left -= 32, shift += 32n) {
      let w = this.next32()
      if (left < 32) w >>>= 32 - left
      out |= BigInt(w) << shift
    }
    return out
  }
  below(n: bigint | number): bigint | number {
    const big = BigInt(n)
    const k = big.toString(2).length
    for (;;) {
      const r = this.bits(k)
      if (BigInt(r) < big) return typeof n === 'number' ? Number(r) : BigInt(r)
    }
  }
}

/** The seed as CPython keys it: the absolute value's 32-bit words, least significant first. */
function seedWords(a: bigint): number[] {
  let v = a < 0n ? -a : a
  const key: number[] = []
  while (v > 0n) { key.push(Number(v & 0xffffffffn)); v >>= 32n }
  return key.length ? key : [0]
}

/** Four words from the run's random source (the `random` run option). */
function sourceWords(rt: PyRun): number[] {
  const source = (rt as PyRun & { random?: () => number }).random
  if (typeof source !== 'function') return raise('RuntimeError', 'this run has no random source')
  return Array.from({ length: 4 }, () => Math.floor(source.call(rt) * 0x100000000) >>> 0)
}

const states = new WeakMap<object, MT>()
function state(rt: PyRun): MT {
  let s = states.get(rt)
  if (!s) {
    s = new MT()
    s.initByArray(sourceWords(rt))
    states.set(rt, s)
  }
  return s
}

const int = (x: unknown, what = 'integer'): number | bigint => {
  if (!isIntValue(x)) typeError(`'${typeof x === 'string' ? 'str' : 'float'}' object cannot be interpreted as an ${what}`)
  return intOf(x)
}

function randrange(s: MT, start: number | bigint, stop?: number | bigint, step: number | bigint = 1): number | bigint {
  if (stop === undefined) {
    if (start <= 0) valueError('empty range for randrange()')
    return s.below(start)
  }
  const width = BigInt(stop) - BigInt(start)
  const st = BigInt(step)
  if (st === 1n) {
    if (width <= 0n) valueError(`empty range for randrange() (${start}, ${stop}, ${width})`)
    const r = BigInt(start) + BigInt(s.below(width))
    return Number.isSafeInteger(Number(r)) ? Number(r) : r
  }
  if (st === 0n) valueError('zero step for randrange()')
  const n = st > 0n ? (width + st - 1n) / st : (width + st + 1n) / st
  if (n <= 0n) valueError('empty range for randrange()')
  const r = BigInt(start) + st * BigInt(s.below(n))
  return Number.isSafeInteger(Number(r)) ? Number(r) : r
}

const noKw = (name: string, kw: PyDict | null) => { if (kw && kw.size) typeError(`${name}() takes no keyword arguments`) }

export const RANDOM: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  seed: (rt, a) => {
    const s = state(rt)
    if (a.length === 0 || a[0] === null || a[0] === undefined) { s.initByArray(sourceWords(rt)); return null }
    if (!isIntValue(a[0])) return typeError('random.seed() here takes an int (or None)')
    s.initByArray(seedWords(BigInt(intOf(a[0]))))
    return null
  },
  random: (rt, a, kw) => { noKw('random', kw); if (a.length) typeError(`random() takes no arguments (${a.length} given)`); return mkFloat(state(rt).random()) },
  uniform: (rt, a) => { const x = floatOf(a[0]), y = floatOf(a[1]); return mkFloat(x + (y - x) * state(rt).random()) },
  getrandbits: (rt, a) => { const k = Number(int(a[0])); if (k < 0) valueError('number of bits must be non-negative'); if (k === 0) return 0; const r = state(rt).bits(k); return typeof r === 'bigint' && r <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r) : r },
  randrange: (rt, a, kw) => { noKw('randrange', kw); return randrange(state(rt), int(a[0]), a.length > 1 ? int(a[1]) : undefined, a.length > 2 ? int(a[2]) : 1) },
  randint: (rt, a) => { if (a.length !== 2) typeError(`randint() takes 2 positional arguments but ${a.length} were given`); return randrange(state(rt), int(a[0]), BigInt(int(a[1])) + 1n) },
  choice: (rt, a) => {
    const xs = iterate(a[0], rt)
    if (!xs.length) raise('IndexError', 'Cannot choose from an empty sequence')
    return xs[Number(state(rt).below(xs.length))]
  },
  shuffle: (rt, a) => {
    const x = a[0]
    if (!isList(x)) return typeError(`'${x === null ? 'NoneType' : typeof x === 'string' ? 'str' : 'tuple'}' object does not support item assignment`)
    const s = state(rt)
    for (let i = x.length - 1; i > 0; i--) {
      const j = Number(s.below(i + 1))
      const t = x[i]; x[i] = x[j]; x[j] = t
    }
    return null
  },
  choices: (rt, a, kw) => {
    const pop = iterate(a[0], rt)
    const opts: Record<string, unknown> = {}
    if (kw) for (const [k, v] of kw.map.values()) opts[k as string] = v
    const weights = a[1] ?? opts.weights ?? null
    const k = Number(int(opts.k ?? 1))
    const s = state(rt)
    const n = pop.length
    if (weights === null || weights === undefined) {
      if (!n) raise('IndexError', 'Cannot choose from an empty sequence')
      return Array.from({ length: k }, () => pop[Math.floor(s.random() * n)])
    }
    const w = iterate(weights, rt).map((x) => { if (!isNumber(x)) typeError("unsupported operand type(s) for +: 'float' and 'str'"); return floatOf(x) })
    if (w.length !== n) valueError('The number of weights does not match the population')
    const cum: number[] = []
    let total = 0
    for (const x of w) { total += x; cum.push(total) }
    if (total <= 0) valueError('Total of weights must be greater than zero')
    return Array.from({ length: k }, () => {
      const r = s.random() * total
      let lo = 0, hi = n - 1
      while (lo < hi) { const mid = (lo + hi) >> 1; if (r < cum[mid]!) hi = mid; else lo = mid + 1 }
      return pop[lo]
    })
  },
}
