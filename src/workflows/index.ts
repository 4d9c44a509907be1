/**
 * ajs-lang/workflows: durable, resumable workflows on the AJS VM.
 *
 * A workflow module (top-level statements, `agent` / `workflow` / `sleep`
 * requests, `log` / `phase` calls) runs as one VM execution driven through
 * the poll / request / resolve boundary of the workflow engine's runtime
 * (JSON forms identical to its serde encodings), journaled so another
 * process can resume it exactly where it was. Re-exports only.
 */
export { compileWorkflow, readWorkflowMeta, isWorkflowProgram, type WorkflowProgram, type CompileWorkflowOptions } from './module.ts'
export { startWorkflow, resumeWorkflow, type StartWorkflowOptions, type ResumeWorkflowOptions } from './start.ts'
export { WorkflowExecution, SANDBOX_DEFAULTS, type WorkflowSandbox, type ExecutionState } from './execution.ts'
export {
  MemoryJournalStore, JOURNAL_DEFAULTS, JOURNAL_VERSION, checkJournal,
  type JournalEntry, type JournalLimits, type JournalStore,
} from './journal.ts'
export { decodeResolution, decodeBudget, canonicalJson } from './codec.ts'
export { WorkflowError } from './errors.ts'
export { FileJournalStore } from './file-store.ts'
export type {
  BudgetSnapshot, WorkflowRef, WorkflowCall, WorkflowRequest, WorkflowRequestKind, WorkflowResolution, WorkflowOutput, WorkflowPoll,
} from './types.ts'
export {
  startLocalRun, resumeLocalRun, defaultMaxAgents, defaultRunsDir,
  type LocalDriverOptions, type LocalRunStart, type LocalRunOutcome,
} from './local.ts'
export { listRuns, summarizeRun, summarizeJournal, type RunSummary } from './runs.ts'
export { answerAgent, type LlmLike } from './agent-request.ts'
export { serveStdio, StdioHost, RPC_ERRORS } from './stdio-host.ts'
