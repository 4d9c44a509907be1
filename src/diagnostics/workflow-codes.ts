/**
 * Stable codes of the durable workflow runtime (`ajs-lang/workflows`):
 * journal, replay, resume and the poll / resolve boundary. Workflow module
 * shape errors are transpile-time codes (AJS5xxx in `codes.ts`).
 */

export interface WorkflowCodeSpec {
  message: string
  hint: string
}

export const WORKFLOW_CODES = {
  JOURNAL_MISMATCH: {
    message: 'The replay took a different path than the journal',
    hint: 'Resume with the exact workflow that wrote the journal and the same inputs; a journal cannot follow a changed control flow. Start a new run for the new behaviour.',
  },
  WORKFLOW_VERSION_MISMATCH: {
    message: 'The journal was written by a different version of the workflow',
    hint: 'Resume with the source that started the run (its AST hash is pinned in the journal), or start a new run.',
  },
  JOURNAL_LIMIT: {
    message: 'The journal exceeds a limit',
    hint: 'Raise `limits.maxEntries`, `limits.maxEntryBytes` or `limits.maxJournalBytes` (library), or split the work into child workflows.',
  },
  JOURNAL_INVALID: {
    message: 'The journal is not a valid workflow journal',
    hint: 'Pass the entries `execution.journal()` returned (or the run directory\'s journal.jsonl) unchanged.',
  },
  WORKFLOW_UNKNOWN_REQUEST: {
    message: 'No pending request has this id',
    hint: 'Resolve only ids returned by poll() or takePendingRequests(), once each.',
  },
  WORKFLOW_RESOLUTION_INVALID: {
    message: 'The resolution is not a valid WorkflowRuntimeRequestResolution',
    hint: 'Send {"Ok": value}, "OkUndefined", {"OkWithBudget": {"value": v, "budget": {"total": n|null, "spent": n}}} or {"Err": {"message": "..."}}.',
  },
  WORKFLOW_FAILED: {
    message: 'The workflow failed',
    hint: 'See the cause (`error.cause`): its code, message and source location.',
  },
  WORKFLOW_OPTIONS_INVALID: {
    message: 'Invalid workflow options',
    hint: 'Check the option names and types against docs/workflows.md.',
  },
  WORKFLOW_RUN_NOT_FOUND: {
    message: 'No workflow run with this id',
    hint: 'List the runs with `ajsc workflow ls` (and pass the same `--runs-dir`).',
  },
  WORKFLOW_CANCELLED: {
    message: 'The workflow was cancelled',
    hint: 'It was cancelled (execution.cancel, `ajsc workflow cancel`, POST /v1/workflows/{id}/cancel) and did not catch the cancellation; its try/finally cleanup ran. Start a new run to do the work again.',
  },
  WORKFLOW_TIMEOUT: {
    message: 'The workflow ran past its deadline',
    hint: 'Its run timeout (timeouts.runMs, journaled at start: the deadline survives a restart) passed before it ended; requests in flight were cancelled. Start it again with a longer timeouts.runMs, or split the work (continueAsNew). A single request that takes too long is timeouts.requestMs / agent(p, { timeoutMs }) instead: a TIMEOUT error the retry policy retries.',
  },
  SEARCH_ATTRIBUTES_INVALID: {
    message: 'A run\'s name, tags or search attributes are malformed',
    hint: 'A name is a non-empty string; a tag and an attribute name are letters, digits and _ . - (tags also : /); an attribute value is a string, a finite number or a boolean (null in upsertAttributes removes it). See docs/workflows.md#listing-and-search.',
  },
  SEARCH_ATTRIBUTES_LIMIT: {
    message: 'A run\'s name, tags or search attributes exceed a bound',
    hint: 'A run has at most 16 tags of 64 characters, 32 attributes (names of 64 characters) and 4 KiB of attributes as JSON, and a name of 200 characters. Keep large data in args or expose(); search attributes are for finding runs.',
  },
  WORKFLOW_DISPOSED: {
    message: 'The workflow execution was disposed',
    hint: 'Resume it from its journal with resumeWorkflow(program, journal).',
  },
} as const satisfies Record<string, WorkflowCodeSpec>

export type WorkflowCode = keyof typeof WORKFLOW_CODES
