/**
 * HTTP errors: one class carrying a stable code from the registry, the
 * status derived from it, and the JSON body every non-2xx answer has:
 * `{ "error": { name, code, message, hint, ... } }` — the shape of
 * `RunResult.error`, so clients handle both alike.
 */
import { SERVER_CODES, type ServerCode } from '../diagnostics/server-codes.ts'
import type { AgentError } from '../vm/errors.ts'

/** Where in a request a fault is, and what it is: `{ path: 'body.argz', message }`. */
export interface RequestFault { path: string; message: string }

export interface ErrorBody {
  error: {
    name: 'AgentError'
    code: string
    message: string
    hint?: string
    details?: RequestFault[]
    [extra: string]: unknown
  }
}

export class HttpError extends Error {
  readonly status: number
  readonly hint: string
  /** Seconds, for 429 and 503 answers. */
  retryAfter?: number
  /** A VM error that explains a 422 (its code is reported instead of PROGRAM_REJECTED). */
  agentError?: AgentError
  /** Where in the request the fault is (a schema refusal's field: validation.ts). */
  details?: RequestFault[]

  /** extra.hint: this request's own hint, where the code's catalog hint is too general (what a route's body needs). */
  constructor(readonly code: ServerCode, message?: string, extra: { retryAfter?: number; agentError?: AgentError; hint?: string; details?: RequestFault[] } = {}) {
    const spec = SERVER_CODES[code]
    super(message ?? spec.message)
    this.name = 'HttpError'
    this.status = spec.status
    this.hint = extra.hint ?? spec.hint
    if (extra.retryAfter !== undefined) this.retryAfter = extra.retryAfter
    if (extra.agentError) this.agentError = extra.agentError
    if (extra.details) this.details = extra.details
  }

  toBody(): ErrorBody {
    if (this.agentError) return { error: { ...this.agentError, name: 'AgentError' } }
    return { error: { name: 'AgentError', code: this.code, message: this.message, hint: this.hint, ...(this.details ? { details: this.details } : {}) } }
  }
}

/** VM codes that mean "the request's program or arguments are unacceptable": 422, never a run. */
export const REJECTED_PROGRAM_CODES: ReadonlySet<string> = new Set([
  'AST_INVALID', 'AST_VERSION', 'AST_TOO_LARGE', 'AST_TOO_DEEP', 'ARGS_INVALID', 'OPTIONS_INVALID',
  'SOURCE_NOT_SUPPORTED', 'PROCEDURE_TOO_LARGE', 'UNKNOWN_OP', 'UNKNOWN_ATOM', 'LIBRARY_MISSING', 'LIBRARY_VERSION', 'VALUE_TOO_LARGE', 'VALUE_NOT_DATA',
  'PLAN_REFUSED',
])

/** True for an error from the transpiler (a source the server cannot compile). */
export const isTranspileCode = (code: string): boolean => /^AJS\d{4}$/.test(code)
