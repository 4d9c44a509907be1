/**
 * Tenants at the door: bearer token -> tenant (by SHA-256, never the token
 * itself), then admission of a run against the tenant's limits: requests
 * per minute (a token bucket), runs in progress, and fuel per UTC day. The
 * run's own fuel and time are capped here too, so the worker only ever sees
 * budgets the tenant is entitled to.
 */
import type { ServeConfig, TenantConfig } from './config.ts'
import { tokenSha256 } from './config.ts'
import { HttpError } from './errors.ts'

/** Where fuel per day is counted (in memory by default; Postgres when distributed). */
export interface UsageLedger {
  /** Fuel used by the tenant on this UTC day (e.g. "2026-11-24"). */
  used(tenant: string, day: string): number | Promise<number>
  add(tenant: string, day: string, fuel: number): void | Promise<void>
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
    this.totals.set(key, (this.totals.get(key) ?? 0) + fuel)
  }
}

export const utcDay = (now: number): string => new Date(now).toISOString().slice(0, 10)

/** A tenant's live state in this process. */
export class Tenant {
  inFlight = 0
  private tokens: number
  private refilledAt: number

  constructor(readonly config: TenantConfig, now: number) {
    this.tokens = config.limits.requestsPerMinute ?? 0
    this.refilledAt = now
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

/** A granted run: the budgets it may use and the slot to give back. */
export interface Admission {
  fuel: number
  timeoutMs: number
  release(): void
}

export class Tenants {
  private readonly byHash = new Map<string, Tenant>()
  private readonly byId = new Map<string, Tenant>()

  constructor(config: ServeConfig, private readonly ledger: UsageLedger = new MemoryUsageLedger(), private readonly now: () => number = Date.now) {
    for (const t of config.tenants) {
      const tenant = new Tenant(t, now())
      this.byHash.set(t.tokenSha256, tenant)
      this.byId.set(t.id, tenant)
    }
  }

  get all(): Tenant[] {
    return [...this.byId.values()]
  }

  get(id: string): Tenant | undefined {
    return this.byId.get(id)
  }

  /** The tenant of an `Authorization: Bearer <token>` header, or 401. */
  authenticate(header: string | undefined): Tenant {
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    const tenant = m ? this.byHash.get(tokenSha256(m[1]!)) : undefined
    if (!tenant) throw new HttpError('UNAUTHORIZED', header === undefined ? 'Missing bearer token' : 'Unknown bearer token')
    return tenant
  }

  /** Count a request against the tenant's rate limit (429 when over). */
  limitRate(tenant: Tenant): void {
    const wait = tenant.takeRequest(this.now())
    if (wait > 0) throw new HttpError('RATE_LIMITED', `Tenant "${tenant.id}" is over its limit of ${tenant.config.limits.requestsPerMinute} requests per minute`, { retryAfter: wait })
  }

  /** Admit one run: a slot within concurrentRuns, fuel within today's budget; budgets capped by the tenant's limits. */
  async admit(tenant: Tenant, requested: { fuel?: number; timeoutMs?: number }): Promise<Admission> {
    const limits = tenant.config.limits
    if (tenant.inFlight >= limits.concurrentRuns) {
      throw new HttpError('TENANT_BUSY', `Tenant "${tenant.id}" already has ${limits.concurrentRuns} runs in progress`, { retryAfter: 1 })
    }
    let fuel = Math.min(requested.fuel ?? limits.fuelPerRun, limits.fuelPerRun)
    if (limits.fuelPerDay !== null) {
      const left = limits.fuelPerDay - await this.ledger.used(tenant.id, utcDay(this.now()))
      if (left <= 0) throw new HttpError('FUEL_QUOTA_EXCEEDED', `Tenant "${tenant.id}" used its ${limits.fuelPerDay} fuel for today`, { retryAfter: secondsToMidnight(this.now()) })
      fuel = Math.min(fuel, left)
    }
    if (tenant.inFlight >= limits.concurrentRuns) {
      throw new HttpError('TENANT_BUSY', `Tenant "${tenant.id}" already has ${limits.concurrentRuns} runs in progress`, { retryAfter: 1 })
    }
    tenant.inFlight++
    let released = false
    return {
      fuel,
      timeoutMs: Math.min(requested.timeoutMs ?? limits.timeoutMs, limits.timeoutMs),
      release: () => {
        if (!released) { released = true; tenant.inFlight-- }
      },
    }
  }

  /** Record fuel a finished run used. */
  async spend(tenant: Tenant, fuel: number): Promise<void> {
    if (fuel > 0) await this.ledger.add(tenant.id, utcDay(this.now()), fuel)
  }
}

function secondsToMidnight(now: number): number {
  const d = new Date(now)
  return Math.max(1, Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - now) / 1000))
}
