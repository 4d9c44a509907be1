/**
 * Structured diagnostics and the error classes thrown by the transpiler.
 *
 * A diagnostic is data (code, message, position, hint); `TranspileError`
 * wraps one as a thrown error whose `toString()` is the full human text:
 * header, code frame, hint. Every field a tool needs is a field, never only
 * text inside the message.
 */

import { CODES, fill, type CodeName, type Severity } from './codes.ts'
import { codeFrame, headerLine } from './format.ts'
import type { SourceLocator } from './location.ts'

/** A located diagnostic (errors and warnings). `column` is 0-based. */
export interface Diagnostic {
  code: string
  name: CodeName
  severity: Severity
  message: string
  hint: string
  file: string
  line: number
  column: number
}

/** Build a diagnostic from the registry. */
export function makeDiagnostic(
  name: CodeName,
  params: Record<string, string | undefined>,
  file: string,
  line: number,
  column: number,
): Diagnostic {
  const spec = CODES[name]
  return {
    code: spec.code,
    name,
    severity: spec.severity,
    message: fill(spec.message, params),
    hint: fill(spec.hint, params),
    file,
    line,
    column,
  }
}

/** Base class of all ajs-lang errors. */
export class AjsError extends Error {
  override name = 'AjsError'
}

/** A source the transpiler refuses: located, with a code frame and a suggested rewrite. */
export class TranspileError extends AjsError {
  override name = 'TranspileError'
  readonly code: string
  readonly codeName: CodeName
  readonly file: string
  readonly line: number
  /** 0-based, like acorn and the AST `loc`. */
  readonly column: number
  readonly hint: string
  readonly frame: string
  readonly diagnostic: Diagnostic
  /**
   * Every refusal of the pass when `transpile` was asked for several
   * (`maxErrors`), this one first; otherwise just this one.
   */
  errors: TranspileError[] = [this]

  constructor(diagnostic: Diagnostic, frame: string) {
    super(diagnostic.message)
    this.diagnostic = diagnostic
    this.code = diagnostic.code
    this.codeName = diagnostic.name
    this.file = diagnostic.file
    this.line = diagnostic.line
    this.column = diagnostic.column
    this.hint = diagnostic.hint
    this.frame = frame
  }

  override toString(): string {
    const d = this.diagnostic
    const head = headerLine(d.file, d.line, d.column, 'error', d.code, d.message)
    return `${head}\n${this.frame}\nhint: ${d.hint}`
  }
}

/**
 * True for a TranspileError, also one from another copy of ajs-lang (a
 * second install or bundle), where `instanceof` cannot see it.
 */
export function isTranspileError(e: unknown): e is TranspileError {
  if (e instanceof TranspileError) return true
  const x = e as Partial<TranspileError> | null
  return e instanceof Error && x!.name === 'TranspileError' && typeof x!.code === 'string' && typeof x!.line === 'number'
}

/** Raise a registry diagnostic at a position of `source` as a TranspileError. */
export function transpileError(
  name: CodeName,
  params: Record<string, string | undefined>,
  locator: SourceLocator,
  file: string,
  line: number,
  column: number,
): TranspileError {
  const diagnostic = makeDiagnostic(name, params, file, line, column)
  return new TranspileError(diagnostic, codeFrame(locator, line, column))
}

/** Format a warning diagnostic as one line of text. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${headerLine(d.file, d.line, d.column, d.severity, d.code, d.message)}\nhint: ${d.hint}`
}

/** The error classes, as a namespace (`errors.TranspileError`). */
export const errors = { AjsError, TranspileError } as const
