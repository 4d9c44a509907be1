/**
 * How a run ends besides failing: its deadline (timeouts.runMs, a journaled
 * sleep), continueAsNew, and completion (the end entry). One layer of the
 * WorkflowExecution class chain.
 */
import { vmError } from '../../vm/errors.ts'
import { workflowError } from './errors.ts'
import type { JournalEntry } from './journal.ts'
import { inputHash } from './execution-types.ts'
import { ExecutionAtoms } from './execution-atoms.ts'

export abstract class ExecutionDeadline extends ExecutionAtoms {
  /**
   * The run's deadline (timeouts.runMs after the start entry's `at`) is a
   * journaled sleep request of the engine's: the host waits for it like any
   * sleep (a resume waits only what is left); when it ends first, the run
   * fails WORKFLOW_TIMEOUT. A replay that finds it ended fails once the replay
   * is checked (the journal's steps are reached first).
   */
  protected armDeadline(): void {
    const runMs = this.config.timeouts?.runMs
    if (runMs === undefined) return
    const start = this.entries[0] as Extract<JournalEntry, { t: 'start' }>
    const key = 'sleep|deadline:run|0|0'
    const id = `sleep-${inputHash(key)}`
    this.deadlineId = id
    const durationMs = Math.max(0, start.at + runMs - this.config.clock())
    this.ask(key, id, { type: 'sleep', id: '', durationMs }, null).then(() => {
      const fire = () => {
        if (this.stateValue !== 'running') return
        this.fail(workflowError('WORKFLOW_TIMEOUT', `The workflow ${this.id} ran past its deadline (timeouts.runMs: ${runMs} ms after it started)`))
      }
      if (this.replayGate) void this.replayGate.then(fire)
      else fire()
    }, () => { /* the run ended first */ })
  }

  /** Called by the workflow's continueAsNew(args): the VM run stops (uncatchable) and the run ends continued. */
  protected continueAsNew(args: unknown): never {
    let data: unknown
    try { data = JSON.parse(JSON.stringify(args ?? {})) } catch (e) { throw vmError('ATOM_INPUT_INVALID', `continueAsNew: the args must be JSON data: ${(e as Error).message}`, { op: 'continueAsNew' }) }
    this.continuation = { args: data }
    throw vmError('ABORTED', 'continueAsNew: the run ends here and the next run of its chain starts')
  }

  protected complete(result: unknown): void {
    this.stateValue = 'complete'
    this.result = result
    if (this.deadlineId && this.waiting.has(this.deadlineId)) {
      // Journaled as ended, so the journal shows nothing in flight (a replay settles it and the run is already over).
      if (!this.config.replay?.ended) this.append({ t: 'resolution', id: this.deadlineId, resolution: 'OkUndefined' })
      this.dropRequest(this.deadlineId)
    }
    if (this.continuation) {
      // Requests of other branches still in flight are abandoned with the run.
      for (const id of [...this.waiting.keys()]) this.dropRequest(id)
      for (let i = this.queue.length - 1; i >= 0; i--) if ('request' in this.queue[i]!) this.queue.splice(i, 1)
    }
    if (!this.config.replay?.ended) {
      this.append(this.continuation ? { t: 'end', result, continueAsNew: { args: this.continuation.args, budget: { ...this.budgetValue } } } : { t: 'end', result })
    }
  }

  /** continueAsNew(args) ended the run: the args of the next run of its chain (null otherwise). */
  get continuedAsNew(): { args: unknown } | null {
    return this.continuation && { args: structuredClone(this.continuation.args) }
  }
}
