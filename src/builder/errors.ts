/**
 * BuilderError: every mistake the builder detects (unknown method, bad
 * arguments, a condition that does not parse, an AST that fails validation)
 * is one of these, located by a JSON pointer into the AST being built and,
 * where known, the top-level step index and op.
 */

export type BuilderErrorCode =
  | 'BUILDER_UNKNOWN_METHOD'
  | 'BUILDER_ARGS'
  | 'BUILDER_PARSE'
  | 'BUILDER_INVALID_AST'
  | 'BUILDER_IMMUTABLE'

/** What each builder code means and how to fix it (listed in docs/errors.md). */
export const BUILDER_ERROR_DOCS: Readonly<Record<BuilderErrorCode, { message: string; hint: string }>> = Object.freeze({
  BUILDER_UNKNOWN_METHOD: { message: 'The builder has no method (atom) of that name', hint: 'Use a core atom, a builder method, or register the atom on the VM and use vm.Agent.' },
  BUILDER_ARGS: { message: 'A builder method was called with arguments of the wrong shape', hint: 'Pass the fields the atom declares; strings are values, use e.* or b.ref() for expressions.' },
  BUILDER_PARSE: { message: 'A condition or expression string does not parse as AJS', hint: 'Fix the expression; the cause carries the transpiler error with its column.' },
  BUILDER_INVALID_AST: { message: 'The assembled program is not a valid ajs/1 AST', hint: 'See the JSON pointer in the message; it names the offending step and field.' },
  BUILDER_IMMUTABLE: { message: 'Builders are immutable', hint: 'Use the builder each method call returns instead of assigning to it.' },
})

export interface BuilderErrorInfo {
  /** JSON pointer into the AST, e.g. `/steps/2/then/0/url`. */
  path?: string
  /** The op of the step the error is about. */
  op?: string
  /** The underlying error (e.g. the TranspileError of a condition). */
  cause?: unknown
}

/** `/steps/3/then/0` -> 3 */
function topStep(path: string | undefined): number | undefined {
  const m = path ? /^\/steps\/(\d+)/.exec(path) : null
  return m ? Number(m[1]) : undefined
}

export class BuilderError extends Error {
  override readonly name = 'BuilderError'
  readonly code: BuilderErrorCode
  /** The plain description, without the location prefix. */
  readonly detail: string
  readonly path?: string
  readonly op?: string
  /** Index of the top-level step the error is in. */
  readonly step?: number

  constructor(code: BuilderErrorCode, detail: string, info: BuilderErrorInfo = {}) {
    const step = topStep(info.path)
    const where = step === undefined ? '' : `step ${step}${info.op ? ` (${info.op})` : ''}${info.path && info.path !== `/steps/${step}` ? ` at ${info.path}` : ''}: `
    super(where + detail, info.cause === undefined ? undefined : { cause: info.cause })
    this.code = code
    this.detail = detail
    this.path = info.path
    this.op = info.op
    this.step = step
  }

  /** The same error seen from an enclosing body: `/steps/0/x` inside `prefix` becomes `prefix/0/x`. */
  within(prefix: string): BuilderError {
    const path = this.path?.startsWith('/steps') ? prefix + this.path.slice('/steps'.length) : prefix
    return new BuilderError(this.code, this.detail, { path, op: this.op, cause: this.cause })
  }
}

export const isBuilderError = (e: unknown): e is BuilderError => e instanceof BuilderError
