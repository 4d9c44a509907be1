/**
 * What `ajsc workflow ls` / `show` report about local runs, derived from each
 * run's journal (the one source of truth): state, phases, budget, requests.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FileJournalStore } from './file-store.ts'
import type { JournalEntry } from './journal.ts'
import { readRunRecord } from './local.ts'
import type { BudgetSnapshot } from './types.ts'

export interface RunSummary {
  runId: string
  file: string
  createdAt: string
  /** `running` means the journal has no end: the run is in progress or was interrupted (resume it). */
  state: 'complete' | 'failed' | 'running'
  phases: string[]
  budget: BudgetSnapshot | null
  requests: { total: number; resolved: number; inFlight: string[] }
  logs: number
  entries: number
  result?: unknown
  error?: unknown
}

export function summarizeJournal(journal: readonly JournalEntry[]): Omit<RunSummary, 'runId' | 'file' | 'createdAt'> {
  const out: Omit<RunSummary, 'runId' | 'file' | 'createdAt'> = {
    state: 'running', phases: [], budget: null, requests: { total: 0, resolved: 0, inFlight: [] }, logs: 0, entries: journal.length,
  }
  const open = new Set<string>()
  for (const e of journal) {
    switch (e.t) {
      case 'start': out.budget = e.budget; break
      case 'call': if (e.call.type === 'phase') out.phases.push(e.call.name); else out.logs++; break
      case 'request': out.requests.total++; open.add(e.request.id); break
      case 'resolution':
        out.requests.resolved++
        open.delete(e.id)
        if (typeof e.resolution === 'object' && 'OkWithBudget' in e.resolution) out.budget = e.resolution.OkWithBudget.budget
        break
      case 'end':
        if (e.error !== undefined) { out.state = 'failed'; out.error = e.error } else { out.state = 'complete'; out.result = e.result }
        break
    }
  }
  out.requests.inFlight = [...open]
  return out
}

export function summarizeRun(store: FileJournalStore, runId: string): RunSummary {
  const record = readRunRecord(store, runId)
  return { runId, file: record.file, createdAt: record.createdAt, ...summarizeJournal(store.read(runId)) }
}

/** Every run under the store's root, oldest first. */
export function listRuns(store: FileJournalStore): RunSummary[] {
  if (!existsSync(store.root)) return []
  return readdirSync(store.root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(store.root, d.name, 'run.json')))
    .map((d) => summarizeRun(store, d.name))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId))
}
