/**
 * Top-level `const` and `let` declarations, as models write them (`const BASE = 'https://…'`, `const RATE = 0.2`,
 * `const fmt = (n) => …`): JavaScript evaluates them once, before the entry runs, and every function reads them.
 * Here they are declared at the start of the entry, before its own body (a block of its own, so its names may
 * shadow them), and the helpers read them as local functions read the variables around them (local-functions.ts):
 * the module is, while this is worked out, one function whose statements are the declarations and the functions,
 * and every function but the entry is lifted from it with what it reads as its first parameters (the local
 * functions inside them and inside the entry too). A helper may not assign one (AJS2051), as a local function
 * may not. When the entry declares a module's name again, a helper reading the module's one and called there still
 * gets the module's: that variable is renamed (local-functions.ts).
 */
import type { BlockStatement, FunctionDeclaration, Program, Statement, VariableDeclaration } from 'acorn'
import type { LowerContext } from './context.ts'
import { liftLocalFunctions, type LiftedFunction } from './local-functions.ts'
import { liftFunctionTables } from './function-tables.ts'

/** The helpers that read module declarations (by name), or an empty map when the program has none to move. */
export function moveModuleDeclarations(program: Program, ctx: LowerContext): Map<string, LiftedFunction> {
  if (!program.body.some((s) => s.type === 'VariableDeclaration' && s.kind !== 'var')) return new Map()
  const fns: FunctionDeclaration[] = []
  let exported: FunctionDeclaration | undefined
  for (const s of program.body) {
    if (s.type === 'FunctionDeclaration') fns.push(s)
    else if (s.type === 'ExportDefaultDeclaration' && s.declaration.type === 'FunctionDeclaration' && s.declaration.id) fns.push((exported = s.declaration as FunctionDeclaration))
    // Anything else stays where it is, to be refused as before (AJS1003, AJS2015 for `var`, ...).
    else if (s.type !== 'VariableDeclaration' || s.kind === 'var') return new Map()
  }
  const entry = exported ?? fns[fns.length - 1]
  if (!entry) return new Map()
  const statements: Statement[] = program.body.map((s) => (s.type === 'ExportDefaultDeclaration' ? (s.declaration as FunctionDeclaration) : s as Statement))
  const module = { type: 'FunctionDeclaration', id: { ...entry.id }, params: [], body: { type: 'BlockStatement', body: statements, start: 0, end: ctx.source.length }, async: false, generator: false, expression: false, start: 0, end: ctx.source.length } as unknown as FunctionDeclaration
  const whole = { type: 'Program', body: [module], sourceType: 'module', start: 0, end: ctx.source.length } as unknown as Program
  // An object of functions at the top level is one of the module's, as inside a function (function-tables.ts).
  liftFunctionTables(whole, ctx)
  const lifted = liftLocalFunctions(whole, ctx, entry)
  const helpers = (whole.body as FunctionDeclaration[]).filter((f) => f !== module)
  // What is left of the module's statements: the declarations (less the local functions lifted from them) and the entry.
  const declared = statements.filter((s) => s.type === 'VariableDeclaration' && s.declarations.length > 0)
  const own: BlockStatement = { ...entry.body }
  entry.body = { ...entry.body, body: [...declared, own] } as BlockStatement
  program.body = [...helpers, ...program.body.filter((s) => s.type === 'ExportDefaultDeclaration' ? s.declaration === entry : s === entry)]
  return lifted
}
