/** Synchronous SHA-256 (hex) of a string's UTF-8 bytes: keeps `hash` on the sync path. */

/**
 * The constants of FIPS 180-4, computed on first use rather than listed (smaller bundle, no work
 * at import): K is the first 32 bits of the fractional parts of the cube roots of the first 64
 * primes, the initial hash H those of the square roots of the first 8 (a test pins both tables).
 */
let K: Uint32Array | undefined
let H0: Uint32Array | undefined
export function sha256Constants(): { K: Uint32Array; H0: Uint32Array } {
  if (!K || !H0) {
    const k = new Uint32Array(64), h = new Uint32Array(8)
    for (let n = 2, i = 0; i < 64; n++) {
      let prime = true
      for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break }
      if (!prime) continue
      if (i < 8) h[i] = (Math.sqrt(n) % 1) * 2 ** 32
      k[i++] = (Math.cbrt(n) % 1) * 2 ** 32
    }
    K = k
    H0 = h
  }
  return { K, H0 }
}

export function sha256Hex(text: string): string {
  const { K, H0 } = sha256Constants()
  const data = new TextEncoder().encode(text)
  const bitLen = data.length * 8
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6)
  padded.set(data)
  padded[data.length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, Math.floor(bitLen / 2 ** 32))
  view.setUint32(padded.length - 4, bitLen >>> 0)
  const h = H0.slice()
  const w = new Uint32Array(64)
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4)
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!, b = w[i - 2]!
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3)
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10)
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[]
    for (let i = 0; i < 64; i++) {
      const S1 = ((e! >>> 6) | (e! << 26)) ^ ((e! >>> 11) | (e! << 21)) ^ ((e! >>> 25) | (e! << 7))
      const ch = (e! & f!) ^ (~e! & g!)
      const t1 = (hh! + S1 + ch + K[i]! + w[i]!) >>> 0
      const S0 = ((a! >>> 2) | (a! << 30)) ^ ((a! >>> 13) | (a! << 19)) ^ ((a! >>> 22) | (a! << 10))
      const maj = (a! & b!) ^ (a! & c!) ^ (b! & c!)
      const t2 = (S0 + maj) >>> 0
      hh = g; g = f; f = e; e = (d! + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0
    }
    h[0] = (h[0]! + a!) >>> 0; h[1] = (h[1]! + b!) >>> 0; h[2] = (h[2]! + c!) >>> 0; h[3] = (h[3]! + d!) >>> 0
    h[4] = (h[4]! + e!) >>> 0; h[5] = (h[5]! + f!) >>> 0; h[6] = (h[6]! + g!) >>> 0; h[7] = (h[7]! + hh!) >>> 0
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('')
}
