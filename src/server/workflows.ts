/**
 * Durable workflows behind the API (the engine is src/workflows/). A
 * workflow is driven in steps: a step takes the workflow's lock, replays
 * its journal, answers `agent` requests with the tenant's LLM and short
 * sleeps with a timer, and parks when only long sleeps and external
 * requests are left — `agent(prompt, { external: true })`, answered by a
 * human or another system through POST /v1/workflows/:id/requests/:rid.
 * Each step is a job: in memory a timer, with Postgres a Graphile Worker
 * job, so any process may take the next step. An external answer and the
 * job that resumes the workflow are committed in one transaction.
 * A completed agent call is journaled before anything else happens, so a
 * process killed mid-workflow never makes another process repeat it; the
 * same holds for the server's custom atoms (the tenant's), whose results
 * are journaled too (an atom running at a crash runs again).
 */
import type { TaskList } from 'graphile-worker'
import type pg from 'pg'
import { createBatteryLLM } from '../batteries/index.ts'
import { TranspileError } from '../diagnostics/index.ts'
import { answerAgent, type LlmLike } from '../workflows/engine/agent-request.ts'
import { WorkflowError } from '../workflows/engine/errors.ts'
import type { WorkflowExecution } from '../workflows/engine/execution.ts'
import { compileWorkflow } from '../workflows/frontend/module.ts'
import { errResolution } from '../workflows/engine/retry.ts'
import { workflowPrograms } from './workflow-programs.ts'
import type { WorkflowProgram } from '../workflows/engine/program.ts'
import { resumeWorkflow, startWorkflow } from '../workflows/drivers/start.ts'
import type { WorkflowRequest, WorkflowResolution } from '../workflows/engine/types.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import { atomsOfTenant } from './atoms.ts'
import { HttpError } from './errors.ts'
import type { Host } from './host.ts'
import type { Jobs } from './jobs.ts'
import { compileFuel, quotasOf, type Admission, type Tenants } from './tenants.ts'
import { setLongTimeout } from '../vm/long-timer.ts'
import { programFromBody, transpileAgentError } from './procedures.ts'
import type { ServerLimits } from './config.ts'
import { MemoryWorkflowStore, PgWorkflowStore, type WorkflowRow, type WorkflowStore, type WorkflowView } from './stores/workflows.ts'

export interface WorkflowRoutesBackend {
  start(tenant: string, body: { source: string; args?: Record<string, unknown>; budget?: number }): Promise<Record<string, unknown>>
  get(tenant: string, id: string): Promise<Record<string, unknown>>
  resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>>
  /** Drop finished workflows last updated before this time (limits.workflowRetentionMs). */
  prune?(updatedBefore: number): Promise<number>
  /** Stop timers of pending steps (in memory). */
  close?(): Promise<void>
}

export const WORKFLOW_TASK = 'ajs_workflow'

/** Sleeps up to this long are waited for in the step; longer ones park the workflow and schedule its next step. */
const INLINE_SLEEP_MS = 1000
/** A step that finds the workflow locked (another step is running) tries again after this long. */
const BUSY_RETRY_MS = 500
const MAX_LOGS = 50

/** The custom atoms a tenant's workflows may call: the server's, narrowed by the tenant's allowlist. */
const tenantAtoms = (host: Host, tenant: string): AtomDef[] =>
  atomsOfTenant(host.atoms.atoms, host.config.tenants.find((t) => t.id === tenant)?.atoms)

/** The tenant's `context`, which its atoms read (as in its runs). */
const tenantContext = (host: Host, tenant: string): Record<string, unknown> =>
  (host.config.tenants.find((t) => t.id === tenant)?.context ?? {}) as Record<string, unknown>

const publicView = (row: WorkflowRow): Record<string, unknown> => ({
  id: row.id, state: row.state, createdAt: row.createdAt, updatedAt: row.updatedAt, ...row.view,
})

/** The engine-facing part: one step of a workflow, run by whichever process takes its job. */
export class WorkflowDriver {
  private readonly llms = new Map<string, LlmLike | null>()

  constructor(private readonly host: Host, private readonly store: WorkflowStore) {}

  private llmOf(tenant: string): LlmLike | null {
    if (!this.llms.has(tenant)) {
      const cfg = this.host.tenants.get(tenant)?.config.capabilities.llm
      const apiKey = cfg?.apiKeyEnv ? process.env[cfg.apiKeyEnv] : undefined
      this.llms.set(tenant, cfg ? createBatteryLLM({ baseUrl: cfg.baseUrl, model: cfg.model ?? 'default', ...(apiKey ? { apiKey } : {}) }) : null)
    }
    return this.llms.get(tenant)!
  }

  /** Run one step; schedules the next one itself when needed. */
  async step(id: string): Promise<void> {
    const ran = await this.store.withLock(id, () => this.drive(id))
    if (ran === 'busy') await this.store.schedule(id, Date.now() + BUSY_RETRY_MS)
  }

  private async drive(id: string): Promise<void> {
    const row = await this.store.load(id)
    if (!row || row.state === 'done' || row.state === 'failed') return
    const tenant = this.host.tenants.get(row.tenant)
    // A step is guest work: it passes the tenant's admission (a slot, its fuel reserved) or waits for it.
    let admission: Admission | undefined
    if (tenant) {
      try {
        admission = await this.host.tenants.admit(tenant, {}, 'workflow-step')
      } catch (e) {
        if (!(e instanceof HttpError) || e.retryAfter === undefined) throw e
        await this.store.schedule(id, Date.now() + Math.max(e.retryAfter * 1000, BUSY_RETRY_MS))
        return
      }
    }
    let exec: WorkflowExecution | undefined
    try {
      exec = await this.driveAdmitted(row, admission)
    } finally {
      await admission?.settle(exec?.fuelUsed ?? 0).catch(() => { /* the ledger is unreachable: the reservation stays charged */ })
    }
  }

  private async driveAdmitted(row: WorkflowRow, admission: Admission | undefined): Promise<WorkflowExecution | undefined> {
    const id = row.id
    const tenant = this.host.tenants.get(row.tenant)
    const atoms = tenantAtoms(this.host, row.tenant)
    const journal = await this.store.journal.read(id)
    const common = { store: this.store.journal, executionId: id, sandbox: { fuel: admission?.fuel ?? tenant?.config.limits.fuelPerRun ?? 10_000 }, atoms, context: tenantContext(this.host, row.tenant) }
    let exec: WorkflowExecution
    try {
      const program = workflowPrograms.get(row.source, row.sourceName, atoms) // compiled once per process, not per step
      exec = journal.length > 0
        ? await resumeWorkflow(program, journal, common)
        : startWorkflow(program, { ...common, args: row.args, budget: { total: row.budget ?? null } })
    } catch (e) {
      await this.fail(row, e)
      return undefined
    }
    const view: WorkflowView = { ...row.view, requests: [] }
    try {
      const outcome = await this.run(exec, row, view)
      if (outcome.done) {
        await this.store.update(id, 'done', { ...view, requests: [], result: outcome.result })
      } else {
        view.requests = outcome.external
        if (outcome.wakeAt !== undefined) view.wakeAt = outcome.wakeAt
        else delete view.wakeAt
        await this.store.update(id, 'waiting', view, outcome.wakeAt)
      }
    } catch (e) {
      await this.fail(row, e, view)
    } finally {
      exec.dispose()
    }
    return exec
  }

  /** Poll until the workflow completes or only external requests and long sleeps are left. */
  private async run(exec: WorkflowExecution, row: WorkflowRow, view: WorkflowView): Promise<{ done: true; result: unknown } | { done: false; external: WorkflowView['requests']; wakeAt?: number }> {
    const external = new Map<string, WorkflowRequest & { type: 'agent' }>()
    const sleeps = new Map<string, number>()
    let inflight = 0
    let wake: (() => void) | null = null
    const settled = () => { inflight--; wake?.() }
    const resolve = (id: string, r: WorkflowResolution) => { try { exec.resolveRequest(id, r) } catch { /* the execution ended meanwhile */ } }
    // Agent calls in flight hold a unit of the workflow's budget each: concurrent calls never spend more than it.
    const held = { calls: 0 }
    for (;;) {
      const p = await exec.poll()
      if (p === 'Pending') {
        if (inflight > 0) {
          await new Promise<void>((r) => { wake = r })
          wake = null
          continue
        }
        const wakeAt = sleeps.size > 0 ? Math.min(...sleeps.values()) : undefined
        return { done: false, external: [...external.values()].map((r) => ({ id: r.id, prompt: r.prompt, ...(r.options !== undefined ? { options: r.options } : {}) })), wakeAt }
      }
      if ('Call' in p) {
        view.logs = [...(view.logs ?? []), p.Call].slice(-MAX_LOGS)
        continue
      }
      if ('Complete' in p) return { done: true, result: p.Complete.result }
      for (const r of exec.takePendingRequests()) {
        if (r.type === 'sleep') {
          if (r.durationMs <= INLINE_SLEEP_MS) {
            inflight++
            setLongTimeout(() => { resolve(r.id, 'OkUndefined'); settled() }, r.durationMs)
          } else sleeps.set(r.id, Date.now() + r.durationMs)
        } else if (r.type === 'workflow') {
          resolve(r.id, { Err: { message: 'workflow(): child workflows are not supported by ajsc serve; start it with POST /v1/workflows' } })
        } else if (isExternal(r.options)) {
          external.set(r.id, r)
        } else {
          inflight++
          void this.answer(row.tenant, r, exec, held).then((res) => { resolve(r.id, res); settled() })
        }
      }
    }
  }

  private async answer(tenant: string, r: WorkflowRequest & { type: 'agent' }, exec: WorkflowExecution, held: { calls: number }): Promise<WorkflowResolution> {
    const llm = this.llmOf(tenant)
    if (!llm) return { Err: { message: 'agent(): this tenant has no llm capability in the serve config (capabilities.llm), or mark the request { external: true }' } }
    const { total, spent } = exec.budget
    // Reserve the call's unit before calling (spent counts finished calls, held the ones in flight).
    if (total !== null && spent + held.calls >= total) return { Err: { message: `agent(): budget exhausted (${spent} of ${total} agent calls spent, ${held.calls} in flight)` } }
    held.calls++
    try {
      const value = await answerAgent(llm, r.prompt, r.options)
      const now = exec.budget
      return { OkWithBudget: { value, budget: { total: now.total, spent: now.spent + 1 } } }
    } catch (e) {
      return errResolution(e) // with the error's code: a retry policy retries LLM_NETWORK / 5xx / 429
    } finally {
      held.calls--
    }
  }

  private async fail(row: WorkflowRow, e: unknown, view: WorkflowView = row.view): Promise<void> {
    const err = e as WorkflowError
    const error = { name: 'AgentError', code: typeof err?.code === 'string' ? err.code : 'WORKFLOW_FAILED', message: err?.message ?? String(e), ...(err?.cause ? { cause: err.cause } : {}) }
    await this.store.update(row.id, 'failed', { ...view, requests: [], error })
  }
}

const isExternal = (options: unknown) => options !== null && typeof options === 'object' && (options as { external?: unknown }).external === true

/** The HTTP side: start, read, answer external requests. */
export class WorkflowService implements WorkflowRoutesBackend {
  constructor(private readonly store: WorkflowStore, private readonly atomsOf: (tenant: string) => AtomDef[] = () => [], private readonly tenants?: Tenants, private readonly limits?: ServerLimits) {}

  close(): Promise<void> {
    return this.store.close()
  }

  prune(updatedBefore: number): Promise<number> {
    return this.store.prune(updatedBefore)
  }

  async start(tenant: string, body: { source: string; args?: Record<string, unknown>; budget?: number }): Promise<Record<string, unknown>> {
    let program: WorkflowProgram
    const t = this.tenants?.get(tenant)
    // Compiling the tenant's source is guest work: admitted (a slot, its fuel reserved) before it starts.
    const admission = t ? await this.tenants!.admit(t, { fuel: compileFuel(body.source.length), exact: true }, 'compile') : undefined
    try {
      program = compileWorkflow(body.source, { sourceName: 'workflow.ajs', atoms: this.atomsOf(tenant) })
    } catch (e) {
      if (e instanceof TranspileError) throw new HttpError('PROGRAM_REJECTED', e.message, { agentError: transpileAgentError(e) })
      if (e instanceof WorkflowError) throw new HttpError('PROGRAM_REJECTED', e.message, { agentError: { name: 'AgentError', code: e.code, message: e.message, hint: e.hint } })
      throw e
    } finally {
      await admission?.settle(admission.fuel)
    }
    // The same size and depth limits as every other program the server accepts (422, never a deep recursion later).
    if (this.limits) programFromBody({ ast: program.ast }, this.limits)
    const now = Date.now()
    const row: WorkflowRow = {
      id: `wf_${crypto.randomUUID().replace(/-/g, '')}`, tenant, state: 'running', createdAt: now, updatedAt: now,
      source: body.source, sourceName: program.sourceName, args: body.args ?? {}, budget: body.budget ?? null,
      view: { requests: [], meta: program.meta },
    }
    await this.store.create(row, t ? quotasOf(t.config.limits).workflows : undefined)
    return publicView(row)
  }

  async get(tenant: string, id: string): Promise<Record<string, unknown>> {
    const row = await this.store.load(id)
    if (!row || row.tenant !== tenant) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    return publicView(row)
  }

  async resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>> {
    const row = await this.store.load(id)
    if (!row || row.tenant !== tenant) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    const outcome = await this.store.resolveExternal(id, requestId, { Ok: value })
    if (outcome === 'unknown') throw new HttpError('NOT_FOUND', `Workflow ${id} has no external request "${requestId.slice(0, 48)}"`)
    if (outcome === 'resolved') throw new HttpError('ALREADY_RESOLVED', `Request ${requestId.slice(0, 48)} of workflow ${id} is already answered`)
    if (outcome === 'busy') throw new HttpError('WORKFLOW_BUSY', `Workflow ${id} is taking a step; answer again in a moment`, { retryAfter: 1 })
    return publicView((await this.store.load(id))!)
  }
}

/** In memory (no --database): steps run on timers in this process. */
export function workflowsBackend(host: Host, distributed?: { pgPool: pg.Pool; jobs: Jobs }): WorkflowRoutesBackend {
  const atomsOf = (tenant: string) => tenantAtoms(host, tenant)
  if (distributed) return new WorkflowService(new PgWorkflowStore(distributed.pgPool), atomsOf, host.tenants, host.config.limits)
  let driver: WorkflowDriver | undefined
  const store = new MemoryWorkflowStore((id) => driver!.step(id))
  driver = new WorkflowDriver(host, store)
  return new WorkflowService(store, atomsOf, host.tenants, host.config.limits)
}

/** Graphile Worker task of workflow steps (serve with --database, and ajsc worker). */
export function workflowJobTasks(host: Host, pgPool: pg.Pool): TaskList {
  const driver = new WorkflowDriver(host, new PgWorkflowStore(pgPool))
  return { [WORKFLOW_TASK]: async (payload) => driver.step((payload as { id: string }).id) }
}
