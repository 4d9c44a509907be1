/**
 * Hardening round 3, class 1: budgets are reserved at admission, not checked.
 * Concurrent requests of every kind (runs, async runs, procedures and
 * workflows from source, workflow steps) against one tenant's fuelPerDay and
 * concurrentRuns can never spend more than the limit together; refusals are
 * 429 with a code and a hint naming the config key.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tokenSha256 } from '../../src/server/index.ts'
import { MemoryUsageLedger, utcDay } from '../../src/server/tenants.ts'
import { runFinished, startTestServer, type TestServer } from './helpers.ts'

const FUEL_PER_DAY = 3_000
const LOOP = 'function f() { let i = 0; while (true) { i++ } }'

const CONFIG = {
  tenants: [
    { id: 'day', tokenSha256: tokenSha256('t-day'), limits: { fuelPerDay: FUEL_PER_DAY, fuelPerRun: 700, concurrentRuns: 64, timeoutMs: 5_000 } },
    { id: 'async', tokenSha256: tokenSha256('t-async'), limits: { fuelPerDay: FUEL_PER_DAY, fuelPerRun: 700, concurrentRuns: 64, timeoutMs: 5_000 } },
    { id: 'slots', tokenSha256: tokenSha256('t-slots'), limits: { concurrentRuns: 2, fuelPerRun: 1e9, timeoutMs: 2_000 } },
    { id: 'compile', tokenSha256: tokenSha256('t-compile'), limits: { fuelPerDay: 1, concurrentRuns: 64 } },
    { id: 'wf', tokenSha256: tokenSha256('t-wf'), limits: { fuelPerDay: 1_200, fuelPerRun: 500, concurrentRuns: 64, timeoutMs: 5_000 } },
    { id: 'other', tokenSha256: tokenSha256('t-other') },
  ],
}

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 2, queueSize: 256 }, CONFIG) })
afterAll(() => t.close())

const used = (tenant: string) => t.server.context.tenants.usedToday(t.server.context.tenants.get(tenant)!)

describe('fuelPerDay is reserved before work starts', () => {
  test('24 concurrent runs never spend more than fuelPerDay together', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, () => t.req('POST', '/v1/runs', { token: 't-day', body: { source: LOOP } })))
    let spent = 0
    for (const a of answers) {
      if (a.status === 200) spent += a.json.fuelUsed
      else {
        expect([a.status, a.json.error.code]).toEqual([429, 'FUEL_QUOTA_EXCEEDED'])
        expect(a.json.error.hint).toContain('limits.fuelPerDay')
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0)
      }
    }
    expect(spent).toBeLessThanOrEqual(FUEL_PER_DAY)
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0)
    expect(await used('day')).toBeLessThanOrEqual(FUEL_PER_DAY)
    // The slots were all given back.
    expect(t.server.context.tenants.get('day')!.inFlight).toBe(0)
  })

  test('async runs: the reservation is held until the result, then settled', async () => {
    const started = await Promise.all(Array.from({ length: 16 }, () => t.req('POST', '/v1/runs?async=1', { token: 't-async', body: { source: LOOP } })))
    const ids = started.filter((a) => a.status === 202).map((a) => a.json.id as string)
    for (const a of started) if (a.status !== 202) expect(a.json.error.code).toBe('FUEL_QUOTA_EXCEEDED')
    let spent = 0
    for (const id of ids) {
      const rec = await runFinished(t, id, 't-async')
      expect(rec.state).toBe('done')
      spent += rec.result.fuelUsed
    }
    expect(spent).toBeLessThanOrEqual(FUEL_PER_DAY)
    expect(await used('async')).toBeLessThanOrEqual(FUEL_PER_DAY)
  })

  test('a cheap run is refunded what it did not use', async () => {
    const before = await used('other')
    const r = await t.req('POST', '/v1/runs', { token: 't-other', body: { source: 'function f() { return 1 }' } })
    expect(r.status).toBe(200)
    expect((await used('other')) - before).toBeCloseTo(r.json.fuelUsed, 6)
  })
})

describe('slots (concurrentRuns) are taken before any await', () => {
  test('8 concurrent long runs: at most 2 admitted, the rest 429 TENANT_BUSY naming limits.concurrentRuns', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.req('POST', '/v1/runs', { token: 't-slots', body: { source: LOOP, options: { timeoutMs: 300 } } })))
    const admitted = answers.filter((a) => a.status === 200)
    expect(admitted.length).toBeLessThanOrEqual(2)
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([a.status, a.json.error.code]).toEqual([429, 'TENANT_BUSY'])
      expect(a.json.error.hint).toContain('limits.concurrentRuns')
    }
  })
})

describe('compiling a tenant\'s source is admitted and charged', () => {
  test('procedures from source pay the compile fuel; when the day is spent they are refused', async () => {
    const big = `function f() {\n${'let x = 1\n'.repeat(2_000)}return x }`
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.req('POST', '/v1/procedures', { token: 't-compile', body: { source: big } })))
    const stored = answers.filter((a) => a.status === 201).length
    expect(stored).toBeLessThanOrEqual(Math.floor(1 / (big.length * 0.0001)))
    for (const a of answers.filter((x) => x.status !== 201)) expect(a.json.error.code).toBe('FUEL_QUOTA_EXCEEDED')
    expect(await used('compile')).toBeLessThanOrEqual(1)
  })

  test('workflows from source too', async () => {
    const big = `const x = 1\n${'log("a")\n'.repeat(2_000)}`
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.req('POST', '/v1/workflows', { token: 't-compile', body: { source: big } })))
    for (const a of answers) expect(a.json.error?.code).toBe('FUEL_QUOTA_EXCEEDED')
  })
})

describe('workflow steps pass the same admission', () => {
  test('looping workflows: together they never spend more than fuelPerDay', async () => {
    const src = 'let i = 0\nwhile (true) { i++ }\n'
    const started = await Promise.all(Array.from({ length: 5 }, () => t.req('POST', '/v1/workflows', { token: 't-wf', body: { source: src } })))
    for (const s of started) expect(s.status).toBe(201)
    await Bun.sleep(600)
    expect(await used('wf')).toBeLessThanOrEqual(1_200)
    const states = await Promise.all(started.map((s) => t.req('GET', `/v1/workflows/${s.json.id}`, { token: 't-wf' })))
    // At most 1,200 / 500 -> 3 steps got fuel; the others wait for tomorrow's (still running, nothing lost).
    expect(states.filter((s) => s.json.state === 'failed').length).toBeLessThanOrEqual(3)
    expect(states.filter((s) => s.json.state === 'running').length).toBeGreaterThanOrEqual(2)
  })
})

describe('the memory ledger', () => {
  test('reserve grants at most what is left, atomically', () => {
    const l = new MemoryUsageLedger()
    const day = utcDay(Date.now())
    expect(l.reserve('x', day, 600, 1000)).toBe(600)
    expect(l.reserve('x', day, 600, 1000)).toBe(400)
    expect(l.reserve('x', day, 600, 1000)).toBe(0)
    l.add('x', day, -300)
    expect(l.used('x', day)).toBe(700)
  })
})
