/**
 * A light stand-in for AbortController/AbortSignal on the per-run path: the runs route makes
 * one per request (the pool listens on it for a client that went away). A Node AbortSignal with a listener costs several microseconds to make and
 * to collect; this is a flag and a list.
 */

/** A function, or an object with handleEvent (as EventTarget takes): the pool's run is its own listener, no closure per run. */
export type StopListener = (() => void) | { handleEvent(): void }

/** What the pool and the executors read of a signal (an AbortSignal fits too). */
export interface StopSignal {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: StopListener, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: StopListener): void
}

export class StopController implements StopSignal {
  aborted = false
  reason: unknown
  private listeners: StopListener[] | undefined

  /** This object is its own signal (AbortController's shape). */
  get signal(): StopController {
    return this
  }

  addEventListener(_type: 'abort', listener: StopListener): void {
    if (this.aborted) return
    ;(this.listeners ??= []).push(listener)
  }

  removeEventListener(_type: 'abort', listener: StopListener): void {
    const i = this.listeners?.indexOf(listener) ?? -1
    if (i >= 0) this.listeners!.splice(i, 1)
  }

  abort(reason?: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    const fns = this.listeners
    this.listeners = undefined
    if (fns) for (const fn of fns) {
      if (typeof fn === 'function') fn()
      else fn.handleEvent()
    }
  }
}
