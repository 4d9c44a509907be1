/**
 * The public types and options of a workflow execution (sandbox limits, the
 * config, its states) and the small pure helpers the execution's parts share
 * (step-identity hash, byte length). Split out of execution.ts so each part
 * of the execution imports these without importing the class.
 */
import type { AtomDef } from '../../vm/atoms/types.ts'
import type { JournalEntry, JournalLimits, JournalStore } from './journal.ts'
import type { WorkflowProgram } from './program.ts'
import type { ReplayIndex } from './replay.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowRequest, WorkflowResolution } from './types.ts'
import type { ApprovalPolicy } from '../../codemode/approval.ts'
import type { WorkflowTimeouts } from './timeouts.ts'
import type { SearchInfo } from './search.ts'
import type { RetryPolicy, RunRetryPolicy } from './retry.ts'

/** The signal name a call waiting for approval takes its decision from: `approval:<approval id>`. */
export const APPROVAL_SIGNAL = 'approval:'

/** Sandbox limits of the VM run. */
export interface WorkflowSandbox {
  /** Fuel for the whole execution (default 10,000,000; a replay uses the same fuel again). */
  fuel?: number
  /** Wall-clock limit of the execution in this process, in ms (default: none, i.e. 24.8 days). */
  timeoutMs?: number
  /** Largest single value the workflow may build (default 64 MiB). */
  maxHeapBytes?: number
}

export const SANDBOX_DEFAULTS = Object.freeze({ fuel: 10_000_000, timeoutMs: 2_147_483_647, maxHeapBytes: 64 * 1024 * 1024 })

export interface ExecutionConfig {
  program: WorkflowProgram
  executionId: string
  args: unknown
  budget: BudgetSnapshot
  seed: number
  sandbox: Required<WorkflowSandbox>
  limits?: JournalLimits
  store?: JournalStore
  /** Host clock (ms since epoch) for sleep wake times and the VM's `now` (default Date.now). */
  clock: () => number
  /** Journal to continue (resume): its entries are already in the store. */
  journal?: readonly JournalEntry[]
  replay?: ReplayIndex
  /** The host's custom atoms (defineAtom results) the workflow may call. */
  atoms?: readonly AtomDef[]
  /** Read-only host data the atoms see as `ctx.context` (never the guest). */
  context?: Record<string, unknown>
  /** The host sets [0] to stop the VM run, even in a loop that never yields (StartWorkflowOptions.interrupt). */
  interrupt?: Int32Array
  /** Which custom atom calls wait for approval (default: the atoms' `requiresApproval`). */
  approval?: ApprovalPolicy
  /** The run's retry policy (journaled in the start entry). */
  retry?: RunRetryPolicy
  /** The run's deadline and default request timeout (journaled in the start entry). */
  timeouts?: WorkflowTimeouts
  /** The run this one continues (continueAsNew): its execution id and this run's place in the chain. */
  previous?: { executionId: string; chain: number }
  /** The run's name, tags and search attributes (journaled in the start entry; search.ts). */
  search?: SearchInfo
}

/** What a parked request gets: its resolution, or `retry` (the failure was journaled as an attempt). */
export type Outcome = { resolution: WorkflowResolution } | { retry: true }

export interface Waiter {
  request: WorkflowRequest
  key: string
  /** Its retry policy (null: never retried, e.g. a sleep) and the number of this attempt. */
  policy: Required<RetryPolicy> | null
  attempt: number
  resolve: (v: Outcome) => void
  /** The sleep request timing this attempt out (a per-request timeout), ended with the attempt. */
  timerId?: string
}

export type Event = { call: WorkflowCall } | { request: WorkflowRequest }

export const macrotask = (): Promise<void> => new Promise((r) => (typeof setImmediate === 'function' ? setImmediate(r) : setTimeout(r, 0)))

/**
 * 64-bit FNV-1a (two 32-bit lanes) as 16 hex digits: the input hash of a step
 * identity. Not cryptographic; it only has to tell inputs at one call site apart.
 */
export function inputHash(text: string): string {
  let a = 0x811c9dc5, b = 0xcbf29ce4
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x0100019d) ^ (a >>> 15)
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}

export function utf8Length(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : c >= 0xd800 && c <= 0xdbff ? 1 : 1
  }
  return n
}

export type ExecutionState = 'running' | 'complete' | 'failed' | 'disposed'
