/**
 * GET /v1/schedules on both stores (in memory, and PostgreSQL when initdb is installed): each item has
 * its `lastAction` (the newest of GET's `actions`: a started run's id, a skip's code, null before the
 * first fire) and `nextFireAt` (the first next fire time plus its jitter; null while paused), and leaves
 * out the actions, the workflow's source and its modules, page by page. On PostgreSQL a page is one
 * query that leaves those in the database, however many schedules it lists.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type pg from 'pg'
import { parseServeConfig, startServe, tokenSha256, type Served } from '../../src/server/index.ts'
import { PgScheduleStore } from '../../src/server/schedules/pg-store.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { workflowClient } from './workflow-server.ts'

const MIN = 60_000
const HOUR = 3_600_000
const WAITS = `const ok = await agent('go?', { external: true })\nexport default { ok }`
const config = parseServeConfig({ tenants: [
  { id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN, concurrentRuns: 32 } },
  { id: 'small', tokenSha256: tokenSha256('small-token'), limits: { maxWorkflows: 1, concurrentRuns: 4 } },
] })

interface Setup { server: Served; url: string; clock: { t: number }; db?: TestPostgres }
const setups: Record<string, Setup> = {}

async function setup(database?: TestPostgres): Promise<Setup> {
  const clock = { t: Date.parse('2026-03-02T10:00:30.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
  const server = await startServe({ config, pool: { size: 1 }, ...(database ? { database: database.url, jobConcurrency: 1 } : {}), schedules: { clock } })
  return { server, url: await server.listen({ port: 0 }), clock, ...(database ? { db: database } : {}) }
}

const pgAvailable = postgresAvailable()
beforeAll(async () => {
  setups.memory = await setup()
  if (pgAvailable) setups.postgres = await setup(await startPostgres())
}, 60_000)
afterAll(async () => {
  for (const s of Object.values(setups)) {
    await s.server.close()
    await s.db?.stop()
  }
})

describe.each(['memory', 'postgres'])('GET /v1/schedules: the last action and the next fire (%s)', (store) => {
  test.skipIf(store === 'postgres' && !pgAvailable)('each item as GET shows its newest action, paged', async () => {
    const { url, clock, server } = setups[store]!
    const { req, until } = workflowClient(url, { tries: 600, intervalMs: 20 })
    const create = async (body: Record<string, unknown>, token?: string) => expect((await req('POST', '/v1/schedules', body, token)).status).toBe(201)
    const trigger = async (id: string, token?: string) => {
      clock.t += 1000 // each action at its own time
      expect((await req('POST', `/v1/schedules/${id}/trigger`, undefined, token)).status).toBe(200)
    }
    // a: fires on its spec and starts a run. b: its run waits, so 24 more triggers are skipped (overlap), more than
    // the 20 actions a row keeps. c: paused, never fired. d: a day's cron, an hour's jitter. e: a module and a long source.
    await create({ id: 'a', workflow: { source: 'export default 1', name: 'one' }, spec: { everyMs: MIN } })
    await create({ id: 'b', workflow: { source: WAITS }, spec: { cron: '0 0 1 1 *' } })
    await create({ id: 'c', workflow: { source: 'export default 1' }, spec: { everyMs: HOUR }, paused: true })
    await create({ id: 'd', workflow: { source: 'export default 1' }, spec: { cron: '0 3 * * *', timezone: 'Europe/Oslo' }, jitterMs: HOUR })
    await create({ id: 'e', workflow: { source: `export default 1 // ${'x'.repeat(5000)}`, workflows: { child: 'export default 2' } }, spec: { cron: '0 0 1 1 *' } })
    const aNext = Date.parse((await req('GET', '/v1/schedules/a')).json.nextFireTimes[0])
    clock.t = aNext
    await server.context.scheduleLoop!.pass()
    for (let i = 0; i < 25; i++) await trigger('b')
    // small: limits.maxWorkflows 1, overlap allowAll: the second trigger is refused, skipped with the refusal's code.
    await create({ id: 's', workflow: { source: WAITS }, spec: { cron: '0 0 1 1 *' }, overlap: 'allowAll' }, 'small-token')
    await trigger('s', 'small-token')
    await trigger('s', 'small-token')

    const items: any[] = []
    let cursor: string | undefined
    for (let pages = 0; pages < 10; pages++) {
      const page = (await req('GET', `/v1/schedules?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json
      expect(page.items.length).toBeLessThanOrEqual(2)
      items.push(...page.items)
      cursor = page.nextCursor
      if (!cursor) break
    }
    expect(items.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd', 'e'])
    const byId = Object.fromEntries(items.map((s) => [s.id, s]))
    for (const s of items) {
      expect(s.actions).toBeUndefined()
      expect(Object.keys(s.workflow)).not.toContain('source')
      expect(Object.keys(s.workflow)).not.toContain('workflows')
      // The same as GET's newest action, and GET's next fire.
      const one = (await req('GET', `/v1/schedules/${s.id}`)).json
      expect(s.lastAction).toEqual(one.actions[0] ?? null)
      expect(one.lastAction).toEqual(s.lastAction)
      expect([s.nextFireAt, s.nextFireTimes]).toEqual([one.nextFireAt, one.nextFireTimes])
    }
    expect(byId.a.workflow).toEqual({ name: 'one' })
    expect(byId.a.lastAction).toMatchObject({ at: new Date(aNext).toISOString(), nominalAt: new Date(aNext).toISOString(), via: 'schedule', outcome: 'started' })
    expect(byId.a.lastAction.runId).toBe(byId.a.lastRunId)
    expect(byId.a.nextFireAt).toBe(new Date(aNext + MIN).toISOString()) // no jitter: the nominal time
    expect(byId.b.lastAction).toMatchObject({ at: new Date(clock.t - 2000).toISOString(), via: 'trigger', outcome: 'skipped', reason: 'overlap' })
    expect(byId.b.lastAction.runId).toBeUndefined()
    expect(byId.b.counts).toEqual({ started: 1, skipped: { overlap: 24 } })
    expect(byId.c).toMatchObject({ lastAction: null, nextFireAt: null, nextFireTimes: [] })
    const dNominal = Date.parse(byId.d.nextFireTimes[0])
    expect(byId.d.nextFireTimes[0]).toBe('2026-03-03T02:00:00.000Z') // 03:00 in Oslo, winter time
    expect(Date.parse(byId.d.nextFireAt) - dNominal).toBeGreaterThanOrEqual(0)
    expect(Date.parse(byId.d.nextFireAt) - dNominal).toBeLessThan(HOUR)
    expect(byId.e.workflow).toEqual({})

    const small = (await req('GET', '/v1/schedules', undefined, 'small-token')).json.items
    expect(small.map((s: { id: string }) => s.id)).toEqual(['s'])
    expect(small[0].lastAction).toMatchObject({ via: 'trigger', outcome: 'skipped', reason: 'STORE_QUOTA_EXCEEDED' })
    expect(small[0].lastAction.message).toContain('limits.maxWorkflows')

    // Answer the waiting runs, so closing the server does not wait on them.
    for (const [id, token] of [['b', 'ops-token'], ['s', 'small-token']] as const) {
      const runId = (await req('GET', `/v1/schedules/${id}`, undefined, token)).json.lastRunId
      const wf = await until(runId, (w) => w.requests?.length === 1, token)
      expect((await req('POST', `/v1/workflows/${runId}/requests/${wf.requests[0].id}`, { value: true }, token)).status).toBe(200)
      await until(runId, (w) => w.state === 'done', token)
    }
  }, 60_000)
})

describe.skipIf(!pgAvailable)('PgScheduleStore.list', () => {
  test('a page is one query, whatever it holds; actions, sources and modules stay in the database', async () => {
    const { Pool } = (await import('pg')).default
    const pool = new Pool({ connectionString: setups.postgres!.db!.url, max: 1 })
    const queries: string[] = []
    const counted = { query: (text: string, values: unknown[]) => { queries.push(text); return pool.query(text, values) } } as unknown as pg.Pool
    try {
      const rows = await new PgScheduleStore(counted).list('ops', 100)
      expect(rows.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e'])
      expect(queries).toHaveLength(1)
      for (const r of rows) {
        expect('actions' in r).toBe(false)
        expect('source' in r.workflow || 'workflows' in r.workflow).toBe(false)
      }
      // The row keeps 20 actions; the list has the newest.
      const full = (await pool.query(`SELECT data FROM ajs.schedules WHERE tenant = 'ops' AND id = 'b'`)).rows[0].data
      expect(full.actions).toHaveLength(20)
      expect(rows[1]!.lastAction).toEqual(full.actions[19])
      expect(rows[2]!.lastAction).toBeUndefined()
    } finally {
      await pool.end()
    }
  }, 30_000)
})
