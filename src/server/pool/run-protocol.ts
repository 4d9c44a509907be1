/**
 * What the run threads (run-threads.ts, the main side; worker.ts, the thread
 * side) exchange. Jobs go to a thread several to a message and come back
 * several to a message, so the main thread pays one message each way per
 * batch, not per run.
 *
 * Each thread shares one Int32Array with the main thread:
 * - [CLAIM] is the sequence number of the next job the thread may start. The
 *   thread starts job `s` only by moving CLAIM from s to s + 1
 *   (compare-exchange); the main thread takes back every job not started yet
 *   by moving CLAIM to REVOKED, and the thread then drops them. A job is
 *   started exactly once, by the thread it was sent to or, taken back, by
 *   another.
 * - [TID] is the thread's OS thread id (Linux), for lowering the CPU priority
 *   of a thread whose run goes on long.
 * - [SLOT + seq % SLOTS] is the interrupt flag of job `seq` (the VM's
 *   `interrupt`): set by the main thread to stop that run, and only that run.
 */

export const CLAIM = 0
export const TID = 1
export const SLOT = 2
/** Interrupt flags per thread; a thread never holds more jobs than this (MAX_JOBS_PER_THREAD). */
export const SLOTS = 256
/** CLAIM's value once the main thread took the unstarted jobs back (until it sends more). */
export const REVOKED = -1
/** Sequence numbers start again from 0 past this, at a moment the thread holds no job. */
export const MAX_SEQ = 2 ** 30

/** The functions of the worker module a job may call. */
export type JobKind = 'run' | 'compileTask' | 'compileWorkflowTask' | 'planTask'

export interface Job {
  seq: number
  kind: JobKind
  task: unknown
  /** A run sent by its program's key alone (the thread was sent the text before; see byKeyAlone). */
  byKey?: true
}

/** Main thread to a run thread. */
export interface JobsMessage {
  jobs: Job[]
}

/** `missing`: the run was sent by its program's key alone and this thread no longer holds the program: send it again with the text. */
export type JobOutcome = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; message: string; missing?: true }

/** Thrown by a thread's run handler for `missing` (see JobOutcome). */
export class MissingProgram extends Error {}

/**
 * A run's program goes to a thread as its text once; after that, runs of the same program (same
 * key: its SHA-256) go to that thread by key alone, so the main thread does not copy kilobytes of
 * AST text into every message. How many keys the main thread remembers per thread (the thread
 * keeps up to 512 programs; one it dropped is asked for again: MissingProgram).
 */
export const MAX_KNOWN_PROGRAMS = 256

/** The task as sent to a thread that has its program: without the text. */
export function byKeyAlone<T extends { astText?: string }>(task: T): T {
  return { ...task, astText: undefined }
}

/** A run thread to the main thread: the outcomes of jobs it finished, in the order it started them. */
export interface DoneMessage {
  done: JobOutcome[]
}

/** The shared control words of a thread (see the module comment). */
export function newControl(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * (SLOT + SLOTS)))
}
