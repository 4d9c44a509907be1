/**
 * Where schedules live: a row per (tenant, id) holding the spec, what to
 * start, and the firing state (the next nominal time not yet handled, the
 * last run started, a buffered fire, counts and the last actions). Every
 * change of a row happens under its lock, and firing takes due rows whose
 * lock nobody holds: in memory a promise chain per row, in PostgreSQL
 * `SELECT … FOR UPDATE SKIP LOCKED` (pg-store.ts), so several server
 * processes each fire a nominal time at most once between them.
 */
import { HttpError } from '../errors.ts'
import { checkQuota, jsonLength, type StoreQuota } from '../stores/quota.ts'
import type { StartWorkflowBody } from '../workflows.ts'
import type { ScheduleSpec } from './spec.ts'

export type Overlap = 'skip' | 'bufferOne' | 'allowAll'
export const OVERLAPS: readonly Overlap[] = ['skip', 'bufferOne', 'allowAll']

/** How a fire came about: the spec's own time, POST …/trigger, or POST …/backfill. */
export type FireVia = 'schedule' | 'trigger' | 'backfill'

/** One thing a schedule did with a fire (the last MAX_ACTIONS are kept). */
export interface ScheduleAction {
  /** When it was handled (the server's clock). */
  at: number
  /** The fire's nominal time. */
  nominalAt: number
  via: FireVia
  outcome: 'started' | 'skipped' | 'buffered'
  /** The workflow run it started (or found started by another server). */
  runId?: string
  /** Why it was skipped: overlap, catchupWindow, minInterval, or the code of a refusal (STORE_QUOTA_EXCEEDED, …). */
  reason?: string
  message?: string
}

export const MAX_ACTIONS = 20

export interface ScheduleRow {
  tenant: string
  id: string
  /** Random, made at creation: a schedule deleted and created again under its id does not find the old one's runs. */
  uid: string
  /** The body of POST /v1/workflows without `args`. */
  workflow: Omit<StartWorkflowBody, 'args'>
  args: Record<string, unknown>
  spec: ScheduleSpec
  overlap: Overlap
  catchupWindowMs: number
  jitterMs: number
  paused: boolean
  /** Why it was last paused or unpaused. */
  note?: string
  createdAt: number
  /** Changed last, by a fire or a request. */
  updatedAt: number
  /** How many times PATCH changed it (absent: never), and when it did last. */
  revision?: number
  revisedAt?: number
  /**
   * How many times a request changed it: PATCH, pause, unpause (absent: never; fires do not count). What its
   * conflictToken (service.ts) is made of, which a PATCH's If-Match names.
   */
  changes?: number
  /** The revision that last set the spec: a part of the run ids of its fires (runIdOf). */
  specRevision?: number
  /** The next nominal fire time not yet handled (null: the spec fires no more). */
  nextAt: number | null
  /** The nominal time of the last fire of the spec started (the fire-time minimum interval guard). */
  lastNominalAt?: number
  /** The last run a fire started (overlap is judged by its state). */
  lastRunId?: string
  /** bufferOne: a fire waiting for the last run to end. */
  buffered?: { nominalAt: number; via: FireVia }
  /** When firing looks at the row next (ms; null: never, paused). */
  dueAt: number | null
  counts: { started: number; skipped: Record<string, number> }
  actions: ScheduleAction[]
}

/**
 * A row as GET /v1/schedules lists it: its newest action instead of its last MAX_ACTIONS, and its workflow
 * without the source and the child modules (what can be large), so a page reads a bounded row per schedule.
 */
export type ScheduleListRow = Omit<ScheduleRow, 'actions' | 'workflow'> & {
  workflow: Omit<ScheduleRow['workflow'], 'source' | 'workflows'>
  lastAction?: ScheduleAction
}

/** What the list shows of a row (PostgreSQL makes the same in its query). */
export function listRowOf(row: ScheduleRow): ScheduleListRow {
  const { actions, workflow, ...rest } = row
  const { source: _s, workflows: _w, ...shown } = workflow
  const last = actions[actions.length - 1]
  return { ...rest, workflow: shown, ...(last ? { lastAction: last } : {}) }
}

export interface ScheduleStore {
  /** Add a schedule; 409 SCHEDULE_EXISTS for a taken id, 429 STORE_QUOTA_EXCEEDED over limits.maxSchedules or maxScheduleBytes. */
  insert(row: ScheduleRow, quota: StoreQuota): Promise<void>
  get(tenant: string, id: string): Promise<ScheduleRow | undefined>
  /** The tenant's schedules by id, after `after`, as the list shows them (one read for the page, not one per row). */
  list(tenant: string, limit: number, after?: string): Promise<ScheduleListRow[]>
  delete(tenant: string, id: string): Promise<boolean>
  /**
   * Change a row under its lock (waiting for it); `fn`'s row is saved. undefined: no such schedule. With `quota`
   * (PATCH), a row `fn` made larger than it was is checked against the tenant's limits.maxScheduleBytes (429
   * STORE_QUOTA_EXCEEDED, nothing saved), in the same step as inserts are.
   */
  update<T>(tenant: string, id: string, fn: (row: ScheduleRow) => Promise<{ row: ScheduleRow; result: T }>, quota?: StoreQuota): Promise<T | undefined>
  /**
   * Hand up to `limit` rows due at `now` to `fn` one at a time, each under its lock; rows locked elsewhere are left.
   * A row whose `fn` throws is left as it was (`onError` hears of it) and the others go on.
   */
  claimDue(now: number, limit: number, fn: (row: ScheduleRow) => Promise<ScheduleRow>, onError?: (e: unknown) => void): Promise<number>
  close(): Promise<void>
}

export const scheduleExists = (id: string): HttpError =>
  new HttpError('SCHEDULE_EXISTS', `This tenant already has a schedule "${id}"`)

/** 429 STORE_QUOTA_EXCEEDED when the tenant, holding `held`, may not add this schedule (what it costs: its JSON as created). */
export const checkScheduleQuota = (row: ScheduleRow, held: { count: number; bytes: number }, quota: StoreQuota): void =>
  checkQuota('schedules', row.tenant, held, { count: 1, bytes: jsonLength(row) }, quota)

/** 429 STORE_QUOTA_EXCEEDED when a changed row of `bytes`, now larger, takes the tenant, holding `others` besides it, over its quota. */
export const checkScheduleGrowth = (row: ScheduleRow, bytes: number, others: { count: number; bytes: number }, quota: StoreQuota): void =>
  checkQuota('schedules', row.tenant, others, { count: 0, bytes }, quota)

const keyOf = (tenant: string, id: string) => `${tenant}\0${id}`

/** In one process: rows in a Map, a lock per row (a promise chain). */
export class MemoryScheduleStore implements ScheduleStore {
  private readonly rows = new Map<string, ScheduleRow>()
  private readonly locks = new Map<string, Promise<unknown>>()
  /** Each row's size as created or last PATCHed (what the byte quota counts). */
  private readonly sizes = new Map<string, number>()

  /** Run `fn` after the row's earlier holders; `skipIfHeld`: undefined at once when someone holds it. */
  private async locked<T>(key: string, fn: () => Promise<T>, skipIfHeld = false): Promise<T | undefined> {
    const held = this.locks.get(key)
    if (held && skipIfHeld) return undefined
    const run = (held ?? Promise.resolve()).catch(() => {}).then(fn)
    const tail = run.catch(() => {})
    this.locks.set(key, tail)
    try {
      return await run
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key)
    }
  }

  async insert(row: ScheduleRow, quota: StoreQuota): Promise<void> {
    const key = keyOf(row.tenant, row.id)
    if (this.rows.has(key)) throw scheduleExists(row.id)
    checkScheduleQuota(row, this.heldBesides(row.tenant, key), quota)
    this.rows.set(key, structuredClone(row))
    this.sizes.set(key, jsonLength(row))
  }

  async get(tenant: string, id: string): Promise<ScheduleRow | undefined> {
    const r = this.rows.get(keyOf(tenant, id))
    return r && structuredClone(r)
  }

  async list(tenant: string, limit: number, after?: string): Promise<ScheduleListRow[]> {
    const mine = [...this.rows.values()].filter((r) => r.tenant === tenant && (after === undefined || r.id > after))
    return mine.sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit).map((r) => structuredClone(listRowOf(r)))
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    const key = keyOf(tenant, id)
    return (await this.locked(key, async () => {
      this.sizes.delete(key)
      return this.rows.delete(key)
    })) ?? false
  }

  /** The tenant's schedules but `key`: how many, and their sizes. */
  private heldBesides(tenant: string, key: string): { count: number; bytes: number } {
    const held = { count: 0, bytes: 0 }
    for (const [k, bytes] of this.sizes) {
      if (k === key || this.rows.get(k)?.tenant !== tenant) continue
      held.count++
      held.bytes += bytes
    }
    return held
  }

  async update<T>(tenant: string, id: string, fn: (row: ScheduleRow) => Promise<{ row: ScheduleRow; result: T }>, quota?: StoreQuota): Promise<T | undefined> {
    const key = keyOf(tenant, id)
    return this.locked(key, async () => {
      const row = this.rows.get(key)
      if (!row) return undefined
      const before = quota ? jsonLength(row) : 0
      const out = await fn(structuredClone(row))
      if (!this.rows.has(key)) return out.result
      if (quota) {
        // Grown by this change (not by the actions fires added since it was created), as in PostgreSQL.
        const bytes = jsonLength(out.row)
        if (bytes > before) checkScheduleGrowth(out.row, bytes, this.heldBesides(tenant, key), quota)
        this.sizes.set(key, bytes)
      }
      this.rows.set(key, structuredClone(out.row))
      return out.result
    })
  }

  async claimDue(now: number, limit: number, fn: (row: ScheduleRow) => Promise<ScheduleRow>, onError: (e: unknown) => void = () => {}): Promise<number> {
    const due = [...this.rows.entries()].filter(([, r]) => r.dueAt !== null && r.dueAt <= now).sort(([, a], [, b]) => a.dueAt! - b.dueAt!).slice(0, limit)
    let n = 0
    for (const [key] of due) {
      try {
        const done = await this.locked(key, async () => {
          const row = this.rows.get(key)
          if (!row || row.dueAt === null || row.dueAt > now) return false
          const next = await fn(structuredClone(row))
          if (this.rows.has(key)) this.rows.set(key, structuredClone(next))
          return true
        }, true)
        if (done) n++
      } catch (e) {
        onError(e)
      }
    }
    return n
  }

  async close(): Promise<void> {}
}
