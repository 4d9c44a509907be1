/** One PostgreSQL transaction on a connection of a pool, for the stores that take several statements in one step. */
import type pg from 'pg'

/** Run `fn` in one transaction: committed when it returns, rolled back when it throws; the connection goes back either way. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect()
  try {
    await c.query('BEGIN')
    const out = await fn(c)
    await c.query('COMMIT')
    return out
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {})
    throw e
  } finally {
    c.release()
  }
}
