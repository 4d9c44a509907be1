/**
 * limits.minScheduleIntervalMs raised after a schedule's spec was set: a server started with the raised
 * limit over the same schedules (a memory store both servers share, and PostgreSQL when initdb is
 * installed). A change that would leave the schedule active on its old spec — a PATCH of other fields,
 * PATCH paused: false, POST …/unpause — is refused (409 SCHEDULE_OUTSIDE_LIMITS, nothing changed); pausing,
 * a change while paused, a trigger and a new spec that passes are not. An active schedule nobody changes
 * fires only where its fires are as far apart as the limit (the others are skipped as minInterval). GET and the
 * list flag such an active schedule (outsideLimits: code, message, hint); a paused or mended one they do not.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, parseServeConfig, startServe, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { MemoryScheduleStore } from '../../src/server/schedules/store.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { workflowClient } from './workflow-server.ts'

const MIN = 60_000
const configOf = (minScheduleIntervalMs: number) => parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs, concurrentRuns: 8 } }] })

interface Pair { before: AjsServer; after: AjsServer; urls: [string, string]; clock: { t: number } }
const pairs: Record<string, Pair> = {}
let db: TestPostgres | undefined
const pgAvailable = postgresAvailable()

/** The same schedules under the limit they were made with (every minute), and under a raised one (every two minutes). */
async function pair(database?: string): Promise<Pair> {
  const clock = { t: Date.parse('2026-02-02T10:00:30.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
  let before: AjsServer
  let after: AjsServer
  if (database) {
    // One after the other: the first runs the migrations.
    before = await startServe({ config: configOf(MIN), database, pool: { size: 1 }, jobConcurrency: 1, schedules: { clock } })
    after = await startServe({ config: configOf(2 * MIN), database, pool: { size: 1 }, jobConcurrency: 1, schedules: { clock } })
  } else {
    const store = new MemoryScheduleStore()
    before = await createServer({ config: configOf(MIN), pool: { size: 1 }, schedules: { clock, store: () => store } })
    after = await createServer({ config: configOf(2 * MIN), pool: { size: 1 }, schedules: { clock, store: () => store } })
  }
  return { before, after, urls: [await before.listen({ port: 0 }), await after.listen({ port: 0 })], clock }
}

beforeAll(async () => {
  pairs.memory = await pair()
  if (pgAvailable) {
    db = await startPostgres()
    pairs.postgres = await pair(db.url)
  }
}, 60_000)
afterAll(async () => {
  for (const p of Object.values(pairs)) {
    await p.after.close()
    await p.before.close()
  }
  await db?.stop()
})

describe.each(['memory', 'postgres'])('a limit raised since the spec was set (%s)', (store) => {
  test.skipIf(store === 'postgres' && !pgAvailable)('a change that leaves it active on its old spec is refused; pause, changes while paused and a passing spec are not', async () => {
    const { urls, clock, after } = pairs[store]!
    const old = workflowClient(urls[0], { tries: 600, intervalMs: 20 }).req
    const { req, until } = workflowClient(urls[1], { tries: 600, intervalMs: 20 })
    const source = { source: 'export default 1' }
    for (const body of [{ id: 'm', spec: { everyMs: MIN } }, { id: 'c', spec: { cron: '* * * * *' } }, { id: 'k', spec: { everyMs: MIN }, overlap: 'allowAll' }]) {
      expect((await old('POST', '/v1/schedules', { workflow: source, ...body })).status).toBe(201)
    }
    const refusal = async (method: string, path: string, body?: unknown) => {
      const r = await req(method, path, body)
      return { status: r.status, code: r.json.error?.code, message: r.json.error?.message ?? '', hint: r.json.error?.hint ?? '' }
    }
    const m0 = (await req('GET', '/v1/schedules/m')).json

    // A PATCH of other fields would leave it active on a spec the raised limit refuses: nothing changes.
    const note = await refusal('PATCH', '/v1/schedules/m', { note: 'x' })
    expect(note).toEqual({
      status: 409, code: 'SCHEDULE_OUTSIDE_LIMITS',
      message: 'Schedule "m" would be left active on a spec this tenant\'s limits no longer allow (they changed since it was set): spec.everyMs is 60000 ms; this tenant\'s schedules fire at most every 120000 ms (limits.minScheduleIntervalMs)',
      hint: 'PATCH /v1/schedules/{id} with a `spec` that fires less often (with `paused: false` to unpause it), or with `paused: true`; or raise the tenant\'s `limits.minScheduleIntervalMs` in the serve config.',
    })
    expect((await refusal('PATCH', '/v1/schedules/m', { overlap: 'allowAll', jitterMs: 1000 })).code).toBe('SCHEDULE_OUTSIDE_LIMITS')
    expect((await req('GET', '/v1/schedules/m')).json).toEqual(m0)
    // A new spec is checked as POST checks it (400); one that passes is taken.
    expect((await refusal('PATCH', '/v1/schedules/m', { spec: { everyMs: MIN }, note: 'x' })).code).toBe('SCHEDULE_TOO_FREQUENT')

    // Paused: allowed, and changes while it stays paused are too; unpausing it on the old spec is not, either way.
    expect((await req('PATCH', '/v1/schedules/m', { paused: true, note: 'too often now' })).json).toMatchObject({ paused: true, revision: 1 })
    expect((await req('PATCH', '/v1/schedules/m', { jitterMs: 1000 })).json).toMatchObject({ paused: true, revision: 2, jitterMs: 1000 })
    expect((await refusal('POST', '/v1/schedules/m/unpause', { note: 'back' })).code).toBe('SCHEDULE_OUTSIDE_LIMITS')
    expect((await refusal('PATCH', '/v1/schedules/m', { paused: false })).code).toBe('SCHEDULE_OUTSIDE_LIMITS')
    // A trigger is one fire, not the spec: allowed while paused.
    expect((await req('POST', '/v1/schedules/m/trigger')).json.actions[0]).toMatchObject({ via: 'trigger', outcome: 'started' })
    const m = (await req('GET', '/v1/schedules/m')).json
    expect(m).toMatchObject({ paused: true, note: 'too often now', revision: 2, nextFireTimes: [] })
    await until(m.lastRunId, (w) => w.state === 'done')
    // Unpaused with a spec the raised limit allows: fires every two minutes.
    const fixed = (await req('PATCH', '/v1/schedules/m', { spec: { everyMs: 2 * MIN }, paused: false })).json
    expect(fixed).toMatchObject({ paused: false, revision: 3, spec: { everyMs: 2 * MIN } })
    expect(Date.parse(fixed.nextFireTimes[1]) - Date.parse(fixed.nextFireTimes[0])).toBe(2 * MIN)

    // A cron whose fires are a minute apart: pausing is allowed, unpausing is refused with the cron's closest fires.
    expect((await req('POST', '/v1/schedules/c/pause', {})).json.paused).toBe(true)
    const cron = await refusal('POST', '/v1/schedules/c/unpause', {})
    expect([cron.status, cron.code]).toEqual([409, 'SCHEDULE_OUTSIDE_LIMITS'])
    expect(cron.message).toContain('spec.cron "* * * * *" fires 60000 ms apart (at 00:00:00 and 00:01:00)')
    // The server with the old limit decides by its own config: there it may be unpaused.
    expect((await old('POST', '/v1/schedules/c/unpause', {})).json.paused).toBe(false)

    // Active and left alone: under the raised limit it fires every other minute, the fires between skipped (minInterval).
    const first = Date.parse((await req('GET', '/v1/schedules/k')).json.nextFireTimes[0])
    for (let i = 0; i < 3; i++) {
      clock.t = first + i * MIN
      await after.context.scheduleLoop!.pass()
    }
    const k = (await req('GET', '/v1/schedules/k')).json
    expect(k.actions.map((a: { outcome: string; reason?: string }) => a.reason ?? a.outcome)).toEqual(['started', 'minInterval', 'started'])
    for (const a of k.actions) if (a.runId) await until(a.runId, (w) => w.state === 'done')
    for (const id of ['m', 'c', 'k']) expect((await fetch(`${urls[1]}/v1/schedules/${id}`, { method: 'DELETE', headers: { authorization: 'Bearer ops-token' } })).status).toBe(204)
  }, 60_000)

  test.skipIf(store === 'postgres' && !pgAvailable)('GET and the list flag an active schedule its spec no longer passes; paused, mended, or under the old limit: not', async () => {
    const { urls } = pairs[store]!
    const old = workflowClient(urls[0]).req
    const { req } = workflowClient(urls[1])
    const source = { source: 'export default 1' }
    for (const body of [{ id: 'fa', spec: { everyMs: MIN } }, { id: 'fc', spec: { cron: '* * * * *' } }, { id: 'fp', spec: { everyMs: MIN }, paused: true }, { id: 'fok', spec: { everyMs: 2 * MIN } }]) {
      expect((await old('POST', '/v1/schedules', { workflow: source, ...body })).status).toBe(201)
    }
    const limit = 'this tenant\'s schedules fire at most every 120000 ms (limits.minScheduleIntervalMs)'
    const fa = (await req('GET', '/v1/schedules/fa')).json
    expect(fa.outsideLimits).toEqual({
      code: 'SCHEDULE_OUTSIDE_LIMITS',
      message: `Its spec no longer passes this tenant's limits (they changed since it was set): spec.everyMs is 60000 ms; ${limit}. It fires only where its fires are that far apart (the others are skipped as minInterval), and a change that leaves it active on this spec is refused`,
      hint: 'PATCH /v1/schedules/{id} with a `spec` that fires less often (with `paused: false` to unpause it), or with `paused: true`; or raise the tenant\'s `limits.minScheduleIntervalMs` in the serve config.',
    })
    // The list says the same of each (one read of the store), the cron's with its closest fires.
    const items = (await req('GET', '/v1/schedules?limit=100')).json.items as Array<{ id: string; outsideLimits?: { message: string } }>
    const flagged = Object.fromEntries(items.filter((s) => s.id.startsWith('f')).map((s) => [s.id, s.outsideLimits?.message ?? null]))
    expect(flagged).toEqual({ fa: fa.outsideLimits.message, fc: expect.stringContaining(`spec.cron "* * * * *" fires 60000 ms apart (at 00:00:00 and 00:01:00); ${limit}`), fp: null, fok: null })
    // The server with the old limit decides by its own config: nothing to flag there.
    expect((await old('GET', '/v1/schedules/fa')).json.outsideLimits).toBeUndefined()
    // Paused: not flagged (it does not fire); mended with a spec that passes and unpaused: not flagged.
    expect((await req('POST', '/v1/schedules/fc/pause')).json.outsideLimits).toBeUndefined()
    const mended = (await req('PATCH', '/v1/schedules/fa', { spec: { everyMs: 2 * MIN } })).json
    expect([mended.paused, mended.outsideLimits]).toEqual([false, undefined])
    for (const id of ['fa', 'fc', 'fp', 'fok']) expect((await fetch(`${urls[1]}/v1/schedules/${id}`, { method: 'DELETE', headers: { authorization: 'Bearer ops-token' } })).status).toBe(204)
  }, 60_000)

  test.skipIf(store === 'postgres' && !pgAvailable)('an unpause with a stale If-Match is the conflict (409 SCHEDULE_CONFLICT), before the limits', async () => {
    const { urls } = pairs[store]!
    const old = workflowClient(urls[0]).req
    const made = (await old('POST', '/v1/schedules', { id: 'im', workflow: { source: 'export default 1' }, spec: { everyMs: MIN }, paused: true })).json
    const unpause = async (tag: string) => (await (await fetch(`${urls[1]}/v1/schedules/im/unpause`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'if-match': `"${tag}"` } })).json() as { error: { code: string } }).error.code
    const current = (await old('PATCH', '/v1/schedules/im', { note: 'since' })).json.conflictToken as string
    // Both wrong: it was changed since, and its spec no longer passes. The conflict says to read it again first.
    expect(await unpause(made.conflictToken)).toBe('SCHEDULE_CONFLICT')
    expect(await unpause(current)).toBe('SCHEDULE_OUTSIDE_LIMITS')
    expect((await old('GET', '/v1/schedules/im')).json).toMatchObject({ paused: true, conflictToken: current })
    expect((await fetch(`${urls[0]}/v1/schedules/im`, { method: 'DELETE', headers: { authorization: 'Bearer ops-token' } })).status).toBe(204)
  }, 60_000)
})
