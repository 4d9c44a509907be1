/**
 * Budget tokens in the workflows of `ajsc serve` (issue 25, follow-up): with
 * budgetTokens in its config, a workflow (POST /v1/workflows) mints a token,
 * hands it to another `ajsc serve` of the deployment through a custom atom of
 * the config, runs a procedure of its tenant locally under another
 * (budgetRun: the tenant's VM, its agent memory), and settles both receipts,
 * journaled by call site as in the library. With PostgreSQL, the server is killed while the workflow waits
 * and started again: the new process replays the journal without minting
 * again, calling the other server again or running the sub-run again, and
 * settles exactly what the children used. A server without budgetTokens refuses such a workflow (422 AJS3002)
 * with a hint naming the config key. Servers on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createServer, parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { transpile } from '../../src/index.ts'
import { killChildren, startAjsc } from '../server/ajsc-process.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'
import { workflowClient } from '../server/workflow-server.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
const KEY = 'serve-workflow-budget-key-0123456789abcdef'
process.env[KEY_ENV] = KEY
const ATOMS = resolve(import.meta.dir, 'fixtures/budget-serve-atoms.mjs')

const CHILD = 'function child({ n }) { let s = 0; for (let i = 0; i < n; i++) s += i; return s }'
/** The local sub-run (budgetRun, a procedure of the tenant): counts its runs in the tenant's agent memory. */
const LOCAL = `function local({ n }) {
  let s = 0
  for (let i = 0; i < n; i++) s += i
  storeSet({ key: 'runs', value: (storeGet({ key: 'runs' }) ?? 0) + 1 })
  return s
}`
const FLOW = `const token = await budgetToken({ fuel: 400 })
const child = await remoteRun({ source: ${JSON.stringify(CHILD)}, n: 50, token })
const local = await budgetToken({ fuel: 300 })
const sub = await budgetRun({ agentId: args.proc, input: { n: 20 }, token: local })
const go = await agent('settle?', { external: true })
const settled = await budgetSettle({ receipt: child.receipt })
const settledLocal = await budgetSettle({ receipt: sub.receipt })
let over = null
try { await budgetToken({ fuel: 1e12 }) } catch (e) { over = e.code }
export default { token, sum: child.result, childUsed: child.fuelUsed, error: child.error, settled, over, sub: sub.result, subError: sub.error ?? null, subUsed: sub.fuelUsed, settledLocal }
`

const children: ChildProcess[] = []
let dir: string
let B: string
const available = postgresAvailable()
let db: TestPostgres | undefined

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-serve-wf-'))
  writeFileSync(join(dir, 'b.json'), JSON.stringify({ tenants: [{ id: 'child', tokenSha256: tokenSha256('b-token') }], budgetTokens: { keyEnv: KEY_ENV } }))
  writeFileSync(join(dir, 'a.json'), JSON.stringify({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }], atoms: [ATOMS], budgetTokens: { keyEnv: KEY_ENV } }))
  B = (await startAjsc(['serve', '--config', join(dir, 'b.json'), '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)).match[1]!
  process.env.AJS_BUDGET_SERVE_URL = B
  if (available) db = await startPostgres()
}, 60_000)

afterAll(async () => {
  await killChildren(children)
  await db?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [])

/** Start A (the server whose workflows mint), logging its atom's calls to `log`. */
async function startA(log: string, database?: string): Promise<{ url: string; child: ChildProcess }> {
  process.env.AJS_BUDGET_SERVE_LOG = log
  const args = ['serve', '--config', join(dir, 'a.json'), '--port', '0', '--host', '127.0.0.1', '--pool-size', '1', ...(database ? ['--database', database] : [])]
  const a = await startAjsc(args, /listening on (http:\/\/\S+)/, children)
  return { url: a.match[1]!, child: a.child }
}

/** Store LOCAL as a procedure of tenant ops on `url`; its proc_ token. */
async function storeLocal(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/procedures`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body: JSON.stringify({ source: LOCAL }) })
  expect(res.status).toBe(201)
  return ((await res.json()) as { token: string }).token
}

/** How many times the local sub-run ran (tenant ops's agent memory, read by a run). */
async function localRuns(url: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body: JSON.stringify({ source: "function f() { return storeGet({ key: 'runs' }) }" }) })
  return ((await res.json()) as { result: unknown }).result
}

/** The workflow's outcome, checked as the library's: one mint, one call, settled exactly what the child used. */
function expectSettled(result: any, log: string[]) {
  // The local sub-run: ran on the tenant's VM (its procedure, its agent memory), settled exactly.
  expect(result.sub).toBe(190)
  expect(result.subError).toBeNull()
  expect(result.subUsed).toBeGreaterThan(0)
  expect(result.settledLocal).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 300, used: result.subUsed, returned: 300 - result.subUsed })
  const claims = new BudgetTokens({ key: KEY }).read(result.token)
  expect(result.sum).toBe(1225)
  expect(result.error).toBeNull()
  expect(result.childUsed).toBeGreaterThan(0)
  expect(result.settled).toEqual({ id: claims.id, fuel: 400, used: result.childUsed, returned: 400 - result.childUsed })
  expect(result.over).toBe('RANGE_ERROR')
  expect(log).toEqual([`call ${result.token}`, `answered ${result.childUsed}`])
}

describe('budget tokens in the workflows of ajsc serve', () => {
  test('a workflow mints a token, another server spends it, the workflow settles the receipt', async () => {
    const log = join(dir, 'memory.log')
    const a = await startA(log)
    const { req, until } = workflowClient(a.url, { tries: 400, intervalMs: 25 })
    const { status, json: started } = await req('POST', '/v1/workflows', { source: FLOW, args: { proc: await storeLocal(a.url) } })
    expect(status).toBe(201)
    const waiting = await until(started.id, (wf) => wf.state === 'waiting' || wf.state === 'failed')
    expect(waiting.state).toBe('waiting')
    expect((await req('POST', `/v1/workflows/${started.id}/requests/${waiting.requests[0].id}`, { value: true })).status).toBe(200)
    const done = await until(started.id, (wf) => wf.state === 'done' || wf.state === 'failed')
    expect(done.error).toBeUndefined()
    expectSettled(done.result, lines(log))
    // The journal holds both budget calls by call site, as the library's does.
    const journal = (await req('GET', `/v1/workflows/${started.id}/journal?limit=100`)).json
    expect(journal.entries.filter((e: any) => e.t === 'atom').map((e: any) => e.op)).toEqual(['budgetToken', 'remoteRun', 'budgetToken', 'budgetRun', 'budgetSettle', 'budgetSettle', 'budgetToken'])
    expect(await localRuns(a.url)).toBe(1)
    a.child.kill()
  }, 60_000)

  test.skipIf(!available)('PostgreSQL: the server killed while the workflow waits; the new process replays without minting or spending again', async () => {
    const log = join(dir, 'pg.log')
    const first = await startA(log, db!.url)
    const c1 = workflowClient(first.url, { tries: 400, intervalMs: 25 })
    const { json: started } = await c1.req('POST', '/v1/workflows', { source: FLOW, args: { proc: await storeLocal(first.url) } })
    const waiting = await c1.until(started.id, (wf) => wf.state === 'waiting' || wf.state === 'failed')
    expect(waiting.state).toBe('waiting')
    expect(lines(log)).toHaveLength(2) // minted and called B once
    first.child.kill('SIGKILL')
    await new Promise((ok) => first.child.once('exit', ok))
    const second = await startA(log, db!.url)
    const c2 = workflowClient(second.url, { tries: 400, intervalMs: 25 })
    expect((await c2.req('POST', `/v1/workflows/${started.id}/requests/${waiting.requests[0].id}`, { value: true })).status).toBe(200)
    const done = await c2.until(started.id, (wf) => wf.state === 'done' || wf.state === 'failed')
    expect(done.error).toBeUndefined()
    // The token is the one minted before the kill (journaled), B was called once, and the settlement is exact.
    expectSettled(done.result, lines(log))
    const journal = (await c2.req('GET', `/v1/workflows/${started.id}/journal?limit=100`)).json
    const minted = journal.entries.filter((e: any) => e.t === 'atom' && e.op === 'budgetToken')
    expect(minted[0].resolution.Ok).toBe(done.result.token)
    expect(await localRuns(second.url)).toBe(1) // the journaled sub-run did not run again
  }, 90_000)

  test('a sub-run past the tenant\'s time limit is stopped with the step, in its thread (not terminated)', async () => {
    const server = await createServer({
      config: parseServeConfig({ tenants: [{ id: 'capped', tokenSha256: tokenSha256('c'), limits: { fuelPerRun: 1_000_000_000, timeoutMs: 300 } }], budgetTokens: { keyEnv: KEY_ENV } }),
      env: { [KEY_ENV]: KEY }, pool: { size: 1 },
    })
    try {
      const { req, until } = workflowClient(await server.listen({ port: 0, host: '127.0.0.1' }), { tries: 400, intervalMs: 25 })
      const recycled = server.pool.workflows.recycled
      const loop = transpile('function loop() { let i = 0; while (true) { i++ } }').ast
      const source = 'const t = await budgetToken({ fuel: 900000000 })\nexport default await budgetRun({ agentId: args.loop, input: {}, token: t })\n'
      // The tenant's 300 ms also bounds compiling the module, in the pool's thread: on a busy machine the first
      // compile in a cold thread can take longer (422 TIMEOUT, no id; it failed one clean-clone CI run so).
      // A refused compile is not kept, so the next attempt compiles again, in a warm thread.
      let answer = await req('POST', '/v1/workflows', { source, args: { loop } }, 'c')
      for (let i = 0; i < 3 && answer.status === 422 && answer.json?.error?.code === 'TIMEOUT'; i++) answer = await req('POST', '/v1/workflows', { source, args: { loop } }, 'c')
      expect([answer.status, answer.json?.error]).toEqual([201, undefined])
      const started = answer.json
      const wf = await until(started.id, (w) => w.state === 'done' || w.state === 'failed', 'c')
      expect(wf.state).toBe('failed')
      expect(wf.error.cause.code).toBe('TIMEOUT')
      // The sub-run was stopped with the step (the step's stop reaches it: its abort signal, and the interrupt it
      // shares) and its value was not journaled; the thread did not have to be terminated.
      expect(wf.error.message).toContain('its execution was stopped')
      expect(server.pool.workflows.recycled).toBe(recycled)
      const journal = (await req('GET', `/v1/workflows/${started.id}/journal?limit=100`, undefined, 'c')).json
      expect(journal.entries.filter((e: any) => e.t === 'atom').map((e: any) => e.op)).toEqual(['budgetToken'])
      // Retried: the call is repeated with the journaled token and answered with the stopped sub-run's receipt.
      expect((await req('POST', `/v1/workflows/${started.id}/retry`, {}, 'c')).status).toBe(200)
      const retried = await until(started.id, (w) => w.state === 'done' || (w.state === 'failed' && w.updatedAt > wf.updatedAt), 'c')
      expect(retried.state).toBe('done')
      expect(retried.result).toMatchObject({ result: null, error: { code: 'BUDGET_TOKEN_ANSWERED' }, receipt: expect.stringMatching(/^ajsr1\./) })
      expect(retried.result.fuelUsed).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  }, 30_000)

  test('a server without budgetTokens refuses a workflow calling budgetToken: 422 AJS3002, the hint names the config key', async () => {
    const plain = await createServer({ config: parseServeConfig({ tenants: [{ id: 't', tokenSha256: tokenSha256('t') }] }), pool: { size: 1 } })
    try {
      const r = await plain.app.inject({ method: 'POST', url: '/v1/workflows', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, payload: { source: 'const t = await budgetToken({ fuel: 5 })\nexport default t\n' } })
      expect(r.statusCode).toBe(422)
      expect(r.json().error).toMatchObject({ code: 'AJS3002', hint: expect.stringContaining('when the serve config has "budgetTokens"') })
    } finally {
      await plain.close()
    }
  }, 30_000)
})
