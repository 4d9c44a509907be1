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
import { SEARCH_LIMITS, checkSearch, type SearchFilter, type SearchInfo } from '../workflows/engine/search.ts'
import { WORKFLOW_CODES } from '../diagnostics/workflow-codes.ts'
import { HttpError } from './errors.ts'

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

/** GET /v1/workflows's query: a state, and what workflows are found by (every `tag`, every `attr.<name>`, the `name`). */
export interface WorkflowListParams extends ListParams<WorkflowState> {
  tag?: string | string[]
  name?: string
  [attribute: `attr.${string}`]: string | undefined
}

const TAG_TEXT = { type: 'string', minLength: 1, maxLength: SEARCH_LIMITS.tagLength } as const

/** The list query of workflows: `?state=&limit=&cursor=`, plus `tag=` (repeatable), `attr.<name>=<value>` and `name=`. */
export const workflowListQuerySchema = (() => {
  const base = listQuerySchema(WORKFLOW_STATES)
  return {
    ...base,
    properties: {
      ...base.properties,
      tag: { anyOf: [TAG_TEXT, { type: 'array', items: TAG_TEXT, maxItems: SEARCH_LIMITS.tags }], description: 'Only workflows with this tag; repeat it for several (every one must match).' },
      name: { type: 'string', minLength: 1, maxLength: SEARCH_LIMITS.nameLength, description: 'Only workflows of this name.' },
    },
    patternProperties: {
      [`^attr\\.[A-Za-z_][A-Za-z0-9_.-]{0,${SEARCH_LIMITS.keyLength - 1}}$`]: { title: 'attr.<name>', type: 'string', maxLength: 1024, description: 'attr.<name>=<value>: only workflows whose search attribute has this value (a number or boolean matches its text: attr.priority=2).' },
    },
  }
})()

/**
 * The `name`, `tags` and `attributes` of POST /v1/workflows, checked: a malformed or too large one is a 400 whose
 * code says which (SEARCH_ATTRIBUTES_INVALID / SEARCH_ATTRIBUTES_LIMIT) and whose hint names the body's fields.
 */
export function searchOfBody(body: { name?: unknown; tags?: unknown; attributes?: unknown }): SearchInfo {
  return checkSearch(body, 'body', (code, message) => new HttpError('BAD_REQUEST', message, {
    agentError: { name: 'AgentError', code, message, hint: `${WORKFLOW_CODES[code].hint} (POST /v1/workflows: "name", "tags", "attributes")` },
  }))
}

/** The search filter of a workflow list query (at most as many attributes as a workflow holds). */
function searchFilterOf(p: WorkflowListParams): SearchFilter | undefined {
  const tags = p.tag === undefined ? [] : Array.isArray(p.tag) ? p.tag : [p.tag]
  const attributes = Object.fromEntries(Object.entries(p).filter(([k, v]) => k.startsWith('attr.') && typeof v === 'string').map(([k, v]) => [k.slice(5), v as string]))
  if (Object.keys(attributes).length > SEARCH_LIMITS.attributes) throw new HttpError('BAD_REQUEST', `A list query filters on at most ${SEARCH_LIMITS.attributes} attributes`)
  const f: SearchFilter = {
    ...(tags.length > 0 ? { tags } : {}),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    ...(p.name !== undefined ? { name: p.name } : {}),
  }
  return Object.keys(f).length > 0 ? f : undefined
}

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

export async function listWorkflows(store: WorkflowListing, tenant: string, p: WorkflowListParams): Promise<Page<WorkflowSummary>> {
  const limit = parseLimit(p.limit, DEFAULT_PAGE, MAX_PAGE)
  const before = parseListCursor(p.cursor)
  const search = searchFilterOf(p)
  const rows = await store.list(tenant, { limit, ...(p.state ? { state: p.state } : {}), ...(before ? { before } : {}), ...(search ? { search } : {}) })
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
