/**
 * What a schedule does with a fire: judge overlap by the state of the last
 * run it started ('skip': none while it runs; 'bufferOne': one fire waits
 * for it to end; 'allowAll': start anyway), then start the workflow through
 * the same WorkflowService.start as POST /v1/workflows, under an id derived
 * from the fire and with the schedule's id and the fire's nominal time in
 * its search attributes. A start the tenant's quotas or admission refuse is
 * a skipped fire with the refusal's code, never an error of the scheduler.
 * `fireDue` handles what is due in one row (under its lock, store.ts):
 * missed fires older than `catchupWindowMs` are skipped and counted, the
 * rest fire in order, at most MAX_FIRES_PER_PASS a pass.
 */
import { HttpError } from '../errors.ts'
import { ENDED_STATES } from '../stores/workflows.ts'
import type { StartWorkflowBody, WorkflowRoutesBackend } from '../workflows.ts'
import { FireTimes, jitterOf, runIdOf } from './spec.ts'
import { MAX_ACTIONS, type FireVia, type Overlap, type ScheduleAction, type ScheduleRow } from './store.ts'

/** Fires one pass of one schedule handles; the rest are due at once, for the next pass. */
export const MAX_FIRES_PER_PASS = 100
/** Missed fires counted one by one before the rest of a long outage is skipped over in one step. */
const MAX_MISSED_SCAN = 10_000
/** How soon a buffered fire looks again whether the run it waits for has ended. */
export const BUFFER_POLL_MS = 1000

/** The search attributes of the runs a schedule starts (GET /v1/workflows?attr.scheduleId=…). */
export const SCHEDULE_ATTRIBUTES = { id: 'scheduleId', at: 'scheduledAt' } as const

export interface FiringDeps {
  workflows: WorkflowRoutesBackend
  /** The tenant's limits.minScheduleIntervalMs (undefined: the tenant is gone from the config). */
  minIntervalOf(tenant: string): number | undefined
  /** Hears of every action (the server counts them in /metrics). */
  onAction?(tenant: string, action: ScheduleAction): void
}

/** The body POST /v1/workflows would get for this fire. */
export function startBody(row: Pick<ScheduleRow, 'id' | 'workflow' | 'args'>, nominalAt: number): StartWorkflowBody {
  const attributes = { ...row.workflow.attributes, [SCHEDULE_ATTRIBUTES.id]: row.id, [SCHEDULE_ATTRIBUTES.at]: new Date(nominalAt).toISOString() }
  return { ...row.workflow, args: row.args, attributes }
}

/** When firing looks at the row next: its next fire (with its jitter), sooner while a fire is buffered; null when paused. */
export function dueAtOf(row: ScheduleRow, now: number): number | null {
  if (row.paused) return null
  const due: number[] = []
  if (row.nextAt !== null) due.push(row.nextAt + jitterOf(row.uid, row.nextAt, row.jitterMs))
  if (row.buffered) due.push(now + BUFFER_POLL_MS)
  return due.length > 0 ? Math.min(...due) : null
}

export class Firing {
  constructor(private readonly deps: FiringDeps) {}

  /** Keep the action (the last MAX_ACTIONS), count a skip by its reason, and tell onAction. */
  private record(row: ScheduleRow, action: ScheduleAction): void {
    row.actions.push(action)
    if (row.actions.length > MAX_ACTIONS) row.actions.splice(0, row.actions.length - MAX_ACTIONS)
    if (action.outcome === 'skipped') row.counts.skipped[action.reason!] = (row.counts.skipped[action.reason!] ?? 0) + 1
    this.deps.onAction?.(row.tenant, action)
  }

  private skip(row: ScheduleRow, now: number, nominalAt: number, via: FireVia, reason: string, message: string): void {
    this.record(row, { at: now, nominalAt, via, outcome: 'skipped', reason, message })
  }

  /** Is the last run the schedule started still going? (One that is gone, pruned, is not.) */
  private async running(row: ScheduleRow): Promise<boolean> {
    if (!row.lastRunId) return false
    try {
      const wf = await this.deps.workflows.get(row.tenant, row.lastRunId)
      return !ENDED_STATES.includes(wf.state as never)
    } catch (e) {
      if (e instanceof HttpError && e.code === 'NOT_FOUND') return false
      throw e
    }
  }

  private async start(row: ScheduleRow, nominalAt: number, via: FireVia, now: number): Promise<void> {
    const id = runIdOf(row.tenant, row.uid, nominalAt, row.specRevision)
    try {
      const out = await this.deps.workflows.start(row.tenant, startBody(row, nominalAt), { id })
      row.lastRunId = id
      if (out.duplicate === true) {
        // Handled again after a process stopped between the start and saving the row: the run is the same one.
        this.record(row, { at: now, nominalAt, via, outcome: 'started', runId: id, message: 'already started: this fire was handled before' })
        return
      }
      row.counts.started++
      this.record(row, { at: now, nominalAt, via, outcome: 'started', runId: id })
    } catch (e) {
      const code = e instanceof HttpError ? (e.agentError?.code ?? e.code) : 'SERVER_ERROR'
      this.skip(row, now, nominalAt, via, code, e instanceof Error ? e.message : String(e))
    }
  }

  /** One fire, by the overlap policy (a backfill may give its own). */
  async fire(row: ScheduleRow, nominalAt: number, via: FireVia, now: number, overlap: Overlap = row.overlap): Promise<void> {
    if (overlap !== 'allowAll' && await this.running(row)) {
      if (overlap === 'bufferOne' && !row.buffered) {
        row.buffered = { nominalAt, via }
        this.record(row, { at: now, nominalAt, via, outcome: 'buffered', runId: row.lastRunId! })
        return
      }
      this.skip(row, now, nominalAt, via, 'overlap', `the run it started last (${row.lastRunId}) is still going${overlap === 'bufferOne' ? ' and a fire is already buffered' : ''} (overlap: ${overlap})`)
      return
    }
    await this.start(row, nominalAt, via, now)
  }

  /** Handle what is due in the row at `now`; returns it with its next due time. */
  async fireDue(row: ScheduleRow, now: number): Promise<ScheduleRow> {
    const minInterval = this.deps.minIntervalOf(row.tenant)
    if (row.paused || minInterval === undefined) {
      // A tenant gone from the config keeps its schedules but fires nothing until it is back.
      row.dueAt = row.paused ? null : now + 60_000
      return row
    }
    if (row.buffered && !await this.running(row)) {
      const { nominalAt, via } = row.buffered
      delete row.buffered
      await this.start(row, nominalAt, via, now)
    }
    const times = new FireTimes(row.spec)
    this.skipMissed(row, times, now)
    for (let i = 0; i < MAX_FIRES_PER_PASS && row.nextAt !== null && row.nextAt + jitterOf(row.uid, row.nextAt, row.jitterMs) <= now; i++) {
      const at = row.nextAt
      row.nextAt = times.after(at)
      // The create-time check reads a cron's times of day; a daylight saving shift (or a limit raised since) is caught here.
      if (row.lastNominalAt !== undefined && at - row.lastNominalAt < minInterval) {
        this.skip(row, now, at, 'schedule', 'minInterval', `${at - row.lastNominalAt} ms after the last fire; this tenant's schedules fire at most every ${minInterval} ms (limits.minScheduleIntervalMs)`)
        continue
      }
      row.lastNominalAt = at
      await this.fire(row, at, 'schedule', now)
    }
    row.dueAt = dueAtOf(row, now)
    row.updatedAt = now
    return row
  }

  /**
   * Fires missed by more than the catch-up window (the server was down): skipped, counted, one action for them all.
   * Missed by their due time (nominal time and jitter): a fire a long jitter delays is not missed.
   */
  private skipMissed(row: ScheduleRow, times: FireTimes, now: number): void {
    const oldest = now - row.catchupWindowMs
    const missed = (at: number | null): at is number => at !== null && at + jitterOf(row.uid, at, row.jitterMs) < oldest
    const first = row.nextAt
    if (!missed(first)) return
    let n = 0
    let last = first
    while (missed(row.nextAt) && n < MAX_MISSED_SCAN) {
      last = row.nextAt
      row.nextAt = times.after(row.nextAt)
      n++
    }
    let more = ''
    if (missed(row.nextAt)) {
      // A long outage: skip the rest in one step (a cron's next fire after the window opens).
      row.nextAt = times.after(oldest - 1)
      more = ' and more'
    }
    this.record(row, {
      at: now, nominalAt: first, via: 'schedule', outcome: 'skipped', reason: 'catchupWindow',
      message: `${n}${more} fires from ${new Date(first).toISOString()} to ${new Date(last).toISOString()}${more ? ' on' : ''} were missed by more than catchupWindowMs (${row.catchupWindowMs} ms)`,
    })
    row.counts.skipped.catchupWindow = (row.counts.skipped.catchupWindow ?? 0) + n - 1
  }
}
