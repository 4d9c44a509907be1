/**
 * Per-tenant quotas of the server's stores (procedures, async runs,
 * workflows): a count and a byte total per tenant, checked when something is
 * stored, in the same step that stores it (so concurrent requests cannot all
 * pass). Over its quota a tenant is refused (STORE_QUOTA_EXCEEDED, naming the
 * config key); it never evicts anything, and nothing of one tenant is ever
 * evicted to make room for another's (the VM procedure store's rule: an
 * owner's share is its own). A store that is full as a whole refuses too
 * (SERVER_STORE_FULL).
 */
import { HttpError } from '../errors.ts'

export interface StoreQuota {
  maxCount: number
  maxBytes: number
  /** The config keys of the two limits, for the message. */
  keys: readonly [count: string, bytes: string]
}

/** Per-tenant totals of one store. */
export class TenantTotals {
  private readonly totals = new Map<string, { count: number; bytes: number }>()

  of(tenant: string): { count: number; bytes: number } {
    return this.totals.get(tenant) ?? { count: 0, bytes: 0 }
  }

  add(tenant: string, count: number, bytes: number): void {
    const t = this.totals.get(tenant) ?? { count: 0, bytes: 0 }
    t.count += count
    t.bytes += bytes
    if (t.count <= 0 && t.bytes <= 0) this.totals.delete(tenant)
    else this.totals.set(tenant, t)
  }
}

/** Throws STORE_QUOTA_EXCEEDED when adding `count` items of `bytes` would go over the tenant's quota. */
export function checkQuota(what: string, tenant: string, held: { count: number; bytes: number }, adding: { count: number; bytes: number }, quota: StoreQuota | undefined): void {
  if (!quota) return
  if (adding.count > 0 && held.count + adding.count > quota.maxCount) {
    throw new HttpError('STORE_QUOTA_EXCEEDED', `Tenant "${tenant}" holds ${held.count} ${what}, its quota is ${quota.maxCount} (${quota.keys[0]})`, { retryAfter: 1 })
  }
  if (adding.bytes > 0 && held.bytes + adding.bytes > quota.maxBytes) {
    throw new HttpError('STORE_QUOTA_EXCEEDED', `Tenant "${tenant}" would hold ${held.bytes + adding.bytes} bytes of ${what}, its quota is ${quota.maxBytes} (${quota.keys[1]})`, { retryAfter: 1 })
  }
}

export const storeFull = (what: string, max: number): HttpError =>
  new HttpError('SERVER_STORE_FULL', `The server holds ${max} ${what}, its limit`, { retryAfter: 5 })

/** UTF-16 length of a value's JSON (what it costs to hold), 0 when it has none. */
export function jsonLength(v: unknown): number {
  try {
    return JSON.stringify(v)?.length ?? 0
  } catch {
    return 0
  }
}
