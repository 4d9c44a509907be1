/**
 * GET /v1/runs, GET /v1/workflows and GET /v1/workflows/{id}/journal: a
 * tenant's async runs and workflows, newest first, and a workflow's journal,
 * in bounded pages with opaque cursors (./stores/list.ts). Every query is
 * scoped by the authenticated tenant; a cursor carries no tenant.
 */
import type { JournalEntry } from '../workflows/engine/journal.ts'
import {
  DEFAULT_JOURNAL_PAGE, DEFAULT_PAGE, MAX_JOURNAL_PAGE, MAX_PAGE, journalCursor, pageOf, parseJournalCursor, parseLimit, parseListCursor, type Page,
} from './stores/list.ts'
import type { RunRepo, RunState, RunSummary } from './stores/types.ts'
import type { WorkflowListing, WorkflowState, WorkflowSummary } from './stores/workflows.ts'

export interface ListParams<S extends string = string> {
  state?: S
  limit?: string
  cursor?: string
}

export const RUN_STATES: readonly RunState[] = ['queued', 'running', 'done']
export const WORKFLOW_STATES: readonly WorkflowState[] = ['running', 'waiting', 'done', 'failed', 'cancelled']

/** `?state=&limit=&cursor=` of a list (a state is checked by the route's schema). */
export const listQuerySchema = (states: readonly string[]) => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: [...states], description: 'Only items in this state.' },
    limit: { type: 'string', pattern: '^[0-9]{1,6}$', description: `Items per page: 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE}).` },
    cursor: { type: 'string', maxLength: 600, description: 'The `nextCursor` of the previous page (opaque).' },
  },
}) as const

export const journalQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^[0-9]{1,6}$', description: `Entries per page: 1 to ${MAX_JOURNAL_PAGE} (default ${DEFAULT_JOURNAL_PAGE}); a page also stops after about 1 MiB of entries.` },
    cursor: { type: 'string', maxLength: 600, description: 'The `nextCursor` of the previous page (opaque).' },
  },
} as const

export async function listRuns(runs: RunRepo, tenant: string, p: ListParams<RunState>): Promise<Page<RunSummary>> {
  const limit = parseLimit(p.limit, DEFAULT_PAGE, MAX_PAGE)
  const before = parseListCursor(p.cursor)
  const rows = await runs.list(tenant, { limit, ...(p.state ? { state: p.state } : {}), ...(before ? { before } : {}) })
  return pageOf(rows, limit, (r) => r)
}

export async function listWorkflows(store: WorkflowListing, tenant: string, p: ListParams<WorkflowState>): Promise<Page<WorkflowSummary>> {
  const limit = parseLimit(p.limit, DEFAULT_PAGE, MAX_PAGE)
  const before = parseListCursor(p.cursor)
  const rows = await store.list(tenant, { limit, ...(p.state ? { state: p.state } : {}), ...(before ? { before } : {}) })
  return pageOf(rows, limit, (r) => r)
}

/** An entry as a journal page shows it: its place (1-based), the entry, and the agent-call budget as of it. */
export type JournalPageEntry = JournalEntry & { seq: number; budgetSpent: number; budgetTotal: number | null }

export interface JournalPage {
  id: string
  /** Entries the journal has (all pages). */
  total: number
  entries: JournalPageEntry[]
  nextCursor?: string
}

/** Bytes of entries (as JSON) after which a page ends early (it always holds at least one entry). */
export const JOURNAL_PAGE_BYTES = 1024 * 1024

/**
 * One page of a workflow's journal (the caller has checked the workflow is the tenant's). The budget is
 * the start entry's snapshot, then each model answer's (`OkWithBudget`): carried from page to page in the cursor.
 */
export async function journalPage(store: WorkflowListing, id: string, p: { limit?: string; cursor?: string }): Promise<JournalPage> {
  const limit = parseLimit(p.limit, DEFAULT_JOURNAL_PAGE, MAX_JOURNAL_PAGE)
  const at = parseJournalCursor(p.cursor)
  const { entries, total } = await store.journalPage(id, at.from, limit)
  let { spent, total: budgetTotal } = at
  let bytes = 0
  const out: JournalPageEntry[] = []
  for (const e of entries) {
    const size = JSON.stringify(e).length
    if (out.length > 0 && bytes + size > JOURNAL_PAGE_BYTES) break
    bytes += size
    const snapshot = e.t === 'start' ? e.budget
      : e.t === 'resolution' && typeof e.resolution === 'object' && 'OkWithBudget' in e.resolution ? e.resolution.OkWithBudget.budget : undefined
    if (snapshot) { spent = snapshot.spent; budgetTotal = snapshot.total ?? null }
    out.push({ ...e, seq: at.from + out.length + 1, budgetSpent: spent, budgetTotal })
  }
  const from = at.from + out.length
  return { id, total, entries: out, ...(from < total ? { nextCursor: journalCursor({ from, spent, total: budgetTotal }) } : {}) }
}
