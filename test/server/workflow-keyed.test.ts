/**
 * Issue 24 (linear cost): answering an external request and de-duplicating a signal or a cancellation
 * are keyed lookups, not scans of the journal. In memory the store counts the journal entries it copies
 * out: none for these commands, at 100 entries as at 20,000. On PostgreSQL the same commands answer
 * the same through the journal's expression index (journal_keys).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Logger, runMigrations } from 'graphile-worker'
import { createPgStores, type PgStores } from '../../src/server/index.ts'
import { HttpError } from '../../src/server/errors.ts'
import { MemoryWorkflowStore, PgWorkflowStore, type WorkflowRow, type WorkflowStore } from '../../src/server/stores/workflows.ts'
import { WorkflowService } from '../../src/server/workflows.ts'
import type { JournalEntry } from '../../src/workflows/engine/journal.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'

const SOURCE = `let s = 0\nfor (let i = 0; i < 1e9; i++) s += await agent('step ' + i, { external: true })\nexport default s`

/** A workflow parked on its external request `open`, after `answered` answered ones (two entries each). */
async function parked(store: WorkflowStore, id: string, answered: number, create: (row: WorkflowRow) => Promise<void>): Promise<void> {
  const now = Date.now()
  await create({ id, tenant: 't', state: 'waiting', createdAt: now, updatedAt: now, source: SOURCE, sourceName: 'workflow.ajs', args: {}, budget: null, view: { requests: [{ id: 'open', prompt: 'last' }] } })
  const entries: JournalEntry[] = [{ t: 'start', v: 1, astHash: 'h', sourceName: 'workflow.ajs', args: {}, budget: { total: null, spent: 0 }, seed: 1, at: now }]
  for (let i = 0; i < answered; i++) {
    entries.push({ t: 'request', key: `k${i}`, request: { type: 'agent', id: `r${i}`, prompt: `step ${i}`, options: { external: true } } })
    entries.push({ t: 'resolution', id: `r${i}`, resolution: { Ok: i } })
  }
  entries.push({ t: 'request', key: 'kin', request: { type: 'agent', id: 'internal', prompt: 'model', options: {} } })
  entries.push({ t: 'signal', id: 'sig-early', name: 'go' })
  entries.push({ t: 'request', key: 'kopen', request: { type: 'agent', id: 'open', prompt: 'last', options: { external: true } } })
  for (let i = 0; i < entries.length; i += 1000) await store.journal.append(id, entries.slice(i, i + 1000))
}

const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof HttpError ? e.code : String(e)))

/** Every command a client sends, with what each must answer. */
async function commands(service: WorkflowService, id: string): Promise<void> {
  expect(await codeOf(service.resolve('t', id, 'internal', 1))).toBe('NOT_FOUND') // not an external request
  expect(await codeOf(service.resolve('t', id, 'nope', 1))).toBe('NOT_FOUND')
  expect(await codeOf(service.resolve('t', id, 'r0', 1))).toBe('ALREADY_RESOLVED')
  expect(await service.resolve('t', id, 'open', 1)).toMatchObject({ state: 'running', requests: [] })
  expect(await codeOf(service.resolve('t', id, 'open', 2))).toBe('ALREADY_RESOLVED')
  expect((await service.signal('t', id, { name: 'go', id: 'sig-early' })).signal).toEqual({ id: 'sig-early', duplicate: true })
  expect((await service.signal('t', id, { name: 'go', id: 'sig-new' })).signal).toEqual({ id: 'sig-new', duplicate: false })
  expect((await service.signal('t', id, { name: 'go', id: 'sig-new' })).signal).toEqual({ id: 'sig-new', duplicate: true })
  await service.cancel('t', id, { reason: 'first' })
  await service.cancel('t', id, { reason: 'second' })
}

describe('in memory: commands read no journal entries, whatever its length', () => {
  for (const answered of [50, 10_000]) {
    test(`${answered * 2 + 4} entries`, async () => {
      const store = new MemoryWorkflowStore(async () => {})
      const service = new WorkflowService(store)
      const id = `wf_${answered}`
      await parked(store, id, answered, async (row) => { await store.create(row) })
      const before = store.entriesRead
      await commands(service, id)
      expect(store.entriesRead - before).toBe(0)
      const journal = await store.journal.read(id)
      expect(journal.filter((e) => e.t === 'signal').map((e) => (e as { id: string }).id)).toEqual(['sig-early', 'sig-new'])
      expect(journal.filter((e) => e.t === 'cancel')).toHaveLength(1)
      expect(journal.filter((e) => e.t === 'resolution' && e.id === 'open')).toHaveLength(1)
      await store.close()
    })
  }
  test('a command on a workflow whose first step has not run writes its start entry first (the journal was empty)', async () => {
    const store = new MemoryWorkflowStore(async () => {})
    const service = new WorkflowService(store)
    const now = Date.now()
    await store.create({ id: 'wf_new', tenant: 't', state: 'running', createdAt: now, updatedAt: now, source: SOURCE, sourceName: 'workflow.ajs', args: {}, budget: null, view: { requests: [] } })
    await service.signal('t', 'wf_new', { name: 'go', id: 's' })
    expect((await store.journal.read('wf_new')).map((e) => e.t)).toEqual(['start', 'signal'])
    await store.close()
  })
})

const available = postgresAvailable()
let db: TestPostgres
let pgStores: PgStores
beforeAll(async () => {
  if (!available) return
  db = await startPostgres()
  pgStores = await createPgStores(db.url)
  await runMigrations({ pgPool: pgStores.pool, logger: new Logger(() => () => {}) })
})
afterAll(async () => {
  await pgStores?.close()
  await db?.stop()
})

describe.skipIf(!available)('on PostgreSQL: the same answers through the journal_keys index', () => {
  test('resolve, signal and cancel de-duplicate by key', async () => {
    const store = new PgWorkflowStore(pgStores.pool)
    const service = new WorkflowService(store)
    await parked(store, 'wf_pg', 2000, async (row) => { await store.create(row) })
    await commands(service, 'wf_pg')
    const journal = await store.journal.read('wf_pg')
    expect(journal.filter((e) => e.t === 'signal')).toHaveLength(2)
    expect(journal.filter((e) => e.t === 'cancel')).toHaveLength(1)
    const plan = await pgStores.pool.query(`EXPLAIN SELECT entry FROM ajs.journal WHERE execution_id = $1 AND entry->>'t' = 'signal' AND coalesce(entry->>'id', entry->'request'->>'id') = $2 LIMIT 1`, ['wf_pg', 'sig-new'])
    expect(JSON.stringify(plan.rows)).toContain('journal_keys')
  })
})
