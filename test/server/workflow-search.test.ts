/**
 * Issue 24, listing and search on the server: POST /v1/workflows { name, tags, attributes }, a workflow's own
 * upsertAttributes, GET /v1/workflows?state=&tag=&attr.k=v&name=&limit=&cursor= (paged, the tenant's only), bad
 * bodies refused with SEARCH_ATTRIBUTES_* codes; then the stores: the same filters in memory and on PostgreSQL
 * (the attributes column kept by the journal's entries in one statement, continueAsNew, the GIN indexes in the plan).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Logger, runMigrations } from 'graphile-worker'
import { servePostgres } from './ajsc-process.ts'
import { startWorkflowServer, workflowClient, type WorkflowTestServer } from './workflow-server.ts'
import { createPgStores, type PgStores } from '../../src/server/index.ts'
import { MemoryWorkflowStore, PgWorkflowStore, type WorkflowRow, type WorkflowStore } from '../../src/server/stores/workflows.ts'
import { listWorkflows, type WorkflowListParams } from '../../src/server/listing.ts'
import type { JournalEntry } from '../../src/workflows/engine/journal.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'

let t: WorkflowTestServer
beforeAll(async () => { t = await startWorkflowServer() })
afterAll(async () => { await t?.close() })

const SOURCE = `upsertAttributes({ stage: 'waiting' })
const ok = await agent('approve?', { external: true })
upsertAttributes({ stage: ok ? 'approved' : 'rejected', approver: null })
export default ok`

/** Ids of every item of a filtered list, walking pages of 2. */
async function ids(query: string, token = 'ops-token'): Promise<string[]> {
  const out: string[] = []
  let cursor: string | undefined
  for (let i = 0; i < 50; i++) {
    const r = await t.req('GET', `/v1/workflows?limit=2${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, token)
    expect(r.status).toBe(200)
    out.push(...r.json.items.map((w: { id: string }) => w.id))
    cursor = r.json.nextCursor
    if (!cursor) return out
  }
  throw new Error('too many pages')
}

describe('GET /v1/workflows filters (in memory)', () => {
  test('by tag, attribute (given or upserted by the workflow), name and state; newest first, paged; the tenant\'s only', async () => {
    const start = async (body: Record<string, unknown>) => {
      const r = await t.start({ source: SOURCE, ...body })
      expect(r.status).toBe(201)
      return r.json.id as string
    }
    const a = await start({ name: 'invoice', tags: ['billing', 'eu'], attributes: { customer: 'acme', priority: 2, approver: 'ada' } })
    const b = await start({ name: 'invoice', tags: ['billing'], attributes: { customer: 'acme', priority: 1 } })
    const c = await start({ name: 'refund', tags: ['eu'], attributes: { customer: 'globex', urgent: true } })
    const theirs = await t.req('POST', '/v1/workflows', { source: SOURCE, tags: ['billing'], attributes: { customer: 'acme' } }, 'other-token')
    expect(theirs.status).toBe(201)
    for (const id of [a, b, c]) await t.until(id, (wf) => wf.state === 'waiting')

    expect(await ids('tag=billing')).toEqual([b, a])
    expect(await ids('tag=billing&tag=eu')).toEqual([a])
    expect(await ids('attr.customer=acme')).toEqual([b, a])
    expect(await ids('attr.customer=acme&attr.priority=2')).toEqual([a])
    expect(await ids('attr.urgent=true')).toEqual([c])
    expect(await ids('attr.stage=waiting')).toEqual([c, b, a]) // upserted by each workflow's first step
    expect(await ids('name=invoice&tag=eu')).toEqual([a])
    expect(await ids('tag=nope')).toEqual([])
    expect(await ids('tag=billing', 'other-token')).toEqual([theirs.json.id])

    // The workflow changes its attributes as it goes: a's answer makes it approved, and removes its approver.
    const wa = await t.until(a, (wf) => wf.requests?.length === 1)
    expect((await t.req('POST', `/v1/workflows/${a}/requests/${wa.requests[0].id}`, { value: true })).status).toBe(200)
    await t.until(a, (wf) => wf.state === 'done')
    expect(await ids('attr.stage=approved')).toEqual([a])
    expect(await ids('attr.stage=waiting')).toEqual([c, b])
    expect(await ids('attr.approver=ada')).toEqual([])
    expect(await ids('state=done&attr.customer=acme')).toEqual([a])
    const [item] = (await t.req('GET', '/v1/workflows?limit=1&state=done')).json.items
    expect(item).toMatchObject({ id: a, name: 'invoice', tags: ['billing', 'eu'], attributes: { customer: 'acme', priority: 2, stage: 'approved' } })
    expect(item.attributes.approver).toBeUndefined()
    expect(await t.req('GET', `/v1/workflows/${a}`)).toMatchObject({ json: { name: 'invoice', tags: ['billing', 'eu'], attributes: { stage: 'approved' } } })
  }, 30_000)

  test('bounds: a bad name, tags or attributes is a 400 with its code; a bad filter is a 400', async () => {
    const code = async (body: Record<string, unknown>) => {
      const r = await t.req('POST', '/v1/workflows', { source: 'export default 1', ...body })
      expect(r.status).toBe(400)
      return r.json.error.code as string
    }
    expect(await code({ tags: Array.from({ length: 17 }, (_, i) => `t${i}`) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(await code({ tags: ['has space'] })).toBe('SEARCH_ATTRIBUTES_INVALID')
    expect(await code({ attributes: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(await code({ attributes: { big: 'x'.repeat(5000) } })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    expect(await code({ attributes: { nested: { a: 1 } } })).toBe('BAD_REQUEST') // the body's schema
    expect(await code({ name: 'x'.repeat(201) })).toBe('SEARCH_ATTRIBUTES_LIMIT')
    const err = (await t.req('POST', '/v1/workflows', { source: 'export default 1', tags: ['a b'] })).json.error
    expect(err.hint).toContain('"tags"')
    expect((await t.req('GET', '/v1/workflows?attr.bad%20name=1')).status).toBe(400)
    expect((await t.req('GET', `/v1/workflows?tag=${'x'.repeat(65)}`)).status).toBe(400)
  })
})

// ---- the stores ---------------------------------------------------------------------------------

const row = (id: string, createdAt: number, search: WorkflowRow['search'], state: WorkflowRow['state'] = 'running'): WorkflowRow =>
  ({ id, tenant: 'ta', state, createdAt, updatedAt: createdAt, source: 'export default 1', sourceName: 'workflow.ajs', args: {}, budget: null, view: { requests: [] }, ...(search ? { search } : {}) })
const START: JournalEntry = { t: 'start', v: 1, astHash: 'h', sourceName: 'workflow.ajs', args: {}, budget: { total: null, spent: 0 }, seed: 1, at: 1 }

/** The same filters over a store's list, and the attributes kept from the journal's entries. */
async function searches(store: WorkflowStore): Promise<void> {
  const t0 = 1_700_000_000_000
  await store.create(row('w1', t0, { name: 'a', tags: ['x', 'y'], attributes: { customer: 'acme', n: 2 } }), undefined, false, [START])
  await store.create(row('w2', t0 + 1, { tags: ['x'], attributes: { customer: 'acme', n: 3, flag: true } }))
  await store.create(row('w3', t0 + 2, undefined, 'failed'))
  const list = async (p: WorkflowListParams) => (await listWorkflows(store, 'ta', p)).items.map((w) => w.id)
  expect(await list({})).toEqual(['w3', 'w2', 'w1'])
  expect(await list({ tag: 'x' })).toEqual(['w2', 'w1'])
  expect(await list({ tag: ['x', 'y'] })).toEqual(['w1'])
  expect(await list({ 'attr.n': '2' })).toEqual(['w1'])
  expect(await list({ 'attr.flag': 'true', 'attr.customer': 'acme' })).toEqual(['w2'])
  expect(await list({ name: 'a' })).toEqual(['w1'])
  expect(await list({ state: 'failed', tag: 'x' })).toEqual([])
  const p1 = await listWorkflows(store, 'ta', { tag: 'x', limit: '1' })
  expect(p1.items.map((w) => w.id)).toEqual(['w2'])
  expect((await listWorkflows(store, 'ta', { tag: 'x', limit: '1', cursor: p1.nextCursor! })).items.map((w) => w.id)).toEqual(['w1'])

  // upsertAttributes entries change the row's attributes (a later set wins, null removes).
  await store.journal.append('w1', [{ t: 'attributes', set: { stage: 'one', n: null } }, { t: 'attributes', set: { stage: 'two' } }])
  expect((await store.load('w1'))!.search).toEqual({ name: 'a', tags: ['x', 'y'], attributes: { customer: 'acme', stage: 'two' } })
  expect(await list({ 'attr.stage': 'two' })).toEqual(['w1'])
  expect(await list({ 'attr.n': '2' })).toEqual([])

  // continueAsNew: the next run's start entry carries what the workflow is found by.
  await store.continueAsNew('w1', { ...START, t: 'start', args: { round: 2 }, previous: 'w1', chain: 1 } as JournalEntry & { t: 'start' }, { requests: [], chain: 1 })
  expect((await store.journal.read('w1'))[0]).toMatchObject({ t: 'start', args: { round: 2 }, name: 'a', tags: ['x', 'y'], attributes: { customer: 'acme', stage: 'two' } })
  expect(await list({ 'attr.stage': 'two', tag: 'y' })).toEqual(['w1'])
}

describe('the stores', () => {
  test('in memory', async () => {
    const store = new MemoryWorkflowStore(async () => {})
    await searches(store)
    await store.close()
  })

  let db: TestPostgres | undefined
  let pgStores: PgStores | undefined
  afterAll(async () => {
    await pgStores?.close()
    await db?.stop()
  })
  test.skipIf(!postgresAvailable())('on PostgreSQL: the same filters, through the GIN indexes', async () => {
    db = await startPostgres()
    pgStores = await createPgStores(db.url)
    await runMigrations({ pgPool: pgStores.pool, logger: new Logger(() => () => {}) })
    await searches(new PgWorkflowStore(pgStores.pool))
    await pgStores.pool.query('ANALYZE')
    await pgStores.pool.query('SET enable_seqscan = off')
    const plan = async (where: string) => JSON.stringify((await pgStores!.pool.query(`EXPLAIN SELECT id FROM ajs.workflows WHERE ${where}`)).rows)
    expect(await plan(`tags @> ARRAY['x']::text[]`)).toContain('workflows_tags')
    expect(await plan(`attributes @> '{"customer":"acme"}'::jsonb`)).toContain('workflows_attributes')
  }, 60_000)
})

describe.skipIf(!postgresAvailable())('ajsc serve --database', () => {
  let served: Awaited<ReturnType<typeof servePostgres>> | undefined
  afterAll(async () => { await served?.stop() })

  test('POST with tags and attributes, the workflow\'s upserts through a job, GET /v1/workflows filtered', async () => {
    served = await servePostgres('ajs-wfsearch-')
    const url = served.url
    const { req, until } = workflowClient(url, { tries: 600, intervalMs: 25 })
    const a = (await req('POST', '/v1/workflows', { source: SOURCE, name: 'invoice', tags: ['billing'], attributes: { customer: 'acme', approver: 'ada' } })).json.id
    const b = (await req('POST', '/v1/workflows', { source: SOURCE, tags: ['billing', 'eu'], attributes: { customer: 'globex' } })).json.id
    const wa = await until(a, (wf) => wf.state === 'waiting')
    await until(b, (wf) => wf.state === 'waiting')
    const list = async (q: string) => (await req('GET', `/v1/workflows?${q}`)).json.items.map((w: { id: string }) => w.id)
    expect(await list('attr.stage=waiting')).toEqual([b, a])
    expect(await list('tag=billing&tag=eu')).toEqual([b])
    expect((await req('POST', `/v1/workflows/${a}/requests/${wa.requests[0].id}`, { value: true })).status).toBe(200)
    await until(a, (wf) => wf.state === 'done')
    expect(await list('attr.stage=approved&attr.customer=acme&name=invoice')).toEqual([a])
    expect(await list('attr.approver=ada')).toEqual([])
    const [item] = (await req('GET', '/v1/workflows?state=done')).json.items
    expect(item).toMatchObject({ id: a, name: 'invoice', tags: ['billing'], attributes: { customer: 'acme', stage: 'approved' } })
    const journal = (await req('GET', `/v1/workflows/${a}/journal`)).json.entries
    expect(journal[0]).toMatchObject({ t: 'start', name: 'invoice', tags: ['billing'], attributes: { customer: 'acme', approver: 'ada' } })
    expect(journal.filter((e: { t: string }) => e.t === 'attributes').map((e: { set: unknown }) => e.set)).toEqual([{ stage: 'waiting' }, { stage: 'approved', approver: null }])
    const big = await req('POST', '/v1/workflows', { source: SOURCE, attributes: { text: 'x'.repeat(5000) } })
    expect([big.status, big.json.error.code]).toEqual([400, 'SEARCH_ATTRIBUTES_LIMIT'])
  }, 60_000)
})
