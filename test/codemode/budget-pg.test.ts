/**
 * Budget tokens in PostgreSQL mode (issue 25): the spent token ids live in
 * ajs.budget_tokens_seen, so a token spent through one process of the
 * deployment is refused as a replay by every other.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import pg from 'pg'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { PgSeenTokens } from '../../src/server/budget.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'

const available = postgresAvailable()
let db: TestPostgres
const pools: pg.Pool[] = []
beforeAll(async () => {
  if (available) db = await startPostgres()
}, 60_000)
afterAll(async () => {
  for (const p of pools) await p.end()
  await db?.stop()
})

const pool = () => {
  const p = new pg.Pool({ connectionString: db.url, max: 2 })
  p.on('error', () => {}) // the cluster stops at the end
  pools.push(p)
  return p
}

describe.skipIf(!available)('PgSeenTokens', () => {
  test('a token spent through one process is a replay for another', async () => {
    const key = 'a deployment key of at least 32 bytes!'
    const one = new BudgetTokens({ key, seen: new PgSeenTokens(pool()) })
    const two = new BudgetTokens({ key, seen: new PgSeenTokens(pool()) })
    const { token, claims } = one.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 })
    expect((await one.spend(token)).id).toBe(claims.id)
    await expect(two.spend(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    await expect(one.spend(token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    const other = one.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 }).token
    expect((await two.spend(other)).fuel).toBe(10)
  }, 30_000)
})
