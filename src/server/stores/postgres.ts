/**
 * Postgres stores (`--database postgres://…`): procedures, run records,
 * agent memory and fuel usage in the `ajs` schema, shared by every
 * `ajsc serve` and `ajsc worker` process on the database. Migrations run at
 * start-up under an advisory lock, so processes starting together do not
 * race. Vectors are float8 arrays searched by brute force (cosine, in
 * process), the same ranking as the in-memory store.
 */
import pg from 'pg'
import { cosineSimilarity, indexVector, topK } from '../../capabilities/vector.ts'
import type { RunResult } from '../../vm/result.ts'
import type { UsageLedger } from '../tenants.ts'
import { checkQuota, type StoreQuota } from './quota.ts'
import { inTransaction } from './pg-tx.ts'
import type { AgentMemory, ProcedureRepo, RunRecord, RunRepo, RunState, RunSummary, ServerStores, StoredProcedure } from './types.ts'
import type { ListQuery } from './list.ts'

/** Schema migrations, in order; each runs once (recorded in ajs.migrations). */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ajs.procedures (
     tenant text NOT NULL, token text NOT NULL, ast_text text NOT NULL, key text NOT NULL,
     created_at bigint NOT NULL, expires_at bigint NOT NULL, PRIMARY KEY (tenant, token));
   CREATE TABLE ajs.runs (
     id text PRIMARY KEY, tenant text NOT NULL, state text NOT NULL, created_at bigint NOT NULL,
     started_at bigint, finished_at bigint, request jsonb, result jsonb);
   CREATE INDEX runs_finished ON ajs.runs (finished_at) WHERE finished_at IS NOT NULL;
   CREATE TABLE ajs.memory (
     tenant text NOT NULL, key text NOT NULL, value jsonb NOT NULL, vector float8[],
     PRIMARY KEY (tenant, key));
   CREATE TABLE ajs.usage (tenant text NOT NULL, day text NOT NULL, fuel double precision NOT NULL, PRIMARY KEY (tenant, day));
   CREATE TABLE ajs.nodes (id text PRIMARY KEY, kind text NOT NULL, seen_at timestamptz NOT NULL DEFAULT now());
   CREATE TABLE ajs.node_workers (worker_id text PRIMARY KEY, node_id text NOT NULL);`,
  `CREATE TABLE ajs.workflows (
     id text PRIMARY KEY, tenant text NOT NULL, state text NOT NULL, created_at bigint NOT NULL,
     program jsonb NOT NULL, view jsonb, updated_at bigint NOT NULL);
   CREATE TABLE ajs.journal (
     execution_id text NOT NULL, seq integer NOT NULL, entry jsonb NOT NULL, PRIMARY KEY (execution_id, seq));`,
  // Journal entries by kind and id (a signal's, an answer's, a request's): what commands look up without reading the journal.
  `CREATE INDEX journal_keys ON ajs.journal (execution_id, (entry->>'t'), (coalesce(entry->>'id', entry->'request'->>'id')));`,
  // A tenant's runs and workflows newest first (GET /v1/runs, GET /v1/workflows): a page is an index range.
  `CREATE INDEX runs_tenant_created ON ajs.runs (tenant, created_at DESC, id DESC);
   CREATE INDEX workflows_tenant_created ON ajs.workflows (tenant, created_at DESC, id DESC);`,
  // What a workflow is found by (GET /v1/workflows?tag=&attr.k=v&name=): tags and attributes by containment through GIN indexes.
  `ALTER TABLE ajs.workflows ADD COLUMN name text, ADD COLUMN tags text[] NOT NULL DEFAULT '{}', ADD COLUMN attributes jsonb NOT NULL DEFAULT '{}';
   CREATE INDEX workflows_tags ON ajs.workflows USING gin (tags);
   CREATE INDEX workflows_attributes ON ajs.workflows USING gin (attributes jsonb_path_ops);
   CREATE INDEX workflows_tenant_name ON ajs.workflows (tenant, name, created_at DESC, id DESC) WHERE name IS NOT NULL;`,
  // Spent budget tokens (config budgetTokens), until they expire: a replay on any process is refused (budget.ts
  // PgSeenTokens). IF NOT EXISTS: before this migration the table was created on first use, without the index.
  `CREATE TABLE IF NOT EXISTS ajs.budget_tokens_seen (id text PRIMARY KEY, expires_at bigint NOT NULL);
   CREATE INDEX IF NOT EXISTS budget_tokens_seen_expires ON ajs.budget_tokens_seen (expires_at);`,
  // A spent token's receipt once its run has ended: a retry is answered with it (budget.ts PgSeenTokens). A row
  // from before (running false, no receipt) is refused as a replay, as it was.
  `ALTER TABLE ajs.budget_tokens_seen ADD COLUMN running boolean NOT NULL DEFAULT false, ADD COLUMN receipt text;`,
  // A running spend's lease (its run's time limit and a grace, ms since the epoch): a retry past it finds the run
  // lost (its server died), marks the row `lost` with a receipt of the whole grant and is answered with it (budget.ts
  // PgSeenTokens). A row from before has no lease: running until its token expires, as it was.
  `ALTER TABLE ajs.budget_tokens_seen ADD COLUMN running_until bigint, ADD COLUMN lost boolean NOT NULL DEFAULT false;`,
  // A lost verdict is final in the database itself: every later retry was promised the same answer (the whole grant),
  // and a process from before migration 8 keeps a late receipt with an unguarded UPDATE (SET running = false, receipt
  // = $2 WHERE id = $1). An UPDATE of a lost row is skipped (as the guarded ones of budget.ts skip it), not an error:
  // the old process still answers its own request. Rows are still deleted when they expire.
  `CREATE OR REPLACE FUNCTION ajs.budget_token_lost_is_final() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
   CREATE TRIGGER budget_tokens_seen_lost_is_final BEFORE UPDATE ON ajs.budget_tokens_seen
     FOR EACH ROW WHEN (OLD.lost) EXECUTE FUNCTION ajs.budget_token_lost_is_final();`,
  // Workflow schedules (POST /v1/schedules): the row as JSON, and when firing looks at it next (null: paused). Due rows
  // are taken with FOR UPDATE SKIP LOCKED through the partial index, so each process fires the rows no other holds.
  // IF NOT EXISTS: a test re-runs the migrations after budget_tokens_seen's (6 on) over a schema that has this table.
  `CREATE TABLE IF NOT EXISTS ajs.schedules (tenant text NOT NULL, id text NOT NULL, data jsonb NOT NULL, due_at bigint, PRIMARY KEY (tenant, id));
   CREATE INDEX IF NOT EXISTS schedules_due ON ajs.schedules (due_at) WHERE due_at IS NOT NULL;`,
]

export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', ['ajs-lang-serve-migrations'])
    await client.query('CREATE SCHEMA IF NOT EXISTS ajs')
    await client.query('CREATE TABLE IF NOT EXISTS ajs.migrations (version integer PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())')
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM ajs.migrations')).rows.map((r) => r.version))
    for (let i = 0; i < MIGRATIONS.length; i++) {
      if (done.has(i + 1)) continue
      await client.query('BEGIN')
      try {
        await client.query(MIGRATIONS[i]!)
        await client.query('INSERT INTO ajs.migrations (version) VALUES ($1)', [i + 1])
        await client.query('COMMIT')
      } catch (e) {
        await client.query('ROLLBACK')
        throw e
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['ajs-lang-serve-migrations']).catch(() => {})
    client.release()
  }
}

const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v))

class PgProcedures implements ProcedureRepo {
  constructor(private readonly pool: pg.Pool, private readonly now: () => number) {}
  put(p: StoredProcedure, quota?: StoreQuota): Promise<void> {
    return inTransaction(this.pool, async (c) => {
      if (quota) {
        // One tenant's puts are serialized by a transaction lock: the check and the write are one step.
        await c.query('SELECT pg_advisory_xact_lock(7413, hashtext($1))', [p.tenant])
        const r = await c.query('SELECT count(*) AS n, coalesce(sum(length(ast_text)), 0) AS bytes, coalesce(sum(length(ast_text)) FILTER (WHERE token = $2), 0) AS same, count(*) FILTER (WHERE token = $2) AS has FROM ajs.procedures WHERE tenant = $1 AND expires_at > $3', [p.tenant, p.token, this.now()])
        const row = r.rows[0]
        checkQuota('stored procedures', p.tenant, { count: Number(row.n), bytes: Number(row.bytes) }, { count: Number(row.has) > 0 ? 0 : 1, bytes: p.astText.length - Number(row.same) }, quota)
      }
      await c.query(
        `INSERT INTO ajs.procedures (tenant, token, ast_text, key, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6)
         ON CONFLICT (tenant, token) DO UPDATE SET ast_text = EXCLUDED.ast_text, key = EXCLUDED.key, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
        [p.tenant, p.token, p.astText, p.key, p.createdAt, p.expiresAt])
    })
  }
  async get(tenant: string, token: string): Promise<StoredProcedure | undefined> {
    const r = await this.pool.query('SELECT ast_text, key, created_at, expires_at FROM ajs.procedures WHERE tenant = $1 AND token = $2 AND expires_at > $3', [tenant, token, this.now()])
    const row = r.rows[0]
    return row ? { tenant, token, astText: row.ast_text, key: row.key, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) } : undefined
  }
  async delete(tenant: string, token: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM ajs.procedures WHERE tenant = $1 AND token = $2 AND expires_at > $3', [tenant, token, this.now()])).rowCount ?? 0) > 0
  }
  async clearExpired(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM ajs.procedures WHERE expires_at <= $1', [now])).rowCount ?? 0
  }
}

export function rowToRun(row: Record<string, unknown>): RunRecord {
  const rec: RunRecord = { id: row.id as string, tenant: row.tenant as string, state: row.state as RunRecord['state'], createdAt: Number(row.created_at) }
  const started = num(row.started_at)
  const finished = num(row.finished_at)
  if (started !== undefined) rec.startedAt = started
  if (finished !== undefined) rec.finishedAt = finished
  if (row.result) rec.result = row.result as RunResult
  if (row.request) rec.request = row.request as RunRecord['request']
  return rec
}

class PgRuns implements RunRepo {
  constructor(private readonly pool: pg.Pool) {}
  async create(rec: RunRecord, _quota?: StoreQuota): Promise<void> {
    // Async runs of distributed mode are recorded by the job executor (jobs.ts), which checks the quota.
    await this.pool.query('INSERT INTO ajs.runs (id, tenant, state, created_at, request) VALUES ($1,$2,$3,$4,$5)', [rec.id, rec.tenant, rec.state, rec.createdAt, rec.request ?? null])
  }
  async get(tenant: string, id: string): Promise<RunRecord | undefined> {
    const r = await this.pool.query('SELECT id, tenant, state, created_at, started_at, finished_at, result FROM ajs.runs WHERE id = $1 AND tenant = $2', [id, tenant])
    return r.rows[0] ? rowToRun(r.rows[0]) : undefined
  }
  async start(id: string, at: number): Promise<void> {
    await this.pool.query(`UPDATE ajs.runs SET state = 'running', started_at = $2 WHERE id = $1 AND state <> 'done'`, [id, at])
  }
  async finish(id: string, result: RunResult, at: number): Promise<void> {
    await this.pool.query(`UPDATE ajs.runs SET state = 'done', result = $2, finished_at = $3, request = NULL WHERE id = $1; `, [id, result, at])
    await this.pool.query('SELECT pg_notify($1, $2)', ['ajs_events', `run:${id}`])
  }
  async prune(finishedBefore: number): Promise<number> {
    return (await this.pool.query('DELETE FROM ajs.runs WHERE finished_at < $1', [finishedBefore])).rowCount ?? 0
  }
  async list(tenant: string, q: ListQuery<RunState>): Promise<RunSummary[]> {
    // The cursor as a row comparison: an index range of runs_tenant_created, whatever the page.
    const r = await this.pool.query(
      `SELECT id, state, created_at, started_at, finished_at, result->'fuelUsed' AS fuel, result->'error'->>'code' AS error
       FROM ajs.runs WHERE tenant = $1 AND ($2::text IS NULL OR state = $2)
       AND ($3::bigint IS NULL OR (created_at, id) < ($3::bigint, $4::text))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [tenant, q.state ?? null, q.before?.createdAt ?? null, q.before?.id ?? '', q.limit + 1])
    return r.rows.map((row) => {
      const out: RunSummary = { id: row.id, state: row.state, createdAt: Number(row.created_at) }
      const started = num(row.started_at)
      const finished = num(row.finished_at)
      if (started !== undefined) out.startedAt = started
      if (finished !== undefined) out.finishedAt = finished
      if (typeof row.fuel === 'number') out.fuelUsed = row.fuel
      if (typeof row.error === 'string') out.error = row.error
      return out
    })
  }
}

const MAX_RESULTS = 1000

/** A tenant's agent memory in ajs.memory; same semantics as the in-memory store. */
class PgMemory implements AgentMemory {
  constructor(private readonly pool: pg.Pool, private readonly tenant: string) {}

  async get(key: string): Promise<unknown> {
    const r = await this.pool.query('SELECT value FROM ajs.memory WHERE tenant = $1 AND key = $2', [this.tenant, String(key)])
    return r.rows[0] ? r.rows[0].value : null
  }
  async set(key: string, value: unknown): Promise<null> {
    const v = value as { vector?: unknown } | null
    const vector = v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.vector) ? indexVector(v.vector, 8192).values : null
    await this.pool.query(
      `INSERT INTO ajs.memory (tenant, key, value, vector) VALUES ($1,$2,$3,$4)
       ON CONFLICT (tenant, key) DO UPDATE SET value = EXCLUDED.value, vector = EXCLUDED.vector`,
      [this.tenant, String(key), JSON.stringify(value ?? null), vector ? [...vector] : null])
    return null
  }
  async delete(key: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM ajs.memory WHERE tenant = $1 AND key = $2', [this.tenant, String(key)])).rowCount ?? 0) > 0
  }
  async has(key: string): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM ajs.memory WHERE tenant = $1 AND key = $2', [this.tenant, String(key)])).rowCount! > 0
  }
  async query(q: unknown = {}): Promise<unknown> {
    const { prefix, where, limit, offset } = (q ?? {}) as { prefix?: string; where?: Record<string, unknown>; limit?: number; offset?: number }
    const r = await this.pool.query(
      `SELECT key, value FROM ajs.memory WHERE tenant = $1 AND starts_with(key, $2) AND ($3::jsonb IS NULL OR value @> $3::jsonb)
       ORDER BY key COLLATE "C" LIMIT $4 OFFSET $5`,
      [this.tenant, prefix ?? '', where ? JSON.stringify(where) : null, Math.min(limit ?? 100, MAX_RESULTS), offset ?? 0])
    return r.rows.map((row) => ({ key: row.key, value: row.value }))
  }
  async vectorSearch(q: unknown): Promise<unknown> {
    const { collection, vector, k, filter } = q as { collection?: string | null; vector: number[]; k?: number | null; filter?: Record<string, unknown> | null }
    const probe = indexVector(vector, 8192, 'the query vector')
    const r = await this.pool.query(
      `SELECT key, value, vector FROM ajs.memory WHERE tenant = $1 AND vector IS NOT NULL AND starts_with(key, $2)
       AND ($3::jsonb IS NULL OR value @> $3::jsonb)`,
      [this.tenant, collection ? `${collection}:` : '', filter ? JSON.stringify(filter) : null])
    const hits = r.rows
      .filter((row) => (row.vector as number[]).length === probe.values.length)
      .map((row) => {
        const { vector: _v, ...meta } = row.value as Record<string, unknown>
        const key = row.key as string
        return { key, id: collection ? key.slice(collection.length + 1) : key, score: cosineSimilarity(probe, indexVector(row.vector, 8192)), meta }
      })
    return topK(hits, Math.min(k ?? 10, MAX_RESULTS))
  }
  async addVector(collection: string, id: string, vector: number[], meta: Record<string, unknown> = {}): Promise<null> {
    return this.set(`${collection}:${id}`, { ...meta, vector })
  }
}

class PgUsage implements UsageLedger {
  constructor(private readonly pool: pg.Pool) {}
  async used(tenant: string, day: string): Promise<number> {
    const r = await this.pool.query('SELECT fuel FROM ajs.usage WHERE tenant = $1 AND day = $2', [tenant, day])
    return r.rows[0] ? Number(r.rows[0].fuel) : 0
  }
  async add(tenant: string, day: string, fuel: number): Promise<void> {
    await this.pool.query('INSERT INTO ajs.usage (tenant, day, fuel) VALUES ($1,$2,$3) ON CONFLICT (tenant, day) DO UPDATE SET fuel = GREATEST(0, ajs.usage.fuel + EXCLUDED.fuel)', [tenant, day, fuel])
  }
  /** One transaction holding the day's row lock: servers sharing the database never grant more than the limit together. */
  reserve(tenant: string, day: string, want: number, limit: number): Promise<number> {
    return inTransaction(this.pool, async (c) => {
      await c.query('INSERT INTO ajs.usage (tenant, day, fuel) VALUES ($1,$2,0) ON CONFLICT (tenant, day) DO NOTHING', [tenant, day])
      const used = Number((await c.query('SELECT fuel FROM ajs.usage WHERE tenant = $1 AND day = $2 FOR UPDATE', [tenant, day])).rows[0].fuel)
      const granted = Math.max(0, Math.min(want, limit - used))
      if (granted > 0) await c.query('UPDATE ajs.usage SET fuel = fuel + $3 WHERE tenant = $1 AND day = $2', [tenant, day, granted])
      return granted
    })
  }
}

export interface PgStores extends ServerStores {
  pool: pg.Pool
  usage: UsageLedger
}

/** Connect, migrate, and return the stores (the pool is closed by `close()`). */
export async function createPgStores(connectionString: string, options: { max?: number; now?: () => number } = {}): Promise<PgStores> {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10 })
  // A client that loses its connection (idle, or the server restarting) must not crash the process.
  pool.on('error', () => {})
  pool.on('connect', (client) => { client.on('error', () => {}) })
  await migrate(pool)
  const memories = new Map<string, AgentMemory>()
  return {
    pool,
    procedures: new PgProcedures(pool, options.now ?? Date.now),
    runs: new PgRuns(pool),
    usage: new PgUsage(pool),
    memory(tenant) {
      let m = memories.get(tenant)
      if (!m) memories.set(tenant, (m = new PgMemory(pool, tenant)))
      return m
    },
    async close() {
      await pool.end()
    },
  }
}
