/**
 * Workflow schedules on `ajsc serve`, in memory, on a fake clock (no test waits for cron time): a fire
 * starts the workflow through POST /v1/workflows' code path under an id derived from the fire, with the
 * schedule's id and nominal time in its search attributes; overlap skip / bufferOne / allowAll judged by
 * the last run's state; missed fires past catchupWindowMs skipped and counted; pause, unpause, trigger,
 * backfill, delete; the limits (maxSchedules, minScheduleIntervalMs, maxBackfillFires) and bad specs as
 * 400s with their codes; a fire the tenant's quotas refuse recorded as skipped with the code.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { runIdOf } from '../../src/server/schedules/spec.ts'
import { workflowClient } from './workflow-server.ts'

/** A clock tests move by hand; its timers never fire (the tests run the loop's passes themselves). */
const clock = { t: Date.parse('2026-01-05T00:00:00.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
const MIN = 60_000
const WAITS = `const ok = await agent('go?', { external: true })\nexport default { ok, n: args.n }`

let server: AjsServer
let url: string
let req: ReturnType<typeof workflowClient>['req']
let until: ReturnType<typeof workflowClient>['until']
const pass = () => server.context.scheduleLoop!.pass()

beforeAll(async () => {
  server = await createServer({
    config: parseServeConfig({
      tenants: [
        { id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN, maxSchedules: 8, maxBackfillFires: 5 } },
        { id: 'other', tokenSha256: tokenSha256('other-token') },
        { id: 'small', tokenSha256: tokenSha256('small-token'), limits: { maxWorkflows: 1, maxScheduleBytes: 4000 } },
      ],
    }),
    pool: { size: 1 },
    schedules: { clock },
  })
  url = await server.listen({ port: 0 })
  ;({ req, until } = workflowClient(url))
})
afterAll(async () => { await server?.close() })

const create = async (body: Record<string, unknown>, token?: string) => req('POST', '/v1/schedules', { workflow: { source: WAITS }, args: { n: 1 }, ...body }, token)
/** DELETE answers 204 without a body. */
async function del(id: string, token = 'ops-token'): Promise<number> {
  return (await fetch(`${url}/v1/schedules/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status
}
const get = async (id: string, token?: string) => (await req('GET', `/v1/schedules/${id}`, undefined, token)).json
/** Answer the run's open request, and wait for it to end. */
async function finish(runId: string, token?: string): Promise<void> {
  const wf = await until(runId, (w) => w.requests?.length === 1, token)
  expect((await req('POST', `/v1/workflows/${runId}/requests/${wf.requests[0].id}`, { value: true }, token)).status).toBe(200)
  await until(runId, (w) => w.state === 'done', token)
}

describe('schedules (in memory, fake clock)', () => {
  test('a fire starts the workflow under an id derived from it, found by its search attributes; skip overlaps', async () => {
    const r = await create({ id: 'every-min', spec: { everyMs: MIN }, workflow: { source: WAITS, name: 'report', attributes: { team: 'ops' } } })
    expect(r.status).toBe(201)
    const t0 = clock.t
    expect(r.json).toMatchObject({ id: 'every-min', overlap: 'skip', paused: false, counts: { started: 0, skipped: {} }, actions: [] })
    expect(r.json.nextFireTimes.slice(0, 2)).toEqual([new Date(t0 + MIN).toISOString(), new Date(t0 + 2 * MIN).toISOString()])

    expect(await pass()).toBe(0) // nothing due yet
    clock.t = t0 + MIN
    expect(await pass()).toBe(1)
    let s = await get('every-min')
    const first = s.actions[0]
    expect(first).toMatchObject({ outcome: 'started', via: 'schedule', nominalAt: new Date(t0 + MIN).toISOString() })
    expect(first.runId).toMatch(/^wf_[0-9a-f]{32}$/)
    expect(s.lastRunId).toBe(first.runId)
    const wf = await until(first.runId, (w) => w.state === 'waiting')
    expect(wf).toMatchObject({ name: 'report', attributes: { team: 'ops', scheduleId: 'every-min', scheduledAt: new Date(t0 + MIN).toISOString() } })
    const found = (await req('GET', '/v1/workflows?attr.scheduleId=every-min')).json.items.map((w: { id: string }) => w.id)
    expect(found).toEqual([first.runId])

    // The next fire finds the run waiting: skipped (overlap skip), counted.
    clock.t = t0 + 2 * MIN
    await pass()
    s = await get('every-min')
    expect(s.actions[0]).toMatchObject({ outcome: 'skipped', reason: 'overlap' })
    expect(s.counts).toEqual({ started: 1, skipped: { overlap: 1 } })

    // Once it ended, the next fire starts again.
    await finish(first.runId)
    clock.t = t0 + 3 * MIN
    await pass()
    s = await get('every-min')
    expect(s.actions[0]).toMatchObject({ outcome: 'started', nominalAt: new Date(t0 + 3 * MIN).toISOString() })
    expect(s.counts.started).toBe(2)
    await finish(s.actions[0].runId)
    expect(await del('every-min')).toBe(204)
    expect((await req('GET', '/v1/schedules/every-min')).status).toBe(404)
  }, 30_000)

  test('bufferOne keeps one fire for when the run ends; allowAll starts every fire', async () => {
    const t0 = clock.t
    expect((await create({ id: 'buf', spec: { everyMs: MIN }, overlap: 'bufferOne' })).status).toBe(201)
    expect((await create({ id: 'all', spec: { everyMs: MIN }, overlap: 'allowAll' })).status).toBe(201)
    const nextMinute = Math.floor(t0 / MIN) * MIN + MIN
    for (let i = 0; i < 3; i++) {
      clock.t = nextMinute + i * MIN
      await pass()
    }
    let buf = await get('buf')
    expect(buf.actions.map((a: { outcome: string }) => a.outcome)).toEqual(['skipped', 'buffered', 'started'])
    expect(buf.buffered).toEqual({ nominalAt: new Date(nextMinute + MIN).toISOString(), via: 'schedule' })
    const all = await get('all')
    expect(all.counts).toEqual({ started: 3, skipped: {} })
    expect(new Set(all.actions.map((a: { runId: string }) => a.runId)).size).toBe(3)

    // The run ends: the next pass starts the buffered fire, under its own nominal time.
    await finish(buf.lastRunId)
    clock.t += 1000
    await pass()
    buf = await get('buf')
    expect(buf.actions[0]).toMatchObject({ outcome: 'started', nominalAt: new Date(nextMinute + MIN).toISOString() })
    expect(buf.buffered).toBeUndefined()
    expect(buf.lastRunId).toBe(buf.actions[0].runId)
    await finish(buf.lastRunId)
    for (const a of all.actions) await finish(a.runId)
    await del('buf')
    await del('all')
  }, 30_000)

  test('after downtime: fires within catchupWindowMs fire (by overlap), older ones are skipped and counted', async () => {
    expect((await create({ id: 'catch', spec: { everyMs: MIN }, overlap: 'allowAll', catchupWindowMs: 150_000 })).status).toBe(201)
    const next = Date.parse((await get('catch')).nextFireTimes[0])
    clock.t = next + 9 * MIN // ten fires due; the last three (at +7, +8, +9 minutes) are within 2.5 minutes
    await pass()
    const s = await get('catch')
    expect(s.counts).toEqual({ started: 3, skipped: { catchupWindow: 7 } })
    expect(s.actions.map((a: { outcome: string; reason?: string }) => a.reason ?? a.outcome)).toEqual(['started', 'started', 'started', 'catchupWindow'])
    expect(s.actions[3].message).toContain('7 fires')
    expect(s.actions[2].nominalAt).toBe(new Date(next + 7 * MIN).toISOString())
    expect(s.nextFireTimes[0]).toBe(new Date(next + 10 * MIN).toISOString())
    for (const a of s.actions.slice(0, 3)) await finish(a.runId)
    await del('catch')
  }, 30_000)

  test('pause, unpause (missed fires not run), trigger by the overlap policy, backfill within maxBackfillFires', async () => {
    expect((await create({ id: 'ctl', spec: { cron: '*/5 * * * *' } })).status).toBe(201) // five fields, minute first: every 5 minutes
    let s = (await req('POST', '/v1/schedules/ctl/pause', { note: 'maintenance' })).json
    expect(s).toMatchObject({ paused: true, note: 'maintenance', nextFireTimes: [] })
    clock.t += 60 * MIN
    expect(await pass()).toBe(0)
    s = (await req('POST', '/v1/schedules/ctl/unpause', { note: 'back' })).json
    expect(s).toMatchObject({ paused: false, note: 'back', counts: { started: 0 } })
    expect(Date.parse(s.nextFireTimes[0])).toBeGreaterThan(clock.t)

    s = (await req('POST', '/v1/schedules/ctl/trigger')).json
    expect(s.actions[0]).toMatchObject({ via: 'trigger', outcome: 'started', nominalAt: new Date(clock.t).toISOString() })
    const triggered = s.actions[0].runId
    s = (await req('POST', '/v1/schedules/ctl/trigger')).json
    expect(s.actions[0]).toMatchObject({ via: 'trigger', outcome: 'skipped', reason: 'overlap' })
    await finish(triggered)

    // Backfill: every fire of the spec in [from, to], in order; with allowAll each starts.
    const to = Math.floor(clock.t / (5 * MIN)) * 5 * MIN - 60 * MIN
    const r = await req('POST', '/v1/schedules/ctl/backfill', { from: new Date(to - 20 * MIN).toISOString(), to, overlap: 'allowAll' })
    expect(r.status).toBe(200)
    const fills = r.json.actions.filter((a: { via: string }) => a.via === 'backfill').reverse()
    expect(fills.map((a: { nominalAt: string }) => Date.parse(a.nominalAt))).toEqual([0, 1, 2, 3, 4].map((i) => to - 20 * MIN + i * 5 * MIN))
    expect(fills.every((a: { outcome: string }) => a.outcome === 'started')).toBe(true)
    for (const a of fills) await finish(a.runId)
    const tooMany = await req('POST', '/v1/schedules/ctl/backfill', { from: to - 60 * MIN, to })
    expect([tooMany.status, tooMany.json.error.code]).toEqual([400, 'SCHEDULE_BACKFILL_LIMIT'])
    expect(tooMany.json.error.hint).toContain('limits.maxBackfillFires')
    const future = await req('POST', '/v1/schedules/ctl/backfill', { from: clock.t, to: clock.t + MIN })
    expect([future.status, future.json.error.code]).toEqual([400, 'SCHEDULE_INVALID'])
    await del('ctl')
  }, 30_000)

  test('refused: bad cron, unknown time zone, too frequent, too many, taken id, bad workflow; the tenant\'s own only', async () => {
    const code = async (body: Record<string, unknown>, token?: string) => {
      const r = await create(body, token)
      return [r.status, r.json.error?.code, r.json.error?.hint]
    }
    expect((await code({ spec: { cron: 'every day' } })).slice(0, 2)).toEqual([400, 'SCHEDULE_INVALID'])
    expect((await code({ spec: { cron: '0 61 * * *' } })).slice(0, 2)).toEqual([400, 'SCHEDULE_INVALID'])
    const tz = await code({ spec: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } })
    expect(tz.slice(0, 2)).toEqual([400, 'SCHEDULE_TIMEZONE'])
    expect(tz[2]).toContain('spec.timezone')
    const often = await code({ spec: { cron: '*/10 * * * * *' } })
    expect(often.slice(0, 2)).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    expect(often[2]).toContain('limits.minScheduleIntervalMs')
    expect((await code({ spec: { everyMs: 1000 } })).slice(0, 2)).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    // Irregular crons: the closest two fires count (00:00 and 00:00:30 here).
    expect((await code({ spec: { cron: '0,30 0 0 * * *' } })).slice(0, 2)).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    const acrossMidnight = await create({ spec: { cron: '30 59 23,0 * * *' } }) // 00:59:30 and 23:59:30: an hour apart across midnight
    expect(acrossMidnight.status).toBe(201)
    await del(acrossMidnight.json.id)
    // ... but 23:59:30 and 00:00:00 of the next day are 30 s apart.
    const wrap = await req('POST', '/v1/schedules', { workflow: { source: WAITS }, spec: { cron: '0,30 0,59 0,23 * * *' } })
    expect([wrap.status, wrap.json.error.code]).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    expect((await code({ spec: { everyMs: MIN }, overlap: 'sometimes' })).slice(0, 2)).toEqual([400, 'BAD_REQUEST'])
    expect((await code({ spec: { everyMs: MIN }, workflow: { source: 'export default (' } })).slice(0, 1)).toEqual([422])
    expect((await code({ spec: { everyMs: MIN }, workflow: { source: WAITS, tags: Array.from({ length: 17 }, (_, i) => `t${i}`) } })).slice(0, 2)).toEqual([400, 'SEARCH_ATTRIBUTES_LIMIT'])

    expect((await create({ id: 'mine', spec: { cron: '0 0 9 * * *', timezone: 'Europe/Oslo' } })).status).toBe(201)
    const mine = await get('mine')
    expect(mine.nextFireTimes.every((t: string) => t.endsWith('T08:00:00.000Z'))).toBe(true) // 09:00 in Oslo, winter
    expect((await code({ id: 'mine', spec: { everyMs: MIN } })).slice(0, 2)).toEqual([409, 'SCHEDULE_EXISTS'])
    expect((await req('GET', '/v1/schedules/mine', undefined, 'other-token')).status).toBe(404)
    expect((await req('POST', '/v1/schedules/mine/trigger', undefined, 'other-token')).status).toBe(404)
    expect((await req('GET', '/v1/schedules', undefined, 'other-token')).json).toEqual({ items: [] })
    expect((await create({ id: 'mine', spec: { everyMs: 3_600_000 } }, 'other-token')).status).toBe(201) // ids are per tenant

    // limits.maxSchedules (8 for ops): 429 with the key.
    const held = (await req('GET', '/v1/schedules?limit=100')).json.items.length
    for (let i = held; i < 8; i++) expect((await create({ id: `fill-${i}`, spec: { everyMs: 3_600_000 }, paused: true })).status).toBe(201)
    const over = await create({ spec: { everyMs: 3_600_000 } })
    expect([over.status, over.json.error.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect(over.json.error.message).toContain('limits.maxSchedules')
    const page = await req('GET', '/v1/schedules?limit=3')
    expect(page.json.items).toHaveLength(3)
    expect(page.json.items[0].workflow.source).toBeUndefined()
    const rest = await req('GET', `/v1/schedules?limit=100&cursor=${page.json.nextCursor}`)
    expect(rest.json.items).toHaveLength(5)
    expect(rest.json.nextCursor).toBeUndefined()
    for (const s of [...page.json.items, ...rest.json.items]) expect(await del(s.id)).toBe(204)
  }, 30_000)

  test('pause, unpause and trigger without a body (curl -X POST); a note still checked when one is sent', async () => {
    expect((await create({ id: 'bare', spec: { everyMs: 3_600_000 } })).status).toBe(201)
    const bare = async (verb: string) => {
      const res = await fetch(`${url}/v1/schedules/bare/${verb}`, { method: 'POST', headers: { authorization: 'Bearer ops-token' } })
      return { status: res.status, json: await res.json() as any }
    }
    let r = await bare('pause')
    expect([r.status, r.json.paused]).toEqual([200, true])
    expect(r.json.note).toBeUndefined()
    r = await bare('unpause')
    expect([r.status, r.json.paused]).toEqual([200, false])
    r = await bare('trigger')
    expect([r.status, r.json.actions[0]?.via]).toEqual([200, 'trigger'])
    // A note kept from before stays when a bodyless pause sends none.
    expect((await req('POST', '/v1/schedules/bare/pause', { note: 'kept' })).json.note).toBe('kept')
    r = await bare('unpause')
    expect([r.status, r.json.note]).toEqual([200, 'kept'])
    const bad = await req('POST', '/v1/schedules/bare/pause', { note: 7 })
    expect([bad.status, bad.json.error.code]).toEqual([400, 'BAD_REQUEST'])
    expect((await req('POST', '/v1/schedules/bare/pause', { reason: 'x' })).status).toBe(400)
    const doc = (await req('GET', '/openapi.json')).json.paths['/v1/schedules/{id}/pause'].post
    expect(doc.requestBody.required).toBe(false)
    await finish(r.json.lastRunId)
    expect(await del('bare')).toBe(204)
  }, 30_000)

  test('a fire the tenant\'s quotas refuse is skipped with the code; the next pass goes on', async () => {
    const token = 'small-token'
    expect((await create({ id: 'q', spec: { everyMs: MIN }, overlap: 'allowAll' }, token)).status).toBe(201)
    const next = Date.parse((await get('q', token)).nextFireTimes[0])
    clock.t = next + MIN // two fires due; limits.maxWorkflows is 1
    await pass()
    const s = await get('q', token)
    expect(s.counts).toEqual({ started: 1, skipped: { STORE_QUOTA_EXCEEDED: 1 } })
    expect(s.actions[0].message).toContain('limits.maxWorkflows')
    // The run id is the fire's: the same tenant, schedule and nominal time give the same id.
    expect(s.actions[1].runId).toBe(runIdOf('small', (server.context.schedules as any).store.rows.get('small\0q').uid, next))
    await finish(s.actions[1].runId, token)
    // limits.maxScheduleBytes (4000 here): a schedule whose workflow would go over it is refused when created.
    const big = await create({ spec: { everyMs: MIN }, workflow: { source: `${WAITS}\n// ${'x'.repeat(4000)}` } }, token)
    expect([big.status, big.json.error.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect(big.json.error.message).toContain('limits.maxScheduleBytes')
    await del('q', token)
  }, 30_000)

  test('/metrics counts the actions by tenant and outcome', async () => {
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer small-token' } })).text()
    expect(text).toContain('ajs_schedule_actions_total{tenant="small",outcome="skipped"} 1')
    expect(text).toContain('ajs_schedule_actions_total{tenant="small",outcome="started"} 1')
    expect(text).not.toContain('tenant="ops"')
    expect(text).toMatch(/ajs_schedule_actions_total\{tenant="\*",outcome="started"\} \d+/)
  })

  test('the routes are in /openapi.json', async () => {
    const paths = Object.keys((await req('GET', '/openapi.json')).json.paths)
    expect(paths.filter((p) => p.startsWith('/v1/schedules'))).toEqual(['/v1/schedules', '/v1/schedules/{id}', '/v1/schedules/{id}/pause', '/v1/schedules/{id}/unpause', '/v1/schedules/{id}/trigger', '/v1/schedules/{id}/backfill'])
  })
})
