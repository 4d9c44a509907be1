/**
 * Issue 29 (inspector gaps): GET /v1/runs and GET /v1/workflows list the authenticated tenant's async
 * runs and workflows newest first, in bounded pages with opaque cursors, never another tenant's;
 * GET /v1/workflows/{id}/journal pages a workflow's journal with the budget as of each entry. Over
 * HTTP in memory, then the stores' listing and journal pages on PostgreSQL (ties of createdAt,
 * paging, isolation, the index range in the plan).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Logger, runMigrations } from 'graphile-worker'
import { startWorkflowServer, type WorkflowTestServer } from './workflow-server.ts'
import { createPgStores, createServer, parseServeConfig, tokenSha256, type AjsServer, type PgStores } from '../../src/server/index.ts'
import { MemoryRunRepo } from '../../src/server/stores/memory.ts'
import { MemoryWorkflowStore, PgWorkflowStore, type WorkflowListing, type WorkflowRow, type WorkflowStore } from '../../src/server/stores/workflows.ts'
import type { RunRepo } from '../../src/server/stores/types.ts'
import { journalPage, listRuns, listWorkflows } from '../../src/server/listing.ts'
import type { JournalEntry } from '../../src/workflows/engine/journal.ts'
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts'
import { runFinished } from './helpers.ts'

let t: WorkflowTestServer
let url: string
beforeAll(async () => {
  t = await startWorkflowServer()
  url = t.url
})
afterAll(async () => {
  await t?.close()
})
const req: WorkflowTestServer['req'] = (...a) => t.req(...a)

/** Every item of a list, page by page (`limit` per page); also checks each page's size. */
async function all(path: string, limit: number, token = 'ops-token'): Promise<any[]> {
  const out: any[] = []
  let cursor: string | undefined
  for (let i = 0; i < 100; i++) {
    const sep = path.includes('?') ? '&' : '?'
    const r = await req('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, token)
    expect(r.status).toBe(200)
    expect(r.json.items.length).toBeLessThanOrEqual(limit)
    out.push(...r.json.items)
    cursor = r.json.nextCursor
    if (!cursor) return out
    expect(r.json.items.length).toBe(limit)
  }
  throw new Error('too many pages')
}

async function until(id: string, pred: (wf: any) => boolean, token = 'ops-token') {
  for (let i = 0; i < 300; i++) {
    const wf = (await req('GET', `/v1/workflows/${id}`, undefined, token)).json
    if (pred(wf)) return wf
    await Bun.sleep(20)
  }
  throw new Error(`workflow ${id} did not reach the expected state`)
}

describe('GET /v1/runs', () => {
  test('the tenant\'s async runs only, newest first, paged by cursor, filtered by state', async () => {
    const mine: string[] = []
    const theirs: string[] = []
    /** Start an async run and wait for it (a tenant's concurrent runs are limited). */
    const run = async (source: string, token = 'ops-token') => {
      const r = await req('POST', '/v1/runs?async=1', { source, args: { n: 1 } }, token)
      expect(r.status).toBe(202)
      expect((await runFinished(t, r.json.id, token)).state).toBe('done')
      return r.json.id as string
    }
    for (let i = 0; i < 7; i++) {
      mine.push(await run(`function f({ n }) { return { n: n + ${i} } }`))
      if (i < 3) theirs.push(await run('function f() { return { x: 1 } }', 'other-token'))
    }
    const failed = await run('function f() { throw new Error("no") }')
    mine.push(failed)

    const listed = await all('/v1/runs', 3)
    expect(listed.map((r) => r.id)).toEqual([...mine].reverse()) // newest first, no repeats, none skipped
    expect(listed.some((r) => theirs.includes(r.id))).toBe(false)
    expect(listed[0]).toMatchObject({ id: failed, state: 'done', error: 'THROWN' })
    expect(listed[1]).toMatchObject({ state: 'done', fuelUsed: expect.any(Number) })
    expect(listed[1].result).toBeUndefined() // a summary, not the result
    const other = await all('/v1/runs', 100, 'other-token')
    expect(other.map((r) => r.id)).toEqual([...theirs].reverse())

    expect((await all('/v1/runs?state=done', 5)).length).toBe(mine.length)
    expect((await req('GET', '/v1/runs?state=queued')).json).toEqual({ items: [] })
  })

  test('bounds: limit 1..100, a state of the enum, a cursor as given; 401 without a token', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'state=failed', 'cursor=nope!', 'cursor=bm9wZQ', 'other=1']) {
      const r = await req('GET', `/v1/runs?${q}`)
      expect([q, r.status, r.json.error.code]).toEqual([q, 400, 'BAD_REQUEST'])
    }
    expect((await req('GET', '/v1/runs?limit=100')).status).toBe(200)
    expect((await fetch(`${url}/v1/runs`)).status).toBe(401)
  })

  test('a cursor of one tenant shows another tenant only their own runs', async () => {
    const page = (await req('GET', '/v1/runs?limit=1')).json
    expect(page.nextCursor).toBeString()
    const r = await req('GET', `/v1/runs?cursor=${page.nextCursor}`, undefined, 'other-token')
    expect(r.status).toBe(200)
    for (const item of r.json.items) expect((await req('GET', `/v1/runs/${item.id}`, undefined, 'other-token')).status).toBe(200)
    for (const item of r.json.items) expect((await req('GET', `/v1/runs/${item.id}`)).status).toBe(404)
  })
})

const BUDGETED = `
const a = await agent('first')
phase('middle')
const b = await agent('second')
log('logged', b)
const ok = await agent('Approve?', { external: true })
const c = await agent('third')
export default { a, b, ok, c }
`

describe('GET /v1/workflows and /v1/workflows/{id}/journal', () => {
  test('list: the tenant\'s only, newest first, paged, by state; the journal in pages with the budget over time', async () => {
    const ids: string[] = []
    // t.start: a workflow's first step holds the tenant's slot while it runs in its thread (a POST meanwhile is 429 TENANT_BUSY).
    // Each started in its own millisecond: the list is newest first by creation time, and a tie (two starts in one
    // millisecond) is ordered by id, not by start (CI at d6f3ac4 listed the last two the other way round).
    const nextMs = () => new Promise((r) => setTimeout(r, 2))
    for (let i = 0; i < 4; i++) { ids.push((await t.start({ source: `export default ${i}` })).json.id); await nextMs() }
    const other = (await req('POST', '/v1/workflows', { source: 'export default 1' }, 'other-token')).json.id
    await nextMs()
    const wf = (await t.start({ source: BUDGETED, budget: 5 })).json.id
    ids.push(wf)
    const waiting = await until(wf, (w) => w.state === 'waiting')
    for (const id of ids.slice(0, 4)) await until(id, (w) => w.state === 'done')

    const listed = await all('/v1/workflows', 2)
    expect(listed.map((w) => w.id)).toEqual([...ids].reverse())
    expect(listed.some((w) => w.id === other)).toBe(false)
    expect(listed[0]).toMatchObject({ id: wf, state: 'waiting', requests: 1, budget: 5, spent: 2, sourceName: 'workflow.ajs' })
    expect(listed[0].view).toBeUndefined()
    expect((await all('/v1/workflows?state=waiting', 10)).map((w) => w.id)).toEqual([wf])
    expect((await all('/v1/workflows?state=done', 10)).map((w) => w.id)).toEqual(ids.slice(0, 4).reverse())
    expect((await all('/v1/workflows', 10, 'other-token')).map((w) => w.id)).toEqual([other])

    // Another tenant's workflow has no journal for this one (404, as GET /v1/workflows/{id}).
    expect((await req('GET', `/v1/workflows/${wf}/journal`, undefined, 'other-token')).status).toBe(404)
    expect((await req('GET', `/v1/workflows/${other}/journal`)).status).toBe(404)
    for (const q of ['limit=0', 'limit=501', 'cursor=x', 'state=done']) expect((await req('GET', `/v1/workflows/${wf}/journal?${q}`)).status).toBe(400)

    await req('POST', `/v1/workflows/${wf}/requests/${waiting.requests[0].id}`, { value: true })
    await until(wf, (w) => w.state === 'done')
    const whole = (await req('GET', `/v1/workflows/${wf}/journal?limit=500`)).json
    expect(whole.nextCursor).toBeUndefined()
    expect(whole.entries.length).toBe(whole.total)
    // Pages of 2 give the same entries, numbered in order, with the budget carried across pages.
    const paged: any[] = []
    let cursor: string | undefined
    do {
      const page = (await req('GET', `/v1/workflows/${wf}/journal?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json
      expect(page.entries.length).toBeLessThanOrEqual(2)
      expect(page.total).toBe(whole.total)
      paged.push(...page.entries)
      cursor = page.nextCursor
    } while (cursor)
    expect(paged).toEqual(whole.entries)
    expect(paged.map((e) => e.seq)).toEqual(paged.map((_, i) => i + 1))
    const kinds = paged.map((e) => e.t)
    expect(kinds[0]).toBe('start')
    expect(kinds.at(-1)).toBe('end')
    expect(kinds).toContain('request')
    expect(kinds).toContain('resolution')
    expect(paged.some((e) => e.t === 'call' && e.call.type === 'phase')).toBe(true)
    // Budget over time: 0 at the start, +1 per model answer (the external answer costs none), total 5 throughout.
    expect(paged.every((e) => e.budgetTotal === 5)).toBe(true)
    const spent = paged.map((e) => e.budgetSpent)
    expect(spent[0]).toBe(0)
    expect(spent.at(-1)).toBe(3)
    expect(spent.every((s, i) => i === 0 || s >= spent[i - 1])).toBe(true)
  }, 30_000)

  test('in /openapi.json with their query parameters', async () => {
    const doc = (await req('GET', '/openapi.json')).json
    for (const [path, names] of [['/v1/runs', ['state', 'limit', 'cursor']], ['/v1/workflows', ['state', 'limit', 'cursor', 'tag', 'name']], ['/v1/workflows/{id}/journal', ['id', 'limit', 'cursor']]] as const) {
      expect(doc.paths[path].get.parameters.map((p: { name: string }) => p.name)).toEqual([...names, ...(path === '/v1/workflows' ? ['attr.<name>'] : [])])
    }
    // `?attr.<name>=<value>` (issue 24): one exploded form-style object whose property names follow the pattern.
    const attr = doc.paths['/v1/workflows'].get.parameters.at(-1)
    expect(attr).toMatchObject({ in: 'query', required: false, style: 'form', explode: true, schema: { type: 'object', additionalProperties: { type: 'string', maxLength: 1024 } } })
    expect(attr.description).toContain('attr.priority=2')
    const names = new RegExp(attr.schema.propertyNames.pattern)
    expect(['attr.priority', 'attr.team.region'].every((n) => names.test(n))).toBe(true)
    expect(['priority', 'attr.', 'tag'].some((n) => names.test(n))).toBe(false)
  })
})

// ---- the stores ---------------------------------------------------------------------------------

const row = (id: string, tenant: string, createdAt: number, state: WorkflowRow['state'] = 'done'): WorkflowRow =>
  ({ id, tenant, state, createdAt, updatedAt: createdAt, source: 'export default 1', sourceName: 'workflow.ajs', args: {}, budget: null, view: { requests: [] } })

/** Workflows of two tenants, several created in the same millisecond: pages of 3 return each of the tenant's once, newest first. */
async function listsPaged(store: WorkflowStore & WorkflowListing, runs: RunRepo): Promise<void> {
  const t0 = 1_700_000_000_000
  const expected: string[] = []
  for (let i = 0; i < 11; i++) {
    const at = t0 + Math.floor(i / 3) // ties of createdAt: ordered by id
    const id = `wf_s${String(i).padStart(2, '0')}`
    await store.create(row(id, 'ta', at, i % 2 ? 'failed' : 'done'))
    await store.create(row(`wf_o${i}`, 'tb', at))
    await runs.create({ id: `run_s${String(i).padStart(2, '0')}`, tenant: 'ta', state: 'queued', createdAt: at })
    await runs.create({ id: `run_o${i}`, tenant: 'tb', state: 'queued', createdAt: at })
    expected.unshift(id)
  }
  const pages = async <T extends { id: string }>(next: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) => {
    const out: string[] = []
    let cursor: string | undefined
    do {
      const p = await next(cursor)
      expect(p.items.length).toBeLessThanOrEqual(3)
      out.push(...p.items.map((x) => x.id))
      cursor = p.nextCursor
    } while (cursor)
    return out
  }
  expect(await pages((cursor) => listWorkflows(store, 'ta', { limit: '3', ...(cursor ? { cursor } : {}) }))).toEqual(expected)
  expect(await pages((cursor) => listWorkflows(store, 'ta', { limit: '3', state: 'failed', ...(cursor ? { cursor } : {}) }))).toEqual(expected.filter((id) => Number(id.slice(-2)) % 2 === 1))
  expect((await pages((cursor) => listWorkflows(store, 'tb', { limit: '3', ...(cursor ? { cursor } : {}) }))).every((id) => id.startsWith('wf_o'))).toBe(true)
  expect(await pages((cursor) => listRuns(runs, 'ta', { limit: '3', ...(cursor ? { cursor } : {}) }))).toEqual(expected.map((id) => id.replace('wf_', 'run_')))
  expect(await listWorkflows(store, 'nobody', {})).toEqual({ items: [] })

  // Journal pages: in order, bounded, with the budget from the start entry and each model answer.
  const entries: JournalEntry[] = [{ t: 'start', v: 1, astHash: 'h', sourceName: 'workflow.ajs', args: {}, budget: { total: 10, spent: 1 }, seed: 1, at: t0 }]
  for (let i = 0; i < 6; i++) {
    entries.push({ t: 'request', key: `k${i}`, request: { type: 'agent', id: `r${i}`, prompt: `p${i}` } })
    entries.push({ t: 'resolution', id: `r${i}`, resolution: { OkWithBudget: { value: i, budget: { total: 10, spent: i + 2 } } } })
  }
  await store.journal.append('wf_s00', entries)
  const seen: Array<[number, string, number]> = []
  let cursor: string | undefined
  do {
    const p = await journalPage(store, 'wf_s00', { limit: '4', ...(cursor ? { cursor } : {}) })
    expect(p.total).toBe(13)
    expect(p.entries.length).toBeLessThanOrEqual(4)
    seen.push(...p.entries.map((e) => [e.seq, e.t, e.budgetSpent] as [number, string, number]))
    cursor = p.nextCursor
  } while (cursor)
  expect(seen.map(([s]) => s)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1))
  expect(seen.map(([, , b]) => b)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7])
}

describe('the stores', () => {
  test('in memory', async () => {
    const store = new MemoryWorkflowStore(async () => {})
    await listsPaged(store, new MemoryRunRepo())
    await store.close()
  })

  const available = postgresAvailable()
  let db: TestPostgres | undefined
  let pgStores: PgStores | undefined
  afterAll(async () => {
    await pgStores?.close()
    await db?.stop()
  })
  test.skipIf(!available)('on PostgreSQL: the same pages, a range of the tenant index', async () => {
    db = await startPostgres()
    pgStores = await createPgStores(db.url)
    await runMigrations({ pgPool: pgStores.pool, logger: new Logger(() => () => {}) })
    await listsPaged(new PgWorkflowStore(pgStores.pool), pgStores.runs)
    await pgStores.pool.query('ANALYZE')
    await pgStores.pool.query('SET enable_seqscan = off')
    const plan = await pgStores.pool.query(`EXPLAIN SELECT id FROM ajs.workflows WHERE tenant = 'ta' AND (created_at, id) < (1700000000002, 'wf_s07') ORDER BY created_at DESC, id DESC LIMIT 4`)
    expect(JSON.stringify(plan.rows)).toContain('workflows_tenant_created')
  }, 60_000)
})
