/**
 * Requests the host answers: a step's request journaled and parked, its
 * attempts, retries (journaled backoff sleeps), per-request timeouts, and the
 * resolutions that settle it. One layer of the WorkflowExecution class chain.
 */
import { VmError, vmError } from '../../vm/errors.ts'
import { decodeResolution } from './codec.ts'
import { workflowError } from './errors.ts'
import type { WorkflowRequest, WorkflowRequestKind, WorkflowResolution } from './types.ts'
import { callTimeout } from './timeouts.ts'
import { retryDelay, retryPolicyFor, shouldRetry, type RetryPolicy } from './retry.ts'
import { inputHash, type Outcome, type Waiter } from './execution-types.ts'
import { ExecutionBase } from './execution-journal.ts'

export abstract class ExecutionRequests extends ExecutionBase {
  protected request(kind: WorkflowRequestKind, site: string, input: Record<string, unknown>): Promise<unknown> {
    this.activity++
    let policy: Required<RetryPolicy> | null = null
    let timeoutMs: number | undefined
    if (kind !== 'sleep') {
      try {
        policy = retryPolicyFor(kind, this.config.retry, ((input as { options?: { retry?: unknown } }).options ?? undefined)?.retry)
        timeoutMs = callTimeout((input as { options?: unknown }).options) ?? this.config.timeouts?.requestMs
      } catch (e) {
        return Promise.reject(vmError('ATOM_INPUT_INVALID', (e as Error).message, { op: kind }))
      }
    }
    let key = this.stepKey(kind, site, input)
    let id = `${kind}-${inputHash(key)}`
    const old = this.config.replay?.relaxed ? this.config.replay.request(key) : undefined
    if (old) { key = old.key; id = old.request.id } // an upgrade: the journaled step, at its old call site
    if (this.cancelState && !this.cancelState.delivered && !this.config.replay?.byKey.has(key)) {
      // Cancelled while no wait was parked: this wait throws it (journaled as the request and its cancelled resolution).
      this.cancelState.delivered = true
      const request = { type: kind, ...input, id } as WorkflowRequest
      this.append({ t: 'request', key, request })
      const resolution: WorkflowResolution = { Err: { message: `cancelled: ${this.cancelState.reason}`, code: 'WORKFLOW_CANCELLED' } }
      this.append({ t: 'resolution', id, resolution })
      return this.settle(resolution, key)
    }
    return this.ask(key, id, { type: kind, ...input } as WorkflowRequest, policy, timeoutMs)
  }

  /**
   * One step the host answers: the journaled resolution, or the request
   * emitted (journaled when new) and parked; a failure its policy retries is
   * journaled as an attempt, waited out with a journaled sleep, and asked again.
   */
  protected ask(key: string, id: string, base: WorkflowRequest, policy: Required<RetryPolicy> | null, timeoutMs?: number): Promise<unknown> {
    const replayed = this.config.replay?.byKey.get(key)
    let request = { ...base, id } as WorkflowRequest
    const done = this.config.replay?.attempts.get(key) ?? { total: 0, since: 0 }
    if (replayed) {
      this.config.replay!.consume(replayed)
      const resolution = replayed.resolution
      // Timers of attempts that ended are journaled and resolved: reached here (the one in flight is asked again).
      this.consumeTimers(id, resolution !== undefined ? done.total + 1 : done.total)
      if (resolution !== undefined) {
        if (done.total === 0) return this.settle(resolution, key)
        return this.replayBackoffs(id, done.total).then(() => this.settle(resolution, key))
      }
      // In flight when the journal ended: asked again (at-least-once); a sleep waits only what is left.
      if (request.type === 'sleep' && replayed.wakeAt !== undefined) request = { ...request, durationMs: Math.max(0, replayed.wakeAt - this.config.clock()) }
    } else {
      this.config.replay?.fresh.push(key)
      this.append(request.type === 'sleep'
        ? { t: 'request', key, request, wakeAt: this.config.clock() + request.durationMs }
        : { t: 'request', key, request })
    }
    // The request is queued synchronously (in call order) unless waits of failed attempts replay first.
    const emit = (): Promise<unknown> => this.attempts(key, id, request, policy, done.total, done.since, timeoutMs)
    return done.total === 0 ? emit() : this.replayBackoffs(id, done.total).then(emit)
  }

  /** Park the request until it is resolved; a failure its policy retries is waited out and asked again. */
  protected async attempts(key: string, id: string, request: WorkflowRequest, policy: Required<RetryPolicy> | null, total: number, since: number, timeoutMs?: number): Promise<unknown> {
    for (;;) {
      const n = total + 1
      const outcome = await new Promise<Outcome>((resolve) => {
        const w: Waiter = { request, key, policy, attempt: since + 1, resolve }
        this.waiting.set(id, w)
        this.queue.push({ request })
        if (timeoutMs !== undefined) this.armRequestTimer(w, id, n, timeoutMs)
      })
      if ('resolution' in outcome) return this.settle(outcome.resolution, key)
      since++
      total++
      await this.backoff(id, total, retryDelay(policy!, since))
    }
  }

  /**
   * A per-request timeout: attempt n of request `id` waits at most `ms`
   * (a journaled sleep request of the engine's, key `sleep|timeout:<id>|<n>|0`).
   * If it ends first, the attempt fails TIMEOUT (retried by the default policy)
   * and the host's work is aborted (requestSignal); an answer first ends it.
   */
  protected armRequestTimer(w: Waiter, id: string, n: number, ms: number): void {
    const key = `sleep|timeout:${id}|${n}|0`
    const timerId = `sleep-${inputHash(key)}`
    w.timerId = timerId
    this.ask(key, timerId, { type: 'sleep', id: '', durationMs: ms }, null).then(() => {
      if (this.waiting.get(id) !== w || this.stateValue !== 'running') return // answered first
      const c = this.requestAborts.get(id)
      const message = `${w.request.type} request timed out after ${ms} ms (timeoutMs)`
      this.resolveRequest(id, { Err: { message, code: 'TIMEOUT' } })
      c?.abort(vmError('TIMEOUT', message))
    }, () => { /* cancelled with the run */ })
  }

  /** Replay: the journaled timers of attempts 1..upto of request `id` that ended are reached. */
  protected consumeTimers(id: string, upto: number): void {
    const replay = this.config.replay
    if (!replay) return
    for (let n = 1; n <= upto; n++) {
      const t = replay.byKey.get(`sleep|timeout:${id}|${n}|0`)
      if (t && t.resolution !== undefined) replay.consume(t)
    }
  }

  /** The journaled waits of a step's failed attempts, in order (a replay; the last one may still be running). */
  protected async replayBackoffs(id: string, total: number): Promise<void> {
    for (let n = 1; n <= total; n++) await this.backoff(id, n, 0)
  }

  /** The wait before attempt n + 1 of step `id`: a journaled sleep (its key names the step and the attempt). */
  protected backoff(id: string, n: number, durationMs: number): Promise<unknown> {
    const key = `sleep|retry:${id}|${n}|0`
    return this.ask(key, `sleep-${inputHash(key)}`, { type: 'sleep', id: '', durationMs }, null)
  }

  /** Apply a resolution: the value (or the error) the parked atom returns. */
  protected settle(resolution: WorkflowResolution, key: string): Promise<unknown> {
    this.activity++
    if (resolution === 'OkUndefined') return Promise.resolve(undefined)
    if ('Ok' in resolution) return Promise.resolve(resolution.Ok)
    if ('OkWithBudget' in resolution) {
      this.budgetValue = { ...resolution.OkWithBudget.budget }
      return Promise.resolve(resolution.OkWithBudget.value)
    }
    if (resolution.Err.code === 'WORKFLOW_CANCELLED') return Promise.reject(new VmError('WORKFLOW_CANCELLED', resolution.Err.message))
    // The guest's `catch (e)` sees the host's message as is.
    this.stepErrors.push({ key, code: 'CAPABILITY_ERROR', message: resolution.Err.message })
    return Promise.reject(vmError('CAPABILITY_ERROR', resolution.Err.message))
  }

  /** Drain every queued, unresolved request (their promises stay parked until resolveRequest). */
  takePendingRequests(): WorkflowRequest[] {
    this.usable()
    this.flush()
    const out: WorkflowRequest[] = []
    for (let i = 0; i < this.queue.length;) {
      const e = this.queue[i]!
      if ('request' in e) { out.push(e.request); this.queue.splice(i, 1) } else i++
    }
    return out
  }

  /** Resolve or reject a pending request by id (an unknown id throws WORKFLOW_UNKNOWN_REQUEST). */
  resolveRequest(id: string, resolution: WorkflowResolution | unknown): void {
    this.usable()
    const decoded = decodeResolution(resolution)
    const w = typeof id === 'string' ? this.waiting.get(id) : undefined
    if (!w) throw workflowError('WORKFLOW_UNKNOWN_REQUEST', `No pending request has the id ${JSON.stringify(id)}`)
    const err = typeof decoded === 'object' && 'Err' in decoded ? decoded.Err : null
    const retry = err !== null && w.policy !== null && shouldRetry(w.policy, w.attempt, err.code === undefined ? [] : [err.code], err.transient === true)
    if (retry) {
      this.append({ t: 'attempt', key: w.key, id, attempt: w.attempt, error: { ...(err.code !== undefined ? { code: err.code } : {}), message: err.message } })
    } else this.append({ t: 'resolution', id, resolution: decoded })
    this.unpark(id, w.timerId)
    w.resolve(retry ? { retry: true } : { resolution: decoded })
  }

  /** Ids of requests emitted and not resolved yet (drained or not). */
  pendingRequestIds(): string[] {
    return [...this.waiting.keys()]
  }

  /** A parked request answered (journaled already): its wait resumes. */
  protected settleWaiting(id: string, resolution: WorkflowResolution): void {
    const w = this.waiting.get(id)!
    this.unpark(id, w.timerId)
    w.resolve({ resolution })
  }

  /** A parked request leaves every place that holds it (its wait, its timer, the undrained queue, its abort). */
  private unpark(id: string, timerId: string | undefined): void {
    this.waiting.delete(id)
    this.endTimer(timerId)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === id)
    if (at >= 0) this.queue.splice(at, 1)
    this.activity++
    this.requestAborts.delete(id)
  }

  /** A signal wait's timer that is no longer needed: resolved now (journaled), so a replay finds it settled. */
  protected endTimer(timerId: string | undefined): void {
    const t = timerId === undefined ? undefined : this.waiting.get(timerId)
    if (!t) return
    this.append({ t: 'resolution', id: timerId!, resolution: 'OkUndefined' })
    this.waiting.delete(timerId!)
    const at = this.queue.findIndex((e) => 'request' in e && e.request.id === timerId)
    if (at >= 0) this.queue.splice(at, 1)
    this.requestAborts.get(timerId!)?.abort()
    t.resolve({ resolution: 'OkUndefined' })
  }

  /** Aborted when the request is cancelled (or no longer needed): pass it to the work that answers the request. */
  requestSignal(id: string): AbortSignal {
    let c = this.requestAborts.get(id)
    if (!c) this.requestAborts.set(id, (c = new AbortController()))
    if (!this.waiting.has(id)) c.abort()
    return c.signal
  }
}
