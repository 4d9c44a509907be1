/**
 * The run threads: a fixed number of worker threads (worker.ts) that run
 * guest programs, and compile sources, off the event loop. The main thread's
 * cost per run is what bounds a server's throughput, so hand-offs are
 * batched: the jobs queued while the event loop read a round of requests go
 * to the threads in one message per thread (at setImmediate), and a thread
 * sends back the outcomes of the jobs it finished several to a message
 * (job-loop.ts). No per-run timer, SharedArrayBuffer or abort signal: one
 * sweep every few milliseconds checks deadlines, and each thread has one
 * shared array of interrupt flags (run-protocol.ts).
 *
 * Committing jobs to a thread early must not make a run wait behind another
 * tenant's long one: a thread whose current job has gone on for STUCK_MS gets
 * no new jobs, and the jobs it has not started are taken back (CLAIM) and go
 * to another thread. A run past its deadline has its interrupt flag set; one
 * still going a grace period later has its thread terminated (a fresh one
 * takes its place at once), as does a compilation past its time. The jobs
 * that thread had not started go elsewhere; only jobs it had started and not
 * answered fail with it (ThreadGone).
 */
import { setPriority } from 'node:os'
import { Worker } from 'node:worker_threads'
import { threadModule } from '../module-url.ts'
import { CLAIM, MAX_KNOWN_PROGRAMS, MAX_SEQ, REVOKED, SLOT, SLOTS, TID, byKeyAlone, newControl, type DoneMessage, type Job, type JobKind, type JobsMessage } from './run-protocol.ts'
import type { RunTask, WorkerData } from './task.ts'

/** Jobs sent to one thread and not answered, at most (below SLOTS: each has its own interrupt flag). */
const MAX_JOBS_PER_THREAD = 64
/** How often deadlines, long runs and stuck threads are looked at while jobs are in flight (ms). */
const SWEEP_MS = 5
/** A thread on the same job this long gets no new jobs, and gives back those it has not started (ms). */
const STUCK_MS = 2
/** How long a thread that died before answering anything waits to be replaced (ms). */
const BROKEN_RESTART_MS = 1000

/** A job's thread went away (crashed, or was terminated because of another job) after starting it and before answering. */
export class ThreadGone extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ThreadGone'
  }
}

/** A job on the main thread, from `submit` until it is settled. */
export interface Job$ {
  readonly kind: JobKind
  readonly task: unknown
  /** When to stop it (performance.now() ms): runs get their interrupt flag set, other jobs are ended at once. */
  deadline: number
  /** Stop asked for (deadline, client gone, memory); `killAt` is when its thread is terminated if it has not answered. */
  stopped: boolean
  killAt: number
  /** Stopped by the memory watch (runtimes without per-thread heap limits). */
  heap: boolean
  /** The outcome of a job the threads ended: `started` is whether a thread was running it (and was terminated). */
  ended(started: boolean): unknown
  resolve(value: unknown): void
  reject(error: unknown): void
  thread: RunThread | undefined
  seq: number
}

/** One worker thread, from its start until it exits (a replacement is another RunThread). */
export class RunThread {
  readonly ctl = newControl()
  readonly worker: Worker
  /** Jobs sent and not answered, by sequence number. */
  readonly jobs = new Map<number, Job$>()
  /** Keys of the programs sent to it with their text (it holds them parsed): later runs of them go by key alone. */
  readonly known = new Set<string>()
  nextSeq = 0
  /** The unstarted jobs were taken back (CLAIM is REVOKED) at claim `revokedAt`; reset before sending more. */
  revoked = false
  revokedAt = 0
  /** The job the last sweep saw it running, since when, and whether its OS thread's priority is lowered. */
  current: Job$ | undefined
  since = 0
  stuck = false
  niced = false
  /** Being terminated (its jobs that it started and did not answer fail when it exits). */
  terminating = false
  gone = false
  /** It has answered at least once (a thread that dies before that may not load at all: see lost). */
  answered = false
  /** The worker's 'error' (out of memory, a crash), reported to the jobs it held. */
  failure: string | undefined
  /** The job it was terminated for (settled already). */
  guilty: Job$ | undefined

  constructor(file: string, workerData: WorkerData, maxHeapMb: number) {
    this.worker = new Worker(new URL(file), { workerData: { ...workerData, control: this.ctl.buffer }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } })
    this.worker.unref()
  }

  /** The sequence number of the next job it may start (the unstarted ones are those from here on). */
  claim(): number {
    return this.revoked ? this.revokedAt : Atomics.load(this.ctl, CLAIM)
  }

  started(j: Job$): boolean {
    return j.thread === this && this.claim() > j.seq
  }
}

export interface RunThreadsOptions {
  size: number
  maxHeapMb: number
  /** How long a run may ignore its interrupt flag before its thread is terminated (ms). */
  graceMs: number
  /** A run going on this long gets its thread's CPU priority lowered (nice 19) until it ends (ms; 0: never). */
  longRunMs: number
  workerData: WorkerData
}

export class RunThreads {
  readonly threads: RunThread[]
  private readonly file = threadModule(import.meta.url, 'worker', 'pool worker')
  private readonly queue: Job$[] = []
  /** Every job not settled yet (the sweep's deadlines). */
  private readonly live = new Set<Job$>()
  private scheduled = false
  private sweep: ReturnType<typeof setInterval> | undefined
  private canRenice = /^linux/.test(process.platform)
  private closing = false
  /** Threads terminated because a job ignored its interrupt or overran its time. */
  terminated = 0
  /** Long runs whose thread priority was lowered. */
  deprioritized = 0
  /** Messages and jobs sent to threads, and outcomes received (bench/serve-stages.mjs shows jobs per message). */
  readonly sent = { messages: 0, jobs: 0 }
  readonly received = { messages: 0, jobs: 0 }

  constructor(readonly options: RunThreadsOptions) {
    this.threads = Array.from({ length: options.size }, () => this.spawn())
  }

  private spawn(): RunThread {
    const t = new RunThread(this.file, this.options.workerData, this.options.maxHeapMb)
    t.worker.on('message', (m: DoneMessage) => this.receive(t, m))
    t.worker.on('error', (e) => { t.failure = (e as Error)?.message ?? String(e) })
    t.worker.on('exit', (code) => this.lost(t, t.failure ?? `it exited (code ${code})`))
    return t
  }

  /** Jobs waiting for a thread: queued here, or sent and not started (but for the next one of a thread that holds no started job: that thread is free for it). */
  get queued(): number {
    let n = this.queue.length
    for (const t of this.threads) {
      if (t.revoked) continue
      const unstarted = t.nextSeq - Atomics.load(t.ctl, CLAIM)
      n += unstarted === t.jobs.size ? Math.max(0, unstarted - 1) : unstarted
    }
    return n
  }

  /** Jobs not settled yet. */
  get inFlight(): number {
    return this.live.size
  }

  /** Threads holding a job. */
  get busy(): number {
    let n = 0
    for (const t of this.threads) if (t.jobs.size > 0) n++
    return n
  }

  /** Queue a job; it is sent with the others queued in this turn of the event loop. */
  submit(j: Job$): void {
    if (this.closing) { j.reject(new ThreadGone('the server is stopping')); return }
    this.live.add(j)
    this.queue.push(j)
    this.wake()
    this.sweep ??= setInterval(this.check, SWEEP_MS)
  }

  /**
   * Stop a job: a run a thread has started gets its interrupt flag set (and its thread is terminated
   * if it does not stop within the grace period); a job not started, or one that is not a run, ends now.
   */
  stop(j: Job$): void {
    if (j.stopped || !this.live.has(j)) return
    j.stopped = true
    if (j.kind !== 'run' || !j.thread?.started(j)) { this.end(j); return }
    j.killAt = performance.now() + this.options.graceMs
    if (j.thread) Atomics.store(j.thread.ctl, SLOT + (j.seq % SLOTS), 1)
  }

  /** The job each thread is running and since when (the memory watch's view). */
  *running(): Iterable<{ job: Job$; since: number }> {
    for (const t of this.threads) if (t.current && t.current.thread === t) yield { job: t.current, since: t.since }
  }

  /** Send the queued jobs at the next turn of the event loop (once, however many jobs queue until then). */
  private wake(): void {
    if (this.queue.length === 0 || this.scheduled || this.closing) return
    this.scheduled = true
    setImmediate(this.dispatch)
  }

  private readonly dispatch = (): void => {
    this.scheduled = false
    const batches: Array<Job[] | undefined> = []
    while (this.queue.length > 0) {
      let best = -1
      for (let i = 0; i < this.threads.length; i++) {
        const t = this.threads[i]!
        if (t.stuck || t.gone || t.jobs.size >= MAX_JOBS_PER_THREAD) continue
        // A thread with jobs it has not started gets more with its next batch (when it answers): fewer, larger messages.
        if (batches[i] === undefined && !t.revoked && Atomics.load(t.ctl, CLAIM) < t.nextSeq) continue
        if (best < 0 || t.jobs.size < this.threads[best]!.jobs.size) best = i
      }
      if (best < 0) break
      const t = this.threads[best]!
      const j = this.queue.shift()!
      if (t.jobs.size === 0 && t.nextSeq > MAX_SEQ) {
        // Nothing of it is in flight: numbering starts again (its revoked jobs were all numbered far above 0).
        t.nextSeq = 0
        t.revoked = true
      }
      if (t.revoked) {
        Atomics.store(t.ctl, CLAIM, t.nextSeq)
        t.revoked = false
      }
      const seq = t.nextSeq++
      Atomics.store(t.ctl, SLOT + (seq % SLOTS), j.stopped ? 1 : 0)
      j.thread = t
      j.seq = seq
      t.jobs.set(seq, j)
      ;(batches[best] ??= []).push(j.kind === 'run' ? this.runJob(t, seq, j.task as RunTask) : { seq, kind: j.kind, task: j.task })
    }
    for (let i = 0; i < batches.length; i++) {
      const jobs = batches[i]
      if (!jobs) continue
      this.threads[i]!.worker.postMessage({ jobs } satisfies JobsMessage)
      this.sent.messages++
      this.sent.jobs += jobs.length
    }
  }

  /** A run as sent to `t`: by its program's key alone when `t` was sent the program's text before. */
  private runJob(t: RunThread, seq: number, task: RunTask): Job {
    if (task.key === undefined || task.astText === undefined) return { seq, kind: 'run', task }
    if (t.known.has(task.key)) return { seq, kind: 'run', task: byKeyAlone(task), byKey: true }
    if (t.known.size >= MAX_KNOWN_PROGRAMS) t.known.clear()
    t.known.add(task.key)
    return { seq, kind: 'run', task }
  }

  private receive(t: RunThread, m: DoneMessage): void {
    t.answered = true
    this.received.messages++
    this.received.jobs += m.done.length
    for (const o of m.done) {
      const j = t.jobs.get(o.seq)
      if (!j) continue
      t.jobs.delete(o.seq)
      if (!o.ok && o.missing) {
        // The thread dropped the program since: the run goes again, with its text (it did not start).
        t.known.delete((j.task as RunTask).key!)
        j.thread = undefined
        this.queue.unshift(j)
        continue
      }
      this.settled(j)
      if (o.ok) j.resolve(o.value)
      else j.reject(new Error(o.message))
    }
    t.stuck = false
    this.wake()
  }

  private settled(j: Job$): void {
    this.live.delete(j)
    j.thread = undefined
    if (this.live.size === 0 && this.sweep) {
      clearInterval(this.sweep)
      this.sweep = undefined
    }
  }

  /** Take back the jobs `t` has not started; they go first in the queue. */
  private revoke(t: RunThread): void {
    if (t.revoked) return
    let w: number
    for (;;) {
      w = Atomics.load(t.ctl, CLAIM)
      if (w >= t.nextSeq) return
      if (Atomics.compareExchange(t.ctl, CLAIM, w, REVOKED) === w) break
    }
    t.revoked = true
    t.revokedAt = w
    const back: Job$[] = []
    for (let s = w; s < t.nextSeq; s++) {
      const j = t.jobs.get(s)
      if (!j) continue
      t.jobs.delete(s)
      j.thread = undefined
      back.push(j)
    }
    this.queue.unshift(...back)
    if (back.length > 0) this.wake()
  }

  /** End a job now: a thread running it is terminated; one not started yet is taken out of the queue. */
  private end(j: Job$): void {
    const t = j.thread
    if (t && t.started(j)) {
      // A thread already being terminated settles this job as it exits (lost).
      if (!t.terminating) this.terminate(t, j)
      return
    }
    if (t) this.revoke(t)
    const i = this.queue.indexOf(j)
    if (i >= 0) this.queue.splice(i, 1)
    this.settled(j)
    j.resolve(j.ended(false))
  }

  /** Terminate `t` because of `guilty` (settled with its outcome now); a fresh thread takes its place at once. */
  private terminate(t: RunThread, guilty: Job$): void {
    this.terminated++
    t.terminating = true
    this.revoke(t)
    t.jobs.delete(guilty.seq)
    t.guilty = guilty
    this.settled(guilty)
    guilty.resolve(guilty.ended(true))
    this.replace(t)
    void t.worker.terminate()
  }

  private replace(t: RunThread): void {
    const i = this.threads.indexOf(t)
    if (i >= 0 && !this.closing) this.threads[i] = this.spawn()
    // Its OS thread ends with it: nothing to restore (and renicing a thread that is gone would fail).
    t.niced = false
  }

  /** A thread that died before it ever answered may not load at all: its successor starts a second later, not in a loop. */
  private replaceLater(t: RunThread): void {
    setTimeout(() => { if (!this.closing && this.threads.includes(t)) this.replace(t) }, BROKEN_RESTART_MS).unref()
  }

  /**
   * `t` exited: the jobs it had not started go elsewhere; those it had started fail with it. One that
   * never answered (its module may not load) fails all its jobs, and is replaced a second later.
   */
  private lost(t: RunThread, why: string): void {
    if (t.gone) return
    t.gone = true
    const w = t.revoked ? t.revokedAt : Atomics.exchange(t.ctl, CLAIM, REVOKED)
    t.revoked = true
    t.revokedAt = w
    const broken = !t.answered && !t.guilty
    const back: Job$[] = []
    for (const [s, j] of t.jobs) {
      if (s >= w && !this.closing && !broken) {
        j.thread = undefined
        back.push(j)
        continue
      }
      this.settled(j)
      j.reject(new ThreadGone(t.guilty ? 'its worker was terminated because another run on it did not stop' : why))
    }
    t.jobs.clear()
    this.queue.unshift(...back)
    if (broken) this.replaceLater(t)
    else if (this.threads.includes(t)) this.replace(t)
    this.wake()
  }

  /** Deadlines, grace periods, long runs' priority and stuck threads. */
  private readonly check = (): void => {
    const now = performance.now()
    for (const j of this.live) {
      if (!j.stopped) { if (now >= j.deadline) this.stop(j) } else if (now >= j.killAt) this.end(j)
    }
    for (const t of this.threads) {
      const w = t.claim()
      const cur = w > 0 ? t.jobs.get(w - 1) : undefined
      if (cur !== t.current) {
        if (t.niced) this.renice(t, 0)
        t.current = cur
        t.since = now
        t.stuck = false
        continue
      }
      if (!cur) continue
      const long = now - t.since
      if (long >= STUCK_MS) {
        t.stuck = true
        if (t.jobs.size > 1) this.revoke(t)
      }
      const { longRunMs } = this.options
      if (longRunMs > 0 && long >= longRunMs && !t.niced && this.renice(t, 19)) this.deprioritized++
    }
  }

  private renice(t: RunThread, nice: number): boolean {
    const tid = Atomics.load(t.ctl, TID)
    if (!this.canRenice || tid === 0) return false
    try {
      setPriority(tid, nice)
      t.niced = nice !== 0
      return true
    } catch {
      // Not allowed here (no CAP_SYS_NICE to restore, or no such thread): stop trying.
      this.canRenice = false
      t.niced = false
      return false
    }
  }

  async close(): Promise<void> {
    this.closing = true
    if (this.sweep) clearInterval(this.sweep)
    this.sweep = undefined
    for (const j of this.live) j.reject(new ThreadGone('the server is stopping'))
    this.live.clear()
    this.queue.length = 0
    await Promise.all(this.threads.map((t) => t.worker.terminate()))
  }
}
