/**
 * Stored procedures: ASTs kept under unguessable `proc_` tokens with a TTL
 * and a size cap. The store is an interface owned by a VM instance (the
 * default is in memory); hosts that want sharing pass the same store to
 * several VMs, or their own implementation (Redis, a database, ...).
 */

export const PROCEDURE_TOKEN_PREFIX = 'proc_'
export const DEFAULT_PROCEDURE_TTL = 3_600_000
export const DEFAULT_MAX_AST_SIZE = 102_400

export interface ProcedureEntry {
  ast: unknown
  createdAt: number
  expiresAt: number
}

type Maybe<T> = T | Promise<T>

export interface ProcedureStore {
  get(token: string): Maybe<ProcedureEntry | undefined>
  set(token: string, entry: ProcedureEntry): Maybe<void>
  delete(token: string): Maybe<boolean>
  /** Remove expired entries; returns [removed, scanned]. */
  clearExpired(now: number): Maybe<[number, number]>
}

export interface MemoryProcedureStoreOptions {
  /** Maximum number of live procedures (oldest evicted first). Default 10,000. */
  maxEntries?: number
  now?: () => number
}

export class MemoryProcedureStore implements ProcedureStore {
  private readonly entries = new Map<string, ProcedureEntry>()
  private readonly maxEntries: number
  private readonly now: () => number

  constructor(options: MemoryProcedureStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000
    this.now = options.now ?? Date.now
  }

  get size(): number {
    return this.entries.size
  }

  get(token: string): ProcedureEntry | undefined {
    const e = this.entries.get(token)
    if (!e) return undefined
    if (e.expiresAt <= this.now()) {
      this.entries.delete(token)
      return undefined
    }
    return e
  }

  set(token: string, entry: ProcedureEntry): void {
    if (this.entries.size >= this.maxEntries) {
      this.clearExpired(this.now())
      while (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next().value
        if (oldest === undefined) break
        this.entries.delete(oldest)
      }
    }
    this.entries.set(token, entry)
  }

  delete(token: string): boolean {
    return this.entries.delete(token)
  }

  clearExpired(now: number): [number, number] {
    let removed = 0
    const scanned = this.entries.size
    for (const [k, e] of this.entries) if (e.expiresAt <= now) { this.entries.delete(k); removed++ }
    return [removed, scanned]
  }

  dispose(): void {
    this.entries.clear()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}

export const isProcedureToken = (v: unknown): v is string => typeof v === 'string' && v.startsWith(PROCEDURE_TOKEN_PREFIX)
