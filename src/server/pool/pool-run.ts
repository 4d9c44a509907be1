/**
 * A run on its way through the run threads (RunPool.run): the Job$ that
 * run-threads.ts settles, as one object whose methods are shared, rather than
 * an object and five closures made per run (in the built server each closure
 * is also named at creation, a defineProperty each: esbuild's keepNames).
 */
import type { RunResult } from '../../vm/result.ts'
import { HttpError } from '../errors.ts'
import type { StopSignal } from '../stop-signal.ts'
import type { RunThread, RunThreads } from './run-threads.ts'
import type { RunTask } from './task.ts'

/** What a run needs of its pool. */
export interface RunPoolView {
  readonly threads: RunThreads
  readonly graceMs: number
  readonly size: number
}

export class PoolRun {
  readonly kind = 'run'
  stopped = false
  killAt = Infinity
  heap = false
  thread: RunThread | undefined = undefined
  seq = -1
  /** The VM enforces timeoutMs itself; this is the safety net for a run that does not stop. */
  deadline: number

  constructor(
    readonly task: RunTask,
    private readonly pool: RunPoolView,
    private readonly signal: StopSignal | undefined,
    private readonly ok: (r: RunResult) => void,
    private readonly fail: (e: unknown) => void,
  ) {
    this.deadline = performance.now() + task.timeoutMs + pool.graceMs
    signal?.addEventListener('abort', this)
  }

  /** The signal's abort (the client went away): stop the run. */
  handleEvent(): void {
    this.pool.threads.stop(this)
  }

  ended(started: boolean): RunResult {
    const byClient = this.signal?.aborted === true
    const code = this.heap ? 'HEAP_LIMIT' : byClient ? 'ABORTED' : 'TIMEOUT'
    if (!started) {
      const message = byClient ? 'The run was cancelled before a worker started it' : 'The run waited for a worker past its time limit'
      return { result: null, fuelUsed: 0, error: { name: 'AgentError', code, message } }
    }
    const why = this.heap ? 'stopped for memory' : byClient ? 'cancelled' : 'past its deadline'
    return { result: null, fuelUsed: this.task.fuel, error: { name: 'AgentError', code, message: `The run did not stop within ${this.pool.graceMs} ms of being ${why}; its worker was terminated` } }
  }

  resolve(value: unknown): void {
    this.signal?.removeEventListener('abort', this)
    const r = value as RunResult
    if (this.heap && r.error?.code === 'ABORTED') {
      this.ok({ ...r, error: { ...r.error, code: 'HEAP_LIMIT', message: `The server stopped the run: the process went over its memory ceiling (${this.pool.size} workers x maxHeapMb)` } })
    } else this.ok(r)
  }

  reject(e: unknown): void {
    this.signal?.removeEventListener('abort', this)
    this.fail(new HttpError('WORKER_CRASHED', `The worker running the program stopped: ${(e as Error)?.message ?? e}`))
  }
}
