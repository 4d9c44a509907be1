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
  private readonly clock: number[] = []
  private clockAt = 0
  /** Requests the re-run asked for that the journal does not have (for the mismatch message). */
  readonly fresh: string[] = []
  readonly ended: boolean

  constructor(journal: readonly JournalEntry[]) {
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
  }

  /** The next recorded clock read, or undefined once they are used up. */
  nextClock(): number | undefined {
    return this.clockAt < this.clock.length ? this.clock[this.clockAt++] : undefined
  }

  /** JOURNAL_MISMATCH for the first journaled request the re-run did not ask for, or null. */
  divergence(sourceName: string, completed: boolean): WorkflowError | null {
    let missing: ReplayedRequest | ReplayedAtom | undefined
    for (const r of [...this.byKey.values(), ...this.atoms.values()]) if (!r.consumed && (!missing || r.entry < missing.entry)) missing = r
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
  if (site.startsWith('retry:')) return `the wait before retry ${hash} of ${site.slice(6)}`
  const [line, column] = site.split(':')
  return `${kind} at ${sourceName}:${line}:${Number(column) + 1} with input ${hash}${occurrence !== '0' ? ` (occurrence ${occurrence})` : ''}`
}
