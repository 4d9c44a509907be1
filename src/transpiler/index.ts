/**
 * The AJS transpiler: JavaScript source -> "ajs/1" AST.
 *
 * One implementation behind every entry point: `transpile` (full result),
 * `ajs` (tagged template or function on a string, returns the AST) and
 * `transpileExpression` (one expression, for the builder's conditions).
 * acorn parses once; a single lowering pass resolves names, checks the
 * subset and emits the AST. Refusals throw a located `TranspileError`.
 */

import type { AjsProgram, Expr } from '../ast/types.ts'
import { TranspileError, type Diagnostic } from '../diagnostics/diagnostic.ts'
import { recordCompileDiagnostics } from '../diagnostics/compile-diagnostics.ts'
import { LowerContext } from './context.ts'
import { atomTable } from './globals.ts'
import { lowerExpr } from './lower/expressions.ts'
import { lowerProgram } from './lower/program.ts'
import { parseExpression, parseProgram } from './parse.ts'
import { depthError } from './too-deep.ts'
import type { Signature } from './signature.ts'
import { typecheckOrThrow } from './typecheck.ts'

export type { Signature, ParamSignature, JsonSchema } from './signature.ts'
/** What `transpile` throws (the same class as `ajs-lang`'s: entries share one copy). */
export { TranspileError, AjsError, isTranspileError, type Diagnostic } from '../diagnostics/diagnostic.ts'
export { compileDiagnosticsOf, type CompileDiagnostic } from '../diagnostics/compile-diagnostics.ts'
export { typecheckSource, type TypecheckOptions } from './typecheck.ts'

/** Atom names known besides the core ones: a list, or a table keyed by name (e.g. the VM's). */
export type AtomNames = readonly (string | { readonly op: string })[] | Readonly<Record<string, unknown>>

export interface TranspileOptions {
  /** Source name used in errors and stored as the AST's `file`. */
  filename?: string
  /**
   * Custom atoms callable from the source (core atoms are always known).
   * Without it, atoms are late-bound: a call to a name that is not a helper,
   * core atom, global or host name compiles to a custom-atom call, listed in
   * `warnings` and in the AST's `atoms`; the VM that runs it must have it.
   * With it (even `[]`), an unknown name is an error (AJS3002).
   */
  atoms?: AtomNames
  /**
   * Report up to this many refusals in one pass (default 1: stop at the
   * first). The thrown TranspileError is the first one; `errors` holds all.
   */
  maxErrors?: number
  /**
   * Check the program against the atoms' schemas (`atoms` given as a table
   * of atoms with `inputSchema` / `outputSchema`, e.g. `mcpAtoms(...).atoms`):
   * missing, mistyped or unknown fields of atom calls and misused results are
   * compile-time errors (AJS6xxx, see typecheck.ts).
   */
  typecheck?: boolean
}

export interface TranspileResult {
  ast: AjsProgram
  signature: Signature
  warnings: Diagnostic[]
}

export interface ExpressionOptions {
  /** Variables the expression may read and assign. */
  vars?: readonly string[]
  atoms?: AtomNames
  filename?: string
  /**
   * Refuse an unparenthesized chained comparison `a > b > c` (AJS2035, with
   * the rewrite `a > b && b > c`) instead of evaluating it as JavaScript does.
   * The builder's condition strings set it.
   */
  refuseChainedComparisons?: boolean
}

function checkOptions(options: object, allowed: readonly string[], fn: string): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new TypeError(`${fn}: unknown option \`${key}\` (allowed: ${allowed.join(', ')})`)
  }
}

/** Transpile AJS source (one or more functions; the last is the entry). */
export function transpile(source: string, options: TranspileOptions = {}): TranspileResult {
  if (typeof source !== 'string') throw new TypeError('transpile: source must be a string')
  checkOptions(options, ['filename', 'atoms', 'maxErrors', 'typecheck'], 'transpile')
  const ctx = new LowerContext(source, options.filename ?? '<ajs>', atomTable(options.atoms))
  const maxErrors = options.maxErrors ?? 1
  if (!Number.isInteger(maxErrors) || maxErrors < 1) throw new TypeError('transpile: maxErrors must be a positive integer')
  ctx.maxErrors = maxErrors
  ctx.lateBound = options.atoms === undefined
  ctx.fileInAst = options.filename !== undefined
  const parsed = parseProgram(source, ctx)
  let lowered: ReturnType<typeof lowerProgram>
  try {
    lowered = lowerProgram(parsed, ctx)
  } catch (e) {
    throw withAll(depthError(e, parsed.program, ctx), ctx)
  }
  if (ctx.errors.length > 0) throw withAll(ctx.errors[0], ctx)
  if (options.typecheck === true) {
    try {
      typecheckOrThrow(source, options.atoms, options.filename ?? '<ajs>')
    } catch (e) {
      throw depthError(e, parsed.program, ctx)
    }
  }
  const { ast, signature } = lowered
  // The warnings travel with this AST object to its runs (RunResult.diagnostics).
  recordCompileDiagnostics(ast, ctx.warnings)
  return { ast, signature, warnings: ctx.warnings }
}

/** The first refusal, carrying every refusal collected in this pass (in source order). */
function withAll(e: unknown, ctx: LowerContext): unknown {
  if (!(e instanceof TranspileError)) return e
  const all = ctx.errors.includes(e) ? [...ctx.errors] : [...ctx.errors, e]
  all.sort((a, b) => a.line - b.line || a.column - b.column)
  all[0]!.errors = all
  return all[0]
}

/**
 * Source text of a tagged template: raw text (so `\n` inside AJS strings
 * stays an escape) with the template's own escapes of `` ` `` and `${` undone.
 */
function templateSource(strings: TemplateStringsArray): string {
  return strings.raw[0]!.replace(/\\(`|\$\{)/g, '$1')
}

/**
 * `ajs` as a tagged template (`` ajs`function f({ x }) { ... }` ``) or as a
 * function on a string (`ajs(source, options?)`): returns the AST.
 * Interpolation is refused: pass values as run arguments.
 */
export function ajs(source: string | TemplateStringsArray, ...rest: unknown[]): AjsProgram {
  if (typeof source === 'string') return transpile(source, (rest[0] as TranspileOptions | undefined) ?? {}).ast
  if (rest.length > 0) {
    const text = source.raw.join('${}')
    const ctx = new LowerContext(text, '<ajs>', atomTable(undefined))
    const pos = ctx.locator.position(source.raw[0]!.length)
    ctx.fail('INTERPOLATION', [pos.line, pos.column])
  }
  return transpile(templateSource(source)).ast
}

/**
 * Transpile one expression (`count > 3 && !done`) with the same parser and
 * lowering as programs. `vars` are the variables it may use.
 */
export function transpileExpression(source: string, options: ExpressionOptions = {}): Expr {
  if (typeof source !== 'string') throw new TypeError('transpileExpression: source must be a string')
  checkOptions(options, ['vars', 'atoms', 'filename', 'refuseChainedComparisons'], 'transpileExpression')
  const ctx = new LowerContext(source, options.filename ?? '<expr>', atomTable(options.atoms))
  ctx.refuseChainedComparisons = options.refuseChainedComparisons === true
  for (const name of options.vars ?? []) ctx.scope.vars.set(name, 'let')
  return lowerExpr(parseExpression(source, ctx), ctx)
}
