/**
 * Every route that takes a body, sent none, three ways: `curl -X POST url` (no Content-Type, no
 * Content-Length: written on a socket as curl writes it), fetch without a body (Content-Length: 0),
 * and `Content-Type: application/json` with an empty body. A route whose body is all optional
 * (config.bodyOptional) answers as for `{}`; any other answers 400 BAD_REQUEST with a hint naming
 * what the body needs. The table must list every route /openapi.json has with a request body (and
 * every POST), so a new route is not left out; its `requestBody.required` must say the same.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { startWorkflowServer, type WorkflowTestServer } from './workflow-server.ts'

let t: WorkflowTestServer
beforeAll(async () => { t = await startWorkflowServer() })
afterAll(async () => { await t?.close() })

const WAITS = `const ok = await agent('go?', { external: true })\nexport default ok`
const FAILS = `export default await agent('bodyless-down')`

type Way = 'curl' | 'fetch' | 'empty-json'
interface Answer { status: number; json: any }

/** A POST (or PATCH) without a body, sent `way`. */
async function bodyless(way: Way, method: string, path: string): Promise<Answer> {
  if (way !== 'curl') {
    const headers: Record<string, string> = { authorization: 'Bearer ops-token', ...(way === 'empty-json' ? { 'content-type': 'application/json' } : {}) }
    const res = await fetch(`${t.url}${path}`, { method, headers, ...(way === 'empty-json' ? { body: '' } : {}) })
    return { status: res.status, json: await res.json() }
  }
  // What `curl -X POST url` writes: no Content-Type, no Content-Length, no body.
  const { hostname, port } = new URL(t.url)
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ops-token\r\nAccept: */*\r\nConnection: close\r\n\r\n`)
    })
    let out = ''
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => { out += d })
    socket.on('end', () => resolve(out))
    socket.on('error', reject)
  })
  const [head, ...rest] = text.split('\r\n\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)![1])
  // Fastify answers with Content-Length (no chunks) here.
  return { status, json: JSON.parse(rest.join('\r\n\r\n')) }
}

/** What each route's fixtures are, made afresh for each way (a cancel or a pause changes them). */
interface Fixtures { waiting: string; failed: string; schedule: string }

async function fixtures(n: string): Promise<Fixtures> {
  const waiting = (await t.start({ source: WAITS })).json.id
  const failed = (await t.start({ source: FAILS, retry: { maximumAttempts: 1 } })).json.id
  const schedule = `bodyless-${n}`
  let made = await t.req('POST', '/v1/schedules', { id: schedule, workflow: { source: WAITS }, spec: { everyMs: 3_600_000 } })
  // A step of another workflow may hold the tenant's one run slot for a moment (as t.start waits it out).
  for (let i = 0; i < 100 && made.json?.error?.code === 'TENANT_BUSY'; i++) {
    await Bun.sleep(50)
    made = await t.req('POST', '/v1/schedules', { id: schedule, workflow: { source: WAITS }, spec: { everyMs: 3_600_000 } })
  }
  expect([made.status, made.json.error]).toEqual([201, undefined])
  await t.until(waiting, (wf) => wf.requests?.length === 1)
  await t.until(failed, (wf) => wf.state === 'failed')
  return { waiting, failed, schedule }
}

/**
 * Each route: its OpenAPI path, and what no body gets: `optional` (the route's answer to `{}`: its
 * status, and what it must show), `none` (a route without a body schema), or the fields the 400's hint names.
 */
type Row =
  | { kind: 'optional' | 'none'; path: (f: Fixtures) => string; status: number; check?: (json: any) => void }
  | { kind: 'required'; path: (f: Fixtures) => string; names: string[] }
const TABLE: Record<string, Row> = {
  'POST /v1/runs': { kind: 'required', path: () => '/v1/runs', names: ['ast', 'source', 'token'] },
  'POST /v1/procedures': { kind: 'required', path: () => '/v1/procedures', names: ['ast', 'source'] },
  'POST /v1/workflows': { kind: 'required', path: () => '/v1/workflows', names: ['source'] },
  'POST /v1/workflows/{id}/requests/{rid}': { kind: 'required', path: (f) => `/v1/workflows/${f.waiting}/requests/r1`, names: ['value'] },
  'POST /v1/workflows/{id}/retry': { kind: 'optional', path: (f) => `/v1/workflows/${f.failed}/retry`, status: 200, check: (j) => expect(j.state).toBe('running') },
  'POST /v1/workflows/{id}/signal': { kind: 'required', path: (f) => `/v1/workflows/${f.waiting}/signal`, names: ['name'] },
  'POST /v1/workflows/{id}/cancel': { kind: 'optional', path: (f) => `/v1/workflows/${f.waiting}/cancel`, status: 200 },
  'POST /v1/workflows/{id}/approvals/{aid}': { kind: 'required', path: (f) => `/v1/workflows/${f.waiting}/approvals/a1`, names: ['approve'] },
  'POST /v1/schedules': { kind: 'required', path: () => '/v1/schedules', names: ['workflow', 'spec'] },
  'PATCH /v1/schedules/{id}': { kind: 'required', path: (f) => `/v1/schedules/${f.schedule}`, names: ['spec', 'paused', 'note'] },
  'POST /v1/schedules/{id}/pause': { kind: 'optional', path: (f) => `/v1/schedules/${f.schedule}/pause`, status: 200, check: (j) => expect(j.paused).toBe(true) },
  'POST /v1/schedules/{id}/unpause': { kind: 'optional', path: (f) => `/v1/schedules/${f.schedule}/unpause`, status: 200, check: (j) => expect(j.paused).toBe(false) },
  'POST /v1/schedules/{id}/trigger': { kind: 'none', path: (f) => `/v1/schedules/${f.schedule}/trigger`, status: 200, check: (j) => expect(j.actions[0].via).toBe('trigger') },
  'POST /v1/schedules/{id}/backfill': { kind: 'required', path: (f) => `/v1/schedules/${f.schedule}/backfill`, names: ['from', 'to'] },
}

describe('a request without a body', () => {
  test('the table lists every route with a request body and every POST; /openapi.json marks the body as the table does', async () => {
    const doc = (await t.req('GET', '/openapi.json')).json
    const routes: string[] = []
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'post' || op.requestBody) routes.push(`${method.toUpperCase()} ${path}`)
        const row = TABLE[`${method.toUpperCase()} ${path}`]
        if (!row) continue
        if (row.kind === 'none') expect(op.requestBody).toBeUndefined()
        else expect([`${method} ${path}`, op.requestBody.required]).toEqual([`${method} ${path}`, row.kind === 'required'])
      }
    }
    expect(routes.sort()).toEqual(Object.keys(TABLE).sort())
  })

  for (const way of ['curl', 'fetch', 'empty-json'] as const) {
    test(`sent ${way === 'curl' ? 'as curl -X POST' : way === 'fetch' ? 'by fetch without a body' : 'as application/json with nothing in it'}: optional bodies are {}, needed ones a 400 naming their fields`, async () => {
      t.llm.down.add('bodyless-down')
      const f = await fixtures(way)
      for (const [route, row] of Object.entries(TABLE)) {
        const method = route.split(' ')[0]!
        const r = await bodyless(way, method, row.path(f))
        if (row.kind === 'required') {
          expect([route, r.status, r.json.error.code]).toEqual([route, 400, 'BAD_REQUEST'])
          expect(r.json.error.message).toContain(`${route} needs a JSON body`)
          for (const name of row.names) expect([route, r.json.error.hint]).toEqual([route, expect.stringContaining(`\`${name}\``)])
          expect(r.json.error.hint).toContain('Content-Type: application/json')
        } else {
          expect([route, r.status, r.json.error]).toEqual([route, row.status, undefined])
          row.check?.(r.json)
        }
      }
      // The cancel was taken (the workflow's wait throws WORKFLOW_CANCELLED at its next step).
      await t.until(f.waiting, (wf) => wf.state === 'cancelled')
    }, 30_000)
  }

  test('an empty body is no body only when empty: null, whitespace and bad JSON are still refused; a note sent is still checked', async () => {
    const f = await fixtures('bad')
    const send = async (path: string, body: string) => {
      const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body })
      return { status: res.status, json: await res.json() as any }
    }
    for (const body of ['null', ' ', '{', '[]']) {
      const r = await send(`/v1/workflows/${f.waiting}/cancel`, body)
      expect([body, r.status, r.json.error.code]).toEqual([body, 400, 'BAD_REQUEST'])
    }
    expect((await send(`/v1/schedules/${f.schedule}/pause`, '{"note":7}')).status).toBe(400)
    const kept = await send(`/v1/workflows/${f.waiting}/cancel`, '{"reason":"done with it"}')
    expect(kept.status).toBe(200)
  }, 30_000)
})
