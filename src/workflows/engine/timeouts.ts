/**
 * Workflow timeouts: a run deadline (`runMs`, from the start entry's `at`)
 * and a default per-request timeout (`requestMs`, for agent and workflow
 * requests; `agent(p, { timeoutMs })` overrides it per call). Both are
 * journaled in the start entry and waited out as journaled sleep requests
 * of the engine's, so they survive a crash like any sleep.
 */
import { workflowError } from './errors.ts'

export interface WorkflowTimeouts {
  /** The run's deadline, in ms after it started: past it the run fails WORKFLOW_TIMEOUT (not catchable). */
  runMs?: number
  /** Default timeout of one attempt of an agent or child-workflow request: a TIMEOUT error (retried by default). */
  requestMs?: number
}

/** The longest timer a host can arm (2^31 - 1 ms, about 24.8 days) times 1000: a deadline of up to ~68 years. */
const MAX_MS = 2_147_483_647_000

/** A checked timeouts option (WORKFLOW_OPTIONS_INVALID when malformed), or undefined. */
export function checkTimeouts(v: unknown, where = 'options.timeouts'): WorkflowTimeouts | undefined {
  if (v === undefined) return undefined
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw workflowError('WORKFLOW_OPTIONS_INVALID', `${where} must be an object { runMs?, requestMs? }`)
  const out: WorkflowTimeouts = {}
  for (const [k, n] of Object.entries(v)) {
    if (k !== 'runMs' && k !== 'requestMs') throw workflowError('WORKFLOW_OPTIONS_INVALID', `Unknown ${where} field "${k}" (allowed: runMs, requestMs)`)
    if (n === undefined) continue
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > MAX_MS) throw workflowError('WORKFLOW_OPTIONS_INVALID', `${where}.${k} must be a positive number of ms`)
    out[k] = Math.ceil(n)
  }
  return out
}

/** A per-call `timeoutMs` in a request's options (undefined when absent; a bad one throws). */
export function callTimeout(options: unknown): number | undefined {
  const t = options !== null && typeof options === 'object' ? (options as { timeoutMs?: unknown }).timeoutMs : undefined
  if (t === undefined) return undefined
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > MAX_MS) throw new Error('options.timeoutMs must be a positive number of ms')
  return Math.ceil(t)
}
