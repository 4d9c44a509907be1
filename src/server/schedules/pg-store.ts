/**
 * Schedules in PostgreSQL (`ajs.schedules`, migration 10): the row as JSON
 * and its `due_at` beside it, indexed where it is set. Every change takes
 * the row with `FOR UPDATE`; firing takes due rows with `FOR UPDATE SKIP
 * LOCKED`, one row per transaction, so each server process fires the rows
 * no other holds, and a row's nominal times are handled by one process at a
 * time. Should a process die after starting a fire's run and before its
 * commit, the next process handles that fire again and finds the run
 * already there (its id is derived from the fire): at most once.
 */
import type pg from 'pg'
import { inTransaction } from '../stores/pg-tx.ts'
import { jsonLength, type StoreQuota } from '../stores/quota.ts'
import { checkScheduleGrowth, checkScheduleQuota, scheduleExists, type ScheduleListRow, type ScheduleRow, type ScheduleStore } from './store.ts'

/** Advisory lock class of a tenant's schedule inserts (the count and the insert are one step). */
const INSERT_LOCK = 7415

export class PgScheduleStore implements ScheduleStore {
  constructor(private readonly pool: pg.Pool) {}

  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn)
  }

  private save(c: pg.PoolClient, row: ScheduleRow): Promise<unknown> {
    return c.query('UPDATE ajs.schedules SET data = $3, due_at = $4 WHERE tenant = $1 AND id = $2', [row.tenant, row.id, row, row.dueAt])
  }

  /**
   * The tenant's schedules (but `besides`), under the tenant's insert lock, so a count and what is added
   * after it are one step. The rows' sizes now (their actions change them a little): close to what they were created as.
   */
  private async held(c: pg.PoolClient, tenant: string, besides = ''): Promise<{ count: number; bytes: number }> {
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [INSERT_LOCK, tenant])
    const r = (await c.query('SELECT count(*) AS n, coalesce(sum(length(data::text)), 0) AS bytes FROM ajs.schedules WHERE tenant = $1 AND id <> $2', [tenant, besides])).rows[0]
    return { count: Number(r.n), bytes: Number(r.bytes) }
  }

  insert(row: ScheduleRow, quota: StoreQuota): Promise<void> {
    return this.tx(async (c) => {
      checkScheduleQuota(row, await this.held(c, row.tenant), quota)
      const ins = await c.query('INSERT INTO ajs.schedules (tenant, id, data, due_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id', [row.tenant, row.id, row, row.dueAt])
      if (ins.rows.length === 0) throw scheduleExists(row.id)
    })
  }

  async get(tenant: string, id: string): Promise<ScheduleRow | undefined> {
    return (await this.pool.query('SELECT data FROM ajs.schedules WHERE tenant = $1 AND id = $2', [tenant, id])).rows[0]?.data
  }

  /** listRowOf in the query: the actions, the workflow's source and modules stay in the database. */
  async list(tenant: string, limit: number, after?: string): Promise<ScheduleListRow[]> {
    const r = await this.pool.query(
      `SELECT (data - 'actions') #- '{workflow,source}' #- '{workflow,workflows}' AS data, data->'actions'->(-1) AS last
       FROM ajs.schedules WHERE tenant = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [tenant, after ?? '', limit],
    )
    return r.rows.map((x) => ({ ...x.data, ...(x.last ? { lastAction: x.last } : {}) }) as ScheduleListRow)
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM ajs.schedules WHERE tenant = $1 AND id = $2', [tenant, id])).rowCount ?? 0) > 0
  }

  update<T>(tenant: string, id: string, fn: (row: ScheduleRow) => Promise<{ row: ScheduleRow; result: T }>, quota?: StoreQuota): Promise<T | undefined> {
    return this.tx(async (c) => {
      const found = await c.query('SELECT data FROM ajs.schedules WHERE tenant = $1 AND id = $2 FOR UPDATE', [tenant, id])
      if (found.rows.length === 0) return undefined
      const before = jsonLength(found.rows[0].data)
      const out = await fn(found.rows[0].data as ScheduleRow)
      // Grown (PATCH): the tenant's insert lock is taken after the row's, as an insert takes no row's lock.
      const bytes = quota ? jsonLength(out.row) : 0
      if (quota && bytes > before) checkScheduleGrowth(out.row, bytes, await this.held(c, tenant, id), quota)
      await this.save(c, out.row)
      return out.result
    })
  }

  async claimDue(now: number, limit: number, fn: (row: ScheduleRow) => Promise<ScheduleRow>, onError: (e: unknown) => void = () => {}): Promise<number> {
    // An idle pass (the common case, every second on every process) is one indexed read, not a transaction.
    if ((await this.pool.query('SELECT 1 FROM ajs.schedules WHERE due_at <= $1 LIMIT 1', [now])).rows.length === 0) return 0
    // Rows whose handling failed this pass ("tenant id": neither may hold a space) are not taken again in it.
    const failed: string[] = []
    let n = 0
    for (let i = 0; i < limit; i++) {
      try {
        const took = await this.tx(async (c) => {
          const due = await c.query(`SELECT data FROM ajs.schedules WHERE due_at <= $1 AND (tenant || ' ' || id) <> ALL($2::text[])
            ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED`, [now, failed])
          const row = due.rows[0]?.data as ScheduleRow | undefined
          if (!row) return false
          try {
            await this.save(c, await fn(row))
          } catch (e) {
            failed.push(`${row.tenant} ${row.id}`)
            throw e
          }
          return true
        })
        if (!took) break
        n++
      } catch (e) {
        onError(e)
      }
    }
    return n
  }

  async close(): Promise<void> {}
}
