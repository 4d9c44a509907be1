/**
 * A request a route's JSON schema refuses gets 400 BAD_REQUEST saying which field (`body.argz`,
 * `query.async`, `params.id`), what is wrong with it, the known field an unknown one was
 * probably meant to be, and the same as `details: [{ path, message }]` (server/validation.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { runsCounted, startTestServer, type TestServer } from './helpers.ts'
import { fieldPath, shown } from '../../src/server/validation.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 1 }) })
afterAll(() => t.close())

/** The refusal of a request, as { status, code, message, hint, details }. */
async function refusal(method: string, path: string, body?: unknown) {
  const r = await t.req(method, path, body === undefined ? {} : { body })
  const { code, message, hint, details } = r.json.error
  return { status: r.status, code, message, hint, details }
}

describe('schema refusals name the field', () => {
  test('an unknown body key: where it is, the key meant, the keys known', async () => {
    const r = await refusal('POST', '/v1/runs', { source: 'export default 1', argz: {} })
    const said = 'body.argz: unknown key (did you mean "args"? expected one of: ast, source, token, args, options)'
    expect(r).toEqual({ status: 400, code: 'BAD_REQUEST', message: `Invalid request: ${said}`, hint: 'See the body\'s schema: POST /v1/runs in GET /openapi.json.', details: [{ path: 'body.argz', message: said }] })
    // Nested, with the two letters swapped.
    expect((await refusal('POST', '/v1/runs', { source: 'export default 1', options: { fule: 10 } })).details)
      .toEqual([{ path: 'body.options.fule', message: 'body.options.fule: unknown key (did you mean "fuel"? expected one of: fuel, timeoutMs, trace)' }])
  })

  test('an unknown key like no known one: no suggestion, the keys known', async () => {
    const r = await refusal('POST', '/v1/procedures', { source: 'export default 1', zzzzzz: true })
    expect(r.message).toBe('Invalid request: body.zzzzzz: unknown key (expected one of: ast, source, ttl)')
    expect(r.message).not.toContain('did you mean')
    // A key that is no identifier is quoted.
    expect((await refusal('POST', '/v1/procedures', { source: 'x', 'a b': 1 })).details[0].path).toBe('body["a b"]')
  })

  test('a wrong type: the type wanted and the value sent, the field\'s description in the hint', async () => {
    const r = await refusal('POST', '/v1/runs', { source: 'export default 1', options: { fuel: '10' } })
    expect([r.status, r.code, r.message]).toEqual([400, 'BAD_REQUEST', 'Invalid request: body.options.fuel must be a number, got "10"'])
    expect(r.hint).toBe('body.options.fuel: Fuel budget (default and cap: the tenant\'s limits.fuelPerRun). See the body\'s schema: POST /v1/runs in GET /openapi.json.')
    expect((await refusal('POST', '/v1/runs', { source: 'export default 1', args: [1] })).message).toBe('Invalid request: body.args must be an object, got an array')
    // anyOf of types: both named.
    expect((await refusal('POST', '/v1/schedules/s1/backfill', { from: true, to: 1 })).message).toBe('Invalid request: body.from must be a number or a string, got true')
  })

  test('a missing required field: the field, described in the hint', async () => {
    const r = await refusal('POST', '/v1/schedules', { workflow: { source: 'export default 1' } })
    expect([r.status, r.code, r.message, r.details]).toEqual([400, 'BAD_REQUEST', 'Invalid request: body needs "spec"', [{ path: 'body.spec', message: 'body needs "spec"' }]])
    expect(r.hint).toStartWith('body.spec: When it fires: { cron, timezone? }')
    expect(r.hint).toEndWith('See the body\'s schema: POST /v1/schedules in GET /openapi.json.')
    // oneOf: what each form needs.
    expect((await refusal('POST', '/v1/schedules', { workflow: { source: 'export default 1' }, spec: {} })).message)
      .toBe('Invalid request: body.spec matches none of its forms: body.spec needs "cron"; or body.spec needs "everyMs"')
    expect((await refusal('PATCH', '/v1/schedules/s1', {})).message)
      .toBe('Invalid request: body needs at least one of "workflow", "args", "spec", "overlap", "catchupWindowMs", "jitterMs", "paused", "note"')
  })

  test('bounds and enums: the bound and the value sent', async () => {
    expect((await refusal('POST', '/v1/schedules', { workflow: { source: 'x' }, spec: { everyMs: 60_000 }, catchupWindowMs: 10 })).message)
      .toBe('Invalid request: body.catchupWindowMs must be >= 1000, got 10')
    expect((await refusal('POST', '/v1/schedules', { workflow: { source: 'x' }, spec: { everyMs: 60_000 }, overlap: 'sometimes' })).message)
      .toBe('Invalid request: body.overlap must be one of "skip", "bufferOne", "allowAll", got "sometimes"')
  })

  test('the query string and the path parameters', async () => {
    const bad = await refusal('POST', '/v1/runs?async=yes', { source: 'export default 1' })
    expect([bad.status, bad.code, bad.message, bad.details[0].path]).toEqual([400, 'BAD_REQUEST', 'Invalid request: query.async must be one of "1", "true", "0", "false", got "yes"', 'query.async'])
    expect(bad.hint).toEndWith('See the query string\'s schema: POST /v1/runs in GET /openapi.json.')
    expect((await refusal('POST', '/v1/runs?asynk=1', { source: 'export default 1' })).message)
      .toBe('Invalid request: query.asynk: unknown key (did you mean "async"? expected one of: async)')
    expect((await refusal('GET', '/v1/runs?state=finished')).message).toBe('Invalid request: query.state must be one of "queued", "running", "done", got "finished"')
    const limit = await refusal('GET', '/v1/workflows?limit=ten')
    expect([limit.message, limit.hint]).toEqual(['Invalid request: query.limit must match pattern "^[0-9]{1,6}$", got "ten"', 'query.limit: Items per page: 1 to 100 (default 20). See the query string\'s schema: GET /v1/workflows in GET /openapi.json.'])
    const id = await refusal('GET', '/v1/schedules/a%20b')
    expect([id.message, id.hint]).toEqual(['Invalid request: params.id must match pattern "^[A-Za-z0-9_.:-]{1,64}$", got "a b"', 'See the path parameters\' schema: GET /v1/schedules/{id} in GET /openapi.json.'])
  })

  test('a path parameter over its bound, or one the router cannot read, answers as every refusal', async () => {
    expect((await refusal('GET', `/v1/runs/${'x'.repeat(201)}`)).details).toEqual([{ path: 'params.id', message: 'params.id must NOT have more than 200 characters, got 201' }])
    const long = await refusal('GET', `/v1/runs/${'x'.repeat(700)}`)
    expect([long.status, long.code, long.message]).toEqual([400, 'BAD_REQUEST', `Invalid request: a path parameter of GET /v1/runs/${'x'.repeat(71)}… is longer than 600 characters`])
    const escape = await refusal('GET', '/v1/runs/%E0%A4%A')
    expect([escape.status, escape.code, escape.message]).toEqual([400, 'BAD_REQUEST', 'Invalid request: \'/v1/runs/%E0%A4%A\' is not a valid url component'])
  })

  test('a refused request runs nothing', async () => {
    const before = await runsCounted(t, 'a')
    await refusal('POST', '/v1/runs', { source: 'export default 1', argz: {} })
    await refusal('POST', '/v1/runs?async=yes', { source: 'export default 1' })
    expect(await runsCounted(t, 'a')).toBe(before)
  })
})

test('paths and values as messages show them', () => {
  expect(fieldPath('body', '/workflow/tags/0')).toBe('body.workflow.tags[0]')
  expect(fieldPath('body', '/a~1b/c~0d')).toBe('body["a/b"]["c~d"]')
  expect(fieldPath('query', '/attr.team')).toBe('query.attr.team')
  expect([shown('10'), shown(10), shown(null), shown({}), shown([]), shown(undefined)]).toEqual(['"10"', '10', 'null', 'an object', 'an array', 'nothing'])
  expect(shown('y'.repeat(100))).toBe(`"${'y'.repeat(56)}..."`)
})
