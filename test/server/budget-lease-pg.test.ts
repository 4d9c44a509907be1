/**
 * Budget tokens' leases in a PostgreSQL-backed `ajsc serve` (two processes of one deployment, in this
 * test's process, on a throwaway cluster):
 *
 * - The lease is renewed when the run starts: a run whose admission waited on the database longer than
 *   budgetTokens.leaseGraceMs (here: the procedures table locked by the test, so reading its stored
 *   program waits) is in flight for a retry past the claim's lease, not lost; a run whose lease a retry
 *   found passed before it started is not started, and its request gets the retry's answer.
 * - A lost verdict is final in the database (migration 9): the unguarded UPDATE of a process from
 *   before migration 8 does not change a lost row.
 * - ajs_budget_tokens_lost_total counts a token once, on the process whose retry reached the verdict.
 *
 * No timings are asserted: the test reads the leases from the table and waits past them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import pg from 'pg'
import { BudgetTokens, MemorySeenTokens } from '../../src/codemode/index.ts'
import { PgSeenTokens, renewRequestLease } from '../../src/server/budget.ts'
import { createServer, parseServeConfig, startServe, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { holdingServer, type HoldingServer } from '../codemode/holding-server.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'

const KEY_ENV = 'AJS_TEST_BUDGET_KEY'
const KEY = 'test-deployment-budget-key-0123456789abcdef'
const env = { [KEY_ENV]: KEY }
const TIMEOUT_MS = 4_000
const GRACE_MS = 200
const CHILD = 'function child({ url }) { return httpFetch({ url }).body }'
const config = parseServeConfig({
  tenants: [{ id: 'child', tokenSha256: tokenSha256('c-token'), limits: { timeoutMs: TIMEOUT_MS }, capabilities: { fetch: { allowedHosts: ['127.0.0.1'], allowPrivateHosts: ['127.0.0.1'] } } }],
  budgetTokens: { keyEnv: KEY_ENV, leaseGraceMs: GRACE_MS },
  operatorTokenSha256: tokenSha256('token-operator'),
})
const tokens = new BudgetTokens({ key: KEY })

const available = postgresAvailable()
let db: TestPostgres | undefined
let sql: pg.Pool
let hold: HoldingServer
const servers: AjsServer[] = []
let one: string
let two: string

beforeAll(async () => {
  hold = await holdingServer()
  if (!available) return
  db = await startPostgres()
  sql = new pg.Pool({ connectionString: db.url, max: 3 })
  sql.on('error', () => {}) // the cluster stops at the end
  for (let i = 0; i < 2; i++) {
    const server = await startServe({ config, database: db.url, pool: { size: 1 }, jobConcurrency: 0, env })
    servers.push(server)
    const url = await server.listen({ port: 0 })
    if (i === 0) one = url
    else two = url
  }
}, 60_000)

afterAll(async () => {
  hold.close()
  for (const s of servers) await s.close()
  await sql?.end()
  await db?.stop()
})

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: 'Bearer c-token', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() as any, receipt: res.headers.get('x-ajs-budget-receipt'), retryAfter: res.headers.get('retry-after') }
}

/** The stored child program (its token): a run of it waits on the holding server until released. */
async function storedChild(url: string): Promise<string> {
  const r = await post(url, '/v1/procedures', { source: CHILD })
  expect(r.status).toBe(201)
  return r.body.token
}

const runWith = (url: string, token: string, proc: string, options?: { timeoutMs: number }) =>
  post(url, '/v1/runs', { token: proc, args: { url: hold.url }, ...(options ? { options } : {}) }, { 'x-ajs-budget': token })

/** ajs_budget_tokens_lost_total of the tenant on a server (0: no line yet). */
async function lostCounted(url: string, tenant = 'child'): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer token-operator' } })).text()
  const m = new RegExp(`^ajs_budget_tokens_lost_total\\{tenant="${tenant}"\\} (\\d+)$`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

/** The lease recorded for a token once its claim is in the table (bounded wait), and until it passes `after`. */
async function leaseOf(id: string, after = 0): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const row = (await sql.query('SELECT running_until FROM ajs.budget_tokens_seen WHERE id = $1', [id])).rows[0]
    if (row && Number(row.running_until) > after) return Number(row.running_until)
    await Bun.sleep(10)
  }
  throw new Error(`no lease of ${id} past ${after}`)
}

async function sleepUntil(at: number): Promise<void> {
  const ms = at - Date.now()
  if (ms > 0) await Bun.sleep(ms)
}

/** The procedures table locked by a transaction of the test: a run of a stored program waits in its admission until `release`. */
async function lockProcedures(): Promise<{ release(): Promise<void> }> {
  const client = await sql.connect()
  await client.query('BEGIN')
  await client.query('LOCK TABLE ajs.procedures IN ACCESS EXCLUSIVE MODE')
  return { async release() { await client.query('COMMIT'); client.release() } }
}

describe.skipIf(!available)('the lease is renewed when the run starts', () => {
  test('a run whose admission waited longer than leaseGraceMs is in flight, not lost, for a retry past the claim\'s lease', async () => {
    const proc = await storedChild(one)
    const { token, claims } = tokens.mint({ fuel: 5000, exp: Date.now() + 60_000, depth: 1 })
    const lostBefore = await lostCounted(one) + await lostCounted(two)
    const heard = hold.heard()
    const lock = await lockProcedures()
    const first = runWith(one, token, proc)
    const claimed = await leaseOf(claims.id)
    await Bun.sleep(3 * GRACE_MS) // the run waits to be admitted, longer than the grace
    await lock.release()
    // Started: the lease runs from now, with the run's whole time limit.
    const renewed = await leaseOf(claims.id, claimed)
    for (let i = 0; i < 500 && hold.heard() === heard; i++) await Bun.sleep(10)
    expect(hold.heard()).toBe(heard + 1)

    await sleepUntil(claimed + 50) // the claim's lease has passed; the run goes on
    const retry = await runWith(two, token, proc)
    expect(retry).toMatchObject({ status: 409, receipt: null, body: { error: { code: 'BUDGET_TOKEN_IN_FLIGHT' } } })
    expect(Number(retry.retryAfter)).toBeLessThanOrEqual(Math.ceil((renewed - claimed + 1000) / 1000))
    expect(await sql.query('SELECT lost FROM ajs.budget_tokens_seen WHERE id = $1', [claims.id])).toMatchObject({ rows: [{ lost: false }] })

    hold.release()
    const done = await first
    expect(done).toMatchObject({ status: 200, body: { result: { ok: true } } })
    expect(tokens.readReceipt(done.receipt).used).toBeGreaterThan(0)
    expect(await runWith(two, token, proc)).toMatchObject({ status: 409, receipt: done.receipt, body: { error: { code: 'BUDGET_TOKEN_ANSWERED' } } })
    expect(await lostCounted(one) + await lostCounted(two)).toBe(lostBefore)
  }, 60_000)

  test('a run whose lease a retry found passed before it started is not started: its request gets the retry\'s BUDGET_TOKEN_LOST', async () => {
    const proc = await storedChild(one)
    const { token, claims } = tokens.mint({ fuel: 5000, exp: Date.now() + 60_000, depth: 1, quotas: { httpFetch: 2 } })
    const lostBefore = [await lostCounted(one), await lostCounted(two)]
    const heard = hold.heard()
    const lock = await lockProcedures()
    const first = runWith(one, token, proc, { timeoutMs: 500 })
    const claimed = await leaseOf(claims.id)
    await sleepUntil(claimed + 50)
    const retry = await runWith(two, token, proc)
    expect(retry).toMatchObject({ status: 409, body: { error: { code: 'BUDGET_TOKEN_LOST' } } })
    expect(tokens.readReceipt(retry.receipt)).toEqual({ id: claims.id, fuel: 5000, used: 5000, calls: { httpFetch: 2 } })
    await lock.release()
    expect(await first).toMatchObject({ status: 409, receipt: retry.receipt, body: { error: { code: 'BUDGET_TOKEN_LOST', message: expect.stringContaining('was not started'), hint: expect.stringContaining('budgetSettle') } } })
    expect(hold.heard()).toBe(heard)
    // The verdict is counted once, where it was reached (the second process), not again by the first.
    expect([await lostCounted(one), await lostCounted(two)]).toEqual([lostBefore[0]!, lostBefore[1]! + 1])
  }, 60_000)
})

describe.skipIf(!available)('a lost verdict is final in the database (migration 9)', () => {
  test('the UPDATE a process from before migration 8 issues for a late receipt does not change a lost row', async () => {
    const seen = new PgSeenTokens(sql)
    const now = Date.now()
    expect(await seen.claim('bt_dead', now + 60_000, now - 1)).toBe(true)
    expect(await seen.abandon('bt_dead', 'ajsr1.whole-grant', now)).toEqual({ state: 'lost', receipt: 'ajsr1.whole-grant', decided: true })
    expect(await seen.abandon('bt_dead', 'ajsr1.again', now)).toEqual({ state: 'lost', receipt: 'ajsr1.whole-grant' })
    const old = await sql.query("UPDATE ajs.budget_tokens_seen SET running = false, receipt = 'ajsr1.late' WHERE id = 'bt_dead'")
    expect(old.rowCount).toBe(0)
    await sql.query("UPDATE ajs.budget_tokens_seen SET lost = false, running = true, running_until = $1 WHERE id = 'bt_dead'", [now + 60_000])
    expect(await sql.query("SELECT running, receipt, lost FROM ajs.budget_tokens_seen WHERE id = 'bt_dead'")).toMatchObject({ rows: [{ running: false, receipt: 'ajsr1.whole-grant', lost: true }] })
    expect(await seen.recall('bt_dead')).toEqual({ state: 'lost', receipt: 'ajsr1.whole-grant' })
    // A row that is not lost is updated as before (the old process's receipt of a run that ended).
    expect(await seen.claim('bt_live', now + 60_000, now + 30_000)).toBe(true)
    expect((await sql.query("UPDATE ajs.budget_tokens_seen SET running = false, receipt = 'ajsr1.ended' WHERE id = 'bt_live'")).rowCount).toBe(1)
    expect(await seen.recall('bt_live')).toEqual({ state: 'answered', receipt: 'ajsr1.ended' })
    // Lost rows still go when they expire (the earlier tests' rows, all done, go too).
    await new PgSeenTokens(sql, { now: () => now + 120_000 }).prune()
    expect((await sql.query("SELECT id FROM ajs.budget_tokens_seen WHERE id IN ('bt_dead', 'bt_live')")).rowCount).toBe(0)
  })
})

describe.skipIf(!available)('ajs_budget_tokens_lost_total (PostgreSQL)', () => {
  test('a token is counted once, by the process whose retry found it lost, however many retries follow', async () => {
    const proc = await storedChild(one)
    const { token, claims } = tokens.mint({ fuel: 100, exp: Date.now() + 60_000, depth: 1 })
    // The claim of a process that died: its lease has passed, no receipt.
    await sql.query('INSERT INTO ajs.budget_tokens_seen (id, expires_at, running, running_until) VALUES ($1, $2, true, $3)', [claims.id, claims.exp, Date.now() - 1])
    const before = [await lostCounted(one), await lostCounted(two)]
    for (const url of [two, one, two, one]) expect(await runWith(url, token, proc)).toMatchObject({ status: 409, body: { error: { code: 'BUDGET_TOKEN_LOST' } } })
    expect([await lostCounted(one), await lostCounted(two)]).toEqual([before[0]!, before[1]! + 1])
  })
})

describe('renewRequestLease', () => {
  test('renews only after an admission longer than a tenth of the grace; never shortens a lease, never past the token\'s deadline; a lost spend is refused', async () => {
    let now = 1_700_000_000_000
    const seen = new MemorySeenTokens(100, () => now)
    const server = new BudgetTokens({ key: KEY, seen, now: () => now })
    const { token } = server.mint({ fuel: 100, exp: now + 10_000, depth: 1 })
    const spentAt = now
    const claims = await server.spendOrRecall(token, { leaseMs: 1_000 + 200 })
    const answered: string[] = []
    now += 20 // a tenth of the grace: covered by it, nothing written
    expect(renewRequestLease(server, claims, spentAt, 1_000, 200, (r) => answered.push(r))).toBeUndefined()
    expect(seen.recall(claims.id)).toEqual({ state: 'running', until: spentAt + 1_200 })
    now += 1
    await renewRequestLease(server, claims, spentAt, 1_000, 200, (r) => answered.push(r))
    expect(seen.recall(claims.id)).toEqual({ state: 'running', until: now + 1_200 })
    await server.renew(claims, 0) // never shortened
    expect(seen.recall(claims.id)).toEqual({ state: 'running', until: spentAt + 21 + 1_200 })
    await server.renew(claims, 60_000) // at the token's deadline at the latest
    expect(seen.recall(claims.id)).toEqual({ state: 'running', until: claims.exp })
    // Found lost by a retry before the run started: refused with the retry's receipt.
    const other = server.mint({ fuel: 100, exp: now + 10_000, depth: 1 })
    const spent = await server.spendOrRecall(other.token, { leaseMs: 500 })
    now += 500
    const lost = await server.spendOrRecall(other.token).catch((e) => e)
    expect(lost).toMatchObject({ code: 'BUDGET_TOKEN_LOST' })
    await expect(renewRequestLease(server, spent, now - 500, 300, 200, (r) => answered.push(r))!).rejects.toMatchObject({ code: 'BUDGET_TOKEN_LOST', status: 409 })
    expect(answered).toEqual([lost.receipt])
  })
})

describe('ajs_budget_tokens_lost_total (in memory)', () => {
  test('counted once per token, by tenant; a tenant sees its own and the total, anonymous scrapes the total', async () => {
    const seen = new MemorySeenTokens()
    const server = await createServer({ config, pool: { size: 1 }, env, seenTokens: seen })
    try {
      const url = await server.listen({ port: 0 })
      const metrics = async (auth?: string) => (await fetch(`${url}/metrics`, auth ? { headers: { authorization: auth } } : {})).text()
      expect(await metrics('Bearer token-operator')).toContain('# TYPE ajs_budget_tokens_lost_total counter')
      expect(await lostCounted(url)).toBe(0)
      for (let n = 1; n <= 2; n++) {
        const { token, claims } = tokens.mint({ fuel: 100, exp: Date.now() + 60_000, depth: 1 })
        seen.claim(claims.id, claims.exp, Date.now() - 1) // spent here by a run whose lease has passed with no receipt
        for (let i = 0; i < 3; i++) {
          expect(await post(url, '/v1/runs', { source: CHILD }, { 'x-ajs-budget': token })).toMatchObject({ status: 409, body: { error: { code: 'BUDGET_TOKEN_LOST' } } })
        }
        expect(await lostCounted(url)).toBe(n)
      }
      expect(await metrics('Bearer c-token')).toContain('ajs_budget_tokens_lost_total{tenant="child"} 2')
      expect(await metrics('Bearer c-token')).toContain('ajs_budget_tokens_lost_total{tenant="*"} 2')
      const anonymous = await metrics()
      expect(anonymous).toContain('ajs_budget_tokens_lost_total{tenant="*"} 2')
      expect(anonymous).not.toContain('tenant="child"')
    } finally {
      await server.close()
    }
  })
})
