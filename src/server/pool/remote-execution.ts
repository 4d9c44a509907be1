/**
 * A workflow execution that lives in a workflow thread, as the server's
 * driver sees it: the surface of WorkflowExecution it uses (poll, take,
 * resolve, absorb, cancel, query and the state getters), each operation a
 * message to the thread that holds the execution. Answers bring the entries
 * journaled meanwhile, written to the store before the operation returns,
 * so the driver acts on a request only once the request is durable (as on
 * one thread); the getters read the snapshot the last answer brought.
 *
 * A step's time (the tenant's limits.timeoutMs) counts while the thread
 * works on the step's operations. When it runs out, the execution's
 * interrupt flag is set: its VM stops at its next tick, even in a loop that
 * never yields, and it fails with TIMEOUT; nothing else in the thread is
 * touched. Only a thread that still does not answer within the grace period
 * is terminated (workflow-threads.ts).
 */
import { workflowError, WorkflowError } from '../../workflows/engine/errors.ts'
import type { JournalEntry, JournalStore } from '../../workflows/engine/journal.ts'
import type { WorkflowProgram } from '../../workflows/engine/program.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowPoll, WorkflowRequest, WorkflowResolution } from '../../workflows/engine/types.ts'
import type { WorkflowCode } from '../../diagnostics/workflow-codes.ts'
import { INTERRUPTED_TIME, type Answer, type ExecutionSnapshot, type Op, type OpenOp } from './workflow-protocol.ts'
import { WorkflowThreadGone, type WorkflowThread, type WorkflowThreads } from './workflow-threads.ts'

/** A replay may take this many times the step's time before its thread is terminated (it repeats every earlier step's work, which the execution's fuel bounds). */
const REPLAY_TIME_FACTOR = 10

export type OpenOptions = Omit<OpenOp, 't' | 'interrupt'>

export class RemoteExecution {
  private snap: ExecutionSnapshot
  private taken: WorkflowRequest[] = []
  private readonly calls: WorkflowCall[] = []
  private writes: Promise<void> = Promise.resolve()
  private readonly aborts = new Map<string, AbortController>()
  private disposed = false
  /** Resolutions sent (see poll()). */
  private resolves = 0
  /** The poll answer's own result, returned once the log/phase calls before it are. */
  private pendingPoll: WorkflowPoll | null = null
  private readonly writer = (entries: JournalEntry[]): Promise<void> => this.write(entries)
  /** What is left of the current step's time (ms). */
  private timeLeft = 0
  /** Shared with the thread: set when the step's time is up (the VM stops at its next tick). */
  private readonly interrupt = new Int32Array(new SharedArrayBuffer(4))

  private constructor(
    private readonly thread: WorkflowThread,
    private readonly generation: number,
    readonly id: string,
    private readonly store: JournalStore,
    program: WorkflowProgram,
  ) {
    this.snap = {
      state: 'running', budget: { total: null, spent: 0 }, fuelUsed: 0, entryCount: 0, cancelled: null, pending: [],
      continuedAsNew: null, astHash: program.astHash, sourceName: program.sourceName,
    }
    thread.writers.set(id, this.writer)
  }

  /**
   * Start the workflow's execution in its thread (no journal: a new run), or replay its journal
   * there once. Rejects as resumeWorkflow would (a WorkflowError), or with WorkflowThreadGone.
   */
  static async open(threads: WorkflowThreads, store: JournalStore, options: OpenOptions, timeLimitMs: number): Promise<RemoteExecution> {
    const thread = threads.of(options.id)
    const exec = new RemoteExecution(thread, thread.generation, options.id, store, options.program)
    exec.beginStep(timeLimitMs)
    try {
      // A journal of more than its start entry is replayed: the steps it repeats took their own time before.
      await exec.op({ t: 'open', ...options, interrupt: exec.interrupt }, (options.journal?.length ?? 0) > 1 ? timeLimitMs * REPLAY_TIME_FACTOR : undefined)
    } catch (e) {
      exec.dispose()
      throw e
    }
    return exec
  }

  /** A new step: its time limit starts again. */
  beginStep(timeLimitMs: number): void {
    this.timeLeft = timeLimitMs
  }

  /** Which workflow thread holds it. */
  get threadIndex(): number {
    return this.thread.index
  }

  /** Still held by its thread (the thread has not been replaced since it was opened). */
  get alive(): boolean {
    return !this.disposed && this.thread.generation === this.generation
  }

  private write(entries: JournalEntry[] | undefined): Promise<void> {
    if (!entries || entries.length === 0) return this.writes
    this.writes = this.writes.then(() => this.store.append(this.id, entries))
    return this.writes
  }

  /** One operation: the answer's entries durable, its snapshot taken; an error as a WorkflowError. */
  private async op(op: Op, timeMs?: number): Promise<Answer> {
    if (!this.alive) throw new WorkflowThreadGone(`workflow ${this.id}: its workflow thread was replaced`)
    const started = performance.now()
    const a = await this.thread.call(op, timeMs ?? this.timeLeft, () => Atomics.store(this.interrupt, 0, INTERRUPTED_TIME))
    this.timeLeft = Math.max(0, this.timeLeft - (performance.now() - started))
    await this.write(a.entries)
    if (a.snapshot) this.take(a.snapshot)
    if (a.missing) throw new WorkflowThreadGone(`workflow ${this.id} is no longer live in its thread`)
    // The poll that came with an absorb reports its error when it is taken (poll()).
    if (a.error && a.absorbed === undefined) throw errorOf(a.error)
    return a
  }

  private take(s: ExecutionSnapshot): void {
    // Budget only grows within a run: a resolution sent after the operation may already count here.
    const budget = s.budget.spent >= this.snap.budget.spent ? s.budget : this.snap.budget
    this.snap = { ...s, budget, ...(s.exposed === undefined && this.snap.exposed !== undefined ? { exposed: this.snap.exposed } : {}) }
    // Requests no longer waited for (cancelled, timed out, the run ended): the host's work for them stops.
    const pending = new Set(s.pending)
    for (const [id, c] of this.aborts) if (!pending.has(id)) { c.abort(); this.aborts.delete(id) }
  }

  /**
   * Apply entries other writers journaled since this execution's last one: 'applied' (commands' entries),
   * 'caughtUp' (another process's steps, replayed forward from the live state), false: they did not fit (it is
   * gone: replay). With `thenPoll`, the thread polls right after and the next poll() takes that answer (one round
   * trip for both); the caller then polls before anything else (a cancel would come after requests already drained).
   */
  async absorb(entries: readonly JournalEntry[], thenPoll = false): Promise<false | 'applied' | 'caughtUp'> {
    const resolves = this.resolves
    const timeLeft = this.timeLeft
    // Several entries may be other steps' work to catch up with: a replay's time (see open()), not counted against
    // the step, whose own first poll then comes in a message of its own, under the step's time.
    const replay = entries.length > 1
    const a = await this.op({ t: 'absorb', id: this.id, entries: [...entries], ...(thenPoll && !replay ? { poll: true } : {}) }, replay ? timeLeft * REPLAY_TIME_FACTOR : undefined)
    if (a.absorbed === false) { this.dispose(); return false }
    if (a.poll !== undefined || a.error !== undefined) this.prefetched = { answer: a, resolves }
    if (replay) this.timeLeft = timeLeft
    return a.caughtUp ? 'caughtUp' : 'applied'
  }

  /** A poll answer that came with absorb(), and the resolutions sent by then. */
  private prefetched: { answer: Answer; resolves: number } | null = null

  /** The next event, as WorkflowExecution.poll(): a Request comes with every pending request drained (takePendingRequests). */
  async poll(): Promise<WorkflowPoll> {
    const call = this.calls.shift()
    if (call) return { Call: call }
    if (this.pendingPoll) {
      const p = this.pendingPoll
      this.pendingPoll = null
      return p
    }
    let a: Answer
    let resolves: number
    for (;;) {
      const pre = this.prefetched
      this.prefetched = null
      resolves = pre?.resolves ?? this.resolves
      a = pre?.answer ?? await this.op({ t: 'poll', id: this.id })
      if (a.error) throw errorOf(a.error)
      this.calls.push(...(a.calls ?? []))
      // A resolution sent while the poll was on its way reached the thread after it: poll again, so the run has
      // taken it (as on one thread, where resolveRequest takes effect before the next poll returns).
      if (a.poll !== 'Pending' || this.resolves === resolves) break
    }
    // The poll after requests that all wait outside came along: the next poll() takes it.
    if (a.next) this.prefetched = { answer: a.next, resolves }
    this.taken = a.taken ?? []
    this.pendingPoll = a.poll!
    return this.poll()
  }

  takePendingRequests(): WorkflowRequest[] {
    const out = this.taken
    this.taken = []
    return out
  }

  /** Resolve a pending request (the thread ignores one that is no longer waited for). */
  resolveRequest(requestId: string, resolution: WorkflowResolution): void {
    if (!this.alive) return
    if (typeof resolution === 'object' && 'OkWithBudget' in resolution) {
      // As the execution does at once: a concurrent agent call reads the budget with this one counted.
      const b = resolution.OkWithBudget.budget
      if (b.spent > this.snap.budget.spent) this.snap = { ...this.snap, budget: { ...b } }
    }
    this.aborts.delete(requestId)
    this.resolves++
    this.thread.post({ t: 'resolve', id: this.id, requestId, resolution })
  }

  /** Cancel the run (journaled); false when it was already cancelled or has ended. */
  async cancel(reason: string): Promise<boolean> {
    return (await this.op({ t: 'cancel', id: this.id, reason })).cancelled === true
  }

  /** Aborted when the request is no longer waited for (seen at the next answer), or the execution is disposed. */
  requestSignal(requestId: string): AbortSignal {
    let c = this.aborts.get(requestId)
    if (!c) this.aborts.set(requestId, (c = new AbortController()))
    if (!this.snap.pending.includes(requestId)) c.abort()
    return c.signal
  }

  pendingRequestIds(): string[] {
    return [...this.snap.pending]
  }

  /** What queries read, as of the last answer that may end a step (bounded by the thread). */
  get exposed(): NonNullable<ExecutionSnapshot['exposed']> {
    return this.snap.exposed ?? {}
  }

  get state(): ExecutionSnapshot['state'] { return this.disposed ? 'disposed' : this.snap.state }
  get budget(): BudgetSnapshot { return { ...this.snap.budget } }
  get fuelUsed(): number { return this.snap.fuelUsed }
  get entryCount(): number { return this.snap.entryCount }
  get cancelled(): string | null { return this.snap.cancelled }
  get continuedAsNew(): { args: unknown } | null { return this.snap.continuedAsNew }
  get program(): { astHash: string; sourceName: string } { return { astHash: this.snap.astHash, sourceName: this.snap.sourceName } }

  /** Let the thread drop it; its journal is complete in the store once its step has ended. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    if (this.thread.writers.get(this.id) === this.writer) this.thread.writers.delete(this.id)
    for (const c of this.aborts.values()) c.abort()
    this.aborts.clear()
    if (this.thread.generation === this.generation) this.thread.post({ t: 'dispose', id: this.id })
  }
}

const errorOf = (e: NonNullable<Answer['error']>): WorkflowError =>
  new WorkflowError(e.code as WorkflowCode, e.message, { ...(e.entry !== undefined ? { entry: e.entry } : {}), ...(e.cause !== undefined ? { cause: e.cause } : {}), ...(e.hint !== undefined ? { hint: e.hint } : {}) })

/** A WorkflowError for an execution that could not go on (a thread gone for another workflow's sake is not one). */
export const threadError = (e: WorkflowThreadGone): WorkflowError =>
  workflowError('WORKFLOW_FAILED', `${e.error!.code}: ${e.error!.message}`, { cause: e.error! })
