/**
 * The journal: what a workflow execution records so another process can
 * replay it to the same state. One JSON object per entry (a JSON-lines file
 * in the file store):
 *
 *   { "t": "start", "v": 1, "astHash", "sourceName", "args", "budget", "seed", "at", "timeouts"?, "previous"?, "chain"?, "name"?, "tags"?, "attributes"? }
 *   { "t": "request", "key", "request", "wakeAt"? }   a request handed to the host
 *   { "t": "resolution", "id", "resolution" }          the host's answer (serde encoding)
 *   { "t": "call", "call" }                            log / phase (not re-emitted on replay)
 *   { "t": "now", "value" }                            a clock read through the VM's choke point
 *   { "t": "atom", "key", "op", "resolution" }         a custom atom's result ({"Ok": v} | "OkUndefined")
 *   { "t": "atom", "key", "op", "error" }              ... or its error (AgentError data), re-thrown on replay
 *   { "t": "attempt", "key", "id"?, "attempt", "error" } a failed attempt that is retried (retry.ts)
 *   { "t": "end", "result" } | { "t": "end", "error", "step"? } the outcome (`step`: the key of the failed step)
 *   { "t": "end", "result": null, "continueAsNew": { "args" } }  continueAsNew(args): the next run of the chain starts with args
 *   { "t": "retry", "at", "step"?, "retry"? }          a failed run reopened (retryWorkflow): `step` is asked again (`retry`: the run's policy from here)
 *   { "t": "signal", "id", "name", "payload"? }        a signal delivered to the run (buffered until a wait takes it)
 *   { "t": "wait", "key", "signal"? , "timeout"?, "cancelled"? }  how a `signal()` wait ended
 *   { "t": "cancel", "reason" }                        the run was cancelled (its current wait, or the next, throws)
 *   { "t": "patch", "id" }                             `patched(id)` answered true (new code path taken)
 *   { "t": "upgrade", "astHash", "at" }                the run continues on a new program from here (resume with upgrade)
 *   { "t": "attributes", "set" }                       upsertAttributes(set): search attributes changed (null removes one; search.ts)
 *
 * A request's `key` is its identity: kind, call site, hash of the normalized
 * input and occurrence number (`agent|12:5|9f2c…|0`). The request id the host
 * sees is derived from the key, so it is the same in every replay. A custom
 * atom call has a key of the same form (`atom:lookup|3:10|…|0`); its entry
 * is written once the atom has returned, so a crash while it runs means it
 * runs again on resume (at least once; see custom-atoms.ts).
 */
import { workflowError } from './errors.ts'
import type { AgentError } from '../../vm/errors.ts'
import type { RunRetryPolicy } from './retry.ts'
import type { WorkflowTimeouts } from './timeouts.ts'
import type { SearchAttributes, SearchValue } from './search.ts'
import type { BudgetSnapshot, WorkflowCall, WorkflowRequest, WorkflowResolution } from './types.ts'

/** A custom atom's value in the resolutions' encoding: `{ "Ok": value }`, or `"OkUndefined"` for undefined. */
export type AtomResolution = Extract<WorkflowResolution, 'OkUndefined' | { Ok: unknown }>

export const JOURNAL_VERSION = 1

export type JournalEntry =
  | { t: 'start'; v: number; astHash: string; sourceName: string; args: unknown; budget: BudgetSnapshot; seed: number; at: number; retry?: RunRetryPolicy; timeouts?: WorkflowTimeouts; previous?: string; chain?: number; name?: string; tags?: string[]; attributes?: SearchAttributes }
  | { t: 'request'; key: string; request: WorkflowRequest; wakeAt?: number }
  | { t: 'resolution'; id: string; resolution: WorkflowResolution }
  | { t: 'call'; call: WorkflowCall }
  | { t: 'now'; value: number }
  | { t: 'atom'; key: string; op: string; resolution?: AtomResolution; error?: AgentError }
  | { t: 'attempt'; key: string; id?: string; attempt: number; error: { code?: string; message: string } }
  | { t: 'end'; result?: unknown; error?: AgentError; step?: string; continueAsNew?: { args: unknown; budget?: BudgetSnapshot } }
  | { t: 'retry'; at: number; step?: string; retry?: RunRetryPolicy }
  | { t: 'signal'; id: string; name: string; payload?: unknown }
  | { t: 'wait'; key: string; signal?: string; timeout?: true; cancelled?: true }
  | { t: 'cancel'; reason: string }
  | { t: 'patch'; id: string }
  | { t: 'upgrade'; astHash: string; at: number }
  | { t: 'attributes'; set: Record<string, SearchValue | null> }

/** Journal limits; each has a default and a clear JOURNAL_LIMIT error. */
export interface JournalLimits {
  /** Entries per run (default 100,000). */
  maxEntries?: number
  /** Bytes of one entry as JSON (default 1 MiB). */
  maxEntryBytes?: number
  /** Bytes of the whole journal as JSON lines (default 64 MiB). */
  maxJournalBytes?: number
}

export const JOURNAL_DEFAULTS = Object.freeze({ maxEntries: 100_000, maxEntryBytes: 1024 * 1024, maxJournalBytes: 64 * 1024 * 1024 })

/**
 * Where journals live, per execution id. The file store is the default for
 * local runs; a server implements this over its database. `append` is called
 * in order and may be async: the execution awaits it before `poll()` returns,
 * so a host never acts on an event that is not durable yet.
 */
export interface JournalStore {
  append(executionId: string, entries: readonly JournalEntry[]): void | Promise<void>
  read(executionId: string): readonly JournalEntry[] | Promise<readonly JournalEntry[]>
}

/** Journals in memory (tests, short-lived hosts). Owned by its creator; nothing global. */
export class MemoryJournalStore implements JournalStore {
  private readonly journals = new Map<string, JournalEntry[]>()

  append(executionId: string, entries: readonly JournalEntry[]): void {
    let list = this.journals.get(executionId)
    if (!list) this.journals.set(executionId, (list = []))
    for (const e of entries) list.push(structuredClone(e))
  }

  read(executionId: string): JournalEntry[] {
    return (this.journals.get(executionId) ?? []).map((e) => structuredClone(e))
  }

  /** Ids of every journal held. */
  ids(): string[] {
    return [...this.journals.keys()]
  }
}

const TAGS = new Set(['start', 'request', 'resolution', 'call', 'now', 'atom', 'attempt', 'end', 'retry', 'signal', 'wait', 'cancel', 'patch', 'upgrade', 'attributes'])

/** Check a journal's structure (not its meaning: replay does that). Throws JOURNAL_INVALID naming the entry. */
export function checkJournal(journal: unknown): asserts journal is JournalEntry[] {
  if (!Array.isArray(journal)) throw workflowError('JOURNAL_INVALID', 'A journal is a non-empty array of entries starting with a "start" entry')
  if (journal.length === 0) {
    // A crash before the start entry was durable: nothing ran, but the args it was started with are not known here.
    throw workflowError('JOURNAL_INVALID', 'The journal is empty: the execution stopped before its start entry was written, so nothing of it ran', {
      hint: 'Start it again with startWorkflow(program, { executionId }) (the same id and args); `ajsc workflow resume` does this from run.json.',
    })
  }
  journal.forEach((e, i) => {
    const bad = (why: string) => workflowError('JOURNAL_INVALID', `Journal entry #${i}: ${why}`, { entry: i })
    if (e === null || typeof e !== 'object' || !TAGS.has((e as { t?: string }).t ?? '')) throw bad('not a journal entry')
    const entry = e as JournalEntry
    if ((i === 0) !== (entry.t === 'start')) throw bad(i === 0 ? 'the first entry must be "start"' : 'a second "start" entry')
    if (entry.t === 'start' && (entry.v !== JOURNAL_VERSION || typeof entry.astHash !== 'string' || typeof entry.seed !== 'number')) {
      throw bad(`unsupported journal version ${String(entry.v)} or missing astHash/seed`)
    }
    if (entry.t === 'request' && (typeof entry.key !== 'string' || typeof entry.request?.id !== 'string')) throw bad('a request needs key and request.id')
    if (entry.t === 'resolution' && typeof entry.id !== 'string') throw bad('a resolution needs an id')
    if (entry.t === 'now' && typeof entry.value !== 'number') throw bad('a clock read needs a number')
    if (entry.t === 'attempt' && (typeof entry.key !== 'string' || !Number.isSafeInteger(entry.attempt) || typeof entry.error?.message !== 'string')) throw bad('an attempt needs key, attempt and error')
    if (entry.t === 'retry' && typeof entry.at !== 'number') throw bad('a retry needs at')
    if (entry.t === 'signal' && (typeof entry.id !== 'string' || typeof entry.name !== 'string')) throw bad('a signal needs id and name')
    if (entry.t === 'wait' && typeof entry.key !== 'string') throw bad('a wait needs key')
    if (entry.t === 'cancel' && typeof entry.reason !== 'string') throw bad('a cancel needs a reason')
    if (entry.t === 'patch' && typeof entry.id !== 'string') throw bad('a patch needs id')
    if (entry.t === 'upgrade' && typeof entry.astHash !== 'string') throw bad('an upgrade needs astHash')
    if (entry.t === 'attributes' && (entry.set === null || typeof entry.set !== 'object' || Array.isArray(entry.set))) throw bad('an attributes entry needs set (an object)')
    if (entry.t === 'atom') {
      if (typeof entry.key !== 'string' || typeof entry.op !== 'string') throw bad('an atom result needs key and op')
      const ok = entry.resolution === 'OkUndefined' || (entry.resolution !== null && typeof entry.resolution === 'object' && 'Ok' in entry.resolution)
      const failed = entry.error !== null && typeof entry.error === 'object' && typeof entry.error.code === 'string' && typeof entry.error.message === 'string'
      if (ok === failed) throw bad('an atom result needs either "resolution" ({"Ok": value} or "OkUndefined") or "error" ({code, message})')
    }
  })
}

/** Normalised limits; unknown keys and bad values are WORKFLOW_OPTIONS_INVALID. */
export function journalLimits(limits: JournalLimits | undefined): Required<JournalLimits> {
  if (limits === undefined) return JOURNAL_DEFAULTS
  const out: Required<JournalLimits> = { ...JOURNAL_DEFAULTS }
  for (const [k, v] of Object.entries(limits)) {
    if (!(k in JOURNAL_DEFAULTS)) throw workflowError('WORKFLOW_OPTIONS_INVALID', `Unknown journal limit "${k}" (allowed: ${Object.keys(JOURNAL_DEFAULTS).join(', ')})`)
    if (!Number.isSafeInteger(v) || (v as number) <= 0) throw workflowError('WORKFLOW_OPTIONS_INVALID', `limits.${k} must be a positive integer`)
    out[k as keyof JournalLimits] = v as number
  }
  return out
}
