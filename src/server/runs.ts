/**
 * Runs on the host side: resolve what to run (an AST, source text or a
 * procedure token of the tenant), admit it against the tenant's limits,
 * execute it through the executor (the local worker pool, or a job queue
 * when distributed), and account for it (fuel per day, metrics). Async runs
 * get a record others can read and wait on.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { RunResult } from '../vm/result.ts'
import type { ServerLimits } from './config.ts'
import { HttpError, REJECTED_PROGRAM_CODES, isTranspileCode } from './errors.ts'
import type { Metrics } from './metrics.ts'
import type { RunTask } from './pool/task.ts'
import type { RunControl } from './pool/pool.ts'
import type { StopSignal } from './stop-signal.ts'
import type { PlanGate } from './plan-gate.ts'
import type { BudgetClaims } from '../codemode/budget-token.ts'
import { underToken } from './budget.ts'
import { quotasOf, SETTLED, type Admission, type Tenant, type Tenants } from './tenants.ts'
import type { StoreQuota } from './stores/quota.ts'
import type { RunRecord, RunRequest, ServerStores } from './stores/types.ts'

/** The body of POST /v1/runs. */
export interface RunBody {
  ast?: unknown
  source?: string
  token?: string
  args?: Record<string, unknown>
  options?: { fuel?: number; timeoutMs?: number; trace?: boolean }
}

/** A run's program as a thread receives it: an AST's text (and key), or a source. */
type Program = Pick<RunTask, 'key' | 'astText' | 'source'>
interface Prepared { task: RunTask; admission: Admission }

/** An AST as the client sent it (the body parser's scan): its text, and its key (astKey of the text) when known. */
export interface RawAst {
  text: string
  key?: string
}

/** Where runs execute: the local pool, or jobs shared by several processes. */
export interface RunExecutor {
  /** Run and wait for the result. */
  run(task: RunTask, control: RunControl): Promise<RunResult>
  /** Start an async run whose record was just created; `done` is called with its result when it finishes here. */
  start(record: RunRecord, task: RunTask, done: (result: RunResult) => void, quota?: StoreQuota): Promise<void>
  /**
   * A record read as done. Where the result reaches this process later (another process ran it), `done`
   * is called now: a client that has seen its run done may start the next within its concurrentRuns.
   */
  seen?(record: RunRecord): void
}

/** The worker's message for an AST text JSON.parse refuses (src/server/pool/worker.ts). */
export const AST_NOT_JSON = 'The AST is not valid JSON'

export const newRunId = (): string => `run_${randomBytes(12).toString('base64url')}`

export const astKey = (astText: string): string => createHash('sha256').update(astText).digest('base64url')

/**
 * A program's text (and key, for stored procedures) or source from a request; 400/404/422 when
 * there is nothing runnable. An AST is passed on as the text the client sent (`rawAst`, found by
 * the body parser's scan), so the event loop does not serialize it; workers key their parsed
 * programs by that text, or by its SHA-256 once the tenant sends it again (hashed once, then
 * neither side hashes 7 KB of text per run: SeenValues).
 */
export function resolveProgram(stores: ServerStores, tenant: string, body: { ast?: unknown; source?: string; token?: string }, rawAst?: RawAst): Program | Promise<Program> {
  const given = (body.ast !== undefined ? 1 : 0) + (body.source !== undefined ? 1 : 0) + (body.token !== undefined ? 1 : 0)
  if (given !== 1) throw new HttpError('BAD_REQUEST', 'Send exactly one of "ast", "source" or "token"')
  if (body.token !== undefined) return storedProgram(stores, tenant, body.token)
  if (body.source !== undefined) return { source: body.source }
  if (rawAst !== undefined) return rawAst.key !== undefined ? { astText: rawAst.text, key: rawAst.key } : { astText: rawAst.text }
  let astText: string
  try {
    astText = JSON.stringify(body.ast)
  } catch {
    throw new HttpError('PROGRAM_REJECTED', undefined, { agentError: { name: 'AgentError', code: 'AST_TOO_DEEP', message: 'The AST nests too deeply', hint: 'Flatten deeply nested expressions into separate statements.' } })
  }
  return { astText }
}

async function storedProgram(stores: ServerStores, tenant: string, token: string): Promise<Program> {
  const p = await stores.procedures.get(tenant, token)
  if (!p) throw new HttpError('NOT_FOUND', `Unknown or expired procedure token "${token.slice(0, 48)}"`)
  return { key: p.key, astText: p.astText }
}

/** Settle an admission; a ledger that cannot be reached leaves the reservation charged (no error for the request). */
function settleQuietly(admission: Admission, fuelUsed: number): Promise<void> {
  const p = admission.settle(fuelUsed)
  return p === SETTLED ? p : p.catch(() => {})
}

/** The VM's hints speak of library options; an operator of `ajsc serve` needs the config key or the endpoint. */
const SERVER_HINTS: Readonly<Record<string, (message: string) => string>> = {
  UNKNOWN_ATOM: () => 'Give the server the atoms: "atoms": ["./atoms.mjs"] in the serve config (or ajsc serve --atoms), and, if the tenant has an "atoms" allowlist, add them to it.',
  LIBRARY_MISSING: (message) => message.includes('"workflow"') ? 'A workflow module runs on the workflow engine: POST /v1/workflows with its source.'
    : message.includes('"flowlang"') ? 'A FlowLang turn runs in a FlowLang session (ajsc flowlang run / chat), not as a run.'
      : 'This server\'s ajs-lang does not provide that library: upgrade it, or send the program to a host that has it.',
  LIBRARY_VERSION: () => 'The program was compiled by a newer ajs-lang than this server runs: upgrade the server, or recompile the program with its version.',
}

/** A run's result as the server reports it (sync, async, on a worker): hints in the operator's terms. */
export function withServerHint(result: RunResult): RunResult {
  const error = result.error
  const hint = error ? SERVER_HINTS[error.code]?.(error.message) : undefined
  return hint ? { ...result, error: { ...error!, hint } } : result
}

/** A result the server refuses to call a run (bad program or arguments): 422 with the VM's error. */
export function rejection(result: RunResult): HttpError | undefined {
  const code = result.error?.code
  if (code && (REJECTED_PROGRAM_CODES.has(code) || isTranspileCode(code))) {
    return new HttpError('PROGRAM_REJECTED', result.error!.message, { agentError: withServerHint(result).error })
  }
  return undefined
}

export class RunService {
  private readonly waiters = new Map<string, Set<() => void>>()

  constructor(
    private readonly deps: { stores: ServerStores; tenants: Tenants; metrics: Metrics; limits: ServerLimits; executor: RunExecutor; plan?: PlanGate },
  ) {}

  /** The program and the admission of a run: synchronous when neither needs a store (an AST or source, no daily fuel quota). */
  private prepare(tenant: Tenant, body: RunBody, kind: 'run' | 'async-run', rawAst?: RawAst, grant?: BudgetClaims): Prepared | Promise<Prepared> {
    const program = resolveProgram(this.deps.stores, tenant.id, body, rawAst)
    if (program instanceof Promise) return program.then((p) => this.admitted(tenant, body, kind, p, grant))
    return this.admitted(tenant, body, kind, program, grant)
  }

  private admitted(tenant: Tenant, body: RunBody, kind: 'run' | 'async-run', program: Program, grant?: BudgetClaims): Prepared | Promise<Prepared> {
    // A budget token pays for the run: it runs under min(the tenant's limits, the token).
    const admission = this.deps.tenants.admit(tenant, grant ? underToken(body.options, grant) : body.options ?? {}, kind)
    if (admission instanceof Promise) return admission.then((a) => this.prepared(tenant, body, program, a, grant))
    return this.prepared(tenant, body, program, admission, grant)
  }

  private prepared(tenant: Tenant, body: RunBody, program: Program, admission: Admission, grant?: BudgetClaims): Prepared {
    const { limits } = this.deps
    return {
      task: {
        tenant: tenant.id,
        ...program,
        args: body.args ?? {},
        fuel: admission.fuel,
        timeoutMs: admission.timeoutMs,
        trace: body.options?.trace === true,
        maxAstNodes: limits.maxAstNodes,
        maxAstDepth: limits.maxAstDepth,
        ...(grant ? { budget: { depth: grant.depth, ...(grant.quotas ? { quotas: grant.quotas } : {}) } } : {}),
      },
      admission,
    }
  }

  /** Settle the admission with the fuel really used, and count the run. */
  private account(tenant: Tenant, admission: Admission, result: RunResult, startedAt: number): Promise<void> {
    this.deps.metrics.run(tenant.id, result.error !== undefined, result.fuelUsed, Date.now() - startedAt)
    return settleQuietly(admission, result.fuelUsed)
  }

  /**
   * Run and answer with the result (422 for a program the VM refuses). `starting`: called once the run
   * is admitted, before it is handed to the executor (its time limit counts from there), awaited when
   * it returns a promise; when it throws, the run does not start.
   */
  async runNow(tenant: Tenant, body: RunBody, signal?: StopSignal, rawAst?: RawAst, astUnparsed = false, grant?: BudgetClaims, starting?: (task: RunTask) => Promise<void> | undefined): Promise<RunResult> {
    const startedAt = Date.now()
    // No await where nothing waits: each one is a promise and a turn of the microtask queue per run.
    const ready = this.prepare(tenant, body, 'run', rawAst, grant)
    const { task, admission } = ready instanceof Promise ? await ready : ready
    let result: RunResult
    try {
      const renewing = starting?.(task)
      if (renewing) await renewing
      result = await this.deps.executor.run(task, { signal })
    } catch (e) {
      // Nothing ran to completion here (queue full, worker lost): charge nothing.
      await settleQuietly(admission, 0)
      throw e
    }
    const settling = this.account(tenant, admission, result, startedAt)
    if (settling !== SETTLED) await settling
    // The AST was left for the worker to parse (app.ts): its text not being JSON is a malformed body.
    if (astUnparsed && result.error?.code === 'AST_INVALID' && result.error.message === AST_NOT_JSON) {
      throw new HttpError('BAD_REQUEST', 'Invalid request: the body is not JSON (in its "ast" member)')
    }
    const refused = rejection(result)
    if (refused) throw refused
    return result
  }

  /** Start an async run; resolves to its id once it is recorded. */
  async start(tenant: Tenant, body: RunBody, rawAst?: RawAst): Promise<string> {
    const startedAt = Date.now()
    const { task, admission } = await this.prepare(tenant, body, 'async-run', rawAst)
    // A plan is static: an async run the tenant's plan policy refuses is refused now (422), not accepted to fail.
    try {
      await this.deps.plan?.(task)
    } catch (e) {
      await settleQuietly(admission, 0)
      throw e
    }
    const request: RunRequest = { args: task.args, fuel: task.fuel, timeoutMs: task.timeoutMs, trace: task.trace }
    if (task.astText !== undefined) { request.astText = task.astText; if (task.key !== undefined) request.key = task.key }
    if (task.source !== undefined) request.source = task.source
    const record: RunRecord = { id: newRunId(), tenant: tenant.id, state: 'queued', createdAt: startedAt, request }
    try {
      await this.deps.executor.start(record, task, (result) => {
        void this.account(tenant, admission, result, startedAt).then(() => this.notify(record.id))
      }, quotasOf(tenant.config.limits).runs)
    } catch (e) {
      await settleQuietly(admission, 0)
      throw e
    }
    return record.id
  }

  async get(tenant: Tenant, id: string): Promise<RunRecord> {
    const rec = await this.deps.stores.runs.get(tenant.id, id)
    if (!rec) throw new HttpError('NOT_FOUND', `No run "${id.slice(0, 48)}" for this tenant`)
    if (rec.state === 'done') this.deps.executor.seen?.(rec)
    return rec
  }

  /** Resolves when the run is done (or after `maxWaitMs`, whichever comes first). */
  async waitDone(tenant: Tenant, id: string, maxWaitMs: number, signal?: AbortSignal): Promise<RunRecord> {
    const until = Date.now() + maxWaitMs
    for (;;) {
      const rec = await this.get(tenant, id)
      if (rec.state === 'done' || Date.now() >= until || signal?.aborted) return rec
      await this.waitNotice(id, Math.min(until - Date.now(), 1000), signal)
    }
  }

  /** Wake whoever waits on a run (called locally, or from a database notification). */
  notify(id: string): void {
    const set = this.waiters.get(id)
    if (!set) return
    this.waiters.delete(id)
    for (const wake of set) wake()
  }

  private waitNotice(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(id)
      if (!set) this.waiters.set(id, (set = new Set()))
      const wake = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', wake)
        set!.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, Math.max(1, ms))
      signal?.addEventListener('abort', wake)
      set.add(wake)
    })
  }
}

/** The executor of the embedded default: runs execute in this process's pool; records live in its stores. */
export function localExecutor(pool: { run(task: RunTask, control?: RunControl): Promise<RunResult> }, stores: ServerStores): RunExecutor {
  return {
    run: (task, control) => pool.run(task, control),
    async start(record, task, done, quota) {
      await stores.runs.create(record, quota)
      void (async () => {
        await stores.runs.start(record.id, Date.now())
        let result: RunResult
        try {
          result = await pool.run(task)
        } catch (e) {
          const err = e as HttpError
          result = { result: null, fuelUsed: 0, error: { name: 'AgentError', code: err.code ?? 'INTERNAL', message: err.message ?? String(e) } }
        }
        result = withServerHint(result)
        await stores.runs.finish(record.id, result, Date.now())
        done(result)
      })()
    },
  }
}
