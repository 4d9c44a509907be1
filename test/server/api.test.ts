/** The HTTP API of `ajsc serve`: every route, status code and tenant rule (in-memory mode). */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { TOKENS, ast, runFinished, runsCounted, startTestServer, type TestServer } from './helpers.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 2 }) })
afterAll(async () => { await t.close() })

const double = ast('function double({ n }) { return { doubled: n * 2 } }')

/** Every route that needs a token, with a body where it takes one. */
const AUTHED: Array<[string, string, unknown?]> = [
  ['POST', '/v1/runs', { ast: double, args: { n: 1 } }],
  ['GET', '/v1/runs/run_x'],
  ['GET', '/v1/runs/run_x/events'],
  ['POST', '/v1/procedures', { ast: double }],
  ['GET', '/v1/procedures/proc_x'],
  ['DELETE', '/v1/procedures/proc_x'],
  ['POST', '/v1/workflows', { source: 'export default 1' }],
  ['GET', '/v1/workflows/wf_x'],
  ['POST', '/v1/workflows/wf_x/requests/r1', { value: true }],
]

describe('tokens', () => {
  test('every authenticated route answers 401 without a token, with an unknown one and with a malformed header; no run happens', async () => {
    const before = await runsCounted(t, 'a')
    for (const [method, path, body] of AUTHED) {
      for (const opts of [{ token: null }, { token: 'not-a-token' }, { token: null, headers: { authorization: `Basic ${TOKENS.a}` } }]) {
        const r = await t.req(method, path, { ...opts, body })
        expect([method, path, r.status]).toEqual([method, path, 401])
        expect(r.json.error.code).toBe('UNAUTHORIZED')
        expect(r.headers.get('www-authenticate')).toBe('Bearer')
      }
    }
    expect(await runsCounted(t, 'a')).toBe(before)
  })

  test('/healthz, /metrics and /openapi.json need no token', async () => {
    const h = await t.req('GET', '/healthz', { token: null })
    expect(h.status).toBe(200)
    expect(h.json).toMatchObject({ ok: true, pool: { threads: 2, queued: 0 }, version: expect.any(String) })
    const m = await t.req('GET', '/metrics', { token: null })
    expect(m.status).toBe(200)
    expect(m.headers.get('content-type')).toContain('text/plain')
    expect(m.text).toContain('# TYPE ajs_run_duration_seconds histogram')
    expect(m.text).toContain('ajs_pool_queue_size 0')
    const o = await t.req('GET', '/openapi.json', { token: null })
    expect(o.status).toBe(200)
    expect(o.json.openapi).toBe('3.1.0')
  })

  test('/openapi.json lists every route with its schemas and documented responses', async () => {
    const doc = (await t.req('GET', '/openapi.json', { token: null })).json
    for (const [method, path] of AUTHED) {
      const p = path.replace('run_x', '{id}').replace('proc_x', '{token}').replace('wf_x', '{id}').replace('r1', '{rid}')
      const op = doc.paths[p]?.[method.toLowerCase()]
      expect([method, p, op !== undefined]).toEqual([method, p, true])
      expect(op.security).toEqual([{ bearer: [] }])
      expect(op.responses['401']).toBeDefined()
    }
    expect(doc.paths['/v1/runs'].post.requestBody.content['application/json'].schema.properties.options.properties.fuel.type).toBe('number')
    expect(doc.paths['/v1/runs'].post.responses['422'].description).toContain('AST_INVALID')
    expect(doc.paths['/healthz'].get.security).toBeUndefined()
  })

  test('an unknown route is 404 ROUTE_NOT_FOUND', async () => {
    const r = await t.req('GET', '/v1/nothing')
    expect(r.status).toBe(404)
    expect(r.json.error.code).toBe('ROUTE_NOT_FOUND')
  })
})

describe('POST /v1/runs', () => {
  test('runs an AST, source text and a procedure token (200 + RunResult)', async () => {
    const r1 = await t.req('POST', '/v1/runs', { body: { ast: double, args: { n: 21 } } })
    expect(r1.status).toBe(200)
    expect(r1.json.result).toEqual({ doubled: 42 })
    expect(r1.json.fuelUsed).toBeGreaterThan(0)
    const r2 = await t.req('POST', '/v1/runs', { body: { source: 'function f({ s }) { return { up: s.toUpperCase() } }', args: { s: 'hi' } } })
    expect(r2.json.result).toEqual({ up: 'HI' })
    const { token } = (await t.req('POST', '/v1/procedures', { body: { ast: double } })).json
    const r3 = await t.req('POST', '/v1/runs', { body: { token, args: { n: 5 } } })
    expect(r3.json.result).toEqual({ doubled: 10 })
  })

  test('a program that fails is still 200: the error is in the result', async () => {
    const r = await t.req('POST', '/v1/runs', { body: { source: 'function f() { throw new Error("nope") }' } })
    expect(r.status).toBe(200)
    expect(r.json.result).toBeNull()
    expect(r.json.error.code).toBe('THROWN')
  })

  test('options: fuel and timeoutMs are capped by the tenant\'s limits; trace is returned', async () => {
    const loop = { source: 'function f() { let i = 0; while (true) { i++ } }', options: { fuel: 1e9 } }
    const r = await t.req('POST', '/v1/runs', { body: loop })
    expect(r.json.error.code).toBe('FUEL_EXHAUSTED')
    expect(r.json.fuelUsed).toBe(5000)
    const traced = await t.req('POST', '/v1/runs', { body: { ast: double, args: { n: 1 }, options: { trace: true } } })
    expect(traced.json.trace.length).toBeGreaterThan(0)
    expect(traced.json.trace[0].op).toBe('return')
    const slow = await t.req('POST', '/v1/runs', { token: TOKENS.busy, body: { source: 'function f() { let i = 0; while (true) { i++ } }', options: { timeoutMs: 50 } } })
    expect(slow.json.error.code).toBe('TIMEOUT')
  })

  test('422 for programs the VM refuses: invalid AST, too deep, source that does not compile, arguments against the schema', async () => {
    const invalid = await t.req('POST', '/v1/runs', { body: { ast: { ajs: 1, op: 'seq', steps: [{ op: 'noSuchAtom' }] } } })
    expect(invalid.status).toBe(422)
    expect(invalid.json.error.code).toBe('UNKNOWN_ATOM')
    let deep: unknown = { $expr: 'literal', value: 1 }
    for (let i = 0; i < 100; i++) deep = { $expr: 'unary', op: '-', argument: deep }
    const tooDeep = await t.req('POST', '/v1/runs', { body: { ast: { ajs: 1, op: 'seq', steps: [{ op: 'return', value: deep }] } } })
    expect(tooDeep.status).toBe(422)
    expect(tooDeep.json.error.code).toBe('AST_TOO_DEEP')
    const syntax = await t.req('POST', '/v1/runs', { body: { source: 'function f() { return { a: }' } })
    expect(syntax.status).toBe(422)
    expect(syntax.json.error).toMatchObject({ code: 'AJS1001', line: 1 })
    const args = await t.req('POST', '/v1/runs', { body: { ast: double, args: {} } })
    expect(args.status).toBe(422)
    expect(args.json.error.code).toBe('ARGS_INVALID')
  })

  test('400 for malformed bodies, 413 for large ones, 415 for non-JSON, 404 for unknown tokens', async () => {
    const none = await t.req('POST', '/v1/runs', { body: { args: {} } })
    expect([none.status, none.json.error.code]).toEqual([400, 'BAD_REQUEST'])
    const two = await t.req('POST', '/v1/runs', { body: { ast: double, source: 'x' } })
    expect(two.status).toBe(400)
    const extra = await t.req('POST', '/v1/runs', { body: { ast: double, fuel: 3 } })
    expect(extra.status).toBe(400)
    const badOption = await t.req('POST', '/v1/runs', { body: { ast: double, options: { capabilities: {} } } })
    expect(badOption.status).toBe(400)
    const wrongType = await t.req('POST', '/v1/runs', { body: { ast: double, options: { fuel: '10' } } })
    expect(wrongType.status).toBe(400)
    const badJson = await t.req('POST', '/v1/runs', { raw: '{"ast": ', headers: { 'content-type': 'application/json' } })
    expect([badJson.status, badJson.json.error.code]).toEqual([400, 'BAD_REQUEST'])
    const big = await t.req('POST', '/v1/runs', { body: { source: `function f() { return { s: "${'x'.repeat(70_000)}" } }` } })
    expect([big.status, big.json.error.code]).toEqual([413, 'BODY_TOO_LARGE'])
    const text = await t.req('POST', '/v1/runs', { raw: 'hello', headers: { 'content-type': 'text/plain' } })
    expect([text.status, text.json.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE'])
    const unknown = await t.req('POST', '/v1/runs', { body: { token: 'proc_unknown' } })
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'NOT_FOUND'])
  })
})

describe('async runs', () => {
  test('?async=1 answers 202 { id }; GET /v1/runs/:id shows the state and result', async () => {
    const r = await t.req('POST', '/v1/runs?async=1', { body: { ast: double, args: { n: 4 } } })
    expect(r.status).toBe(202)
    expect(r.json.id).toMatch(/^run_/)
    expect(r.headers.get('location')).toBe(`/v1/runs/${r.json.id}`)
    const rec = await runFinished(t, r.json.id)
    expect(rec).toMatchObject({ id: r.json.id, state: 'done', result: { result: { doubled: 8 } } })
    expect(rec.finishedAt).toBeGreaterThanOrEqual(rec.createdAt)
  })

  test('GET /v1/runs/:id/events streams the state, the trace entries and the result', async () => {
    const { id } = (await t.req('POST', '/v1/runs?async=1', { body: { source: 'function f({ n }) { let x = n + 1; return { x } }', args: { n: 1 }, options: { trace: true } } })).json
    const r = await t.req('GET', `/v1/runs/${id}/events`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('text/event-stream')
    const events = r.text.trim().split('\n\n').map((block) => {
      const [e, d] = block.split('\n')
      return { event: e!.slice('event: '.length), data: JSON.parse(d!.slice('data: '.length)) }
    })
    expect(events.at(-1)).toEqual({ event: 'result', data: { result: { x: 2 }, fuelUsed: expect.any(Number) } })
    expect(events.filter((e) => e.event === 'trace').map((e) => e.data.op)).toEqual(['varsLet', 'return'])
    expect(events.filter((e) => e.event === 'state').at(-1)!.data.state).toBe('done')
  })

  test('an unknown run is 404', async () => {
    expect((await t.req('GET', '/v1/runs/run_nope')).status).toBe(404)
    expect((await t.req('GET', '/v1/runs/run_nope/events')).status).toBe(404)
  })
})

describe('procedures', () => {
  test('POST stores (201 { token, expiresAt }), GET shows, DELETE removes (204), then 404', async () => {
    const created = await t.req('POST', '/v1/procedures', { body: { source: 'function f({ n }) { return { n } }', ttl: 60_000 } })
    expect(created.status).toBe(201)
    expect(created.json.token).toMatch(/^proc_[A-Za-z0-9_-]{32}$/)
    expect(created.json.expiresAt - Date.now()).toBeLessThanOrEqual(60_000)
    const got = await t.req('GET', `/v1/procedures/${created.json.token}`)
    expect(got.status).toBe(200)
    expect(got.json.ast.ajs).toBe(1)
    expect((await t.req('DELETE', `/v1/procedures/${created.json.token}`)).status).toBe(204)
    expect((await t.req('GET', `/v1/procedures/${created.json.token}`)).status).toBe(404)
    expect((await t.req('DELETE', `/v1/procedures/${created.json.token}`)).status).toBe(404)
  })

  test('a procedure expires after its TTL', async () => {
    const { token } = (await t.req('POST', '/v1/procedures', { body: { ast: double, ttl: 1 } })).json
    await Bun.sleep(5)
    expect((await t.req('POST', '/v1/runs', { body: { token, args: { n: 1 } } })).status).toBe(404)
  })

  test('422 for programs that do not validate or compile, 400 without a program', async () => {
    const bad = await t.req('POST', '/v1/procedures', { body: { ast: { ajs: 1, op: 'seq', steps: 3 } } })
    expect(bad.status).toBe(422)
    expect(bad.json.error.details.length).toBeGreaterThan(0)
    const syntax = await t.req('POST', '/v1/procedures', { body: { source: 'function (' } })
    expect([syntax.status, syntax.json.error.code]).toEqual([422, 'AJS1001'])
    expect(syntax.json.error.frame).toContain('^')
    expect((await t.req('POST', '/v1/procedures', { body: { ttl: 5 } })).status).toBe(400)
  })
})

describe('tenant isolation', () => {
  test('another tenant\'s procedure can be neither read, run, deleted nor reached by agentRun', async () => {
    const { token } = (await t.req('POST', '/v1/procedures', { body: { ast: double } })).json
    expect((await t.req('GET', `/v1/procedures/${token}`, { token: TOKENS.b })).status).toBe(404)
    expect((await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { token, args: { n: 1 } } })).status).toBe(404)
    expect((await t.req('DELETE', `/v1/procedures/${token}`, { token: TOKENS.b })).status).toBe(404)
    const viaAgent = await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { source: 'function f({ t }) { return agentRun({ agentId: t, input: { n: 1 } }) }', args: { t: token } } })
    expect(viaAgent.json.error.code).toBe('PROCEDURE_NOT_FOUND')
    const own = await t.req('POST', '/v1/runs', { body: { source: 'function f({ t }) { return agentRun({ agentId: t, input: { n: 3 } }) }', args: { t: token } } })
    expect(own.json.result).toEqual({ doubled: 6 })
    expect((await t.req('GET', `/v1/procedures/${token}`)).status).toBe(200)
  })

  test('another tenant\'s run can be neither read nor streamed', async () => {
    const { id } = (await t.req('POST', '/v1/runs?async=1', { body: { ast: double, args: { n: 1 } } })).json
    expect((await t.req('GET', `/v1/runs/${id}`, { token: TOKENS.b })).status).toBe(404)
    expect((await t.req('GET', `/v1/runs/${id}/events`, { token: TOKENS.b })).status).toBe(404)
    expect((await t.req('GET', `/v1/runs/${id}`)).status).toBe(200)
    // The next test needs tenant a's one concurrent-run slot (limits.concurrentRuns: 1).
    expect((await runFinished(t, id)).state).toBe('done')
  })

  test('agent memory (store atoms) and guest-stored procedures belong to one tenant', async () => {
    const put = 'function f() { storeSet({ key: "secret", value: 42 }); let t = storeProcedure({ ast: { ajs: 1, op: "seq", steps: [{ op: "return", value: { $expr: "literal", value: 7 } }] } }); return { t } }'
    const stored = await t.req('POST', '/v1/runs', { body: { source: put } })
    const guestToken = stored.json.result.t
    expect(guestToken).toMatch(/^proc_/)
    const read = 'function f() { return { v: storeGet({ key: "secret" }) } }'
    expect((await t.req('POST', '/v1/runs', { body: { source: read } })).json.result).toEqual({ v: 42 })
    expect((await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { source: read } })).json.result).toEqual({ v: null })
    expect((await t.req('POST', '/v1/runs', { body: { token: guestToken } })).json.result).toBe(7)
    expect((await t.req('POST', '/v1/runs', { token: TOKENS.b, body: { token: guestToken } })).status).toBe(404)
  })

})

describe('limits', () => {
  test('requestsPerMinute: 429 RATE_LIMITED with Retry-After', async () => {
    const codes: number[] = []
    let last
    for (let i = 0; i < 3; i++) {
      last = await t.req('GET', '/v1/runs/run_x', { token: TOKENS.rate })
      codes.push(last.status)
    }
    expect(codes).toEqual([404, 404, 429])
    expect(last!.json.error.code).toBe('RATE_LIMITED')
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  })

  test('concurrentRuns: 429 TENANT_BUSY while the tenant\'s run is in progress', async () => {
    const long = t.req('POST', '/v1/runs', { token: TOKENS.busy, body: { source: 'function f() { let i = 0; while (true) { i++ } }', options: { timeoutMs: 400 } } })
    await Bun.sleep(50)
    const second = await t.req('POST', '/v1/runs', { token: TOKENS.busy, body: { ast: double, args: { n: 1 } } })
    expect([second.status, second.json.error.code]).toEqual([429, 'TENANT_BUSY'])
    expect(second.headers.get('retry-after')).toBe('1')
    expect((await long).json.error.code).toBe('TIMEOUT')
    expect((await t.req('POST', '/v1/runs', { token: TOKENS.busy, body: { ast: double, args: { n: 1 } } })).status).toBe(200)
  })

  test('fuelPerDay: a run gets at most the fuel left today, then 429 FUEL_QUOTA_EXCEEDED', async () => {
    const first = await t.req('POST', '/v1/runs', { token: TOKENS.quota, body: { source: 'function f() { let i = 0; while (true) { i++ } }' } })
    expect(first.json.error.code).toBe('FUEL_EXHAUSTED')
    expect(first.json.fuelUsed).toBe(1)
    const second = await t.req('POST', '/v1/runs', { token: TOKENS.quota, body: { ast: double, args: { n: 1 } } })
    expect([second.status, second.json.error.code]).toEqual([429, 'FUEL_QUOTA_EXCEEDED'])
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('refusals are counted in /metrics by tenant and code', async () => {
    const text = (await t.req('GET', '/metrics', { token: 'token-operator' })).text
    expect(text).toMatch(/ajs_requests_refused_total\{tenant="",code="UNAUTHORIZED"\} \d+/)
    expect(text).toMatch(/ajs_requests_refused_total\{tenant="rate",code="RATE_LIMITED"\} 1/)
    expect(text).toMatch(/ajs_fuel_used_total\{tenant="a"\} \d/)
  })
})
