/**
 * A budget token presented again to `ajsc serve` (issue 25, follow-up): a
 * client that lost its answer retries with the same token. While the first
 * run is in flight the retry is refused (409 BUDGET_TOKEN_IN_FLIGHT); once it
 * has ended, the retry is answered with that run's signed receipt (409
 * BUDGET_TOKEN_ANSWERED, header x-ajs-budget-receipt), and nothing runs twice.
 * So a durable workflow whose call was in flight at a crash settles exactly
 * what the child used. The server runs as a process on 127.0.0.1; its child
 * program waits on an HTTP server of this test, released by the test. With
 * PostgreSQL, two server processes share the spent tokens: a retry on the
 * other one is in flight, then answered with the first receipt.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { ChildProcess } from 'node:child_process'
import { createServer as httpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineAtom, s } from '../../src/index.ts'
import { tokenSha256 } from '../../src/server/index.ts'
import { BudgetTokens, workflowBudgetAtoms } from '../../src/codemode/index.ts'
import { createRemoteVM } from '../../src/client/index.ts'
import { MemoryJournalStore, resumeWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { killChildren, startAjsc } from '../server/ajsc-process.ts'
import { postgresAvailable, startPostgres } from '../server/postgres.ts'
import { drive } from '../workflows/helpers.ts'

const KEY = 'test-deployment-budget-key-0123456789abcdef'
const children: ChildProcess[] = []
let dir: string
let B: string

/** Holds every request until released: the child run on B is in flight meanwhile. */
const held: ServerResponse[] = []
let heard = 0
const hold = httpServer((_req: IncomingMessage, res: ServerResponse) => { heard++; held.push(res) })
let HOLD: string
const release = () => { for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}') }

const CHILD = `function child({ url }) {
  const r = httpFetch({ url })
  let s = 0
  for (let i = 0; i < 50; i++) s += i
  return { ok: r.body.ok, s }
}`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-budget-retry-'))
  await new Promise<void>((ok) => hold.listen(0, '127.0.0.1', ok))
  HOLD = `http://127.0.0.1:${(hold.address() as { port: number }).port}/`
  const cfg = join(dir, 'b.json')
  writeFileSync(cfg, JSON.stringify({
    tenants: [{ id: 'child', tokenSha256: tokenSha256('b-token'), capabilities: { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } } }],
    budgetTokens: { keyEnv: 'AJS_TEST_BUDGET_KEY' },
  }))
  process.env.AJS_TEST_BUDGET_KEY = KEY
  B = (await startAjsc(['serve', '--config', cfg, '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, children)).match[1]!
}, 60_000)

afterAll(() => {
  release()
  hold.close()
  for (const c of children) c.kill()
  rmSync(dir, { recursive: true, force: true })
})

/** Until `cond` holds (bounded: 200 × 25 ms). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await Bun.sleep(25)
  expect(cond()).toBe(true)
}

const send = async (token: string, url = B) => {
  const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': token }, body: JSON.stringify({ source: CHILD, args: { url: HOLD } }) })
  return { status: res.status, body: await res.json() as any, receipt: res.headers.get('x-ajs-budget-receipt'), retryAfter: res.headers.get('retry-after') }
}

describe.skipIf(!postgresAvailable())('a retried budget token across processes (PostgreSQL)', () => {
  test('spent on one process: in flight, then answered with its receipt on another', async () => {
    const db = await startPostgres()
    const procs: ChildProcess[] = []
    try {
      const cfg = join(dir, 'b.json')
      const serve = async () => (await startAjsc(['serve', '--config', cfg, '--database', db.url, '--port', '0', '--host', '127.0.0.1', '--pool-size', '1'], /listening on (http:\/\/\S+)/, procs)).match[1]!
      const one = await serve()
      const two = await serve()
      const tokens = new BudgetTokens({ key: KEY })
      const { token } = tokens.mint({ fuel: 2000, exp: Date.now() + 60_000, depth: 1 })
      const before = heard
      const first = send(token, one)
      await until(() => heard === before + 1)
      expect(await send(token, two)).toMatchObject({ status: 409, receipt: null, body: { error: { code: 'BUDGET_TOKEN_IN_FLIGHT' } } })
      release()
      const done = await first
      expect(done.status).toBe(200)
      expect(await send(token, two)).toMatchObject({ status: 409, receipt: done.receipt, body: { error: { code: 'BUDGET_TOKEN_ANSWERED' } } })
      expect(heard).toBe(before + 1)
    } finally {
      await killChildren(procs)
      await db.stop()
    }
  }, 90_000)
})

describe('a retried budget token', () => {
  test('in flight: refused (IN_FLIGHT, no receipt); ended: answered with the first receipt, never run twice', async () => {
    const tokens = new BudgetTokens({ key: KEY })
    const { token, claims } = tokens.mint({ fuel: 2000, exp: Date.now() + 60_000, depth: 1 })
    const before = heard
    const first = send(token)
    await until(() => heard === before + 1)
    const during = await send(token)
    expect(during).toMatchObject({ status: 409, receipt: null, body: { error: { code: 'BUDGET_TOKEN_IN_FLIGHT', hint: expect.stringContaining('Retry-After') } } })
    // When the lease ends: the tenant's limits.timeoutMs (30 s) + leaseGraceMs (5 s), well before the token's deadline (60 s).
    expect(Number(during.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(during.retryAfter)).toBeLessThanOrEqual(35)
    release()
    const done = await first
    expect(done.status).toBe(200)
    expect(done.body.result).toEqual({ ok: true, s: 1225 })
    expect(tokens.readReceipt(done.receipt)).toEqual({ id: claims.id, fuel: 2000, used: done.body.fuelUsed })
    for (let i = 0; i < 2; i++) {
      const retry = await send(token)
      expect(retry).toMatchObject({ status: 409, receipt: done.receipt, body: { error: { code: 'BUDGET_TOKEN_ANSWERED', hint: expect.stringContaining('budgetSettle') } } })
    }
    expect(heard).toBe(before + 1)
  }, 30_000)

  test('a refused program\'s receipt (nothing used) is the one a retry gets', async () => {
    const tokens = new BudgetTokens({ key: KEY })
    const { token } = tokens.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 })
    const post = () => fetch(`${B}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer b-token', 'content-type': 'application/json', 'x-ajs-budget': token }, body: JSON.stringify({ source: 'function f( {' }) })
    const bad = await post()
    expect(bad.status).toBe(422)
    const again = await post()
    expect(again.status).toBe(409)
    expect(again.headers.get('x-ajs-budget-receipt')).toBe(bad.headers.get('x-ajs-budget-receipt'))
    expect(tokens.readReceipt(again.headers.get('x-ajs-budget-receipt'))).toMatchObject({ used: 0 })
  }, 30_000)

  test('a workflow whose call was in flight at a crash resends the token on resume and settles exactly what the child used', async () => {
    const parent = new BudgetTokens({ key: KEY })
    const vm = createRemoteVM({ url: B, token: 'b-token' })
    const answers: Array<{ code: string | null; fuelUsed: number; receipt?: string; retryAfter?: number }> = []
    // The host's atom that calls B: a retry while the first run is in flight waits for it (bounded).
    const remoteRun = defineAtom('remoteRun', s.object({ token: s.string }), undefined, async ({ token }: { token: string }) => {
      for (let i = 0; ; i++) {
        const r = await vm.run(CHILD, { url: HOLD }, { budgetToken: token })
        const retryAfter = (r.error as { retryAfter?: number } | undefined)?.retryAfter
        const answer = { code: r.error?.code ?? null, fuelUsed: r.fuelUsed, ...(r.budgetReceipt ? { receipt: r.budgetReceipt } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) }
        answers.push(answer)
        if (answer.code !== 'BUDGET_TOKEN_IN_FLIGHT' || i >= 100) return answer
        await Bun.sleep(50)
      }
    }, { timeoutMs: 0 })
    const atoms = [...workflowBudgetAtoms(parent), remoteRun]
    const src = `const token = await budgetToken({ fuel: 3000 })
const child = await remoteRun({ token })
export default { code: child.code, settled: await budgetSettle({ receipt: child.receipt }) }
`
    const store = new MemoryJournalStore()
    const before = heard
    const first = startWorkflow(src, { atoms, store, executionId: 'wf-retry' })
    void first.poll()
    await until(() => heard === before + 1)
    first.dispose() // the crash: the journal holds the token, not the call's answer
    const again = await resumeWorkflow(src, store.read('wf-retry'), { atoms, store, executionId: 'wf-retry' })
    const resumed = drive(again, () => ({ Ok: 'ok' }))
    await until(() => answers.some((a) => a.code === 'BUDGET_TOKEN_IN_FLIGHT'))
    // The client hands on when to retry (Retry-After, seconds): within the lease, not the token's deadline.
    expect(answers.find((a) => a.code === 'BUDGET_TOKEN_IN_FLIGHT')!.retryAfter).toBeWithin(1, 36)
    release() // the first run on B ends
    const out = (await resumed).result as any
    const firstAnswer = answers.find((a) => a.code === null)!
    expect(firstAnswer.fuelUsed).toBeGreaterThan(0)
    expect(out.code).toBe('BUDGET_TOKEN_ANSWERED')
    expect(out.settled).toEqual({ id: expect.stringMatching(/^bt_/), fuel: 3000, used: firstAnswer.fuelUsed, returned: 3000 - firstAnswer.fuelUsed })
    expect(answers.at(-1)!.receipt).toBe(firstAnswer.receipt)
    expect(heard).toBe(before + 1) // B ran the child once
  }, 60_000)
})
