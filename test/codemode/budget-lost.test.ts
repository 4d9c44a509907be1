/**
 * A budget token whose server died mid-run (PostgreSQL mode, `ajsc serve` processes of one
 * deployment): the first process is killed with SIGKILL while its run waits on an HTTP server of this
 * test, so it keeps no receipt.
 *
 * - POST /v1/runs: a retry on a second process is in flight, with Retry-After: when the spend's lease
 *   (the tenant's limits.timeoutMs + budgetTokens.leaseGraceMs, short here) ends. Retried after that
 *   long, it is answered 409 BUDGET_TOKEN_LOST with a receipt of the whole grant, on every process
 *   alike, and the child is not run again.
 * - budgetRun in a workflow: a second process takes the workflow over once the first stops
 *   heartbeating (5 s) and replays it; the repeated budgetRun finds the lease passed (the sub-run's
 *   time limit is the tenant's limits.timeoutMs) and gets BUDGET_TOKEN_LOST, which the workflow
 *   settles (nothing comes back); the sub-run is not run again.
 *
 * No timings are asserted: the client waits as long as Retry-After says, and the answer after that
 * wait must not be in flight; the takeover comes 4 s or more after the kill, the lease 2 s after the spend.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { killChildren, startAjsc } from '../server/ajsc-process.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'
import { workflowClient } from '../server/workflow-server.ts'
import { holdingServer, type HoldingServer } from './holding-server.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
const KEY = 'test-deployment-budget-key-0123456789abcdef'
process.env[KEY_ENV] = KEY
const available = postgresAvailable()
const children: ChildProcess[] = []
let dir: string
let db: TestPostgres | undefined
let hold: HoldingServer

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-lost-'))
  hold = await holdingServer()
  if (available) db = await startPostgres()
}, 60_000)

afterAll(async () => {
  await killChildren(children)
  hold?.close()
  await db?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const fetchAnywhere = { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } }

/** `ajsc serve` on the test's database with one tenant (`limits.timeoutMs`) and budgetTokens ({ leaseGraceMs }). */
function serveWith(name: string, tenant: { id: string; token: string; timeoutMs: number }, leaseGraceMs: number): () => Promise<{ url: string; child: ChildProcess }> {
  const cfg = join(dir, `${name}.json`)
  writeFileSync(cfg, JSON.stringify({
    tenants: [{ id: tenant.id, tokenSha256: tokenSha256(tenant.token), limits: { timeoutMs: tenant.timeoutMs }, capabilities: fetchAnywhere }],
    budgetTokens: { keyEnv: KEY_ENV, leaseGraceMs },
  }))
  return async () => {
    const p = await startAjsc(['serve', '--config', cfg, '--database', db!.url, '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)
    return { url: p.match[1]!, child: p.child }
  }
}

/** ajs_budget_tokens_lost_total of a tenant as that tenant scrapes it (0: no line). */
async function lostCounted(url: string, tenant: string, token: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
  const m = new RegExp(`^ajs_budget_tokens_lost_total\\{tenant="${tenant}"\\} (\\d+)$`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

/** SIGKILL, once `hold` has heard `n` requests (the run is in flight); resolves when the process is gone. */
async function killWhenHeard(child: ChildProcess, n: number): Promise<void> {
  for (let i = 0; i < 400 && hold.heard() < n; i++) await Bun.sleep(10)
  expect(hold.heard()).toBe(n)
  child.kill('SIGKILL')
  await new Promise((ok) => child.once('exit', ok))
}

describe.skipIf(!available)('a budget token whose server was killed mid-run', () => {
  const TIMEOUT_MS = 3_000 // the first run must still be going when the test kills its server, on a loaded machine too
  const GRACE_MS = 500
  const CHILD = 'function child({ url }) { return httpFetch({ url }).body }'
  const send = async (url: string, token: string) => {
    const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': token }, body: JSON.stringify({ source: CHILD, args: { url: hold.url } }) })
    return { status: res.status, body: await res.json() as any, receipt: res.headers.get('x-ajs-budget-receipt'), retryAfter: res.headers.get('retry-after') }
  }

  test('POST /v1/runs: a retry on another process is in flight until the lease ends, then BUDGET_TOKEN_LOST with a receipt of the whole grant; nothing runs twice', async () => {
    const serve = serveWith('runs', { id: 'child', token: 'b-token', timeoutMs: TIMEOUT_MS }, GRACE_MS)
    const one = await serve()
    const two = (await serve()).url
    const tokens = new BudgetTokens({ key: KEY })
    const { token, claims } = tokens.mint({ fuel: 2000, exp: Date.now() + 60_000, depth: 1, quotas: { httpFetch: 3 } })
    const before = hold.heard()
    const first = send(one.url, token).catch((e) => e) // its server dies: no answer
    for (let i = 0; i < 400 && hold.heard() === before; i++) await Bun.sleep(10)

    // While the first run goes on: in flight, told when to come back (within the lease: 3.5 s).
    const during = await send(two, token)
    expect(during).toMatchObject({ status: 409, receipt: null, body: { error: { code: 'BUDGET_TOKEN_IN_FLIGHT', hint: expect.stringContaining('Retry-After') } } })
    expect(Number(during.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(during.retryAfter)).toBeLessThanOrEqual(Math.ceil((TIMEOUT_MS + GRACE_MS) / 1000))
    await killWhenHeard(one.child, before + 1)
    expect(await first).toBeInstanceOf(Error)

    // The client waits as long as Retry-After says: then the answer is no longer in flight.
    await Bun.sleep(Number(during.retryAfter) * 1000)
    const answer = await send(two, token)
    expect(answer).toMatchObject({ status: 409, retryAfter: null, body: { error: { code: 'BUDGET_TOKEN_LOST', hint: expect.stringContaining('budgetSettle') } } })
    expect(tokens.readReceipt(answer.receipt)).toEqual({ id: claims.id, fuel: 2000, used: 2000, calls: { httpFetch: 3 } })

    // Every later retry, on any live process, is answered alike; the child never ran again.
    const three = (await serve()).url
    for (const url of [two, three]) expect(await send(url, token)).toMatchObject({ status: 409, receipt: answer.receipt, body: { error: { code: 'BUDGET_TOKEN_LOST' } } })
    expect(hold.heard()).toBe(before + 1)
    // Counted once, by the process whose retry reached the verdict.
    expect([await lostCounted(two, 'child', 'b-token'), await lostCounted(three, 'child', 'b-token')]).toEqual([1, 0])
    await killChildren(children) // they would take the next test's workflow jobs (its tenant is not theirs)
  }, 90_000)

  test('budgetRun in a workflow: taken over by another process, it gets BUDGET_TOKEN_LOST and settles the whole grant; the sub-run is not run again', async () => {
    const serve = serveWith('workflows', { id: 'ops', token: 'ops-token', timeoutMs: 2_000 }, 0)
    const first = await serve()
    const stored = await fetch(`${first.url}/v1/procedures`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body: JSON.stringify({ source: CHILD }) })
    expect(stored.status).toBe(201)
    const proc = ((await stored.json()) as { token: string }).token
    const flow = `const token = await budgetToken({ fuel: 5000 })
const sub = await budgetRun({ agentId: args.proc, input: { url: args.url }, token })
export default { error: sub.error?.code ?? null, used: sub.fuelUsed, settled: await budgetSettle({ receipt: sub.receipt }) }
`
    const before = hold.heard()
    const { status, json: started } = await workflowClient(first.url).req('POST', '/v1/workflows', { source: flow, args: { proc, url: hold.url } })
    expect(status).toBe(201)
    await killWhenHeard(first.child, before + 1)

    const second = await serve()
    const done = await workflowClient(second.url, { tries: 1_200, intervalMs: 25 }).until(started.id, (wf) => wf.state === 'done' || wf.state === 'failed')
    expect(done.error).toBeUndefined()
    expect(done.result).toEqual({ error: 'BUDGET_TOKEN_LOST', used: 5000, settled: { id: expect.stringMatching(/^bt_/), fuel: 5000, used: 5000, returned: 0 } })
    expect(hold.heard()).toBe(before + 1) // not run again
    // The workflow thread's verdict is counted by its process, as the workflow's tenant's.
    expect(await lostCounted(second.url, 'ops', 'ops-token')).toBe(1)
  }, 90_000)
})
