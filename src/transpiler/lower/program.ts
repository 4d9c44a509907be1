/**
 * The program: top-level function declarations; the entry is the one
 * marked `export default`, else the last (the seed's rule).
 *
 * Helpers become `functions`; the entry's parameter becomes the root
 * `params` pattern plus `inputSchema`/`signature`; its body becomes the
 * root `steps`.
 */

import type { FunctionDeclaration, Identifier, Node, Pattern as EsPattern, Program } from 'acorn'
import type { AjsProgram, FunctionDef, Pattern } from '../../ast/types.ts'
import { LowerContext } from '../context.ts'
import { jsDocBefore, parseJsDoc } from '../jsdoc.ts'
import { liftLocalFunctions, type LiftedFunction } from '../local-functions.ts'
import { moveModuleDeclarations } from '../module-declarations.ts'
import { specializeFunctionArguments } from '../function-arguments.ts'
import { writeOutFunctionFactories } from '../function-factories.ts'
import { collectionParams } from '../collection-params.ts'
import { liftFunctionTables } from '../function-tables.ts'
import type { Parsed } from '../parse.ts'
import { Scope } from '../scope.ts'
import { buildSignature, type EntryFields, type Signature } from '../signature.ts'
import { lowerHelper, restHelpersOf } from './functions.ts'
import { propertyKey } from './expressions.ts'
import { lowerBinding, predeclarePatterns } from './patterns.ts'
import { lowerBlock, lowerStatement } from './statements.ts'

interface TopLevel {
  fns: FunctionDeclaration[]
  /** The function marked `export default`, if any. */
  exported?: FunctionDeclaration
}

function topLevelFunctions(program: Program, ctx: LowerContext): TopLevel {
  const fns: FunctionDeclaration[] = []
  let exported: FunctionDeclaration | undefined
  const addFunction = (s: FunctionDeclaration) => {
    if (s.generator) ctx.fail('GENERATOR', s)
    ctx.checkName(s.id.name, s.id)
    fns.push(s)
  }
  for (const s of program.body) {
    if (s.type === 'FunctionDeclaration') {
      addFunction(s)
    } else if (s.type === 'ExportDefaultDeclaration' && s.declaration.type === 'FunctionDeclaration') {
      // `export default function` marks the entry; an anonymous one is named `default`.
      const fn = s.declaration as FunctionDeclaration
      if (!fn.id) (fn as { id: Identifier }).id = { type: 'Identifier', name: 'default', start: fn.start, end: fn.start } as Identifier
      addFunction(fn)
      exported = fn
    } else if (s.type === 'EmptyStatement' || (s.type === 'ExpressionStatement' && 'directive' in s && s.directive)) {
      continue
    } else if (s.type === 'VariableDeclaration' && s.kind === 'var') {
      lowerStatement(s, ctx, []) // raises VAR
    } else if (/^(Import|Export)|^ClassDeclaration$|^WithStatement$|^DebuggerStatement$/.test(s.type)) {
      lowerStatement(s, ctx, []) // raises the construct's own code
    } else {
      ctx.fail('TOP_LEVEL_STATEMENT', s)
    }
  }
  if (fns.length === 0) ctx.fail('NO_FUNCTION', [1, 0])
  return { fns, exported }
}

/**
 * Top-level functions nothing calls: without `export default`, a helper
 * declared after the function the author meant as the entry (the last one
 * wins) is the usual cause. Warned, not refused: JS allows dead code.
 */
function warnUncalled(fns: FunctionDeclaration[], entry: FunctionDeclaration, ctx: LowerContext, local: ReadonlyMap<string, unknown>): void {
  for (const fn of fns) {
    // A local function nothing calls is dead code JavaScript allows, as a local variable nothing reads.
    if (fn === entry || ctx.calledHelpers.has(fn.id.name) || local.has(fn.id.name)) continue
    ctx.warn('UNUSED_FUNCTION', fn.id, { name: fn.id.name, entry: entry.id.name })
  }
}

interface EntryParams {
  kind: Signature['kind']
  pattern?: Pattern
  fields: EntryFields
}

/** `({ a, b = 1 })`, `({ a } = {})`, `(a, b = 1)` or `()`. */
function entryParams(fn: FunctionDeclaration, ctx: LowerContext): EntryParams {
  const params = fn.params
  const name = fn.id.name
  if (params.length === 0) return { kind: 'none', fields: [] }
  let only = params.length === 1 ? params[0]! : undefined
  // `{ ... } = {}`: args is always an object, so an empty default changes nothing.
  if (only?.type === 'AssignmentPattern' && only.left.type === 'ObjectPattern' &&
    only.right.type === 'ObjectExpression' && only.right.properties.length === 0) only = only.left
  if (only?.type === 'ObjectPattern') {
    predeclarePatterns(ctx, [only])
    const pattern = lowerBinding(only, ctx, 'param')
    const fields: EntryFields = []
    for (const p of only.properties) {
      if (p.type === 'Property' && !p.computed) fields.push({ key: propertyKey(p, ctx) as string, value: p.value })
    }
    return { kind: 'object', pattern, fields }
  }
  const named = params.every((p) => p.type === 'Identifier' || (p.type === 'AssignmentPattern' && p.left.type === 'Identifier'))
  if (!named) return ctx.fail('ENTRY_PARAMS', params[0]!, { name })
  predeclarePatterns(ctx, params)
  const properties: Array<{ key: string; value: Pattern }> = []
  const fields: EntryFields = []
  for (const p of params) {
    const key = p.type === 'Identifier' ? p.name : ((p as { left: { name: string } }).left.name)
    properties.push({ key, value: lowerBinding(p, ctx, 'param') })
    fields.push({ key, value: p as EsPattern })
  }
  return { kind: 'named', pattern: { $pattern: 'object', properties }, fields }
}

/**
 * `storeProcedure({ ast: helper })`: the helper lowered as the entry of its
 * own program, with every other helper (never the outer entry), in a fresh
 * context. Its warnings are the outer program's own and are not repeated;
 * the custom atoms it calls are added to the outer program's `atoms`.
 */
function procedures(fns: FunctionDeclaration[], entry: FunctionDeclaration, ctx: LowerContext, local: ReadonlyMap<string, LiftedFunction>): (name: string, at: Node) => AjsProgram {
  // Made on first use: most programs store no procedure.
  let cache: Map<string, AjsProgram> | undefined
  let busy: Set<string> | undefined
  return (name, at) => {
    cache ??= new Map()
    busy ??= new Set()
    const done = cache.get(name)
    if (done) return done
    if (busy.has(name)) ctx.fail('UNSUPPORTED', at, { name: `A helper that stores itself (or a helper that stores it) as a procedure` })
    // Its first parameters are what it reads around it: a stored program would ask its callers for them.
    if (local.get(name)?.captures.length) ctx.fail('UNSUPPORTED', at, { name: `A procedure of a function that reads variables around it (${local.get(name)!.captures.map((c) => c.name).join(', ')})` })
    busy.add(name)
    try {
      const self = fns.find((f) => f.id.name === name)!
      const sub = new LowerContext(ctx.source, ctx.file, ctx.atoms)
      sub.lateBound = ctx.lateBound
      const body = [...fns.filter((f) => f !== entry && f !== self), self]
      const program = { type: 'Program', body, sourceType: 'module', start: 0, end: ctx.source.length } as unknown as Program
      const { ast } = lowerProgram({ program, comments: [] }, sub)
      for (const a of sub.customAtoms) ctx.customAtoms.add(a)
      cache.set(name, ast)
      return ast
    } finally {
      busy.delete(name)
    }
  }
}

export function lowerProgram(parsed: Parsed, ctx: LowerContext): { ast: AjsProgram; signature: Signature } {
  // Before the copies of helpers given functions: a factory's call handed to one is a function written there.
  writeOutFunctionFactories(parsed.program, ctx)
  specializeFunctionArguments(parsed.program, ctx)
  liftFunctionTables(parsed.program, ctx)
  const local = moveModuleDeclarations(parsed.program, ctx)
  for (const [name, lifted] of liftLocalFunctions(parsed.program, ctx)) local.set(name, lifted)
  const { fns, exported } = topLevelFunctions(parsed.program, ctx)
  // The seed's rule: the last function is the entry, unless one is marked `export default`.
  const entry = exported ?? fns[fns.length - 1]!
  const helpers = fns.filter((f) => f !== entry)
  if (helpers.length > 0) {
    ctx.helpers = new Set(helpers.map((f) => f.id.name))
    ctx.asyncHelpers = new Set(helpers.filter((f) => f.async).map((f) => f.id.name))
    ctx.restHelpers = restHelpersOf(helpers)
  }
  ctx.functionNames = new Set(fns.map((f) => f.id.name))
  ctx.collectionParams = collectionParams(ctx.source, fns, entry, ctx.helpers)

  ctx.procedureOf = procedures(fns, entry, ctx, local)

  let functions: Record<string, FunctionDef> | undefined
  for (const fn of helpers) if (!local.has(fn.id.name)) ctx.recover(() => { (functions ??= {})[fn.id.name] = lowerHelper(fn, ctx) })

  ctx.scope = new Scope(null)
  const params = entryParams(entry, ctx)
  const steps = ctx.inFunction(entry.async, () => lowerBlock(entry.body.body, ctx))
  // Local functions after the functions they came from: what those declared (a Date, Map, Set) is known then.
  for (const fn of helpers) {
    const lifted = local.get(fn.id.name)
    if (lifted) ctx.recover(() => { (functions ??= {})[fn.id.name] = lowerHelper(fn, ctx, lifted) })
  }

  const comment = jsDocBefore(ctx.source, parsed.comments, entry.start)
  const doc = comment ? parseJsDoc(comment) : undefined
  const { signature, inputSchema } = buildSignature(entry.id.name, params.kind, params.fields, doc, ctx)
  warnUncalled(fns, entry, ctx, local)

  // Built by assignment in the AST's key order (no conditional spreads: this runs once per transpile).
  const ast = { ajs: 1, op: 'seq', name: entry.id.name } as AjsProgram
  if (signature.description) ast.description = signature.description
  if (ctx.fileInAst) ast.file = ctx.file
  if (params.pattern !== undefined) ast.params = params.pattern
  if (functions) ast.functions = functions
  if (ctx.customAtoms.size > 0) ast.atoms = [...ctx.customAtoms]
  ast.inputSchema = inputSchema
  ast.steps = steps
  ast.loc = ctx.loc(entry)
  return { ast, signature }
}
