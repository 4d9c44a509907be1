/**
 * ajs-lang/workflows: durable, resumable workflows on the AJS VM.
 *
 * A workflow module (top-level statements, `agent` / `workflow` / `sleep`
 * requests, `log` / `phase` calls) runs as one VM execution driven through
 * the poll / request / resolve boundary of the workflow engine's runtime
 * (JSON forms identical to its serde encodings), journaled so another
 * process can resume it exactly where it was. Re-exports only.
 *
 * frontend/ compiles a module to a WorkflowProgram; engine/ runs one
 * execution (journal, replay, atoms, boundary codec); stores/ keep journals
 * on disk; drivers/ start and resume executions and drive them (in process,
 * over stdio).
 */
export { compileWorkflow, readWorkflowMeta, type CompileWorkflowOptions } from './frontend/module.ts'
export { isWorkflowProgram, type WorkflowProgram } from './engine/program.ts'
export { startWorkflow, resumeWorkflow, retryWorkflow, continueWorkflow, type StartWorkflowOptions, type ResumeWorkflowOptions } from './drivers/start.ts'
export { checkTimeouts, type WorkflowTimeouts } from './engine/timeouts.ts'
export {
  SEARCH_LIMITS, checkSearch, matchesSearch, searchOfJournal,
  type SearchInfo, type SearchAttributes, type SearchValue, type SearchFilter,
} from './engine/search.ts'
export { RETRY_DEFAULTS, TRANSIENT_CODES, errorCodeOf, type RetryPolicy, type RunRetryPolicy } from './engine/retry.ts'
export { WorkflowExecution, SANDBOX_DEFAULTS, type WorkflowSandbox, type ExecutionState } from './engine/execution.ts'
export {
  MemoryJournalStore, JOURNAL_DEFAULTS, JOURNAL_VERSION, checkJournal,
  type JournalEntry, type JournalLimits, type JournalStore,
} from './engine/journal.ts'
export { decodeResolution, decodeBudget, canonicalJson } from './engine/codec.ts'
export { WorkflowError } from './engine/errors.ts'
export { FileJournalStore } from './stores/file-store.ts'
export type {
  BudgetSnapshot, WorkflowRef, WorkflowCall, WorkflowRequest, WorkflowRequestKind, WorkflowResolution, WorkflowOutput, WorkflowPoll,
} from './engine/types.ts'
export {
  startLocalRun, resumeLocalRun, retryLocalRun, defaultMaxAgents, defaultRunsDir,
  type LocalDriverOptions, type LocalRunStart, type LocalRunOutcome,
} from './drivers/local.ts'
export { listRuns, summarizeRun, summarizeJournal, RUN_STATES, type RunSummary, type RunFilter } from './drivers/runs.ts'
export { answerAgent, type LlmLike } from './engine/agent-request.ts'
export { serveStdio, StdioHost, RPC_ERRORS } from './drivers/stdio-host.ts'
