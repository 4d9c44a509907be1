/** The `hash` atom's SHA-256 computes its constants (FIPS 180-4) instead of listing them: pinned here. */
import { expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { sha256Constants, sha256Hex } from '../../src/vm/atoms/sha256.ts'

test('the computed constants are the standard ones, and digests match node:crypto', () => {
  const { K, H0 } = sha256Constants()
  expect([K[0], K[1], K[31], K[62], K[63]]).toEqual([0x428a2f98, 0x71374491, 0x14292967, 0xbef9a3f7, 0xc67178f2])
  expect([...H0]).toEqual([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19])
  // Every K against a digest: a wrong constant changes every hash.
  for (const text of ['', 'abc', 'héllo wörld ✓', 'x'.repeat(1_000), 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64)]) {
    expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'))
  }
})
