/**
 * The workflow threads: a fixed set of worker threads (workflow-thread.ts)
 * that hold live workflow executions and run their VMs. A workflow's steps
 * always go to the thread its id hashes to, because its live execution is
 * state in that thread (the run threads hand a run to any free thread, which would
 * make most steps replay their journal). Threads start with the pool; one
 * that was terminated starts again on its next operation.
 *
 * A thread that stops answering an operation within the step's time plus the
 * grace period (guest code stuck where the VM cannot halt it), that the
 * memory watch stops, or that dies (out of memory, a crash), is terminated
 * and started again on its next operation: the operation that caused it
 * fails with TIMEOUT or HEAP_LIMIT; every other execution it held is gone,
 * and its workflow replays its journal once, on its next step.
 */
import { Worker } from 'node:worker_threads'
import type { AgentError } from '../../vm/errors.ts'
import type { JournalEntry } from '../../workflows/engine/journal.ts'
import { threadModule } from '../module-url.ts'
import type { WorkerData } from './task.ts'
import type { Answer, CallOp, FromThread, Op, PostOp } from './workflow-protocol.ts'

/** An operation whose thread went away before answering. `error` is set when this operation was the cause. */
export class WorkflowThreadGone extends Error {
  constructor(message: string, readonly error?: AgentError) {
    super(message)
    this.name = 'WorkflowThreadGone'
  }
}

export interface WorkflowThreadsOptions {
  size: number
  /** Old-generation heap of each thread in MiB (applied where the runtime applies worker resourceLimits). */
  maxHeapMb: number
  /** How long an operation may overrun the step's time before its thread is terminated (ms). */
  graceMs: number
  workerData: WorkerData
  /** The pool's memory watch (runtimes without per-thread heap limits): `stop` when over the ceiling. Returns the unwatch. */
  watch?: (stop: () => void) => () => void
}

/** 32-bit FNV-1a of the id: which thread holds a workflow. */
export function threadIndexOf(id: string, size: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
  return (h >>> 0) % size
}

interface Pending {
  /** The workflow the operation is for, and when it was sent. */
  id: string
  since: number
  resolve(a: Answer): void
  reject(e: unknown): void
  timer: ReturnType<typeof setTimeout>
  unwatch?: () => void
}

export class WorkflowThread {
  private worker: Worker | undefined
  /** Changes each time the thread is replaced: executions of an older generation are gone. */
  generation = 0
  private readonly calls = new Map<number, Pending>()
  private nextCall = 1
  /** Where a workflow's journal batches are written (its RemoteExecution), by workflow id. */
  readonly writers = new Map<string, (entries: JournalEntry[]) => Promise<void>>()

  constructor(private readonly owner: WorkflowThreads, readonly index: number) {}

  /** Start the thread now (its first step would otherwise wait for it to load, holding its tenant's slot). */
  warm(): void {
    this.started()
  }

  private started(): Worker {
    if (this.worker) return this.worker
    const o = this.owner.options
    const w = new Worker(new URL(threadModule(import.meta.url, 'workflow-thread', 'workflow thread')), { workerData: o.workerData, resourceLimits: { maxOldGenerationSizeMb: o.maxHeapMb } })
    w.unref()
    w.on('message', (m: FromThread) => this.receive(m))
    w.on('error', (e) => this.lost(w, `the workflow thread failed: ${(e as Error)?.message ?? e}`))
    w.on('exit', (code) => this.lost(w, `the workflow thread exited (code ${code})`))
    this.worker = w
    return w
  }

  private receive(m: FromThread): void {
    if (m.t === 'sync') {
      // A custom atom waits for this batch to be durable; a failed write surfaces at the execution's next answer.
      const write = this.writers.get(m.id)
      const ack = () => this.worker?.postMessage({ t: 'synced', seq: m.seq } satisfies PostOp)
      if (write) void write(m.entries).then(ack, ack)
      else ack()
      return
    }
    const p = this.calls.get(m.n)
    if (!p) return
    this.settle(m.n, p)
    p.resolve(m)
  }

  private settle(n: number, p: Pending): void {
    this.calls.delete(n)
    clearTimeout(p.timer)
    p.unwatch?.()
    if (this.calls.size === 0) this.worker?.unref()
  }

  /**
   * Send an operation and wait for its answer. Past `limitMs` without one, `onLimit` is called (the
   * execution's interrupt flag is set); past the grace period after that, the thread is terminated
   * and the operation fails with TIMEOUT (WorkflowThreadGone with its error). While an older
   * operation of another workflow is still unanswered, the thread is busy with that one: the
   * limit starts again rather than stop a step that waited its turn.
   */
  call(op: Op, limitMs: number, onLimit: () => void): Promise<Answer> {
    const w = this.started()
    const n = this.nextCall++
    return new Promise<Answer>((resolve, reject) => {
      const p: Pending = { id: op.id, since: performance.now(), resolve, reject, timer: undefined as unknown as ReturnType<typeof setTimeout> }
      const check = (stage: 'limit' | 'kill') => {
        if (this.busyBefore(p)) { p.timer = setTimeout(() => check(stage), Math.max(25, limitMs)); return }
        if (stage === 'limit') {
          onLimit()
          p.timer = setTimeout(() => check('kill'), this.owner.options.graceMs)
          return
        }
        this.recycle(n, {
          name: 'AgentError', code: 'TIMEOUT',
          message: `The workflow step ran past the tenant's time limit (limits.timeoutMs) and did not stop within ${this.owner.options.graceMs} ms; its thread was terminated`,
          hint: 'Split the work into shorter steps, or have the operator raise "limits.timeoutMs" of this tenant in the serve config.',
        })
      }
      p.timer = setTimeout(() => check('limit'), Math.max(0, limitMs))
      p.unwatch = this.owner.options.watch?.(() => this.recycle(n, {
        name: 'AgentError', code: 'HEAP_LIMIT',
        message: 'The server stopped the workflow step: the process went over its memory ceiling (workers x maxHeapMb); its thread was terminated',
      }))
      this.calls.set(n, p)
      w.ref()
      w.postMessage({ ...op, n } as CallOp)
    })
  }

  /** Whether an operation of another workflow sent before `p` is still unanswered (the thread is on it). */
  private busyBefore(p: Pending): boolean {
    for (const q of this.calls.values()) if (q !== p && q.id !== p.id && q.since < p.since) return true
    return false
  }

  post(op: PostOp): void {
    this.worker?.postMessage(op)
  }

  /** Terminate the thread because of operation `n` (which fails with `error`); the others fail as innocent. */
  private recycle(n: number, error: AgentError): void {
    const w = this.worker
    if (!w) return
    this.owner.recycled++
    const guilty = this.calls.get(n)
    if (guilty) {
      this.settle(n, guilty)
      guilty.reject(new WorkflowThreadGone(error.message, error))
    }
    this.lost(w, 'its workflow thread was recycled (another workflow\'s step overran its limits)')
    void w.terminate()
  }

  /** The thread is gone: every operation waiting for it fails; its executions are gone with it. */
  private lost(w: Worker, why: string): void {
    if (this.worker !== w) return
    this.worker = undefined
    this.generation++
    this.writers.clear()
    for (const [n, p] of [...this.calls]) {
      this.settle(n, p)
      p.reject(new WorkflowThreadGone(why))
    }
  }

  /** Terminate the thread (the server stopping, an operator, tests): its executions replay on their next step. */
  async terminate(why = 'the server is stopping'): Promise<void> {
    const w = this.worker
    if (!w) return
    this.lost(w, why)
    await w.terminate()
  }
}

export class WorkflowThreads {
  private readonly threads: WorkflowThread[]
  /** Threads terminated because an operation overran its time or the memory watch stopped it. */
  recycled = 0

  constructor(readonly options: WorkflowThreadsOptions) {
    this.threads = Array.from({ length: Math.max(1, options.size) }, (_, i) => new WorkflowThread(this, i))
    // Started with the pool, as its workers are: a thread that died or was terminated starts again on its next step.
    for (const t of this.threads) t.warm()
  }

  get size(): number {
    return this.threads.length
  }

  /** The thread that holds workflow `id`'s live execution. */
  of(id: string): WorkflowThread {
    return this.threads[threadIndexOf(id, this.threads.length)]!
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.terminate()))
  }
}
