/**
 * The host's custom atom calls: approvals (a call that needs one waits for
 * the signal `approval:<id>`), the journaled outcome of each call, its
 * retries, and the replay gate that holds new calls until a resume is
 * checked. One layer of the WorkflowExecution class chain.
 */
import { vmError, type AgentError } from '../../vm/errors.ts'
import type { AtomContext, AtomDef } from '../../vm/atoms/types.ts'
import { outcomeValue, runAtom, type ReplayedAtom } from './custom-atoms.ts'
import type { AtomResolution } from './journal.ts'
import { editedInput, needsApproval, normalizeDecision, rejectedError, type ApprovalCall } from '../../codemode/approval.ts'
import { retryDelay, retryPolicyFor, shouldRetry, type RetryPolicy } from './retry.ts'
import { APPROVAL_SIGNAL, inputHash } from './execution-types.ts'
import { ExecutionSignals } from './execution-signals.ts'

export abstract class ExecutionAtoms extends ExecutionSignals {
  /**
   * A custom atom call that needs approval (code mode) first waits for the
   * signal `approval:<id>`: the wait is journaled like any signal wait, so the
   * pause outlives the process and a replay hands it the same decision. While
   * it waits, the call is listed by approvals() and the `approvals` query.
   */
  protected callAtom(def: AtomDef, input: Record<string, unknown>, site: string, ctx: AtomContext, options?: unknown): unknown {
    if (!needsApproval(def, input, this.config.approval)) return this.callAtomNow(def, input, site, ctx, options)
    const id = `approval-${inputHash(this.stepKey(`approval:${def.op}`, site, input))}`
    const mcp = (def as { mcp?: { server: string; tool: string } }).mcp
    this.pendingApprovals.set(id, { id, op: def.op, input: structuredClone(input), site, ...(mcp ? { mcp: { server: mcp.server, tool: mcp.tool } } : {}) })
    this.publishApprovals()
    return this.waitSignal(site, `${APPROVAL_SIGNAL}${id}`, undefined).then((payload) => {
      this.pendingApprovals.delete(id)
      this.publishApprovals()
      let decision: ReturnType<typeof normalizeDecision>
      try {
        decision = normalizeDecision(payload)
      } catch (e) {
        throw vmError('ATOM_INPUT_INVALID', `${def.op}: ${(e as Error).message}`, { op: def.op })
      }
      if (!decision.approve) throw rejectedError(def.op, decision.reason)
      return this.callAtomNow(def, decision.input ? editedInput(def, decision.input) : input, site, ctx, options)
    }, (e: unknown) => {
      this.pendingApprovals.delete(id)
      this.publishApprovals()
      throw e
    })
  }

  /** The calls waiting for approval, for queries (`approvals`): kept once any call has waited. */
  protected publishApprovals(): void {
    this.activity++
    this.exposed.set('approvals', [...this.pendingApprovals.values()].map((a) => structuredClone(a)))
  }

  /** Calls of atoms waiting for approval: answer each with approve(id, input?) or reject(id, reason?). */
  approvals(): ApprovalCall[] {
    return [...this.pendingApprovals.values()].map((a) => structuredClone(a))
  }

  /** Approve a waiting call (with edited input: checked against the atom's schema). Journaled as the signal `approval:<id>`; false if already answered. */
  approve(id: string, input?: Record<string, unknown>): boolean {
    return this.signal(`${APPROVAL_SIGNAL}${id}`, { approve: true, ...(input !== undefined ? { input } : {}) }, `${APPROVAL_SIGNAL}${id}`)
  }

  /** Reject a waiting call: it throws APPROVAL_REJECTED in the workflow (catchable). */
  reject(id: string, reason?: string): boolean {
    return this.signal(`${APPROVAL_SIGNAL}${id}`, { approve: false, ...(reason !== undefined ? { reason } : {}) }, `${APPROVAL_SIGNAL}${id}`)
  }

  /** A custom atom call: the journaled outcome, or the atom run and its outcome journaled (custom-atoms.ts). */
  protected callAtomNow(def: AtomDef, input: Record<string, unknown>, site: string, ctx: AtomContext, options?: unknown): unknown {
    this.activity++
    let key = this.stepKey(`atom:${def.op}`, site, input)
    const replayed = this.config.replay?.atom(key)
    if (replayed) key = replayed.key
    const done = this.config.replay?.attempts.get(key)
    if (replayed) {
      this.config.replay!.consume(replayed)
      if (!done) return this.replayedOutcome(def, key, replayed, input, ctx)
      // Retried before it got this outcome: its journaled waits replay first.
      return this.replayBackoffs(`atom-${inputHash(key)}`, done.total).then(() => this.replayedOutcome(def, key, replayed, input, ctx))
    }
    let policy: Required<RetryPolicy>
    try {
      policy = retryPolicyFor('atom', this.config.retry, (options as { retry?: unknown } | undefined)?.retry)
    } catch (e) {
      throw vmError('ATOM_INPUT_INVALID', (e as Error).message, { op: def.op })
    }
    if (!done) this.config.replay?.fresh.push(key)
    return this.runFresh(def, input, key, ctx, policy, done?.total ?? 0, done?.since ?? 0)
  }

  /** The guest's value of a journaled outcome; an error is remembered as a step error (see fail()). */
  protected stepOutcome(key: string, o: { resolution?: AtomResolution; error?: AgentError }): unknown {
    if (o.error !== undefined) this.stepErrors.push({ key, code: o.error.code, message: o.error.message })
    return outcomeValue(o)
  }

  /** A journaled outcome in place of the call; an atom whose call also changes its run (ReplayedAtom) changes it again. */
  private replayedOutcome(def: AtomDef, key: string, o: { resolution?: AtomResolution; error?: AgentError }, input: Record<string, unknown>, ctx: AtomContext): unknown {
    const value = this.stepOutcome(key, o)
    ;(def as ReplayedAtom).replayed?.(value, input, ctx)
    return value
  }

  protected async runFresh(def: AtomDef, input: Record<string, unknown>, key: string, ctx: AtomContext, policy: Required<RetryPolicy>, total: number, since: number): Promise<unknown> {
    const stepId = `atom-${inputHash(key)}`
    // Waits of attempts that failed before: journaled sleeps, replayed (the last one may still be running).
    await this.replayBackoffs(stepId, total)
    for (;;) {
      if (this.replayGate) await this.replayGate
      if (ctx.signal.aborted) throw ctx.signal.reason
      this.atomsRunning++
      let outcome: Awaited<ReturnType<typeof runAtom>>
      let retry = false
      try {
        outcome = await runAtom(def, input, ctx)
        // Cancelled (the run stopped, a parallel sibling failed): the guest never sees it, so it is not journaled.
        if (ctx.signal.aborted || this.stateValue !== 'running') throw ctx.signal.reason ?? vmError('ABORTED')
        if ('error' in outcome) {
          const inner = (outcome.error.value as { code?: unknown } | undefined)?.code
          const codes = [outcome.error.code, ...(typeof inner === 'string' ? [inner] : [])]
          retry = shouldRetry(policy, since + 1, codes)
        }
        if (retry) {
          const error = outcome as { error: AgentError }
          this.append({ t: 'attempt', key, attempt: since + 1, error: { code: error.error.code, message: error.error.message } })
        } else this.append({ t: 'atom', key, op: def.op, ...outcome })
        this.flush()
      } finally {
        this.atomsRunning--
        this.activity++
        for (const wake of this.atomWaiters.splice(0)) wake()
      }
      // The workflow continues only once the outcome is durable: nothing it does next can be journaled without it.
      // A failed write parks the call; poll() reports the store's error.
      try { while (this.writing) await this.writing } catch { await new Promise(() => {}) }
      if (!retry) return this.stepOutcome(key, outcome)
      since++
      total++
      await this.backoff(stepId, total, retryDelay(policy, since))
    }
  }

  /** The replay against a new program matched the journal: the run continues on it (journaled). */
  upgraded(astHash: string): void {
    this.append({ t: 'upgrade', astHash, at: this.config.clock() })
    this.flush()
  }

  /** The replay was checked (resumeWorkflow): custom atom calls the journal does not have may run now. */
  replayChecked(): void {
    this.openGate?.()
    this.replayGate = null
  }
}
