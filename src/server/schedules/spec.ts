/**
 * A schedule's spec: when it fires. `{ cron, timezone? }` (croner, five
 * fields minute-first or six fields seconds-first, as the flows' schedules
 * take) or `{ everyMs }` (a grid anchored at the epoch, so every process
 * computes the same nominal times). Checked when a schedule is created:
 * a bad expression, an unknown time zone or fires closer together than the
 * tenant's `limits.minScheduleIntervalMs` is a 400 with its own code (a
 * cron's closest fires come from its times of day, not from sampling it). The
 * times are pure functions of the spec, so two servers agree on them; the
 * run a fire starts has an id derived from the schedule and its nominal time.
 */
import { createHash } from 'node:crypto'
import { Cron, CronPattern } from 'croner'
import { HttpError } from '../errors.ts'
import { SERVER_CODES, type ServerCode } from '../../diagnostics/server-codes.ts'

export type ScheduleSpec = { cron: string; timezone?: string } | { everyMs: number }

const bad = (code: ServerCode, message: string): HttpError => new HttpError(code, message)

/** An IANA zone name this runtime knows (Intl throws RangeError for others). */
function knownTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

/** Fire times of one spec. */
export class FireTimes {
  private readonly cron?: Cron
  constructor(readonly spec: ScheduleSpec) {
    if ('cron' in spec) this.cron = new Cron(spec.cron, { paused: true, mode: '5-or-6-parts', timezone: spec.timezone ?? 'UTC' })
  }

  /** The first nominal fire time strictly after `t` (null: none, a cron that never fires again). */
  after(t: number): number | null {
    if ('everyMs' in this.spec) return (Math.floor(t / this.spec.everyMs) + 1) * this.spec.everyMs
    return this.cron!.nextRun(new Date(t))?.getTime() ?? null
  }

  /** Up to `n` fire times strictly after `t`. */
  next(t: number, n: number): number[] {
    const out: number[] = []
    for (let at = this.after(t); at !== null && out.length < n; at = this.after(at)) out.push(at)
    return out
  }
}

/**
 * Why a valid spec fires more often than `minIntervalMs` (the tenant's limits.minScheduleIntervalMs) allows, in the
 * terms of the request's fields; undefined when it does not. A cron's closest fires come from its times of day.
 */
export function tooFrequent(spec: ScheduleSpec, minIntervalMs: number): string | undefined {
  const limit = `this tenant's schedules fire at most every ${minIntervalMs} ms (limits.minScheduleIntervalMs)`
  if ('everyMs' in spec) return spec.everyMs < minIntervalMs ? `spec.everyMs is ${spec.everyMs} ms; ${limit}` : undefined
  const close = closestTimesOfDay(new CronPattern(spec.cron, spec.timezone, { mode: '5-or-6-parts' }), minIntervalMs)
  if (!close) return undefined
  const [a, b] = close
  return `spec.cron "${spec.cron.slice(0, 100)}" fires ${b - a} ms apart (at ${clockTime(a)} and ${clockTime(b)}); ${limit}`
}

/**
 * Check a spec as a request sent it (400 SCHEDULE_INVALID, SCHEDULE_TIMEZONE, SCHEDULE_TOO_FREQUENT) and return
 * its fire times. `minIntervalMs`: the tenant's limits.minScheduleIntervalMs; a cron is sampled from `now`.
 */
export function checkSpec(spec: ScheduleSpec, minIntervalMs: number, now: number): FireTimes {
  let times: FireTimes
  if ('everyMs' in spec) {
    if (!Number.isSafeInteger(spec.everyMs) || spec.everyMs <= 0) throw bad('SCHEDULE_INVALID', `spec.everyMs must be a positive whole number of milliseconds, not ${spec.everyMs}`)
    times = new FireTimes(spec)
  } else {
    if (spec.timezone !== undefined && !knownTimezone(spec.timezone)) throw bad('SCHEDULE_TIMEZONE', `spec.timezone "${spec.timezone.slice(0, 64)}" is not an IANA time zone this server knows`)
    try {
      times = new FireTimes(spec)
    } catch (e) {
      throw bad('SCHEDULE_INVALID', `spec.cron "${spec.cron.slice(0, 100)}" is not a cron expression: ${(e as Error).message.replace(/^CronPattern: /, '')}`)
    }
    if (times.after(now) === null) throw bad('SCHEDULE_INVALID', `spec.cron "${spec.cron.slice(0, 100)}" never fires after now`)
  }
  const reason = tooFrequent(spec, minIntervalMs)
  if (reason) throw bad('SCHEDULE_TOO_FREQUENT', reason)
  return times
}

/**
 * A change that leaves schedule `id` active (PATCH, unpause) when its spec, unchanged, no longer passes the tenant's
 * limits (limits.minScheduleIntervalMs raised since the spec was set): 409 SCHEDULE_OUTSIDE_LIMITS.
 */
export function checkStillAllowed(id: string, spec: ScheduleSpec, minIntervalMs: number): void {
  const reason = tooFrequent(spec, minIntervalMs)
  if (reason) throw bad('SCHEDULE_OUTSIDE_LIMITS', `Schedule "${id}" would be left active on a spec this tenant's limits no longer allow (they changed since it was set): ${reason}`)
}

/** Why GET and the list flag a schedule (the code a change that keeps it active on its spec is refused with, and its hint). */
export interface OutsideLimits { code: 'SCHEDULE_OUTSIDE_LIMITS'; message: string; hint: string }

/**
 * What GET and the list say of an active schedule whose spec the tenant's limits no longer allow (raised since the
 * spec was set): how it fires now and what to do; undefined when its spec passes them.
 */
export function outsideLimitsOf(spec: ScheduleSpec, minIntervalMs: number): OutsideLimits | undefined {
  const reason = tooFrequent(spec, minIntervalMs)
  if (!reason) return undefined
  return {
    code: 'SCHEDULE_OUTSIDE_LIMITS',
    message: `Its spec no longer passes this tenant's limits (they changed since it was set): ${reason}. It fires only where its fires are that far apart (the others are skipped as minInterval), and a change that leaves it active on this spec is refused`,
    hint: SERVER_CODES.SCHEDULE_OUTSIDE_LIMITS.hint,
  }
}

const DAY_MS = 86_400_000
const clockTime = (ms: number) => `${ms >= DAY_MS ? 'the next day\'s ' : ''}${new Date(ms % DAY_MS).toISOString().slice(11, 19)}`
const setOf = (flags: readonly number[]) => flags.flatMap((on, i) => (on ? [i] : []))

/**
 * Two times of day of a cron closer than `minIntervalMs` (ms after midnight; the second may be the next day's
 * first), or undefined. Every day a cron fires, it fires at the same times (its seconds × minutes × hours), so
 * its closest fires are two of them, or a day's last and the next day's first (counted whether or not the
 * days pattern fires on two days in a row). Walked in order with an early exit: a cron that passes has at
 * most a day over minIntervalMs times. A daylight saving shift can bring two fires closer once a year; the
 * fire-time guard (firing.ts) skips such a fire.
 */
function closestTimesOfDay(p: CronPattern, minIntervalMs: number): [number, number] | undefined {
  const seconds = setOf(p.second)
  const minutes = setOf(p.minute)
  let first: number | undefined
  let prev: number | undefined
  for (const h of setOf(p.hour)) {
    for (const m of minutes) {
      for (const sec of seconds) {
        const t = ((h * 60 + m) * 60 + sec) * 1000
        if (prev !== undefined && t - prev < minIntervalMs) return [prev, t]
        first ??= t
        prev = t
      }
    }
  }
  if (first !== undefined && prev !== undefined && first + DAY_MS - prev < minIntervalMs) return [prev, first + DAY_MS]
  return undefined
}

/**
 * The id of the workflow run a fire starts: the same on every server, so a fire starts at most one run.
 * `specRevision`: the PATCH revision that last set the spec (0: the spec it was created with, whose ids
 * stay as they were), so a fire of a changed spec never takes a run of the old spec at the same time for its own.
 */
export function runIdOf(tenant: string, scheduleUid: string, nominalAt: number, specRevision = 0): string {
  const key = `${tenant}\0${scheduleUid}\0${nominalAt}${specRevision > 0 ? `\0${specRevision}` : ''}`
  return `wf_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`
}

/** The same spec (a cron's time zone defaults to UTC)? */
export function sameSpec(a: ScheduleSpec, b: ScheduleSpec): boolean {
  if ('everyMs' in a || 'everyMs' in b) return 'everyMs' in a && 'everyMs' in b && a.everyMs === b.everyMs
  return a.cron === b.cron && (a.timezone ?? 'UTC') === (b.timezone ?? 'UTC')
}

/** A fire's delay after its nominal time, in [0, jitterMs): derived from the fire, so every server waits the same. */
export function jitterOf(scheduleUid: string, nominalAt: number, jitterMs: number): number {
  if (jitterMs <= 0) return 0
  return createHash('sha256').update(`${scheduleUid}\0${nominalAt}`).digest().readUInt32BE(0) % jitterMs
}
