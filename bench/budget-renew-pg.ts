/**
 * What renewing a budget token's lease costs in PostgreSQL mode: a sync budget run through POST
 * /v1/runs of an in-process `ajsc serve --database` (pool of 1, sequential requests), and the renewal
 * alone (PgSeenTokens.renew, the one UPDATE a renewal is). The server renews only a run whose
 * admission took more than a tenth of budgetTokens.leaseGraceMs (src/server/budget.ts
 * renewRequestLease), so the first number is a run without it. Medians of rounds; a throwaway cluster.
 *
 *   bun bench/budget-renew-pg.ts [rounds=8] [per round=300]
 */
import pg from 'pg'
import { BudgetTokens } from '../src/codemode/index.ts'
import { PgSeenTokens } from '../src/server/budget.ts'
import { parseServeConfig, startServe, tokenSha256 } from '../src/server/index.ts'
import { startPostgres } from './lib/postgres.mjs'

const rounds = Number(process.argv[2] ?? 8)
const n = Number(process.argv[3] ?? 300)
const KEY = 'bench-deployment-budget-key-0123456789abcdef'
const db = await startPostgres({ fsync: false })
const config = parseServeConfig({ tenants: [{ id: 'c', tokenSha256: tokenSha256('c-token') }], budgetTokens: { keyEnv: 'K' } })
const server = await startServe({ config, database: db.url, pool: { size: 1 }, jobConcurrency: 0, env: { K: KEY } })
const url = await server.listen({ port: 0 })
const tokens = new BudgetTokens({ key: KEY })
const pool = new pg.Pool({ connectionString: db.url, max: 1 })
const seen = new PgSeenTokens(pool)
const body = JSON.stringify({ source: 'function f() { return 1 }' })

async function runs(): Promise<number> {
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const { token } = tokens.mint({ fuel: 1000, exp: Date.now() + 60_000, depth: 1 })
    const r = await fetch(`${url}/v1/runs`, { method: 'POST', headers: { authorization: 'Bearer c-token', 'content-type': 'application/json', 'x-ajs-budget': token }, body })
    if (r.status !== 200) throw new Error(`status ${r.status}`)
    await r.arrayBuffer()
  }
  return (performance.now() - t0) / n
}

async function renewals(): Promise<number> {
  const exp = Date.now() + 60_000
  for (let i = 0; i < n; i++) await seen.claim(`bt_bench_${i}`, exp, exp - 30_000)
  const t0 = performance.now()
  for (let i = 0; i < n; i++) await seen.renew(`bt_bench_${i}`, exp - 20_000 + i)
  const ms = (performance.now() - t0) / n
  await seen.prune()
  return ms
}

const med = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1]!
await runs() // warm up
const a: number[] = []
const b: number[] = []
for (let k = 0; k < rounds; k++) {
  a.push(await runs())
  b.push(await renewals())
}
console.log(`budget run (POST /v1/runs, x-ajs-budget): median ${med(a).toFixed(3)} ms (${a.map((x) => x.toFixed(3)).join(' ')})`)
console.log(`a renewal (PgSeenTokens.renew):            median ${med(b).toFixed(3)} ms (${b.map((x) => x.toFixed(3)).join(' ')})`)
await pool.end()
await server.close()
await db.stop()
process.exit(0)
