/**
 * Hardening round 3, class 2 (issue 23): compiling a tenant's procedure
 * source runs in the worker pool under the tenant's time limit, never on the
 * server's event loop; the main thread routes and keeps the books.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { tokenSha256 } from '../../src/server/index.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer({ size: 2 }, {
    tenants: [
      { id: 'a', tokenSha256: tokenSha256('token-a'), limits: { timeoutMs: 20_000 } },
      { id: 'b', tokenSha256: tokenSha256('token-b') },
    ],
    limits: { maxBodyBytes: 4_000_000, maxAstNodes: 1_000_000, maxAstDepth: 200 },
  })
})
afterAll(() => t.close())

test('a procedure source is compiled in a pool worker; its compile errors keep their location', async () => {
  const before = t.server.pool.compilations
  const ok = await t.req('POST', '/v1/procedures', { body: { source: 'function f({ n }) { return n * 2 }' } })
  expect(ok.status).toBe(201)
  expect(t.server.pool.compilations).toBe(before + 1)
  const run = await t.req('POST', '/v1/runs', { body: { token: ok.json.token, args: { n: 21 } } })
  expect(run.json.result).toBe(42)
  const bad = await t.req('POST', '/v1/procedures', { body: { source: 'function f() {\n  return x +\n}' } })
  expect(bad.status).toBe(422)
  expect(bad.json.error).toMatchObject({ line: expect.any(Number), column: expect.any(Number) })
  expect(t.server.pool.compilations).toBe(before + 2)
})

test('while large sources compile, /healthz and another tenant answer at once', async () => {
  // ~0.3 MB of source each: hundreds of ms of transpiling apiece, which used to block the event loop.
  const body = Array.from({ length: 8_000 }, (_, i) => `  const v${i} = n + ${i} * 2 - (n % 3)`).join('\n')
  const source = `function f({ n }) {\n${body}\n  return v0\n}`
  const compiles = Array.from({ length: 3 }, () => t.req('POST', '/v1/procedures', { body: { source } }))
  await new Promise((r) => setTimeout(r, 30))
  const lags: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    const h = await t.req('GET', '/healthz', { token: null })
    expect(h.status).toBe(200)
    lags.push(performance.now() - started)
    await new Promise((r) => setTimeout(r, 20))
  }
  const results = await Promise.all(compiles)
  for (const r of results) expect([201, 413, 422, 429, 503]).toContain(r.status)
  expect(Math.max(...lags)).toBeLessThan(250)
  console.log(`healthz during compilation: max ${Math.max(...lags).toFixed(0)} ms; compile statuses ${results.map((r) => r.status).join(',')}`)
}, 60_000)
