/**
 * validateAst: structural validation of an "ajs/1" document, driven by the
 * vocabulary table. Returns every problem with a JSON pointer, without
 * running anything. Depth and size are bounded, so hostile documents
 * (100,000-deep nesting, huge arrays) get an error, never a stack overflow.
 */
import { AST_FORMAT_VERSION } from './types.ts'
import { LIBRARY_NAME } from './libraries.ts'
import { ATOM_NAME, CORE_OPS, DECL_KINDS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER, OPERATORS, type ExprSpec, type FieldKind, type OperatorSet, type OpSpec } from './nodes.ts'

export interface AstProblem {
  /** JSON pointer to the offending node, e.g. `/steps/3/value/left`. */
  path: string
  message: string
  code?: 'AST_INVALID' | 'AST_VERSION' | 'AST_TOO_DEEP' | 'AST_TOO_LARGE'
}

export interface ValidateOptions {
  /** Op names allowed besides the core ops (custom atoms). Omit to allow any identifier op. */
  atoms?: Iterable<string>
  maxDepth?: number
  maxNodes?: number
}

/** `allow` bits of Checker.expr: which of the `only` kinds may stand here. */
const ITEM = 1, CALLBACK = 2
/** A field of a node kind, prepared once for the checker's loop. */
interface FieldDesc { key: string; kind: FieldKind; optional: boolean; ops: OperatorSet | undefined }
interface KindDesc { fields: FieldDesc[]; only: number; forms: OpSpec['forms'] }
/**
 * Each op and expression kind, prepared from its table when a document first has it: not at import
 * (all 18 expression kinds took ~0.18 ms of a ~9 ms cold import, issue 28); a program has a few kinds.
 */
const OP_DESCS = new Map<string, KindDesc>(), EXPR_DESCS = new Map<string, KindDesc>()
function descOf(descs: Map<string, KindDesc>, table: Record<string, OpSpec | ExprSpec>, kind: string): KindDesc | undefined {
  let desc = descs.get(kind)
  if (desc || !Object.hasOwn(table, kind)) return desc
  const spec = table[kind]!
  const only = (spec as ExprSpec).only
  descs.set(kind, (desc = {
    fields: Object.entries(spec.fields).map(([key, fs]) => ({ key, kind: fs.kind, optional: !!fs.optional, ops: fs.ops })),
    only: only === 'item' ? ITEM : only === 'callback' ? CALLBACK : 0,
    forms: spec.forms,
  }))
  return desc
}
const STEP_META = new Set(['op', 'result', 'loc'])
const ROOT_META = new Set(['ajs', 'params', 'functions', 'inputSchema', 'outputSchema', 'name', 'description', 'file', 'atoms', 'libraries'])

/**
 * Where a node is: a linked list of keys, made into a JSON pointer only when a
 * problem is reported (building pointer strings for every node cost more than
 * the checks themselves).
 */
interface PathNode {
  up: Path
  key: string | number
}
type Path = PathNode | null

const at = (up: Path, key: string | number): Path => ({ up, key })

const esc = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')

function pointer(path: Path): string {
  const keys: string[] = []
  for (let p = path; p; p = p.up) keys.push(esc(p.key))
  return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`
}
const isCount = (n: unknown) => Number.isInteger(n) && (n as number) >= 0
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

class Checker {
  problems: AstProblem[] = []
  nodes = 0
  tooLarge = false
  constructor(readonly atoms: Set<string> | null, readonly maxDepth: number, readonly maxNodes: number) {}

  fail(path: Path, message: string, code: AstProblem['code'] = 'AST_INVALID'): void {
    if (this.problems.length < 100) this.problems.push({ path: pointer(path), message, code })
  }

  enter(path: Path, depth: number): boolean {
    if (this.tooLarge) return false
    if (++this.nodes > this.maxNodes) {
      this.tooLarge = true
      this.fail(path, `AST has more than ${this.maxNodes} nodes`, 'AST_TOO_LARGE')
      return false
    }
    if (depth > this.maxDepth) {
      this.fail(path, `AST nests deeper than ${this.maxDepth} levels`, 'AST_TOO_DEEP')
      return false
    }
    return true
  }

  /** Names already found valid in this document (the same few names recur everywhere). */
  private readonly goodNames = new Set<string>()

  /** A variable name at `path` (or at `path/key`: the key is joined only on failure). */
  name(v: unknown, path: Path, key?: string | number): void {
    if (typeof v === 'string' && this.goodNames.has(v)) return
    if (typeof v !== 'string' || !IDENTIFIER.test(v)) this.fail(key === undefined ? path : at(path, key), `Expected a variable name, got ${JSON.stringify(v)?.slice(0, 40)}`)
    else if (FORBIDDEN_NAMES.has(v)) this.fail(key === undefined ? path : at(path, key), `Forbidden name "${v}"`)
    else this.goodNames.add(v)
  }

  /** `owner.loc`, when present, is `[line, column]`. */
  loc(v: unknown, owner: Path): void {
    if (v === undefined) return
    if (!Array.isArray(v) || v.length !== 2 || !isCount(v[0]) || !isCount(v[1])) this.fail(at(owner, 'loc'), 'loc must be [line, column]')
  }

  /**
   * Walk the elements of an array. Its length is checked against the node
   * budget before the walk starts: a host-built `steps.length = 5e7` is
   * AST_TOO_LARGE at once, never walked index by index.
   */
  each<T>(v: T[], fn: (x: T, i: number) => void): void {
    if (this.tooLarge) return
    if (this.nodes + v.length > this.maxNodes) {
      this.tooLarge = true
      this.fail(null, `AST has more than ${this.maxNodes} nodes (an array of ${v.length} items)`, 'AST_TOO_LARGE')
      return
    }
    for (let i = 0; i < v.length && !this.tooLarge; i++) fn(v[i]!, i)
  }

  steps(v: unknown, path: Path, depth: number): void {
    if (!Array.isArray(v)) return this.fail(path, 'Expected a list of steps')
    this.each(v, (s, i) => this.step(s, at(path, i), depth + 1))
  }

  step(v: unknown, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    if (!isObj(v) || typeof v.op !== 'string') return this.fail(path, 'Expected a step { op, ... }')
    const spec = Object.hasOwn(CORE_OPS, v.op) ? CORE_OPS[v.op] : undefined
    if (v.result !== undefined) this.name(v.result, path, 'result')
    this.loc(v.loc, path)
    if (!spec) {
      if (!ATOM_NAME.test(v.op) || FORBIDDEN_NAMES.has(v.op)) return this.fail(at(path, 'op'), `Invalid op name "${v.op}"`)
      if (this.atoms && !this.atoms.has(v.op)) return this.fail(at(path, 'op'), `Unknown op "${v.op}"`)
      for (const k of Object.keys(v)) if (!STEP_META.has(k)) this.value(v[k], at(path, k), depth + 1)
      return
    }
    for (const k in v) {
      if (STEP_META.has(k)) continue
      if (!Object.hasOwn(spec.fields, k)) this.fail(at(path, k), `Op "${v.op}" has no field "${k}"`)
    }
    if (spec.forms) this.form(v, spec.forms, path, `Op "${v.op}"`)
    for (const fd of descOf(OP_DESCS, CORE_OPS, v.op)!.fields) {
      const fv = v[fd.key]
      if (fv === undefined) {
        if (!fd.optional) this.fail(at(path, fd.key), `Op "${v.op}" needs field "${fd.key}"`)
        continue
      }
      this.field(fd, fv, path, depth + 1, v)
    }
  }

  /** An op with several shapes: exactly one form, all its required fields, none of another form's. */
  form(v: Record<string, unknown>, forms: NonNullable<OpSpec['forms']>, path: Path, label: string): void {
    const form = forms.find((f) => v[f.required[0]!] !== undefined)
    if (!form) {
      const shapes = forms.map((f) => f.required.map((k) => `"${k}"`).join(' + ')).join(', or ')
      return this.fail(path, `${label} needs ${shapes}`)
    }
    for (const k of form.required) if (v[k] === undefined) this.fail(at(path, k), `${label} needs field "${k}" with "${form.required[0]}"`)
    const own = new Set([...form.required, ...(form.optional ?? [])])
    for (const other of forms) {
      for (const k of [...other.required, ...(other.optional ?? [])]) {
        if (!own.has(k) && v[k] !== undefined) this.fail(at(path, k), `${label} takes "${k}" only without "${form.required[0]}"`)
      }
    }
  }

  /**
   * One field `key` of a step or expression node (`node`, at `up`), checked by
   * its kind. Leaf kinds make the field's path only when they report a problem.
   */
  field(fs: FieldDesc, v: unknown, up: Path, depth: number, node: Record<string, any>): void {
    const key = fs.key
    switch (fs.kind) {
      case 'expr': return this.expr(v, at(up, key), depth)
      case 'name': return this.name(v, up, key)
      case 'json': return this.literal(v, at(up, key), depth)
      case 'keyOrExpr': return node.computed ? this.expr(v, at(up, key), depth) : this.key(v, up, key)
      case 'items': return this.exprList(v, at(up, key), depth, ITEM)
      case 'value': return this.value(v, at(up, key), depth)
      case 'key': return this.key(v, up, key)
      case 'op':
        // The sets are short (16 at most): no Sets of them built at import (issue 28, cold start).
        if (!(OPERATORS[fs.ops!] as readonly unknown[]).includes(v)) this.fail(at(up, key), `Unknown ${fs.ops === 'assign' ? 'assignment' : fs.ops} operator "${v}"`)
        return
      case 'flag': if (typeof v !== 'boolean') this.fail(at(up, key), 'Expected true or false'); return
      case 'string': if (typeof v !== 'string') this.fail(at(up, key), 'Expected a string'); return
      case 'strings': if (!Array.isArray(v) || !v.every((q) => typeof q === 'string')) this.fail(at(up, key), 'Expected an array of strings'); return
      case 'regexFlags': if (typeof v !== 'string' || !/^[gimsuy]*$/.test(v)) this.fail(at(up, key), 'Unsupported regex flags'); return
      case 'declKind':
        if (!(DECL_KINDS as readonly unknown[]).includes(v)) this.fail(at(up, key), 'Expected "let", "const" or "assign"')
        return
    }
    const path = at(up, key)
    switch (fs.kind) {
      case 'names':
        if (!Array.isArray(v)) return this.fail(path, 'Expected an array of names')
        return this.each(v, (n, i) => this.name(n, path, i))
      case 'steps': return this.steps(v, path, depth)
      case 'branches':
        if (!Array.isArray(v)) return this.fail(path, 'Expected a list of step lists')
        return this.each(v, (b, i) => this.steps(b, at(path, i), depth + 1))
      case 'pattern': return this.pattern(v, path, depth)
      case 'bindings':
        if (!isObj(v)) return this.fail(path, 'Expected an object of name: value')
        for (const k of Object.keys(v)) { this.name(k, path, k); this.value(v[k], at(path, k), depth + 1) }
        return
      case 'cases':
        if (!Array.isArray(v)) return this.fail(path, 'Expected a list of cases')
        return this.each(v, (c, i) => {
          const cp = at(path, i)
          if (!isObj(c)) return this.fail(cp, 'Expected a case { test?, body }')
          if (c.test !== undefined && c.test !== null) this.expr(c.test, at(cp, 'test'), depth + 1)
          this.steps(c.body, at(cp, 'body'), depth + 1)
        })
      case 'exprs': return this.exprList(v, path, depth, 0)
      case 'args': return this.exprList(v, path, depth, ITEM | CALLBACK)
      case 'patterns':
        if (!Array.isArray(v)) return this.fail(path, 'Expected an array of patterns')
        return this.each(v, (p, i) => this.pattern(p, at(path, i), depth + 1))
      case 'properties':
        if (!Array.isArray(v)) return this.fail(path, 'Expected an array of properties')
        return this.each(v, (p: any, i: number) => {
          const pp = at(path, i)
          if (isObj(p) && p.$expr === 'spread') return this.expr(p, pp, depth + 1, ITEM)
          if (!isObj(p)) return this.fail(pp, 'Expected a property { key, value }')
          if (p.computed) this.expr(p.key, at(pp, 'key'), depth + 1)
          else if (typeof p.key !== 'string') this.fail(at(pp, 'key'), 'Expected a key string')
          else if (FORBIDDEN_NAMES.has(p.key)) this.fail(at(pp, 'key'), `Forbidden key "${p.key}"`)
          this.expr(p.value, at(pp, 'value'), depth + 1)
        })
      case 'assignTarget':
        if (isObj(v) && '$pattern' in v) return this.pattern(v, path, depth)
        return this.lvalue(v, path, depth, 'Assignment target must be ident, member or pattern')
      case 'lvalue': return this.lvalue(v, path, depth, 'Target must be ident or member')
    }
  }

  value(v: unknown, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isFinite(v)) this.fail(path, 'Non-finite numbers cannot be JSON literals')
      return
    }
    if (isObj(v) && '$expr' in v) return this.expr(v, path, depth)
    if (Array.isArray(v)) return this.each(v, (x, i) => this.value(x, at(path, i), depth + 1))
    for (const k of Object.keys(v)) {
      if (FORBIDDEN_NAMES.has(k)) this.fail(at(path, k), `Forbidden key "${k}"`)
      this.value((v as any)[k], at(path, k), depth + 1)
    }
  }

  /** A static property or method name. */
  key(v: unknown, up: Path, key: string): void {
    if (typeof v !== 'string') this.fail(at(up, key), 'Expected a property name')
    else if (FORBIDDEN_NAMES.has(v)) this.fail(at(up, key), `Forbidden property "${v}"`)
  }

  /** An `ident` or `member` node (something a value can be stored into). */
  lvalue(v: unknown, path: Path, depth: number, message: string): void {
    if (!isObj(v) || (v.$expr !== 'ident' && v.$expr !== 'member')) return this.fail(path, message)
    this.expr(v, path, depth)
  }

  exprList(v: unknown, path: Path, depth: number, allow: number): void {
    if (!Array.isArray(v)) return this.fail(path, allow & CALLBACK ? 'Expected an array of arguments' : 'Expected an array of expressions')
    this.each(v, (x, i) => this.expr(x, at(path, i), depth + 1, allow))
  }

  /** An expression node, checked field by field from its entry in EXPR_KINDS. */
  expr(v: unknown, path: Path, depth: number, allow = 0): void {
    if (!this.enter(path, depth)) return
    const kind = isObj(v) ? v.$expr : undefined
    if (!isObj(v) || typeof kind !== 'string') return this.fail(path, 'Expected an expression { $expr, ... }')
    const desc = descOf(EXPR_DESCS, EXPR_KINDS, kind)
    if (!desc) return this.fail(at(path, '$expr'), `Unknown expression kind "${kind}"`)
    if (desc.only && !(allow & desc.only)) {
      return this.fail(path, desc.only === ITEM ? `\`${kind}\` is only valid inside array, object or call arguments` : `A ${kind} can only be the callback argument of an array method`)
    }
    if (v.loc !== undefined) this.loc(v.loc, path)
    if (desc.forms) this.form(v, desc.forms, path, `Expression "${kind}"`)
    const d = depth + 1
    const fields = desc.fields
    for (let i = 0; i < fields.length; i++) {
      const fd = fields[i]!
      const fv = v[fd.key]
      if (fv === undefined && fd.optional) continue
      this.field(fd, fv, path, d, v)
    }
    if (kind === 'template' && Array.isArray(v.quasis) && Array.isArray(v.expressions) && v.quasis.length !== v.expressions.length + 1) {
      this.fail(path, 'template needs one more quasi than expressions')
    }
  }

  literal(v: unknown, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return
    if (typeof v === 'number') { if (!Number.isFinite(v)) this.fail(path, 'Non-finite numbers cannot be JSON literals'); return }
    if (Array.isArray(v)) return this.each(v, (x, i) => this.literal(x, at(path, i), depth + 1))
    if (isObj(v)) {
      for (const k of Object.keys(v)) {
        if (FORBIDDEN_NAMES.has(k)) this.fail(at(path, k), `Forbidden key "${k}"`)
        this.literal(v[k], at(path, k), depth + 1)
      }
      return
    }
    this.fail(path, 'Literal must be JSON data')
  }

  pattern(v: unknown, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    if (typeof v === 'string') return this.name(v, path)
    if (!isObj(v) || typeof v.$pattern !== 'string') return this.fail(path, 'Expected a pattern (name or { $pattern })')
    switch (v.$pattern) {
      case 'object':
        if (!Array.isArray(v.properties)) return this.fail(at(path, 'properties'), 'Expected an array')
        this.each(v.properties, (p: any, i: number) => {
          const pp = at(at(path, 'properties'), i)
          if (!isObj(p)) return this.fail(pp, 'Expected { key, value }')
          if (p.computed) this.expr(p.key, at(pp, 'key'), depth + 2)
          else if (typeof p.key !== 'string' || FORBIDDEN_NAMES.has(p.key)) this.fail(at(pp, 'key'), 'Expected an allowed key')
          this.pattern(p.value, at(pp, 'value'), depth + 2)
        })
        if (v.rest !== undefined) this.name(v.rest, path, 'rest')
        return
      case 'array':
        if (!Array.isArray(v.elements)) return this.fail(at(path, 'elements'), 'Expected an array')
        this.each(v.elements, (e: unknown, i: number) => { if (e !== null) this.pattern(e, at(at(path, 'elements'), i), depth + 1) })
        if (v.rest !== undefined) this.pattern(v.rest, at(path, 'rest'), depth + 1)
        return
      case 'default':
        this.pattern(v.target, at(path, 'target'), depth + 1)
        return this.expr(v.default, at(path, 'default'), depth + 1)
      case 'target':
        return this.lvalue(v.target, at(path, 'target'), depth + 1, 'Expected ident or member')
      default:
        return this.fail(at(path, '$pattern'), `Unknown pattern kind "${v.$pattern}"`)
    }
  }
}

/** Validate a program; returns [] when valid. */
export function validateAst(ast: unknown, options: ValidateOptions = {}): AstProblem[] {
  const ch = new Checker(options.atoms ? new Set([...options.atoms]) : null, options.maxDepth ?? 1000, options.maxNodes ?? 1_000_000)
  if (!isObj(ast)) return [{ path: '', message: 'An AST must be a JSON object', code: 'AST_INVALID' }]
  if (ast.ajs !== AST_FORMAT_VERSION) {
    return [{ path: '/ajs', message: ast.ajs === undefined ? 'Missing format marker "ajs": 1' : `Unsupported format version ${JSON.stringify(ast.ajs)} (this VM reads ajs/1)`, code: 'AST_VERSION' }]
  }
  if (ast.op !== 'seq') ch.fail(at(null, 'op'), 'The root must be { "op": "seq" }')
  for (const k of Object.keys(ast)) {
    if (!ROOT_META.has(k) && !STEP_META.has(k) && k !== 'steps') ch.fail(at(null, k), `Unknown root field "${k}"`)
  }
  ch.steps(ast.steps, at(null, 'steps'), 1)
  if (ast.params !== undefined) ch.pattern(ast.params, at(null, 'params'), 1)
  if (ast.functions !== undefined) {
    if (!isObj(ast.functions)) ch.fail(at(null, 'functions'), 'Expected an object of functions')
    else for (const [name, def] of Object.entries(ast.functions)) {
      const fp = at(at(null, 'functions'), name)
      ch.name(name, fp)
      if (!isObj(def)) { ch.fail(fp, 'Expected { params, steps }'); continue }
      if (!Array.isArray(def.params)) ch.fail(at(fp, 'params'), 'Expected an array of patterns')
      else ch.each(def.params, (p: unknown, i: number) => ch.pattern(p, at(at(fp, 'params'), i), 2))
      ch.steps(def.steps, at(fp, 'steps'), 2)
    }
  }
  if (ast.inputSchema !== undefined && !isObj(ast.inputSchema)) ch.fail(at(null, 'inputSchema'), 'Expected a JSON Schema object')
  if (ast.file !== undefined && typeof ast.file !== 'string') ch.fail(at(null, 'file'), 'Expected a string')
  if (ast.atoms !== undefined && !(Array.isArray(ast.atoms) && ast.atoms.every((n: unknown) => typeof n === 'string' && ATOM_NAME.test(n) && !FORBIDDEN_NAMES.has(n)))) {
    ch.fail(at(null, 'atoms'), 'Expected an array of atom names')
  }
  if (ast.libraries !== undefined) {
    if (!isObj(ast.libraries)) ch.fail(at(null, 'libraries'), 'Expected an object of library name: version')
    else for (const [name, version] of Object.entries(ast.libraries)) {
      if (!LIBRARY_NAME.test(name)) ch.fail(at(at(null, 'libraries'), name), `Invalid library name ${JSON.stringify(name.slice(0, 40))}`)
      else if (!Number.isInteger(version) || (version as number) < 1) ch.fail(at(at(null, 'libraries'), name), 'A library version is a positive integer')
    }
  }
  return ch.problems
}
