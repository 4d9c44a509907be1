/**
 * The thread side of the run threads (run-threads.ts): jobs arrive several
 * to a message and run one at a time, in order; outcomes go back several to
 * a message. The main thread pays per message, so a thread holds finished
 * outcomes while it goes on with quick jobs, and sends them when it runs
 * out of jobs, every FLUSH_MS or FLUSH_COUNT, and before any job that may
 * take long (a program this thread has not seen finish within QUICK_MS, a
 * compilation): a long job never holds other runs' answers back, and a
 * thread terminated in one loses no answer already computed.
 */
import type { MessagePort } from 'node:worker_threads'
import { CLAIM, MissingProgram, TID, type Job, type JobKind, type JobOutcome, type JobsMessage } from './run-protocol.ts'

/** A program whose last run here took less than this is run without first sending the outcomes held (ms). */
const QUICK_MS = 1
/** Outcomes are held at most this long, or this many. */
const FLUSH_MS = 1
const FLUSH_COUNT = 32
/** Programs whose last duration is remembered (then the memory starts again). */
const MAX_TIMED = 1024

export type JobHandler = (task: unknown, job: Job) => unknown

export function serveJobs(port: MessagePort, ctl: Int32Array, threadId: number, handlers: Readonly<Record<JobKind, JobHandler>>, programKey: (task: unknown) => string | undefined): void {
  Atomics.store(ctl, TID, threadId)
  let queue: Job[] = []
  let head = 0
  let draining = false
  let held: JobOutcome[] = []
  let heldSince = 0
  /** How long each program's last run took here (ms), by its key. */
  const lastMs = new Map<string, number>()

  const flush = (): void => {
    if (held.length === 0) return
    port.postMessage({ done: held })
    held = []
  }

  const drain = async (): Promise<void> => {
    draining = true
    while (head < queue.length) {
      const job = queue[head++]!
      // Taken back by the main thread (it went to another thread): not ours to start.
      if (Atomics.compareExchange(ctl, CLAIM, job.seq, job.seq + 1) !== job.seq) continue
      const key = job.kind === 'run' ? programKey(job.task) : undefined
      if (held.length > 0 && !(key !== undefined && (lastMs.get(key) ?? QUICK_MS) < QUICK_MS)) flush()
      const t0 = performance.now()
      let outcome: JobOutcome
      try {
        outcome = { seq: job.seq, ok: true, value: await handlers[job.kind](job.task, job) }
      } catch (e) {
        outcome = { seq: job.seq, ok: false, message: String((e as Error)?.message ?? e), ...(e instanceof MissingProgram ? { missing: true as const } : {}) }
      }
      const t1 = performance.now()
      if (key !== undefined) {
        if (lastMs.size >= MAX_TIMED && !lastMs.has(key)) lastMs.clear()
        lastMs.set(key, t1 - t0)
      }
      if (held.length === 0) heldSince = t1
      held.push(outcome)
      if (held.length >= FLUSH_COUNT || t1 - heldSince >= FLUSH_MS) flush()
    }
    queue = []
    head = 0
    flush()
    draining = false
  }

  port.on('message', (m: JobsMessage) => {
    for (const j of m.jobs) queue.push(j)
    if (!draining) void drain()
  })
}
