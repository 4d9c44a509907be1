/**
 * The Postgres stores behave like the in-memory ones: agent memory (get,
 * set, query with prefix/where/limit/offset, vector search, addVector) gives
 * the same answers on both, per tenant; procedures expire; usage adds up;
 * migrations run once even when two processes start together.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createMemoryStores, createPgStores, type PgStores } from '../../src/server/index.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'

const available = postgresAvailable()
let db: TestPostgres
let pgStores: PgStores
beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  // Two start-ups at once: the advisory lock serializes the migrations.
  const [a, b] = await Promise.all([createPgStores(db.url), createPgStores(db.url)])
  await b.close()
  pgStores = a
})
afterAll(async () => {
  await pgStores?.close()
  await db?.stop()
})

describe.skipIf(!available)('Postgres stores', () => {
  test('agent memory answers like the in-memory store, and tenants do not share it', async () => {
    const mem = createMemoryStores().memory('t1')
    const pgm = pgStores.memory('t1')
    const ops: Array<[string, unknown[]]> = [
      ['set', ['user:1', { name: 'Ada', tier: 'gold' }]],
      ['set', ['user:2', { name: 'Bob', tier: 'free' }]],
      ['set', ['user:3', { name: 'Cy', tier: 'gold' }]],
      ['set', ['note', 'plain text']],
      ['addVector', ['docs', 'a', [1, 0, 0], { title: 'A' }]],
      ['addVector', ['docs', 'b', [0.7, 0.7, 0], { title: 'B' }]],
      ['addVector', ['docs', 'c', [0, 0, 1], { title: 'C' }]],
      ['set', ['user:2', { name: 'Bob', tier: 'gold' }]],
    ]
    for (const [op, args] of ops) {
      expect(await (pgm as any)[op](...args)).toEqual(await (mem as any)[op](...args))
    }
    const reads: Array<[string, unknown[]]> = [
      ['get', ['user:1']], ['get', ['missing']], ['get', ['note']], ['has', ['user:3']], ['has', ['nope']],
      ['query', [{ prefix: 'user:' }]], ['query', [{ prefix: 'user:', where: { tier: 'gold' }, limit: 1, offset: 1 }]],
      ['vectorSearch', [{ collection: 'docs', vector: [1, 0.1, 0], k: 2 }]],
      ['vectorSearch', [{ collection: 'docs', vector: [0, 0, 1], filter: { title: 'C' } }]],
      ['delete', ['user:3']], ['has', ['user:3']],
    ]
    for (const [op, args] of reads) {
      expect([op, await (pgm as any)[op](...args)]).toEqual([op, await (mem as any)[op](...args)])
    }
    expect(await pgStores.memory('t2').get('user:1')).toBeNull()
    expect(await pgStores.memory('t2').query({ prefix: '' })).toEqual([])
  })

  test('procedures are per tenant and expire; usage adds up per tenant and day', async () => {
    const now = Date.now()
    await pgStores.procedures.put({ token: 'proc_x', tenant: 't1', astText: '{"ajs":1}', key: 'k', createdAt: now, expiresAt: now + 60_000 })
    await pgStores.procedures.put({ token: 'proc_old', tenant: 't1', astText: '{}', key: 'k2', createdAt: now, expiresAt: now - 1 })
    expect((await pgStores.procedures.get('t1', 'proc_x'))?.astText).toBe('{"ajs":1}')
    expect(await pgStores.procedures.get('t2', 'proc_x')).toBeUndefined()
    expect(await pgStores.procedures.get('t1', 'proc_old')).toBeUndefined()
    expect(await pgStores.procedures.clearExpired(now)).toBe(1)
    expect(await pgStores.procedures.delete('t2', 'proc_x')).toBe(false)
    expect(await pgStores.procedures.delete('t1', 'proc_x')).toBe(true)
    await pgStores.usage.add('t1', '2026-01-01', 1.5)
    await pgStores.usage.add('t1', '2026-01-01', 2.25)
    expect(await pgStores.usage.used('t1', '2026-01-01')).toBe(3.75)
    expect(await pgStores.usage.used('t2', '2026-01-01')).toBe(0)
  })
})
