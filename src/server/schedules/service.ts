/**
 * The schedules API behind the routes (routes/schedules.ts): create, read,
 * list, change (PATCH), pause, unpause, trigger, backfill, delete, each for the
 * authenticated tenant only; and `runDue`, one pass of firing over every
 * tenant's due schedules, which the loop (loop.ts) calls on the clock.
 */
import { createHash, randomUUID } from 'node:crypto'
import type { SchedulerClock } from '../../flows/schedule/scheduler.ts'
import { HttpError } from '../errors.ts'
import { quotasOf, type Tenants } from '../tenants.ts'
import type { StartWorkflowBody, WorkflowRoutesBackend } from '../workflows.ts'
import { Firing, dueAtOf, startBody } from './firing.ts'
import { checkSpec, checkStillAllowed, FireTimes, jitterOf, outsideLimitsOf, sameSpec, type ScheduleSpec } from './spec.ts'
import type { StoreQuota } from '../stores/quota.ts'
import type { Overlap, ScheduleAction, ScheduleListRow, ScheduleRow, ScheduleStore } from './store.ts'

export interface CreateScheduleBody {
  id?: string
  workflow: Omit<StartWorkflowBody, 'args'>
  args?: Record<string, unknown>
  spec: ScheduleSpec
  overlap?: Overlap
  catchupWindowMs?: number
  jitterMs?: number
  paused?: boolean
  note?: string
}

/** The body of PATCH /v1/schedules/{id}: any field of POST's but the id; each given replaces the schedule's. */
export type UpdateScheduleBody = Partial<Omit<CreateScheduleBody, 'id'>>

/** Due schedules one pass of firing takes (the rest wait for the next pass, a moment later). */
export const MAX_SCHEDULES_PER_PASS = 100
/** Fire times GET /v1/schedules/{id} shows. */
const NEXT_SHOWN = 5
const DEFAULT_CATCHUP_MS = 60_000

/** An action as the API shows it: its times as ISO texts. */
const actionView = (a: ScheduleAction): Record<string, unknown> => ({ ...a, at: new Date(a.at).toISOString(), nominalAt: new Date(a.nominalAt).toISOString() })

const notFound = (id: string) => new HttpError('NOT_FOUND', `No schedule "${id.slice(0, 64)}" for this tenant`)

/** A time a request sent: ms since the epoch, or an ISO 8601 text. */
function timeOf(v: number | string, field: string): number {
  const t = typeof v === 'number' ? v : Date.parse(v)
  if (!Number.isFinite(t)) throw new HttpError('SCHEDULE_INVALID', `${field} must be ms since the epoch or an ISO 8601 time, not ${JSON.stringify(v).slice(0, 60)}`)
  return t
}

/**
 * The schedule's version as PATCH's If-Match names it (Temporal's conflict token): new with every change a request
 * makes (PATCH, pause, unpause), not with fires. Opaque, and made with the schedule's uid, so the token of a schedule
 * deleted and made again under its id never names the new one.
 */
export function conflictTokenOf(row: Pick<ScheduleRow, 'uid' | 'changes'>): string {
  return createHash('sha256').update(`${row.uid}\0${row.changes ?? 0}`).digest('base64url').slice(0, 16)
}

/** Whether an If-Match header (`*`, or entity tags separated by commas) names this token; W/ tags never do. */
export function ifMatchHolds(header: string, token: string): boolean {
  return header.split(',').some((tag) => { const t = tag.trim(); return t === '*' || t === `"${token}"` })
}

/**
 * A change a request makes (PATCH, pause, unpause): refused (409 SCHEDULE_CONFLICT, nothing changed) when the
 * request's If-Match names no longer the schedule's version; else a new conflict token. Called under the row's lock,
 * so of two changes of the same version one lands.
 */
function changedByRequest(row: ScheduleRow, id: string, ifMatch: string | undefined): void {
  const token = conflictTokenOf(row)
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, token)) {
    throw new HttpError('SCHEDULE_CONFLICT', `Schedule "${id}" changed since the version If-Match names (${ifMatch.slice(0, 80)}) was read: it is now "${token}" (revision ${row.revision ?? 0}${row.paused ? ', paused' : ''})`)
  }
  row.changes = (row.changes ?? 0) + 1
}

export class ScheduleService {
  private readonly firing: Firing

  constructor(
    private readonly store: ScheduleStore,
    private readonly workflows: WorkflowRoutesBackend,
    private readonly tenants: Tenants,
    readonly clock: SchedulerClock,
    /** Hears of every action a fire takes (the server counts them in /metrics). */
    onAction?: (tenant: string, action: ScheduleAction) => void,
  ) {
    this.firing = new Firing({ workflows, minIntervalOf: (t) => tenants.get(t)?.config.limits.minScheduleIntervalMs, ...(onAction ? { onAction } : {}) })
  }

  private limits(tenant: string) {
    const t = this.tenants.get(tenant)
    if (!t) throw new HttpError('UNAUTHORIZED')
    return t.config.limits
  }

  /**
   * What GET and the list show of a schedule: its spec and what to start, its next fire times (`nextFireAt`: the
   * first one's due time, with its jitter), counts and newest action. The list leaves out the workflow's source and modules.
   * `outsideLimits`: active on a spec the tenant's limits.minScheduleIntervalMs, raised since it was set, no longer allows.
   */
  private facts(row: ScheduleListRow | ScheduleRow, lastAction: ScheduleAction | undefined): Record<string, unknown> {
    const now = this.clock.now()
    const times = new FireTimes(row.spec)
    const minIntervalMs = this.tenants.get(row.tenant)?.config.limits.minScheduleIntervalMs
    const outsideLimits = row.paused || minIntervalMs === undefined ? undefined : outsideLimitsOf(row.spec, minIntervalMs)
    const next = row.paused || row.nextAt === null ? [] : [row.nextAt, ...times.next(Math.max(row.nextAt, now), NEXT_SHOWN - 1)]
    return {
      id: row.id, workflow: row.workflow, args: row.args, spec: row.spec, overlap: row.overlap,
      catchupWindowMs: row.catchupWindowMs, jitterMs: row.jitterMs, paused: row.paused, ...(row.note !== undefined ? { note: row.note } : {}),
      createdAt: row.createdAt, updatedAt: row.updatedAt, revision: row.revision ?? 0, ...(row.revisedAt !== undefined ? { revisedAt: row.revisedAt } : {}),
      conflictToken: conflictTokenOf(row),
      nextFireTimes: next.map((t) => new Date(t).toISOString()),
      nextFireAt: next.length > 0 ? new Date(next[0]! + jitterOf(row.uid, next[0]!, row.jitterMs)).toISOString() : null,
      ...(row.lastRunId ? { lastRunId: row.lastRunId } : {}),
      ...(row.buffered ? { buffered: { nominalAt: new Date(row.buffered.nominalAt).toISOString(), via: row.buffered.via } } : {}),
      counts: row.counts,
      lastAction: lastAction ? actionView(lastAction) : null,
      ...(outsideLimits ? { outsideLimits } : {}),
    }
  }

  /** The schedule as GET shows it: its facts and its last actions (newest first). */
  view(row: ScheduleRow): Record<string, unknown> {
    return { ...this.facts(row, row.actions[row.actions.length - 1]), actions: [...row.actions].reverse().map(actionView) }
  }

  async create(tenant: string, body: CreateScheduleBody): Promise<Record<string, unknown>> {
    const limits = this.limits(tenant)
    const now = this.clock.now()
    const times = checkSpec(body.spec, limits.minScheduleIntervalMs, now)
    const row: ScheduleRow = {
      tenant, id: body.id ?? `sch_${randomUUID().replace(/-/g, '').slice(0, 20)}`, uid: randomUUID(),
      workflow: body.workflow, args: body.args ?? {}, spec: body.spec, overlap: body.overlap ?? 'skip',
      catchupWindowMs: body.catchupWindowMs ?? DEFAULT_CATCHUP_MS, jitterMs: body.jitterMs ?? 0, paused: body.paused ?? false,
      ...(body.note !== undefined ? { note: body.note } : {}),
      createdAt: now, updatedAt: now, nextAt: times.after(now), dueAt: null, counts: { started: 0, skipped: {} }, actions: [],
    }
    // The workflow is refused now (400, 422) rather than at each fire: the same checks as POST /v1/workflows.
    await this.workflows.check?.(tenant, startBody(row, now))
    row.dueAt = dueAtOf(row, now)
    await this.store.insert(row, quotasOf(limits).schedules)
    return this.view(row)
  }

  async get(tenant: string, id: string): Promise<Record<string, unknown>> {
    const row = await this.store.get(tenant, id)
    if (!row) throw notFound(id)
    return this.view(row)
  }

  async list(tenant: string, q: { limit?: string; cursor?: string }): Promise<{ items: Array<Record<string, unknown>>; nextCursor?: string }> {
    const limit = q.limit === undefined ? 20 : Number(q.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new HttpError('BAD_REQUEST', 'limit must be a whole number from 1 to 100')
    const after = q.cursor === undefined ? undefined : Buffer.from(q.cursor, 'base64url').toString()
    const rows = await this.store.list(tenant, limit + 1, after)
    const page = rows.slice(0, limit)
    const items = page.map((r) => this.facts(r, r.lastAction))
    return rows.length > limit ? { items, nextCursor: Buffer.from(page[page.length - 1]!.id).toString('base64url') } : { items }
  }

  async delete(tenant: string, id: string): Promise<void> {
    if (!await this.store.delete(tenant, id)) throw notFound(id)
  }

  /** Change a row under its lock and answer its view. */
  private async change(tenant: string, id: string, fn: (row: ScheduleRow, now: number) => Promise<void>, quota?: StoreQuota): Promise<Record<string, unknown>> {
    const out = await this.store.update(tenant, id, async (row) => {
      const now = this.clock.now()
      await fn(row, now)
      row.dueAt = dueAtOf(row, now)
      row.updatedAt = now
      return { row, result: this.view(row) }
    }, quota)
    if (!out) throw notFound(id)
    return out
  }

  /**
   * PATCH: the fields given replace the schedule's, checked as POST checks them, all or none, under the row's lock
   * (a fire waits for it, or it for the fire). A new spec (or an unpause) fires next at its first time after now
   * and after the last fire, so no past time fires again and no time fires twice; the fires of a new spec get run
   * ids of their own (specRevision), apart from the runs of the old one. A fire whose time had come but which no
   * pass had handled yet (its jitter, or the poll) is not run when the spec changes. Each PATCH counts in `revision`.
   * A PATCH that leaves the schedule active checks its spec against the tenant's limits now, a spec it did not change
   * too (409 SCHEDULE_OUTSIDE_LIMITS): a limit raised since is not waved through by a change of something else.
   * `ifMatch` (the If-Match header): applied only while the schedule's conflictToken is one it names, checked under
   * the lock (409 SCHEDULE_CONFLICT, nothing changed), so of two edits of the same version one lands.
   */
  update(tenant: string, id: string, body: UpdateScheduleBody, ifMatch?: string): Promise<Record<string, unknown>> {
    const limits = this.limits(tenant)
    if (body.spec !== undefined) checkSpec(body.spec, limits.minScheduleIntervalMs, this.clock.now())
    return this.change(tenant, id, async (row, now) => {
      changedByRequest(row, id, ifMatch)
      const specChanged = body.spec !== undefined && !sameSpec(body.spec, row.spec)
      const unpaused = row.paused && body.paused === false
      const { workflow, args, spec, overlap, catchupWindowMs, jitterMs, paused, note } = body
      Object.assign(row, Object.fromEntries(Object.entries({ workflow, args, spec, overlap, catchupWindowMs, jitterMs, paused, note }).filter(([, v]) => v !== undefined)))
      if (spec === undefined && !row.paused) checkStillAllowed(id, row.spec, limits.minScheduleIntervalMs)
      // The workflow is refused now, as when created (400, 422), not at the next fire.
      if (workflow !== undefined || args !== undefined) await this.workflows.check?.(tenant, startBody(row, now))
      row.revision = (row.revision ?? 0) + 1
      row.revisedAt = now
      if (specChanged) row.specRevision = row.revision
      if (specChanged || unpaused) row.nextAt = new FireTimes(row.spec).after(Math.max(now, row.lastNominalAt ?? now))
    }, quotasOf(limits).schedules)
  }

  /** `ifMatch` as update's: paused only while the schedule is the version it names (409 SCHEDULE_CONFLICT). */
  pause(tenant: string, id: string, note?: string, ifMatch?: string): Promise<Record<string, unknown>> {
    return this.change(tenant, id, async (row) => {
      changedByRequest(row, id, ifMatch)
      row.paused = true
      if (note !== undefined) row.note = note
    })
  }

  /**
   * Fires missed while it was paused are not run: it fires next at its next time after now. Refused (409
   * SCHEDULE_OUTSIDE_LIMITS) when its spec no longer passes the tenant's limits: it would fire more often than they allow.
   * `ifMatch` as update's, checked first: a stale version is a conflict whatever else is wrong with the request.
   */
  unpause(tenant: string, id: string, note?: string, ifMatch?: string): Promise<Record<string, unknown>> {
    const limits = this.limits(tenant)
    return this.change(tenant, id, async (row, now) => {
      changedByRequest(row, id, ifMatch) // the row is a copy: a refusal after it keeps the stored one as it was
      checkStillAllowed(id, row.spec, limits.minScheduleIntervalMs)
      if (row.paused) row.nextAt = new FireTimes(row.spec).after(now)
      row.paused = false
      if (note !== undefined) row.note = note
    })
  }

  /** Fire now (nominal time: now), by the overlap policy; paused or not. */
  trigger(tenant: string, id: string): Promise<Record<string, unknown>> {
    return this.change(tenant, id, (row, now) => this.firing.fire(row, now, 'trigger', now))
  }

  /** Fire each time of the spec in [from, to] (past times; at most limits.maxBackfillFires), in order, by the overlap policy or `overlap`. */
  async backfill(tenant: string, id: string, body: { from: number | string; to: number | string; overlap?: Overlap }): Promise<Record<string, unknown>> {
    const max = this.limits(tenant).maxBackfillFires
    const from = timeOf(body.from, 'from')
    const to = timeOf(body.to, 'to')
    return this.change(tenant, id, async (row, now) => {
      if (from > to || to > now) throw new HttpError('SCHEDULE_INVALID', `A backfill covers past times: from (${new Date(from).toISOString()}) must not be after to (${new Date(to).toISOString()}), nor to after now`)
      const times = new FireTimes(row.spec)
      const fires: number[] = []
      for (let at = times.after(from - 1); at !== null && at <= to; at = times.after(at)) {
        if (fires.length === max) throw new HttpError('SCHEDULE_BACKFILL_LIMIT', `The spec fires more than ${max} times from ${new Date(from).toISOString()} to ${new Date(to).toISOString()}; this tenant's backfills cover at most ${max} fires (limits.maxBackfillFires)`)
        fires.push(at)
      }
      for (const at of fires) await this.firing.fire(row, at, 'backfill', now, body.overlap)
    })
  }

  /** One pass of firing: every due schedule (at most MAX_SCHEDULES_PER_PASS), each under its lock. Returns how many were handled. */
  runDue(onError?: (e: unknown) => void): Promise<number> {
    const now = this.clock.now()
    return this.store.claimDue(now, MAX_SCHEDULES_PER_PASS, (row) => this.firing.fireDue(row, now), onError)
  }

  close(): Promise<void> {
    return this.store.close()
  }
}
