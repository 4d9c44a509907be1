/**
 * What the `ajsc workflow` commands use of the workflow engine and its local driver: one module,
 * loaded when a workflow command runs (workflow.ts `loadEngine`), so every other `ajsc` command
 * starts without the engine and the frontends it brings.
 */
export { compileWorkflow } from '../../workflows/frontend/module.ts'
export { FileJournalStore } from '../../workflows/stores/file-store.ts'
export { newRunId, queryLocalRun, replayLocalRuns, resumeLocalRun, retryLocalRun, sendToLocalRun, startLocalRun } from '../../workflows/drivers/local.ts'
export { checkRetryPolicy } from '../../workflows/engine/retry.ts'
export { checkTimeouts } from '../../workflows/engine/timeouts.ts'
export { listRuns, summarizeRun } from '../../workflows/drivers/runs.ts'
export { attributesOfFlags, parseAttributeFlag } from '../../workflows/engine/search.ts'
export { serveStdio } from '../../workflows/drivers/stdio-host.ts'
