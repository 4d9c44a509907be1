/**
 * Replay: an index over a journal, built once (O(journal)), that answers the
 * re-run's requests by identity, counts the log/phase calls already emitted
 * and hands back recorded clock reads in order; custom atom results are
 * found by the same kind of key. After the re-run settles, `divergence`
 * names the first journaled request or atom call the re-run never made.
 */
import { workflowError, type WorkflowError } from './errors.ts'
import type { AtomResolution, JournalEntry } from './journal.ts'
import type { AgentError } from '../../vm/errors.ts'
import type { WorkflowRequest, WorkflowResolution } from './types.ts'
import type { RunRetryPolicy } from './retry.ts'

export interface ReplayedRequest {
  /** Index of the request entry in the journal. */
  entry: number
  key: string
  request: WorkflowRequest
  wakeAt?: number
  resolution?: WorkflowResolution
  consumed: boolean
}

/** A journaled custom atom call: its value or its error. */
export interface ReplayedAtom {
  entry: number
  key: string
  op: string
  resolution?: AtomResolution
  error?: AgentError
  consumed: boolean
}

export class ReplayIndex {
  readonly byKey = new Map<string, ReplayedRequest>()
  readonly atoms = new Map<string, ReplayedAtom>()
  /** log/phase calls already emitted: the re-run's first `calls` calls are not emitted again. */
  calls = 0
  /** Failed attempts journaled per step key: all of them (their backoff sleeps replay) and those since the last manual retry. */
  readonly attempts = new Map<string, { total: number; since: number }>()
  /** Manual retries (`retry` entries): the policy counts attempts again from each. */
  retries = 0
  /** The run's retry policy set by the last manual retry that gave one (it replaces the start entry's). */
  retryPolicy: RunRetryPolicy | undefined
  /** Signals delivered, in order, and how each journaled wait ended. */
  readonly signals: Array<{ id: string; name: string; payload?: unknown }> = []
  readonly waits = new Map<string, { signal?: string; timeout?: true; cancelled?: true; consumed: boolean }>()
  /** `attributes` entries (upsertAttributes calls journaled): the re-run's first ones are not journaled again. */
  attributeSets = 0
  /** Patches the run took (`patched(id)` was true). */
  readonly patches = new Set<string>()
  /** The run was cancelled (reason), and whether a wait already threw it. */
  cancel: { reason: string; delivered: boolean } | null = null
  /** The AST hash the run continues on (the start's, or the last upgrade's). */
  astHash = ''
  /** Journaled steps (requests, atom calls, waits) the replay has not reached yet. */
  unconsumed = 0
  private readonly clock: number[] = []
  private clockAt = 0
  /** Requests the re-run asked for that the journal does not have (for the mismatch message). */
  readonly fresh: string[] = []
  readonly ended: boolean
  /**
   * A catch-up's tail (execution-catchup.ts): the resolutions of requests, and the ends of signal waits, that
   * the live execution had parked before the tail began, in journal order. The index does not answer these:
   * the live execution's parked promises take them.
   */
  readonly parked: Array<Extract<JournalEntry, { t: 'resolution' | 'wait' }>> = []

  /** `parked`: a catch-up's live requests (ids) and signal waits (keys), whose entries in `journal` go to `parked`. */
  constructor(journal: readonly JournalEntry[], parked?: { requests: ReadonlySet<string>; waits: ReadonlySet<string> }) {
    const byId = new Map<string, ReplayedRequest>()
    let ended = false
    journal.forEach((e, i) => {
      switch (e.t) {
        case 'request': {
          const r: ReplayedRequest = { entry: i, key: e.key, request: e.request, consumed: false }
          if (e.wakeAt !== undefined) r.wakeAt = e.wakeAt
          if (this.byKey.has(e.key) || byId.has(e.request.id)) throw workflowError('JOURNAL_INVALID', `Journal entry #${i}: request ${e.request.id} appears twice`, { entry: i })
          this.byKey.set(e.key, r)
          byId.set(e.request.id, r)
          break
        }
        case 'resolution': {
          if (this.cancel && typeof e.resolution === 'object' && 'Err' in e.resolution && e.resolution.Err.code === 'WORKFLOW_CANCELLED') this.cancel.delivered = true
          if (parked?.requests.has(e.id) && !byId.has(e.id)) { this.parked.push(e); break }
          const r = byId.get(e.id)
          if (!r || r.resolution !== undefined) throw workflowError('JOURNAL_INVALID', `Journal entry #${i}: resolution of ${r ? 'an already resolved' : 'an unknown'} request ${e.id}`, { entry: i })
          r.resolution = e.resolution
          break
        }
        case 'atom': {
          if (this.atoms.has(e.key)) throw workflowError('JOURNAL_INVALID', `Journal entry #${i}: the atom call ${e.key} appears twice`, { entry: i })
          const a: ReplayedAtom = { entry: i, key: e.key, op: e.op, consumed: false }
          if (e.error !== undefined) a.error = e.error
          else a.resolution = e.resolution!
          this.atoms.set(e.key, a)
          break
        }
        case 'start': this.astHash = e.astHash; break
        case 'upgrade': this.astHash = e.astHash; this.relaxed = true; break
        case 'signal': this.signals.push({ id: e.id, name: e.name, ...(e.payload !== undefined ? { payload: e.payload } : {}) }); break
        case 'wait': {
          const { t: _t, key, ...how } = e
          if (this.cancel && e.cancelled) this.cancel.delivered = true
          if (parked?.waits.has(key)) { this.parked.push(e); break }
          this.waits.set(key, { ...how, consumed: false })
          break
        }
        case 'cancel': this.cancel = { reason: e.reason, delivered: false }; break
        case 'patch': this.patches.add(e.id); break
        case 'attributes': this.attributeSets++; break
        case 'call': this.calls++; break
        case 'now': this.clock.push(e.value); break
        case 'end': ended = true; break
        case 'attempt': {
          const a = this.attempts.get(e.key) ?? { total: 0, since: 0 }
          this.attempts.set(e.key, { total: a.total + 1, since: a.since + 1 })
          break
        }
        case 'retry': {
          // The run is reopened: the failed step's outcome is forgotten, so the replay asks for it again.
          ended = false
          this.retries++
          if (e.retry !== undefined) this.retryPolicy = e.retry
          for (const a of this.attempts.values()) a.since = 0
          if (e.step !== undefined) {
            const r = this.byKey.get(e.step)
            if (r) delete r.resolution
            this.atoms.delete(e.step)
          }
          break
        }
      }
    })
    this.ended = ended
    this.unconsumed = this.byKey.size + this.atoms.size + this.waits.size
  }

  /**
   * Replaying against a new program (an upgrade): a step whose exact key is not
   * in the journal matches the first unreached journaled step of the same kind
   * and input (the call site moved when the code around it changed).
   */
  relaxed = false

  private static loose(key: string): string {
    const [kind, , hash] = key.split('|')
    return `${kind}|${hash}`
  }

  private first<T extends { key: string; consumed: boolean; entry?: number }>(map: Map<string, T>, key: string): T | undefined {
    const exact = map.get(key)
    if (exact || !this.relaxed) return exact
    const want = ReplayIndex.loose(key)
    let best: T | undefined
    for (const v of map.values()) if (!v.consumed && ReplayIndex.loose(v.key) === want && (!best || (v.entry ?? 0) < (best.entry ?? 0))) best = v
    return best
  }

  /** The journaled request this step is (by key; relaxed on an upgrade). */
  request(key: string): ReplayedRequest | undefined {
    return this.first(this.byKey, key)
  }

  /** The journaled atom call this step is. */
  atom(key: string): ReplayedAtom | undefined {
    return this.first(this.atoms, key)
  }

  /** The journaled signal wait this step is (its key; relaxed on an upgrade). */
  wait(key: string): { key: string; signal?: string; timeout?: true; cancelled?: true; consumed: boolean } | undefined {
    const exact = this.waits.get(key)
    if (exact || !this.relaxed) return exact && { ...exact, key, ref: exact } as never
    const want = ReplayIndex.loose(key)
    for (const [k, v] of this.waits) if (!v.consumed && ReplayIndex.loose(k) === want) return { ...v, key: k, ref: v } as never
    return undefined
  }

  /** Mark a journaled step reached by the replay. */
  consume(step: { consumed: boolean; ref?: { consumed: boolean } }): void {
    if (step.ref) { this.consume(step.ref); return }
    if (step.consumed) return
    step.consumed = true
    this.unconsumed--
  }

  /** Signals not taken by any journaled wait (a live wait takes them first, in order). */
  buffered(): Array<{ id: string; name: string; payload?: unknown }> {
    const taken = new Set([...this.waits.values()].map((w) => w.signal).filter((s) => s !== undefined))
    return this.signals.filter((s) => !taken.has(s.id))
  }

  /** Recorded clock reads not handed back yet. */
  get clockLeft(): number {
    return this.clock.length - this.clockAt
  }

  /** The next recorded clock read, or undefined once they are used up. */
  nextClock(): number | undefined {
    return this.clockAt < this.clock.length ? this.clock[this.clockAt++] : undefined
  }

  /** JOURNAL_MISMATCH for the first journaled request the re-run did not ask for, or null. */
  divergence(sourceName: string, completed: boolean): WorkflowError | null {
    let missing: ReplayedRequest | ReplayedAtom | undefined
    for (const r of [...this.byKey.values(), ...this.atoms.values()]) if (!r.consumed && (!missing || r.entry < missing.entry)) missing = r
    if (!missing) {
      const wait = [...this.waits.entries()].find(([, w]) => !w.consumed)
      if (wait) return workflowError('JOURNAL_MISMATCH', `The replay did not wait for the journaled signal wait ${describeKey(wait[0], sourceName)}`)
    }
    if (!missing) return null
    const instead = this.fresh.length > 0
      ? `; instead it asked for ${describeKey(this.fresh[0]!, sourceName)}`
      : completed ? '; instead the workflow completed' : ''
    const what = 'request' in missing ? `${describeKey(missing.key, sourceName)}, id ${missing.request.id}` : describeKey(missing.key, sourceName)
    return workflowError('JOURNAL_MISMATCH', `The replay did not ask for journal entry #${missing.entry} (${what})${instead}`, { entry: missing.entry })
  }
}

/** `agent|12:4|hash|0` → `agent at file:12:5 with input hash` (columns 1-based, as in run errors). */
export function describeKey(key: string, sourceName: string): string {
  const [kind, site = '', hash, occurrence] = key.split('|')
  if (site.startsWith('deadline:')) return 'the run deadline (timeouts.runMs)'
  if (site.startsWith('timeout:')) return `the timeout of attempt ${hash} of ${site.slice(8)}`
  if (site.startsWith('retry:')) return `the wait before retry ${hash} of ${site.slice(6)}`
  const [line, column] = site.split(':')
  return `${kind} at ${sourceName}:${line}:${Number(column) + 1} with input ${hash}${occurrence !== '0' ? ` (occurrence ${occurrence})` : ''}`
}
