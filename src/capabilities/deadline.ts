/**
 * One AbortSignal per capability call that fires on the caller's signal or on
 * the call's own timeout, remembering which of the two fired so the error
 * carries the right code (`*_ABORTED` vs `*_TIMEOUT`).
 *
 * `dispose()` must run in a `finally`: it clears the timer and detaches from
 * the caller's signal, which usually lives for a whole run and would
 * otherwise collect one listener per call.
 */

import { setLongTimeout } from '../vm/long-timer.ts'

/** Why a deadline fired. */
export type DeadlineReason = 'timeout' | 'aborted'

/** A combined signal with its cause and cleanup. */
export interface Deadline {
  readonly signal: AbortSignal
  /** Null while the signal has not fired. */
  reason(): DeadlineReason | null
  dispose(): void
}

/** Combine an optional caller signal with a timeout in milliseconds. */
export function createDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController()
  let why: DeadlineReason | null = null
  const fire = (reason: DeadlineReason): void => {
    if (why !== null) return
    why = reason
    controller.abort(new Error(reason))
  }
  const onAbort = (): void => fire('aborted')
  const timer = setLongTimeout(() => fire('timeout'), timeoutMs)
  if (callerSignal) {
    if (callerSignal.aborted) fire('aborted')
    else callerSignal.addEventListener('abort', onAbort, { once: true })
  }
  return {
    signal: controller.signal,
    reason: () => why,
    dispose(): void {
      timer.clear()
      callerSignal?.removeEventListener('abort', onAbort)
    },
  }
}

/**
 * Settle with `promise`, or reject with `onAbort()` as soon as `signal` fires.
 * For work that cannot be cancelled itself (a DNS lookup): the caller stops
 * waiting, and the late result is ignored.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort())
  return new Promise<T>((resolve, reject) => {
    const listener = (): void => reject(onAbort())
    signal.addEventListener('abort', listener, { once: true })
    promise.then(
      (v) => { signal.removeEventListener('abort', listener); resolve(v) },
      (e: unknown) => { signal.removeEventListener('abort', listener); reject(e) },
    )
  })
}
