/**
 * The per-worker heap limit, decided and applied in one place for every
 * runtime that runs the pool (issue 23, class 8). Node applies the
 * `resourceLimits` the pool gives each worker thread; Bun ignores them (a worker there
 * grows until the process runs out of memory). So:
 *
 * - every run gets a `maxHeapBytes` derived from the worker's heap (a quarter
 *   of it, at most the VM's 64 MiB default), passed with the task on every
 *   runtime: one value can never take a worker's whole heap;
 * - where the runtime does not apply `resourceLimits`, the pool watches the
 *   process's resident memory instead: above the heap of all its workers
 *   (plus what the process held when the pool started), it interrupts every
 *   run going for a watch period or longer (else the oldest), and terminates its worker after the grace period
 *   if it does not stop — the same path as a run past its deadline.
 */

/** Default old-generation heap of one worker, in MiB. */
export const DEFAULT_WORKER_HEAP_MB = 512

/** Whether this runtime applies worker_threads' `resourceLimits` (Node does, Bun does not). */
export const RUNTIME_APPLIES_WORKER_HEAP_LIMIT: boolean = !('bun' in process.versions)

/** The `resourceLimits` of a pool worker (applied where the runtime supports them). */
export function workerResourceLimits(maxHeapMb: number): { maxOldGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: maxHeapMb }
}

/** The VM's default `maxHeapBytes`. */
const VM_DEFAULT_HEAP_BYTES = 64 * 1024 * 1024

/** The `maxHeapBytes` of every run in a worker of `maxHeapMb`: a quarter of its heap, at most the VM's default. */
export function runMaxHeapBytes(maxHeapMb: number): number {
  return Math.max(1024 * 1024, Math.min(VM_DEFAULT_HEAP_BYTES, Math.floor((maxHeapMb * 1024 * 1024) / 4)))
}

/** How often the pool looks at the process's memory where the runtime applies no limit (ms). */
export const HEAP_WATCH_MS = 50

/** Growth of resident memory within one watch period that counts as a run still allocating (16 MiB). */
export const HEAP_GROWTH_BYTES = 16 * 1024 * 1024

/** The resident memory the pool allows where the runtime applies no per-worker limit. */
export function processHeapCeiling(baseRssBytes: number, size: number, maxHeapMb: number): number {
  return baseRssBytes + size * maxHeapMb * 1024 * 1024
}
