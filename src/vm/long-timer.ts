/**
 * The one timer for delays that come from guests or requests (a workflow's
 * `sleep`, a run's time limit, a parked workflow's wake-up time). Node and
 * browsers fire a `setTimeout` above 2^31-1 ms (about 24.8 days) at once (with
 * a warning), and one given NaN at once too: a long `sleep` would wake
 * immediately or spin. Here the delay is clamped to [0, ∞) (NaN is 0), armed
 * in chunks of at most 2^31-1 ms and re-armed until it is due; Infinity never
 * fires. Use it wherever a timer takes a guest-derived value.
 */

/** The longest delay `setTimeout` honours (ms). */
export const MAX_TIMER_MS = 2_147_483_647

export interface LongTimer {
  /** Cancel it (idempotent). */
  clear(): void
  /** Do not keep the process alive for it (Node); returns itself. */
  unref(): LongTimer
}

type Handle = ReturnType<typeof setTimeout>

/** Call `fn` once after `ms` milliseconds, however large; see the module comment. */
export function setLongTimeout(fn: () => void, ms: number, now: () => number = Date.now): LongTimer {
  const delay = Number.isNaN(ms) ? 0 : Math.max(0, ms)
  const due = now() + delay
  let handle: Handle | undefined
  let cleared = false
  let unrefd = false
  const arm = (): void => {
    if (cleared) return
    const left = due - now()
    if (left > MAX_TIMER_MS) {
      handle = setTimeout(arm, MAX_TIMER_MS)
    } else {
      handle = setTimeout(() => { if (!cleared) { cleared = true; fn() } }, Math.max(0, left))
    }
    if (unrefd) (handle as { unref?: () => void }).unref?.()
  }
  arm()
  const timer: LongTimer = {
    clear() {
      cleared = true
      if (handle !== undefined) clearTimeout(handle)
    },
    unref() {
      unrefd = true
      ;(handle as { unref?: () => void } | undefined)?.unref?.()
      return timer
    },
  }
  return timer
}

/** A promise that resolves after `ms` (clamped and re-armed as above); rejects with the signal's reason when it aborts first. */
export function sleepLong(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return }
    const onAbort = () => { t.clear(); reject(signal!.reason) }
    const t = setLongTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve() }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
