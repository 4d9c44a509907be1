/** Issue 29, item 7: createRemoteVM().run() keeps what the server said: a compile error's line/column/location, a rate limit's retryAfter. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRemoteVM } from '../../src/client/index.ts'
import { startTestServer, TOKENS, type TestServer } from '../server/helpers.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 1 }) })
afterAll(() => t.close())

describe('7. the client keeps error details', () => {
  test('a compile error: line, column, location and hint, as curl shows them', async () => {
    const source = 'function f() {\n  var x = 1\n  return { x }\n}'
    const raw = await t.req('POST', '/v1/runs', { body: { source } })
    const vm = createRemoteVM({ url: t.url, token: TOKENS.a })
    const r = await vm.run(source)
    expect(r.error).toMatchObject({ code: 'AJS2015', line: 2, location: raw.json.error.location })
    expect(raw.status).toBe(422)
    expect(r.error!.column).toBe(raw.json.error.column)
    expect(r.error!.hint).toBe(raw.json.error.hint)
  })
  test('a rate limit: retryAfter from Retry-After', async () => {
    const vm = createRemoteVM({ url: t.url, token: TOKENS.rate })
    const ast = { ajs: 1, op: 'seq', steps: [] }
    let limited
    for (let i = 0; i < 4 && !limited; i++) {
      const r = await vm.run(ast)
      if (r.error?.code === 'RATE_LIMITED') limited = r.error
    }
    expect(limited).toBeDefined()
    expect(limited!.retryAfter).toBeGreaterThan(0)
  })
})
