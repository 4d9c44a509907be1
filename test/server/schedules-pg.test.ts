/**
 * Workflow schedules on PostgreSQL: two `ajsc serve` processes (in this test process, each with its own
 * connection pool, job runner and firing loop) on one database, on one fake clock. Both fire at every
 * nominal time, at once: each fire starts exactly one run (FOR UPDATE SKIP LOCKED on the due rows, and
 * the run's id derived from the fire), and a fire handled again after a process stopped between starting
 * its run and saving the schedule finds that run instead of starting another. PATCH changes a row under the
 * same row lock: a PATCH racing both servers' passes loses neither, and a new spec's fires have run ids of their own.
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
/** Each server's URL, once it listens. */
const urls: string[] = []
const urlOf = async (i: number): Promise<string> => (urls[i] ??= await servers[i]!.listen({ port: 0 }))

beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  const config = parseServeConfig({ tenants: [
    { id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN, concurrentRuns: 32 } }, // what a lone tenant has by default
    { id: 'small', tokenSha256: tokenSha256('small-token'), limits: { minScheduleIntervalMs: MIN, maxScheduleBytes: 3000 } },
  ] })
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
    const url = await urlOf(0)
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
    const url = await urlOf(1)
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

  test('PATCH: under the row lock while both servers fire; a new spec saved with its due time, its runs apart; the byte quota', async () => {
    const { req, until } = workflowClient(await urlOf(1), { tries: 600, intervalMs: 25 })
    const saved = async () => (await admin.query(`SELECT data, due_at FROM ajs.schedules WHERE tenant = 'ops' AND id = 'patched'`)).rows[0] as { data: ScheduleRow; due_at: string }
    expect((await req('POST', '/v1/schedules', { id: 'patched', workflow: { source: 'export default args.n * 2' }, args: { n: 1 }, spec: { everyMs: MIN }, overlap: 'allowAll' })).status).toBe(201)
    const { uid, nextAt } = (await saved()).data
    const at = nextAt!
    clock.t = at
    // A PATCH of the args and both servers' passes at once: the fire at `at` happens once, and the PATCH lands.
    const [patched] = await Promise.all([req('PATCH', '/v1/schedules/patched', { args: { n: 5 } }), ...servers.map((s) => s.context.scheduleLoop!.pass())])
    expect([patched.status, patched.json.revision]).toEqual([200, 1])
    await Promise.all(servers.map((s) => s.context.scheduleLoop!.pass())) // a row the PATCH held is fired now
    let row = (await saved()).data
    expect(row).toMatchObject({ args: { n: 5 }, revision: 1, counts: { started: 1 } })
    expect(row.actions.map((a) => [a.outcome, a.nominalAt])).toEqual([['started', at]])
    const first = row.actions[0]!.runId!
    expect(first).toBe(runIdOf('ops', uid, at))
    expect([2, 10]).toContain((await until(first, (w) => w.state === 'done')).result)

    // A new spec: saved with its next fire and due time; its fire has a run id of the new spec and the new args.
    clock.t = at + 1000
    const s = (await req('PATCH', '/v1/schedules/patched', { spec: { everyMs: 2 * MIN } })).json
    const next = Math.floor((at + 1000) / (2 * MIN)) * 2 * MIN + 2 * MIN
    expect(s.nextFireTimes[0]).toBe(new Date(next).toISOString())
    const after = await saved()
    expect([after.data.revision, after.data.specRevision, after.data.nextAt, Number(after.due_at)]).toEqual([2, 2, next, next])
    clock.t = next
    await Promise.all(servers.map((sv) => sv.context.scheduleLoop!.pass()))
    row = (await saved()).data
    expect(row.actions.at(-1)).toMatchObject({ outcome: 'started', nominalAt: next, runId: runIdOf('ops', uid, next, 2) })
    expect((await until(runIdOf('ops', uid, next, 2), (w) => w.state === 'done')).result).toBe(10)

    // limits.maxScheduleBytes (3000 for "small"): a PATCH that would go over it is refused and changes nothing.
    const small = (method: string, path: string, body?: unknown) => req(method, path, body, 'small-token')
    expect((await small('POST', '/v1/schedules', { id: 'q', workflow: { source: 'export default 1' }, spec: { everyMs: MIN } })).status).toBe(201)
    const big = await small('PATCH', '/v1/schedules/q', { args: { pad: 'x'.repeat(3000) } })
    expect([big.status, big.json.error.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect(big.json.error.message).toContain('limits.maxScheduleBytes')
    expect((await small('GET', '/v1/schedules/q')).json).toMatchObject({ args: {}, revision: 0 })
    expect((await small('PATCH', '/v1/schedules/q', { args: { pad: 'x'.repeat(1000) } })).json.revision).toBe(1)
  }, 60_000)
})
