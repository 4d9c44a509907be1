/**
 * What reaches a running workflow from outside besides answers: signals
 * (waits, buffering, idempotent ids), cancellation, queries of exposed
 * values, and patches. One layer of the WorkflowExecution class chain.
 */
import { VmError } from '../../vm/errors.ts'
import { workflowError } from './errors.ts'
import type { JournalEntry } from './journal.ts'
import { mergeAttributes, type SearchAttributes, type SearchInfo } from './search.ts'
import type { WorkflowResolution } from './types.ts'
import { APPROVAL_SIGNAL, inputHash } from './execution-types.ts'
import { ExecutionRequests } from './execution-requests.ts'

export abstract class ExecutionSignals extends ExecutionRequests {
  /** `await signal(name, timeoutMs?)`: a buffered signal, or park until one is sent (or the timeout, or a cancel). */
  protected waitSignal(site: string, name: string | null, timeoutMs: number | undefined): Promise<unknown> {
    this.activity++
    let key = this.stepKey('signal', site, { name })
    const journaled = this.config.replay?.wait(key)
    if (journaled) key = journaled.key
    const waitId = `signal-${inputHash(key)}`
    const timerKey = `sleep|timeout:${waitId}|1|0`
    const timer = (): Promise<unknown> => this.ask(timerKey, `sleep-${inputHash(timerKey)}`, { type: 'sleep', id: '', durationMs: timeoutMs ?? 0 }, null)
    if (journaled) {
      this.config.replay!.consume(journaled)
      // The timer (if any) was journaled and resolved (by its end, or when the signal came): replay it too.
      const after = timeoutMs !== undefined && this.config.replay!.byKey.has(timerKey) ? timer() : Promise.resolve()
      if (journaled.cancelled) return after.then(() => { throw this.cancelError() })
      if (journaled.timeout) return after.then(() => null)
      const sig = this.config.replay!.signals.find((x) => x.id === journaled.signal)
      return after.then(() => structuredClone(sig?.payload ?? null))
    }
    if (this.cancelState && !this.cancelState.delivered) {
      this.cancelState.delivered = true
      this.append({ t: 'wait', key, cancelled: true })
      return Promise.reject(this.cancelError())
    }
    const timerJournaled = timeoutMs !== undefined ? this.config.replay?.byKey.get(timerKey) : undefined
    const at = timerJournaled?.resolution !== undefined ? -1 : this.signalBuffer.findIndex((x) => (name === null ? !x.name.startsWith(APPROVAL_SIGNAL) : x.name === name))
    if (at >= 0) {
      // The wait parked with its timer, then the signal was journaled (by another writer): the timer ends with the wait.
      if (timerJournaled) {
        this.config.replay!.consume(timerJournaled)
        this.append({ t: 'resolution', id: timerJournaled.request.id, resolution: 'OkUndefined' })
      }
      const [sig] = this.signalBuffer.splice(at, 1)
      this.append({ t: 'wait', key, signal: sig!.id })
      return Promise.resolve(structuredClone(sig!.payload ?? null))
    }
    return new Promise((resolve, reject) => {
      const waiter: (typeof this.signalWaiters)[number] = { key, name, resolve, reject }
      this.signalWaiters.push(waiter)
      if (timeoutMs !== undefined) {
        waiter.timerId = `sleep-${inputHash(timerKey)}`
        timer().then(() => {
          const i = this.signalWaiters.indexOf(waiter)
          if (i < 0) return // a signal (or a cancel) came first
          this.signalWaiters.splice(i, 1)
          this.append({ t: 'wait', key, timeout: true })
          this.activity++
          resolve(null)
        }, () => { /* cancelled with the wait */ })
      }
    })
  }

  protected cancelError(): VmError {
    return new VmError('WORKFLOW_CANCELLED', `cancelled: ${this.cancelState?.reason ?? ''}`)
  }

  /**
   * Send the workflow a signal: journaled, then handed to the first wait for
   * its name, or buffered until one asks. `id` makes sending idempotent (a
   * signal whose id the journal has is ignored; returns false).
   */
  signal(name: string, payload?: unknown, id?: string): boolean {
    this.usable()
    if (typeof name !== 'string' || name.length === 0 || name.length > 200) throw workflowError('WORKFLOW_OPTIONS_INVALID', 'A signal name is a non-empty string (at most 200 characters)')
    if (this.stateValue !== 'running') throw workflowError('WORKFLOW_OPTIONS_INVALID', `Execution ${this.id} has ended (${this.stateValue}): it takes no signals`)
    const sigId = id ?? `sig-${++this.signalCount}-${inputHash(`${name}|${this.config.clock()}|${Math.random()}`).slice(0, 8)}`
    if (this.signalIds.has(sigId)) return false
    let data: unknown
    try { data = payload === undefined ? undefined : JSON.parse(JSON.stringify(payload)) } catch (e) { throw workflowError('WORKFLOW_OPTIONS_INVALID', `A signal payload must be JSON data: ${(e as Error).message}`) }
    this.append({ t: 'signal', id: sigId, name, ...(data !== undefined ? { payload: data } : {}) })
    this.deliverSignal(sigId, name, data)
    return true
  }

  /** A journaled signal handed to the first wait for its name, or buffered. */
  protected deliverSignal(sigId: string, name: string, data: unknown): void {
    this.signalIds.add(sigId)
    this.activity++
    // `signal()` (any name) never takes an approval: only the call waiting for it does.
    const w = this.signalWaiters.findIndex((x) => (x.name === null ? !name.startsWith(APPROVAL_SIGNAL) : x.name === name))
    if (w < 0) { this.signalBuffer.push({ id: sigId, name, ...(data !== undefined ? { payload: data } : {}) }); return }
    const [waiter] = this.signalWaiters.splice(w, 1)
    this.append({ t: 'wait', key: waiter!.key, signal: sigId })
    this.endTimer(waiter!.timerId)
    waiter!.resolve(structuredClone(data ?? null))
  }

  /**
   * Cancel the run: journaled; the wait it is parked on (requests in flight,
   * a signal wait, a retry's wait) throws WORKFLOW_CANCELLED, or the next one
   * does if none is parked. `try/finally` (and `catch`) in the workflow run and
   * may still call agents for cleanup; an uncaught cancellation ends the run
   * `cancelled` (poll() throws WORKFLOW_CANCELLED). Requests in flight get
   * their `requestSignal(id)` aborted. Returns false when already cancelled.
   */
  cancel(reason = 'cancelled'): boolean {
    this.usable()
    if (this.stateValue !== 'running' || this.cancelState) return false
    this.append({ t: 'cancel', reason: String(reason).slice(0, 1000) })
    this.applyCancel(reason)
    return true
  }

  /** A journaled cancellation: the parked waits throw it (journaled), or the next wait does. */
  protected applyCancel(reason: string): void {
    this.cancelState = { reason: String(reason).slice(0, 1000), delivered: false }
    this.activity++
    this.deliverCancel()
  }

  /**
   * A cancellation not delivered yet goes to the waits parked now (a resume
   * whose journal ends with a `cancel` entry calls this once the replay is
   * checked: the requests in flight then throw it).
   */
  deliverCancel(): void {
    if (!this.cancelState || this.cancelState.delivered || this.stateValue !== 'running') return
    const err = this.cancelError()
    for (const w of this.signalWaiters.splice(0)) {
      this.cancelState.delivered = true
      this.append({ t: 'wait', key: w.key, cancelled: true })
      this.endTimer(w.timerId)
      w.reject(err)
    }
    for (const [id, w] of [...this.waiting]) {
      if (id === this.deadlineId || !this.waiting.has(id)) continue // the deadline still holds for the cleanup
      this.cancelState.delivered = true
      const resolution: WorkflowResolution = { Err: { message: err.message, code: 'WORKFLOW_CANCELLED' } }
      this.append({ t: 'resolution', id, resolution })
      this.waiting.delete(id)
      const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
      if (at >= 0) this.queue.splice(at, 1)
      this.requestAborts.get(id)?.abort(err)
      w.resolve({ resolution })
    }
  }

  /** A query: the value the workflow last exposed under `name` (undefined when none), or every exposed value. */
  query(name?: string): unknown {
    if (name === undefined) return Object.fromEntries([...this.exposed].map(([k, v]) => [k, structuredClone(v)]))
    return structuredClone(this.exposed.get(name))
  }

  /**
   * `upsertAttributes(set)`: the run's search attributes change (null removes one), checked against
   * the bounds (SEARCH_ATTRIBUTES_LIMIT / _INVALID, catchable: nothing changes). Journaled, except the
   * upserts a replay passes again (the journal has them; the same code makes the same calls).
   */
  protected upsertAttributes(set: unknown): SearchAttributes {
    this.activity++
    const fail = (code: string, message: string) => new VmError(code, message, { op: 'upsertAttributes' })
    const next = mergeAttributes(this.attributesValue, set, 'upsertAttributes', fail)
    this.attributesValue = next.attributes
    if (this.attributeSetsToReplay > 0) this.attributeSetsToReplay--
    else this.append({ t: 'attributes', set: next.set })
    return { ...next.attributes }
  }

  /** The run's name, tags and search attributes as of now (the start's, changed by upsertAttributes). */
  get search(): SearchInfo {
    const start = this.entries[0] as Extract<JournalEntry, { t: 'start' }>
    return {
      ...(start.name !== undefined ? { name: start.name } : {}),
      ...(start.tags !== undefined && start.tags.length > 0 ? { tags: [...start.tags] } : {}),
      ...(Object.keys(this.attributesValue).length > 0 ? { attributes: { ...this.attributesValue } } : {}),
    }
  }

  /** Cancelled (and the reason), for hosts and summaries. */
  get cancelled(): string | null {
    return this.cancelState?.reason ?? null
  }

  /**
   * `patched(id)`: true when the run takes the new code path. A run that
   * journaled the patch takes it; a replay still inside its journal (steps
   * it has not reached yet) was written by the old code: false; otherwise
   * (new runs, and old runs past the end of their journal) true, journaled.
   */
  protected patched(id: string): boolean {
    this.activity++
    if (this.patchesTaken.has(id)) return true
    if (this.config.replay && this.config.replay.unconsumed > 0) return false
    this.patchesTaken.add(id)
    this.append({ t: 'patch', id })
    return true
  }
}
