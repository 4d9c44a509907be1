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
 *
 * The class is built in layers, one concern a file: execution-types.ts (the
 * config and options), execution-journal.ts (state and journal),
 * execution-requests.ts (requests, attempts, retries), execution-signals.ts
 * (signals, cancellation, queries), execution-atoms.ts (custom atoms and
 * approvals), execution-deadline.ts (deadline, continueAsNew, completion),
 * execution-catchup.ts (following a tail another process journaled); this file is the run itself and what a host polls.
 */
import { assembleVM } from '../../host/assemble.ts'
import { defineLibrary } from '../../vm/libraries.ts'
import { LIBRARIES } from '../../ast/libraries.ts'
import { workflowAtoms, type AtomHost } from './atoms.ts'
import { journaledAtoms } from './custom-atoms.ts'
import { workflowError } from './errors.ts'
import type { JournalEntry } from './journal.ts'
import type { WorkflowPoll } from './types.ts'
import { seededRandom, seededUuid } from './random.ts'
import { utf8Length, macrotask, type ExecutionConfig } from './execution-types.ts'
import { ExecutionCatchUp } from './execution-catchup.ts'

export class WorkflowExecution extends ExecutionCatchUp {
  constructor(config: ExecutionConfig) {
    super(config)
    if (!config.journal) {
      this.append({
        t: 'start', v: 1, astHash: config.program.astHash, sourceName: config.program.sourceName,
        args: config.args, budget: { ...config.budget }, seed: config.seed, at: config.clock(),
        ...(config.retry !== undefined ? { retry: config.retry } : {}),
        ...(config.timeouts !== undefined ? { timeouts: config.timeouts } : {}),
        ...(config.previous !== undefined ? { previous: config.previous.executionId, chain: config.previous.chain } : {}),
        ...config.search,
      })
      // The start entry goes to the store before the run begins (a synchronous store has it on disk when
      // startWorkflow returns): a crash before the first poll leaves a journal that resumes from the top.
      this.flush()
    }
    this.armDeadline()
    this.run()
  }

  protected run(): void {
    const host: AtomHost = {
      request: (kind, site, input) => this.request(kind, site, input),
      call: (call) => this.call(call),
      get budget() { return self.budgetValue },
      args: this.config.args,
      attach: (run) => { this.vmRun ??= run },
      signal: (site, name, timeoutMs) => this.waitSignal(site, name, timeoutMs),
      expose: (name, value) => { this.activity++; this.exposed.set(name, structuredClone(value)) },
      patched: (id) => this.patched(id),
      upsertAttributes: (set) => this.upsertAttributes(set),
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
      ...(this.config.interrupt !== undefined ? { interrupt: this.config.interrupt } : {}),
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
   * waited for: the run is busy, not parked. `untilParked` (a catch-up):
   * events queued meanwhile do not end the wait.
   */
  protected async quiesce(untilParked = false): Promise<void> {
    let quiet = 0
    while (quiet < 2 && this.stateValue === 'running' && (untilParked || this.queue.length === 0)) {
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

  /** Let queued work run, then hand entries to the store and wait for it. */
  async settled(): Promise<void> {
    await this.quiesce()
    this.flush()
    while (this.writing) await this.writing
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

export { SANDBOX_DEFAULTS, APPROVAL_SIGNAL, inputHash, type WorkflowSandbox, type ExecutionConfig, type ExecutionState } from './execution-types.ts'
export { WorkflowError } from './errors.ts'
