/**
 * PATCH /v1/schedules/{id} in memory, on a fake clock: refused as POST refuses (the same codes and hints, the
 * byte quota) and then unchanged; a new spec fires next at its first time after now (the past does not fire
 * again, no time fires twice) under run ids apart from the old spec's; paused toggled; new args used by the
 * next fire; a PATCH and a fire at once both land (the row's lock), in either order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { runIdOf } from '../../src/server/schedules/spec.ts'
import { workflowClient } from './workflow-server.ts'

const clock = { t: Date.parse('2026-02-02T10:00:30.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
const MIN = 60_000
const HOUR = 60 * MIN
const ECHO = 'export default { n: args.n }'

let server: AjsServer
let url: string
let req: ReturnType<typeof workflowClient>['req']
let until: ReturnType<typeof workflowClient>['until']
const pass = () => server.context.scheduleLoop!.pass()
const uidOf = (tenant: string, id: string): string => (server.context.schedules as any).store.rows.get(`${tenant}\0${id}`).uid

beforeAll(async () => {
  server = await createServer({
    config: parseServeConfig({
      tenants: [
        { id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN, concurrentRuns: 8 } },
        { id: 'other', tokenSha256: tokenSha256('other-token') },
        { id: 'small', tokenSha256: tokenSha256('small-token'), limits: { maxScheduleBytes: 3000 } },
      ],
    }),
    pool: { size: 1 },
    schedules: { clock },
  })
  url = await server.listen({ port: 0 })
  ;({ req, until } = workflowClient(url))
})
afterAll(async () => { await server?.close() })

const create = async (body: Record<string, unknown>, token?: string) =>
  (await req('POST', '/v1/schedules', { workflow: { source: ECHO }, args: { n: 1 }, ...body }, token)).json
const patch = (id: string, body: Record<string, unknown>, token?: string) => req('PATCH', `/v1/schedules/${id}`, body, token)
const get = async (id: string, token?: string) => (await req('GET', `/v1/schedules/${id}`, undefined, token)).json
/** DELETE answers 204 without a body. */
async function del(id: string, token = 'ops-token'): Promise<void> {
  expect((await fetch(`${url}/v1/schedules/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(204)
}
const ms = (iso: string) => Date.parse(iso)
type Action = { outcome: string; nominalAt: string; runId?: string; via: string; message?: string }

describe('PATCH /v1/schedules/{id}', () => {
  test('refused as POST refuses them, with the same codes and hints; a refused PATCH changes nothing', async () => {
    const before = await create({ id: 'v', spec: { everyMs: HOUR } })
    const refusal = async (body: Record<string, unknown>, token?: string) => {
      const r = await patch('v', body, token)
      return [r.status, r.json.error?.code, r.json.error?.hint ?? '']
    }
    expect((await refusal({ spec: { cron: 'every day' } })).slice(0, 2)).toEqual([400, 'SCHEDULE_INVALID'])
    const tz = await refusal({ spec: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } })
    expect(tz.slice(0, 2)).toEqual([400, 'SCHEDULE_TIMEZONE'])
    expect(tz[2]).toContain('spec.timezone')
    const often = await refusal({ spec: { cron: '*/10 * * * * *' } })
    expect(often.slice(0, 2)).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    expect(often[2]).toContain('limits.minScheduleIntervalMs')
    expect((await refusal({ spec: { everyMs: 1000 } })).slice(0, 2)).toEqual([400, 'SCHEDULE_TOO_FREQUENT'])
    expect((await refusal({ overlap: 'sometimes' })).slice(0, 2)).toEqual([400, 'BAD_REQUEST'])
    expect((await refusal({ id: 'renamed' })).slice(0, 2)).toEqual([400, 'BAD_REQUEST']) // the id is not a field PATCH takes
    expect((await refusal({})).slice(0, 2)).toEqual([400, 'BAD_REQUEST'])
    expect((await refusal({ catchupWindowMs: 10 })).slice(0, 2)).toEqual([400, 'BAD_REQUEST'])
    expect((await refusal({ workflow: { source: 'export default (' } }))[0]).toBe(422)
    expect((await refusal({ workflow: { source: ECHO, tags: Array.from({ length: 17 }, (_, i) => `t${i}`) } })).slice(0, 2)).toEqual([400, 'SEARCH_ATTRIBUTES_LIMIT'])
    // Several fields, one of them bad: none is applied.
    expect((await refusal({ args: { n: 9 }, note: 'x', spec: { cron: '0 61 * * *' } })).slice(0, 2)).toEqual([400, 'SCHEDULE_INVALID'])
    expect((await refusal({ args: { n: 9 }, workflow: { source: 'export default (' } }))[0]).toBe(422)
    expect((await refusal({ note: 'theirs' }, 'other-token'))[0]).toBe(404)
    expect((await patch('nope', { note: 'x' })).status).toBe(404)
    expect(await get('v')).toEqual(before)
    await del('v')
  })

  test('limits.maxScheduleBytes holds for a schedule PATCH makes larger; one made smaller passes', async () => {
    const token = 'small-token'
    const a = await create({ id: 'a', spec: { everyMs: HOUR } }, token)
    expect(a.revision).toBe(0)
    const big = await patch('a', { workflow: { source: `${ECHO}\n// ${'x'.repeat(3000)}` } }, token)
    expect([big.status, big.json.error.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect(big.json.error.message).toContain('limits.maxScheduleBytes')
    // Grown within the quota, then a second schedule: the quota counts the first as it is now.
    expect((await patch('a', { args: { n: 1, pad: 'y'.repeat(1500) } }, token)).status).toBe(200)
    const b = await req('POST', '/v1/schedules', { id: 'b', workflow: { source: ECHO }, spec: { everyMs: HOUR }, args: { pad: 'z'.repeat(1000) } }, token)
    expect([b.status, b.json.error?.code]).toEqual([429, 'STORE_QUOTA_EXCEEDED'])
    expect((await patch('a', { args: { n: 1 } }, token)).status).toBe(200)
    expect((await req('POST', '/v1/schedules', { id: 'b', workflow: { source: ECHO }, spec: { everyMs: HOUR }, args: { pad: 'z'.repeat(1000) } }, token)).status).toBe(201)
    for (const id of ['a', 'b']) await del(id, token)
  })

  test('a new spec fires next at its first time after now; the past does not fire again; its runs have ids of their own', async () => {
    const hour = Math.ceil(clock.t / HOUR) * HOUR
    expect((await create({ id: 's', spec: { everyMs: HOUR }, overlap: 'allowAll' })).nextFireTimes[0]).toBe(new Date(hour).toISOString())
    clock.t = hour
    await pass()
    const old = (await get('s')).actions[0] as Action
    expect(old).toMatchObject({ outcome: 'started', nominalAt: new Date(hour).toISOString(), runId: runIdOf('ops', uidOf('ops', 's'), hour) })

    // To a spec that also fires at that time, on a server whose clock is 30 s behind the one that fired it: it
    // fires next after the last fire, a minute on, not at that time again.
    clock.t = hour - 30_000
    const r = await patch('s', { spec: { cron: '* * * * *' }, note: 'every minute' })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ revision: 1, revisedAt: hour - 30_000, note: 'every minute', spec: { cron: '* * * * *' } })
    expect(r.json.nextFireTimes.slice(0, 2).map(ms)).toEqual([hour + MIN, hour + 2 * MIN])
    expect(r.json.actions).toEqual((await get('s')).actions) // GET's answer
    clock.t = hour
    expect(await pass()).toBe(0)
    clock.t = hour + MIN
    await pass()
    const s = await get('s')
    const fired = s.actions[0] as Action
    expect(fired).toMatchObject({ outcome: 'started', nominalAt: new Date(hour + MIN).toISOString() })
    expect(fired.runId).toBe(runIdOf('ops', uidOf('ops', 's'), hour + MIN, 1))
    expect(fired.runId).not.toBe(runIdOf('ops', uidOf('ops', 's'), hour + MIN))
    expect(s.counts.started).toBe(2)

    // A backfill of the new spec over the time the old one fired starts a run of its own, not the old run.
    const fill = (await req('POST', '/v1/schedules/s/backfill', { from: hour, to: hour })).json.actions[0] as Action
    expect(fill).toMatchObject({ via: 'backfill', outcome: 'started', nominalAt: new Date(hour).toISOString() })
    expect(fill.message).toBeUndefined() // not 'already started'
    expect(fill.runId).not.toBe(old.runId)
    const runs = (await req('GET', '/v1/workflows?attr.scheduleId=s&limit=100')).json.items.map((w: { id: string }) => w.id)
    expect(new Set(runs)).toEqual(new Set([old.runId, fired.runId, fill.runId]))

    // A PATCH that keeps the spec keeps the next fire and the run ids; a jitter-only change keeps the nominal times.
    const same = (await patch('s', { spec: { cron: '* * * * *', timezone: 'UTC' }, jitterMs: 1000 })).json
    expect(same).toMatchObject({ revision: 2, jitterMs: 1000 })
    expect(same.nextFireTimes[0]).toBe(new Date(hour + 2 * MIN).toISOString())
    expect((server.context.schedules as any).store.rows.get('ops\0s').specRevision).toBe(1)

    // Late in a minute, to every 5 minutes: the first is the next multiple of 5 minutes after now.
    clock.t = hour + MIN + 50_000
    const five = (await patch('s', { spec: { everyMs: 5 * MIN } })).json
    expect(five.nextFireTimes[0]).toBe(new Date(hour + 5 * MIN).toISOString())
    for (const id of [old.runId, fired.runId, fill.runId]) await until(id!, (w) => w.state === 'done')
    await del('s')
  }, 30_000)

  test('paused toggled: no fires while paused, none of the missed ones after; new args are the next fire\'s', async () => {
    const t0 = Math.ceil(clock.t / HOUR) * HOUR
    clock.t = t0 - 1000
    await create({ id: 'p', spec: { everyMs: MIN } })
    let r = (await patch('p', { paused: true, note: 'maintenance' })).json
    expect(r).toMatchObject({ paused: true, note: 'maintenance', nextFireTimes: [], revision: 1 })
    clock.t = t0 + 10 * MIN + 5000
    expect(await pass()).toBe(0)
    r = (await patch('p', { paused: false, args: { n: 2 } })).json
    expect(r).toMatchObject({ paused: false, note: 'maintenance', args: { n: 2 }, revision: 2, counts: { started: 0 } })
    expect(r.nextFireTimes[0]).toBe(new Date(t0 + 11 * MIN).toISOString())
    clock.t = t0 + 11 * MIN
    await pass()
    const s = await get('p')
    expect(s.actions).toHaveLength(1)
    expect(s.actions[0]).toMatchObject({ outcome: 'started', nominalAt: new Date(t0 + 11 * MIN).toISOString() })
    expect((await until(s.actions[0].runId, (w) => w.state === 'done')).result).toEqual({ n: 2 })
    // paused: false on a running schedule changes nothing of when it fires.
    expect((await patch('p', { paused: false })).json.nextFireTimes[0]).toBe(new Date(t0 + 12 * MIN).toISOString())
    await del('p')
  }, 30_000)

  test('a PATCH and a fire at the same time both land, in either order', async () => {
    const service = server.context.schedules!
    for (const patchFirst of [true, false]) {
      const id = `c-${patchFirst}`
      const at = Math.ceil((clock.t + 1) / MIN) * MIN
      await create({ id, spec: { everyMs: MIN }, args: { n: 1 } })
      clock.t = at
      // Each call takes the row's lock before its first await: the one called first holds it. The PATCH compiles
      // its workflow under the lock; the fire starts its run under it.
      const change = () => service.update('ops', id, { args: { n: 3 }, workflow: { source: ECHO, name: 'changed' } })
      const [view, handled] = patchFirst ? await Promise.all([change(), pass()]) : (await Promise.all([pass(), change()])).reverse() as [Record<string, unknown>, number]
      // The pass leaves a row the PATCH holds (due still, for the next pass); a PATCH after the fire sees its action.
      expect(handled).toBe(patchFirst ? 0 : 1)
      expect((view as { actions: Action[] }).actions.length).toBe(patchFirst ? 0 : 1)
      if (patchFirst) expect(await pass()).toBe(1)
      const s = await get(id)
      expect(s).toMatchObject({ args: { n: 3 }, workflow: { name: 'changed' }, revision: 1 })
      const started = (s.actions as Action[]).filter((a) => a.outcome === 'started')
      expect(started.map((a) => a.nominalAt)).toEqual([new Date(at).toISOString()])
      expect(s.counts.started).toBe(1)
      expect(s.nextFireTimes[0]).toBe(new Date(at + MIN).toISOString())
      // The fire after the PATCH starts the new args; the one before it, the old.
      expect((await until(started[0]!.runId!, (w) => w.state === 'done')).result).toEqual({ n: patchFirst ? 3 : 1 })
      await del(id)
    }
  }, 30_000)

  test('PATCH is in /openapi.json', async () => {
    const doc = (await req('GET', '/openapi.json')).json
    expect(Object.keys(doc.paths['/v1/schedules/{id}'])).toContain('patch')
  })
})
