/**
 * Tenants.authenticate remembers headers that authenticated (the event loop skips the regex and
 * the SHA-256 for them): a remembered header still names its own tenant, unknown or malformed
 * headers are still refused, and the memory stays bounded whatever clients send.
 */
import { describe, expect, test } from 'bun:test'
import { parseServeConfig, tokenSha256 } from '../../src/server/config.ts'
import { HttpError } from '../../src/server/errors.ts'
import { Tenants } from '../../src/server/tenants.ts'

const config = parseServeConfig({ tenants: [{ id: 'a', tokenSha256: tokenSha256('tok-a') }, { id: 'b', tokenSha256: tokenSha256('tok-b') }] })
const code = (f: () => unknown): string | undefined => {
  try {
    f()
    return undefined
  } catch (e) {
    return (e as HttpError).code
  }
}

describe('authenticate with remembered headers', () => {
  test('each header keeps naming its own tenant; unknown ones stay refused', () => {
    const tenants = new Tenants(config)
    for (let i = 0; i < 3; i++) {
      expect(tenants.authenticate('Bearer tok-a').id).toBe('a')
      expect(tenants.authenticate('Bearer tok-b').id).toBe('b')
      expect(code(() => tenants.authenticate('Bearer tok-c'))).toBe('UNAUTHORIZED')
      expect(code(() => tenants.authenticate('Bearer tok-a extra'))).toBe('UNAUTHORIZED')
      expect(code(() => tenants.authenticate(undefined))).toBe('UNAUTHORIZED')
    }
    expect(tenants.authenticate('bearer   tok-a  ').id).toBe('a')
  })

  test('the memory is bounded, and an evicted header authenticates again', () => {
    const many = parseServeConfig({ tenants: [{ id: 'a', tokenSha256: tokenSha256('tok-a') }] })
    const tenants = new Tenants(many)
    // Headers that differ only in spacing all authenticate, each remembered on its own.
    for (let i = 1; i <= 600; i++) expect(tenants.authenticate(`Bearer${' '.repeat(i)}tok-a`).id).toBe('a')
    const known = (tenants as unknown as { known: Map<string, unknown> }).known
    expect(known.size).toBeLessThanOrEqual(256)
    expect(known.has('Bearer tok-a')).toBe(false)
    expect(tenants.authenticate('Bearer tok-a').id).toBe('a')
    // Refused headers are never remembered.
    for (let i = 0; i < 10; i++) code(() => tenants.authenticate(`Bearer bad-${i}`))
    expect([...known.keys()].some((k) => k.includes('bad-'))).toBe(false)
  })
})
