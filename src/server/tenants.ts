/**
 * Tenants at the door: bearer token -> tenant (by SHA-256, never the token
 * itself), then admission of guest work against the tenant's limits:
 * requests per minute (a token bucket), slots of work in progress, and fuel
 * per UTC day — reserved before the work starts and settled after with what
 * it used, so concurrent requests never spend more than the limit. Runs,
 * async runs, workflow steps and compiling a tenant's source all pass here.
 */
import { SINGLE_TENANT_CONCURRENT_RUNS, type ServeConfig, type TenantConfig } from './config.ts'
import { tokenSha256 } from './config.ts'
import { HttpError } from './errors.ts'
import { SOURCE_CHAR_COST, UNIT } from '../vm/fuel.ts'
import type { StoreQuota } from './stores/quota.ts'

/**
 * Where fuel per day is counted (in memory by default; Postgres when distributed). Admission
 * *reserves* fuel here before work starts (`reserve`, atomic: concurrent requests can never be
 * granted more than the limit together) and settles after with what the work really used (`add`
 * of the difference, a refund when negative).
 */
export interface UsageLedger {
  /** Fuel used (and reserved) by the tenant on this UTC day (e.g. "2026-11-24"). */
  used(tenant: string, day: string): number | Promise<number>
  /** Add fuel to the day's total (negative: give back part of a reservation). */
  add(tenant: string, day: string, fuel: number): void | Promise<void>
  /**
   * Atomically grant up to `want` fuel of what is left below `limit` today and count it as used;
   * returns the fuel granted (0 when nothing is left).
   */
  reserve(tenant: string, day: string, want: number, limit: number): number | Promise<number>
}

export class MemoryUsageLedger implements UsageLedger {
  private readonly totals = new Map<string, number>()
  used(tenant: string, day: string): number {
    return this.totals.get(`${day}\u0000${tenant}`) ?? 0
  }
  add(tenant: string, day: string, fuel: number): void {
    const key = `${day}\u0000${tenant}`
    // Yesterday's counters are dropped when a new day starts.
    if (!this.totals.has(key)) for (const k of this.totals.keys()) if (!k.startsWith(day)) this.totals.delete(k)
    this.totals.set(key, Math.max(0, (this.totals.get(key) ?? 0) + fuel))
  }
  reserve(tenant: string, day: string, want: number, limit: number): number {
    // Synchronous: no other request can run between the read and the write.
    const granted = Math.max(0, Math.min(want, limit - this.used(tenant, day)))
    if (granted > 0) this.add(tenant, day, granted)
    return granted
  }
}

export const utcDay = (now: number): string => new Date(now).toISOString().slice(0, 10)

/** A tenant's live state in this process. */
export class Tenant {
  inFlight = 0
  /** Slots of work in progress: limits.concurrentRuns, or the default derived from the pool size (Tenants.setPoolSize). */
  slots: number
  private tokens: number
  private refilledAt: number

  constructor(readonly config: TenantConfig, now: number) {
    this.tokens = config.limits.requestsPerMinute ?? 0
    this.refilledAt = now
    this.slots = config.limits.concurrentRuns ?? SINGLE_TENANT_CONCURRENT_RUNS
  }

  get id(): string {
    return this.config.id
  }

  /** Take one request from the bucket; the seconds to wait when empty. */
  takeRequest(now: number): number {
    const perMinute = this.config.limits.requestsPerMinute
    if (perMinute === null) return 0
    this.tokens = Math.min(perMinute, this.tokens + ((now - this.refilledAt) * perMinute) / 60_000)
    this.refilledAt = now
    if (this.tokens >= 1) {
      this.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 60_000) / perMinute / 1000))
  }
}

/** The kinds of guest work that pass admission (every one takes a slot of `concurrentRuns`). */
export type WorkKind = 'run' | 'async-run' | 'workflow-step' | 'compile'

/**
 * Granted work: the budgets it may use (fuel already reserved from today's ledger) and the
 * settlement that gives the slot back and charges what was really used. Settle exactly once
 * (later calls are ignored); until then the slot and the whole reservation stay taken.
 */
export interface Admission {
  kind: WorkKind
  fuel: number
  timeoutMs: number
  settle(fuelUsed: number): Promise<void>
}

/** The tenant's quotas of the server's stores (limits.max*). */
export const quotasOf = (limits: TenantConfig['limits']): { procedures: StoreQuota; runs: StoreQuota; workflows: StoreQuota; schedules: StoreQuota } => ({
  procedures: { maxCount: limits.maxProcedures, maxBytes: limits.maxProcedureBytes, keys: ['limits.maxProcedures', 'limits.maxProcedureBytes'] },
  runs: { maxCount: limits.maxAsyncRuns, maxBytes: limits.maxAsyncRunBytes, keys: ['limits.maxAsyncRuns', 'limits.maxAsyncRunBytes'] },
  workflows: { maxCount: limits.maxWorkflows, maxBytes: limits.maxWorkflowBytes, keys: ['limits.maxWorkflows', 'limits.maxWorkflowBytes'] },
  schedules: { maxCount: limits.maxSchedules, maxBytes: limits.maxScheduleBytes, keys: ['limits.maxSchedules', 'limits.maxScheduleBytes'] },
})

/** Fuel charged for compiling a tenant's source on the server: the VM's rate for source text (0.0001 per character). */
export const compileFuel = (chars: number): number => (chars * SOURCE_CHAR_COST) / UNIT

/** Authorization headers remembered after they named a tenant: bounded, so no client can grow it. */
const MAX_KNOWN_HEADERS = 256
const DAY_MS = 86_400_000
/** What a settlement with nothing to wait for returns (one promise for all of them: callers may skip awaiting it). */
export const SETTLED: Promise<void> = Promise.resolve()

export class Tenants {
  private readonly byHash = new Map<string, Tenant>()
  private readonly byId = new Map<string, Tenant>()
  /**
   * Header -> tenant for headers that authenticated: a request with a header seen before skips
   * the regex and the SHA-256 (~2 µs of the event loop per run). Only valid tokens enter it, so an
   * unknown token always takes the hashed path; the tenants are fixed for the server's life.
   */
  private readonly known = new Map<string, Tenant>()

  constructor(config: ServeConfig, private readonly ledger: UsageLedger = new MemoryUsageLedger(), private readonly now: () => number = Date.now) {
    for (const t of config.tenants) {
      const tenant = new Tenant(t, now())
      this.byHash.set(t.tokenSha256, tenant)
      this.byId.set(t.id, tenant)
    }
  }

  /**
   * The pool's size decides the default concurrentRuns: with several tenants, a tenant without an
   * explicit value gets the pool size minus one (at least 1), so it can never hold every worker.
   */
  setPoolSize(size: number): void {
    if (this.byId.size < 2) return
    for (const t of this.byId.values()) if (t.config.limits.concurrentRuns === null) t.slots = Math.max(1, size - 1)
  }

  get all(): Tenant[] {
    return [...this.byId.values()]
  }

  get(id: string): Tenant | undefined {
    return this.byId.get(id)
  }

  /** The tenant of an `Authorization: Bearer <token>` header, or 401. */
  authenticate(header: string | undefined): Tenant {
    const hit = header === undefined ? undefined : this.known.get(header)
    if (hit) return hit
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    const tenant = m ? this.byHash.get(tokenSha256(m[1]!)) : undefined
    if (!tenant) throw new HttpError('UNAUTHORIZED', header === undefined ? 'Missing bearer token' : 'Unknown bearer token')
    if (this.known.size >= MAX_KNOWN_HEADERS) this.known.delete(this.known.keys().next().value!)
    this.known.set(header!, tenant)
    return tenant
  }

  /** Count a request against the tenant's rate limit (429 when over). */
  limitRate(tenant: Tenant): void {
    const wait = tenant.takeRequest(this.now())
    if (wait > 0) throw new HttpError('RATE_LIMITED', `Tenant "${tenant.id}" is over its limit of ${tenant.config.limits.requestsPerMinute} requests per minute`, { retryAfter: wait })
  }

  /** Today's UTC day, formatted once a day rather than once a run. */
  private today(): string {
    const now = this.now()
    if (now >= this.dayEnds || now < this.dayEnds - DAY_MS) {
      this.day = utcDay(now)
      this.dayEnds = Date.parse(`${this.day}T00:00:00.000Z`) + DAY_MS
    }
    return this.day
  }

  private day = ''
  private dayEnds = 0

  /**
   * The one admission point of guest work. Takes a slot within `concurrentRuns` (before any await,
   * so concurrent requests cannot all pass), then reserves the work's fuel from today's ledger:
   * at most `fuelPerRun`, at most what is left of `fuelPerDay`; `exact` work (compiling) needs its
   * whole charge. Budgets are capped by the tenant's limits, so workers only see what it is entitled to.
   * Synchronous when there is nothing to reserve (no fuelPerDay): the per-run path makes no promise here.
   */
  admit(tenant: Tenant, requested: { fuel?: number; timeoutMs?: number; exact?: boolean }, kind: WorkKind = 'run'): Admission | Promise<Admission> {
    const limits = tenant.config.limits
    if (tenant.inFlight >= tenant.slots) {
      throw new HttpError('TENANT_BUSY', `Tenant "${tenant.id}" already has ${tenant.slots} runs in progress (limits.concurrentRuns)`, { retryAfter: 1 })
    }
    tenant.inFlight++
    const day = this.today()
    const want = requested.exact ? Math.max(0, requested.fuel ?? 0) : Math.min(requested.fuel ?? limits.fuelPerRun, limits.fuelPerRun)
    const timeoutMs = Math.min(requested.timeoutMs ?? limits.timeoutMs, limits.timeoutMs)
    // Nothing to reserve (no daily quota): granted now, without a promise or a turn of the event loop per run.
    if (limits.fuelPerDay === null || want <= 0) return new Grant(this.ledger, tenant, kind, day, want, 0, timeoutMs)
    return this.reserve(tenant, requested, kind, day, want, timeoutMs)
  }

  private async reserve(tenant: Tenant, requested: { exact?: boolean }, kind: WorkKind, day: string, want: number, timeoutMs: number): Promise<Admission> {
    const fuelPerDay = tenant.config.limits.fuelPerDay!
    let reserved = 0
    try {
      reserved = await this.ledger.reserve(tenant.id, day, want, fuelPerDay)
      if (reserved <= 0 || (requested.exact && reserved < want)) {
        throw new HttpError('FUEL_QUOTA_EXCEEDED', `Tenant "${tenant.id}" used its ${fuelPerDay} fuel for today (limits.fuelPerDay)`, { retryAfter: secondsToMidnight(this.now()) })
      }
    } catch (e) {
      tenant.inFlight--
      if (reserved > 0) await this.ledger.add(tenant.id, day, -reserved)
      throw e
    }
    return new Grant(this.ledger, tenant, kind, day, reserved, reserved, timeoutMs)
  }

  /** Fuel used (and reserved) by the tenant today. */
  usedToday(tenant: Tenant): number | Promise<number> {
    return this.ledger.used(tenant.id, utcDay(this.now()))
  }
}

/** Granted work (an Admission): its settlement gives the slot back and tells the ledger what was used (reserved: what was not). A class: no closure per run. */
class Grant implements Admission {
  private settled = false

  constructor(
    private readonly ledger: UsageLedger,
    private readonly tenant: Tenant,
    readonly kind: WorkKind,
    private readonly day: string,
    readonly fuel: number,
    private readonly reserved: number,
    readonly timeoutMs: number,
  ) {}

  settle(fuelUsed: number): Promise<void> {
    if (this.settled) return SETTLED
    this.settled = true
    const { tenant, fuel } = this
    tenant.inFlight--
    const used = Number.isFinite(fuelUsed) ? Math.min(Math.max(0, fuelUsed), fuel) : fuel
    // Reserved: give back what was not used. Unlimited: count what was.
    const delta = tenant.config.limits.fuelPerDay !== null ? used - this.reserved : used
    if (delta === 0) return SETTLED
    try {
      const adding = this.ledger.add(tenant.id, this.day, delta)
      return adding === undefined ? SETTLED : adding
    } catch (e) {
      return Promise.reject(e)
    }
  }
}

function secondsToMidnight(now: number): number {
  const d = new Date(now)
  return Math.max(1, Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - now) / 1000))
}
