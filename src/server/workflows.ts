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
import { answerAgent, type LlmLike } from '../workflows/engine/agent-request.ts'
import { WorkflowError } from '../workflows/engine/errors.ts'
import { RemoteExecution, threadError } from './pool/remote-execution.ts'
import { WorkflowThreadGone } from './pool/workflow-threads.ts'
import { MAX_EXPOSED_BYTES } from './pool/workflow-protocol.ts'
import { errResolution } from '../workflows/engine/retry.ts'
import { compileServerWorkflow, workflowPrograms, type WorkflowCompiler } from './workflow-programs.ts'
import type { WorkflowProgram } from '../workflows/engine/program.ts'
import { retryEntry } from '../workflows/drivers/start.ts'
import type { WorkflowRequest, WorkflowResolution } from '../workflows/engine/types.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import { atomsOfTenant } from './atoms.ts'
import type { BudgetTokens } from '../codemode/budget-token.ts'
import type { BudgetRunner } from '../codemode/budget-atoms.ts'
import { workflowBudgetAtoms } from '../codemode/budget-workflow.ts'
import { HttpError } from './errors.ts'
import type { Host } from './host.ts'
import type { Jobs } from './jobs.ts'
import { compileFuel, quotasOf, type Admission, type Tenants } from './tenants.ts'
import { setLongTimeout, type LongTimer } from '../vm/long-timer.ts'
import type { ServerLimits } from './config.ts'
import { ENDED_STATES, MemoryWorkflowStore, PgWorkflowStore, type WorkflowRow, type WorkflowStore, type WorkflowView } from './stores/workflows.ts'
import { JOURNAL_VERSION, type JournalEntry } from '../workflows/engine/journal.ts'
import { newSeed } from '../workflows/engine/random.ts'
import { checkRetryPolicy, type RunRetryPolicy } from '../workflows/engine/retry.ts'
import { checkTimeouts, type WorkflowTimeouts } from '../workflows/engine/timeouts.ts'
import { journalPage, listWorkflows, searchOfBody, type JournalPage, type WorkflowListParams } from './listing.ts'
import type { Page } from './stores/list.ts'
import type { WorkflowState, WorkflowSummary } from './stores/workflows.ts'
import { planGate, type PlanGate } from './plan-gate.ts'

export interface StartWorkflowBody {
  source: string
  args?: Record<string, unknown>
  budget?: number
  retry?: unknown
  timeouts?: unknown
  /** Modules its `workflow(name, args)` calls may start as child workflows, by name. */
  workflows?: Record<string, string>
  /** What it is found by (GET /v1/workflows?name=&tag=&attr.k=v); checked by searchOfBody. */
  name?: string
  tags?: string[]
  attributes?: Record<string, unknown>
}

export interface WorkflowRoutesBackend {
  /** Start one; `options.id` gives its id (a schedule's fire): one already there is answered with `duplicate: true`. */
  start(tenant: string, body: StartWorkflowBody, options?: { id?: string }): Promise<Record<string, unknown>>
  /** Refuse (400, 422) what start would refuse, starting nothing. */
  check?(tenant: string, body: StartWorkflowBody): Promise<unknown>
  get(tenant: string, id: string): Promise<Record<string, unknown>>
  resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>>
  /** Reopen a failed workflow at its failed step (optionally with a new retry policy). */
  retry(tenant: string, id: string, body: { retry?: unknown }): Promise<Record<string, unknown>>
  /** Send a signal (journaled; an id already journaled is not taken twice). */
  signal(tenant: string, id: string, body: { name: string; value?: unknown; id?: string }): Promise<Record<string, unknown>>
  cancel(tenant: string, id: string, body: { reason?: string }): Promise<Record<string, unknown>>
  /** The value the workflow last exposed under `name` (as of its last step). */
  query(tenant: string, id: string, name: string): Promise<Record<string, unknown>>
  /** The tenant's workflows, newest first, a page at a time (GET /v1/workflows). */
  list?(tenant: string, params: WorkflowListParams): Promise<Page<WorkflowSummary>>
  /** A page of one of the tenant's workflows' journal (GET /v1/workflows/{id}/journal). */
  journal?(tenant: string, id: string, params: { limit?: string; cursor?: string }): Promise<JournalPage>
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

/** Compiling needs budgetRun by name only: the workflow threads run it, with the tenant's VM as its runner. */
const RUNS_IN_THREADS: BudgetRunner = { run: () => Promise.reject(new Error('budgetRun runs in the workflow threads')) }

/** The workflow budget atoms of a host with budgetTokens (here for compiling; a workflow thread runs its own). */
const budgetAtomsOf = new WeakMap<BudgetTokens, AtomDef[]>()
const workflowBudgetAtomsOf = (host: Host): AtomDef[] => {
  if (!host.budget) return []
  let atoms = budgetAtomsOf.get(host.budget)
  if (!atoms) budgetAtomsOf.set(host.budget, (atoms = workflowBudgetAtoms(host.budget, { runner: RUNS_IN_THREADS })))
  return atoms
}

/**
 * The custom atoms a tenant's workflows may call: the server's, narrowed by the tenant's allowlist, and with
 * budgetTokens in the config budgetToken, budgetSettle and budgetRun (every tenant's, as in runs).
 */
const tenantAtoms = (host: Host, tenant: string): AtomDef[] =>
  [...atomsOfTenant(host.atoms.atoms, host.config.tenants.find((t) => t.id === tenant)?.atoms), ...workflowBudgetAtomsOf(host)]

/**
 * Compiles workflow sources in the server's pool (RunPool.compileWorkflow), as procedures compile
 * (RunPool.compile): the event loop only waits, under the tenant's time limit.
 */
export function poolWorkflowCompiler(host: Host, tenant: string): WorkflowCompiler {
  return async (source, sourceName, atoms) => {
    const timeoutMs = host.tenants.get(tenant)?.config.limits.timeoutMs ?? 30_000
    const out = await host.pool.compileWorkflow({ source, sourceName, atoms: [...atoms], maxAstNodes: host.config.limits.maxAstNodes, maxAstDepth: host.config.limits.maxAstDepth }, timeoutMs)
    if ('error' in out) throw new HttpError(out.error.code as HttpError['code'], out.error.message, out.error.agentError ? { agentError: out.error.agentError } : {})
    return Object.freeze(JSON.parse(out.programText) as WorkflowProgram)
  }
}

/** The tenant's `context`, which its atoms read (as in its runs). */
const tenantContext = (host: Host, tenant: string): Record<string, unknown> =>
  (host.config.tenants.find((t) => t.id === tenant)?.context ?? {}) as Record<string, unknown>

const publicView = (row: WorkflowRow): Record<string, unknown> => {
  const { exposed: _e, exposedTooLarge: _t, ...view } = row.view
  return { id: row.id, state: row.state, createdAt: row.createdAt, updatedAt: row.updatedAt, ...(row.parent ? { parent: row.parent.id } : {}), ...structuredClone(row.search), ...view }
}

type AgentRequest = WorkflowRequest & { type: 'agent' }

/**
 * A workflow's execution kept alive between its steps in this process, with
 * what it is parked on: a step continues it (the entries journaled meanwhile,
 * an external answer, a signal, a cancellation, absorbed) instead of
 * replaying the journal from its first entry.
 */
interface LiveRun {
  /** In the workflow thread its id hashes to (src/server/pool/workflow-threads.ts). */
  exec: RemoteExecution
  tenant: string
  /** The fuel its VM run was given (a step reserving less replays instead). */
  fuel: number
  /** The run of the workflow's continueAsNew chain it executes (row.view.chain). */
  chain: number
  /** Parked requests drained in earlier steps: long sleeps (wake time), external agent requests, child workflows (child id). */
  sleeps: Map<string, number>
  external: Map<string, AgentRequest>
  children: Map<string, string>
}

/**
 * Live executions between steps by run id, at most `maxLive` per workflow
 * thread, least recently used out (an execution taking a step is not here,
 * so it is never evicted mid-step). Evicting one only disposes of it (its
 * thread drops it): after a step its journal is complete in the store, so
 * the next step replays it to the same state.
 */
export class LiveRuns {
  private readonly runs = new Map<string, LiveRun>()
  /** Live executions per workflow thread. */
  private readonly perThread = new Map<number, number>()

  constructor(readonly stats: typeof workflowStepStats = workflowStepStats) {}

  get size(): number {
    return this.runs.size
  }

  take(id: string): LiveRun | undefined {
    const r = this.runs.get(id)
    if (r) this.remove(id, r) // held by the step; put back when it ends well
    return r
  }

  private remove(id: string, r: LiveRun): void {
    this.runs.delete(id)
    this.perThread.set(r.exec.threadIndex, this.perThread.get(r.exec.threadIndex)! - 1)
  }

  put(id: string, run: LiveRun): void {
    this.runs.set(id, run)
    const t = run.exec.threadIndex
    const n = (this.perThread.get(t) ?? 0) + 1
    this.perThread.set(t, n)
    if (n <= this.stats.maxLive) return
    for (const [oldest, r] of this.runs) {
      if (r.exec.threadIndex !== t) continue
      this.remove(oldest, r)
      r.exec.dispose()
      if (this.perThread.get(t)! <= this.stats.maxLive) return
    }
  }

  clear(): void {
    for (const r of this.runs.values()) r.exec.dispose()
    this.runs.clear()
    this.perThread.clear()
  }
}

/**
 * What the process's workflow steps did (tests and benches count work with it): steps that continued a
 * live execution (hits), of which those that first caught up with steps another process ran (caughtUp),
 * steps that replayed the journal (misses), and the entries replayed (by misses and catch-ups).
 * `maxLive` bounds the live executions each workflow thread keeps between steps (least recently used out).
 */
export const workflowStepStats = { hits: 0, misses: 0, caughtUp: 0, replayedEntries: 0, maxLive: 256 }

/** A step whose thread went away for another workflow's sake is taken again; this many times in a row, it fails. */
const MAX_THREAD_LOSSES = 3
/** Child workflows nest at most this deep. */
const MAX_CHILD_DEPTH = 4

/** The engine-facing part: one step of a workflow, run by whichever process takes its job. */
export class WorkflowDriver {
  private readonly llms = new Map<string, LlmLike | null>()
  readonly live: LiveRuns
  /** Steps in a row whose workflow thread went away (another workflow's step overran, the thread died), by workflow id. */
  private readonly losses = new Map<string, number>()

  constructor(private readonly host: Host, private readonly store: WorkflowStore, live?: LiveRuns) {
    this.live = live ?? new LiveRuns()
  }

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
    if (!row || row.state === 'done' || row.state === 'failed' || row.state === 'cancelled') {
      this.live.take(id)?.exec.dispose()
      return
    }
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
    let used = 0
    try {
      used = await this.driveAdmitted(row, admission)
    } finally {
      await admission?.settle(used).catch(() => { /* the ledger is unreachable: the reservation stays charged */ })
    }
  }

  /**
   * The live execution of the run (in its workflow thread), brought up to date with its journal, or
   * a new one there, replayed from the journal once. The step's time limit starts now.
   */
  private async liveRun(row: WorkflowRow, fuel: number, timeLimitMs: number): Promise<{ run: LiveRun; fuelBefore: number }> {
    // The step's first poll comes with the absorb unless a cancellation is to be journaled first.
    const thenPoll = row.view.cancelRequested === undefined
    const id = row.id
    const chain = row.view.chain ?? 0
    let run = this.live.take(id)
    // A run another process continued as new (its journal replaced) is not this execution's any more.
    if (run && (run.fuel > fuel || run.chain !== chain || run.exec.state !== 'running' || !run.exec.alive)) { run.exec.dispose(); run = undefined }
    if (run) {
      run.exec.beginStep(timeLimitMs)
      const fuelBefore = run.exec.fuelUsed
      const delta = await this.store.journalFrom(id, run.exec.entryCount)
      let absorbed: Awaited<ReturnType<RemoteExecution['absorb']>> = false
      try {
        absorbed = await run.exec.absorb(delta, thenPoll)
      } catch (e) {
        if (!(e instanceof WorkflowThreadGone) || e.error) throw e // gone for another's sake: replay below
      }
      if (absorbed) {
        this.live.stats.hits++
        if (absorbed === 'caughtUp') {
          // Another process ran the steps since: their entries were replayed here, once.
          this.live.stats.caughtUp++
          this.live.stats.replayedEntries += delta.length
          const pending = new Set(run.exec.pendingRequestIds())
          for (const m of [run.sleeps, run.external, run.children]) for (const k of m.keys()) if (!pending.has(k)) m.delete(k)
        }
        return { run, fuelBefore }
      }
      run.exec.dispose()
    }
    this.live.stats.misses++
    const atoms = tenantAtoms(this.host, row.tenant)
    const journal = await this.store.journal.read(id)
    this.live.stats.replayedEntries += journal.length
    // Compiled once per process, not per step, and in a pool thread, not on the event loop.
    const program = await workflowPrograms.load(row.source, row.sourceName, atoms, poolWorkflowCompiler(this.host, row.tenant))
    const exec = await RemoteExecution.open(this.host.pool.workflows, this.store.journal, {
      id, tenant: row.tenant, program, fuel, maxHeapBytes: this.host.pool.runHeapBytes, context: tenantContext(this.host, row.tenant),
      ...(journal.length > 0 ? { journal: [...journal] } : {
        start: {
          args: row.args, budget: { total: row.budget ?? null },
          ...(row.retry !== undefined ? { retry: row.retry } : {}), ...(row.timeouts !== undefined ? { timeouts: row.timeouts } : {}),
        },
      }),
    }, timeLimitMs)
    return { run: { exec, tenant: row.tenant, fuel, chain, sleeps: new Map(), external: new Map(), children: new Map() }, fuelBefore: 0 }
  }

  /** One step of an admitted workflow; returns the fuel it used. */
  private async driveAdmitted(row: WorkflowRow, admission: Admission | undefined): Promise<number> {
    const id = row.id
    const tenant = this.host.tenants.get(row.tenant)
    const fuel = admission?.fuel ?? tenant?.config.limits.fuelPerRun ?? 10_000
    const timeLimitMs = tenant?.config.limits.timeoutMs ?? 30_000
    let live: { run: LiveRun; fuelBefore: number }
    try {
      live = await this.liveRun(row, fuel, timeLimitMs)
    } catch (e) {
      const lost = await this.lostThread(row, e)
      if (!lost) await this.fail(row, e)
      return lost === 'failed' ? fuel : 0 // a step stopped for overrunning is charged its whole reservation
    }
    const { run, fuelBefore } = live
    const exec = run.exec
    const view: WorkflowView = { ...row.view, requests: [] }
    let keep = false
    let lost: Awaited<ReturnType<WorkflowDriver['lostThread']>> = false
    try {
      // A cancellation asked for while a step held the workflow: journaled now.
      if (row.view.cancelRequested !== undefined && exec.cancelled === null && exec.state === 'running') await exec.cancel(row.view.cancelRequested)
      delete view.cancelRequested
      const outcome = await this.run(exec, row, view, run)
      view.spent = exec.budget.spent
      Object.assign(view, exec.exposed)
      const next = outcome.done ? exec.continuedAsNew : null
      if (next) {
        // continueAsNew: the workflow keeps its id; its journal becomes the next run's start entry (bounded however long the chain).
        const chain = (row.view.chain ?? 0) + 1
        const start: JournalEntry & { t: 'start' } = {
          t: 'start', v: JOURNAL_VERSION, astHash: exec.program.astHash, sourceName: exec.program.sourceName, args: next.args,
          budget: exec.budget, seed: newSeed(), at: Date.now(), previous: id, chain,
          ...(row.retry !== undefined ? { retry: row.retry } : {}), ...(row.timeouts !== undefined ? { timeouts: row.timeouts } : {}),
        }
        delete view.wakeAt
        const { children: _abandoned, ...rest } = view // its children are cancelled with the run (below)
        await this.store.continueAsNew(id, start, { ...rest, requests: [], chain })
      } else if (outcome.done) {
        await this.store.update(id, 'done', { ...view, requests: [], result: outcome.result }, undefined, row.parent?.id)
      } else {
        view.requests = outcome.external
        if (outcome.wakeAt !== undefined) view.wakeAt = outcome.wakeAt
        else delete view.wakeAt
        await this.store.update(id, 'waiting', view, outcome.wakeAt)
        keep = true
      }
    } catch (e) {
      lost = await this.lostThread(row, e)
      if (!lost) {
        Object.assign(view, exec.exposed)
        await this.fail(row, e, view)
      }
    } finally {
      if (keep && exec.state === 'running') this.live.put(id, run)
      else exec.dispose()
      if (lost !== 'retry') this.losses.delete(id)
      // A parent that ended (done, failed, cancelled) takes the children still running with it.
      if (!keep && lost !== 'retry') for (const c of view.children ?? []) await this.store.flagCancel(c.id, `parent ${id} ended`).catch(() => {})
    }
    return lost === 'failed' ? fuel : Math.max(0, exec.fuelUsed - fuelBefore)
  }

  /**
   * The step's workflow thread went away: when for this step's own sake (it overran its time, the
   * memory watch stopped it), the workflow fails with that error, journaled as its end; otherwise
   * (another workflow's step, a crash) the step is taken again soon and replays once, unless that
   * keeps happening (MAX_THREAD_LOSSES in a row). Returns false for any other error.
   */
  private async lostThread(row: WorkflowRow, e: unknown): Promise<'retry' | 'failed' | false> {
    if (!(e instanceof WorkflowThreadGone)) return false
    this.live.take(row.id)?.exec.dispose()
    const losses = (this.losses.get(row.id) ?? 0) + 1
    const error = e.error ?? (losses >= MAX_THREAD_LOSSES
      ? { name: 'AgentError' as const, code: 'WORKER_CRASHED', message: `The workflow's thread went away during ${losses} steps in a row (last: ${e.message})` }
      : undefined)
    if (!error) {
      this.losses.set(row.id, losses)
      await this.store.schedule(row.id, Date.now() + Math.min(1000, 50 * losses))
      return 'retry'
    }
    this.losses.delete(row.id)
    // The journal ends with the failure, as if the run had failed by itself: `retry` reopens it there.
    await this.store.journal.append(row.id, [{ t: 'end', error }])
    await this.fail(row, threadError(new WorkflowThreadGone(e.message, error)))
    return 'failed'
  }

  /** Poll until the workflow completes or only external requests, children and long sleeps are left. */
  private async run(exec: RemoteExecution, row: WorkflowRow, view: WorkflowView, live: LiveRun): Promise<{ done: true; result: unknown } | { done: false; external: WorkflowView['requests']; wakeAt?: number }> {
    const timers: LongTimer[] = []
    try {
      return await this.runStep(exec, row, view, live, timers)
    } finally {
      for (const t of timers) t.clear() // nothing touches the execution once its step is over
    }
  }

  private async runStep(exec: RemoteExecution, row: WorkflowRow, view: WorkflowView, live: LiveRun, timers: LongTimer[]): Promise<{ done: true; result: unknown } | { done: false; external: WorkflowView['requests']; wakeAt?: number }> {
    const { external, sleeps, children } = live
    let inflight = 0
    let wake: (() => void) | null = null
    const settled = () => { inflight--; wake?.() }
    const resolve = (id: string, r: WorkflowResolution) => { try { exec.resolveRequest(id, r) } catch { /* the execution ended meanwhile */ } }
    // Parked in earlier steps: sleeps that are due end now, children that ended give their outcome.
    const now = Date.now()
    for (const [rid, at] of [...sleeps]) if (at <= now) { sleeps.delete(rid); resolve(rid, 'OkUndefined') }
    for (const [rid, childId] of [...children]) {
      const outcome = await this.childOutcome(childId, exec)
      if (outcome) { children.delete(rid); resolve(rid, outcome) }
    }
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
        // What the run still waits for (a cancellation may have ended some of it).
        const pending = new Set(exec.pendingRequestIds())
        for (const m of [external, sleeps]) for (const k of m.keys()) if (!pending.has(k)) m.delete(k)
        for (const [rid, childId] of [...children]) {
          if (pending.has(rid)) continue
          // The wait for the child was cancelled: so is the child.
          children.delete(rid)
          await this.store.flagCancel(childId, `parent ${row.id} cancelled: ${exec.cancelled ?? ''}`).catch(() => {})
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
          } else {
            sleeps.set(r.id, Date.now() + r.durationMs)
            // Ending while this step still waits for other work (an LLM call): it ends now (a request's timeout, the deadline).
            timers.push(setLongTimeout(() => { if (sleeps.delete(r.id)) { resolve(r.id, 'OkUndefined'); wake?.() } }, r.durationMs))
          }
        } else if (r.type === 'workflow') {
          inflight++
          void this.startChild(row, r, exec, view).then((res) => {
            if ('resolution' in res) resolve(r.id, res.resolution)
            else children.set(r.id, res.child)
            settled()
          })
        } else if (isExternal(r.options)) {
          external.set(r.id, r)
        } else {
          inflight++
          void this.answer(row.tenant, r, exec, held).then((res) => { resolve(r.id, res); settled() })
        }
      }
    }
  }

  /**
   * A `workflow(name, args)` request: the child is a workflow of its own (the
   * same tenant, the module of that name given when the root was started),
   * created once under an id derived from the parent's and the request's (a
   * replay finds it again). An ended child answers at once; otherwise the
   * parent parks until the child's last step wakes it.
   */
  private async startChild(parent: WorkflowRow, r: WorkflowRequest & { type: 'workflow' }, exec: RemoteExecution, view: WorkflowView): Promise<{ resolution: WorkflowResolution } | { child: string }> {
    const err = (message: string, code: string): { resolution: WorkflowResolution } => ({ resolution: { Err: { message, code } } })
    if (typeof r.ref !== 'string') return err('workflow(): the server has no files; name a module given in POST /v1/workflows "workflows": { name: source }', 'WORKFLOW_NOT_FOUND')
    const source = parent.modules?.[r.ref]
    if (source === undefined) return err(`workflow(): no module "${r.ref.slice(0, 100)}" in the workflows given when the workflow was started (POST /v1/workflows "workflows")`, 'WORKFLOW_NOT_FOUND')
    const depth = parent.id.split('.').length
    if (depth > MAX_CHILD_DEPTH) return err(`workflow(): child workflows nest at most ${MAX_CHILD_DEPTH} deep`, 'WORKFLOW_DEPTH')
    const childId = `${parent.id}.${r.id.replace(/^workflow-/, '')}`
    const { total, spent } = exec.budget
    const now = Date.now()
    const t = this.host.tenants.get(parent.tenant)
    try {
      const program = await workflowPrograms.load(source, r.ref, tenantAtoms(this.host, parent.tenant), poolWorkflowCompiler(this.host, parent.tenant))
      await this.store.create({
        id: childId, tenant: parent.tenant, state: 'running', createdAt: now, updatedAt: now,
        source, sourceName: r.ref, args: r.args ?? {}, budget: total === null ? null : Math.max(0, total - spent),
        view: { requests: [], meta: program.meta }, modules: parent.modules, parent: { id: parent.id, requestId: r.id },
        ...(parent.retry !== undefined ? { retry: parent.retry } : {}),
      }, t ? quotasOf(t.config.limits).workflows : undefined, true)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      return err(`workflow(): ${(e as Error).message}`, typeof code === 'string' ? code : 'WORKFLOW_FAILED')
    }
    view.children = [...(view.children ?? []).filter((c) => c.id !== childId), { requestId: r.id, id: childId }]
    const outcome = await this.childOutcome(childId, exec)
    return outcome ? { resolution: outcome } : { child: childId }
  }

  /** The outcome of a child that has ended (its result with the budget it spent, or its error), or null while it runs. */
  private async childOutcome(childId: string, exec: RemoteExecution): Promise<WorkflowResolution | null> {
    const c = await this.store.load(childId)
    if (!c) return { Err: { message: `workflow(): the child workflow ${childId} is gone`, code: 'WORKFLOW_FAILED' } }
    if (c.state === 'done') {
      const b = exec.budget
      return { OkWithBudget: { value: c.view.result ?? null, budget: { total: b.total, spent: b.spent + (c.view.spent ?? 0) } } }
    }
    if (c.state === 'failed' || c.state === 'cancelled') {
      const e = c.view.error as { code?: string; message?: string } | undefined
      return { Err: { message: `child workflow ${childId}: ${e?.message ?? c.state}`, code: e?.code ?? 'WORKFLOW_FAILED' } }
    }
    return null
  }

  private async answer(tenant: string, r: AgentRequest, exec: RemoteExecution, held: { calls: number }): Promise<WorkflowResolution> {
    const llm = this.llmOf(tenant)
    if (!llm) return { Err: { message: 'agent(): this tenant has no llm capability in the serve config (capabilities.llm), or mark the request { external: true }' } }
    const { total, spent } = exec.budget
    // Reserve the call's unit before calling (spent counts finished calls, held the ones in flight).
    if (total !== null && spent + held.calls >= total) return { Err: { message: `agent(): budget exhausted (${spent} of ${total} agent calls spent, ${held.calls} in flight)` } }
    held.calls++
    try {
      const value = await answerAgent(llm, r.prompt, r.options, exec.requestSignal(r.id))
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
    const state = error.code === 'WORKFLOW_CANCELLED' ? 'cancelled' : 'failed'
    const { cancelRequested: _c, ...rest } = view
    await this.store.update(row.id, state, { ...rest, requests: [], error }, undefined, row.parent?.id)
  }
}

const isExternal = (options: unknown) => options !== null && typeof options === 'object' && (options as { external?: unknown }).external === true

/** The HTTP side: start, read, answer external requests, retry, signal, cancel, query. */
export class WorkflowService implements WorkflowRoutesBackend {
  constructor(
    private readonly store: WorkflowStore,
    private readonly atomsOf: (tenant: string) => AtomDef[] = () => [],
    private readonly tenants?: Tenants,
    private readonly limits?: ServerLimits,
    /** Compiles a tenant's workflow sources off the event loop (the server's pool); absent: in this thread (tests). */
    private readonly compilerOf?: (tenant: string) => WorkflowCompiler,
    /** The tenant's plan policy, checked on the workflow's program and modules before it is accepted (422 PLAN_REFUSED). */
    private readonly plan?: PlanGate,
  ) {}

  close(): Promise<void> {
    return this.store.close()
  }

  prune(updatedBefore: number): Promise<number> {
    return this.store.prune(updatedBefore)
  }

  /**
   * Compile a module the tenant sends (422 when refused), with the same size and depth limits as every other
   * program the server accepts. On the server it compiles in a pool thread and lands in the program cache, so
   * the workflow's first step does not compile it again.
   */
  private compile(source: string, sourceName: string, tenant: string): Promise<WorkflowProgram> {
    const compiler = this.compilerOf?.(tenant)
    if (compiler) return workflowPrograms.load(source, sourceName, this.atomsOf(tenant), compiler)
    return Promise.resolve(compileServerWorkflow(source, sourceName, this.atomsOf(tenant), this.limits))
  }

  /**
   * What POST /v1/workflows checks before it stores anything (400, 422): the retry policy, timeouts and search attributes,
   * the program and its modules compiled (admitted as the tenant's work) and held to the tenant's plan policy.
   * A schedule's workflow is checked with it when the schedule is created.
   */
  async check(tenant: string, body: StartWorkflowBody) {
    const t = this.tenants?.get(tenant)
    const modules = Object.entries(body.workflows ?? {})
    let retry: RunRetryPolicy | undefined
    let timeouts: WorkflowTimeouts | undefined
    try {
      retry = checkRetryPolicy(body.retry, 'retry', true)
      timeouts = checkTimeouts(body.timeouts, 'timeouts')
    } catch (e) {
      throw new HttpError('BAD_REQUEST', (e as Error).message)
    }
    const search = searchOfBody(body)
    const chars = body.source.length + modules.reduce((n, [, src]) => n + src.length, 0)
    // Compiling the tenant's sources is guest work: admitted (a slot, its fuel reserved) before it starts.
    const admission = t ? await this.tenants!.admit(t, { fuel: compileFuel(chars), exact: true }, 'compile') : undefined
    let program: WorkflowProgram
    try {
      program = await this.compile(body.source, 'workflow.ajs', tenant)
      const programs = [program]
      for (const [name, src] of modules) programs.push(await this.compile(src, name, tenant)) // a child's module is refused now, not when the parent calls it
      if (t?.config.plan) for (const p of programs) await this.plan?.({ tenant, astText: JSON.stringify(p.ast), key: `workflow:${p.astHash}`, workflow: true })
    } finally {
      await admission?.settle(admission.fuel)
    }
    return { t, program, modules, retry, timeouts, search }
  }

  /**
   * Start a workflow. `options.id`: its id (a schedule's fire, derived from the fire); a workflow of that id
   * already there is answered as it is, with `duplicate: true`, and nothing is started.
   */
  async start(tenant: string, body: StartWorkflowBody, options: { id?: string } = {}): Promise<Record<string, unknown>> {
    if (options.id !== undefined) {
      const existing = await this.store.load(options.id)
      if (existing && existing.tenant !== tenant) throw new HttpError('SERVER_ERROR', `Workflow id ${options.id} is another tenant's`)
      if (existing) return { ...publicView(existing), duplicate: true }
    }
    const { t, program, modules, retry, timeouts, search } = await this.check(tenant, body)
    const now = Date.now()
    const row: WorkflowRow = {
      id: options.id ?? `wf_${crypto.randomUUID().replace(/-/g, '')}`, tenant, state: 'running', createdAt: now, updatedAt: now,
      source: body.source, sourceName: program.sourceName, args: body.args ?? {}, budget: body.budget ?? null,
      view: { requests: [], meta: program.meta },
      ...(retry !== undefined ? { retry } : {}),
      ...(timeouts !== undefined ? { timeouts } : {}),
      ...(modules.length > 0 ? { modules: Object.fromEntries(modules) } : {}),
      ...(Object.keys(search).length > 0 ? { search } : {}),
    }
    // The start entry is written with the row: it carries the name, tags and attributes, and the first step resumes from it.
    const quota = t ? quotasOf(t.config.limits).workflows : undefined
    if (!await this.store.create(row, quota, options.id !== undefined, await this.startEntries(row, 0))) {
      return { ...publicView((await this.store.load(row.id))!), duplicate: true }
    }
    return publicView(row)
  }

  private async row(tenant: string, id: string): Promise<WorkflowRow> {
    const row = await this.store.load(id)
    if (!row || row.tenant !== tenant) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    return row
  }

  async get(tenant: string, id: string): Promise<Record<string, unknown>> {
    return publicView(await this.row(tenant, id))
  }

  list(tenant: string, params: WorkflowListParams): Promise<Page<WorkflowSummary>> {
    return listWorkflows(this.store, tenant, params)
  }

  async journal(tenant: string, id: string, params: { limit?: string; cursor?: string }): Promise<JournalPage> {
    await this.row(tenant, id)
    return journalPage(this.store, id, params)
  }

  async resolve(tenant: string, id: string, requestId: string, value: unknown): Promise<Record<string, unknown>> {
    await this.row(tenant, id)
    const outcome = await this.store.resolveExternal(id, requestId, { Ok: value })
    if (outcome === 'unknown') throw new HttpError('NOT_FOUND', `Workflow ${id} has no external request "${requestId.slice(0, 48)}"`)
    if (outcome === 'resolved') throw new HttpError('ALREADY_RESOLVED', `Request ${requestId.slice(0, 48)} of workflow ${id} is already answered`)
    if (outcome === 'busy') throw busy(id)
    return publicView((await this.store.load(id))!)
  }

  /**
   * The journal a command writes to: a workflow whose first step has not run
   * yet has none, so the command writes its start entry first (the step then
   * resumes from it, as after a crash before its first poll).
   */
  private async startEntries(row: WorkflowRow, journalLength: number): Promise<JournalEntry[]> {
    if (journalLength > 0) return []
    const program = await workflowPrograms.load(row.source, row.sourceName, this.atomsOf(row.tenant), this.compilerOf?.(row.tenant))
    return [{
      t: 'start', v: JOURNAL_VERSION, astHash: program.astHash, sourceName: program.sourceName, args: row.args,
      budget: { total: row.budget, spent: 0 }, seed: newSeed(), at: Date.now(), ...(row.retry !== undefined ? { retry: row.retry } : {}),
      ...(row.timeouts !== undefined ? { timeouts: row.timeouts } : {}), ...row.search,
    }]
  }

  async retry(tenant: string, id: string, body: { retry?: unknown }): Promise<Record<string, unknown>> {
    await this.row(tenant, id)
    let policy: RunRetryPolicy | undefined
    try {
      policy = checkRetryPolicy(body.retry, 'retry', true)
    } catch (e) {
      throw new HttpError('BAD_REQUEST', (e as Error).message)
    }
    const out = await this.store.command(id, async (row, journal) => {
      if (!row) return { result: null }
      if (row.state !== 'failed') throw new HttpError('WORKFLOW_STATE', `Workflow ${id} is ${row.state}: only a failed workflow can be retried`)
      let marker: JournalEntry
      try {
        marker = retryEntry(await journal(), Date.now(), policy)
      } catch (e) {
        throw new HttpError('WORKFLOW_STATE', `Workflow ${id} cannot be retried: ${(e as Error).message}`)
      }
      const { error: _e, result: _r, ...view } = row.view
      return { result: { ...row, state: 'running' as const, view: { ...view, requests: [] } }, append: [marker], state: 'running', view: { ...view, requests: [] }, scheduleAt: Date.now() }
    })
    if (out === 'busy') throw busy(id)
    if (out === null) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    return publicView(out)
  }

  async signal(tenant: string, id: string, body: { name: string; value?: unknown; id?: string }): Promise<Record<string, unknown>> {
    await this.row(tenant, id)
    const sigId = body.id ?? `sig-${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`
    // The duplicate check and the journal's length are keyed lookups: a signal costs the same whatever the journal's length.
    const out = await this.store.command(id, async (row, _journal, lookup) => {
      if (!row) return { result: null }
      if (ENDED_STATES.includes(row.state)) throw new HttpError('WORKFLOW_STATE', `Workflow ${id} is ${row.state}: it takes no signals`)
      if (await lookup.hasSignal(sigId)) return { result: { row, duplicate: true } }
      const signal: JournalEntry = { t: 'signal', id: sigId, name: body.name, ...(body.value !== undefined ? { payload: body.value } : {}) }
      return { result: { row: { ...row, state: 'running' as const }, duplicate: false }, append: [...await this.startEntries(row, await lookup.count()), signal], state: 'running', scheduleAt: Date.now() }
    })
    if (out === 'busy') throw busy(id)
    if (out === null) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    return { ...publicView(out.row), signal: { id: sigId, duplicate: out.duplicate } }
  }

  async cancel(tenant: string, id: string, body: { reason?: string }): Promise<Record<string, unknown>> {
    await this.row(tenant, id)
    const reason = (body.reason ?? 'cancelled').slice(0, 1000)
    const out = await this.store.command(id, async (row, _journal, lookup) => {
      if (!row) return { result: null }
      if (ENDED_STATES.includes(row.state)) throw new HttpError('WORKFLOW_STATE', `Workflow ${id} is ${row.state}: there is nothing to cancel`)
      if (await lookup.hasCancel()) return { result: row }
      return { result: { ...row, state: 'running' as const }, append: [...await this.startEntries(row, await lookup.count()), { t: 'cancel', reason }], state: 'running', scheduleAt: Date.now() }
    })
    if (out === null) throw new HttpError('NOT_FOUND', `No workflow "${id.slice(0, 48)}" for this tenant`)
    if (out === 'busy') {
      // A step holds the workflow (an agent call in progress): its next step journals the cancellation.
      await this.store.flagCancel(id, reason)
      return publicView(await this.row(tenant, id))
    }
    return publicView(out)
  }

  async query(tenant: string, id: string, name: string): Promise<Record<string, unknown>> {
    const row = await this.row(tenant, id)
    if (row.view.exposedTooLarge) throw new HttpError('NOT_FOUND', `Workflow ${id} exposed more than ${MAX_EXPOSED_BYTES} bytes of values; the server keeps none of them`)
    const exposed = row.view.exposed ?? {}
    if (!Object.hasOwn(exposed, name)) throw new HttpError('NOT_FOUND', `Workflow ${id} has not exposed "${name.slice(0, 48)}" (expose(name, value))`)
    return { id, name, value: exposed[name], state: row.state, updatedAt: row.updatedAt }
  }
}

const busy = (id: string) => new HttpError('WORKFLOW_BUSY', `Workflow ${id} is taking a step; send it again in a moment`, { retryAfter: 1 })

/** In memory (no --database): steps run on timers in this process. */
export function workflowsBackend(host: Host, distributed?: { pgPool: pg.Pool; jobs: Jobs }): WorkflowRoutesBackend {
  const atomsOf = (tenant: string) => tenantAtoms(host, tenant)
  const compilerOf = (tenant: string) => poolWorkflowCompiler(host, tenant)
  const plan = planGate(host.pool, host.tenants)
  if (distributed) return new WorkflowService(new PgWorkflowStore(distributed.pgPool), atomsOf, host.tenants, host.config.limits, compilerOf, plan)
  let driver: WorkflowDriver | undefined
  const store = new MemoryWorkflowStore((id) => driver!.step(id))
  driver = new WorkflowDriver(host, store)
  const live = driver.live
  const service = new WorkflowService(store, atomsOf, host.tenants, host.config.limits, compilerOf, plan)
  const close = service.close.bind(service)
  service.close = async () => { live.clear(); await close() }
  return service
}

/** Graphile Worker task of workflow steps (serve with --database, and ajsc worker). */
export function workflowJobTasks(host: Host, pgPool: pg.Pool): TaskList {
  const driver = new WorkflowDriver(host, new PgWorkflowStore(pgPool))
  return { [WORKFLOW_TASK]: async (payload) => driver.step((payload as { id: string }).id) }
}
