/**
 * Hardening round 3, classes 6 and 7 at the server's door: request data is
 * bounded in depth where it enters (400 REQUEST_TOO_DEEP, never a RangeError
 * or a 5xx), workflow sources obey the same AST limits as every program, and
 * guest-derived delays go through one timer that clamps and re-arms.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tokenSha256 } from '../../src/server/index.ts'
import { AgentVM } from '../../src/index.ts'
import { jsonDepthOver, maxRequestDepth } from '../../src/server/app.ts'
import { MAX_TIMER_MS, setLongTimeout, sleepLong } from '../../src/vm/long-timer.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 1 }, { tenants: [{ id: 'a', tokenSha256: tokenSha256('token-a') }], limits: { maxBodyBytes: 2_000_000 } }) })
afterAll(() => t.close())

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
const post = (path: string, raw: string) => t.req('POST', path, { raw, headers: { 'content-type': 'application/json' } })

describe('class 7: depth is bounded where request data enters', () => {
  test.each([
    ['sync run args', '/v1/runs', (d: string) => `{"source":"function f(x) { return 1 }","args":{"x":${d}}}`],
    ['async run args', '/v1/runs?async=1', (d: string) => `{"source":"function f(x) { return 1 }","args":{"x":${d}}}`],
    ['an AST', '/v1/runs', (d: string) => `{"ast":{"ajs":1,"op":"seq","steps":${d}}}`],
    ['workflow args', '/v1/workflows', (d: string) => `{"source":"const x = 1\\n","args":{"x":${d}}}`],
    ['an external answer', '/v1/workflows/wf_x/requests/r1', (d: string) => `{"value":${d}}`],
    ['a procedure AST', '/v1/procedures', (d: string) => `{"ast":${d}}`],
  ])('%s nested 900,000 deep: 400 REQUEST_TOO_DEEP', async (_name, path, body) => {
    const r = await post(path, body(deep(900_000)))
    expect([r.status, r.json?.error?.code, r.text.slice(0, 200)]).toEqual([400, 'REQUEST_TOO_DEEP', expect.any(String)])
    expect(r.json.error.hint).toContain('limits.maxAstDepth')
  })

  test('just under the limit is not refused for its depth', async () => {
    const r = await post('/v1/runs', `{"source":"function f(x) { return 1 }","args":{"x":${deep(maxRequestDepth(200) - 2)}}}`)
    expect(r.json.error?.code).not.toBe('REQUEST_TOO_DEEP')
    expect(r.status).toBeLessThan(500)
  })

  test.each([
    ['arrays', (n: number) => `const x = ${'['.repeat(n)}${']'.repeat(n)}\n`],
    ['objects', (n: number) => `const x = ${'{a:'.repeat(n)}1${'}'.repeat(n)}\n`],
    ['unary minus', (n: number) => `const x = ${'-'.repeat(n)}1\n`],
    ['calls', (n: number) => `const x = ${'f('.repeat(n)})${')'.repeat(n - 1)}\n`],
  ])('a workflow source of deeply nested %s is a 4xx, never a 5xx', async (_name, src) => {
    for (const n of [2_000, 200_000]) {
      const r = await t.req('POST', '/v1/workflows', { body: { source: src(n) } })
      expect([n, r.status >= 400 && r.status < 500]).toEqual([n, true])
    }
    expect((await t.req('GET', '/healthz', { token: null })).status).toBe(200)
  })

  test('jsonDepthOver walks without recursion', () => {
    let v: unknown = 1
    for (let i = 0; i < 1_000_000; i++) v = [v]
    expect(jsonDepthOver(v, 864)).toBe(true)
    expect(jsonDepthOver({ a: [{ b: 1 }] }, 3)).toBe(false)
    expect(jsonDepthOver({ a: [{ b: {} }] }, 3)).toBe(true)
  })
})

describe('class 6: one timer clamps and re-arms', () => {
  test('a delay above 2^31-1 ms does not fire at once', async () => {
    let fired = false
    const timer = setLongTimeout(() => { fired = true }, MAX_TIMER_MS * 4)
    await Bun.sleep(30)
    expect(fired).toBe(false)
    timer.clear()
  })

  test('Infinity never fires; NaN and negatives fire at once (asynchronously)', async () => {
    const seen: string[] = []
    const inf = setLongTimeout(() => seen.push('inf'), Infinity)
    setLongTimeout(() => seen.push('nan'), Number.NaN)
    setLongTimeout(() => seen.push('neg'), -5)
    expect(seen).toEqual([])
    await Bun.sleep(20)
    expect(seen.sort()).toEqual(['nan', 'neg'])
    inf.clear()
  })

  test('it re-arms in chunks until due (clock moved forward)', async () => {
    let now = 0
    let fired = false
    setLongTimeout(() => { fired = true }, MAX_TIMER_MS + 10, () => now)
    // The first chunk is MAX_TIMER_MS long; simulate the clock being past due when a chunk ends.
    now = MAX_TIMER_MS + 10
    await Bun.sleep(10)
    expect(fired).toBe(false) // still waiting on the first real chunk, not fired early
  })

  test('a run with a time limit above 2^31-1 ms is not stopped at once', async () => {
    const r = await new AgentVM().run('function f() { let i = 0; while (i < 20000) { i++ } return i }', {}, { timeoutMs: MAX_TIMER_MS * 3, fuel: 1e6 })
    expect([r.error?.code, r.result]).toEqual([undefined, 20000])
  })

  test('sleepLong rejects with the abort reason', async () => {
    const ac = new AbortController()
    const p = sleepLong(MAX_TIMER_MS * 2, ac.signal)
    ac.abort(new Error('stop'))
    await expect(p).rejects.toThrow('stop')
  })

  test('a workflow sleeping 30 days parks with its wake-up time (no spin, no early wake)', async () => {
    const started = await t.req('POST', '/v1/workflows', { body: { source: "import { sleep } from 'workflow:extra'\nsleep(30 * 24 * 3600 * 1000)\nconst done = 1\n" } })
    expect(started.status).toBe(201)
    let w: any
    for (let i = 0; i < 50; i++) {
      w = (await t.req('GET', `/v1/workflows/${started.json.id}`)).json
      if (w.state === 'waiting') break
      await Bun.sleep(20)
    }
    expect(w.state).toBe('waiting')
    expect(w.wakeAt - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000)
    await Bun.sleep(100)
    expect((await t.req('GET', `/v1/workflows/${started.json.id}`)).json.state).toBe('waiting')
  })
})
