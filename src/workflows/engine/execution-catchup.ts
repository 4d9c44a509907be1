/**
 * Catching a live execution up with a tail of its journal that another
 * process wrote (two `ajsc worker` processes taking a workflow's steps in
 * turn): the execution replays only those entries, forward from its live
 * state, instead of a new execution replaying the whole journal. So each
 * process replays each entry at most once over the run's life, and a run's
 * cost stays O(journal) however its steps are spread. One layer of the
 * WorkflowExecution class chain.
 *
 * The tail is indexed like a resume's journal (replay.ts): the run's next
 * requests, atom calls, signal waits, clock reads, log calls and attribute
 * upserts are answered from it, as a replay answers them. What the tail says
 * about steps this execution had parked before it began (their resolutions,
 * the ends of their signal waits) settles those parked promises; what they
 * journal again as they settle (a timer ended with its request, a wait taking
 * its signal) is matched against the tail's entries, not appended twice.
 * Custom atom calls the tail does not have wait until the tail is checked.
 * When it does not fit (a step it never reaches, a parked step settled
 * differently, kinds it does not follow: retries of a parked request, a retry,
 * an upgrade, the run's end), the host replays the journal from its start,
 * which tells a real divergence (JOURNAL_MISMATCH) as before.
 */
import type { JournalEntry } from './journal.ts'
import { ReplayIndex } from './replay.ts'
import { utf8Length } from './execution-types.ts'
import { echoKey } from './execution-journal.ts'
import { ExecutionDeadline } from './execution-deadline.ts'

/** Entry kinds a catch-up leaves to a full replay. */
const NOT_FOLLOWED: ReadonlySet<JournalEntry['t']> = new Set(['start', 'retry', 'upgrade', 'end'])

export abstract class ExecutionCatchUp extends ExecutionDeadline {
  /** Wait until the run is parked (execution.ts); `untilParked`: even with events queued. */
  protected abstract quiesce(untilParked?: boolean): Promise<void>
  abstract dispose(): void

  /**
   * Replay `entries` (the journal after this execution's last entry, written by another process from the same
   * state) forward from the live state; the run then goes on past them as usual (it may end there). Returns
   * false when they do not fit: nothing was applied when that is seen up front; otherwise the execution is
   * disposed. Either way the host replays the journal instead.
   */
  async catchUp(entries: readonly JournalEntry[]): Promise<boolean> {
    this.usable()
    if (this.stateValue !== 'running' || this.replayGate || this.unflushed.length > 0 || this.atomsRunning > 0) return false
    if (entries.some((e) => NOT_FOLLOWED.has(e.t))) return false
    let index: ReplayIndex
    try {
      index = new ReplayIndex(entries, { requests: new Set(this.waiting.keys()), waits: new Set(this.signalWaiters.map((w) => w.key)) })
    } catch {
      return false // e.g. a resolution of a request this execution never made
    }
    for (const w of this.waiting.values()) if (index.attempts.has(w.key)) return false
    if ((index.cancel && this.cancelState) || index.signals.some((s) => this.signalIds.has(s.id))) return false

    for (const e of entries) {
      this.entries.push(e)
      this.journalBytes += utf8Length(JSON.stringify(e)) + 1
    }
    // Signals the tail's waits took: answered from the index (one sent before the tail may still be buffered here).
    const taken = new Set([...index.waits.values()].map((w) => w.signal).filter((s) => s !== undefined))
    for (let i = this.signalBuffer.length - 1; i >= 0; i--) if (taken.has(this.signalBuffer[i]!.id)) index.signals.push(...this.signalBuffer.splice(i, 1))
    this.config.replay = index
    this.suppressCalls = index.calls
    this.attributeSetsToReplay = index.attributeSets
    for (const id of index.patches) this.patchesTaken.add(id)
    if (index.cancel) { this.cancelState = { ...index.cancel }; this.activity++ }
    this.echoes = new Map(index.parked.map((e) => [echoKey(e)!, e]))
    this.echoMismatch = false
    this.replayGate = new Promise((r) => { this.openGate = r })
    // In journal order: parked requests settle, signals no tail wait took are delivered (a parked wait, or the buffer).
    for (const e of entries) {
      if (e.t === 'signal') {
        if (taken.has(e.id)) this.signalIds.add(e.id)
        else this.deliverSignal(e.id, e.name, e.payload)
      } else if (e.t === 'resolution' && this.echoes.get(`r:${e.id}`) === e) {
        this.echoes.delete(`r:${e.id}`)
        if (this.waiting.has(e.id)) this.settleWaiting(e.id, e.resolution)
        else this.echoMismatch = true
      }
    }
    await this.quiesce(true)
    const fits = !this.echoMismatch && this.echoes.size === 0 && this.state !== 'disposed' && index.clockLeft === 0 &&
      this.suppressCalls === 0 && this.attributeSetsToReplay === 0 && index.divergence(this.program.sourceName, false) === null
    this.echoes = null
    if (!fits) {
      this.unflushed = [] // what it journaled while following a tail that does not fit never reaches the store
      this.dispose()
      return false
    }
    this.replayChecked()
    this.deliverCancel()
    return true
  }
}
