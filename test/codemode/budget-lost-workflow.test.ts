/**
 * budgetRun in a workflow of `ajsc serve` (PostgreSQL) whose server is killed with SIGKILL while the
 * sub-run waits on an HTTP server of this test: no receipt is kept. A second process of the deployment
 * takes the workflow over once the first stops heartbeating and replays it; the repeated budgetRun
 * finds the spend's lease passed (the sub-run's time limit is the tenant's limits.timeoutMs, plus
 * budgetTokens.leaseGraceMs) and is answered BUDGET_TOKEN_LOST with a receipt of the whole grant,
 * which the workflow settles (nothing comes back); the sub-run is not run again. No timings are
 * asserted: the takeover comes after a node is dead for 5 s, the lease ends 2 s after the spend.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { createServer as httpServer, type ServerResponse } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { killChildren, startAjsc } from '../server/ajsc-process.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'
import { workflowClient } from '../server/workflow-server.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
process.env[KEY_ENV] = 'lost-workflow-budget-key-0123456789abcdef'
const children: ChildProcess[] = []
let dir: string
let db: TestPostgres | undefined

const held: ServerResponse[] = []
let heard = 0
const hold = httpServer((_req, res) => { heard++; held.push(res) })
let HOLD: string

const LOCAL = 'function local({ url }) { return httpFetch({ url }).body }'
const FLOW = `const token = await budgetToken({ fuel: 5000 })
const sub = await budgetRun({ agentId: args.proc, input: { url: args.url }, token })
export default { error: sub.error?.code ?? null, used: sub.fuelUsed, settled: await budgetSettle({ receipt: sub.receipt }) }
`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-lost-wf-'))
  await new Promise<void>((ok) => hold.listen(0, '127.0.0.1', ok))
  HOLD = `http://127.0.0.1:${(hold.address() as { port: number }).port}/`
})

afterAll(async () => {
  await killChildren(children)
  for (const res of held.splice(0)) res.destroy()
  hold.close()
  await db?.stop()
  rmSync(dir, { recursive: true, force: true })
})

test.skipIf(!postgresAvailable())('a server killed mid-sub-run: the workflow, taken over by another process, gets BUDGET_TOKEN_LOST and settles the whole grant; the sub-run is not run again', async () => {
  db = await startPostgres()
  const cfg = join(dir, 'a.json')
  writeFileSync(cfg, JSON.stringify({
    tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token'), limits: { timeoutMs: 2_000 }, capabilities: { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } } }],
    budgetTokens: { keyEnv: KEY_ENV, leaseGraceMs: 0 },
  }))
  const serve = async () => (await startAjsc(['serve', '--config', cfg, '--database', db!.url, '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children))
  const first = await serve()
  const url = first.match[1]!
  const stored = await fetch(`${url}/v1/procedures`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body: JSON.stringify({ source: LOCAL }) })
  expect(stored.status).toBe(201)
  const proc = ((await stored.json()) as { token: string }).token
  const c1 = workflowClient(url, { tries: 400, intervalMs: 25 })
  const { status, json: started } = await c1.req('POST', '/v1/workflows', { source: FLOW, args: { proc, url: HOLD } })
  expect(status).toBe(201)
  for (let i = 0; i < 400 && heard === 0; i++) await Bun.sleep(10)
  expect(heard).toBe(1) // the sub-run is in flight
  first.child.kill('SIGKILL')
  await new Promise((ok) => first.child.once('exit', ok))

  const second = (await serve()).match[1]!
  const c2 = workflowClient(second, { tries: 1_200, intervalMs: 25 })
  const done = await c2.until(started.id, (wf) => wf.state === 'done' || wf.state === 'failed')
  expect(done.error).toBeUndefined()
  expect(done.result).toEqual({ error: 'BUDGET_TOKEN_LOST', used: 5000, settled: { id: expect.stringMatching(/^bt_/), fuel: 5000, used: 5000, returned: 0 } })
  expect(heard).toBe(1) // not run again
}, 90_000)
