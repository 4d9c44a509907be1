/**
 * Budget tokens across two `ajsc serve` processes of one deployment (issue
 * 25), both started here on 127.0.0.1 with the same key: a run on A mints a
 * token and calls B (POST /v1/runs with x-ajs-budget); B runs the child under
 * min(its tenant's limits, the token) and answers with a signed receipt; the
 * run on A settles it and is charged exactly what the child used. Forged,
 * inflated, expired and too deep tokens are refused by B with stable codes
 * (a spent one is answered with its first receipt); nesting A -> B -> A stops at maxDepth.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { transpile } from '../../src/index.ts'
import { createRemoteVM } from '../../src/client/index.ts'
import { startAjsc } from '../server/ajsc-process.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
const KEY = 'test-deployment-budget-key-0123456789abcdef'
process.env[KEY_ENV] = KEY

const children: ChildProcess[] = []
let dir: string
let A: string
let B: string

const CHILD = `function child({ n }) {
  let s = 0
  for (let i = 0; i < n; i++) s += i
  return { s }
}`

/** On A: mint, call B with the token, settle with B's receipt. */
const PARENT = `function parent({ url, auth, source, n, give }) {
  const token = budgetToken({ fuel: give })
  const res = httpFetch({ url: url + '/v1/runs', method: 'POST', body: { source, args: { n } },
    headers: { authorization: 'Bearer ' + auth, 'content-type': 'application/json', 'x-ajs-budget': token } })
  const settled = budgetSettle({ receipt: res.headers['x-ajs-budget-receipt'] })
  return { status: res.status, s: res.body.result?.s ?? null, error: res.body.error?.code ?? null, childUsed: res.body.fuelUsed, settled }
}`

function config(name: string, tenants: object[]): string {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, JSON.stringify({ tenants, budgetTokens: { keyEnv: KEY_ENV, maxDepth: 2 } }))
  return path
}

const fetchLocal = { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-'))
  // A runs a grandchild while its parent waits (A -> B -> A): two threads.
  const serve = async (cfg: string, threads: number) => (await startAjsc(['serve', '--config', cfg, '--port', '0', '--host', '127.0.0.1', '--pool-size', String(threads)], /listening on (http:\/\/\S+)/, children)).match[1]!
  ;[A, B] = await Promise.all([
    serve(config('a', [{ id: 'parent', tokenSha256: tokenSha256('a-token'), capabilities: fetchLocal }]), 2),
    serve(config('b', [
      { id: 'child', tokenSha256: tokenSha256('b-token'), capabilities: fetchLocal },
      { id: 'small', tokenSha256: tokenSha256('b-small'), limits: { fuelPerRun: 20 } },
    ]), 1),
  ])
}, 60_000)

afterAll(() => {
  for (const c of children) c.kill()
  rmSync(dir, { recursive: true, force: true })
})

const runOn = (url: string, auth: string, source: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ source, args, options: { fuel: 1000 } }) })

describe('a run on one server pays for a child run on another', () => {
  test('spend: the child runs under the token and the parent is charged exactly what it used', async () => {
    const res = await runOn(A, 'a-token', PARENT, { url: B, auth: 'b-token', source: CHILD, n: 100, give: 200 })
    const out = await res.json() as any
    expect(out.error).toBeUndefined()
    const r = out.result
    expect(r).toMatchObject({ status: 200, s: 4950, error: null })
    expect(r.childUsed).toBeGreaterThan(0)
    expect(r.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 200, used: r.childUsed, returned: 200 - r.childUsed })
  }, 30_000)

  test('quotas: A reserves the calls it hands B from its own token\'s quotas and is charged exactly B\'s calls', async () => {
    const same = new BudgetTokens({ key: KEY })
    // The host pays A with 4 calls of budgetToken; A hands 3 to B (its own call took 1), B makes 2.
    const outer = same.mint({ fuel: 800, exp: Date.now() + 60_000, depth: 0, quotas: { budgetToken: 4 } })
    const CHILD_MINTS = `function c({ k }) { for (let i = 0; i < k; i++) budgetToken({ fuel: 0 }); return k }`
    const res = await runOn(A, 'a-token', `function parent({ url, auth, source }) {
      const token = budgetToken({ fuel: 200, quotas: { budgetToken: 3 } })
      const res = httpFetch({ url: url + '/v1/runs', method: 'POST', body: { source, args: { k: 2 } },
        headers: { authorization: 'Bearer ' + auth, 'content-type': 'application/json', 'x-ajs-budget': token } })
      const settled = budgetSettle({ receipt: res.headers['x-ajs-budget-receipt'] })
      let more = 0
      try { while (more < 10) { budgetToken({ fuel: 0 }); more++ } } catch (e) { if (e.code !== 'QUOTA_EXCEEDED') throw e }
      return { child: res.body.result, keys: Object.keys(res.body).sort(), calls: settled.calls, more }
    }`, { url: B, auth: 'b-token', source: CHILD_MINTS }, { 'x-ajs-budget': outer.token })
    const out = await res.json() as any
    expect(out.error).toBeUndefined()
    expect(out.result).toEqual({ child: 2, keys: ['fuelUsed', 'result'], calls: { budgetToken: 2 }, more: 1 })
    expect(Object.keys(out)).not.toContain('budgetCalls')
    // A's own receipt: 1 + 2 (B's) + 1 calls, all 4 it was given.
    expect(same.readReceipt(res.headers.get('x-ajs-budget-receipt'))).toMatchObject({ id: outer.claims.id, calls: { budgetToken: 4 } })
    // Asking B for more than A has left is refused inside A, catchable.
    const over = same.mint({ fuel: 100, exp: Date.now() + 60_000, depth: 0, quotas: { budgetToken: 2 } })
    const refused = await (await runOn(A, 'a-token', `function p() { try { budgetToken({ fuel: 1, quotas: { budgetToken: 2 } }); return 'minted' } catch (e) { return e.code } }`, {}, { 'x-ajs-budget': over.token })).json() as any
    expect(refused.result).toBe('BUDGET_QUOTA_EXCEEDED')
  }, 30_000)

  test('a child that needs more stops at the token (or the child tenant\'s lower limit); the parent pays that', async () => {
    const big = (await (await runOn(A, 'a-token', PARENT, { url: B, auth: 'b-token', source: CHILD, n: 1e9, give: 30 })).json() as any).result
    expect(big.error).toBe('FUEL_EXHAUSTED')
    expect(big.settled).toMatchObject({ fuel: 30, used: 30, returned: 0 })
    const small = (await (await runOn(A, 'a-token', PARENT, { url: B, auth: 'b-small', source: CHILD, n: 1e9, give: 30 })).json() as any).result
    expect(small.error).toBe('FUEL_EXHAUSTED')
    expect(small.settled).toMatchObject({ fuel: 30, used: 20, returned: 10 })
  }, 30_000)

  test('forged, inflated, expired and replayed tokens are refused with stable codes', async () => {
    const same = new BudgetTokens({ key: KEY })
    const other = new BudgetTokens({ key: 'another-deployment-key-0123456789abcdef' })
    const send = async (token: string) => {
      const res = await runOn(B, 'b-token', CHILD, { n: 3 }, { 'x-ajs-budget': token })
      return { status: res.status, code: ((await res.json()) as any).error?.code ?? 'ran', receipt: res.headers.get('x-ajs-budget-receipt') }
    }
    expect(await send(other.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 }).token)).toMatchObject({ status: 403, code: 'BUDGET_TOKEN_INVALID' })
    const { token } = same.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 })
    const [p, body, mac] = token.split('.')
    const inflated = [p, Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), fuel: 1e9 })).toString('base64url'), mac].join('.')
    expect(await send(inflated)).toMatchObject({ status: 403, code: 'BUDGET_TOKEN_INVALID' })
    const first = await send(token)
    expect(first).toMatchObject({ status: 200, code: 'ran' })
    expect(same.readReceipt(first.receipt).id).toBe(same.verify(token).id)
    // Presented again after its run ended: not run twice, answered with the first receipt (test/codemode/budget-retry.test.ts).
    expect(await send(token)).toMatchObject({ status: 409, code: 'BUDGET_TOKEN_ANSWERED', receipt: first.receipt })
    // A spent token whose program is refused still gets its receipt: nothing used.
    const bad = await fetch(`${B}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': same.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 }).token }, body: JSON.stringify({ source: 'function f( {' }) })
    expect(bad.status).toBe(422)
    expect(same.readReceipt(bad.headers.get('x-ajs-budget-receipt'))).toMatchObject({ fuel: 10, used: 0 })
    const short = same.mint({ fuel: 10, exp: Date.now() + 50, depth: 1 }).token
    await Bun.sleep(80)
    expect(await send(short)).toMatchObject({ status: 403, code: 'BUDGET_TOKEN_EXPIRED' })
    const deep = new BudgetTokens({ key: KEY, maxDepth: 9 }).mint({ fuel: 10, exp: Date.now() + 60_000, depth: 3 }).token
    expect(await send(deep)).toMatchObject({ status: 422, code: 'BUDGET_TOKEN_DEPTH' })
    // A token with ?async=1 is refused (the receipt goes with a run answered now).
    const async = await fetch(`${B}/v1/runs?async=1`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': same.mint({ fuel: 1, exp: Date.now() + 60_000, depth: 1 }).token }, body: JSON.stringify({ source: CHILD, args: { n: 1 } }) })
    expect(async.status).toBe(400)
  }, 30_000)

  test('one seen-set per server: a token spent over HTTP is spent for budgetRun in a run, and the other way round', async () => {
    const same = new BudgetTokens({ key: KEY })
    const child = transpile(CHILD).ast
    const LOCAL = `function f({ token, child }) { try { return budgetRun({ agentId: child, input: { n: 3 }, token }) } catch (e) { return e.code } }`
    // Spent by POST /v1/runs (the HTTP side), then given to budgetRun in a run (a pool thread): refused.
    const http = same.mint({ fuel: 50, exp: Date.now() + 60_000, depth: 1 }).token
    expect((await runOn(B, 'b-token', CHILD, { n: 3 }, { 'x-ajs-budget': http })).status).toBe(200)
    expect(((await (await runOn(B, 'b-token', LOCAL, { token: http, child })).json()) as any).result).toBe('BUDGET_TOKEN_REPLAYED')
    // Spent by budgetRun in a run, then presented over HTTP: answered with the sub-run's receipt, not run again.
    const local = same.mint({ fuel: 50, exp: Date.now() + 60_000, depth: 1 }).token
    const sub = ((await (await runOn(B, 'b-token', LOCAL, { token: local, child })).json()) as any).result
    expect(sub.result).toEqual({ s: 3 })
    const again = await runOn(B, 'b-token', CHILD, { n: 3 }, { 'x-ajs-budget': local })
    expect(again.status).toBe(409)
    expect(((await again.json()) as any).error.code).toBe('BUDGET_TOKEN_ANSWERED')
    expect(again.headers.get('x-ajs-budget-receipt')).toBe(sub.receipt)
  }, 30_000)

  test('depth: A -> B -> A, and the third level cannot mint', async () => {
    // The grandchild (on A, depth 2) tries to mint a depth-3 token: refused, and catchable.
    const GRANDCHILD = `function g() { try { budgetToken({ fuel: 1 }); return 'minted' } catch (e) { return e.code } }`
    const MIDDLE = `function m({ url, auth, source }) {
      const token = budgetToken({ fuel: 50 })
      const res = httpFetch({ url: url + '/v1/runs', method: 'POST', body: { source },
        headers: { authorization: 'Bearer ' + auth, 'content-type': 'application/json', 'x-ajs-budget': token } })
      budgetSettle({ receipt: res.headers['x-ajs-budget-receipt'] })
      return res.body.result
    }`
    const res = await runOn(A, 'a-token', `function top({ b, a, middle, grandchild }) {
      const token = budgetToken({ fuel: 200 })
      const res = httpFetch({ url: b + '/v1/runs', method: 'POST', body: { source: middle, args: { url: a, auth: 'a-token', source: grandchild } },
        headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': token } })
      budgetSettle({ receipt: res.headers['x-ajs-budget-receipt'] })
      return res.body.result
    }`, { b: B, a: A, middle: MIDDLE, grandchild: GRANDCHILD })
    const out = await res.json() as any
    expect(out.error).toBeUndefined()
    expect(out.result).toBe('BUDGET_TOKEN_DEPTH')
  }, 30_000)

  test('ajs-lang/client sends the token and returns the receipt', async () => {
    const same = new BudgetTokens({ key: KEY })
    const { token, claims } = same.mint({ fuel: 40, exp: Date.now() + 60_000, depth: 1 })
    const vm = createRemoteVM({ url: B, token: 'b-token' })
    const r = await vm.run(CHILD, { n: 10 }, { budgetToken: token })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ s: 45 })
    expect(same.readReceipt(r.budgetReceipt)).toEqual({ id: claims.id, fuel: 40, used: r.fuelUsed })
    const again = await vm.run(CHILD, { n: 10 }, { budgetToken: token })
    expect(again.error?.code).toBe('BUDGET_TOKEN_ANSWERED')
    expect(again.budgetReceipt).toBe(r.budgetReceipt)
    // The token's quotas cap the child's calls on the server too.
    const capped = same.mint({ fuel: 40, exp: Date.now() + 60_000, depth: 1, quotas: { storeGet: 1 } }).token
    const q = await vm.run(`function f() { storeGet({ key: 'a' }); return storeGet({ key: 'b' }) }`, {}, { budgetToken: capped })
    expect(q.error?.code).toBe('QUOTA_EXCEEDED')
    expect(same.readReceipt(q.budgetReceipt).used).toBe(q.fuelUsed)
  }, 30_000)
})

describe('the serve config', () => {
  test('the docs\' budgetTokens example is accepted; bad keys and a missing key are refused with the config path', async () => {
    const doc = readFileSync(join(import.meta.dir, '../../docs/serve.md'), 'utf8')
    const example = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!)).find((j) => 'budgetTokens' in j)
    const tenants = [{ id: 't', tokenSha256: tokenSha256('t') }]
    expect(parseServeConfig({ tenants, ...example }).budgetTokens).toEqual({ keyEnv: 'AJS_BUDGET_TOKEN_KEY', maxDepth: 4, maxTtlMs: 3_600_000, maxSeen: 100_000, leaseGraceMs: 5_000 })
    expect(() => parseServeConfig({ tenants, budgetTokens: { leaseGraceMs: -1 } })).toThrow('config.budgetTokens.leaseGraceMs: must be a whole number >= 0')
    expect(() => parseServeConfig({ tenants, budgetTokens: { key: 'x' } })).toThrow('config.budgetTokens.key: unknown key')
    expect(() => parseServeConfig({ tenants, budgetTokens: { maxDepth: 0 } })).toThrow('config.budgetTokens.maxDepth: must be a whole number >= 1')
    await expect(createServer({ config: parseServeConfig({ tenants, budgetTokens: { keyEnv: 'AJS_NO_SUCH_KEY' } }), env: {}, pool: { size: 1 } }))
      .rejects.toThrow('config.budgetTokens.keyEnv: the environment variable AJS_NO_SUCH_KEY must hold')
    // A server without budgetTokens refuses a token: 501.
    const plain = await createServer({ config: parseServeConfig({ tenants }), pool: { size: 1 } })
    try {
      const r = await plain.app.inject({ method: 'POST', url: '/v1/runs', headers: { authorization: 'Bearer t', 'content-type': 'application/json', 'x-ajs-budget': 'ajsb1.x.y' }, payload: { source: CHILD } })
      expect(r.statusCode).toBe(501)
      expect(r.json().error.code).toBe('NOT_AVAILABLE')
    } finally {
      await plain.close()
    }
  }, 30_000)

  test('a config atoms module may not define the budget atoms (they would replace the server\'s own in runs)', async () => {
    const config = parseServeConfig({ tenants: [{ id: 't', tokenSha256: tokenSha256('t') }], atoms: [join(import.meta.dir, 'fixtures/budget-workflow-atoms.mjs')], budgetTokens: { keyEnv: KEY_ENV } })
    await expect(createServer({ config, env: { [KEY_ENV]: KEY }, pool: { size: 1 } })).rejects.toThrow('config.atoms: budgetToken: the budget atoms are the server\'s own')
  }, 30_000)
})
