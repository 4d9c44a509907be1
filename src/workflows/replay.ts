/**
 * Replay: an index over a journal, built once (O(journal)), that answers the
 * re-run's requests by identity, counts the log/phase calls already emitted
 * and hands back recorded clock reads in order. After the re-run settles,
 * `divergence` names the first journaled request the re-run never asked for.
 */
import { workflowError, type WorkflowError } from './errors.ts'
import type { JournalEntry } from './journal.ts'
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

export class ReplayIndex {
  readonly byKey = new Map<string, ReplayedRequest>()
  /** log/phase calls already emitted: the re-run's first `calls` calls are not emitted again. */
  calls = 0
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
        case 'call': this.calls++; break
        case 'now': this.clock.push(e.value); break
        case 'end': ended = true; break
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
    let missing: ReplayedRequest | undefined
    for (const r of this.byKey.values()) if (!r.consumed && (!missing || r.entry < missing.entry)) missing = r
    if (!missing) return null
    const instead = this.fresh.length > 0
      ? `; instead it asked for ${describeKey(this.fresh[0]!, sourceName)}`
      : completed ? '; instead the workflow completed' : ''
    return workflowError('JOURNAL_MISMATCH',
      `The replay did not ask for journal entry #${missing.entry} (${describeKey(missing.key, sourceName)}, id ${missing.request.id})${instead}`,
      { entry: missing.entry })
  }
}

/** `agent|12:4|hash|0` → `agent at file:12:5 with input hash` (columns 1-based, as in run errors). */
export function describeKey(key: string, sourceName: string): string {
  const [kind, site = '', hash, occurrence] = key.split('|')
  const [line, column] = site.split(':')
  return `${kind} at ${sourceName}:${line}:${Number(column) + 1} with input ${hash}${occurrence !== '0' ? ` (occurrence ${occurrence})` : ''}`
}
