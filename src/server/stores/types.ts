/**
 * The server's state behind interfaces: stored procedures, run records and
 * agent memory, all scoped by tenant. In memory by default
 * (./memory.ts); in Postgres with `--database` (./postgres.ts), so several
 * processes share them.
 */
import type { RunResult } from '../../vm/result.ts'
import type { StoreQuota } from './quota.ts'
import type { ListQuery } from './list.ts'

type Maybe<T> = T | Promise<T>

export interface StoredProcedure {
  token: string
  tenant: string
  /** The AST as JSON text, and its SHA-256 (the workers' cache key). */
  astText: string
  key: string
  createdAt: number
  expiresAt: number
}

export interface ProcedureRepo {
  /** Store (or replace) a procedure; with a quota, refused (STORE_QUOTA_EXCEEDED) when the tenant would go over it, atomically with the write. */
  put(p: StoredProcedure, quota?: StoreQuota): Maybe<void>
  /** The tenant's live procedure, or undefined (another tenant's token is never found). */
  get(tenant: string, token: string): Maybe<StoredProcedure | undefined>
  delete(tenant: string, token: string): Maybe<boolean>
  clearExpired(now: number): Maybe<number>
}

export type RunState = 'queued' | 'running' | 'done'

/** What a run was asked to do (kept for runs executed by a job on another process). */
export interface RunRequest {
  key?: string
  astText?: string
  source?: string
  args: unknown
  fuel: number
  timeoutMs: number
  trace: boolean
}

export interface RunRecord {
  id: string
  tenant: string
  state: RunState
  createdAt: number
  startedAt?: number
  finishedAt?: number
  result?: RunResult
  request?: RunRequest
}

/** A run as GET /v1/runs lists it: its state and times, the fuel it used and its error's code, not its result. */
export interface RunSummary {
  id: string
  state: RunState
  createdAt: number
  startedAt?: number
  finishedAt?: number
  fuelUsed?: number
  /** The code of the run's error (a finished run that failed). */
  error?: string
}

export interface RunRepo {
  /** Record a new async run; with a quota, refused (STORE_QUOTA_EXCEEDED) when the tenant's records would go over it. */
  create(rec: RunRecord, quota?: StoreQuota): Maybe<void>
  get(tenant: string, id: string): Maybe<RunRecord | undefined>
  /** Mark a run running (by whichever process executes it). */
  start(id: string, at: number): Maybe<void>
  finish(id: string, result: RunResult, at: number): Maybe<void>
  /** Drop finished runs older than this time; returns how many. */
  prune(finishedBefore: number): Maybe<number>
  /** The tenant's async runs, newest first: `limit + 1` of them from the cursor on (only this tenant's, ever). */
  list(tenant: string, q: ListQuery<RunState>): Maybe<RunSummary[]>
}

/** A tenant's agent memory, as `capabilities.store` methods (async allowed). */
export interface AgentMemory {
  get(key: string): Maybe<unknown>
  set(key: string, value: unknown): Maybe<null>
  delete(key: string): Maybe<boolean>
  has(key: string): Maybe<boolean>
  query(query?: unknown): Maybe<unknown>
  vectorSearch(query: unknown): Maybe<unknown>
  addVector(collection: string, id: string, vector: number[], meta?: Record<string, unknown>): Maybe<null>
}

export interface ServerStores {
  procedures: ProcedureRepo
  runs: RunRepo
  memory(tenant: string): AgentMemory
  close(): Promise<void>
}
