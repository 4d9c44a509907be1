/**
 * A generic hook for frontends whose entry is a list of statements rather
 * than a function (module-style sources such as workflow modules).
 *
 * The frontend receives the parsed program (same parser, same options as
 * `transpile`) and a `fail` that raises registry diagnostics with a code
 * frame; it returns the helpers, the entry's named parameters and the entry
 * statements (it may rewrite the ESTree first, keeping node offsets so every
 * location still points into the original source). Lowering is then the
 * transpiler's own: scopes, subset checks and AST emission are shared.
 */

import type { FunctionDeclaration, Identifier, ModuleDeclaration, Node, Program, Statement } from 'acorn'
import type { AjsProgram, FunctionDef } from '../ast/types.ts'
import type { CodeName } from '../diagnostics/codes.ts'
import type { Diagnostic } from '../diagnostics/diagnostic.ts'
import { LowerContext } from './context.ts'
import { atomTable } from './globals.ts'
import type { AtomNames } from './index.ts'
import { lowerHelper, restHelpersOf } from './lower/functions.ts'
import { liftLocalFunctions, type LiftedFunction } from './local-functions.ts'
import { liftFunctionTables } from './function-tables.ts'
import { specializeFunctionArguments } from './function-arguments.ts'
import { lowerBinding, predeclarePatterns } from './lower/patterns.ts'
import { lowerBlock } from './lower/statements.ts'
import { parseProgram } from './parse.ts'
import { Scope } from './scope.ts'
import { depthError } from './too-deep.ts'

/** What a statements frontend hands back to the lowering. */
export interface StatementsEntry {
  /** Name of the entry (the AST's `name`). */
  name: string
  /** Named parameters of the entry: fields of the run's argument object. */
  params: readonly string[]
  /** Top-level helper functions. */
  helpers: readonly FunctionDeclaration[]
  /** The entry's statements, lowered as one block. */
  body: ReadonlyArray<Statement | ModuleDeclaration>
}

export type FailFn = (name: CodeName, node: Node | [number, number], params?: Record<string, string | undefined>) => never

export interface StatementsOptions {
  filename?: string
  atoms?: AtomNames
}

/**
 * The local functions of the entry statements and of the helpers (local-functions.ts), lifted to helpers:
 * the statements are the body of a function of the entry's parameters while they are found.
 */
function withLocalFunctions(entry: StatementsEntry, params: Identifier[], ctx: LowerContext): { helpers: FunctionDeclaration[]; body: Array<Statement | ModuleDeclaration>; local: Map<string, LiftedFunction> } {
  const body = [...entry.body]
  const name = /^[A-Za-z_$][\w$]*$/.test(entry.name) ? entry.name : 'entry'
  const wrapper = { type: 'FunctionDeclaration', id: { type: 'Identifier', name, start: 0, end: 0 }, params, body: { type: 'BlockStatement', body, start: 0, end: ctx.source.length }, async: true, generator: false, expression: false, start: 0, end: ctx.source.length } as unknown as FunctionDeclaration
  const program = { type: 'Program', body: [...entry.helpers, wrapper], sourceType: 'module', start: 0, end: ctx.source.length } as unknown as Program
  specializeFunctionArguments(program, ctx)
  liftFunctionTables(program, ctx)
  const local = liftLocalFunctions(program, ctx)
  return { helpers: (program.body as FunctionDeclaration[]).filter((f) => f !== wrapper), body, local }
}

/** Parse `source`, let `shape` pick the entry statements, and lower them into an "ajs/1" program. */
export function transpileStatements(
  source: string,
  options: StatementsOptions,
  shape: (program: Program, fail: FailFn) => StatementsEntry,
): { ast: AjsProgram; warnings: Diagnostic[] } {
  const ctx = new LowerContext(source, options.filename ?? '<ajs>', atomTable(options.atoms))
  const { program } = parseProgram(source, ctx)
  try {
    return lowerStatements(program, ctx, options, shape)
  } catch (e) {
    throw depthError(e, program, ctx)
  }
}

function lowerStatements(program: Program, ctx: LowerContext, options: StatementsOptions, shape: (program: Program, fail: FailFn) => StatementsEntry): { ast: AjsProgram; warnings: Diagnostic[] } {
  const shaped = shape(program, (name, node, params) => ctx.fail(name, node, params))
  const ids: Identifier[] = shaped.params.map((name) => ({ type: 'Identifier', name, start: 0, end: 0 }) as Identifier)
  const { helpers, body, local } = withLocalFunctions(shaped, ids, ctx)
  for (const fn of helpers) ctx.checkName(fn.id.name, fn.id)
  ctx.helpers = new Set(helpers.map((f) => f.id.name))
  ctx.restHelpers = restHelpersOf(helpers)
  let functions: Record<string, FunctionDef> | undefined
  for (const fn of helpers) if (!local.has(fn.id.name)) (functions ??= {})[fn.id.name] = lowerHelper(fn, ctx)

  ctx.scope = new Scope(null)
  predeclarePatterns(ctx, ids)
  const properties = ids.map((id) => ({ key: id.name, value: lowerBinding(id, ctx, 'param') }))
  const steps = lowerBlock(body, ctx)
  // Local functions after the statements they came from (what those declared is known then: lower/program.ts).
  for (const fn of helpers) {
    const lifted = local.get(fn.id.name)
    if (lifted) (functions ??= {})[fn.id.name] = lowerHelper(fn, ctx, lifted)
  }
  const entry = shaped
  const ast: AjsProgram = {
    ajs: 1,
    op: 'seq',
    name: entry.name,
    file: ctx.file,
    ...(properties.length > 0 ? { params: { $pattern: 'object', properties } } : {}),
    ...(functions ? { functions } : {}),
    steps,
  }
  if (options.filename === undefined) delete ast.file
  return { ast, warnings: ctx.warnings }
}
