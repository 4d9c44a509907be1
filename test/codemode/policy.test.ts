/**
 * Plan policies (issue 25): checkPlan/parsePlanPolicy, and a tenant's `plan`
 * in `ajsc serve`: a program whose plan exceeds it is refused (422
 * PLAN_REFUSED, details naming the policy keys) before it runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { transpile } from '../../src/index.ts'
import { analyzeProgram, checkPlan, parsePlanPolicy } from '../../src/codemode/index.ts'
import { parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'
import { SERVER } from './helpers.ts'

const planOf = (source: string) => analyzeProgram(transpile(source).ast)

describe('checkPlan', () => {
  const program = `function agent({ ids }) {
  for (const id of ids) storeGet({ key: id })
  let i = 0
  while (i < 3) { i++ }
  return httpFetch({ url: 'https://example.com' })
}`
  test('a plan within the policy has no violations', () => {
    expect(checkPlan(planOf(program), {})).toEqual([])
    expect(checkPlan(planOf(program), { allow: ['storeGet', 'httpFetch'], maxCalls: { httpFetch: 1 } })).toEqual([])
  })
  test('each key that refuses the plan is named, with the call site', () => {
    const v = checkPlan(planOf(program), { allow: ['storeGet'], deny: ['storeGet'], maxCalls: { storeGet: 10 }, reach: { network: false, store: true }, maxFuel: 100 })
    expect(v.map((x) => x.key)).toEqual(['deny', 'allow', 'maxCalls.storeGet', 'reach.network', 'maxFuel'])
    expect(v[0]).toEqual({ key: 'deny', op: 'storeGet', loc: '2:24', message: 'the program calls `storeGet`, which the policy denies' })
    expect(v[2]!.message).toBe('the program may call `storeGet` len(ids) times; the policy allows at most 10')
    expect(v[4]!.message).toContain('no static bound')
  })
  test('maxFuel compares the static bound', () => {
    const small = planOf('function f() { let n = 0; for (const x of [1, 2, 3]) n += x; return n }')
    expect(typeof small.fuel).toBe('number')
    expect(checkPlan(small, { maxFuel: 1000 })).toEqual([])
    expect(checkPlan(small, { maxFuel: 0.01 })[0]!.message).toMatch(/may use up to [\d.]+ fuel; the policy allows at most 0.01/)
  })
  test('parsePlanPolicy names the path of a problem', () => {
    expect(parsePlanPolicy({ maxFuel: 50, reach: { network: false } })).toEqual({ maxFuel: 50, reach: { network: false } })
    expect(() => parsePlanPolicy({ maxFuell: 5 })).toThrow('plan.maxFuell: unknown key')
    expect(() => parsePlanPolicy({ reach: { web: false } })).toThrow('plan.reach.web: unknown key')
    expect(() => parsePlanPolicy({ maxCalls: { x: 1.5 } })).toThrow('plan.maxCalls.x: must be a whole number')
    expect(() => parseServeConfig({ tenants: [{ id: 'a', tokenSha256: tokenSha256('x'), plan: { deny: 'delete_' } }] })).toThrow('config.tenants[0].plan.deny: must be an array of atom names')
  })
})

describe('ajsc serve: a tenant\'s plan policy', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startTestServer({ size: 1 }, parseServeConfig({
      mcp: [{ command: process.execPath, args: [SERVER] }],
      tenants: [
        { id: 'open', tokenSha256: tokenSha256('open-token') },
        { id: 'guarded', tokenSha256: tokenSha256('guarded-token'), plan: { deny: ['delete_'], maxCalls: { get_weather_2: 3 }, reach: { network: false }, maxFuel: 200 } },
      ],
    }))
  }, 30_000)
  afterAll(async () => { await t?.close() })

  test('a program within the policy runs', async () => {
    const r = await t.req('POST', '/v1/runs', { token: 'guarded-token', body: { source: `function f() {
      const temps = []
      for (const city of ['Faro', 'Oslo']) temps.push(get_weather_2({ city }).temp)
      return temps
    }` } })
    expect(r.status).toBe(200)
    expect(r.json.result).toEqual([24, 3])
  })

  test('a program whose plan exceeds it is refused with 422 PLAN_REFUSED before it runs', async () => {
    const source = `function f({ cities }) {
      storeSet({ key: 'ran', value: true })
      for (const city of cities) get_weather_2({ city })
      return delete_({ id: 'x' })
    }`
    const r = await t.req('POST', '/v1/runs', { token: 'guarded-token', body: { source, args: { cities: ['Faro'] } } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe('PLAN_REFUSED')
    expect(r.json.error.details.map((d: { path: string }) => d.path)).toEqual(['plan.deny', 'plan.maxCalls.get_weather_2', 'plan.maxFuel'])
    expect(r.json.error.message).toContain('`delete_`, which the policy denies (at 4:13) [plan.deny]')
    expect(r.json.error.hint).toContain('"plan.deny" of tenant "guarded"')
    // Nothing ran: the store write at the top never happened.
    const read = await t.req('POST', '/v1/runs', { token: 'guarded-token', body: { source: `function f() { return storeGet({ key: 'ran' }) }` } })
    expect(read.json.result).toBeNull()
    // An AST is checked the same way, and the reach key too.
    const fetchAst = transpile(`function f() { return httpFetch({ url: 'https://example.com' }) }`).ast
    const net = await t.req('POST', '/v1/runs', { token: 'guarded-token', body: { ast: fetchAst } })
    expect(net.status).toBe(422)
    expect(net.json.error.details).toEqual([{ path: 'plan.reach.network', message: 'the program can reach the network (httpFetch), which the policy forbids' }])
    // Another tenant without a policy is not limited.
    const open = await t.req('POST', '/v1/runs', { token: 'open-token', body: { source, args: { cities: ['Faro'] } } })
    expect(open.status).toBe(200)
  }, 20_000)
})
