/**
 * The workflow module frontend: a module of top-level statements (the way
 * the engine's scripts are written) → an "ajs/1" program whose entry takes
 * `{ args }`, plus its `meta` (read without running anything) and the AST
 * hash a journal pins.
 *
 *   import { sleep } from 'workflow:extra'
 *   export const meta = { name: 'digest', version: 1 }
 *   const draft = await agent(`Summarize ${args.url}`)
 *   await sleep(60_000)
 *   export default { draft }
 *
 * The shape is checked here; the statements are rewritten (rewrite.ts) and
 * then lowered by the transpiler's own statement lowering.
 */
import { parse, type Node, type Program } from 'acorn'
import { LIBRARIES } from '../../ast/libraries.ts'
import { TranspileError, transpileError } from '../../diagnostics/diagnostic.ts'
import { BUDGET_ATOM_NAMES } from '../../codemode/budget-atoms.ts'
import { SourceLocator } from '../../diagnostics/location.ts'
import { sha256Hex } from '../../vm/atoms/sha256.ts'
import { transpileStatements, type FailFn, type StatementsEntry } from '../../transpiler/statements-entry.ts'
import { isStackOverflow } from '../../transpiler/too-deep.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import { canonicalJson } from '../engine/codec.ts'
import type { WorkflowProgram } from '../engine/program.ts'
import { customAtomTable } from './atom-table.ts'
import { WORKFLOW_ATOMS, WORKFLOW_GLOBALS, callOf, ident, rewrite, rewriteStatements, type RewriteContext } from './rewrite.ts'
import { compilePythonWorkflow, isPythonSource } from './python.ts'
import { expandTasks, spliceTaskGroups, type TasksState } from './tasks.ts'

type AnyNode = Node & Record<string, any>

export interface CompileWorkflowOptions {
  /** Name used in diagnostics and locations (default `<workflow>`). */
  sourceName?: string
  /**
   * The host's custom atoms the module may call: names, or defineAtom results
   * (then a literal argument is checked against the atom's fields). Without
   * it a call of any other name is refused (AJS3002): a workflow module has
   * no late-bound atoms, since each call must be journaled by call site.
   */
  atoms?: ReadonlyArray<string | AtomDef>
}

const EXTRA_MODULE = 'workflow:extra'

/** Value of a pure literal (`meta`); anything computed is refused with its location. */
function literalValue(n: AnyNode, fail: FailFn): unknown {
  switch (n.type) {
    case 'Literal':
      if (n.regex || n.bigint !== undefined) return fail('WORKFLOW_META', n, { detail: 'regular expressions and BigInts are not data' })
      return n.value
    case 'TemplateLiteral':
      if (n.expressions.length > 0) return fail('WORKFLOW_META', n, { detail: 'a template with `${...}` is computed' })
      return n.quasis[0].value.cooked
    case 'UnaryExpression':
      if (n.operator === '-' && n.argument.type === 'Literal' && typeof n.argument.value === 'number') return -n.argument.value
      return fail('WORKFLOW_META', n, { detail: 'expressions are computed' })
    case 'ArrayExpression':
      return n.elements.map((e: AnyNode | null) => {
        if (!e || e.type === 'SpreadElement') return fail('WORKFLOW_META', e ?? n, { detail: 'holes and spreads are not literals' })
        return literalValue(e, fail)
      })
    case 'ObjectExpression': {
      const out: Record<string, unknown> = {}
      for (const p of n.properties) {
        if (p.type !== 'Property' || p.computed || p.kind !== 'init' || p.method || p.shorthand) {
          return fail('WORKFLOW_META', p, { detail: 'only `key: literal` properties are literals' })
        }
        const key = p.key.type === 'Identifier' ? p.key.name : String(p.key.value)
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') return fail('FORBIDDEN_NAME', p.key, { name: key })
        out[key] = literalValue(p.value, fail)
      }
      return out
    }
    default:
      return fail('WORKFLOW_META', n, { detail: `${n.type === 'Identifier' ? `\`${n.name}\` is a variable` : 'expressions are computed'}` })
  }
}

function metaOf(decl: AnyNode, fail: FailFn): Record<string, unknown> {
  const v = decl.declaration
  const only = v?.type === 'VariableDeclaration' && v.kind === 'const' && v.declarations.length === 1 ? v.declarations[0] : undefined
  if (!only || only.id.type !== 'Identifier' || only.id.name !== 'meta' || !only.init || decl.specifiers?.length) {
    return fail('WORKFLOW_EXPORT', decl)
  }
  if (only.init.type !== 'ObjectExpression') return fail('WORKFLOW_META', only.init, { detail: 'it must be an object `{ ... }`' })
  return literalValue(only.init, fail) as Record<string, unknown>
}

function checkImport(decl: AnyNode, fail: FailFn): boolean {
  if (decl.source.value !== EXTRA_MODULE) return fail('WORKFLOW_IMPORT', decl.source)
  for (const s of decl.specifiers) {
    if (s.type !== 'ImportSpecifier' || s.imported.name !== 'sleep' || s.local.name !== 'sleep') return fail('WORKFLOW_IMPORT', s)
  }
  return decl.specifiers.length > 0
}

/** `export default <function>` becomes the helper `name`, called with `args` when it declares a parameter. */
function defaultFunction(d: AnyNode): AnyNode {
  const body = d.body.type === 'BlockStatement'
    ? d.body
    : { type: 'BlockStatement', body: [{ type: 'ReturnStatement', argument: d.body, start: d.body.start, end: d.body.end }], start: d.body.start, end: d.body.end }
  return { type: 'FunctionDeclaration', id: ident(d.id?.name ?? 'workflowMain', d), params: d.params, body, async: false, generator: d.generator, expression: false, start: d.start, end: d.end } as AnyNode
}

interface ModuleParts {
  meta: Record<string, unknown>
  sleepImported: boolean
  helpers: AnyNode[]
  body: AnyNode[]
}

/** Split the module into meta, imports, helpers and entry statements; check the shape. */
function splitModule(program: Program, fail: FailFn): ModuleParts {
  const parts: ModuleParts = { meta: {}, sleepImported: false, helpers: [], body: [] }
  const stmts = program.body as AnyNode[]
  let defaultSeen = false
  for (const s of stmts) {
    if (defaultSeen && s.type !== 'FunctionDeclaration' && s.type !== 'EmptyStatement') fail('WORKFLOW_DEFAULT_LAST', s)
    switch (s.type) {
      case 'ImportDeclaration':
        if (checkImport(s, fail)) parts.sleepImported = true
        break
      case 'ExportNamedDeclaration':
        parts.meta = metaOf(s, fail)
        break
      case 'ExportAllDeclaration':
        fail('WORKFLOW_EXPORT', s)
        break
      case 'ExportDefaultDeclaration': {
        defaultSeen = true
        const d = s.declaration as AnyNode
        if (d.type === 'FunctionDeclaration' || d.type === 'FunctionExpression' || d.type === 'ArrowFunctionExpression') {
          const fn = defaultFunction(d)
          parts.helpers.push(fn)
          const call = callOf(fn.id.name, fn.params.length > 0 ? [ident('args', d)] : [], d)
          parts.body.push({ type: 'ReturnStatement', argument: call, start: s.start, end: s.end } as AnyNode)
        } else {
          parts.body.push({ type: 'ReturnStatement', argument: d, start: s.start, end: s.end } as AnyNode)
        }
        break
      }
      case 'FunctionDeclaration':
        if (WORKFLOW_GLOBALS.has(s.id.name)) fail('WORKFLOW_RESERVED', s.id, { name: s.id.name })
        parts.helpers.push(s)
        break
      default:
        parts.body.push(s)
    }
  }
  return parts
}

const BUDGET_HINT = 'Budget tokens in a workflow are custom atoms the host gives it: workflowBudgetAtoms(tokens) from ajs-lang/codemode (budgetToken and budgetSettle, journaled with their reservations) in startWorkflow/resumeWorkflow { atoms }, or a module exporting them for `ajsc workflow run|resume --atoms`. budgetRun too when it is given the VM that runs the sub-runs: workflowBudgetAtoms(tokens, { runner }). The workflows of `ajsc serve` have all three when the serve config has "budgetTokens". '

/** An unknown budget atom is refused (AJS3002) with what a workflow needs for it, not a near name. */
function budgetHinted<T>(locator: SourceLocator, compile: () => T): T {
  try {
    return compile()
  } catch (e) {
    const name = e instanceof TranspileError && e.codeName === 'UNKNOWN_FUNCTION' ? /`(\w+)`/.exec(e.message)?.[1] : undefined
    if (!name || !BUDGET_ATOM_NAMES.has(name)) throw e
    const err = e as TranspileError
    throw transpileError('UNKNOWN_FUNCTION', { name, suggest: BUDGET_HINT }, locator, err.file, err.line, err.column)
  }
}

/** Compile a workflow module. Throws a located `TranspileError` (AJS codes; AJS5xxx for the module shape). */
export function compileWorkflow(source: string, options: CompileWorkflowOptions = {}): WorkflowProgram {
  if (typeof source !== 'string') throw new TypeError('compileWorkflow: source must be a string')
  const sourceName = options.sourceName ?? '<workflow>'
  let meta: Record<string, unknown> = {}
  const locator = new SourceLocator(source)
  let tasks: TasksState | undefined
  const customAtoms = customAtomTable(options.atoms)
  if (isPythonSource(options.sourceName)) return compilePythonWorkflow(source, sourceName, customAtoms)
  const calledAtoms = new Set<string>()
  const { ast } = budgetHinted(locator, () => transpileStatements(source, { filename: sourceName, atoms: [...WORKFLOW_ATOMS, ...customAtoms.keys()] }, (program, fail): StatementsEntry => {
    const parts = splitModule(program, fail)
    meta = parts.meta
    const state: TasksState = (tasks = { groups: new Map(), helpers: [], topLevel: new Set(parts.helpers.map((h) => h.id.name)) })
    const ctx: RewriteContext = { fail, locator, sleepImported: parts.sleepImported, inHelper: true, expand: (s, c) => expandTasks(s, c, state), customAtoms, calledAtoms }
    const helpers = parts.helpers.map((h) => rewrite(h, ctx))
    ctx.inHelper = false
    const body = rewriteStatements(parts.body, ctx)
    return { name: typeof meta['name'] === 'string' ? meta['name'] : 'workflow', params: ['args'], helpers: [...helpers, ...state.helpers] as never, body: body as never }
  }))
  if (tasks) spliceTaskGroups(ast, tasks.groups)
  // The hash pins a journal to its program: the declaration is left out, so runs started before
  // programs declared it still resume.
  const { file: _file, libraries: _libraries, ...hashed } = ast
  let astHash: string
  try {
    astHash = sha256Hex(canonicalJson(hashed))
  } catch (e) {
    // An else-if chain lowers link by link but nests in the AST: too deep to write is too deep to run.
    if (!isStackOverflow(e)) throw e
    const [line, column] = deepestLoc(ast)
    throw transpileError('TOO_DEEP', { name: 'the workflow compiler can go' }, locator, sourceName, line, column)
  }
  const atoms = Object.freeze([...calledAtoms].sort())
  // Programs say what they need: the workflow engine's library, and the custom atoms they call.
  ast.libraries = { workflow: LIBRARIES.workflow.version }
  if (atoms.length > 0 && ast.atoms === undefined) ast.atoms = [...atoms]
  return Object.freeze({ format: 'ajs-workflow/1', ast, meta, astHash, sourceName, atoms })
}

/** `export const meta` of a workflow module, read by parsing only (nothing runs). `{}` when there is none. */
export function readWorkflowMeta(source: string, options: CompileWorkflowOptions = {}): Record<string, unknown> {
  const file = options.sourceName ?? '<workflow>'
  // A Python workflow has no meta (docs/python.md, "Python workflows").
  if (isPythonSource(options.sourceName)) return {}
  const locator = new SourceLocator(source)
  const fail: FailFn = (name, node, params = {}) => {
    const [line, column] = Array.isArray(node) ? node : ((p) => [p.line, p.column])(locator.position(node.start))
    throw transpileError(name, params, locator, file, line!, column!)
  }
  let program: Program
  try {
    program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' })
  } catch (e) {
    const err = e as SyntaxError & { loc?: { line: number; column: number } }
    return fail('PARSE_ERROR', [err.loc?.line ?? 1, err.loc?.column ?? 0], { detail: err.message.replace(/ \(\d+:\d+\)$/, '') })
  }
  for (const s of program.body as AnyNode[]) if (s.type === 'ExportNamedDeclaration') return metaOf(s, fail)
  return {}
}

/** The source place ([line, column]) of the deepest located step of an AST, found with a stack of its own. */
function deepestLoc(ast: unknown): [number, number] {
  let best: [number, number] = [1, 0]
  let bestDepth = -1
  const stack: Array<[unknown, number]> = [[ast, 0]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    const loc = (v as { loc?: unknown }).loc
    if (Array.isArray(loc) && typeof loc[0] === 'number' && typeof loc[1] === 'number' && d > bestDepth) {
      bestDepth = d
      best = [loc[0], loc[1]]
    }
    for (const child of Object.values(v)) stack.push([child, d + 1])
  }
  return best
}
