/**
 * PATCH /v1/schedules/{id} with If-Match (Temporal's conflict token), in memory and in PostgreSQL when initdb
 * is installed: GET answers the schedule's conflictToken and the same as its ETag; a PATCH whose If-Match names
 * the current one is applied, one naming an older one is 409 SCHEDULE_CONFLICT and changes nothing; PATCH, pause
 * and unpause make a new token, fires (the loop, trigger) do not; two PATCHes of the same version at once: one
 * lands; a schedule deleted and made again under its id does not take the old one's token; no If-Match: as before.
 * Pause and unpause take If-Match too, the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, parseServeConfig, startServe, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'

const MIN = 60_000
const config = parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { minScheduleIntervalMs: MIN, concurrentRuns: 8 } }] })
interface Target { server: AjsServer; url: string; clock: { t: number } }
const targets: Record<string, Target> = {}
let db: TestPostgres | undefined
const pgAvailable = postgresAvailable()

async function target(database?: string): Promise<Target> {
  const clock = { t: Date.parse('2026-02-02T10:00:30.000Z'), now() { return this.t }, setTimeout: () => 0, clearTimeout: () => {} }
  const server = database
    ? await startServe({ config, database, pool: { size: 1 }, jobConcurrency: 1, schedules: { clock } })
    : await createServer({ config, pool: { size: 1 }, schedules: { clock } })
  return { server, url: await server.listen({ port: 0 }), clock }
}

beforeAll(async () => {
  targets.memory = await target()
  if (pgAvailable) {
    db = await startPostgres()
    targets.postgres = await target(db.url)
  }
}, 60_000)
afterAll(async () => {
  for (const t of Object.values(targets)) await t.server.close()
  await db?.stop()
})

/** A request with the tenant's token and the headers given; its status, ETag and JSON. */
async function call(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: 'Bearer ops-token', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, etag: res.headers.get('etag'), json: await res.json().catch(() => undefined) as any }
}

describe.each(['memory', 'postgres'])('If-Match on PATCH (%s)', (store) => {
  test.skipIf(store === 'postgres' && !pgAvailable)('a stale version is 409 SCHEDULE_CONFLICT; the current one, *, or none is applied', async () => {
    const { url, server, clock } = targets[store]!
    const r = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(url, method, path, body, headers)
    const made = await r('POST', '/v1/schedules', { id: 'c', workflow: { source: 'export default 1' }, spec: { everyMs: 10 * MIN } })
    expect(made.status).toBe(201)
    const t0 = made.json.conflictToken as string
    expect(t0).toMatch(/^[A-Za-z0-9_-]{16}$/)
    expect(made.etag).toBe(`"${t0}"`)
    const got = await r('GET', '/v1/schedules/c')
    expect([got.etag, got.json.conflictToken]).toEqual([`"${t0}"`, t0])

    // The current version: applied, and the answer carries the new one.
    const p1 = await r('PATCH', '/v1/schedules/c', { note: 'one' }, { 'if-match': `"${t0}"` })
    expect([p1.status, p1.json.revision, p1.json.note]).toEqual([200, 1, 'one'])
    const t1 = p1.json.conflictToken as string
    expect(t1).not.toBe(t0)
    expect(p1.etag).toBe(`"${t1}"`)

    // The version before it: refused, with the code, the current token and a hint; nothing changes.
    const before = (await r('GET', '/v1/schedules/c')).json
    const stale = await r('PATCH', '/v1/schedules/c', { note: 'two', spec: { everyMs: 20 * MIN } }, { 'if-match': `"${t0}"` })
    expect([stale.status, stale.json.error.code]).toEqual([409, 'SCHEDULE_CONFLICT'])
    expect(stale.json.error.message).toContain(`it is now "${t1}"`)
    expect(stale.json.error.hint).toContain('If-Match')
    expect((await r('GET', '/v1/schedules/c')).json).toEqual(before)
    // Weak tags never match (strong comparison); a bare token is not an entity tag either.
    for (const tag of [`W/"${t1}"`, t1, '""']) expect((await r('PATCH', '/v1/schedules/c', { note: 'x' }, { 'if-match': tag })).status).toBe(409)

    // Pause and unpause are changes too: an edit of the version before them is refused.
    const paused = await r('POST', '/v1/schedules/c/pause')
    expect(paused.etag).toBe(`"${paused.json.conflictToken}"`)
    expect(paused.json.conflictToken).not.toBe(t1)
    expect((await r('PATCH', '/v1/schedules/c', { note: 'x' }, { 'if-match': `"${t1}"` })).json.error.code).toBe('SCHEDULE_CONFLICT')
    const unpaused = await r('POST', '/v1/schedules/c/unpause', { note: 'back' })
    expect(unpaused.json.conflictToken).not.toBe(paused.json.conflictToken)
    const t2 = unpaused.json.conflictToken as string

    // Fires are not changes: a trigger and the loop's fire keep the token.
    const triggered = await r('POST', '/v1/schedules/c/trigger')
    expect([triggered.json.actions[0].outcome, triggered.json.conflictToken]).toEqual(['started', t2])
    clock.t = Date.parse(triggered.json.nextFireTimes[0])
    await server.context.scheduleLoop!.pass()
    const fired = await r('GET', '/v1/schedules/c')
    expect(fired.json.counts.started + (fired.json.counts.skipped.overlap ?? 0)).toBe(2)
    expect(fired.json.conflictToken).toBe(t2)

    // One of several tags, or *: applied. No If-Match: applied whatever changed since.
    const listed = await r('PATCH', '/v1/schedules/c', { note: 'listed' }, { 'if-match': `"${t0}", "${t2}"` })
    expect(listed.status).toBe(200)
    expect((await r('PATCH', '/v1/schedules/c', { note: 'any' }, { 'if-match': '*' })).status).toBe(200)
    const plain = await r('PATCH', '/v1/schedules/c', { note: 'plain' })
    expect([plain.status, plain.json.revision]).toEqual([200, 4]) // revision counts PATCHes only; the token moved with pause and unpause too

    // Two edits of the same version at once: one lands, the other is told someone changed it.
    const t4 = plain.json.conflictToken as string
    const both = await Promise.all(['a', 'b'].map((n) => r('PATCH', '/v1/schedules/c', { note: n }, { 'if-match': `"${t4}"` })))
    expect(both.map((x) => x.status).sort()).toEqual([200, 409])
    expect((await r('GET', '/v1/schedules/c')).json.note).toBe(both.find((x) => x.status === 200)!.json.note)

    // Deleted and made again under its id: the old schedule's first token does not name the new one.
    expect((await r('DELETE', '/v1/schedules/c')).status).toBe(204)
    const again = await r('POST', '/v1/schedules', { id: 'c', workflow: { source: 'export default 1' }, spec: { everyMs: 10 * MIN } })
    expect(again.json.conflictToken).not.toBe(t0)
    expect((await r('PATCH', '/v1/schedules/c', { note: 'x' }, { 'if-match': `"${t0}"` })).status).toBe(409)
    expect((await r('DELETE', '/v1/schedules/c')).status).toBe(204)
  }, 60_000)
})

describe.each(['memory', 'postgres'])('If-Match on pause and unpause (%s)', (store) => {
  test.skipIf(store === 'postgres' && !pgAvailable)('a stale version is 409 SCHEDULE_CONFLICT and leaves it as it was; the current one, *, or none is applied', async () => {
    const { url } = targets[store]!
    const r = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(url, method, path, body, headers)
    const t0 = (await r('POST', '/v1/schedules', { id: 'p', workflow: { source: 'export default 1' }, spec: { everyMs: 10 * MIN }, note: 'made' })).json.conflictToken as string
    const t1 = (await r('PATCH', '/v1/schedules/p', { note: 'edited' })).json.conflictToken as string

    // Paused from a version read before the PATCH: refused, nothing changes (not paused, note and token kept).
    const before = (await r('GET', '/v1/schedules/p')).json
    const stalePause = await r('POST', '/v1/schedules/p/pause', { note: 'stale' }, { 'if-match': `"${t0}"` })
    expect([stalePause.status, stalePause.json.error.code]).toEqual([409, 'SCHEDULE_CONFLICT'])
    expect(stalePause.json.error.message).toContain(`it is now "${t1}"`)
    expect((await r('GET', '/v1/schedules/p')).json).toEqual(before)
    // Without a body, as curl -X POST sends it, the header still counts.
    expect((await r('POST', '/v1/schedules/p/pause', undefined, { 'if-match': `"${t0}"` })).status).toBe(409)

    const paused = await r('POST', '/v1/schedules/p/pause', { note: 'hold' }, { 'if-match': `"${t1}"` })
    expect([paused.status, paused.json.paused, paused.json.note]).toEqual([200, true, 'hold'])
    const t2 = paused.json.conflictToken as string
    expect(paused.etag).toBe(`"${t2}"`)

    // Unpaused from the version before the pause: refused, still paused.
    const staleUnpause = await r('POST', '/v1/schedules/p/unpause', {}, { 'if-match': `"${t1}"` })
    expect([staleUnpause.status, staleUnpause.json.error.code]).toEqual([409, 'SCHEDULE_CONFLICT'])
    expect(staleUnpause.json.error.message).toContain(', paused)')
    expect((await r('GET', '/v1/schedules/p')).json).toMatchObject({ paused: true, conflictToken: t2, nextFireTimes: [] })
    const unpaused = await r('POST', '/v1/schedules/p/unpause', { note: 'back' }, { 'if-match': `"${t2}"` })
    expect([unpaused.status, unpaused.json.paused, unpaused.json.note]).toEqual([200, false, 'back'])

    // Two pauses of the same version at once: one lands.
    const t3 = unpaused.json.conflictToken as string
    const both = await Promise.all(['a', 'b'].map((note) => r('POST', '/v1/schedules/p/pause', { note }, { 'if-match': `"${t3}"` })))
    expect(both.map((x) => x.status).sort()).toEqual([200, 409])
    // *, and no If-Match: applied whatever changed since.
    expect((await r('POST', '/v1/schedules/p/unpause', {}, { 'if-match': '*' })).json.paused).toBe(false)
    expect((await r('POST', '/v1/schedules/p/pause')).json.paused).toBe(true)
    expect((await r('DELETE', '/v1/schedules/p')).status).toBe(204)
  }, 60_000)
})

test('the If-Match header is in /openapi.json: PATCH, pause and unpause', async () => {
  const doc = (await call(targets.memory!.url, 'GET', '/openapi.json')).json
  for (const [path, method] of [['/v1/schedules/{id}', 'patch'], ['/v1/schedules/{id}/pause', 'post'], ['/v1/schedules/{id}/unpause', 'post']] as const) {
    const params = doc.paths[path][method].parameters as Array<{ name: string; in: string }>
    expect([path, params.find((p) => p.in === 'header')]).toMatchObject([path, { name: 'if-match', in: 'header', required: false }])
    expect([path, doc.paths[path][method].responses['409'].description]).toEqual([path, expect.stringContaining('SCHEDULE_CONFLICT')])
  }
})
