/**
 * The workflow's seeded random source: the seed is journaled once, so
 * `Math.random()`, `random()` and `uuid()` replay to the same values.
 */

/** mulberry32: small, fast, and good enough for guest randomness (not for secrets). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** RFC 4122 version-4 shaped ids drawn from `random`. */
export function seededUuid(random: () => number): () => string {
  return () => {
    const b: number[] = []
    for (let i = 0; i < 16; i++) b.push(Math.floor(random() * 256))
    b[6] = (b[6]! & 0x0f) | 0x40
    b[8] = (b[8]! & 0x3f) | 0x80
    const h = b.map((x) => x.toString(16).padStart(2, '0')).join('')
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}

/** A fresh 32-bit seed for a new execution. */
export function newSeed(): number {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!
}
