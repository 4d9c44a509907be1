/**
 * `WorkflowError`: every failure of the workflow runtime, with a stable code
 * from `diagnostics/workflow-codes.ts`, the registry's hint, and data fields
 * (the journal entry, the cause) instead of prose to parse.
 */
import { AjsError } from '../../diagnostics/diagnostic.ts'
import { WORKFLOW_CODES, type WorkflowCode } from '../../diagnostics/workflow-codes.ts'
import type { AgentError } from '../../vm/errors.ts'

export class WorkflowError extends AjsError {
  override name = 'WorkflowError'
  readonly code: WorkflowCode
  readonly hint: string
  /** Index of the journal entry concerned (JOURNAL_MISMATCH, JOURNAL_INVALID, JOURNAL_LIMIT). */
  readonly entry?: number
  /** The guest error that ended the workflow (WORKFLOW_FAILED). */
  override readonly cause?: AgentError

  constructor(code: WorkflowCode, message: string, extra: { entry?: number; cause?: AgentError; hint?: string } = {}) {
    super(message)
    this.code = code
    this.hint = extra.hint ?? WORKFLOW_CODES[code].hint
    if (extra.entry !== undefined) this.entry = extra.entry
    if (extra.cause !== undefined) this.cause = extra.cause
  }

  /** Plain data (for JSON-RPC errors and `--json` output). */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      hint: this.hint,
      ...(this.entry !== undefined ? { entry: this.entry } : {}),
      ...(this.cause !== undefined ? { cause: this.cause } : {}),
    }
  }

  override toString(): string {
    return `${this.code}: ${this.message}\nhint: ${this.hint}`
  }
}

export const workflowError = (code: WorkflowCode, message: string, extra?: ConstructorParameters<typeof WorkflowError>[2]) =>
  new WorkflowError(code, message, extra)
