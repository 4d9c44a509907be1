/**
 * Hardening round 3, class 3: every server store has a per-tenant count and
 * byte quota (limits.maxProcedures / maxProcedureBytes, maxAsyncRuns /
 * maxAsyncRunBytes, maxWorkflows / maxWorkflowBytes). Over it a tenant is
 * refused with STORE_QUOTA_EXCEEDED naming the key; nothing of another tenant
 * is ever evicted. Also: the default concurrentRuns leaves a worker free for
 * the others.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { MemoryProcedureRepo, MemoryRunRepo } from '../../src/server/stores/memory.ts'
import { startTestServer, type TestServer } from './helpers.ts'

const CONFIG = {
  tenants: [
    { id: 'hog', tokenSha256: tokenSha256('t-hog'), limits: { maxProcedures: 5, maxProcedureBytes: 4_000, maxAsyncRuns: 4, maxWorkflows: 3, maxWorkflowBytes: 2_000, concurrentRuns: 64 } },
    { id: 'victim', tokenSha256: tokenSha256('t-victim') },
  ],
}

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 2, queueSize: 64 }, CONFIG) })
afterAll(() => t.close())

const proc = (n: number) => ({ source: `function f() { return ${n} }` })

describe('procedures', () => {
  test('a tenant over maxProcedures is refused; the other tenant\'s procedures are untouched', async () => {
    const mine = await t.req('POST', '/v1/procedures', { token: 't-victim', body: proc(1) })
    expect(mine.status).toBe(201)
    const answers = []
    for (let i = 0; i < 12; i++) answers.push(await t.req('POST', '/v1/procedures', { token: 't-hog', body: proc(i) }))
    expect(answers.filter((a) => a.status === 201).length).toBe(5)
    const refused = answers.find((a) => a.status !== 201)!
    expect([refused.status, refused.json.error.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect(refused.json.error.message).toContain('limits.maxProcedures')
    expect(refused.json.error.hint).toContain('limits.maxProcedures')
    // The victim's token still runs.
    const run = await t.req('POST', '/v1/runs', { token: 't-victim', body: { token: mine.json.token } })
    expect(run.json.result).toBe(1)
    // Deleting frees a place.
    await t.req('DELETE', `/v1/procedures/${answers[0]!.json.token}`, { token: 't-hog' })
    expect((await t.req('POST', '/v1/procedures', { token: 't-hog', body: proc(99) })).status).toBe(201)
  })

  test('the guest\'s storeProcedure counts against the same quota', async () => {
    const r = await t.req('POST', '/v1/runs', { token: 't-hog', body: { source: 'function f() { return storeProcedure({ ast: { ajs: 1, op: "seq", steps: [{ op: "return", value: 1 }] } }) }' } })
    expect(r.json.error?.message ?? '').toMatch(/quota|STORE_QUOTA_EXCEEDED|maxProcedures/)
  })

  test('GET of a stored procedure answers the stored AST text', async () => {
    const p = await t.req('POST', '/v1/procedures', { token: 't-victim', body: proc(7) })
    const g = await t.req('GET', `/v1/procedures/${p.json.token}`, { token: 't-victim' })
    expect(g.status).toBe(200)
    expect(g.json.token).toBe(p.json.token)
    expect(g.json.ast.op).toBe('seq')
  })

  test('the memory repo: bytes quota, replacing a token, never evicting another tenant', () => {
    const repo = new MemoryProcedureRepo(3)
    const q = { maxCount: 10, maxBytes: 100, keys: ['limits.maxProcedures', 'limits.maxProcedureBytes'] as const }
    const p = (tenant: string, token: string, n: number) => ({ tenant, token, astText: 'x'.repeat(n), key: token, createdAt: 0, expiresAt: Date.now() + 60_000 })
    repo.put(p('a', '1', 60), q)
    expect(() => repo.put(p('a', '2', 60), q)).toThrow(/limits.maxProcedureBytes/)
    repo.put(p('a', '1', 90), q) // replacing counts the difference only
    expect(repo.usage('a')).toEqual({ count: 1, bytes: 90 })
    repo.put(p('b', '1', 1), q)
    repo.put(p('b', '2', 1), q)
    // The store is full (3): refused, never evicting a's procedure.
    expect(() => repo.put(p('b', '3', 1), q)).toThrow(/server holds 3/)
    expect(repo.get('a', '1')).toBeDefined()
  })
})

describe('async runs', () => {
  test('a tenant over maxAsyncRuns is refused; others still start async runs', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.req('POST', '/v1/runs?async=1', { token: 't-hog', body: { source: 'function f() { return 1 }' } })))
    expect(answers.filter((a) => a.status === 202).length).toBe(4)
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect(a.json.error.code).toBe('STORE_QUOTA_EXCEEDED')
      expect(a.json.error.message).toContain('limits.maxAsyncRuns')
    }
    expect((await t.req('POST', '/v1/runs?async=1', { token: 't-victim', body: { source: 'function f() { return 1 }' } })).status).toBe(202)
    // The refused ones gave their slot back.
    await Bun.sleep(100)
    expect(t.server.context.tenants.get('hog')!.inFlight).toBe(0)
  })

  test('the memory repo counts bytes of requests and results, and frees them on prune', () => {
    const repo = new MemoryRunRepo()
    const q = { maxCount: 10, maxBytes: 1_000, keys: ['limits.maxAsyncRuns', 'limits.maxAsyncRunBytes'] as const }
    repo.create({ id: 'r1', tenant: 'a', state: 'queued', createdAt: 0, request: { source: 'x'.repeat(900), args: {}, fuel: 1, timeoutMs: 1, trace: false } }, q)
    expect(() => repo.create({ id: 'r2', tenant: 'a', state: 'queued', createdAt: 0, request: { source: 'x'.repeat(200), args: {}, fuel: 1, timeoutMs: 1, trace: false } }, q)).toThrow(/limits.maxAsyncRunBytes/)
    repo.finish('r1', { result: 1, fuelUsed: 0 }, 10)
    expect(repo.usage('a').bytes).toBeLessThan(100)
    repo.prune(11)
    expect(repo.usage('a')).toEqual({ count: 0, bytes: 0 })
  })
})

describe('workflows', () => {
  test('maxWorkflows and maxWorkflowBytes refuse new workflows with the key named', async () => {
    const started = []
    for (let i = 0; i < 5; i++) started.push(await t.req('POST', '/v1/workflows', { token: 't-hog', body: { source: `const x = ${i}\n` } }))
    expect(started.filter((s) => s.status === 201).length).toBe(3)
    const refused = started.find((s) => s.status !== 201)!
    expect(refused.json.error.code).toBe('STORE_QUOTA_EXCEEDED')
    expect(refused.json.error.message).toContain('limits.maxWorkflows')
    expect((await t.req('POST', '/v1/workflows', { token: 't-victim', body: { source: 'const x = 1\n' } })).status).toBe(201)
  })
})

describe('default concurrentRuns', () => {
  test('several tenants: the pool size minus one, so one tenant never holds every worker', async () => {
    const s = await startTestServer({ size: 3 }, { tenants: [{ id: 'x', tokenSha256: tokenSha256('t-x') }, { id: 'y', tokenSha256: tokenSha256('t-y') }] })
    try {
      expect(s.server.context.tenants.get('x')!.slots).toBe(2)
    } finally {
      await s.close()
    }
  })
  test('one tenant: 32; an explicit value wins', () => {
    const c = parseServeConfig({ tenants: [{ id: 'x', tokenSha256: tokenSha256('t-x'), limits: { concurrentRuns: 7 } }] })
    expect(c.tenants[0]!.limits.concurrentRuns).toBe(7)
    expect(parseServeConfig({ tenants: [{ id: 'x', tokenSha256: tokenSha256('t-x') }] }).tenants[0]!.limits.concurrentRuns).toBeNull()
  })
})

describe('/metrics: tenant ids and usage are for the operator', () => {
  test('no token: totals only; a tenant: totals and its own series; the operator: everyone', async () => {
    const s = await startTestServer({ size: 1 }, { ...CONFIG, operatorTokenSha256: tokenSha256('t-op') })
    try {
      await s.req('POST', '/v1/runs', { token: 't-hog', body: { source: 'function f() { return 1 }' } })
      await s.req('POST', '/v1/runs', { token: 't-victim', body: { source: 'function f() { return 2 }' } })
      await s.req('POST', '/v1/runs', { token: 'nobody', body: {} })
      const anon = (await s.req('GET', '/metrics', { token: null })).text
      expect(anon).not.toContain('tenant="hog"')
      expect(anon).not.toContain('tenant="victim"')
      expect(anon).toContain('ajs_runs_total{tenant="*",outcome="ok"} 2')
      expect(anon).toMatch(/ajs_requests_refused_total\{tenant="\*",code="UNAUTHORIZED"\} 1/)
      const own = (await s.req('GET', '/metrics', { token: 't-hog' })).text
      expect(own).toContain('ajs_runs_total{tenant="hog",outcome="ok"} 1')
      expect(own).not.toContain('tenant="victim"')
      const op = (await s.req('GET', '/metrics', { token: 't-op' })).text
      expect(op).toContain('tenant="hog"')
      expect(op).toContain('tenant="victim"')
      expect(op).toContain('ajs_runs_in_progress{tenant="victim"} 0')
    } finally {
      await s.close()
    }
  })
})
