/**
 * Guest runs are isolated in worker threads: a CPU-bound loop of one tenant
 * neither blocks the server nor other tenants' runs; a client that goes away
 * stops its run; a full queue is a 503 with Retry-After.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { TOKENS, ast, startTestServer, type TestServer } from './helpers.ts'

const spin = { source: 'function spin() { let i = 0; while (true) { i++ } }' }
const double = ast('function double({ n }) { return { doubled: n * 2 } }')
let t: TestServer | undefined
afterEach(async () => { await t?.close(); t = undefined })

const gauge = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await t!.req('GET', '/metrics', { token: 'token-operator' })).text)?.[1])

describe('worker-thread isolation', () => {
  test('another tenant\'s runs complete while a tenant\'s CPU-bound loop runs', async () => {
    t = await startTestServer({ size: 2 })
    let loopDone = false
    const loop = t.req('POST', '/v1/runs', { token: TOKENS.cpu, body: { ...spin, options: { timeoutMs: 1500 } } }).then((r) => { loopDone = true; return r })
    await Bun.sleep(30)
    for (let n = 0; n < 20; n++) {
      const r = await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { ast: double, args: { n } } })
      expect(r.json.result).toEqual({ doubled: n * 2 })
    }
    // Health is answered by the event loop, which never runs guest code.
    expect((await t.req('GET', '/healthz', { token: null })).status).toBe(200)
    expect(loopDone).toBe(false)
    expect((await loop).json.error.code).toBe('TIMEOUT')
    if (process.platform === 'linux') expect(await gauge('ajs_pool_long_runs_deprioritized')).toBeGreaterThanOrEqual(1)
  })

  test('a client that disconnects stops its run: the only thread is free again long before the run\'s timeout', async () => {
    t = await startTestServer({ size: 1, graceMs: 300 })
    const gone = new AbortController()
    const loop = t.req('POST', '/v1/runs', { token: TOKENS.cpu, body: { ...spin, options: { timeoutMs: 8000 } }, signal: gone.signal }).catch((e) => e)
    await Bun.sleep(100)
    expect(await gauge('ajs_runs_in_progress\\{tenant="cpu"\\}')).toBe(1)
    const started = Date.now()
    gone.abort()
    expect(await loop).toBeInstanceOf(Error)
    const next = await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { ast: double, args: { n: 2 } } })
    expect(next.json.result).toEqual({ doubled: 4 })
    expect(Date.now() - started).toBeLessThan(4000)
    expect(await gauge('ajs_runs_in_progress\\{tenant="cpu"\\}')).toBe(0)
  })

  test('a full queue answers 503 QUEUE_FULL with Retry-After, and runs again once drained', async () => {
    t = await startTestServer({ size: 1, queueSize: 1 })
    const first = t.req('POST', '/v1/runs', { token: TOKENS.busy, body: { ...spin, options: { timeoutMs: 300 } } })
    await Bun.sleep(50)
    const queued = t.req('POST', '/v1/runs', { token: TOKENS.cpu, body: { ...spin, options: { timeoutMs: 600 } } })
    await Bun.sleep(50)
    const refused = await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { ast: double, args: { n: 1 } } })
    expect([refused.status, refused.json.error.code]).toEqual([503, 'QUEUE_FULL'])
    expect(refused.headers.get('retry-after')).toBe('1')
    expect((await first).json.error.code).toBe('TIMEOUT')
    expect((await queued).json.error.code).toBe('TIMEOUT')
    expect((await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { ast: double, args: { n: 1 } } })).status).toBe(200)
  })
})
