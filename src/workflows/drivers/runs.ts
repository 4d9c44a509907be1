/**
 * What `ajsc workflow ls` / `show` report about local runs, derived from each
 * run's journal (the one source of truth): state, phases, budget, requests.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { WorkflowError } from '../engine/errors.ts'
import { RUN_STATES, type LocalRunState } from './defaults.ts'
import type { FileJournalStore } from '../stores/file-store.ts'
import type { JournalEntry } from '../engine/journal.ts'
import { readRunRecord } from './local.ts'
import type { BudgetSnapshot } from '../engine/types.ts'
import { matchesSearch, searchOfJournal, type SearchAttributes, type SearchFilter } from '../engine/search.ts'

export interface RunSummary {
  runId: string
  file: string
  createdAt: string
  /**
   * `running`: the journal has no end, the run is in progress or was interrupted (resume it; with
   * 0 entries it stopped before its start entry was written and resume starts it from the beginning).
   * `invalid`: its journal or run.json is damaged (`error` has the code, message and hint); resume refuses it.
   */
  state: LocalRunState
  phases: string[]
  budget: BudgetSnapshot | null
  requests: { total: number; resolved: number; inFlight: string[] }
  /** Custom atom calls whose outcome is journaled (a resume does not call them again), and how many of them threw. */
  atoms: { total: number; errors: number }
  /** Failed attempts that were retried (journaled `attempt` entries), and manual retries of the run. */
  retries: { attempts: number; runs: number }
  logs: number
  entries: number
  result?: unknown
  error?: unknown
  /** A run of a continue-as-new chain: the run it continues and its place (1, 2, …), and the args it continued as new with. */
  previous?: string
  chain?: number
  continuedAsNew?: { args: unknown }
  /** What the run is found by: its name, tags and search attributes (the start's, changed by upsertAttributes). */
  name?: string
  tags?: string[]
  attributes?: SearchAttributes
}

/** The states `ajsc workflow ls --status` takes. */
export { RUN_STATES }

/** `ajsc workflow ls` filters: a state, and every tag / attribute / the name (search.ts). */
export interface RunFilter extends SearchFilter {
  state?: RunSummary['state']
}

export function summarizeJournal(journal: readonly JournalEntry[]): Omit<RunSummary, 'runId' | 'file' | 'createdAt'> {
  const out: Omit<RunSummary, 'runId' | 'file' | 'createdAt'> = {
    state: 'running', phases: [], budget: null, requests: { total: 0, resolved: 0, inFlight: [] }, atoms: { total: 0, errors: 0 }, retries: { attempts: 0, runs: 0 }, logs: 0, entries: journal.length,
  }
  const idOfKey = new Map<string, string>()
  const open = new Set<string>()
  for (const e of journal) {
    switch (e.t) {
      case 'start':
        out.budget = e.budget
        if (e.previous !== undefined) out.previous = e.previous
        if (e.chain !== undefined) out.chain = e.chain
        break
      case 'call': if (e.call.type === 'phase') out.phases.push(e.call.name); else out.logs++; break
      case 'request': out.requests.total++; open.add(e.request.id); idOfKey.set(e.key, e.request.id); break
      case 'attempt': out.retries.attempts++; break
      case 'retry': {
        out.retries.runs++
        out.state = 'running'
        delete out.error
        const id = e.step !== undefined ? idOfKey.get(e.step) : undefined
        if (id !== undefined && !open.has(id)) { open.add(id); out.requests.resolved-- }
        break
      }
      case 'atom': out.atoms.total++; if (e.error !== undefined) out.atoms.errors++; break
      case 'resolution':
        out.requests.resolved++
        open.delete(e.id)
        if (typeof e.resolution === 'object' && 'OkWithBudget' in e.resolution) out.budget = e.resolution.OkWithBudget.budget
        break
      case 'end':
        if (e.error !== undefined) { out.state = e.error.code === 'WORKFLOW_CANCELLED' ? 'cancelled' : 'failed'; out.error = e.error } else { out.state = 'complete'; out.result = e.result; if (e.continueAsNew) out.continuedAsNew = { args: e.continueAsNew.args } }
        break
    }
  }
  out.requests.inFlight = [...open]
  Object.assign(out, searchOfJournal(journal))
  return out
}

export function summarizeRun(store: FileJournalStore, runId: string): RunSummary {
  const record = readRunRecord(store, runId)
  let journal: readonly JournalEntry[]
  try {
    journal = store.read(runId)
  } catch (e) {
    if (!(e instanceof WorkflowError)) throw e
    return invalid(runId, record.file, record.createdAt, e)
  }
  return { runId, file: record.file, createdAt: record.createdAt, ...summarizeJournal(journal) }
}

/** A run whose journal (or run.json) cannot be read: listed with the reason, so one damaged run never hides the others. */
function invalid(runId: string, file: string, createdAt: string, e: WorkflowError): RunSummary {
  return {
    runId, file, createdAt, state: 'invalid', phases: [], budget: null, requests: { total: 0, resolved: 0, inFlight: [] }, atoms: { total: 0, errors: 0 }, retries: { attempts: 0, runs: 0 }, logs: 0, entries: 0,
    error: { code: e.code, message: e.message, hint: e.hint },
  }
}

/**
 * Every run under the store's root that passes `filter`, oldest first (a damaged one is listed as `invalid`).
 * Each run's journal is read: local runs are few, and the journal is what says a run's state and attributes.
 */
export function listRuns(store: FileJournalStore, filter: RunFilter = {}): RunSummary[] {
  if (!existsSync(store.root)) return []
  return readdirSync(store.root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(store.root, d.name, 'run.json')))
    .map((d) => {
      try {
        return summarizeRun(store, d.name)
      } catch (e) {
        if (!(e instanceof WorkflowError)) throw e
        return invalid(d.name, '', '', e)
      }
    })
    .filter((r) => (filter.state === undefined || r.state === filter.state) && matchesSearch(r, filter))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId))
}
