/**
 * ajs-lang/client: a remote VM over HTTP (`ajsc serve`). `run` has
 * AgentVM's signature and result type and, like AgentVM, never rejects:
 * refusals (401, 422, 429, 503, network failures) come back in
 * `result.error` with the server's stable code. The other calls reject with
 * a `RemoteError` carrying the same code. Only `fetch`; no Node or server
 * dependencies, so it runs in browsers, Bun, Deno and Node.
 */
import type { AgentError } from '../vm/errors.ts'
import type { RunResult } from '../vm/result.ts'

export type { RunResult, TraceEntry } from '../vm/result.ts'
export type { AgentError } from '../vm/errors.ts'

const PROCEDURE_PREFIX = 'proc_'

export interface RemoteVMOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8787 */
  url: string
  /** The tenant's bearer token. */
  token: string
  /** A fetch implementation (default: globalThis.fetch). */
  fetch?: typeof globalThis.fetch
}

/** The run options a remote VM accepts (the rest of RunOptions is the server's business). */
export interface RemoteRunOptions {
  fuel?: number
  timeoutMs?: number
  trace?: boolean
  /** Cancels the request; the server interrupts the run when the connection closes. */
  signal?: AbortSignal
  /**
   * A budget token of the server's deployment (budgetToken in a run, or BudgetTokens.mint): the run
   * spends from it (header x-ajs-budget), and its result carries the signed receipt (`budgetReceipt`).
   */
  budgetToken?: string
}

/** A run paid by a budget token: the signed receipt of what it used, to settle the token (budgetSettle). */
export type BudgetedRunResult<T = unknown> = RunResult<T> & { budgetReceipt?: string }

/** A refused call: the server's code, HTTP status and hint. */
export class RemoteError extends Error {
  override name = 'RemoteError'
  readonly code: string
  readonly hint?: string
  readonly details?: AgentError['details']
  /** Seconds to wait before retrying (429, 503). */
  readonly retryAfter?: number
  /** The server's whole error record (a compile error's `line`, `column`, `location`, `frame`, ...). */
  readonly error: Partial<AgentError> & { code: string; message: string }
  constructor(readonly status: number, error: Partial<AgentError> & { code: string; message: string }, retryAfter?: number) {
    super(error.message)
    this.error = error
    this.code = error.code
    if (error.hint) this.hint = error.hint
    if (error.details) this.details = error.details
    if (retryAfter !== undefined && Number.isFinite(retryAfter)) this.retryAfter = retryAfter
  }
  /** The error as a RunResult error record: every field the server sent, plus `retryAfter`. */
  toAgentError(): AgentError {
    const e: AgentError = { ...(this.error as AgentError), name: 'AgentError', code: this.code, message: this.message }
    if (this.retryAfter !== undefined) e.retryAfter = this.retryAfter
    return e
  }
}

/**
 * A change (updateSchedule, pauseSchedule, unpauseSchedule) whose `ifMatch` names a version the schedule no longer
 * is (409 SCHEDULE_CONFLICT): someone changed it since it was read, and nothing was changed. Read it again (getSchedule), redo the change on what it shows, and
 * send its new `conflictToken`. Still a RemoteError (code SCHEDULE_CONFLICT, status 409).
 */
export class ScheduleConflictError extends RemoteError {
  override name = 'ScheduleConflictError'
}

export interface RunState<T = unknown> {
  id: string
  state: 'queued' | 'running' | 'done'
  createdAt: number
  startedAt?: number
  finishedAt?: number
  result?: RunResult<T>
}

export interface RemoteVM {
  /** Run an AST, a proc_ token or source text; resolves to a RunResult, never rejects. */
  run<T = unknown>(target: object | string, args?: Record<string, unknown>, options?: RemoteRunOptions): Promise<BudgetedRunResult<T>>
  /** Start a run in the background; resolves to its id. */
  start(target: object | string, args?: Record<string, unknown>, options?: Omit<RemoteRunOptions, 'signal' | 'budgetToken'>): Promise<string>
  /** The state (and result, when done) of a background run. */
  getRun<T = unknown>(id: string): Promise<RunState<T>>
  /** Store an AST (or source) under a proc_ token; `ttl` in ms. */
  storeProcedure(program: object | string, options?: { ttl?: number }): Promise<{ token: string; expiresAt: number }>
  deleteProcedure(token: string): Promise<void>
  /**
   * Start a durable workflow from its module source; `budget` caps its agent calls, `retry` is its retry
   * policy, `workflows` the modules its `workflow(name, args)` calls start as child workflows; `name`,
   * `tags` and `attributes` are what listWorkflows finds it by.
   */
  startWorkflow(source: string, args?: Record<string, unknown>, options?: {
    budget?: number; retry?: Record<string, unknown>; timeouts?: { runMs?: number; requestMs?: number }; workflows?: Record<string, string>
    name?: string; tags?: string[]; attributes?: Record<string, string | number | boolean>
  }): Promise<Record<string, unknown>>
  /**
   * A page of the tenant's workflows, newest first (GET /v1/workflows): those in `state`, with every tag, every
   * attribute value (a number or boolean matches its text) and the name given; pass `nextCursor` back as `cursor`.
   */
  listWorkflows(filter?: { state?: string; tags?: string[]; attributes?: Record<string, string | number | boolean>; name?: string; limit?: number; cursor?: string }): Promise<{ items: Array<Record<string, unknown>>; nextCursor?: string }>
  getWorkflow(id: string): Promise<Record<string, unknown>>
  /** Answer an open request of a workflow (an approval, a human's answer). */
  resolveRequest(workflowId: string, requestId: string, value: unknown): Promise<Record<string, unknown>>
  /** Retry a failed workflow from its failed step, optionally with a new retry policy. */
  retryWorkflow(id: string, options?: { retry?: Record<string, unknown> }): Promise<Record<string, unknown>>
  /** Send a workflow a signal; `id` makes sending idempotent. */
  signalWorkflow(id: string, name: string, value?: unknown, options?: { id?: string }): Promise<Record<string, unknown>>
  /** Cancel a workflow (its current wait throws WORKFLOW_CANCELLED; cleanup runs). */
  cancelWorkflow(id: string, reason?: string): Promise<Record<string, unknown>>
  /** The value a workflow last exposed under `name` (as of its last step). */
  queryWorkflow<T = unknown>(id: string, name: string): Promise<T>
  /** Create a schedule that starts a workflow on a cron or every N ms (POST /v1/schedules; docs/serve.md#schedules). */
  createSchedule(schedule: RemoteSchedule): Promise<RemoteScheduleState>
  /** A schedule: its spec, next fire times, counts and last actions with the runs they started, and its `conflictToken`. */
  getSchedule(id: string): Promise<RemoteScheduleState>
  /** A page of the tenant's schedules, by id (each with its `conflictToken`); pass `nextCursor` back as `cursor`. */
  listSchedules(page?: { limit?: number; cursor?: string }): Promise<{ items: RemoteScheduleState[]; nextCursor?: string }>
  /**
   * Change a schedule (PATCH /v1/schedules/{id}): the fields given replace its own; a new spec fires next at its first
   * time after now. With `ifMatch` (a `conflictToken` a read answered), only if nobody changed it since: otherwise it
   * rejects with a ScheduleConflictError (409 SCHEDULE_CONFLICT) and nothing changes. Without it, whatever changed since.
   */
  updateSchedule(id: string, change: RemoteScheduleChange, options?: ScheduleChangeOptions): Promise<RemoteScheduleState>
  /**
   * Pause a schedule (no fires until it is unpaused); `note` says why. With `ifMatch`, only if nobody changed it
   * since that version was read, as updateSchedule: otherwise a ScheduleConflictError and it stays as it is.
   */
  pauseSchedule(id: string, note?: string, options?: ScheduleChangeOptions): Promise<RemoteScheduleState>
  /** Unpause it: it fires next at its next time after now. `ifMatch` as pauseSchedule's. */
  unpauseSchedule(id: string, note?: string, options?: ScheduleChangeOptions): Promise<RemoteScheduleState>
  /** Fire a schedule now, by its overlap policy. */
  triggerSchedule(id: string): Promise<RemoteScheduleState>
  /** Fire each time of its spec from `from` to `to` (past times: ms or ISO 8601), in order. */
  backfillSchedule(id: string, range: { from: number | string; to: number | string; overlap?: ScheduleOverlap }): Promise<RemoteScheduleState>
  deleteSchedule(id: string): Promise<void>
}

export type ScheduleOverlap = 'skip' | 'bufferOne' | 'allowAll'

/** The body of POST /v1/schedules. */
export interface RemoteSchedule {
  id?: string
  /** What to start: the body of POST /v1/workflows without args. */
  workflow: { source: string; name?: string; tags?: string[]; attributes?: Record<string, string | number | boolean>; budget?: number; retry?: Record<string, unknown>; timeouts?: { runMs?: number; requestMs?: number }; workflows?: Record<string, string> }
  args?: Record<string, unknown>
  spec: { cron: string; timezone?: string } | { everyMs: number }
  overlap?: ScheduleOverlap
  catchupWindowMs?: number
  jitterMs?: number
  paused?: boolean
  note?: string
}

/**
 * A schedule as the server answers it (docs/serve.md#schedules has every field). `conflictToken` names this version:
 * new after every PATCH, pause and unpause; the `ifMatch` of updateSchedule, pauseSchedule and unpauseSchedule takes it.
 */
export type RemoteScheduleState = Record<string, unknown> & { id: string; paused: boolean; revision: number; conflictToken: string }

/** Options of the calls that change a schedule (update, pause, unpause). */
export interface ScheduleChangeOptions {
  /** A `conflictToken` a call answered: the change is made only while the schedule is still that version (If-Match). */
  ifMatch?: string
}

/** The body of PATCH /v1/schedules/{id}: any field of POST's but the id (at least one). */
export type RemoteScheduleChange = Partial<Omit<RemoteSchedule, 'id'>>

/**
 * The If-Match header for a conflictToken: the token in quotes (the ETag the server sends). A value already an
 * entity tag, a list of them, or `*` goes as given.
 */
export function ifMatchHeader(token: string): string {
  return token === '*' || token.startsWith('"') || token.startsWith('W/') ? token : `"${token}"`
}

/** The If-Match header of a change's options, or none. */
const ifMatchOf = (options: ScheduleChangeOptions): Record<string, string> | undefined =>
  options.ifMatch === undefined ? undefined : { 'if-match': ifMatchHeader(options.ifMatch) }

function programField(target: object | string): Record<string, unknown> {
  if (typeof target === 'string') return target.startsWith(PROCEDURE_PREFIX) ? { token: target } : { source: target }
  return { ast: target }
}

export function createRemoteVM(options: RemoteVMOptions): RemoteVM {
  const base = options.url.replace(/\/+$/, '')
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' }

  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal, extra?: Record<string, string>, seen?: (res: Response) => void): Promise<{ status: number; data: T }> {
    const sent = body === undefined ? { authorization: headers.authorization } : headers
    const res = await doFetch(`${base}${path}`, { method, headers: extra ? { ...sent, ...extra } : sent, body: body === undefined ? undefined : JSON.stringify(body), signal })
    seen?.(res)
    const text = await res.text()
    let data: unknown = undefined
    if (text) {
      try { data = JSON.parse(text) } catch { data = undefined }
    }
    if (!res.ok) {
      const err = (data as { error?: AgentError } | undefined)?.error
      const retry = res.headers.get('retry-after')
      const error = err && typeof err.code === 'string' ? err : { code: `HTTP_${res.status}`, message: text.slice(0, 200) || res.statusText }
      throw new (error.code === 'SCHEDULE_CONFLICT' ? ScheduleConflictError : RemoteError)(res.status, error, retry ? Number(retry) : undefined)
    }
    return { status: res.status, data: data as T }
  }

  function runBody(target: object | string, args: Record<string, unknown> | undefined, opts: RemoteRunOptions | undefined): Record<string, unknown> {
    const body: Record<string, unknown> = { ...programField(target), args: args ?? {} }
    const o: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(opts ?? {})) {
      if (k === 'signal' || k === 'budgetToken' || v === undefined) continue
      if (k !== 'fuel' && k !== 'timeoutMs' && k !== 'trace') throw new RemoteError(0, { code: 'OPTIONS_INVALID', message: `Run option "${k}" cannot be sent to a remote VM (only fuel, timeoutMs, trace, signal)`, hint: 'Capabilities and context of a remote run come from the tenant\'s serve config.' })
      o[k] = v
    }
    if (Object.keys(o).length > 0) body['options'] = o
    return body
  }

  return {
    async run<T>(target: object | string, args?: Record<string, unknown>, opts?: RemoteRunOptions): Promise<BudgetedRunResult<T>> {
      // With a budget token the receipt comes back with every answer (a refusal's: nothing used).
      let budgetReceipt: string | undefined
      const seen = opts?.budgetToken === undefined ? undefined : (res: Response) => { budgetReceipt = res.headers.get('x-ajs-budget-receipt') ?? undefined }
      const receipt = () => (budgetReceipt === undefined ? {} : { budgetReceipt })
      try {
        const data = (await call<RunResult<T>>('POST', '/v1/runs', runBody(target, args, opts), opts?.signal, opts?.budgetToken === undefined ? undefined : { 'x-ajs-budget': opts.budgetToken }, seen)).data
        return { ...data, ...receipt() }
      } catch (e) {
        if (e instanceof RemoteError) return { result: null, error: e.toAgentError(), fuelUsed: 0, ...receipt() }
        const aborted = opts?.signal?.aborted === true
        return { result: null, error: { name: 'AgentError', code: aborted ? 'ABORTED' : 'NETWORK_ERROR', message: aborted ? 'The run was aborted' : `Cannot reach ${base}: ${(e as Error)?.message ?? e}` }, fuelUsed: 0 }
      }
    },
    async start(target, args, opts) {
      return (await call<{ id: string }>('POST', '/v1/runs?async=1', runBody(target, args, opts))).data.id
    },
    async getRun(id) {
      return (await call<RunState<never>>('GET', `/v1/runs/${encodeURIComponent(id)}`)).data
    },
    async storeProcedure(program, opts = {}) {
      const body: Record<string, unknown> = typeof program === 'string' ? { source: program } : { ast: program }
      if (opts.ttl !== undefined) body['ttl'] = opts.ttl
      return (await call<{ token: string; expiresAt: number }>('POST', '/v1/procedures', body)).data
    },
    async deleteProcedure(token) {
      await call('DELETE', `/v1/procedures/${encodeURIComponent(token)}`)
    },
    async startWorkflow(source, args, opts = {}) {
      return (await call<Record<string, unknown>>('POST', '/v1/workflows', {
        source, args: args ?? {},
        ...(opts.budget !== undefined ? { budget: opts.budget } : {}),
        ...(opts.retry !== undefined ? { retry: opts.retry } : {}),
        ...(opts.timeouts !== undefined ? { timeouts: opts.timeouts } : {}),
        ...(opts.workflows !== undefined ? { workflows: opts.workflows } : {}),
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.tags !== undefined ? { tags: opts.tags } : {}),
        ...(opts.attributes !== undefined ? { attributes: opts.attributes } : {}),
      })).data
    },
    async listWorkflows(f = {}) {
      const qs = new URLSearchParams()
      if (f.state !== undefined) qs.set('state', f.state)
      for (const tag of f.tags ?? []) qs.append('tag', tag)
      for (const [k, v] of Object.entries(f.attributes ?? {})) qs.set(`attr.${k}`, String(v))
      if (f.name !== undefined) qs.set('name', f.name)
      if (f.limit !== undefined) qs.set('limit', String(f.limit))
      if (f.cursor !== undefined) qs.set('cursor', f.cursor)
      const q = qs.toString()
      return (await call<{ items: Array<Record<string, unknown>>; nextCursor?: string }>('GET', `/v1/workflows${q ? `?${q}` : ''}`)).data
    },
    async getWorkflow(id) {
      return (await call<Record<string, unknown>>('GET', `/v1/workflows/${encodeURIComponent(id)}`)).data
    },
    async resolveRequest(workflowId, requestId, value) {
      return (await call<Record<string, unknown>>('POST', `/v1/workflows/${encodeURIComponent(workflowId)}/requests/${encodeURIComponent(requestId)}`, { value })).data
    },
    async retryWorkflow(id, opts = {}) {
      return (await call<Record<string, unknown>>('POST', `/v1/workflows/${encodeURIComponent(id)}/retry`, opts.retry !== undefined ? { retry: opts.retry } : {})).data
    },
    async signalWorkflow(id, name, value, opts = {}) {
      return (await call<Record<string, unknown>>('POST', `/v1/workflows/${encodeURIComponent(id)}/signal`, { name, ...(value !== undefined ? { value } : {}), ...(opts.id !== undefined ? { id: opts.id } : {}) })).data
    },
    async cancelWorkflow(id, reason) {
      return (await call<Record<string, unknown>>('POST', `/v1/workflows/${encodeURIComponent(id)}/cancel`, reason !== undefined ? { reason } : {})).data
    },
    async queryWorkflow<T>(id: string, name: string) {
      return (await call<{ value: T }>('GET', `/v1/workflows/${encodeURIComponent(id)}/query/${encodeURIComponent(name)}`)).data.value
    },
    async createSchedule(schedule) {
      return (await call<RemoteScheduleState>('POST', '/v1/schedules', schedule)).data
    },
    async getSchedule(id) {
      return (await call<RemoteScheduleState>('GET', `/v1/schedules/${encodeURIComponent(id)}`)).data
    },
    async listSchedules(page = {}) {
      const qs = new URLSearchParams()
      if (page.limit !== undefined) qs.set('limit', String(page.limit))
      if (page.cursor !== undefined) qs.set('cursor', page.cursor)
      const q = qs.toString()
      return (await call<{ items: RemoteScheduleState[]; nextCursor?: string }>('GET', `/v1/schedules${q ? `?${q}` : ''}`)).data
    },
    async updateSchedule(id, change, opts = {}) {
      return (await call<RemoteScheduleState>('PATCH', `/v1/schedules/${encodeURIComponent(id)}`, change, undefined, ifMatchOf(opts))).data
    },
    async pauseSchedule(id, note, opts = {}) {
      return (await call<RemoteScheduleState>('POST', `/v1/schedules/${encodeURIComponent(id)}/pause`, note !== undefined ? { note } : {}, undefined, ifMatchOf(opts))).data
    },
    async unpauseSchedule(id, note, opts = {}) {
      return (await call<RemoteScheduleState>('POST', `/v1/schedules/${encodeURIComponent(id)}/unpause`, note !== undefined ? { note } : {}, undefined, ifMatchOf(opts))).data
    },
    async triggerSchedule(id) {
      return (await call<RemoteScheduleState>('POST', `/v1/schedules/${encodeURIComponent(id)}/trigger`)).data
    },
    async backfillSchedule(id, range) {
      return (await call<RemoteScheduleState>('POST', `/v1/schedules/${encodeURIComponent(id)}/backfill`, range)).data
    },
    async deleteSchedule(id) {
      await call('DELETE', `/v1/schedules/${encodeURIComponent(id)}`)
    },
  }
}
