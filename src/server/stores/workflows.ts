/**
 * Where workflows live: their row (source, args, state, a view for GET),
 * their journal, the scheduling of their next step and the lock that lets
 * one step run at a time. In memory (timers, a Set of locks) or in Postgres
 * (ajs.workflows, ajs.journal, Graphile Worker jobs, advisory locks).
 */
import type pg from 'pg'
import type { JournalEntry, JournalStore } from '../../workflows/engine/journal.ts'
import type { WorkflowResolution } from '../../workflows/engine/types.ts'
import type { RunRetryPolicy } from '../../workflows/engine/retry.ts'
import type { WorkflowTimeouts } from '../../workflows/engine/timeouts.ts'
import { setLongTimeout, type LongTimer } from '../../vm/long-timer.ts'
import { inTransaction } from './pg-tx.ts'
import { TenantTotals, checkQuota, jsonLength, type StoreQuota } from './quota.ts'
import { newestOf, type ListQuery } from './list.ts'
import { applySet, attributeCandidates, matchesSearch, type SearchFilter, type SearchInfo, type SearchValue } from '../../workflows/engine/search.ts'

export type WorkflowState = 'running' | 'waiting' | 'done' | 'failed' | 'cancelled'

/** States a workflow never leaves on its own (a failed one may be retried). */
export const ENDED_STATES: readonly WorkflowState[] = ['done', 'failed', 'cancelled']

export interface WorkflowView {
  /** External requests waiting for POST /v1/workflows/{id}/requests/{rid}. */
  requests: Array<{ id: string; prompt: string; options?: unknown }>
  meta?: Record<string, unknown>
  /** When a parked workflow's next sleep ends (ms). */
  wakeAt?: number
  /** The last log / phase calls. */
  logs?: unknown[]
  result?: unknown
  error?: Record<string, unknown>
  /** Child workflows it started (`workflow(name, args)`): the request each answers and the child's id. */
  children?: Array<{ requestId: string; id: string }>
  /** Agent calls the run spent (kept when it ends, for a parent's budget). */
  spent?: number
  /** What the run exposed (`expose(name, value)`) at the end of its last step: what queries read. Not shown by GET. */
  exposed?: Record<string, unknown>
  /** The exposed values were larger than the server keeps (queries answer 404). */
  exposedTooLarge?: true
  /** A cancellation asked for while a step held the workflow: the next step journals it. */
  cancelRequested?: string
  /** Runs the workflow has continued as new (continueAsNew): the current run's place in its chain. */
  chain?: number
}

export interface WorkflowRow {
  id: string
  tenant: string
  state: WorkflowState
  createdAt: number
  updatedAt: number
  source: string
  sourceName: string
  args: unknown
  /** Agent calls allowed (null: unlimited). */
  budget: number | null
  view: WorkflowView
  /** The run's retry policy (journaled in its start entry by the first step). */
  retry?: RunRetryPolicy
  /** The run's timeouts (journaled in its start entry by the first step). */
  timeouts?: WorkflowTimeouts
  /** Workflow modules its `workflow(name, args)` calls may start, by name (children get the same). */
  modules?: Record<string, string>
  /** A child workflow: its parent and the parent's request it answers. */
  parent?: { id: string; requestId: string }
  /** Its name, tags and search attributes (the attributes kept current from the journal's `attributes` entries). */
  search?: SearchInfo
}

/** What a command decides under the workflow's lock: entries to journal, the row's new state and view, and when its next step runs. */
export interface CommandDecision<T> {
  result: T
  append?: JournalEntry[]
  state?: WorkflowState
  view?: WorkflowView
  /** Schedule the next step (ms since epoch). */
  scheduleAt?: number
}
export type Decide<T> = (row: WorkflowRow | undefined, journal: () => Promise<readonly JournalEntry[]>, lookup: JournalLookup) => Promise<CommandDecision<T>> | CommandDecision<T>

/**
 * What commands ask of a workflow's journal, answered by key (an index in
 * memory, an expression index in Postgres), never by reading the journal: a
 * signal, a cancellation or an external answer costs the same at entry 10 and
 * at entry 20,000.
 */
export interface JournalLookup {
  /** Entries journaled. */
  count(): Promise<number>
  /** Is a signal of this id journaled? */
  hasSignal(id: string): Promise<boolean>
  /** Is a cancellation journaled? */
  hasCancel(): Promise<boolean>
}

export type ResolveOutcome = 'ok' | 'unknown' | 'resolved' | 'busy'

/** A workflow as GET /v1/workflows lists it: state, times, its module's name, open requests and budget (not its view). */
export interface WorkflowSummary {
  id: string
  state: WorkflowState
  createdAt: number
  updatedAt: number
  sourceName: string
  /** External requests waiting for an answer. */
  requests: number
  /** Agent calls allowed (null: unlimited), and spent as of its last step. */
  budget: number | null
  spent?: number
  /** A child workflow's parent. */
  parent?: string
  /** The code of a failed workflow's error. */
  error?: string
  /** What it is found by (GET /v1/workflows?tag=&attr.k=&name=). */
  name?: string
  tags?: string[]
  attributes?: Record<string, SearchValue>
}

/** A list query of workflows: the state, and the search filter (every tag, every attribute, the name). */
export type WorkflowListQuery = ListQuery<WorkflowState> & { search?: SearchFilter }

/** What listing and the journal pages ask of a store (GET /v1/workflows, GET /v1/workflows/{id}/journal). */
export interface WorkflowListing {
  /** The tenant's workflows, newest first: `limit + 1` of them from the cursor on (only this tenant's, ever). */
  list(tenant: string, q: WorkflowListQuery): Promise<WorkflowSummary[]>
  /** Up to `limit` journal entries from index `from` (0-based), and how many the journal has. */
  journalPage(id: string, from: number, limit: number): Promise<{ entries: JournalEntry[]; total: number }>
}

const summaryOf = (r: WorkflowRow): WorkflowSummary => ({
  id: r.id, state: r.state, createdAt: r.createdAt, updatedAt: r.updatedAt, sourceName: r.sourceName,
  requests: r.view.requests?.length ?? 0, budget: r.budget,
  ...(typeof r.view.spent === 'number' ? { spent: r.view.spent } : {}),
  ...(r.parent ? { parent: r.parent.id } : {}),
  ...(typeof r.view.error?.['code'] === 'string' ? { error: r.view.error['code'] } : {}),
  ...structuredClone(r.search),
})

/** The sets of a batch's `attributes` entries as one (later keys win; null still removes). */
function attributeSets(entries: readonly JournalEntry[]): Record<string, SearchValue | null> | undefined {
  let out: Record<string, SearchValue | null> | undefined
  for (const e of entries) if (e.t === 'attributes') out = { ...out, ...e.set }
  return out
}

/**
 * The next run's start entry with the workflow's name, tags and attributes as the row has them (continueAsNew on
 * the server keeps the workflow's row: the new run starts from what it is found by, as continueWorkflow does).
 */
const withSearch = (start: JournalEntry & { t: 'start' }, search: SearchInfo | undefined): JournalEntry & { t: 'start' } => {
  const { name: _n, tags: _t, attributes: _a, ...rest } = start
  return { ...rest, ...structuredClone(search) }
}

export interface WorkflowStore extends WorkflowListing {
  journal: JournalStore
  /**
   * Create the workflow and schedule its first step (together); with a quota, refused (STORE_QUOTA_EXCEEDED) when the tenant would go over it.
   * With `ifAbsent`, an existing workflow of that id is left as it is (false; a child started again after a crash).
   * `journal`: its first entries (the start entry, written with the row: POST /v1/workflows).
   */
  create(row: WorkflowRow, quota?: StoreQuota, ifAbsent?: boolean, journal?: readonly JournalEntry[]): Promise<boolean>
  /** Journal entries from index `from` on (what was appended after a live execution's last entry). */
  journalFrom(id: string, from: number): Promise<JournalEntry[]>
  /** Drop finished (done, failed) workflows last updated before this time, with their journals; returns how many. */
  prune(updatedBefore: number): Promise<number>
  load(id: string): Promise<WorkflowRow | undefined>
  /** Record the state after a step; schedule the next step at `wakeAt` when given, and a step of `wakeParent` now (together). */
  update(id: string, state: WorkflowState, view: WorkflowView, wakeAt?: number, wakeParent?: string): Promise<void>
  schedule(id: string, at: number): Promise<void>
  /**
   * The run called continueAsNew: its journal is replaced by the next run's start entry (`start`, holding the new
   * args), the row gets those args, state running and `view`, and the next step is scheduled now (together).
   */
  continueAsNew(id: string, start: JournalEntry & { t: 'start' }, view: WorkflowView): Promise<void>
  /** Run `fn` holding the workflow's lock, or 'busy' when a step holds it. */
  withLock(id: string, fn: () => Promise<void>): Promise<'ran' | 'busy'>
  /** Journal the answer of an open external request and schedule the next step, in one transaction. */
  resolveExternal(id: string, requestId: string, resolution: WorkflowResolution): Promise<ResolveOutcome>
  /**
   * A command (signal, cancel, retry): under the workflow's lock (waiting up to a few seconds for a step to end),
   * `decide` reads the row and journal; its entries, the row's state and view and the next step commit together
   * (one transaction in Postgres). 'busy' when a step kept the lock.
   */
  command<T>(id: string, decide: Decide<T>): Promise<T | 'busy'>
  /** Ask a workflow that has not ended to cancel at its next step (no lock needed); false when it has ended or does not exist. */
  flagCancel(id: string, reason: string): Promise<boolean>
  close(): Promise<void>
}

/** Is this (the first request entry of its id) an external agent request? */
function isExternalRequest(req: JournalEntry | undefined): boolean {
  if (!req || req.t !== 'request' || req.request.type !== 'agent') return false
  return (req.request.options as { external?: unknown } | undefined)?.external === true
}

/** Is `requestId` an external request of this journal, and is it still open? */
const openExternal = (req: JournalEntry | undefined, resolved: boolean): 'open' | 'unknown' | 'resolved' =>
  !isExternalRequest(req) ? 'unknown' : resolved ? 'resolved' : 'open'

/** The keys of one workflow's journal in memory, kept as entries are appended. */
class JournalKeys {
  /** Whether the first request entry of each id is an external agent request. */
  readonly external = new Map<string, boolean>()
  readonly resolved = new Set<string>()
  readonly signals = new Set<string>()
  cancelled = false

  add(e: JournalEntry): void {
    if (e.t === 'request') { if (!this.external.has(e.request.id)) this.external.set(e.request.id, isExternalRequest(e)) }
    else if (e.t === 'resolution') this.resolved.add(e.id)
    else if (e.t === 'signal') this.signals.add(e.id)
    else if (e.t === 'cancel') this.cancelled = true
  }

  open(requestId: string): 'open' | 'unknown' | 'resolved' {
    return this.external.get(requestId) !== true ? 'unknown' : this.resolved.has(requestId) ? 'resolved' : 'open'
  }
}

const LOCK_WAIT_MS = 3000

export class MemoryWorkflowStore implements WorkflowStore {
  private readonly rows = new Map<string, WorkflowRow>()
  private readonly journals = new Map<string, JournalEntry[]>()
  private readonly keys = new Map<string, JournalKeys>()
  /** Journal entries copied out by reads (`journal.read`, `journalFrom`, a command's `journal()`): what tests count instead of timing. */
  entriesRead = 0
  private readonly locks = new Set<string>()
  private readonly timers = new Map<string, LongTimer>()
  /** Bytes each workflow holds (source, arguments, journal), and per tenant. */
  private readonly sizes = new Map<string, number>()
  private readonly totals = new TenantTotals()
  readonly journal: JournalStore = {
    append: (id, entries) => {
      let list = this.journals.get(id)
      if (!list) this.journals.set(id, (list = []))
      let keys = this.keys.get(id)
      if (!keys) this.keys.set(id, (keys = new JournalKeys()))
      let bytes = 0
      for (const e of entries) { const copy = structuredClone(e); list.push(copy); keys.add(copy); bytes += jsonLength(e) }
      const row = this.rows.get(id)
      if (row !== undefined) { this.sizes.set(id, (this.sizes.get(id) ?? 0) + bytes); this.totals.add(row.tenant, 0, bytes) }
      const set = attributeSets(entries)
      if (row && set) {
        const attributes = applySet(row.search?.attributes ?? {}, set)
        const { attributes: _old, ...rest } = row.search ?? {}
        row.search = { ...rest, ...(Object.keys(attributes).length > 0 ? { attributes } : {}) }
      }
    },
    read: (id) => this.copyOut(this.journals.get(id) ?? []),
  }

  private copyOut(entries: readonly JournalEntry[]): JournalEntry[] {
    this.entriesRead += entries.length
    return structuredClone(entries as JournalEntry[])
  }

  private lookup(id: string): JournalLookup {
    return {
      count: async () => this.journals.get(id)?.length ?? 0,
      hasSignal: async (sigId) => this.keys.get(id)?.signals.has(sigId) ?? false,
      hasCancel: async () => this.keys.get(id)?.cancelled ?? false,
    }
  }

  constructor(private readonly step: (id: string) => Promise<void>) {}

  async create(row: WorkflowRow, quota?: StoreQuota, ifAbsent = false, journal: readonly JournalEntry[] = []): Promise<boolean> {
    if (ifAbsent && this.rows.has(row.id)) return false
    const bytes = rowBytes(row)
    checkQuota('workflows', row.tenant, this.totals.of(row.tenant), { count: 1, bytes }, quota)
    this.rows.set(row.id, structuredClone(row))
    this.sizes.set(row.id, bytes)
    this.totals.add(row.tenant, 1, bytes)
    if (journal.length > 0) this.journal.append(row.id, journal)
    await this.schedule(row.id, Date.now())
    return true
  }

  async journalFrom(id: string, from: number): Promise<JournalEntry[]> {
    return this.copyOut((this.journals.get(id) ?? []).slice(from))
  }

  async command<T>(id: string, decide: Decide<T>): Promise<T | 'busy'> {
    const until = Date.now() + LOCK_WAIT_MS
    while (this.locks.has(id)) {
      if (Date.now() > until) return 'busy'
      await new Promise((r) => setTimeout(r, 20))
    }
    this.locks.add(id)
    try {
      const row = this.rows.get(id)
      const d = await decide(row && structuredClone(row), async () => this.copyOut(this.journals.get(id) ?? []), this.lookup(id))
      if (d.append && d.append.length > 0) this.journal.append(id, d.append)
      const r = this.rows.get(id)
      if (r && (d.state !== undefined || d.view !== undefined)) {
        if (d.state !== undefined) r.state = d.state
        if (d.view !== undefined) r.view = structuredClone(d.view)
        r.updatedAt = Date.now()
      }
      if (r && d.scheduleAt !== undefined) await this.schedule(id, d.scheduleAt)
      return d.result
    } finally {
      this.locks.delete(id)
    }
  }

  async flagCancel(id: string, reason: string): Promise<boolean> {
    const r = this.rows.get(id)
    if (!r || ENDED_STATES.includes(r.state)) return false
    r.view = { ...r.view, cancelRequested: reason }
    r.updatedAt = Date.now()
    await this.schedule(id, Date.now())
    return true
  }

  async load(id: string): Promise<WorkflowRow | undefined> {
    const r = this.rows.get(id)
    return r && structuredClone(r)
  }

  async update(id: string, state: WorkflowState, view: WorkflowView, wakeAt?: number, wakeParent?: string): Promise<void> {
    const r = this.rows.get(id)
    if (!r) return
    r.state = state
    r.view = structuredClone(view)
    r.updatedAt = Date.now()
    if (wakeAt !== undefined) await this.schedule(id, wakeAt)
    if (wakeParent !== undefined && this.rows.has(wakeParent)) await this.schedule(wakeParent, Date.now())
  }

  async continueAsNew(id: string, start: JournalEntry & { t: 'start' }, view: WorkflowView): Promise<void> {
    const r = this.rows.get(id)
    if (!r) return
    const before = rowBytes(r) + (this.journals.get(id) ?? []).reduce((n, e) => n + jsonLength(e), 0)
    this.journals.delete(id)
    this.keys.delete(id)
    r.args = structuredClone(start.args)
    r.state = 'running'
    r.view = structuredClone(view)
    r.updatedAt = Date.now()
    const delta = rowBytes(r) - before
    this.sizes.set(id, (this.sizes.get(id) ?? 0) + delta)
    this.totals.add(r.tenant, 0, delta)
    this.journal.append(id, [withSearch(start, r.search)]) // counted by append
    await this.schedule(id, Date.now())
  }

  async schedule(id: string, at: number): Promise<void> {
    this.timers.get(id)?.clear()
    // `at` comes from the guest (a sleep's end): clamped and re-armed, never fired early.
    this.timers.set(id, setLongTimeout(() => {
      this.timers.delete(id)
      void this.step(id).catch(() => { /* a failed step is recorded on the workflow */ })
    }, at - Date.now()))
  }

  async withLock(id: string, fn: () => Promise<void>): Promise<'ran' | 'busy'> {
    if (this.locks.has(id)) return 'busy'
    this.locks.add(id)
    try {
      await fn()
      return 'ran'
    } finally {
      this.locks.delete(id)
    }
  }

  async resolveExternal(id: string, requestId: string, resolution: WorkflowResolution): Promise<ResolveOutcome> {
    const until = Date.now() + LOCK_WAIT_MS
    while (this.locks.has(id)) {
      if (Date.now() > until) return 'busy'
      await new Promise((r) => setTimeout(r, 20))
    }
    const state = this.keys.get(id)?.open(requestId) ?? 'unknown'
    if (state !== 'open') return state
    this.journal.append(id, [{ t: 'resolution', id: requestId, resolution }])
    const r = this.rows.get(id)!
    r.state = 'running'
    r.view = { ...r.view, requests: r.view.requests.filter((q) => q.id !== requestId) }
    await this.schedule(id, Date.now())
    return 'ok'
  }

  async prune(updatedBefore: number): Promise<number> {
    let n = 0
    for (const [id, r] of this.rows) {
      if (ENDED_STATES.includes(r.state) && r.updatedAt < updatedBefore && !this.locks.has(id)) {
        this.rows.delete(id)
        this.journals.delete(id)
        this.keys.delete(id)
        this.timers.get(id)?.clear()
        this.timers.delete(id)
        this.totals.add(r.tenant, -1, -(this.sizes.get(id) ?? 0))
        this.sizes.delete(id)
        n++
      }
    }
    return n
  }

  async close(): Promise<void> {
    for (const t of this.timers.values()) t.clear()
    this.timers.clear()
  }

  async list(tenant: string, q: WorkflowListQuery): Promise<WorkflowSummary[]> {
    return newestOf(this.rows.values(), (r) => r.tenant === tenant && (q.state === undefined || r.state === q.state) && (q.search === undefined || matchesSearch(r.search ?? {}, q.search)), q).map(summaryOf)
  }

  async journalPage(id: string, from: number, limit: number): Promise<{ entries: JournalEntry[]; total: number }> {
    const list = this.journals.get(id) ?? []
    return { entries: this.copyOut(list.slice(from, from + limit)), total: list.length }
  }
}

const LOCK_CLASS = 7411
const rowOf = (r: Record<string, any>): WorkflowRow => ({
  id: r.id, tenant: r.tenant, state: r.state, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
  source: r.program.source, sourceName: r.program.sourceName, args: r.program.args, budget: r.program.budget ?? null, view: r.view ?? { requests: [] },
  ...(r.program.retry !== undefined ? { retry: r.program.retry } : {}),
  ...(r.program.timeouts !== undefined ? { timeouts: r.program.timeouts } : {}),
  ...(r.program.modules !== undefined ? { modules: r.program.modules } : {}),
  ...(r.program.parent !== undefined ? { parent: r.program.parent } : {}),
  ...searchColumns(r),
})

/** The name, tags and attributes columns as a row's search info (empty ones left out). */
function searchColumns(r: Record<string, any>): { search?: SearchInfo } {
  const search: SearchInfo = {
    ...(typeof r.name === 'string' ? { name: r.name } : {}),
    ...(Array.isArray(r.tags) && r.tags.length > 0 ? { tags: r.tags } : {}),
    ...(r.attributes && Object.keys(r.attributes).length > 0 ? { attributes: r.attributes } : {}),
  }
  return Object.keys(search).length > 0 ? { search } : {}
}

/** What a workflow's row holds besides its journal (source, modules, args), in the quota's bytes. */
function rowBytes(row: WorkflowRow): number {
  let n = row.source.length + jsonLength(row.args)
  for (const [k, v] of Object.entries(row.modules ?? {})) n += k.length + v.length
  return n
}

const programOf = (row: WorkflowRow) => ({
  source: row.source, sourceName: row.sourceName, args: row.args, budget: row.budget,
  ...(row.retry !== undefined ? { retry: row.retry } : {}),
  ...(row.timeouts !== undefined ? { timeouts: row.timeouts } : {}),
  ...(row.modules !== undefined ? { modules: row.modules } : {}),
  ...(row.parent !== undefined ? { parent: row.parent } : {}),
})

type Queryable = Pick<pg.PoolClient, 'query'>

/** An entry's id as the `journal_keys` index has it (a request's is `request.id`). */
const ENTRY_KEY = `coalesce(entry->>'id', entry->'request'->>'id')`

/** The first entry of kind `t` (and id `key`) of a journal, through the `journal_keys` index. */
async function keyedEntry(db: Queryable, id: string, t: string, key?: string): Promise<JournalEntry | undefined> {
  const r = key === undefined
    ? await db.query(`SELECT entry FROM ajs.journal WHERE execution_id = $1 AND entry->>'t' = $2 ORDER BY seq LIMIT 1`, [id, t])
    : await db.query(`SELECT entry FROM ajs.journal WHERE execution_id = $1 AND entry->>'t' = $2 AND ${ENTRY_KEY} = $3 ORDER BY seq LIMIT 1`, [id, t, key])
  return r.rows[0]?.entry as JournalEntry | undefined
}

const pgLookup = (db: Queryable, id: string): JournalLookup => ({
  count: async () => Number((await db.query('SELECT coalesce(max(seq), 0) AS n FROM ajs.journal WHERE execution_id = $1', [id])).rows[0].n),
  hasSignal: async (sigId) => (await keyedEntry(db, id, 'signal', sigId)) !== undefined,
  hasCancel: async () => (await keyedEntry(db, id, 'cancel')) !== undefined,
})

async function appendEntries(db: Queryable, id: string, entries: readonly JournalEntry[]): Promise<void> {
  if (entries.length === 0) return
  const base = Number((await db.query('SELECT coalesce(max(seq), 0) AS n FROM ajs.journal WHERE execution_id = $1', [id])).rows[0].n)
  const insert = 'INSERT INTO ajs.journal (execution_id, seq, entry) SELECT $1, $2 + ord, e FROM unnest($3::jsonb[]) WITH ORDINALITY AS t(e, ord)'
  const params = [id, base, entries.map((e) => JSON.stringify(e))]
  const set = attributeSets(entries)
  if (set === undefined) await db.query(insert, params)
  // upsertAttributes: the entries and the row's attributes column change in one statement (a null removes a key).
  else await db.query(`WITH ins AS (${insert} RETURNING 1) UPDATE ajs.workflows SET attributes = jsonb_strip_nulls(attributes || $4::jsonb) WHERE id = $1`, [...params, JSON.stringify(set)])
}

/**
 * The search filter as SQL conditions from parameter `$next` on: tags by containment (the GIN index
 * workflows_tags), each attribute by containment of any value its text spells (workflows_attributes).
 */
function searchSql(f: SearchFilter | undefined, next: number): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const param = (v: unknown) => { params.push(v); return `$${next + params.length - 1}` }
  if (f?.name !== undefined) parts.push(`name = ${param(f.name)}`)
  if (f?.tags && f.tags.length > 0) parts.push(`tags @> ${param(f.tags)}::text[]`)
  for (const [k, text] of Object.entries(f?.attributes ?? {})) {
    parts.push(`(${attributeCandidates(text).map((v) => `attributes @> ${param(JSON.stringify({ [k]: v }))}::jsonb`).join(' OR ')})`)
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params }
}

async function addStepJob(db: Queryable, id: string, at: number): Promise<void> {
  // One pending step per workflow (job_key): a new schedule replaces the pending one.
  await db.query(`SELECT graphile_worker.add_job('ajs_workflow', json_build_object('id', $1::text), run_at => to_timestamp($2::double precision / 1000), job_key => $3, job_key_mode => 'replace')`, [id, at, `wf:${id}`])
}

export class PgWorkflowStore implements WorkflowStore {
  readonly journal: JournalStore

  constructor(private readonly pool: pg.Pool) {
    this.journal = {
      append: (id, entries) => appendEntries(pool, id, entries),
      read: async (id) => (await pool.query('SELECT entry FROM ajs.journal WHERE execution_id = $1 ORDER BY seq', [id])).rows.map((r) => r.entry as JournalEntry),
    }
  }

  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn)
  }

  create(row: WorkflowRow, quota?: StoreQuota, ifAbsent = false, journal: readonly JournalEntry[] = []): Promise<boolean> {
    return this.tx(async (c) => {
      if (ifAbsent && (await c.query('SELECT 1 FROM ajs.workflows WHERE id = $1', [row.id])).rows.length > 0) return false
      if (quota) {
        await c.query('SELECT pg_advisory_xact_lock(7414, hashtext($1))', [row.tenant])
        const r = await c.query(`SELECT count(*) AS n, coalesce(sum(length(w.program::text)), 0)
          + coalesce((SELECT sum(length(j.entry::text)) FROM ajs.journal j JOIN ajs.workflows w2 ON w2.id = j.execution_id WHERE w2.tenant = $1), 0) AS bytes
          FROM ajs.workflows w WHERE w.tenant = $1`, [row.tenant])
        checkQuota('workflows', row.tenant, { count: Number(r.rows[0].n), bytes: Number(r.rows[0].bytes) }, { count: 1, bytes: rowBytes(row) }, quota)
      }
      const ins = await c.query(`INSERT INTO ajs.workflows (id, tenant, state, created_at, updated_at, program, view, name, tags, attributes)
        VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [row.id, row.tenant, row.state, row.createdAt, row.updatedAt, programOf(row), row.view, row.search?.name ?? null, row.search?.tags ?? [], row.search?.attributes ?? {}])
      if (ins.rows.length === 0) {
        if (ifAbsent) return false
        throw new Error(`workflow ${row.id} exists`)
      }
      await appendEntries(c, row.id, journal)
      await addStepJob(c, row.id, Date.now())
      return true
    })
  }

  async journalFrom(id: string, from: number): Promise<JournalEntry[]> {
    return (await this.pool.query('SELECT entry FROM ajs.journal WHERE execution_id = $1 AND seq > $2 ORDER BY seq', [id, from])).rows.map((r) => r.entry as JournalEntry)
  }

  async command<T>(id: string, decide: Decide<T>): Promise<T | 'busy'> {
    try {
      return await this.tx(async (c) => {
        await c.query(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`)
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, id])
        const found = await c.query('SELECT * FROM ajs.workflows WHERE id = $1 FOR UPDATE', [id])
        const row = found.rows[0] ? rowOf(found.rows[0]) : undefined
        const d = await decide(row, async () => (await c.query('SELECT entry FROM ajs.journal WHERE execution_id = $1 ORDER BY seq', [id])).rows.map((r) => r.entry as JournalEntry), pgLookup(c, id))
        if (!row) return d.result
        // The entries, the row and the job of the next step commit together.
        if (d.append && d.append.length > 0) await appendEntries(c, id, d.append)
        if (d.state !== undefined || d.view !== undefined) {
          await c.query('UPDATE ajs.workflows SET state = $2, view = $3, updated_at = $4 WHERE id = $1', [id, d.state ?? row.state, d.view ?? row.view, Date.now()])
        }
        if (d.scheduleAt !== undefined) await addStepJob(c, id, d.scheduleAt)
        return d.result
      })
    } catch (e) {
      if ((e as { code?: string }).code === '55P03') return 'busy'
      throw e
    }
  }

  async flagCancel(id: string, reason: string): Promise<boolean> {
    return this.tx(async (c) => {
      const r = await c.query(`UPDATE ajs.workflows SET view = jsonb_set(coalesce(view, '{}'::jsonb), '{cancelRequested}', to_jsonb($2::text)), updated_at = $3
        WHERE id = $1 AND state NOT IN ('done', 'failed', 'cancelled') RETURNING id`, [id, reason, Date.now()])
      if (r.rows.length === 0) return false
      await addStepJob(c, id, Date.now())
      return true
    })
  }

  async load(id: string): Promise<WorkflowRow | undefined> {
    const r = await this.pool.query('SELECT * FROM ajs.workflows WHERE id = $1', [id])
    return r.rows[0] ? rowOf(r.rows[0]) : undefined
  }

  update(id: string, state: WorkflowState, view: WorkflowView, wakeAt?: number, wakeParent?: string): Promise<void> {
    return this.tx(async (c) => {
      await c.query('UPDATE ajs.workflows SET state = $2, view = $3, updated_at = $4 WHERE id = $1', [id, state, view, Date.now()])
      if (wakeAt !== undefined) await addStepJob(c, id, wakeAt)
      // A child's outcome and the parent's next step (which journals it) commit together.
      if (wakeParent !== undefined) await addStepJob(c, wakeParent, Date.now())
      await c.query('SELECT pg_notify($1, $2)', ['ajs_events', `workflow:${id}`])
    })
  }

  async schedule(id: string, at: number): Promise<void> {
    await addStepJob(this.pool, id, at)
  }

  continueAsNew(id: string, start: JournalEntry & { t: 'start' }, view: WorkflowView): Promise<void> {
    return this.tx(async (c) => {
      await c.query('DELETE FROM ajs.journal WHERE execution_id = $1', [id])
      const r = await c.query(`UPDATE ajs.workflows SET state = 'running', view = $2, updated_at = $3, program = jsonb_set(program, '{args}', $4::jsonb) WHERE id = $1
        RETURNING name, tags, attributes`, [id, view, Date.now(), JSON.stringify(start.args ?? {})])
      await appendEntries(c, id, [withSearch(start, r.rows[0] ? searchColumns(r.rows[0]).search : undefined)])
      await addStepJob(c, id, Date.now())
      await c.query('SELECT pg_notify($1, $2)', ['ajs_events', `workflow:${id}`])
    })
  }

  async withLock(id: string, fn: () => Promise<void>): Promise<'ran' | 'busy'> {
    const c = await this.pool.connect()
    try {
      const got = (await c.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, id])).rows[0].ok as boolean
      if (!got) return 'busy'
      try {
        await fn()
        return 'ran'
      } finally {
        await c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, id])
      }
    } finally {
      c.release()
    }
  }

  async resolveExternal(id: string, requestId: string, resolution: WorkflowResolution): Promise<ResolveOutcome> {
    try {
      return await this.tx(async (c) => {
        await c.query(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`)
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, id])
        const state = openExternal(await keyedEntry(c, id, 'request', requestId), (await keyedEntry(c, id, 'resolution', requestId)) !== undefined)
        if (state !== 'open') return state
        // The answer and the job that resumes the workflow commit together.
        await appendEntries(c, id, [{ t: 'resolution', id: requestId, resolution }])
        await c.query(`UPDATE ajs.workflows SET state = 'running', updated_at = $2,
          view = jsonb_set(view, '{requests}', coalesce((SELECT jsonb_agg(q) FROM jsonb_array_elements(view->'requests') q WHERE q->>'id' <> $3), '[]'::jsonb))
          WHERE id = $1`, [id, Date.now(), requestId])
        await addStepJob(c, id, Date.now())
        return 'ok' as const
      })
    } catch (e) {
      if ((e as { code?: string }).code === '55P03') return 'busy'
      throw e
    }
  }

  prune(updatedBefore: number): Promise<number> {
    return this.tx(async (c) => {
      const gone = await c.query(`DELETE FROM ajs.workflows WHERE state IN ('done', 'failed', 'cancelled') AND updated_at < $1 RETURNING id`, [updatedBefore])
      if (gone.rows.length > 0) await c.query('DELETE FROM ajs.journal WHERE execution_id = ANY($1)', [gone.rows.map((r) => r.id)])
      return gone.rows.length
    })
  }

  async close(): Promise<void> {}

  async list(tenant: string, q: WorkflowListQuery): Promise<WorkflowSummary[]> {
    // The cursor as a row comparison: an index range of workflows_tenant_created; the view's small parts only.
    const search = searchSql(q.search, 6)
    const r = await this.pool.query(
      `SELECT id, state, created_at, updated_at, program->>'sourceName' AS source_name, program->'budget' AS budget, program->'parent'->>'id' AS parent,
         coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(view->'requests') = 'array' THEN view->'requests' END), 0) AS requests,
         view->'spent' AS spent, view->'error'->>'code' AS error, name, tags, attributes
       FROM ajs.workflows WHERE tenant = $1 AND ($2::text IS NULL OR state = $2)
       AND ($3::bigint IS NULL OR (created_at, id) < ($3::bigint, $4::text))${search.sql}
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [tenant, q.state ?? null, q.before?.createdAt ?? null, q.before?.id ?? '', q.limit + 1, ...search.params])
    return r.rows.map((row) => ({
      id: row.id, state: row.state, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), sourceName: row.source_name ?? '',
      requests: Number(row.requests), budget: typeof row.budget === 'number' ? row.budget : null,
      ...(typeof row.spent === 'number' ? { spent: row.spent } : {}),
      ...(typeof row.parent === 'string' ? { parent: row.parent } : {}),
      ...(typeof row.error === 'string' ? { error: row.error } : {}),
      ...searchColumns(row).search,
    }))
  }

  async journalPage(id: string, from: number, limit: number): Promise<{ entries: JournalEntry[]; total: number }> {
    // seq is 1-based: index `from` is seq from + 1 (the primary key's range).
    const [page, total] = await Promise.all([
      this.pool.query('SELECT entry FROM ajs.journal WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [id, from, limit]),
      this.pool.query('SELECT coalesce(max(seq), 0) AS n FROM ajs.journal WHERE execution_id = $1', [id]),
    ])
    return { entries: page.rows.map((r) => r.entry as JournalEntry), total: Number(total.rows[0].n) }
  }
}
