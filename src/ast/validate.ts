/**
 * validateAst: structural validation of an "ajs/1" document, driven by the
 * vocabulary table. Returns every problem with a JSON pointer, without
 * running anything. Depth and size are bounded, so hostile documents
 * (100,000-deep nesting, huge arrays) get an error, never a stack overflow.
 */
import { AST_FORMAT_VERSION } from './types.ts'
import { LIBRARY_NAME } from './libraries.ts'
import { ATOM_NAME, CORE_OPS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER, type FieldKind, type FieldSpec, type OpSpec } from './nodes.ts'

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

const BINARY = new Set(['+', '-', '*', '/', '%', '**', '==', '!=', '===', '!==', '<', '>', '<=', '>=', '&', '|', '^', '<<', '>>', '>>>', 'in'])
const LOGICAL = new Set(['&&', '||', '??'])
const UNARY = new Set(['-', '+', '!', '~', 'typeof', 'void', 'delete'])
const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '&=', '|=', '^=', '<<=', '>>=', '>>>=', '&&=', '||=', '??='])
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

/** Each op's [field, spec] pairs, listed once instead of per step. */
const FIELD_LISTS = new Map<string, Array<[string, FieldSpec]>>()
function fieldsOf(op: string, spec: OpSpec): Array<[string, FieldSpec]> {
  let list = FIELD_LISTS.get(op)
  if (!list) FIELD_LISTS.set(op, (list = Object.entries(spec.fields)))
  return list
}

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
    const spec = Object.prototype.hasOwnProperty.call(CORE_OPS, v.op) ? CORE_OPS[v.op] : undefined
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
      if (!Object.prototype.hasOwnProperty.call(spec.fields, k)) this.fail(at(path, k), `Op "${v.op}" has no field "${k}"`)
    }
    if (spec.forms) this.form(v, spec, path)
    for (const [field, fs] of fieldsOf(v.op, spec)) {
      const fv = v[field]
      const fp = at(path, field)
      if (fv === undefined) {
        if (!fs.optional) this.fail(fp, `Op "${v.op}" needs field "${field}"`)
        continue
      }
      this.field(fs.kind, fv, fp, depth + 1)
    }
  }

  /** An op with several shapes: exactly one form, all its required fields, none of another form's. */
  form(v: Record<string, unknown>, spec: OpSpec, path: Path): void {
    const forms = spec.forms!
    const form = forms.find((f) => v[f.required[0]!] !== undefined)
    if (!form) {
      const shapes = forms.map((f) => f.required.map((k) => `"${k}"`).join(' + ')).join(', or ')
      return this.fail(path, `Op "${v.op}" needs ${shapes}`)
    }
    for (const k of form.required) if (v[k] === undefined) this.fail(at(path, k), `Op "${v.op}" needs field "${k}" with "${form.required[0]}"`)
    const own = new Set([...form.required, ...(form.optional ?? [])])
    for (const other of forms) {
      for (const k of [...other.required, ...(other.optional ?? [])]) {
        if (!own.has(k) && v[k] !== undefined) this.fail(at(path, k), `Op "${v.op}" takes "${k}" only without "${form.required[0]}"`)
      }
    }
  }

  field(kind: FieldKind, v: unknown, path: Path, depth: number): void {
    switch (kind) {
      case 'value': return this.value(v, path, depth)
      case 'expr': return this.expr(v, path, depth)
      case 'name': return this.name(v, path)
      case 'names':
        if (!Array.isArray(v)) return this.fail(path, 'Expected an array of names')
        return this.each(v, (n, i) => this.name(n, path, i))
      case 'string': if (typeof v !== 'string') this.fail(path, 'Expected a string'); return
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
      case 'declKind':
        if (v !== 'let' && v !== 'const' && v !== 'assign') this.fail(path, 'Expected "let", "const" or "assign"')
        return
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

  exprList(v: unknown, path: Path, depth: number, spread: boolean): void {
    if (!Array.isArray(v)) return this.fail(path, 'Expected an array of expressions')
    this.each(v, (x, i) => {
      if (spread && isObj(x) && x.$expr === 'spread') {
        if (this.enter(at(path, i), depth + 1)) this.expr(x.argument, at(at(path, i), 'argument'), depth + 2)
      } else this.expr(x, at(path, i), depth + 1)
    })
  }

  expr(v: unknown, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    const kind = isObj(v) ? v.$expr : undefined
    if (!isObj(v) || typeof kind !== 'string') return this.fail(path, 'Expected an expression { $expr, ... }')
    if (!Object.prototype.hasOwnProperty.call(EXPR_KINDS, kind)) return this.fail(at(path, '$expr'), `Unknown expression kind "${kind}"`)
    this.loc(v.loc, path)
    const d = depth + 1
    switch (kind) {
      case 'literal': return this.literal(v.value, at(path, 'value'), d)
      case 'ident': return this.name(v.name, path, 'name')
      case 'member':
        this.expr(v.object, at(path, 'object'), d)
        if (v.computed) this.expr(v.property, at(path, 'property'), d)
        else if (typeof v.property !== 'string') this.fail(at(path, 'property'), 'Expected a property name')
        else if (FORBIDDEN_NAMES.has(v.property)) this.fail(at(path, 'property'), `Forbidden property "${v.property}"`)
        return
      case 'binary':
        if (!BINARY.has(v.op)) this.fail(at(path, 'op'), `Unknown binary operator "${v.op}"`)
        this.expr(v.left, at(path, 'left'), d); this.expr(v.right, at(path, 'right'), d); return
      case 'logical':
        if (!LOGICAL.has(v.op)) this.fail(at(path, 'op'), `Unknown logical operator "${v.op}"`)
        this.expr(v.left, at(path, 'left'), d); this.expr(v.right, at(path, 'right'), d); return
      case 'unary':
        if (!UNARY.has(v.op)) this.fail(at(path, 'op'), `Unknown unary operator "${v.op}"`)
        return this.expr(v.argument, at(path, 'argument'), d)
      case 'conditional':
        this.expr(v.test, at(path, 'test'), d); this.expr(v.consequent, at(path, 'consequent'), d); this.expr(v.alternate, at(path, 'alternate'), d); return
      case 'array': return this.exprList(v.elements, at(path, 'elements'), d, true)
      case 'object':
        if (!Array.isArray(v.properties)) return this.fail(at(path, 'properties'), 'Expected an array of properties')
        return this.each(v.properties, (p: any, i: number) => {
          const pp = at(at(path, 'properties'), i)
          if (isObj(p) && p.$expr === 'spread') return this.expr(p.argument, at(pp, 'argument'), d + 1)
          if (!isObj(p)) return this.fail(pp, 'Expected a property { key, value }')
          if (p.computed) this.expr(p.key, at(pp, 'key'), d + 1)
          else if (typeof p.key !== 'string') this.fail(at(pp, 'key'), 'Expected a key string')
          else if (FORBIDDEN_NAMES.has(p.key)) this.fail(at(pp, 'key'), `Forbidden key "${p.key}"`)
          this.expr(p.value, at(pp, 'value'), d + 1)
        })
      case 'spread': return this.fail(path, '`spread` is only valid inside array, object or call arguments')
      case 'template':
        if (!Array.isArray(v.quasis) || !v.quasis.every((q: unknown) => typeof q === 'string')) this.fail(at(path, 'quasis'), 'Expected an array of strings')
        if (!Array.isArray(v.expressions)) return this.fail(at(path, 'expressions'), 'Expected an array of expressions')
        if (Array.isArray(v.quasis) && v.quasis.length !== v.expressions.length + 1) this.fail(path, 'template needs one more quasi than expressions')
        return this.exprList(v.expressions, at(path, 'expressions'), d, false)
      case 'call':
        this.name(v.callee, path, 'callee')
        return this.exprList(v.args ?? [], at(path, 'args'), d, true)
      case 'methodCall':
        this.expr(v.object, at(path, 'object'), d)
        if (typeof v.method !== 'string' || FORBIDDEN_NAMES.has(v.method)) this.fail(at(path, 'method'), 'Expected an allowed method name')
        if (!Array.isArray(v.args ?? [])) return this.fail(at(path, 'args'), 'Expected an array of arguments')
        return this.each((v.args ?? []), (a: any, i: number) => {
          if (isObj(a) && a.$expr === 'lambda') this.lambda(a, at(at(path, 'args'), i), d + 1)
          else if (isObj(a) && a.$expr === 'spread') this.expr(a.argument, at(at(at(path, 'args'), i), 'argument'), d + 1)
          else this.expr(a, at(at(path, 'args'), i), d + 1)
        })
      case 'lambda': return this.fail(path, 'A lambda can only be the callback argument of an array method')
      case 'assign':
        if (!ASSIGN.has(v.op)) this.fail(at(path, 'op'), `Unknown assignment operator "${v.op}"`)
        if (isObj(v.target) && '$pattern' in v.target) this.pattern(v.target, at(path, 'target'), d)
        else if (!isObj(v.target) || (v.target.$expr !== 'ident' && v.target.$expr !== 'member')) this.fail(at(path, 'target'), 'Assignment target must be ident, member or pattern')
        else this.expr(v.target, at(path, 'target'), d)
        return this.expr(v.value, at(path, 'value'), d)
      case 'update':
        if (v.op !== '++' && v.op !== '--') this.fail(at(path, 'op'), 'Expected "++" or "--"')
        if (!isObj(v.argument) || (v.argument.$expr !== 'ident' && v.argument.$expr !== 'member')) return this.fail(at(path, 'argument'), 'Update target must be ident or member')
        return this.expr(v.argument, at(path, 'argument'), d)
      case 'sequence': return this.exprList(v.expressions, at(path, 'expressions'), d, false)
      case 'regex':
        if (typeof v.pattern !== 'string') this.fail(at(path, 'pattern'), 'Expected a pattern string')
        if (v.flags !== undefined && (typeof v.flags !== 'string' || !/^[gimsuy]*$/.test(v.flags))) this.fail(at(path, 'flags'), 'Unsupported regex flags')
        return
    }
  }

  lambda(v: Record<string, any>, path: Path, depth: number): void {
    if (!this.enter(path, depth)) return
    if (!Array.isArray(v.params)) this.fail(at(path, 'params'), 'Expected an array of patterns')
    else this.each(v.params, (p: unknown, i: number) => this.pattern(p, at(at(path, 'params'), i), depth + 1))
    if ((v.body === undefined) === (v.steps === undefined)) return this.fail(path, 'A lambda needs exactly one of body / steps')
    if (v.body !== undefined) this.expr(v.body, at(path, 'body'), depth + 1)
    else this.steps(v.steps, at(path, 'steps'), depth + 1)
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
        if (!isObj(v.target) || (v.target.$expr !== 'ident' && v.target.$expr !== 'member')) return this.fail(at(path, 'target'), 'Expected ident or member')
        return this.expr(v.target, at(path, 'target'), depth + 1)
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
