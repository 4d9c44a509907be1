/**
 * Workflow schedules on PostgreSQL: two `ajsc serve` processes (in this test process, each with its own
 * connection pool, job runner and firing loop) on one database, on one fake clock. Both fire at every
 * nominal time, at once: each fire starts exactly one run (FOR UPDATE SKIP LOCKED on the due rows, and
 * the run's id derived from the fire), and a fire handled again after a process stopped between starting
 * its run and saving the schedule finds that run instead of starting another.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import pg from 'pg'
import { parseServeConfig, startServe, tokenSha256, type Served } from '../../src/server/index.ts'
import { startBody } from '../../src/server/schedules/firing.ts'
import { runIdOf } from '../../src/server/schedules/spec.ts'
import type { ScheduleRow } from '../../src/server/schedules/store.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { workflowClient } from './workflow-server.ts'

const available = postgresAvailable()
const clock = { t: Date.parse('2026-03-02T10:00:00.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
const MIN = 60_000
let db: TestPostgres
let servers: Served[] = []
let admin: pg.Pool

beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  const config = parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN } }] })
  // One after the other: the first runs the migrations.
  for (let i = 0; i < 2; i++) servers.push(await startServe({ config, database: db.url, pool: { size: 1 }, jobConcurrency: 1, schedules: { clock } }))
  admin = new pg.Pool({ connectionString: db.url, max: 2 })
})

afterAll(async () => {
  await admin?.end()
  for (const s of servers) await s.close()
  await db?.stop()
})

describe.skipIf(!available)('schedules on PostgreSQL (two servers)', () => {
  test('two servers firing at the same times start each fire once', async () => {
    const url = await servers[0]!.listen({ port: 0 })
    const { req, until } = workflowClient(url, { tries: 600, intervalMs: 25 })
    const ids = ['pg-a', 'pg-b', 'pg-c', 'pg-d']
    for (const id of ids) {
      const r = await req('POST', '/v1/schedules', { id, workflow: { source: 'export default args.n * 2' }, args: { n: 21 }, spec: { everyMs: MIN }, overlap: 'allowAll' })
      expect(r.status).toBe(201)
    }
    const first = Math.floor(clock.t / MIN) * MIN + MIN
    const rounds = 5
    for (let i = 0; i < rounds; i++) {
      clock.t = first + i * MIN
      const handled = await Promise.all(servers.map((s) => s.context.scheduleLoop!.pass()))
      expect(handled[0]! + handled[1]!).toBe(ids.length) // each due row by one server
    }
    const runs = await admin.query(`SELECT attributes->>'scheduleId' AS sid, attributes->>'scheduledAt' AS at, count(*) AS n FROM ajs.workflows GROUP BY 1, 2`)
    expect(runs.rows.length).toBe(ids.length * rounds)
    expect(runs.rows.every((r) => Number(r.n) === 1)).toBe(true)
    for (const id of ids) {
      const s = (await req('GET', `/v1/schedules/${id}`)).json
      expect(s.counts).toEqual({ started: rounds, skipped: {} })
      expect(s.actions.map((a: { nominalAt: string }) => Date.parse(a.nominalAt))).toEqual(Array.from({ length: rounds }, (_, i) => first + (rounds - 1 - i) * MIN))
    }
    // The runs run (as jobs of either server) and are found by the schedule's id.
    const a = (await req('GET', '/v1/schedules/pg-a')).json
    expect((await until(a.actions[0].runId, (w) => w.state === 'done')).result).toBe(42)
    const listed = (await req('GET', '/v1/workflows?attr.scheduleId=pg-a&limit=100')).json.items
    expect(listed.length).toBe(rounds)
  }, 60_000)

  test('a fire handled again (its process stopped before saving the schedule) finds its run', async () => {
    const url = await servers[1]!.listen({ port: 0 })
    const { req } = workflowClient(url, { tries: 600, intervalMs: 25 })
    expect((await req('POST', '/v1/schedules', { id: 'again', workflow: { source: 'export default 1' }, spec: { everyMs: MIN } })).status).toBe(201)
    const row = (await admin.query(`SELECT data FROM ajs.schedules WHERE tenant = 'ops' AND id = 'again'`)).rows[0].data as ScheduleRow
    const at = row.nextAt!
    // What the stopped process did before it stopped: the fire's run, started.
    await servers[0]!.context.workflows!.start('ops', startBody(row, at), { id: runIdOf('ops', row.uid, at) })
    clock.t = at
    await Promise.all(servers.map((s) => s.context.scheduleLoop!.pass()))
    const s = (await req('GET', '/v1/schedules/again')).json
    expect(s.actions[0]).toMatchObject({ outcome: 'started', runId: runIdOf('ops', row.uid, at), message: 'already started: this fire was handled before' })
    expect(s.counts.started).toBe(0)
    const n = await admin.query(`SELECT count(*) AS n FROM ajs.workflows WHERE attributes @> '{"scheduleId":"again"}'`)
    expect(Number(n.rows[0].n)).toBe(1)
  }, 60_000)
})
