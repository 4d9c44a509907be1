/** transpilePython: a code block's body (or a whole `def`) to an "ajs/1" program. */
import { pythonParser } from './parser.ts'
import type { Expr, Stmt } from './ir.ts'
import { PyParser } from './parse.ts'
import { parenthesizeMatchSubjects } from './parse/match-subject.ts'
import { Refuser, type PythonProfile } from './refuse.ts'
import { liftLambdas } from './lift.ts'
import { desugarClasses, type ClassInfo } from './classes.ts'
import { desugarFunctools } from './functools.ts'
import { fuseProgram } from './fuse.ts'
import { analyze } from './analyze.ts'
import { Lowerer } from './lower.ts'
import type { AjsProgram } from '../ast/types.ts'
import type { PythonExternal } from './lower-external.ts'

export interface TranspilePythonOptions {
  /**
   * The wrapper's parameters: `initial`, then the block's input_schema fields in order. The run's
   * args bind them by name, as `_block(initial=..., **pipeline_input)` does. Default: `['initial']`,
   * or the parameters of the `def` when the source is a whole function.
   */
  params?: readonly string[]
  /** Names the source in errors and in the AST (`file`). */
  filename?: string
  /** Make the program return `json.dumps(result, sort_keys=True)` text instead of data. */
  jsonText?: boolean
  /**
   * `extended` (the default): the superset in docs/python.md (more builtins, functions and lambdas as
   * values, attribute reads, generator expressions anywhere). `contract`: exactly the Block Runtime
   * Contract's builtins and rules (what a flow's `code` block accepts).
   */
  profile?: PythonProfile
  /**
   * The host's functions the program may call by name, each an atom call (docs/python.md, "Host
   * functions"): `{ lookup: { fields: ['id'] } }` makes `lookup(3)` call the atom `lookup` with
   * `{ id: 3 }` and give its result back as Python values.
   */
  externals?: Readonly<Record<string, PythonExternal>>
  /** Added to the hint of a call of an unknown name: how this host offers more functions (`--atoms ...`). */
  externalsHint?: string
  /** The program may return any JSON data (a workflow's result), not only the dict a code block returns. */
  anyResult?: boolean
}

export interface TranspilePythonResult {
  ast: AjsProgram
  /** The parameters the program binds, in order. */
  params: string[]
  warnings: string[]
  /** The function's name when the source was one whole `def` taken as the block (its parameters are `params`). */
  def?: string
}

const PY_IDENT = /^[\p{L}_][\p{L}\p{N}_]*$/u
const KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield'])

/** The body with its common indentation removed (so a body copied from inside a `def` parses). */
function dedent(text: string): { text: string; indent: number } {
  const lines = text.split('\n')
  let prefix: string | null = null
  for (const line of lines) {
    if (!line.trim() || /^\s*#/.test(line)) continue
    const lead = /^[ \t]*/.exec(line)![0]
    if (prefix === null) prefix = lead
    else while (!lead.startsWith(prefix)) prefix = prefix.slice(0, -1)
  }
  if (!prefix) return { text, indent: 0 }
  const p = prefix
  return { text: lines.map((l) => (l.startsWith(p) ? l.slice(p.length) : l.trimStart())).join('\n'), indent: p.length }
}

export function transpilePython(body: string, options: TranspilePythonOptions = {}): TranspilePythonResult {
  if (typeof body !== 'string') throw new TypeError('transpilePython: body must be a string')
  const file = options.filename ?? '<block>'
  const original = body.replace(/\r\n?/g, '\n')
  const { text, indent } = dedent(original)
  const r = new Refuser(text, original, file, indent)
  const profile = options.profile ?? 'extended'
  if (profile !== 'contract' && profile !== 'extended') throw new TypeError(`transpilePython: profile must be 'contract' or 'extended', not ${JSON.stringify(profile)}`)
  r.profile = profile
  // `match a, b:` is read as `match (a, b):` (what @lezer/python parses), located as written.
  const patched = parenthesizeMatchSubjects(text)
  r.unpatch = patched.unpatch
  const p = new PyParser(patched.text, r)
  let stmts = p.parseScript()
  const warnings: string[] = []
  let params = options.params ? [...options.params] : null
  let defaults: Array<Expr | null> = []
  let def: string | undefined
  const only = stmts.length === 1 ? stmts[0]! : null
  if (only && only.k === 'def' && isWholeFunction(text)) {
    if (only.params.some((x) => x.kind)) throw r.error('PY_PARAMS', { detail: 'the block\'s parameters cannot be `*args`, `**kwargs` or keyword-only' }, only.loc)
    const names = only.params.map((x) => x.name)
    if (params && (params.length !== names.length || params.some((x, i) => x !== names[i]))) {
      throw r.error('PY_PARAMS', { detail: `the def takes (${names.join(', ')}) but params are (${params.join(', ')})` }, only.loc)
    }
    params = names
    defaults = only.params.map((x) => x.dflt)
    stmts = only.body
    def = only.name
    warnings.push(`the whole function \`${only.name}\` was taken as the block; its parameters are the block's parameters`)
  }
  params ??= ['initial']
  checkParams(params, r)
  if (defaults.length === 0) defaults = params.map(() => null)
  let classes: ClassInfo | undefined
  if (profile === 'extended') {
    const d = desugarClasses(desugarFunctools(stmts, r), r)
    stmts = liftLambdas(d.body)
    classes = d.info
  }
  const a = analyze(stmts, params, r, classes?.imports, options.anyResult === true)
  if (classes) checkImports(classes, a.scopes.flatMap((s) => [...s.locals]), r)
  const ast = fuseProgram(new Lowerer(r, a, { jsonText: options.jsonText === true, classes, externals: externalsOf(options.externals), externalsHint: options.externalsHint, anyResult: options.anyResult === true }).program(stmts as Stmt[], params, defaults, file))
  return { ast, params, warnings, ...(def !== undefined ? { def } : {}) }
}

function externalsOf(table: TranspilePythonOptions['externals']): Map<string, PythonExternal> | undefined {
  if (table === undefined) return undefined
  if (table === null || typeof table !== 'object') throw new TypeError('transpilePython: externals must be an object of host functions')
  const out = new Map<string, PythonExternal>()
  for (const [name, ext] of Object.entries(table)) {
    if (!PY_IDENT.test(name) || KEYWORDS.has(name)) throw new TypeError(`transpilePython: externals: ${JSON.stringify(name)} is not a Python name`)
    if (ext === null || typeof ext !== 'object') throw new TypeError(`transpilePython: externals.${name} must be an object`)
    out.set(name, ext)
  }
  return out
}

/** An imported name cannot also be a variable (imports are compile-time bindings). */
function checkImports(classes: ClassInfo, locals: string[], r: Refuser): void {
  for (const name of locals) {
    const i = classes.imports.get(name)
    if (i) throw r.error('PY_UNSUPPORTED', { name: `Assigning the imported name \`${name}\``, fix: `Give the variable another name, or import with \`as\`: \`import ${i.module} as other\`.` }, i.loc)
  }
}

/** A source that is one `def` and nothing after it at top level (comments aside). */
function isWholeFunction(text: string): boolean {
  const tree = pythonParser().parse(text)
  const top = tree.topNode.firstChild
  return top?.name === 'FunctionDefinition' && !top.nextSibling
}

function checkParams(params: string[], r: Refuser): void {
  const seen = new Set<string>()
  for (const name of params) {
    if (typeof name !== 'string' || !PY_IDENT.test(name) || KEYWORDS.has(name)) throw r.error('PY_PARAMS', { detail: `${JSON.stringify(name)} is not a Python identifier` }, [1, 0])
    if (/^__.*__$/.test(name)) throw r.error('PY_PARAMS', { detail: `${name} is a dunder name` }, [1, 0])
    if (seen.has(name)) throw r.error('PY_PARAMS', { detail: `duplicate parameter ${name}` }, [1, 0])
    seen.add(name)
  }
}
