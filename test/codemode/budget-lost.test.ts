/**
 * A budget token whose server died mid-run (PostgreSQL mode, two `ajsc serve` processes of one
 * deployment): the first process is killed with SIGKILL while its run waits on an HTTP server of this
 * test, so it keeps no receipt. A retry on the second process is in flight, with Retry-After: when the
 * spend's lease (the tenant's limits.timeoutMs + budgetTokens.leaseGraceMs, short here) ends. Retried
 * after that long, it is answered 409 BUDGET_TOKEN_LOST with a receipt of the whole grant, which the
 * parent settles, and the child is not run again. No timings are asserted: the client waits as long
 * as Retry-After says, and the answer after that wait must not be in flight.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { createServer as httpServer, type ServerResponse } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { killChildren, startAjsc } from '../server/ajsc-process.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'

const KEY = 'test-deployment-budget-key-0123456789abcdef'
const TIMEOUT_MS = 3_000 // the first run must still be going when the test kills its server, on a loaded machine too
const GRACE_MS = 500
const children: ChildProcess[] = []
let dir: string
let db: TestPostgres | undefined

/** Holds every request (never answered): the child run is in flight until its server dies. */
const held: ServerResponse[] = []
let heard = 0
const hold = httpServer((_req, res) => { heard++; held.push(res) })
let HOLD: string

const CHILD = `function child({ url }) {
  const r = httpFetch({ url })
  return { ok: r.body.ok }
}`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-lost-'))
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

const send = async (url: string, token: string) => {
  const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': token }, body: JSON.stringify({ source: CHILD, args: { url: HOLD } }) })
  return { status: res.status, body: await res.json() as any, receipt: res.headers.get('x-ajs-budget-receipt'), retryAfter: res.headers.get('retry-after') }
}

test.skipIf(!postgresAvailable())('a server killed mid-run: a retry on another is in flight until the lease ends, then answered BUDGET_TOKEN_LOST with a receipt of the whole grant; nothing runs twice', async () => {
  db = await startPostgres()
  const cfg = join(dir, 'b.json')
  writeFileSync(cfg, JSON.stringify({
    tenants: [{ id: 'child', tokenSha256: tokenSha256('b-token'), limits: { timeoutMs: TIMEOUT_MS }, capabilities: { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } } }],
    budgetTokens: { keyEnv: 'AJS_TEST_BUDGET_KEY', leaseGraceMs: GRACE_MS },
  }))
  process.env.AJS_TEST_BUDGET_KEY = KEY
  const serve = () => startAjsc(['serve', '--config', cfg, '--database', db!.url, '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)
  const one = await serve()
  const two = (await serve()).match[1]!

  const tokens = new BudgetTokens({ key: KEY })
  const { token, claims } = tokens.mint({ fuel: 2000, exp: Date.now() + 60_000, depth: 1, quotas: { httpFetch: 3 } })
  const first = send(one.match[1]!, token).catch((e) => e) // its server dies: no answer
  for (let i = 0; i < 400 && heard === 0; i++) await Bun.sleep(25)
  expect(heard).toBe(1)

  // While the first run goes on: in flight, told when to come back (within the lease: 3.5 s).
  const during = await send(two, token)
  expect(during).toMatchObject({ status: 409, receipt: null, body: { error: { code: 'BUDGET_TOKEN_IN_FLIGHT', hint: expect.stringContaining('Retry-After') } } })
  expect(Number(during.retryAfter)).toBeGreaterThanOrEqual(1)
  expect(Number(during.retryAfter)).toBeLessThanOrEqual(Math.ceil((TIMEOUT_MS + GRACE_MS) / 1000))

  one.child.kill('SIGKILL')
  await new Promise((r) => one.child.once('exit', r))
  expect(await first).toBeInstanceOf(Error)

  // The client waits as Retry-After says (each answer in flight says how long, bounded), then gets the answer.
  let answer = during
  for (let i = 0; i < 10 && answer.body.error?.code === 'BUDGET_TOKEN_IN_FLIGHT'; i++) {
    await Bun.sleep(Number(answer.retryAfter) * 1000)
    answer = await send(two, token)
    // One wait as long as Retry-After said is enough.
    expect(answer.body.error?.code).not.toBe('BUDGET_TOKEN_IN_FLIGHT')
  }
  expect(answer).toMatchObject({ status: 409, retryAfter: null, body: { error: { code: 'BUDGET_TOKEN_LOST', hint: expect.stringContaining('budgetSettle') } } })
  expect(tokens.readReceipt(answer.receipt)).toEqual({ id: claims.id, fuel: 2000, used: 2000, calls: { httpFetch: 3 } })

  // Every later retry, on any live process, is answered alike; the child never ran again.
  const three = (await serve()).match[1]!
  for (const url of [two, three]) expect(await send(url, token)).toMatchObject({ status: 409, receipt: answer.receipt, body: { error: { code: 'BUDGET_TOKEN_LOST' } } })
  expect(heard).toBe(1)
}, 90_000)
