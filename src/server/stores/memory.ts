/**
 * In-memory stores: the embedded default of `ajsc serve`. Everything lives
 * in this process and is gone when it stops. Sizes are capped (oldest
 * entries go first) so a busy tenant cannot grow the heap without bound.
 */
import { createMemoryStore } from '../../capabilities/index.ts'
import type { AgentMemory, ProcedureRepo, RunRecord, RunRepo, ServerStores, StoredProcedure } from './types.ts'
import type { RunResult } from '../../vm/result.ts'

const scoped = (tenant: string, id: string) => `${tenant}\u0000${id}`

export class MemoryProcedureRepo implements ProcedureRepo {
  private readonly entries = new Map<string, StoredProcedure>()
  constructor(private readonly maxEntries = 100_000, private readonly now: () => number = Date.now) {}

  put(p: StoredProcedure): void {
    if (this.entries.size >= this.maxEntries) {
      this.clearExpired(this.now())
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(scoped(p.tenant, p.token), p)
  }

  get(tenant: string, token: string): StoredProcedure | undefined {
    const p = this.entries.get(scoped(tenant, token))
    if (p && p.expiresAt <= this.now()) {
      this.entries.delete(scoped(tenant, token))
      return undefined
    }
    return p
  }

  delete(tenant: string, token: string): boolean {
    return this.entries.delete(scoped(tenant, token))
  }

  clearExpired(now: number): number {
    let n = 0
    for (const [k, p] of this.entries) if (p.expiresAt <= now) { this.entries.delete(k); n++ }
    return n
  }
}

export class MemoryRunRepo implements RunRepo {
  private readonly runs = new Map<string, RunRecord>()
  constructor(private readonly maxRuns = 100_000) {}

  create(rec: RunRecord): void {
    if (this.runs.size >= this.maxRuns) this.runs.delete(this.runs.keys().next().value!)
    this.runs.set(rec.id, rec)
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
    if (r) { r.state = 'done'; r.result = result; r.finishedAt = at; delete r.request }
  }

  prune(finishedBefore: number): number {
    let n = 0
    for (const [id, r] of this.runs) if (r.finishedAt !== undefined && r.finishedAt < finishedBefore) { this.runs.delete(id); n++ }
    return n
  }
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
