/**
 * The lease of a spent budget token, one suite over both seen-sets (in memory, and PostgreSQL through
 * the store's migrations): a spend claims its token until its time limit and a grace have passed.
 * While the lease holds, a retry is in flight (and told when to come back); once it has passed with no
 * receipt kept, the spend's run is known lost (its server died): the retry is answered with a receipt
 * of the whole grant (BUDGET_TOKEN_LOST), every later retry on any process alike, and nothing runs again.
 * The clock is the test's: no timings.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import pg from 'pg'
import { BudgetTokens, MemorySeenTokens, type SeenTokens } from '../../src/codemode/index.ts'
import { PgSeenTokens } from '../../src/server/budget.ts'
import { migrate } from '../../src/server/stores/postgres.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'

const KEY = 'a deployment key of at least 32 bytes!'
const available = postgresAvailable()
let db: TestPostgres | undefined
let pool: pg.Pool | undefined

beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  pool = new pg.Pool({ connectionString: db.url, max: 2 })
  pool.on('error', () => {}) // the cluster stops at the end
  await migrate(pool)
}, 60_000)
afterAll(async () => {
  await pool?.end()
  await db?.stop()
})

/** Two processes of one deployment sharing a seen-set (memory: one object; PostgreSQL: one table), on the test's clock. */
interface Deployment { one: BudgetTokens; two: BudgetTokens; clock: { now: number } }
const stores: Array<[string, boolean, () => SeenTokens[]]> = [
  ['in memory', true, () => { const m = new MemorySeenTokens(100, () => clock.now); return [m, m] }],
  ['PostgreSQL', available, () => [new PgSeenTokens(pool!, { now: () => clock.now }), new PgSeenTokens(pool!, { now: () => clock.now })]],
]
const clock = { now: 1_700_000_000_000 }
const deployment = (make: () => SeenTokens[]): Deployment => {
  const [a, b] = make()
  return { one: new BudgetTokens({ key: KEY, seen: a!, now: () => clock.now }), two: new BudgetTokens({ key: KEY, seen: b!, now: () => clock.now }), clock }
}

for (const [name, runs, make] of stores) {
  describe.skipIf(!runs)(`the lease of a spent token (${name})`, () => {
    test('in flight until the lease ends (retryAt); past it, with no receipt, lost: a receipt of the whole grant, the same for every retry', async () => {
      const { one, two } = deployment(make)
      const { token, claims } = one.mint({ fuel: 500, exp: clock.now + 60_000, depth: 1, quotas: { sendSms: 2 } })
      await one.spendOrRecall(token, { leaseMs: 3_000 })
      const until = clock.now + 3_000
      await expect(two.spendOrRecall(token, { leaseMs: 3_000 })).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: until, receipt: undefined, message: expect.stringContaining(new Date(until).toISOString()) })
      clock.now = until - 1
      await expect(two.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: until })
      clock.now = until // the server that ran it died: no receipt was kept
      const lost = await two.spendOrRecall(token).catch((e) => e)
      expect(lost).toMatchObject({ code: 'BUDGET_TOKEN_LOST', hint: expect.stringContaining('budgetSettle') })
      // Charged in full, calls included: what the lost run used is unknown.
      expect(two.readReceipt(lost.receipt)).toEqual({ id: claims.id, fuel: 500, used: 500, calls: { sendSms: 2 } })
      for (const tokens of [one, two]) await expect(tokens.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_LOST', receipt: lost.receipt })
      // A receipt kept late (a run that was not dead after all) does not change the answer given.
      await one.answered(claims, one.receipt(claims, 7))
      await expect(two.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_LOST', receipt: lost.receipt })
      // spend (budgetRun's) refuses it as any replay.
      await expect(one.spend(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    })

    test('a spend that kept its receipt stays answered past its lease', async () => {
      const { one, two } = deployment(make)
      const { token } = one.mint({ fuel: 100, exp: clock.now + 60_000, depth: 1 })
      const claims = await one.spendOrRecall(token, { leaseMs: 1_000 })
      const receipt = one.receipt(claims, 40)
      await one.answered(claims, receipt)
      clock.now += 5_000
      await expect(two.spendOrRecall(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_ANSWERED', receipt })
      expect(two.readReceipt(receipt).used).toBe(40)
    })

    test('a lease ends by the token\'s deadline at the latest; without leaseMs it is the deadline (then the token has expired)', async () => {
      const { one, two } = deployment(make)
      const short = one.mint({ fuel: 100, exp: clock.now + 2_000, depth: 1 })
      await one.spendOrRecall(short.token, { leaseMs: 10_000 })
      await expect(two.spendOrRecall(short.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: short.claims.exp, message: expect.stringContaining('by the token\'s deadline') })
      const plain = one.mint({ fuel: 100, exp: clock.now + 4_000, depth: 1 })
      await one.spendOrRecall(plain.token)
      clock.now += 3_999
      await expect(two.spendOrRecall(plain.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: plain.claims.exp })
      clock.now += 1
      await expect(two.spendOrRecall(plain.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_EXPIRED' })
    })
  })
}

describe.skipIf(!available)('the lease in PostgreSQL', () => {
  test('a row spent before migration 8 has no lease: in flight until its token expires, as before', async () => {
    const tokens = new BudgetTokens({ key: KEY, seen: new PgSeenTokens(pool!, { now: () => clock.now }), now: () => clock.now })
    const { token, claims } = tokens.mint({ fuel: 100, exp: clock.now + 60_000, depth: 1 })
    await pool!.query('INSERT INTO ajs.budget_tokens_seen (id, expires_at, running) VALUES ($1, $2, true)', [claims.id, claims.exp])
    clock.now += 59_000
    await expect(tokens.spendOrRecall(token, { leaseMs: 1 })).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT', retryAt: claims.exp })
  })
})
