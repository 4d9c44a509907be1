/**
 * The run pool: guest programs run in worker threads (run-threads.ts), never
 * on the server's event loop. A run that must stop (its client went away, or
 * its deadline passed without the VM noticing) is asked to through its
 * interrupt flag; a thread that has not stopped after the grace period is
 * terminated and a fresh one takes its place. A full queue is a 503 with
 * Retry-After, decided before the task is queued.
 */
import { availableParallelism } from 'node:os'
import type { RunResult } from '../../vm/result.ts'
import { HttpError } from '../errors.ts'
import type { StopSignal } from '../stop-signal.ts'
import type { CompileOutcome, CompileTask, PlanOutcome, PlanTask, RunTask, WorkerData, WorkflowCompileOutcome, WorkflowCompileTask } from './task.ts'
import type { JobKind } from './run-protocol.ts'
import { RunThreads, type Job$ } from './run-threads.ts'
import { PoolRun } from './pool-run.ts'
import { WorkflowThreads } from './workflow-threads.ts'
import { DEFAULT_WORKER_HEAP_MB, HEAP_GROWTH_BYTES, HEAP_WATCH_MS, RUNTIME_APPLIES_WORKER_HEAP_LIMIT, processHeapCeiling, runMaxHeapBytes } from './heap.ts'

export interface PoolOptions {
  /** Worker threads (default: the number of CPUs). */
  size?: number
  /** Runs waiting for a free worker before the server answers 503 (default 1,000). */
  queueSize?: number
  /** How long a run may ignore its interrupt flag before its worker is terminated, in ms (default 1,000). */
  graceMs?: number
  /**
   * Old-generation heap of each worker in MiB (default 512). Applied on every runtime
   * (src/server/pool/heap.ts): Node's resourceLimits, or the pool's memory watch under Bun.
   */
  maxHeapMb?: number
  /**
   * A run still going after this many ms gets its thread's CPU priority lowered (nice 19) until it
   * ends, so a tenant's CPU-bound loop yields to everyone else's short runs (default 20; 0: never).
   */
  longRunMs?: number
  /**
   * Threads that hold live workflow executions and run workflow steps (default: the pool size).
   * A workflow's steps go to the thread its id hashes to.
   */
  workflowThreads?: number
}

/** Over the memory ceiling, a run going on this many watch periods is stopped even when it is not the oldest. */
const LONG_RUN_WATCH_PERIODS = 4

/** Work the memory watch may stop: workflow work while it runs, and the run each thread is on. */
interface Watched {
  /** When the watch first saw it (0: not yet). */
  since: number
  stopped: boolean
  stop: () => void
}

/** How a run ended when the pool had to step in. */
export interface RunControl {
  /** Aborted when the requester no longer wants the result (client disconnected). */
  signal?: StopSignal
}

export class RunPool {
  readonly size: number
  readonly queueLimit: number
  readonly graceMs: number
  readonly threads: RunThreads
  /** Bytes of one value a run may build (every runtime). */
  readonly runHeapBytes: number
  /** Where the runtime applies no per-worker heap limit: the process's memory ceiling and the runs it may stop. */
  private readonly heapCeiling: number | undefined
  /** Workflow work under the memory watch. */
  private readonly watched = new Set<Watched>()
  private heapWatch: ReturnType<typeof setInterval> | undefined
  /** Sources compiled in a worker (POST /v1/procedures with source). */
  compilations = 0
  /** Runs stopped because the process went over its memory ceiling (runtimes without per-worker limits). */
  heapStops = 0
  /** The least resident memory seen since the process went over its ceiling (Infinity while under it). */
  private overLeast = Infinity
  /** The workflow threads (workflow steps run there, never on the event loop). */
  readonly workflows: WorkflowThreads

  constructor(options: PoolOptions, workerData: WorkerData) {
    this.size = Math.max(1, options.size ?? availableParallelism())
    this.queueLimit = Math.max(0, options.queueSize ?? 1000)
    this.graceMs = options.graceMs ?? 1000
    const maxHeapMb = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB
    this.runHeapBytes = runMaxHeapBytes(maxHeapMb)
    this.heapCeiling = RUNTIME_APPLIES_WORKER_HEAP_LIMIT ? undefined : processHeapCeiling(process.memoryUsage.rss(), this.size, maxHeapMb)
    this.threads = new RunThreads({ size: this.size, maxHeapMb, graceMs: this.graceMs, longRunMs: options.longRunMs ?? 20, workerData })
    this.workflows = new WorkflowThreads({
      size: options.workflowThreads ?? this.size, maxHeapMb, graceMs: this.graceMs, workerData,
      ...(this.heapCeiling !== undefined ? { watch: (stop: () => void) => this.watchWork(stop) } : {}),
    })
  }

  /** Runs (and compilations) waiting for a thread. */
  get queueSize(): number {
    return this.threads.queued
  }

  /** Threads holding work. */
  get busy(): number {
    return this.threads.busy
  }

  /** Workers terminated because a run ignored its interrupt (or a compilation overran its time). */
  get terminated(): number {
    return this.threads.terminated
  }

  /** Long runs whose thread priority was lowered. */
  get deprioritized(): number {
    return this.threads.deprioritized
  }

  /** Messages to and from the run threads and the jobs they carried (bench/serve-stages.mjs prints jobs per message). */
  get handoffs(): { sent: { messages: number; jobs: number }; received: { messages: number; jobs: number } } {
    return { sent: this.threads.sent, received: this.threads.received }
  }

  private refuseWhenFull(): void {
    if (this.queueLimit > 0) {
      const queued = this.threads.queued
      if (queued >= this.queueLimit) throw new HttpError('QUEUE_FULL', `All ${this.size} workers are busy and ${queued} runs are queued`, { retryAfter: 1 })
    }
  }

  /** Run a task; the task's timeout counts from now (queueing included). The task is the pool's from here (it is sent as it is). */
  run(task: RunTask, control: RunControl = {}): Promise<RunResult> {
    try {
      this.refuseWhenFull()
    } catch (e) {
      return Promise.reject(e)
    }
    task.maxHeapBytes ??= this.runHeapBytes
    task.acceptedAt = Date.now()
    return new Promise<RunResult>((resolve, reject) => {
      this.threads.submit(new PoolRun(task, this, control.signal, resolve, reject))
      this.watchHeap()
    })
  }

  /** Where the runtime applies no per-worker heap limit: watch the process's memory while work is in flight. */
  private watchHeap(): void {
    if (this.heapCeiling === undefined) return
    this.heapWatch ??= setInterval(() => this.checkHeap(), HEAP_WATCH_MS)
  }

  /** Put work of a workflow thread under the memory watch while it runs (`stop` recycles its thread). Returns the unwatch. */
  private watchWork(stop: () => void): () => void {
    const r: Watched = { since: 0, stop, stopped: false }
    this.watched.add(r)
    this.watchHeap()
    return () => { this.watched.delete(r) }
  }

  /**
   * Over the ceiling: stop the oldest run past one watch period (a hog has been allocating longest) and
   * any other that has gone on for several; while a stopped run is still in its worker nothing more is
   * stopped, and the next tick, if memory still grows, takes the next oldest.
   * Stopping every run past one period also stopped other tenants' short runs that a loaded machine
   * had stretched past 50 ms (the soak saw a well-behaved run end HEAP_LIMIT). A worker that ignores
   * the flag is terminated.
   */
  private checkHeap(): void {
    if (this.heapCeiling === undefined) return
    if (this.watched.size === 0 && this.threads.inFlight === 0) {
      clearInterval(this.heapWatch)
      this.heapWatch = undefined
      return
    }
    const now = performance.now()
    // Only work a thread has started counts (a queued run has built nothing): a run from when a thread started it, workflow work from when the watch saw it.
    const work: Watched[] = []
    for (const r of this.watched) {
      if (r.since === 0) r.since = now
      work.push(r)
    }
    for (const { job, since } of this.threads.running()) {
      work.push({ since, stopped: job.heap, stop: () => { job.heap = true; this.threads.stop(job) } })
    }
    // Resident memory is sticky (freed pages stay with the process until the allocator returns them):
    // act only while it is over the ceiling *and* still growing, so runs that merely follow a stopped hog are spared.
    // Growing is measured from the least seen since it went over, at any pace: a run allocating under
    // HEAP_GROWTH_BYTES a period (a slower machine, or on purpose) was never stopped, measured period by period.
    const rss = process.memoryUsage.rss()
    if (rss <= this.heapCeiling) { this.overLeast = Infinity; return }
    this.overLeast = Math.min(this.overLeast, rss)
    if (rss - this.overLeast < HEAP_GROWTH_BYTES) return
    // A stopped run still in its worker is still giving memory back: wait for it before blaming another.
    for (const r of work) if (r.stopped) return
    let oldest: Watched | undefined
    const stop: Watched[] = []
    for (const r of work) {
      // A run younger than one watch period has built little; the next tick decides about it.
      if (now - r.since < HEAP_WATCH_MS) continue
      if (now - r.since >= LONG_RUN_WATCH_PERIODS * HEAP_WATCH_MS) stop.push(r)
      if (!oldest || r.since < oldest.since) oldest = r
    }
    if (oldest && !stop.includes(oldest)) stop.push(oldest)
    for (const r of stop) {
      r.stopped = true
      this.heapStops++
      r.stop()
    }
    // What the stopped runs built stays resident: only growth from here blames another.
    this.overLeast = rss
  }

  /**
   * Compile a tenant's source in a worker (issue 23, class 2): the event loop only waits. A
   * compilation still going after `timeoutMs` has its worker terminated (transpiling cannot be
   * interrupted by the flag) and is refused with TIMEOUT.
   */
  compile(task: CompileTask, timeoutMs: number): Promise<CompileOutcome> {
    return this.compileIn('compileTask', task, timeoutMs) as Promise<CompileOutcome>
  }

  /** Compile a workflow module in a worker (POST /v1/workflows, a step of a source not compiled in this process), as `compile`. */
  compileWorkflow(task: WorkflowCompileTask, timeoutMs: number): Promise<WorkflowCompileOutcome> {
    return this.compileIn('compileWorkflowTask', task, timeoutMs) as Promise<WorkflowCompileOutcome>
  }

  /** Check a program against its tenant's plan policy in a worker (an async run, a workflow, before they are accepted), as `compile`. */
  checkPlan(task: PlanTask, timeoutMs: number): Promise<PlanOutcome | CompileOutcome> {
    return this.compileIn('planTask', task, timeoutMs) as Promise<PlanOutcome | CompileOutcome>
  }

  private compileIn(kind: JobKind, task: CompileTask | WorkflowCompileTask | PlanTask, timeoutMs: number): Promise<CompileOutcome | WorkflowCompileOutcome | PlanOutcome> {
    try {
      this.refuseWhenFull()
    } catch (e) {
      return Promise.reject(e)
    }
    this.compilations++
    return new Promise((resolve, reject) => {
      const job: Job$ = {
        kind, task, stopped: false, killAt: Infinity, heap: false, thread: undefined, seq: -1,
        deadline: performance.now() + timeoutMs,
        ended: (started) => ({
          error: {
            code: 'PROGRAM_REJECTED',
            message: `Compiling the source took longer than ${timeoutMs} ms${started ? '; its worker was terminated' : ' (waiting for a worker)'}`,
            agentError: { name: 'AgentError', code: 'TIMEOUT', message: `Compiling the source took longer than ${timeoutMs} ms` },
          },
        }),
        resolve: (v) => resolve(v as CompileOutcome | WorkflowCompileOutcome | PlanOutcome),
        reject: (e) => reject(new HttpError('WORKER_CRASHED', `The worker compiling the source stopped: ${(e as Error)?.message ?? e}`)),
      }
      this.threads.submit(job)
    })
  }

  async close(): Promise<void> {
    if (this.heapWatch) clearInterval(this.heapWatch)
    await Promise.all([this.threads.close(), this.workflows.close()])
  }
}
