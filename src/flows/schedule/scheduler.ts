/**
 * `FlowScheduler`: runs stored flows on their entry node's schedule.
 *
 * `minutes`/`hours` flows run every interval from the scheduler's start
 * (first run one interval after it); `cron` flows at each time croner
 * computes for the six-field, seconds-first expression; `manual` flows never
 * run by themselves. A flow whose previous run is still active is skipped
 * (and the skip logged) rather than run twice at once. Time comes from an
 * injected clock, so tests drive it with a fake one; one timer is armed at
 * a time, for the earliest due flow.
 */
import { Cron } from 'croner'
import type { FlowRunResult } from '../run.ts'
import type { StoredFlow } from './store.ts'

/** The time source; the default is the real clock. */
export interface SchedulerClock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
}

/** One line of the scheduler's log. */
export type ScheduleLogEntry =
  | { event: 'scheduled'; at: number; flow: string; schedule: string; next: number | null }
  | { event: 'started'; at: number; flow: string; run: number }
  | { event: 'completed'; at: number; flow: string; run: number; ms: number; fuelUsed: number }
  | { event: 'failed'; at: number; flow: string; run: number; ms: number; code: string; message: string }
  | { event: 'skipped'; at: number; flow: string; reason: string }

export interface FlowSchedulerOptions {
  flows: readonly StoredFlow[]
  /** Runs one flow (e.g. `runFlow(stored.flow, {}, { capabilities })`). */
  run: (stored: StoredFlow) => Promise<FlowRunResult>
  log?: (entry: ScheduleLogEntry) => void
  clock?: SchedulerClock
  /** IANA time zone for cron expressions (default: the machine's). */
  timezone?: string
}

interface Slot {
  stored: StoredFlow
  cron?: Cron
  next: number | null
  active: Promise<void> | undefined
  runs: number
}

const describe = (s: StoredFlow['schedule']) => s.type === 'manual' ? 'manual' : s.type === 'every' ? `every ${s.interval} ${s.unit}` : `cron ${s.cron}`

export class FlowScheduler {
  private readonly slots: Slot[]
  private readonly clock: SchedulerClock
  private readonly log: (entry: ScheduleLogEntry) => void
  private timer: unknown
  private stopped = true

  constructor(private readonly options: FlowSchedulerOptions) {
    this.clock = options.clock ?? systemClock
    this.log = options.log ?? (() => {})
    this.slots = options.flows.map((stored) => ({
      stored,
      ...(stored.schedule.type === 'cron' ? { cron: new Cron(stored.schedule.cron, { paused: true, ...(options.timezone ? { timezone: options.timezone } : {}) }) } : {}),
      next: null,
      active: undefined,
      runs: 0,
    }))
  }

  /** Arm the schedule; every flow logs when it runs next. */
  start(): void {
    if (!this.stopped) return
    this.stopped = false
    const now = this.clock.now()
    for (const slot of this.slots) {
      slot.next = this.nextAfter(slot, now, now)
      this.log({ event: 'scheduled', at: now, flow: slot.stored.flow.id, schedule: describe(slot.stored.schedule), next: slot.next })
    }
    this.arm()
  }

  /** Stop scheduling and wait for the runs in flight. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer)
    this.timer = undefined
    await Promise.all(this.slots.map((s) => s.active))
  }

  /** Runs started so far, by flow id. */
  get runCounts(): Record<string, number> {
    return Object.fromEntries(this.slots.map((s) => [s.stored.flow.id, s.runs]))
  }

  private nextAfter(slot: Slot, previous: number, now: number): number | null {
    const s = slot.stored.schedule
    if (s.type === 'manual') return null
    if (s.type === 'every') {
      // Keep the grid (no drift); after a long pause skip the missed slots instead of bursting.
      let next = previous + s.ms
      if (next <= now) next += Math.ceil((now - next + 1) / s.ms) * s.ms
      return next
    }
    return slot.cron!.nextRun(new Date(Math.max(previous, now)))?.getTime() ?? null
  }

  private arm(): void {
    if (this.stopped) return
    const due = this.slots.map((s) => s.next).filter((n): n is number => n !== null)
    if (due.length === 0) return
    const wait = Math.max(0, Math.min(...due) - this.clock.now())
    // Timers cannot wait longer than 2^31-1 ms; wake up and re-arm.
    this.timer = this.clock.setTimeout(() => this.tick(), Math.min(wait, 2 ** 31 - 1))
  }

  private tick(): void {
    this.timer = undefined
    if (this.stopped) return
    const now = this.clock.now()
    for (const slot of this.slots) {
      if (slot.next === null || slot.next > now) continue
      const scheduledFor = slot.next
      slot.next = this.nextAfter(slot, scheduledFor, now)
      const id = slot.stored.flow.id
      if (slot.active) {
        this.log({ event: 'skipped', at: now, flow: id, reason: 'the previous run is still active' })
        continue
      }
      const run = ++slot.runs
      this.log({ event: 'started', at: now, flow: id, run })
      slot.active = this.options.run(slot.stored).then(
        (r) => {
          const end = this.clock.now()
          if (r.error) this.log({ event: 'failed', at: end, flow: id, run, ms: end - now, code: r.error.code, message: r.error.message })
          else this.log({ event: 'completed', at: end, flow: id, run, ms: end - now, fuelUsed: r.fuelUsed })
        },
        (e: unknown) => {
          const end = this.clock.now()
          this.log({ event: 'failed', at: end, flow: id, run, ms: end - now, code: 'INTERNAL', message: (e as Error)?.message ?? String(e) })
        },
      ).finally(() => { slot.active = undefined })
    }
    this.arm()
  }
}
