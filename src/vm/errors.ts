/**
 * Errors inside the VM travel as `VmError` exceptions (cheap on the happy
 * path, caught by `try` steps) and leave `vm.run` only as plain `AgentError`
 * data in `RunResult.error`: one channel, never a host exception.
 */
import type { RuntimeCode } from '../diagnostics/runtime-codes.ts'
import type { Loc } from '../ast/types.ts'
import type { ErrorValueName } from '../ast/globals.ts'
import { processSlot } from './process-slot.ts'

/** The error record a run reports (plain, JSON-serializable data). */
export interface AgentError {
  name: 'AgentError'
  code: RuntimeCode | string
  message: string
  hint?: string
  /** The op (atom) whose step failed. */
  op?: string
  /** `file:line:col` of the failing step, when the AST carries locations (line and column 1-based). */
  location?: string
  file?: string
  /** 1-based, as in `location`. */
  line?: number
  /** 1-based, as in `location`, editors and the CLI (the AST's `loc` column is 0-based, as acorn's). */
  column?: number
  /** JSON pointer into the AST (validation errors). */
  path?: string
  /** The value a guest `throw` threw. */
  value?: unknown
  /** Per-problem details (validation). */
  details?: Array<{ path: string; message: string }>
  /** A remote VM's refusal (429, 503): seconds to wait before retrying, from `Retry-After`. */
  retryAfter?: number
}

/** True for the error records `vm.run` reports. */
export function isAgentError(value: unknown): value is AgentError {
  return typeof value === 'object' && value !== null && (value as AgentError).name === 'AgentError'
    && typeof (value as AgentError).code === 'string'
}

/** Codes that end the run (`try` cannot catch them); RUNTIME_CODES marks the same ones (a test pins it). */
const FATAL: ReadonlySet<string> = new Set(['FUEL_EXHAUSTED', 'TIMEOUT', 'ABORTED', 'HEAP_LIMIT'])

/**
 * The default message and hint of each code (RUNTIME_CODES) are an opt-in part,
 * `ajs-lang/vm/texts` (parts/texts.ts), registered process-wide under a
 * registered symbol; the full entry, ajsc and the server include it. Without
 * it an error the VM raises without its own message says its code, and has no
 * generic hint; codes, and the messages and hints given where an error is
 * raised, are the same either way.
 */
type Texts = Readonly<Record<string, { readonly message: string; readonly hint: string }>>
const textSlot = processSlot<{ texts?: Texts }>('vm.texts', () => ({}))

/** Called by the texts part when it is imported. */
export function registerErrorTexts(texts: Texts): void {
  textSlot.texts = texts
}

export class VmError extends Error {
  readonly code: string
  readonly fatal: boolean
  op?: string
  loc?: Loc
  file?: string
  hint?: string
  value?: unknown
  path?: string
  details?: Array<{ path: string; message: string }>

  constructor(code: RuntimeCode | string, message?: string, extra?: Partial<Pick<VmError, 'op' | 'loc' | 'file' | 'value' | 'path' | 'details' | 'hint'>>) {
    const spec = textSlot.texts?.[code]
    super(message ?? spec?.message ?? code)
    this.code = code
    this.fatal = FATAL.has(code)
    this.hint = spec?.hint
    if (extra) Object.assign(this, extra)
  }

  toAgentError(): AgentError {
    const out: AgentError = { name: 'AgentError', code: this.code, message: this.message }
    if (this.hint) out.hint = this.hint
    if (this.op) out.op = this.op
    if (this.loc) {
      out.line = this.loc[0]
      out.column = this.loc[1] + 1
      if (this.file) out.file = this.file
      out.location = `${this.file ?? '<ajs>'}:${this.loc[0]}:${this.loc[1] + 1}`
    }
    if (this.path !== undefined) out.path = this.path
    if (this.details) out.details = this.details
    if (this.value !== undefined) out.value = this.value
    return out
  }
}

export const vmError = (code: RuntimeCode, message?: string, extra?: ConstructorParameters<typeof VmError>[2]) =>
  new VmError(code, message, extra)

/** Convert anything caught inside the VM to a VmError (host errors become INTERNAL / RANGE_ERROR). */
export function toVmError(e: unknown): VmError {
  if (e instanceof VmError) return e
  // `{ code, message, value? }` thrown by a host-added function (AgentVMOptions.functions), maybe from another bundle.
  const t = e as VmError | null
  if (typeof t?.code === 'string' && !(e instanceof Error)) return new VmError(t.code, t.message, t)
  if (e instanceof RangeError) {
    if (/call stack/i.test(e.message)) return new VmError('STACK_OVERFLOW')
    return new VmError('RANGE_ERROR', e.message)
  }
  if (e instanceof SyntaxError) return new VmError('JSON_ERROR', e.message)
  if (e instanceof TypeError) return new VmError('TYPE_ERROR', e.message)
  const message = e instanceof Error ? e.message : String(e)
  return new VmError('INTERNAL', message)
}

/**
 * The error each value a guest `catch` bound came from: `throw e` of that value again keeps the
 * first error's place and kind (JavaScript's error keeps its stack), not the rethrow's.
 */
const caughtFrom = new WeakMap<object, VmError>()

/** The value a guest `catch` binds for a VM-raised error (remembered, see `rethrownError`). */
export function guestErrorValue(err: VmError): unknown {
  const value = caughtValue(err)
  if (value !== null && typeof value === 'object') caughtFrom.set(value, err)
  return value
}

function caughtValue(err: VmError): unknown {
  // A value rethrown (below) is the same object again, whatever the error's code.
  if (err.code === 'THROWN' || caughtFrom.has(err.value as object)) return err.value
  const name: ErrorValueName = err.code === 'TYPE_ERROR' ? 'TypeError'
    : err.code === 'REFERENCE_ERROR' || err.code === 'UNKNOWN_IDENTIFIER' ? 'ReferenceError'
    : err.code === 'RANGE_ERROR' ? 'RangeError'
    : err.code === 'JSON_ERROR' ? 'SyntaxError'
    : 'Error'
  return { name, message: err.message, code: err.code }
}

/**
 * `throw v` of a value a catch bound: the first error's code (while the value still names it),
 * place and hint, with the value's message now (a handler may have added context to it).
 */
export function rethrownError(v: unknown, message: string): VmError | undefined {
  const first = v !== null && typeof v === 'object' ? caughtFrom.get(v) : undefined
  if (!first) return undefined
  const code = first.code !== 'THROWN' && (v as { code?: unknown }).code === first.code ? first.code : 'THROWN'
  return new VmError(code, message, { value: v, loc: first.loc, op: first.op, hint: first.hint, file: first.file })
}
