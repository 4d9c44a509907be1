/**
 * Retry policies: how often a failed step (an `agent` or `workflow` request,
 * a custom atom call) is tried again, and how long the engine waits in
 * between. A retry's wait is an ordinary journaled `sleep` request (the
 * host waits for it like any sleep, so it survives a crash and a resumed run
 * waits only what is left), and each failed attempt is journaled as an
 * `attempt` entry with its error.
 *
 * Policies merge, later winning per field: the defaults, the run's policy
 * (`retry` option: its top-level fields, then the kind's `agent` /
 * `workflow` / `atom` entry), then the call's own (`agent(p, { retry })`,
 * `lookup(input, { retry })`).
 *
 * Which errors retry: never one whose code is in `nonRetryableCodes`; one
 * whose code is in `retryableCodes` (default: the transient ones, network,
 * timeouts, HTTP 429 and 5xx); and one the host marked `transient: true` in
 * its `Err` resolution. An `Err` without a code is not retried (the host
 * did not say it is transient).
 */
import { workflowError } from './errors.ts'
import type { WorkflowResolution } from './types.ts'

export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). Default 3. */
  maximumAttempts?: number
  /** Wait before the first retry, ms. Default 1000. */
  initialIntervalMs?: number
  /** Each wait is the previous one times this. Default 2. */
  backoffCoefficient?: number
  /** Longest wait, ms. Default 60,000. */
  maximumIntervalMs?: number
  /** Codes that retry (replaces the default list). */
  retryableCodes?: string[]
  /** Codes that never retry (checked first). */
  nonRetryableCodes?: string[]
}

/** The run's policy: defaults for every kind, and per kind. */
export interface RunRetryPolicy extends RetryPolicy {
  agent?: RetryPolicy
  workflow?: RetryPolicy
  atom?: RetryPolicy
}

export type RetryKind = 'agent' | 'workflow' | 'atom'

/** Transient failures: the endpoint is down or slow, rate limited, or answered 5xx. */
export const TRANSIENT_CODES = Object.freeze([
  'LLM_NETWORK', 'LLM_TIMEOUT', 'LLM_HTTP_429', 'LLM_HTTP_5XX', 'ATOM_TIMEOUT', 'NETWORK', 'TIMEOUT', 'HTTP_429', 'HTTP_5XX',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN',
])

export const RETRY_DEFAULTS: Readonly<Required<RetryPolicy>> = Object.freeze({
  maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 60_000,
  retryableCodes: [...TRANSIENT_CODES], nonRetryableCodes: [],
})

const FIELDS = Object.keys(RETRY_DEFAULTS)
const KINDS: readonly RetryKind[] = ['agent', 'workflow', 'atom']
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** One policy checked (unknown fields and bad values are WORKFLOW_OPTIONS_INVALID); `undefined` stays undefined. */
export function checkRetryPolicy(v: unknown, where: string, kinds = false): RunRetryPolicy | undefined {
  if (v === undefined || v === null) return undefined
  const bad = (why: string) => workflowError('WORKFLOW_OPTIONS_INVALID', `${where}: ${why}`, { hint: 'A retry policy is { maximumAttempts, initialIntervalMs, backoffCoefficient, maximumIntervalMs, retryableCodes, nonRetryableCodes } (docs/workflows.md#retries).' })
  if (!isRecord(v)) throw bad('must be an object')
  const out: RunRetryPolicy = {}
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue
    if (kinds && (KINDS as readonly string[]).includes(k)) { out[k as RetryKind] = checkRetryPolicy(x, `${where}.${k}`)!; continue }
    if (!FIELDS.includes(k)) throw bad(`unknown field "${k}" (allowed: ${[...FIELDS, ...(kinds ? KINDS : [])].join(', ')})`)
    if (k === 'retryableCodes' || k === 'nonRetryableCodes') {
      if (!Array.isArray(x) || !x.every((c) => typeof c === 'string') || x.length > 100) throw bad(`${k} must be an array of error codes`)
      out[k] = [...x]
    } else if (k === 'maximumAttempts') {
      if (!Number.isSafeInteger(x) || (x as number) < 1 || (x as number) > 1000) throw bad('maximumAttempts must be an integer from 1 to 1000')
      out.maximumAttempts = x as number
    } else if (k === 'backoffCoefficient') {
      if (typeof x !== 'number' || !(x >= 1 && x <= 100)) throw bad('backoffCoefficient must be a number from 1 to 100')
      out.backoffCoefficient = x
    } else {
      if (typeof x !== 'number' || !(x >= 0 && x <= 2_147_483_647)) throw bad(`${k} must be a number of ms from 0 to 2147483647`)
      out[k as 'initialIntervalMs' | 'maximumIntervalMs'] = x
    }
  }
  return out
}

/** The effective policy of one call. */
export function retryPolicyFor(kind: RetryKind, run: RunRetryPolicy | undefined, call: unknown): Required<RetryPolicy> {
  const { agent: _a, workflow: _w, atom: _t, ...runTop } = run ?? {}
  const callPolicy = checkRetryPolicy(call, `${kind}(): options.retry`) ?? {}
  return { ...RETRY_DEFAULTS, ...runTop, ...(run?.[kind] ?? {}), ...callPolicy }
}

/** Should a failure with these codes (its own, and a custom atom's inner one) be tried again after attempt `attempt`? */
export function shouldRetry(policy: Required<RetryPolicy>, attempt: number, codes: readonly string[], transient = false): boolean {
  if (attempt >= policy.maximumAttempts) return false
  if (codes.some((c) => policy.nonRetryableCodes.includes(c))) return false
  return transient || codes.some((c) => policy.retryableCodes.includes(c))
}

/** The wait before attempt `attempt + 1`, after `attempt` failed attempts (1-based). */
export function retryDelay(policy: Required<RetryPolicy>, attempt: number): number {
  const d = policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1)
  return Math.ceil(Math.min(d, policy.maximumIntervalMs))
}

/**
 * The code a host puts in an `Err` for an error it caught: its `code`, with
 * LLM_HTTP refined by the status (`LLM_HTTP_429`, `LLM_HTTP_5XX`) so the
 * default policy can tell a rate limit from a bad request.
 */
export function errorCodeOf(e: unknown): string | undefined {
  const err = e as { code?: unknown; message?: unknown; status?: unknown } | null
  const code = typeof err?.code === 'string' ? err.code : undefined
  if (code === 'LLM_HTTP' || code === 'HTTP_ERROR') {
    const status = typeof err?.status === 'number' ? err.status : Number(/answered (\d{3})/.exec(String(err?.message ?? ''))?.[1])
    if (status === 429) return `${code === 'LLM_HTTP' ? 'LLM_' : ''}HTTP_429`
    if (status >= 500 && status <= 599) return `${code === 'LLM_HTTP' ? 'LLM_' : ''}HTTP_5XX`
  }
  return code
}

/** A failed request as an Err with the error's code (what a retry policy decides on: LLM_NETWORK retries, a schema mismatch does not). */
export function errResolution(e: unknown): WorkflowResolution {
  const code = errorCodeOf(e)
  return { Err: { message: e instanceof Error ? e.message : String(e), ...(code !== undefined ? { code } : {}) } }
}
