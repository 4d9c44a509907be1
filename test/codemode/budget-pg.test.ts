/**
 * Budget tokens in PostgreSQL mode (issue 25): the spent token ids live in
 * ajs.budget_tokens_seen (created by the store's migrations), so a token
 * spent through one process of the deployment is refused as a replay by
 * every other, and a retry after its spend ended is answered with its
 * receipt on any of them; expired rows are pruned and the table is bounded (maxSeen).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import pg from 'pg'
import { BudgetTokens } from '../../src/codemode/index.ts'
import { PgSeenTokens, SEEN_PRUNE_EVERY } from '../../src/server/budget.ts'
import { MIGRATIONS, migrate } from '../../src/server/stores/postgres.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from '../server/postgres.ts'

const available = postgresAvailable()
let db: TestPostgres
const pools: pg.Pool[] = []
beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  // A deployment that used budget tokens before the migration: the table was created on first use.
  const old = pool()
  await old.query('CREATE SCHEMA ajs; CREATE TABLE ajs.budget_tokens_seen (id text PRIMARY KEY, expires_at bigint NOT NULL)')
  await old.query("INSERT INTO ajs.budget_tokens_seen VALUES ('bt_before', 1)")
  await migrate(old)
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
    // A server's spend: a retry on any process is in flight until the first keeps its receipt, then answered with it.
    const served = one.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 })
    const spent = await one.spendOrRecall(served.token)
    await expect(two.spendOrRecall(served.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_IN_FLIGHT' })
    const receipt = one.receipt(spent, 4)
    await one.answered(spent, receipt)
    await expect(two.spendOrRecall(served.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_ANSWERED', receipt })
    await expect(two.spend(served.token)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED' })
    const other = one.mint({ fuel: 10, exp: Date.now() + 60_000, depth: 1 }).token
    expect((await two.spend(other)).fuel).toBe(10)
  }, 30_000)

  test('the table comes from the migrations (also over one created on first use) with its expiry index', async () => {
    const p = pool()
    const versions = (await p.query('SELECT version FROM ajs.migrations ORDER BY version')).rows.map((r) => r.version)
    expect(versions).toEqual(MIGRATIONS.map((_, i) => i + 1))
    const idx = await p.query("SELECT indexdef FROM pg_indexes WHERE schemaname = 'ajs' AND tablename = 'budget_tokens_seen'")
    expect(idx.rows.map((r) => r.indexdef).join('\n')).toContain('(expires_at)')
    // A row spent before migration 7 (no receipt, not running): a retry is refused as a replay, as it was.
    await p.query("INSERT INTO ajs.budget_tokens_seen (id, expires_at) VALUES ('bt_old', $1)", [Date.now() + 60_000])
    expect(await new PgSeenTokens(p).recall('bt_old')).toEqual({ state: 'unknown' })
    await p.query("DELETE FROM ajs.budget_tokens_seen WHERE id = 'bt_old'")
    // The old row survived the migration; the first claim prunes it (it expired long ago).
    const seen = new PgSeenTokens(p)
    expect(await seen.claim('bt_fresh', Date.now() + 60_000)).toBe(true)
    expect((await p.query("SELECT id FROM ajs.budget_tokens_seen WHERE id = 'bt_before'")).rowCount).toBe(0)
    // It creates nothing itself: the migration does.
    await p.query('DROP TABLE ajs.budget_tokens_seen')
    await expect(new PgSeenTokens(p).claim('bt_x', Date.now() + 60_000)).rejects.toThrow('budget_tokens_seen')
    await p.query('DELETE FROM ajs.migrations WHERE version >= 6')
    await migrate(p)
    expect((await p.query('SELECT count(*)::int AS n FROM ajs.budget_tokens_seen')).rows[0].n).toBe(0)
  }, 30_000)

  test('expired rows are pruned, and the table is bounded: full, it fails closed until tokens expire', async () => {
    const p = pool()
    await p.query('DELETE FROM ajs.budget_tokens_seen')
    let now = 1_000_000
    const seen = new PgSeenTokens(p, { max: 3, now: () => now })
    const count = async () => (await p.query('SELECT count(*)::int AS n FROM ajs.budget_tokens_seen')).rows[0].n as number
    expect(await seen.claim('a', now + 100)).toBe(true)
    expect(await seen.claim('b', now + 100)).toBe(true)
    expect(await seen.claim('c', now + 5000)).toBe(true)
    expect(await seen.claim('c', now + 5000)).toBe(false)
    // Full once counted (at the next prune): new tokens are refused, fail closed.
    expect(await seen.prune()).toBe(3)
    await expect(seen.claim('d', now + 100)).rejects.toMatchObject({ code: 'BUDGET_TOKEN_REPLAYED', message: expect.stringContaining('full (3 unexpired') })
    // a and b expire: the next claim prunes them and has room.
    now += 200
    expect(await seen.claim('d', now + 100)).toBe(true)
    expect(await count()).toBe(2)
    // Without filling up, expired rows go every SEEN_PRUNE_EVERY claims.
    const many = new PgSeenTokens(p, { max: 10_000, now: () => now })
    for (let i = 0; i < SEEN_PRUNE_EVERY; i++) expect(await many.claim(`m${i}`, now + 10)).toBe(true)
    expect(await count()).toBe(2 + SEEN_PRUNE_EVERY)
    now += 6000 // every row so far has expired
    expect(await many.claim('last', now + 10)).toBe(true)
    expect(await count()).toBe(1)
  }, 60_000)
})
