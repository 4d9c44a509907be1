/**
 * Stored procedures: ASTs kept under unguessable `proc_` tokens with a TTL
 * and a size cap. The store is an interface owned by a VM instance (the
 * default is in memory); hosts that want sharing pass the same store to
 * several VMs, or their own implementation (Redis, a database, ...).
 */

export const PROCEDURE_TOKEN_PREFIX = 'proc_'
export const DEFAULT_PROCEDURE_TTL = 3_600_000
export const DEFAULT_MAX_AST_SIZE = 102_400
/** Longest TTL a procedure may ask for (7 days). */
export const MAX_PROCEDURE_TTL = 7 * 24 * 3_600_000

export interface ProcedureEntry {
  ast: unknown
  createdAt: number
  expiresAt: number
  /** The tenant that stored it (the run option `tenant`; '' when none): quotas are per owner. */
  owner?: string
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
  /** Maximum number of live procedures. When full, the oldest of the owner holding the most goes first. Default 10,000. */
  maxEntries?: number
  /** Maximum live procedures per owner (tenant); that owner's oldest is evicted first. Default 1,000. */
  maxEntriesPerOwner?: number
  now?: () => number
}

function count(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback
  if (!Number.isSafeInteger(v) || (v as number) < 1) throw new TypeError(`MemoryProcedureStore: ${name} must be a positive integer`)
  return v as number
}

export class MemoryProcedureStore implements ProcedureStore {
  private readonly entries = new Map<string, ProcedureEntry>()
  /** Tokens per owner, oldest first: one tenant's procedures never evict another's while it is under its share. */
  private readonly owners = new Map<string, Set<string>>()
  private readonly maxEntries: number
  private readonly maxPerOwner: number
  private readonly now: () => number

  constructor(options: MemoryProcedureStoreOptions = {}) {
    this.maxEntries = count(options.maxEntries, 'maxEntries', 10_000)
    this.maxPerOwner = Math.min(this.maxEntries, count(options.maxEntriesPerOwner, 'maxEntriesPerOwner', 1_000))
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('MemoryProcedureStore: now must be a function')
    this.now = options.now ?? Date.now
  }

  get size(): number {
    return this.entries.size
  }

  get(token: string): ProcedureEntry | undefined {
    const e = this.entries.get(token)
    if (!e) return undefined
    if (e.expiresAt <= this.now()) {
      this.remove(token)
      return undefined
    }
    return e
  }

  set(token: string, entry: ProcedureEntry): void {
    const owner = typeof entry.owner === 'string' ? entry.owner : ''
    const mine = this.owners.get(owner)
    if ((mine?.size ?? 0) >= this.maxPerOwner || this.entries.size >= this.maxEntries) this.clearExpired(this.now())
    // Over its own share, an owner evicts its own oldest; a full store evicts from the owner holding the most.
    while ((this.owners.get(owner)?.size ?? 0) >= this.maxPerOwner) this.evictOldestOf(owner)
    while (this.entries.size >= this.maxEntries) this.evictOldestOf(this.largestOwner())
    this.remove(token)
    this.entries.set(token, { ...entry, owner })
    let set = this.owners.get(owner)
    if (!set) this.owners.set(owner, (set = new Set()))
    set.add(token)
  }

  /** Live procedures stored by `owner`. */
  countOf(owner: string): number {
    return this.owners.get(owner)?.size ?? 0
  }

  private largestOwner(): string {
    let best = ''
    let most = -1
    for (const [owner, set] of this.owners) if (set.size > most) { most = set.size; best = owner }
    return best
  }

  private evictOldestOf(owner: string): void {
    const oldest = this.owners.get(owner)?.values().next().value
    if (oldest === undefined) throw new Error('MemoryProcedureStore: nothing to evict')
    this.remove(oldest)
  }

  private remove(token: string): boolean {
    const e = this.entries.get(token)
    if (!e) return false
    this.entries.delete(token)
    const set = this.owners.get(e.owner ?? '')
    set?.delete(token)
    if (set && set.size === 0) this.owners.delete(e.owner ?? '')
    return true
  }

  /** Whether `token` names a live procedure (an expired one is swept here and is not). */
  has(token: string): boolean {
    return this.get(token) !== undefined
  }

  delete(token: string): boolean {
    return this.remove(token)
  }

  /** Remove every procedure. */
  clear(): void {
    this.entries.clear()
    this.owners.clear()
  }

  clearExpired(now: number): [number, number] {
    let removed = 0
    const scanned = this.entries.size
    for (const [k, e] of this.entries) if (e.expiresAt <= now) { this.remove(k); removed++ }
    return [removed, scanned]
  }

  dispose(): void {
    this.clear()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}

/**
 * The process-wide store: every AgentVM constructed without a `procedures`
 * option keeps its procedures here, so a token stored through one VM runs on
 * any other VM of the process (the seed's module-level store). Isolation is one
 * option away: `new AgentVM(atoms, { procedures: new MemoryProcedureStore() })`.
 */
export const procedureStore = new MemoryProcedureStore()

export const isProcedureToken = (v: unknown): v is string => typeof v === 'string' && v.startsWith(PROCEDURE_TOKEN_PREFIX)
