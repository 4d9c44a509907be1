/**
 * One `abort` listener per signal, whatever the number of waiters.
 *
 * Every pending atom call of a run waits on the run's signal (and on its
 * parallel group's). Adding a listener per call made a program that fans out
 * more than ten concurrent calls (`Promise.all(xs.map(x => llmPredict(...)))`)
 * trip Node's `MaxListenersExceededWarning: Possible EventTarget memory leak`
 * — a false alarm, but printed to every user of the library and `ajsc run`.
 * The hub registers one listener on the signal and keeps the waiters in a
 * set: adding and removing a waiter is O(1), and nothing is left behind.
 */
const hubs = new WeakMap<AbortSignal, Set<() => void>>()

/**
 * Call `fn` when `signal` aborts (never when it already has: check `aborted` first, like
 * `addEventListener`). Returns the function that removes it.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let waiters = hubs.get(signal)
  if (waiters === undefined) {
    const set = new Set<() => void>()
    waiters = set
    hubs.set(signal, set)
    signal.addEventListener('abort', () => {
      const all = [...set]
      set.clear()
      for (const w of all) w()
    }, { once: true })
  }
  waiters.add(fn)
  const set = waiters
  return () => { set.delete(fn) }
}
