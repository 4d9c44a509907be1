/**
 * What crosses between the server's main thread and a workflow thread
 * (workflow-thread.ts): the operations on a live execution (open, absorb,
 * poll, cancel, resolve, dispose), their answers, and the journal batches.
 * Every answer carries the entries the execution journaled since the last
 * one (one message per operation, never one per entry) and a snapshot of the
 * execution's state, so the main thread's getters need no round trip. Plain
 * data only: structured clone stays cheap.
 */
import type { AgentError } from '../../vm/errors.ts'
import type { JournalEntry } from '../../workflows/engine/journal.ts'
import type { WorkflowProgram } from '../../workflows/engine/program.ts'
import type { RunRetryPolicy } from '../../workflows/engine/retry.ts'
import type { WorkflowTimeouts } from '../../workflows/engine/timeouts.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowPoll, WorkflowRequest, WorkflowResolution } from '../../workflows/engine/types.ts'
import type { ExecutionState } from '../../workflows/engine/execution-types.ts'
import type { WorkerData } from './task.ts'

/** Exposed values kept for queries, at most this much JSON per workflow (more: none are kept). */
export const MAX_EXPOSED_BYTES = 256 * 1024

/** The value of `interrupt[0]` when the main thread stopped the execution because its step ran out of time. */
export const INTERRUPTED_TIME = 2

/** A workflow thread's start-up data: the pool workers' (tenants, custom atom modules, MCP tools, the bridge). */
export type WorkflowThreadData = WorkerData

/** Open a live execution: start it (no journal yet) or replay its journal once. */
export interface OpenOp {
  t: 'open'
  id: string
  tenant: string
  program: WorkflowProgram
  /** The journal to replay (absent: a new run with `start`). */
  journal?: JournalEntry[]
  start?: { args: unknown; budget: { total: number | null }; retry?: RunRetryPolicy; timeouts?: WorkflowTimeouts }
  fuel: number
  maxHeapBytes: number
  context: Record<string, unknown>
  /** Shared with the main thread: [0] becomes INTERRUPTED_TIME when the step's time is up (the VM stops at its next tick). */
  interrupt: Int32Array
}

/**
 * Apply what other writers journaled since the execution's last entry: commands' entries (answers, signals, a
 * cancellation) as they are, another process's steps replayed forward from the live state (a catch-up).
 */
export interface AbsorbOp {
  t: 'absorb'
  id: string
  entries: JournalEntry[]
  /** Then poll, and answer as a poll does (the step's first poll without a round trip of its own). */
  poll?: boolean
}
export interface PollOp { t: 'poll'; id: string }
export interface CancelOp { t: 'cancel'; id: string; reason: string }

/** Operations answered with an Answer. */
export type Op = OpenOp | AbsorbOp | PollOp | CancelOp
/** An operation as sent (`n` numbers the call). */
export type CallOp = Op & { n: number }

/** Messages without an answer. */
export type PostOp =
  | { t: 'resolve'; id: string; requestId: string; resolution: WorkflowResolution }
  | { t: 'dispose'; id: string }
  /** The main thread wrote a `sync` batch to the store. */
  | { t: 'synced'; seq: number }

export type ToThread = CallOp | PostOp

/** The execution's state as of an answer. */
export interface ExecutionSnapshot {
  state: ExecutionState
  budget: BudgetSnapshot
  fuelUsed: number
  entryCount: number
  cancelled: string | null
  /** Requests emitted and not resolved yet. */
  pending: string[]
  continuedAsNew: { args: unknown } | null
  astHash: string
  sourceName: string
  /** What queries read (bounded), sent when a step may end: a poll that is not a request, a cancel. */
  exposed?: { exposed?: Record<string, unknown>; exposedTooLarge?: true }
}

/** A WorkflowError as data. */
export interface ErrorData {
  code: string
  message: string
  hint?: string
  entry?: number
  cause?: AgentError
}

export interface Answer {
  n: number
  /** The execution is not live in this thread (evicted, never opened, or its thread restarted). */
  missing?: true
  /** absorb: false when the entries did not fit the live state (the execution was dropped; replay). */
  absorbed?: boolean
  /** absorb: the entries were another process's steps, replayed forward from the live state (execution-catchup.ts). */
  caughtUp?: true
  /** cancel: whether this cancelled it. */
  cancelled?: boolean
  /** poll: the log/phase calls before `poll`, and `poll` (a Request comes with every request drained). */
  calls?: WorkflowCall[]
  poll?: WorkflowPoll
  taken?: WorkflowRequest[]
  /**
   * After a Request whose requests all wait for someone else (external agent requests: the main thread only lists
   * them), the thread polls on at once: the next poll's answer, which the main thread's next poll takes.
   */
  next?: Answer
  error?: ErrorData
  entries?: JournalEntry[]
  snapshot?: ExecutionSnapshot
}

/** From the thread: answers, and journal batches that must be durable before a custom atom runs. */
export type FromThread =
  | ({ t: 'answer' } & Answer)
  | { t: 'sync'; seq: number; id: string; entries: JournalEntry[] }
