/**
 * The run pool: guest programs run in worker threads (piscina), never on the
 * server's event loop. A run that must stop (its client went away, or its
 * deadline passed without the VM noticing) is asked to through the shared
 * `interrupt` flag; a worker that has not stopped after the grace period is
 * terminated and piscina starts a fresh one. A full queue is a 503 with
 * Retry-After, decided before the task is queued.
 */
import { setLongTimeout } from '../../vm/long-timer.ts'
import { existsSync } from 'node:fs'
import { availableParallelism, setPriority } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import type { RunResult } from '../../vm/result.ts'
import { HttpError } from '../errors.ts'
import { moduleUrl } from '../module-url.ts'
import { StopController, type StopSignal } from '../stop-signal.ts'
import type { CompileOutcome, CompileTask, PlanOutcome, PlanTask, RunTask, WorkerData, WorkflowCompileOutcome, WorkflowCompileTask } from './task.ts'
import { WorkflowThreads } from './workflow-threads.ts'
import { DEFAULT_WORKER_HEAP_MB, HEAP_GROWTH_BYTES, HEAP_WATCH_MS, RUNTIME_APPLIES_WORKER_HEAP_LIMIT, processHeapCeiling, runMaxHeapBytes, workerResourceLimits } from './heap.ts'

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

/** A run in progress, as the priority sweep sees it. */
interface InFlight {
  control: Int32Array
  since: number
  niced: number
}

/** Over the memory ceiling, a run going on this many watch periods is stopped even when it is not the oldest. */
const LONG_RUN_WATCH_PERIODS = 4

/** A run in a worker, as the memory watch sees it. */
interface Running {
  /** [1] is the worker's thread id once a worker has started the run (0 while queued). */
  control: Int32Array
  /** When the watch first saw the run in a worker (0: not yet). */
  since: number
  stop: () => void
  stopped: boolean
}

/** The worker module: the TypeScript source under Bun or tests, the bundled file next to dist/server.js (or dist/cli.js) under Node. */
function workerFile(): string {
  const here = moduleUrl(import.meta.url)
  // Source: next to this file. Built: dist/server-worker.js, beside the entry or one level up from a shared chunk.
  const candidates = [new URL('./worker.ts', here), new URL('./server-worker.js', here), new URL('../server-worker.js', here)]
  for (const u of candidates) if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return u.href
  throw new Error(`ajs-lang server: the pool worker module is missing (looked for ${candidates.map((u) => u.pathname).join(', ')}); run npm run build`)
}

/** The control of work that has started (workflow steps are in their thread when the watch sees them). */
const STARTED = new Int32Array([0, 1])

/** How a run ended when the pool had to step in. */
export interface RunControl {
  /** Aborted when the requester no longer wants the result (client disconnected). */
  signal?: StopSignal
}

export class RunPool {
  readonly size: number
  readonly queueLimit: number
  private readonly graceMs: number
  private readonly piscina: Piscina<RunTask, RunResult>
  /** Workers terminated because a run ignored its interrupt. */
  terminated = 0
  /** Long runs whose thread priority was lowered. */
  deprioritized = 0
  private readonly longRunMs: number
  private readonly inFlight = new Set<InFlight>()
  private sweep: ReturnType<typeof setInterval> | undefined
  private canRenice = true
  /** Bytes of one value a run may build (every runtime). */
  readonly runHeapBytes: number
  /** Where the runtime applies no per-worker heap limit: the process's memory ceiling and the runs it may stop. */
  private readonly heapCeiling: number | undefined
  private readonly running = new Set<Running>()
  private heapWatch: ReturnType<typeof setInterval> | undefined
  /** Sources compiled in a worker (POST /v1/procedures with source). */
  compilations = 0
  /** Runs stopped because the process went over its memory ceiling (runtimes without per-worker limits). */
  heapStops = 0
  private lastRss = 0
  /** The workflow threads (workflow steps run there, never on the event loop). */
  readonly workflows: WorkflowThreads

  constructor(options: PoolOptions, workerData: WorkerData) {
    this.size = Math.max(1, options.size ?? availableParallelism())
    this.queueLimit = Math.max(0, options.queueSize ?? 1000)
    this.graceMs = options.graceMs ?? 1000
    this.longRunMs = options.longRunMs ?? 20
    if (!/^linux/.test(process.platform)) this.canRenice = false
    const maxHeapMb = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB
    this.runHeapBytes = runMaxHeapBytes(maxHeapMb)
    this.heapCeiling = RUNTIME_APPLIES_WORKER_HEAP_LIMIT ? undefined : processHeapCeiling(process.memoryUsage.rss(), this.size, maxHeapMb)
    this.piscina = new Piscina<RunTask, RunResult>({
      filename: workerFile(),
      minThreads: this.size,
      maxThreads: this.size,
      maxQueue: this.queueLimit,
      idleTimeout: 60_000,
      workerData,
      resourceLimits: workerResourceLimits(maxHeapMb),
    })
    // A worker killed on purpose (or crashing) surfaces as an 'error' event too; runs already report it.
    this.piscina.on('error', () => {})
    this.workflows = new WorkflowThreads({
      size: options.workflowThreads ?? this.size, maxHeapMb, graceMs: this.graceMs, workerData,
      ...(this.heapCeiling !== undefined ? { watch: (stop: () => void) => this.watchWork(stop) } : {}),
    })
  }

  get queueSize(): number {
    return this.piscina.queueSize
  }

  get busy(): number {
    return this.piscina.threads.length === 0 ? 0 : Math.round(this.piscina.utilization * this.size)
  }

  /** Run a task; the task's timeout counts from now (queueing included). */
  async run(task: RunTask, control: RunControl = {}): Promise<RunResult> {
    if (this.queueLimit > 0 && this.piscina.queueSize >= this.queueLimit) {
      throw new HttpError('QUEUE_FULL', `All ${this.size} workers are busy and ${this.piscina.queueSize} runs are queued`, { retryAfter: 1 })
    }
    const interrupt = new Int32Array(new SharedArrayBuffer(8))
    const flight: InFlight = { control: interrupt, since: 0, niced: 0 }
    this.track(flight)
    const kill = new StopController()
    let graceTimer: ReturnType<typeof setTimeout> | undefined
    const stop = () => {
      if (Atomics.load(interrupt, 0) !== 0) return
      Atomics.store(interrupt, 0, 1)
      graceTimer = setTimeout(() => kill.abort(), this.graceMs)
    }
    // The VM enforces timeoutMs itself; this is the safety net for a run that does not stop.
    const deadline = setLongTimeout(stop, task.timeoutMs + this.graceMs)
    const onGone = () => stop()
    control.signal?.addEventListener('abort', onGone)
    const running: Running = { control: interrupt, since: 0, stop, stopped: false }
    this.watchHeap(running)
    try {
      const r = await this.piscina.run({ ...task, maxHeapBytes: task.maxHeapBytes ?? this.runHeapBytes, interrupt, acceptedAt: Date.now() }, { signal: kill as unknown as AbortSignal })
      if (running.stopped && r.error?.code === 'ABORTED') {
        return { ...r, error: { ...r.error, code: 'HEAP_LIMIT', message: `The server stopped the run: the process went over its memory ceiling (${this.size} workers x maxHeapMb)` } }
      }
      return r
    } catch (e) {
      if (kill.signal.aborted) {
        this.terminated++
        const byClient = control.signal?.aborted === true
        const why = running.stopped ? 'stopped for memory' : byClient ? 'cancelled' : 'past its deadline'
        return {
          result: null,
          fuelUsed: task.fuel,
          error: {
            name: 'AgentError',
            code: running.stopped ? 'HEAP_LIMIT' : byClient ? 'ABORTED' : 'TIMEOUT',
            message: `The run did not stop within ${this.graceMs} ms of being ${why}; its worker was terminated`,
          },
        }
      }
      if (/queue is at limit/i.test(String((e as Error)?.message))) throw new HttpError('QUEUE_FULL', undefined, { retryAfter: 1 })
      throw new HttpError('WORKER_CRASHED', `The worker running the program stopped: ${(e as Error)?.message ?? e}`)
    } finally {
      this.running.delete(running)
      if (this.running.size === 0 && this.heapWatch) { clearInterval(this.heapWatch); this.heapWatch = undefined }
      this.untrack(flight)
      deadline.clear()
      if (graceTimer) clearTimeout(graceTimer)
      control.signal?.removeEventListener('abort', onGone)
    }
  }

  /** Where the runtime applies no per-worker heap limit: watch the process's memory while runs are in flight. */
  private watchHeap(r: Running): void {
    if (this.heapCeiling === undefined) return
    this.running.add(r)
    this.heapWatch ??= setInterval(() => this.checkHeap(), HEAP_WATCH_MS)
  }

  /** Put work of a workflow thread under the memory watch while it runs (`stop` recycles its thread). Returns the unwatch. */
  private watchWork(stop: () => void): () => void {
    const r: Running = { control: STARTED, since: 0, stop, stopped: false }
    this.watchHeap(r)
    return () => {
      this.running.delete(r)
      if (this.running.size === 0 && this.heapWatch) { clearInterval(this.heapWatch); this.heapWatch = undefined }
    }
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
    const now = performance.now()
    // Only runs a worker has started count (a queued run has built nothing), timed from when the watch saw them start.
    for (const r of this.running) if (r.since === 0 && Atomics.load(r.control, 1) !== 0) r.since = now
    // Resident memory is sticky (freed pages stay with the process until the allocator returns them):
    // act only while it is over the ceiling *and* still growing, so runs that merely follow a stopped hog are spared.
    const rss = process.memoryUsage.rss()
    const grew = rss - this.lastRss
    this.lastRss = rss
    if (rss <= this.heapCeiling || grew < HEAP_GROWTH_BYTES) return
    // A stopped run still in its worker is still giving memory back: wait for it before blaming another.
    for (const r of this.running) if (r.stopped) return
    let oldest: Running | undefined
    const stop: Running[] = []
    for (const r of this.running) {
      // A run younger than one watch period has built little; the next tick decides about it.
      if (r.since === 0 || now - r.since < HEAP_WATCH_MS) continue
      if (now - r.since >= LONG_RUN_WATCH_PERIODS * HEAP_WATCH_MS) stop.push(r)
      if (!oldest || r.since < oldest.since) oldest = r
    }
    if (oldest && !stop.includes(oldest)) stop.push(oldest)
    for (const r of stop) {
      r.stopped = true
      this.heapStops++
      r.stop()
    }
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

  private async compileIn(name: string, task: CompileTask | WorkflowCompileTask | PlanTask, timeoutMs: number): Promise<CompileOutcome | WorkflowCompileOutcome | PlanOutcome> {
    if (this.queueLimit > 0 && this.piscina.queueSize >= this.queueLimit) {
      throw new HttpError('QUEUE_FULL', `All ${this.size} workers are busy and ${this.piscina.queueSize} runs are queued`, { retryAfter: 1 })
    }
    const kill = new AbortController()
    const deadline = setLongTimeout(() => kill.abort(), timeoutMs)
    this.compilations++
    try {
      return await this.piscina.run(task as never, { name, signal: kill.signal }) as unknown as CompileOutcome | WorkflowCompileOutcome | PlanOutcome
    } catch (e) {
      if (kill.signal.aborted) {
        this.terminated++
        return { error: { code: 'PROGRAM_REJECTED', message: `Compiling the source took longer than ${timeoutMs} ms; its worker was terminated`, agentError: { name: 'AgentError', code: 'TIMEOUT', message: `Compiling the source took longer than ${timeoutMs} ms` } } }
      }
      if (/queue is at limit/i.test(String((e as Error)?.message))) throw new HttpError('QUEUE_FULL', undefined, { retryAfter: 1 })
      throw new HttpError('WORKER_CRASHED', `The worker compiling the source stopped: ${(e as Error)?.message ?? e}`)
    } finally {
      deadline.clear()
    }
  }

  private track(f: InFlight): void {
    if (this.longRunMs <= 0 || !this.canRenice) return
    this.inFlight.add(f)
    this.sweep ??= setInterval(() => this.lowerLongRuns(), Math.max(1, Math.floor(this.longRunMs / 2)))
  }

  private untrack(f: InFlight): void {
    if (!this.inFlight.delete(f)) return
    if (f.niced) this.renice(f.niced, 0)
    if (this.inFlight.size === 0 && this.sweep) {
      clearInterval(this.sweep)
      this.sweep = undefined
    }
  }

  /** Lower the priority of threads whose run has gone on for longer than longRunMs. */
  private lowerLongRuns(): void {
    const now = performance.now()
    for (const f of this.inFlight) {
      if (f.niced) continue
      const tid = Atomics.load(f.control, 1)
      if (tid === 0) continue
      if (f.since === 0) f.since = now
      else if (now - f.since >= this.longRunMs && this.renice(tid, 19)) {
        f.niced = tid
        this.deprioritized++
      }
    }
  }

  private renice(tid: number, nice: number): boolean {
    try {
      setPriority(tid, nice)
      return true
    } catch {
      // Not allowed here (no CAP_SYS_NICE to restore, or no such thread): stop trying.
      this.canRenice = false
      return false
    }
  }

  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep)
    if (this.heapWatch) clearInterval(this.heapWatch)
    await Promise.all([this.piscina.destroy(), this.workflows.close()])
  }
}
