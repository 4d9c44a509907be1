/**
 * The state of one workflow execution and its journal: the fields every part
 * of the execution shares, appending entries (with the journal's limits),
 * flushing them to the store, the run's failure, clock reads, calls and step
 * identities. The base of the WorkflowExecution class chain (execution.ts).
 */
import type { AgentError } from '../../vm/errors.ts'
import type { Run } from '../../vm/runtime.ts'
import { canonicalJson } from './codec.ts'
import { WorkflowError, workflowError } from './errors.ts'
import { type JournalEntry, type JournalLimits, journalLimits } from './journal.ts'
import type { WorkflowProgram } from './program.ts'
import type { BudgetSnapshot, WorkflowCall } from './types.ts'
import type { ApprovalCall } from '../../codemode/approval.ts'
import type { SearchAttributes } from './search.ts'
import { inputHash, utf8Length, type ExecutionConfig, type ExecutionState, type Waiter, type Event } from './execution-types.ts'

export abstract class ExecutionBase {
  /** The id journals are stored under. */
  readonly id: string
  readonly program: WorkflowProgram
  protected stateValue: ExecutionState = 'running'
  protected result: unknown = null
  protected failure: WorkflowError | null = null
  protected readonly entries: JournalEntry[]
  protected journalBytes = 0
  protected readonly limits: Required<JournalLimits>
  protected unflushed: JournalEntry[] = []
  protected writing: Promise<void> | null = null
  protected readonly queue: Event[] = []
  protected readonly waiting = new Map<string, Waiter>()
  protected readonly requestAborts = new Map<string, AbortController>()
  protected readonly occurrences = new Map<string, number>()
  protected readonly abort = new AbortController()
  protected budgetValue: BudgetSnapshot
  protected suppressCalls: number
  /** Counts what the run does (requests, calls, resolutions delivered, the end): see quiesce(). */
  protected activity = 0
  /** The VM run (known from the first atom call): its time-slice start tells a paused run from an idle one. */
  protected vmRun: Run | undefined
  protected finalFuel: number | undefined
  /** Custom atom calls running now: poll() waits for them (the run is busy, not parked). */
  protected atomsRunning = 0
  protected atomWaiters: Array<() => void> = []
  /** A resume holds new custom atom calls until the replay is checked (a diverging replay must not call anything). */
  protected replayGate: Promise<void> | null = null
  protected openGate: (() => void) | null = null
  /** Signals delivered and not taken by a wait yet (FIFO), and the waits parked for one. */
  protected readonly signalBuffer: Array<{ id: string; name: string; payload?: unknown }> = []
  protected readonly signalWaiters: Array<{ key: string; name: string | null; timerId?: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = []
  protected readonly signalIds = new Set<string>()
  protected signalCount = 0
  /** Custom atom calls waiting for approval, by approval id. */
  protected readonly pendingApprovals = new Map<string, ApprovalCall>()
  /** What queries read: the last value `expose(name, value)` published per name. */
  protected readonly exposed = new Map<string, unknown>()
  /** The cancellation (reason), and whether a wait has thrown it yet. */
  protected cancelState: { reason: string; delivered: boolean } | null = null
  /** Patches answered true in this process (journaled once each). */
  protected readonly patchesTaken = new Set<string>()
  /** Errors of steps the guest was handed (latest last): the end entry names the step whose error ended the run. */
  protected readonly stepErrors: Array<{ key: string; code: string; message: string }> = []
  /** The sleep request of the run's deadline (timeouts.runMs), while it waits. */
  protected deadlineId: string | null = null
  /** The run's search attributes as of now (the start's, then each upsertAttributes), and upserts a replay has yet to pass. */
  protected attributesValue: SearchAttributes
  protected attributeSetsToReplay: number
  /** continueAsNew(args) was called: the run ends and the next run of the chain starts with these args. */
  protected continuation: { args: unknown } | null = null
  /**
   * While a catch-up replays a tail another process journaled (execution-catchup.ts): the tail's entries about
   * what this execution had parked (by echoKey), which its parked promises journal again as they settle; such
   * an append is the tail's entry reached, not a new one. A different entry under the same key is a mismatch.
   */
  protected echoes: Map<string, JournalEntry> | null = null
  protected echoMismatch = false

  constructor(protected readonly config: ExecutionConfig) {
    this.id = config.executionId
    this.program = config.program
    this.limits = journalLimits(config.limits)
    this.budgetValue = { ...config.budget }
    this.suppressCalls = config.replay?.calls ?? 0
    const start = config.journal?.[0]
    this.attributesValue = { ...(start?.t === 'start' ? start.attributes : config.search?.attributes) }
    this.attributeSetsToReplay = config.replay?.attributeSets ?? 0
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
  }

  protected usable(): void {
    if (this.stateValue === 'disposed') throw workflowError('WORKFLOW_DISPOSED', `Execution ${this.id} was disposed`)
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

  /** The error that ended the workflow, if it failed. */
  get error(): WorkflowError | null {
    return this.failure
  }

  /** Entries in the journal (the store holds as many once a step is settled). */
  get entryCount(): number {
    return this.entries.length
  }

  /** The journal so far (a copy). */
  journal(): JournalEntry[] {
    return structuredClone(this.entries)
  }

  /** A request no longer waited for (the run ended): out of the queue, its host work aborted. */
  protected dropRequest(id: string): void {
    this.waiting.delete(id)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
    if (at >= 0) this.queue.splice(at, 1)
    this.requestAborts.get(id)?.abort()
  }

  protected fail(err: WorkflowError, cause?: AgentError): void {
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
  protected append(entry: JournalEntry): void {
    const echo = this.echoes && echoKey(entry)
    if (echo && this.echoes!.has(echo)) {
      if (canonicalJson(this.echoes!.get(echo)) !== canonicalJson(entry)) this.echoMismatch = true
      this.echoes!.delete(echo)
      return
    }
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
  protected flush(): void {
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
  protected track(write: Promise<void>): void {
    const tracked: Promise<void> = write.then(() => { if (this.writing === tracked) this.writing = null })
    tracked.catch(() => {})
    this.writing = tracked
  }

  protected clockRead(): number {
    const recorded = this.config.replay?.nextClock()
    if (recorded !== undefined) return recorded
    const value = this.config.clock()
    this.append({ t: 'now', value })
    return value
  }

  protected call(call: WorkflowCall): void {
    this.activity++
    if (this.suppressCalls > 0) { this.suppressCalls--; return }
    this.append({ t: 'call', call })
    this.queue.push({ call })
  }

  /** A step's identity: kind, call site, input hash and occurrence (the same in every replay). */
  protected stepKey(kind: string, site: string, input: unknown): string {
    const base = `${kind}|${site}|${inputHash(canonicalJson(input))}`
    const n = this.occurrences.get(base) ?? 0
    this.occurrences.set(base, n + 1)
    return `${base}|${n}`
  }
}

/** What a catch-up matches a parked step's entries by: a resolution by its request id, a signal wait's end by its key. */
export const echoKey = (e: JournalEntry): string | undefined =>
  e.t === 'resolution' ? `r:${e.id}` : e.t === 'wait' ? `w:${e.key}` : undefined
