/**
 * Firing on the clock: a pass over the due schedules (ScheduleService.runDue)
 * every `pollMs`, one timer armed at a time, never two passes at once. The
 * clock is injected (the flows scheduler's SchedulerClock), so tests drive
 * time themselves and call `pass()` instead of waiting. With PostgreSQL each
 * server process runs its own loop; the store's row locks keep them apart.
 */
import { systemClock, type SchedulerClock } from '../../flows/schedule/scheduler.ts'
import type { ScheduleService } from './service.ts'

/** How often a server looks for due schedules by default: a fire starts at most this late (plus its jitter). */
export const DEFAULT_POLL_MS = 1000

export class ScheduleLoop {
  private timer: unknown
  private running: Promise<number> | undefined
  private stopped = true

  constructor(
    private readonly service: ScheduleService,
    private readonly clock: SchedulerClock = systemClock,
    private readonly pollMs = DEFAULT_POLL_MS,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.arm()
  }

  private arm(): void {
    if (this.stopped) return
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined
      void this.pass().finally(() => this.arm())
    }, this.pollMs)
    ;(this.timer as { unref?: () => void } | undefined)?.unref?.()
  }

  /** One pass now (a pass in progress is joined, not doubled); how many schedules it handled. */
  pass(): Promise<number> {
    this.running ??= this.service.runDue(this.onError).catch((e) => { this.onError(e); return 0 }).finally(() => { this.running = undefined })
    return this.running
  }

  /** Stop the timer and wait for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer)
    this.timer = undefined
    await this.running
  }
}
