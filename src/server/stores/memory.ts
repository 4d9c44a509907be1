/**
 * In-memory stores: the embedded default of `ajsc serve`. Everything lives
 * in this process and is gone when it stops. Every tenant has a count and a
 * byte quota per store (./quota.ts), and each store a global cap: over
 * either, new items are refused; nothing is ever evicted for another tenant.
 */
import { createMemoryStore } from '../../capabilities/index.ts'
import type { AgentMemory, ProcedureRepo, RunRecord, RunRepo, RunState, RunSummary, ServerStores, StoredProcedure } from './types.ts'
import { newestOf, type ListQuery } from './list.ts'
import type { RunResult } from '../../vm/result.ts'
import { TenantTotals, checkQuota, jsonLength, storeFull, type StoreQuota } from './quota.ts'

const scoped = (tenant: string, id: string) => `${tenant}\u0000${id}`

export class MemoryProcedureRepo implements ProcedureRepo {
  private readonly entries = new Map<string, StoredProcedure>()
  private readonly totals = new TenantTotals()
  constructor(private readonly maxEntries = 100_000, private readonly now: () => number = Date.now) {}

  put(p: StoredProcedure, quota?: StoreQuota): void {
    const key = scoped(p.tenant, p.token)
    const old = this.entries.get(key)
    const adding = { count: old ? 0 : 1, bytes: p.astText.length - (old?.astText.length ?? 0) }
    const over = () => {
      const held = this.totals.of(p.tenant)
      return quota !== undefined && ((adding.count > 0 && held.count + adding.count > quota.maxCount) || (adding.bytes > 0 && held.bytes + adding.bytes > quota.maxBytes))
    }
    if (over() || (!old && this.entries.size >= this.maxEntries)) this.clearExpired(this.now())
    checkQuota('stored procedures', p.tenant, this.totals.of(p.tenant), adding, quota)
    // Full as a whole: refused. Nothing of another tenant is evicted to make room.
    if (!old && this.entries.size >= this.maxEntries) throw storeFull('stored procedures', this.maxEntries)
    this.entries.set(key, p)
    this.totals.add(p.tenant, adding.count, adding.bytes)
  }

  get(tenant: string, token: string): StoredProcedure | undefined {
    const p = this.entries.get(scoped(tenant, token))
    if (p && p.expiresAt <= this.now()) {
      this.remove(scoped(tenant, token))
      return undefined
    }
    return p
  }

  private remove(key: string): boolean {
    const p = this.entries.get(key)
    if (!p) return false
    this.entries.delete(key)
    this.totals.add(p.tenant, -1, -p.astText.length)
    return true
  }

  delete(tenant: string, token: string): boolean {
    return this.remove(scoped(tenant, token))
  }

  clearExpired(now: number): number {
    let n = 0
    for (const [k, p] of this.entries) if (p.expiresAt <= now) { this.remove(k); n++ }
    return n
  }

  /** Live procedures and their bytes held by a tenant. */
  usage(tenant: string): { count: number; bytes: number } {
    return this.totals.of(tenant)
  }
}

/** Bytes an async run record holds: its request's program and arguments, and its result. */
export const runBytes = (rec: RunRecord): number =>
  (rec.request ? (rec.request.astText?.length ?? 0) + (rec.request.source?.length ?? 0) + jsonLength(rec.request.args) : 0) + (rec.result ? jsonLength(rec.result) : 0)

export class MemoryRunRepo implements RunRepo {
  private readonly runs = new Map<string, RunRecord>()
  private readonly sizes = new Map<string, number>()
  private readonly totals = new TenantTotals()
  constructor(private readonly maxRuns = 100_000) {}

  create(rec: RunRecord, quota?: StoreQuota): void {
    const bytes = runBytes(rec)
    checkQuota('async runs', rec.tenant, this.totals.of(rec.tenant), { count: 1, bytes }, quota)
    // Full as a whole: refused (finished runs go after runRetentionMs); another tenant's runs are never evicted.
    if (this.runs.size >= this.maxRuns) throw storeFull('async runs', this.maxRuns)
    this.runs.set(rec.id, rec)
    this.sizes.set(rec.id, bytes)
    this.totals.add(rec.tenant, 1, bytes)
  }

  get(tenant: string, id: string): RunRecord | undefined {
    const r = this.runs.get(id)
    return r && r.tenant === tenant ? r : undefined
  }

  start(id: string, at: number): void {
    const r = this.runs.get(id)
    if (r && r.state === 'queued') { r.state = 'running'; r.startedAt = at }
  }

  finish(id: string, result: RunResult, at: number): void {
    const r = this.runs.get(id)
    if (!r) return
    r.state = 'done'; r.result = result; r.finishedAt = at; delete r.request
    // The result replaces the request in the tenant's bytes (it may go over by one result: the run was admitted).
    const bytes = runBytes(r)
    this.totals.add(r.tenant, 0, bytes - (this.sizes.get(id) ?? 0))
    this.sizes.set(id, bytes)
  }

  prune(finishedBefore: number): number {
    let n = 0
    for (const [id, r] of this.runs) {
      if (r.finishedAt !== undefined && r.finishedAt < finishedBefore) {
        this.runs.delete(id)
        this.totals.add(r.tenant, -1, -(this.sizes.get(id) ?? 0))
        this.sizes.delete(id)
        n++
      }
    }
    return n
  }

  /** Records and bytes held by a tenant. */
  usage(tenant: string): { count: number; bytes: number } {
    return this.totals.of(tenant)
  }

  list(tenant: string, q: ListQuery<RunState>): RunSummary[] {
    return newestOf(this.runs.values(), (r) => r.tenant === tenant && (q.state === undefined || r.state === q.state), q).map(runSummary)
  }
}

/** What GET /v1/runs shows of a run record. */
export function runSummary(r: RunRecord): RunSummary {
  const out: RunSummary = { id: r.id, state: r.state, createdAt: r.createdAt }
  if (r.startedAt !== undefined) out.startedAt = r.startedAt
  if (r.finishedAt !== undefined) out.finishedAt = r.finishedAt
  if (typeof r.result?.fuelUsed === 'number') out.fuelUsed = r.result.fuelUsed
  if (r.result?.error) out.error = r.result.error.code
  return out
}

export function createMemoryStores(): ServerStores {
  const memories = new Map<string, AgentMemory>()
  return {
    procedures: new MemoryProcedureRepo(),
    runs: new MemoryRunRepo(),
    memory(tenant) {
      let m = memories.get(tenant)
      if (!m) {
        m = createMemoryStore() as unknown as AgentMemory
        memories.set(tenant, m)
      }
      return m
    },
    async close() {
      memories.clear()
    },
  }
}
