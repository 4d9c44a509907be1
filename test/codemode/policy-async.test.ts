/**
 * A tenant's plan policy before anything is accepted (issue 25): an async
 * run (`POST /v1/runs?async=1`) and a workflow (`POST /v1/workflows`, its
 * program and its modules) whose plan exceeds the policy are refused at
 * once with 422 PLAN_REFUSED, and leave no record; within it they are
 * accepted and run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'
import { SERVER } from './helpers.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer({ size: 1 }, parseServeConfig({
    mcp: [{ command: process.execPath, args: [SERVER] }],
    tenants: [
      { id: 'guarded', tokenSha256: tokenSha256('guarded-token'), plan: { deny: ['delete_'], maxCalls: { get_weather_2: 3 } } },
      { id: 'nomodel', tokenSha256: tokenSha256('nomodel-token'), plan: { reach: { model: false }, maxCalls: { workflow: 0 } } },
    ],
  }))
}, 30_000)
afterAll(async () => { await t?.close() })

const asGuarded = { token: 'guarded-token' }
const asNoModel = { token: 'nomodel-token' }

/** GET `path` until its state is done (bounded: 200 polls). */
async function untilDone(path: string, as: { token: string }): Promise<any> {
  let rec: any
  for (let i = 0; i < 200 && rec?.state !== 'done'; i++) {
    if (i > 0) await Bun.sleep(20)
    rec = (await t.req('GET', path, as)).json
  }
  return rec
}

describe('async runs', () => {
  test('a program whose plan exceeds the policy is refused with 422 before it is accepted', async () => {
    const source = `function f({ cities }) {
      storeSet({ key: 'ran', value: true })
      for (const city of cities) get_weather_2({ city })
      return delete_({ id: 'x' })
    }`
    const r = await t.req('POST', '/v1/runs?async=1', { ...asGuarded, body: { source, args: { cities: ['Faro'] } } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe('PLAN_REFUSED')
    expect(r.json.error.details.map((d: { path: string }) => d.path)).toEqual(['plan.deny', 'plan.maxCalls.get_weather_2'])
    expect(r.json.error.hint).toContain('"plan.deny" of tenant "guarded"')
    // No record, and nothing ran.
    expect((await t.req('GET', '/v1/runs', asGuarded)).json.items).toEqual([])
    const read = await t.req('POST', '/v1/runs', { ...asGuarded, body: { source: `function f() { return storeGet({ key: 'ran' }) }` } })
    expect(read.json.result).toBeNull()
  }, 20_000)

  test('a program within the policy is accepted (202) and runs', async () => {
    const r = await t.req('POST', '/v1/runs?async=1', { ...asGuarded, body: { source: `function f() { return get_weather_2({ city: 'Faro' }).temp }` } })
    expect(r.status).toBe(202)
    const rec = await untilDone(`/v1/runs/${r.json.id}`, asGuarded)
    expect(rec.result.result).toBe(24)
  }, 20_000)
})

describe('workflows', () => {
  test('a workflow whose program reaches a model is refused (reach.model) and not created', async () => {
    const r = await t.req('POST', '/v1/workflows', { ...asNoModel, body: { source: 'const a = await agent("hi")\nexport default { a }' } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe('PLAN_REFUSED')
    expect(r.json.error.details).toEqual([{ path: 'plan.reach.model', message: 'the program can reach a model (llmPredict), which the policy forbids' }])
    expect((await t.req('GET', '/v1/workflows', asNoModel)).json.items).toEqual([])
  })

  test('a module of the workflow is checked too', async () => {
    const r = await t.req('POST', '/v1/workflows', { ...asNoModel, body: {
      source: 'log("parent")\nexport default { ok: true }',
      workflows: { child: 'const a = await workflow("grandchild")\nexport default { a }' },
    } })
    expect(r.status).toBe(422)
    expect(r.json.error.details.map((d: { path: string }) => d.path)).toEqual(['plan.maxCalls.workflow'])
  })

  test('a workflow within the policy is created and completes', async () => {
    const r = await t.req('POST', '/v1/workflows', { ...asNoModel, body: { source: 'log("hello")\nexport default { ok: true }' } })
    expect(r.status).toBe(201)
    const wf = await untilDone(`/v1/workflows/${r.json.id}`, asNoModel)
    expect(wf.state).toBe('done')
    expect(wf.result).toEqual({ ok: true })
  }, 20_000)
})
