/**
 * One workflow execution: a single VM run whose `agent` / `workflow` /
 * `sleep` atoms park on promises that `resolveRequest` settles, so a
 * resolution continues the run where it waits (never a re-run per
 * resolution). `poll()` reports what the run emitted, in order: a `Call`
 * (log, phase), the first undrained `Request`, `Complete`, or `Pending`.
 *
 * Everything nondeterministic passes through here and into the journal:
 * requests and their resolutions, the seed of the VM's random source, and
 * the clock reads of the VM's choke point (`now`), and the outcomes of the
 * host's custom atoms (custom-atoms.ts). A replay (replay.ts) answers
 * recorded requests and atom calls from the journal at once.
 */
import { assembleVM } from '../../host/assemble.ts'
import { defineLibrary } from '../../vm/libraries.ts'
import { LIBRARIES } from '../../ast/libraries.ts'
import { VmError, vmError, type AgentError } from '../../vm/errors.ts'
import type { AtomContext, AtomDef } from '../../vm/atoms/types.ts'
import type { Run } from '../../vm/runtime.ts'
import { workflowAtoms, type AtomHost } from './atoms.ts'
import { journaledAtoms, outcomeValue, runAtom } from './custom-atoms.ts'
import { canonicalJson, decodeResolution } from './codec.ts'
import { WorkflowError, workflowError } from './errors.ts'
import type { AtomResolution, JournalEntry, JournalLimits, JournalStore } from './journal.ts'
import { journalLimits } from './journal.ts'
import type { WorkflowProgram } from './program.ts'
import type { ReplayIndex } from './replay.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowPoll, WorkflowRequest, WorkflowRequestKind, WorkflowResolution } from './types.ts'
import { seededRandom, seededUuid } from './random.ts'
import { editedInput, needsApproval, normalizeDecision, rejectedError, type ApprovalCall, type ApprovalPolicy } from '../../codemode/approval.ts'

/** The signal name a call waiting for approval takes its decision from: `approval:<approval id>`. */
export const APPROVAL_SIGNAL = 'approval:'
import { callTimeout, type WorkflowTimeouts } from './timeouts.ts'
import { retryDelay, retryPolicyFor, shouldRetry, type RetryPolicy, type RunRetryPolicy } from './retry.ts'

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
  /** Which custom atom calls wait for approval (default: the atoms' `requiresApproval`). */
  approval?: ApprovalPolicy
  /** The run's retry policy (journaled in the start entry). */
  retry?: RunRetryPolicy
  /** The run's deadline and default request timeout (journaled in the start entry). */
  timeouts?: WorkflowTimeouts
  /** The run this one continues (continueAsNew): its execution id and this run's place in the chain. */
  previous?: { executionId: string; chain: number }
}

/** What a parked request gets: its resolution, or `retry` (the failure was journaled as an attempt). */
type Outcome = { resolution: WorkflowResolution } | { retry: true }

interface Waiter {
  request: WorkflowRequest
  key: string
  /** Its retry policy (null: never retried, e.g. a sleep) and the number of this attempt. */
  policy: Required<RetryPolicy> | null
  attempt: number
  resolve: (v: Outcome) => void
  /** The sleep request timing this attempt out (a per-request timeout), ended with the attempt. */
  timerId?: string
}

type Event = { call: WorkflowCall } | { request: WorkflowRequest }

const macrotask = (): Promise<void> => new Promise((r) => (typeof setImmediate === 'function' ? setImmediate(r) : setTimeout(r, 0)))

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

function utf8Length(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : c >= 0xd800 && c <= 0xdbff ? 1 : 1
  }
  return n
}

export type ExecutionState = 'running' | 'complete' | 'failed' | 'disposed'

export class WorkflowExecution {
  /** The id journals are stored under. */
  readonly id: string
  readonly program: WorkflowProgram
  private stateValue: ExecutionState = 'running'
  private result: unknown = null
  private failure: WorkflowError | null = null
  private readonly entries: JournalEntry[]
  private journalBytes = 0
  private readonly limits: Required<JournalLimits>
  private unflushed: JournalEntry[] = []
  private writing: Promise<void> | null = null
  private readonly queue: Event[] = []
  private readonly waiting = new Map<string, Waiter>()
  private readonly requestAborts = new Map<string, AbortController>()
  private readonly occurrences = new Map<string, number>()
  private readonly abort = new AbortController()
  private budgetValue: BudgetSnapshot
  private suppressCalls: number
  /** Counts what the run does (requests, calls, resolutions delivered, the end): see quiesce(). */
  private activity = 0
  /** The VM run (known from the first atom call): its time-slice start tells a paused run from an idle one. */
  private vmRun: Run | undefined
  private finalFuel: number | undefined
  /** Custom atom calls running now: poll() waits for them (the run is busy, not parked). */
  private atomsRunning = 0
  private atomWaiters: Array<() => void> = []
  /** A resume holds new custom atom calls until the replay is checked (a diverging replay must not call anything). */
  private replayGate: Promise<void> | null = null
  private openGate: (() => void) | null = null
  /** Signals delivered and not taken by a wait yet (FIFO), and the waits parked for one. */
  private readonly signalBuffer: Array<{ id: string; name: string; payload?: unknown }> = []
  private readonly signalWaiters: Array<{ key: string; name: string | null; timerId?: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  private readonly signalIds = new Set<string>()
  private signalCount = 0
  /** Custom atom calls waiting for approval, by approval id. */
  private readonly pendingApprovals = new Map<string, ApprovalCall>()
  /** What queries read: the last value `expose(name, value)` published per name. */
  private readonly exposed = new Map<string, unknown>()
  /** The cancellation (reason), and whether a wait has thrown it yet. */
  private cancelState: { reason: string; delivered: boolean } | null = null
  /** Patches answered true in this process (journaled once each). */
  private readonly patchesTaken = new Set<string>()
  /** Errors of steps the guest was handed (latest last): the end entry names the step whose error ended the run. */
  private readonly stepErrors: Array<{ key: string; code: string; message: string }> = []
  /** The sleep request of the run's deadline (timeouts.runMs), while it waits. */
  private deadlineId: string | null = null
  /** continueAsNew(args) was called: the run ends and the next run of the chain starts with these args. */
  private continuation: { args: unknown } | null = null

  constructor(private readonly config: ExecutionConfig) {
    this.id = config.executionId
    this.program = config.program
    this.limits = journalLimits(config.limits)
    this.budgetValue = { ...config.budget }
    this.suppressCalls = config.replay?.calls ?? 0
    this.entries = config.journal ? [...config.journal] : []
    if (config.replay) {
      this.replayGate = new Promise((r) => { this.openGate = r })
      for (const sig of config.replay.signals) this.signalIds.add(sig.id)
      this.signalBuffer.push(...config.replay.buffered())
      this.signalCount = config.replay.signals.length
      if (config.replay.cancel) this.cancelState = { ...config.replay.cancel }
      for (const id of config.replay.patches) this.patchesTaken.add(id)
    }
    for (const e of this.entries) this.journalBytes += utf8Length(JSON.stringify(e)) + 1
    if (!config.journal) {
      this.append({
        t: 'start', v: 1, astHash: config.program.astHash, sourceName: config.program.sourceName,
        args: config.args, budget: { ...config.budget }, seed: config.seed, at: config.clock(),
        ...(config.retry !== undefined ? { retry: config.retry } : {}),
        ...(config.timeouts !== undefined ? { timeouts: config.timeouts } : {}),
        ...(config.previous !== undefined ? { previous: config.previous.executionId, chain: config.previous.chain } : {}),
      })
      // The start entry goes to the store before the run begins (a synchronous store has it on disk when
      // startWorkflow returns): a crash before the first poll leaves a journal that resumes from the top.
      this.flush()
    }
    this.armDeadline()
    this.run()
  }

  /**
   * The run's deadline (timeouts.runMs after the start entry's `at`) is a
   * journaled sleep request of the engine's: the host waits for it like any
   * sleep (a resume waits only what is left); when it ends first, the run
   * fails WORKFLOW_TIMEOUT. A replay that finds it ended fails once the replay
   * is checked (the journal's steps are reached first).
   */
  private armDeadline(): void {
    const runMs = this.config.timeouts?.runMs
    if (runMs === undefined) return
    const start = this.entries[0] as Extract<JournalEntry, { t: 'start' }>
    const key = 'sleep|deadline:run|0|0'
    const id = `sleep-${inputHash(key)}`
    this.deadlineId = id
    const durationMs = Math.max(0, start.at + runMs - this.config.clock())
    this.ask(key, id, { type: 'sleep', id: '', durationMs }, null).then(() => {
      const fire = () => {
        if (this.stateValue !== 'running') return
        this.fail(workflowError('WORKFLOW_TIMEOUT', `The workflow ${this.id} ran past its deadline (timeouts.runMs: ${runMs} ms after it started)`))
      }
      if (this.replayGate) void this.replayGate.then(fire)
      else fire()
    }, () => { /* the run ended first */ })
  }

  /** A request no longer waited for (the run ended): out of the queue, its host work aborted. */
  private dropRequest(id: string): void {
    this.waiting.delete(id)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
    if (at >= 0) this.queue.splice(at, 1)
    this.requestAborts.get(id)?.abort()
  }

  /** Called by the workflow's continueAsNew(args): the VM run stops (uncatchable) and the run ends continued. */
  private continueAsNew(args: unknown): never {
    let data: unknown
    try { data = JSON.parse(JSON.stringify(args ?? {})) } catch (e) { throw vmError('ATOM_INPUT_INVALID', `continueAsNew: the args must be JSON data: ${(e as Error).message}`, { op: 'continueAsNew' }) }
    this.continuation = { args: data }
    throw vmError('ABORTED', 'continueAsNew: the run ends here and the next run of its chain starts')
  }

  /** running → complete | failed; `disposed` after dispose(). */
  get state(): ExecutionState {
    return this.stateValue
  }

  /** Fuel this execution's VM run has used so far, replay included (what a host settles its fuel ledger with). */
  get fuelUsed(): number {
    return this.finalFuel ?? this.vmRun?.fuelUsed ?? 0
  }

  /** The budget snapshot the workflow sees (updated by `OkWithBudget` resolutions). */
  get budget(): BudgetSnapshot {
    return { ...this.budgetValue }
  }

  private run(): void {
    const host: AtomHost = {
      request: (kind, site, input) => this.request(kind, site, input),
      call: (call) => this.call(call),
      get budget() { return self.budgetValue },
      args: this.config.args,
      attach: (run) => { this.vmRun ??= run },
      signal: (site, name, timeoutMs) => this.waitSignal(site, name, timeoutMs),
      expose: (name, value) => { this.activity++; this.exposed.set(name, structuredClone(value)) },
      patched: (id) => this.patched(id),
      continueAsNew: (args) => this.continueAsNew(args),
    }
    const self = this
    const custom = journaledAtoms(this.config.atoms ?? [], {
      callAtom: (def, input, site, ctx, options) => this.callAtom(def, input, site, ctx, options),
      attach: host.attach,
    })
    // The workflow library is this execution's own: its atoms write to this run's journal.
    const workflow = defineLibrary({ name: 'workflow', version: LIBRARIES.workflow.version, atoms: workflowAtoms(host) })
    const vm = assembleVM({ atoms: custom, libraries: [workflow] })
    const random = seededRandom(this.config.seed)
    const { fuel, timeoutMs, maxHeapBytes } = this.config.sandbox
    vm.run(this.program.ast, { args: this.config.args }, {
      fuel, timeoutMs, maxHeapBytes, signal: this.abort.signal,
      ...(this.config.context !== undefined ? { context: this.config.context } : {}),
      random, uuid: seededUuid(random), now: () => this.clockRead(),
    }).then((r) => {
      this.finalFuel = r.fuelUsed
      this.activity++
      if (this.stateValue !== 'running') return
      if (this.continuation) this.complete(null)
      else if (r.error && r.error.code === 'WORKFLOW_CANCELLED') this.fail(workflowError('WORKFLOW_CANCELLED', `The workflow was cancelled (${this.cancelState?.reason ?? ''})`, { cause: r.error }), r.error)
      else if (r.error) this.fail(workflowError('WORKFLOW_FAILED', `${r.error.code}: ${r.error.message}${r.error.location ? ` (${r.error.location})` : ''}`, { cause: r.error }), r.error)
      else this.complete(r.result ?? null)
    })
  }

  private complete(result: unknown): void {
    this.stateValue = 'complete'
    this.result = result
    if (this.deadlineId && this.waiting.has(this.deadlineId)) {
      // Journaled as ended, so the journal shows nothing in flight (a replay settles it and the run is already over).
      if (!this.config.replay?.ended) this.append({ t: 'resolution', id: this.deadlineId, resolution: 'OkUndefined' })
      this.dropRequest(this.deadlineId)
    }
    if (this.continuation) {
      // Requests of other branches still in flight are abandoned with the run.
      for (const id of [...this.waiting.keys()]) this.dropRequest(id)
      for (let i = this.queue.length - 1; i >= 0; i--) if ('request' in this.queue[i]!) this.queue.splice(i, 1)
    }
    if (!this.config.replay?.ended) {
      this.append(this.continuation ? { t: 'end', result, continueAsNew: { args: this.continuation.args, budget: { ...this.budgetValue } } } : { t: 'end', result })
    }
  }

  /** continueAsNew(args) ended the run: the args of the next run of its chain (null otherwise). */
  get continuedAsNew(): { args: unknown } | null {
    return this.continuation && { args: structuredClone(this.continuation.args) }
  }

  private fail(err: WorkflowError, cause?: AgentError): void {
    if (this.stateValue !== 'running') return
    this.stateValue = 'failed'
    this.failure = err
    for (let i = this.queue.length - 1; i >= 0; i--) if ('request' in this.queue[i]!) this.queue.splice(i, 1)
    for (const c of this.requestAborts.values()) c.abort(err)
    this.waiting.clear()
    if (!this.config.replay?.ended) {
      const error = cause ?? { name: 'AgentError', code: err.code, message: err.message }
      const step = [...this.stepErrors].reverse().find((s) => s.code === error.code && s.message === error.message)?.key
      try { this.append({ t: 'end', error, ...(step !== undefined ? { step } : {}) }) } catch { /* over the limit: the failure stands */ }
    }
    this.abort.abort(err)
    for (const wake of this.atomWaiters.splice(0)) wake()
  }

  /** Record an entry (limits checked first); the store gets it at the next flush. */
  private append(entry: JournalEntry): void {
    const bytes = utf8Length(JSON.stringify(entry)) + 1
    const { maxEntries, maxEntryBytes, maxJournalBytes } = this.limits
    const over = this.entries.length >= maxEntries ? `more than ${maxEntries} entries (limits.maxEntries)`
      : bytes > maxEntryBytes ? `an entry of ${bytes} bytes (limits.maxEntryBytes ${maxEntryBytes})`
        : this.journalBytes + bytes > maxJournalBytes ? `more than ${maxJournalBytes} bytes (limits.maxJournalBytes)` : null
    if (over) {
      const err = workflowError('JOURNAL_LIMIT', `The journal of ${this.id} would hold ${over}`, { entry: this.entries.length })
      if (entry.t !== 'end') queueMicrotask(() => this.fail(err))
      throw err
    }
    this.entries.push(entry)
    this.journalBytes += bytes
    this.unflushed.push(entry)
  }

  /** Hand unflushed entries to the store (in order); async stores are awaited by poll(). */
  private flush(): void {
    if (this.unflushed.length === 0 || !this.config.store) { this.unflushed = []; return }
    const batch = this.unflushed
    this.unflushed = []
    const store = this.config.store
    const write = () => store.append(this.id, batch)
    if (this.writing) { this.track(this.writing.then(write)); return }
    const r = write()
    if (r && typeof (r as Promise<void>).then === 'function') this.track(r as Promise<void>)
  }

  /**
   * Make `write` the store write poll() waits for. Only the latest write clears
   * it (an earlier one finishing must not hide a later one still in flight). A
   * failed write stays, so every later poll() reports it; it is marked handled
   * because the first write starts in startWorkflow, before anyone polls.
   */
  private track(write: Promise<void>): void {
    const tracked: Promise<void> = write.then(() => { if (this.writing === tracked) this.writing = null })
    tracked.catch(() => {})
    this.writing = tracked
  }

  private clockRead(): number {
    const recorded = this.config.replay?.nextClock()
    if (recorded !== undefined) return recorded
    const value = this.config.clock()
    this.append({ t: 'now', value })
    return value
  }

  private call(call: WorkflowCall): void {
    this.activity++
    if (this.suppressCalls > 0) { this.suppressCalls--; return }
    this.append({ t: 'call', call })
    this.queue.push({ call })
  }

  /** A step's identity: kind, call site, input hash and occurrence (the same in every replay). */
  private stepKey(kind: string, site: string, input: unknown): string {
    const base = `${kind}|${site}|${inputHash(canonicalJson(input))}`
    const n = this.occurrences.get(base) ?? 0
    this.occurrences.set(base, n + 1)
    return `${base}|${n}`
  }

  /**
   * A custom atom call that needs approval (code mode) first waits for the
   * signal `approval:<id>`: the wait is journaled like any signal wait, so the
   * pause outlives the process and a replay hands it the same decision. While
   * it waits, the call is listed by approvals() and the `approvals` query.
   */
  private callAtom(def: AtomDef, input: Record<string, unknown>, site: string, ctx: AtomContext, options?: unknown): unknown {
    if (!needsApproval(def, input, this.config.approval)) return this.callAtomNow(def, input, site, ctx, options)
    const id = `approval-${inputHash(this.stepKey(`approval:${def.op}`, site, input))}`
    const mcp = (def as { mcp?: { server: string; tool: string } }).mcp
    this.pendingApprovals.set(id, { id, op: def.op, input: structuredClone(input), site, ...(mcp ? { mcp: { server: mcp.server, tool: mcp.tool } } : {}) })
    this.publishApprovals()
    return this.waitSignal(site, `${APPROVAL_SIGNAL}${id}`, undefined).then((payload) => {
      this.pendingApprovals.delete(id)
      this.publishApprovals()
      let decision: ReturnType<typeof normalizeDecision>
      try {
        decision = normalizeDecision(payload)
      } catch (e) {
        throw vmError('ATOM_INPUT_INVALID', `${def.op}: ${(e as Error).message}`, { op: def.op })
      }
      if (!decision.approve) throw rejectedError(def.op, decision.reason)
      return this.callAtomNow(def, decision.input ? editedInput(def, decision.input) : input, site, ctx, options)
    }, (e: unknown) => {
      this.pendingApprovals.delete(id)
      this.publishApprovals()
      throw e
    })
  }

  /** The calls waiting for approval, for queries (`approvals`): kept once any call has waited. */
  private publishApprovals(): void {
    this.activity++
    this.exposed.set('approvals', [...this.pendingApprovals.values()].map((a) => structuredClone(a)))
  }

  /** Calls of atoms waiting for approval: answer each with approve(id, input?) or reject(id, reason?). */
  approvals(): ApprovalCall[] {
    return [...this.pendingApprovals.values()].map((a) => structuredClone(a))
  }

  /** Approve a waiting call (with edited input: checked against the atom's schema). Journaled as the signal `approval:<id>`; false if already answered. */
  approve(id: string, input?: Record<string, unknown>): boolean {
    return this.signal(`${APPROVAL_SIGNAL}${id}`, { approve: true, ...(input !== undefined ? { input } : {}) }, `${APPROVAL_SIGNAL}${id}`)
  }

  /** Reject a waiting call: it throws APPROVAL_REJECTED in the workflow (catchable). */
  reject(id: string, reason?: string): boolean {
    return this.signal(`${APPROVAL_SIGNAL}${id}`, { approve: false, ...(reason !== undefined ? { reason } : {}) }, `${APPROVAL_SIGNAL}${id}`)
  }

  /** A custom atom call: the journaled outcome, or the atom run and its outcome journaled (custom-atoms.ts). */
  private callAtomNow(def: AtomDef, input: Record<string, unknown>, site: string, ctx: AtomContext, options?: unknown): unknown {
    this.activity++
    let key = this.stepKey(`atom:${def.op}`, site, input)
    const replayed = this.config.replay?.atom(key)
    if (replayed) key = replayed.key
    const done = this.config.replay?.attempts.get(key)
    if (replayed) {
      this.config.replay!.consume(replayed)
      if (!done) return this.stepOutcome(key, replayed)
      // Retried before it got this outcome: its journaled waits replay first.
      return this.replayBackoffs(`atom-${inputHash(key)}`, done.total).then(() => this.stepOutcome(key, replayed))
    }
    let policy: Required<RetryPolicy>
    try {
      policy = retryPolicyFor('atom', this.config.retry, (options as { retry?: unknown } | undefined)?.retry)
    } catch (e) {
      throw vmError('ATOM_INPUT_INVALID', (e as Error).message, { op: def.op })
    }
    if (!done) this.config.replay?.fresh.push(key)
    return this.runFresh(def, input, key, ctx, policy, done?.total ?? 0, done?.since ?? 0)
  }

  /** The guest's value of a journaled outcome; an error is remembered as a step error (see fail()). */
  private stepOutcome(key: string, o: { resolution?: AtomResolution; error?: AgentError }): unknown {
    if (o.error !== undefined) this.stepErrors.push({ key, code: o.error.code, message: o.error.message })
    return outcomeValue(o)
  }

  private async runFresh(def: AtomDef, input: Record<string, unknown>, key: string, ctx: AtomContext, policy: Required<RetryPolicy>, total: number, since: number): Promise<unknown> {
    const stepId = `atom-${inputHash(key)}`
    // Waits of attempts that failed before: journaled sleeps, replayed (the last one may still be running).
    await this.replayBackoffs(stepId, total)
    for (;;) {
      if (this.replayGate) await this.replayGate
      if (ctx.signal.aborted) throw ctx.signal.reason
      this.atomsRunning++
      let outcome: Awaited<ReturnType<typeof runAtom>>
      let retry = false
      try {
        outcome = await runAtom(def, input, ctx)
        // Cancelled (the run stopped, a parallel sibling failed): the guest never sees it, so it is not journaled.
        if (ctx.signal.aborted || this.stateValue !== 'running') throw ctx.signal.reason ?? vmError('ABORTED')
        if ('error' in outcome) {
          const inner = (outcome.error.value as { code?: unknown } | undefined)?.code
          const codes = [outcome.error.code, ...(typeof inner === 'string' ? [inner] : [])]
          retry = shouldRetry(policy, since + 1, codes)
        }
        if (retry) {
          const error = outcome as { error: AgentError }
          this.append({ t: 'attempt', key, attempt: since + 1, error: { code: error.error.code, message: error.error.message } })
        } else this.append({ t: 'atom', key, op: def.op, ...outcome })
        this.flush()
      } finally {
        this.atomsRunning--
        this.activity++
        for (const wake of this.atomWaiters.splice(0)) wake()
      }
      // The workflow continues only once the outcome is durable: nothing it does next can be journaled without it.
      // A failed write parks the call; poll() reports the store's error.
      try { while (this.writing) await this.writing } catch { await new Promise(() => {}) }
      if (!retry) return this.stepOutcome(key, outcome)
      since++
      total++
      await this.backoff(stepId, total, retryDelay(policy, since))
    }
  }

  /** The replay against a new program matched the journal: the run continues on it (journaled). */
  upgraded(astHash: string): void {
    this.append({ t: 'upgrade', astHash, at: this.config.clock() })
    this.flush()
  }

  /** The replay was checked (resumeWorkflow): custom atom calls the journal does not have may run now. */
  replayChecked(): void {
    this.openGate?.()
    this.replayGate = null
  }

  private request(kind: WorkflowRequestKind, site: string, input: Record<string, unknown>): Promise<unknown> {
    this.activity++
    let policy: Required<RetryPolicy> | null = null
    let timeoutMs: number | undefined
    if (kind !== 'sleep') {
      try {
        policy = retryPolicyFor(kind, this.config.retry, ((input as { options?: { retry?: unknown } }).options ?? undefined)?.retry)
        timeoutMs = callTimeout((input as { options?: unknown }).options) ?? this.config.timeouts?.requestMs
      } catch (e) {
        return Promise.reject(vmError('ATOM_INPUT_INVALID', (e as Error).message, { op: kind }))
      }
    }
    let key = this.stepKey(kind, site, input)
    let id = `${kind}-${inputHash(key)}`
    const old = this.config.replay?.relaxed ? this.config.replay.request(key) : undefined
    if (old) { key = old.key; id = old.request.id } // an upgrade: the journaled step, at its old call site
    if (this.cancelState && !this.cancelState.delivered && !this.config.replay?.byKey.has(key)) {
      // Cancelled while no wait was parked: this wait throws it (journaled as the request and its cancelled resolution).
      this.cancelState.delivered = true
      const request = { type: kind, ...input, id } as WorkflowRequest
      this.append({ t: 'request', key, request })
      const resolution: WorkflowResolution = { Err: { message: `cancelled: ${this.cancelState.reason}`, code: 'WORKFLOW_CANCELLED' } }
      this.append({ t: 'resolution', id, resolution })
      return this.settle(resolution, key)
    }
    return this.ask(key, id, { type: kind, ...input } as WorkflowRequest, policy, timeoutMs)
  }

  /** `await signal(name, timeoutMs?)`: a buffered signal, or park until one is sent (or the timeout, or a cancel). */
  private waitSignal(site: string, name: string | null, timeoutMs: number | undefined): Promise<unknown> {
    this.activity++
    let key = this.stepKey('signal', site, { name })
    const journaled = this.config.replay?.wait(key)
    if (journaled) key = journaled.key
    const waitId = `signal-${inputHash(key)}`
    const timerKey = `sleep|timeout:${waitId}|1|0`
    const timer = (): Promise<unknown> => this.ask(timerKey, `sleep-${inputHash(timerKey)}`, { type: 'sleep', id: '', durationMs: timeoutMs ?? 0 }, null)
    if (journaled) {
      this.config.replay!.consume(journaled)
      // The timer (if any) was journaled and resolved (by its end, or when the signal came): replay it too.
      const after = timeoutMs !== undefined && this.config.replay!.byKey.has(timerKey) ? timer() : Promise.resolve()
      if (journaled.cancelled) return after.then(() => { throw this.cancelError() })
      if (journaled.timeout) return after.then(() => null)
      const sig = this.config.replay!.signals.find((x) => x.id === journaled.signal)
      return after.then(() => structuredClone(sig?.payload ?? null))
    }
    if (this.cancelState && !this.cancelState.delivered) {
      this.cancelState.delivered = true
      this.append({ t: 'wait', key, cancelled: true })
      return Promise.reject(this.cancelError())
    }
    const timerJournaled = timeoutMs !== undefined ? this.config.replay?.byKey.get(timerKey) : undefined
    const at = timerJournaled?.resolution !== undefined ? -1 : this.signalBuffer.findIndex((x) => (name === null ? !x.name.startsWith(APPROVAL_SIGNAL) : x.name === name))
    if (at >= 0) {
      // The wait parked with its timer, then the signal was journaled (by another writer): the timer ends with the wait.
      if (timerJournaled) {
        this.config.replay!.consume(timerJournaled)
        this.append({ t: 'resolution', id: timerJournaled.request.id, resolution: 'OkUndefined' })
      }
      const [sig] = this.signalBuffer.splice(at, 1)
      this.append({ t: 'wait', key, signal: sig!.id })
      return Promise.resolve(structuredClone(sig!.payload ?? null))
    }
    return new Promise((resolve, reject) => {
      const waiter: (typeof this.signalWaiters)[number] = { key, name, resolve, reject }
      this.signalWaiters.push(waiter)
      if (timeoutMs !== undefined) {
        waiter.timerId = `sleep-${inputHash(timerKey)}`
        timer().then(() => {
          const i = this.signalWaiters.indexOf(waiter)
          if (i < 0) return // a signal (or a cancel) came first
          this.signalWaiters.splice(i, 1)
          this.append({ t: 'wait', key, timeout: true })
          this.activity++
          resolve(null)
        }, () => { /* cancelled with the wait */ })
      }
    })
  }

  private cancelError(): VmError {
    return new VmError('WORKFLOW_CANCELLED', `cancelled: ${this.cancelState?.reason ?? ''}`)
  }

  /**
   * Send the workflow a signal: journaled, then handed to the first wait for
   * its name, or buffered until one asks. `id` makes sending idempotent (a
   * signal whose id the journal has is ignored; returns false).
   */
  signal(name: string, payload?: unknown, id?: string): boolean {
    this.usable()
    if (typeof name !== 'string' || name.length === 0 || name.length > 200) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'A signal name is a non-empty string (at most 200 characters)')
    if (this.stateValue !== 'running') throw workflowError('WORKFLOW_OPTIONS_INVALID', `Execution ${this.id} has ended (${this.stateValue}): it takes no signals`)
    const sigId = id ?? `sig-${++this.signalCount}-${inputHash(`${name}|${this.config.clock()}|${Math.random()}`).slice(0, 8)}`
    if (this.signalIds.has(sigId)) return false
    let data: unknown
    try { data = payload === undefined ? undefined : JSON.parse(JSON.stringify(payload)) } catch (e) { throw workflowError('WORKFLOW_OPTIONS_INVALID', `A signal payload must be JSON data: ${(e as Error).message}`) }
    this.append({ t: 'signal', id: sigId, name, ...(data !== undefined ? { payload: data } : {}) })
    this.deliverSignal(sigId, name, data)
    return true
  }

  /** A journaled signal handed to the first wait for its name, or buffered. */
  private deliverSignal(sigId: string, name: string, data: unknown): void {
    this.signalIds.add(sigId)
    this.activity++
    // `signal()` (any name) never takes an approval: only the call waiting for it does.
    const w = this.signalWaiters.findIndex((x) => (x.name === null ? !name.startsWith(APPROVAL_SIGNAL) : x.name === name))
    if (w < 0) { this.signalBuffer.push({ id: sigId, name, ...(data !== undefined ? { payload: data } : {}) }); return }
    const [waiter] = this.signalWaiters.splice(w, 1)
    this.append({ t: 'wait', key: waiter!.key, signal: sigId })
    this.endTimer(waiter!.timerId)
    waiter!.resolve(structuredClone(data ?? null))
  }

  /** Entries in the journal (the store holds as many once a step is settled). */
  get entryCount(): number {
    return this.entries.length
  }

  /**
   * Entries another writer appended to this run's journal in the store since
   * this execution's last one (an external request's answer, a signal, a
   * cancellation: what a host's commands journal while no step runs), applied
   * as if they had been made here and not journaled again; what follows from
   * them (a wait taking the signal, cancelled requests) is journaled as usual.
   * Returns false, applying nothing, when an entry is of another kind or does
   * not fit the live state: the host replays the journal instead.
   */
  absorb(entries: readonly JournalEntry[]): boolean {
    this.usable()
    if (this.stateValue !== 'running') return entries.length === 0
    for (const e of entries) {
      if (e.t === 'signal') { if (this.signalIds.has(e.id)) return false; continue }
      if (e.t === 'cancel') continue
      if (e.t !== 'resolution') return false
      const w = this.waiting.get(e.id)
      const options = w?.request.type === 'agent' ? w.request.options as { external?: unknown } | undefined : undefined
      if (!w || options?.external !== true || entries.filter((x) => x.t === 'resolution' && x.id === e.id).length > 1) return false
    }
    for (const e of entries) {
      this.entries.push(e)
      this.journalBytes += utf8Length(JSON.stringify(e)) + 1
      if (e.t === 'signal') this.deliverSignal(e.id, e.name, e.payload)
      else if (e.t === 'cancel') { if (!this.cancelState) this.applyCancel(e.reason) }
      else if (e.t === 'resolution') this.settleWaiting(e.id, e.resolution)
    }
    return true
  }

  /** A parked request answered (journaled already): its wait resumes. */
  private settleWaiting(id: string, resolution: WorkflowResolution): void {
    const w = this.waiting.get(id)!
    this.waiting.delete(id)
    this.endTimer(w.timerId)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
    if (at >= 0) this.queue.splice(at, 1)
    this.activity++
    this.requestAborts.delete(id)
    w.resolve({ resolution })
  }

  /** A signal wait's timer that is no longer needed: resolved now (journaled), so a replay finds it settled. */
  private endTimer(timerId: string | undefined): void {
    const t = timerId === undefined ? undefined : this.waiting.get(timerId)
    if (!t) return
    this.append({ t: 'resolution', id: timerId!, resolution: 'OkUndefined' })
    this.waiting.delete(timerId!)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === timerId)
    if (at >= 0) this.queue.splice(at, 1)
    this.requestAborts.get(timerId!)?.abort()
    t.resolve({ resolution: 'OkUndefined' })
  }

  /**
   * Cancel the run: journaled; the wait it is parked on (requests in flight,
   * a signal wait, a retry's wait) throws WORKFLOW_CANCELLED, or the next one
   * does if none is parked. `try/finally` (and `catch`) in the workflow run and
   * may still call agents for cleanup; an uncaught cancellation ends the run
   * `cancelled` (poll() throws WORKFLOW_CANCELLED). Requests in flight get
   * their `requestSignal(id)` aborted. Returns false when already cancelled.
   */
  cancel(reason = 'cancelled'): boolean {
    this.usable()
    if (this.stateValue !== 'running' || this.cancelState) return false
    this.append({ t: 'cancel', reason: String(reason).slice(0, 1000) })
    this.applyCancel(reason)
    return true
  }

  /** A journaled cancellation: the parked waits throw it (journaled), or the next wait does. */
  private applyCancel(reason: string): void {
    this.cancelState = { reason: String(reason).slice(0, 1000), delivered: false }
    this.activity++
    this.deliverCancel()
  }

  /**
   * A cancellation not delivered yet goes to the waits parked now (a resume
   * whose journal ends with a `cancel` entry calls this once the replay is
   * checked: the requests in flight then throw it).
   */
  deliverCancel(): void {
    if (!this.cancelState || this.cancelState.delivered || this.stateValue !== 'running') return
    const err = this.cancelError()
    for (const w of this.signalWaiters.splice(0)) {
      this.cancelState.delivered = true
      this.append({ t: 'wait', key: w.key, cancelled: true })
      this.endTimer(w.timerId)
      w.reject(err)
    }
    for (const [id, w] of [...this.waiting]) {
      if (id === this.deadlineId || !this.waiting.has(id)) continue // the deadline still holds for the cleanup
      this.cancelState.delivered = true
      const resolution: WorkflowResolution = { Err: { message: err.message, code: 'WORKFLOW_CANCELLED' } }
      this.append({ t: 'resolution', id, resolution })
      this.waiting.delete(id)
      const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
      if (at >= 0) this.queue.splice(at, 1)
      this.requestAborts.get(id)?.abort(err)
      w.resolve({ resolution })
    }
  }

  /** Aborted when the request is cancelled (or no longer needed): pass it to the work that answers the request. */
  requestSignal(id: string): AbortSignal {
    let c = this.requestAborts.get(id)
    if (!c) this.requestAborts.set(id, (c = new AbortController()))
    if (!this.waiting.has(id)) c.abort()
    return c.signal
  }

  /** A query: the value the workflow last exposed under `name` (undefined when none), or every exposed value. */
  query(name?: string): unknown {
    if (name === undefined) return Object.fromEntries([...this.exposed].map(([k, v]) => [k, structuredClone(v)]))
    return structuredClone(this.exposed.get(name))
  }

  /** Cancelled (and the reason), for hosts and summaries. */
  get cancelled(): string | null {
    return this.cancelState?.reason ?? null
  }

  /**
   * `patched(id)`: true when the run takes the new code path. A run that
   * journaled the patch takes it; a replay still inside its journal (steps
   * it has not reached yet) was written by the old code: false; otherwise
   * (new runs, and old runs past the end of their journal) true, journaled.
   */
  private patched(id: string): boolean {
    this.activity++
    if (this.patchesTaken.has(id)) return true
    if (this.config.replay && this.config.replay.unconsumed > 0) return false
    this.patchesTaken.add(id)
    this.append({ t: 'patch', id })
    return true
  }

  /**
   * One step the host answers: the journaled resolution, or the request
   * emitted (journaled when new) and parked; a failure its policy retries is
   * journaled as an attempt, waited out with a journaled sleep, and asked again.
   */
  private ask(key: string, id: string, base: WorkflowRequest, policy: Required<RetryPolicy> | null, timeoutMs?: number): Promise<unknown> {
    const replayed = this.config.replay?.byKey.get(key)
    let request = { ...base, id } as WorkflowRequest
    const done = this.config.replay?.attempts.get(key) ?? { total: 0, since: 0 }
    if (replayed) {
      this.config.replay!.consume(replayed)
      const resolution = replayed.resolution
      // Timers of attempts that ended are journaled and resolved: reached here (the one in flight is asked again).
      this.consumeTimers(id, resolution !== undefined ? done.total + 1 : done.total)
      if (resolution !== undefined) {
        if (done.total === 0) return this.settle(resolution, key)
        return this.replayBackoffs(id, done.total).then(() => this.settle(resolution, key))
      }
      // In flight when the journal ended: asked again (at-least-once); a sleep waits only what is left.
      if (request.type === 'sleep' && replayed.wakeAt !== undefined) request = { ...request, durationMs: Math.max(0, replayed.wakeAt - this.config.clock()) }
    } else {
      this.config.replay?.fresh.push(key)
      this.append(request.type === 'sleep'
        ? { t: 'request', key, request, wakeAt: this.config.clock() + request.durationMs }
        : { t: 'request', key, request })
    }
    // The request is queued synchronously (in call order) unless waits of failed attempts replay first.
    const emit = (): Promise<unknown> => this.attempts(key, id, request, policy, done.total, done.since, timeoutMs)
    return done.total === 0 ? emit() : this.replayBackoffs(id, done.total).then(emit)
  }

  /** Park the request until it is resolved; a failure its policy retries is waited out and asked again. */
  private async attempts(key: string, id: string, request: WorkflowRequest, policy: Required<RetryPolicy> | null, total: number, since: number, timeoutMs?: number): Promise<unknown> {
    for (;;) {
      const n = total + 1
      const outcome = await new Promise<Outcome>((resolve) => {
        const w: Waiter = { request, key, policy, attempt: since + 1, resolve }
        this.waiting.set(id, w)
        this.queue.push({ request })
        if (timeoutMs !== undefined) this.armRequestTimer(w, id, n, timeoutMs)
      })
      if ('resolution' in outcome) return this.settle(outcome.resolution, key)
      since++
      total++
      await this.backoff(id, total, retryDelay(policy!, since))
    }
  }

  /**
   * A per-request timeout: attempt n of request `id` waits at most `ms`
   * (a journaled sleep request of the engine's, key `sleep|timeout:<id>|<n>|0`).
   * If it ends first, the attempt fails TIMEOUT (retried by the default policy)
   * and the host's work is aborted (requestSignal); an answer first ends it.
   */
  private armRequestTimer(w: Waiter, id: string, n: number, ms: number): void {
    const key = `sleep|timeout:${id}|${n}|0`
    const timerId = `sleep-${inputHash(key)}`
    w.timerId = timerId
    this.ask(key, timerId, { type: 'sleep', id: '', durationMs: ms }, null).then(() => {
      if (this.waiting.get(id) !== w || this.stateValue !== 'running') return // answered first
      const c = this.requestAborts.get(id)
      const message = `${w.request.type} request timed out after ${ms} ms (timeoutMs)`
      this.resolveRequest(id, { Err: { message, code: 'TIMEOUT' } })
      c?.abort(vmError('TIMEOUT', message))
    }, () => { /* cancelled with the run */ })
  }

  /** Replay: the journaled timers of attempts 1..upto of request `id` that ended are reached. */
  private consumeTimers(id: string, upto: number): void {
    const replay = this.config.replay
    if (!replay) return
    for (let n = 1; n <= upto; n++) {
      const t = replay.byKey.get(`sleep|timeout:${id}|${n}|0`)
      if (t && t.resolution !== undefined) replay.consume(t)
    }
  }

  /** The journaled waits of a step's failed attempts, in order (a replay; the last one may still be running). */
  private async replayBackoffs(id: string, total: number): Promise<void> {
    for (let n = 1; n <= total; n++) await this.backoff(id, n, 0)
  }

  /** The wait before attempt n + 1 of step `id`: a journaled sleep (its key names the step and the attempt). */
  private backoff(id: string, n: number, durationMs: number): Promise<unknown> {
    const key = `sleep|retry:${id}|${n}|0`
    return this.ask(key, `sleep-${inputHash(key)}`, { type: 'sleep', id: '', durationMs }, null)
  }

  /** Apply a resolution: the value (or the error) the parked atom returns. */
  private settle(resolution: WorkflowResolution, key: string): Promise<unknown> {
    this.activity++
    if (resolution === 'OkUndefined') return Promise.resolve(undefined)
    if ('Ok' in resolution) return Promise.resolve(resolution.Ok)
    if ('OkWithBudget' in resolution) {
      this.budgetValue = { ...resolution.OkWithBudget.budget }
      return Promise.resolve(resolution.OkWithBudget.value)
    }
    if (resolution.Err.code === 'WORKFLOW_CANCELLED') return Promise.reject(new VmError('WORKFLOW_CANCELLED', resolution.Err.message))
    // The guest's `catch (e)` sees the host's message as is.
    this.stepErrors.push({ key, code: 'CAPABILITY_ERROR', message: resolution.Err.message })
    return Promise.reject(vmError('CAPABILITY_ERROR', resolution.Err.message))
  }

  private usable(): void {
    if (this.stateValue === 'disposed') throw workflowError('WORKFLOW_DISPOSED', `Execution ${this.id} was disposed`)
  }

  /** The next event: a Call, the first undrained Request, Complete, or Pending. Throws WorkflowError when the workflow failed. */
  async poll(): Promise<WorkflowPoll> {
    this.usable()
    if (this.queue.length === 0 && this.stateValue === 'running') await this.quiesce()
    this.flush()
    while (this.writing) await this.writing
    const head = this.queue[0]
    if (head && 'call' in head) { this.queue.shift(); return { Call: head.call } }
    if (this.failure) throw this.failure
    if (head) return { Request: head.request }
    if (this.stateValue === 'complete') return { Complete: this.continuation ? { result: this.result, continueAsNew: { args: structuredClone(this.continuation.args) } } : { result: this.result } }
    return 'Pending'
  }

  /**
   * Wait until the run is parked on requests (or has ended or emitted
   * something). After a resolution the run continues in microtasks, and a
   * long one also pauses between the VM's 10 ms time slices (a macrotask
   * queued by the VM). Two event-loop turns in a row in which the run did
   * nothing mean it is parked: a pause queued before our turn resumes before
   * our next one and starts a new slice. Before the first atom call the run
   * is not known yet; then a turn counts as quiet only if it was quick (a
   * running slice takes >= 10 ms). A custom atom call in progress is
   * waited for: the run is busy, not parked.
   */
  private async quiesce(): Promise<void> {
    let quiet = 0
    while (quiet < 2 && this.stateValue === 'running' && this.queue.length === 0) {
      if (this.atomsRunning > 0) {
        await new Promise<void>((r) => this.atomWaiters.push(r))
        quiet = 0
        continue
      }
      const before = this.activity
      const slice = this.vmRun?.sliceStart
      const t0 = performance.now()
      await macrotask()
      const idle = this.vmRun !== undefined && slice !== undefined ? this.vmRun.sliceStart === slice : performance.now() - t0 < 2
      quiet = this.activity === before && idle ? quiet + 1 : 0
    }
  }

  /** Drain every queued, unresolved request (their promises stay parked until resolveRequest). */
  takePendingRequests(): WorkflowRequest[] {
    this.usable()
    this.flush()
    const out: WorkflowRequest[] = []
    for (let i = 0; i < this.queue.length;) {
      const e = this.queue[i]!
      if ('request' in e) { out.push(e.request); this.queue.splice(i, 1) } else i++
    }
    return out
  }

  /** Resolve or reject a pending request by id (an unknown id throws WORKFLOW_UNKNOWN_REQUEST). */
  resolveRequest(id: string, resolution: WorkflowResolution | unknown): void {
    this.usable()
    const decoded = decodeResolution(resolution)
    const w = typeof id === 'string' ? this.waiting.get(id) : undefined
    if (!w) throw workflowError('WORKFLOW_UNKNOWN_REQUEST', `No pending request has the id ${JSON.stringify(id)}`)
    const err = typeof decoded === 'object' && 'Err' in decoded ? decoded.Err : null
    const retry = err !== null && w.policy !== null && shouldRetry(w.policy, w.attempt, err.code === undefined ? [] : [err.code], err.transient === true)
    if (retry) {
      this.append({ t: 'attempt', key: w.key, id, attempt: w.attempt, error: { ...(err.code !== undefined ? { code: err.code } : {}), message: err.message } })
    } else this.append({ t: 'resolution', id, resolution: decoded })
    this.waiting.delete(id)
    this.endTimer(w.timerId)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
    if (at >= 0) this.queue.splice(at, 1)
    this.activity++
    this.requestAborts.delete(id)
    w.resolve(retry ? { retry: true } : { resolution: decoded })
  }

  /** Ids of requests emitted and not resolved yet (drained or not). */
  pendingRequestIds(): string[] {
    return [...this.waiting.keys()]
  }

  /** The journal so far (a copy). */
  journal(): JournalEntry[] {
    return structuredClone(this.entries)
  }

  /** Let queued work run, then hand entries to the store and wait for it. */
  async settled(): Promise<void> {
    await this.quiesce()
    this.flush()
    while (this.writing) await this.writing
  }

  /** The error that ended the workflow, if it failed. */
  get error(): WorkflowError | null {
    return this.failure
  }

  /** Stop the run (its waiting requests are dropped); the journal stays usable for a resume. */
  dispose(): void {
    if (this.stateValue === 'disposed') return
    this.flush()
    this.stateValue = 'disposed'
    this.waiting.clear()
    this.abort.abort(workflowError('WORKFLOW_DISPOSED', `Execution ${this.id} was disposed`))
    for (const wake of this.atomWaiters.splice(0)) wake()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}

export { WorkflowError }
