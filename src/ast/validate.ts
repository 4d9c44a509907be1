/**
 * validateAst: structural validation of an "ajs/1" document, driven by the
 * vocabulary table. Returns every problem with a JSON pointer, without
 * running anything. Depth and size are bounded, so hostile documents
 * (100,000-deep nesting, huge arrays) get an error, never a stack overflow.
 */
import { AST_FORMAT_VERSION } from './types.ts'
import { CORE_OPS, EXPR_KINDS, FORBIDDEN_NAMES, IDENTIFIER, type FieldKind } from './nodes.ts'

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
const ROOT_META = new Set(['ajs', 'params', 'functions', 'inputSchema', 'outputSchema', 'name', 'description', 'file'])

const esc = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

class Checker {
  problems: AstProblem[] = []
  nodes = 0
  tooLarge = false
  constructor(readonly atoms: Set<string> | null, readonly maxDepth: number, readonly maxNodes: number) {}

  fail(path: string, message: string, code: AstProblem['code'] = 'AST_INVALID'): void {
    if (this.problems.length < 100) this.problems.push({ path, message, code })
  }

  enter(path: string, depth: number): boolean {
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

  name(v: unknown, path: string): void {
    if (typeof v !== 'string' || !IDENTIFIER.test(v)) this.fail(path, `Expected a variable name, got ${JSON.stringify(v)?.slice(0, 40)}`)
    else if (FORBIDDEN_NAMES.has(v)) this.fail(path, `Forbidden name "${v}"`)
  }

  loc(v: unknown, path: string): void {
    if (v === undefined) return
    if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => Number.isInteger(n) && n >= 0)) this.fail(path, 'loc must be [line, column]')
  }

  steps(v: unknown, path: string, depth: number): void {
    if (!Array.isArray(v)) return this.fail(path, 'Expected a list of steps')
    v.forEach((s, i) => this.step(s, `${path}/${i}`, depth + 1))
  }

  step(v: unknown, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (!isObj(v) || typeof v.op !== 'string') return this.fail(path, 'Expected a step { op, ... }')
    const spec = Object.prototype.hasOwnProperty.call(CORE_OPS, v.op) ? CORE_OPS[v.op] : undefined
    if (v.result !== undefined) this.name(v.result, `${path}/result`)
    this.loc(v.loc, `${path}/loc`)
    if (!spec) {
      if (!IDENTIFIER.test(v.op) || FORBIDDEN_NAMES.has(v.op)) return this.fail(`${path}/op`, `Invalid op name "${v.op}"`)
      if (this.atoms && !this.atoms.has(v.op)) return this.fail(`${path}/op`, `Unknown op "${v.op}"`)
      for (const k of Object.keys(v)) if (!STEP_META.has(k)) this.value(v[k], `${path}/${esc(k)}`, depth + 1)
      return
    }
    for (const k of Object.keys(v)) {
      if (STEP_META.has(k)) continue
      if (!Object.prototype.hasOwnProperty.call(spec.fields, k)) this.fail(`${path}/${esc(k)}`, `Op "${v.op}" has no field "${k}"`)
    }
    for (const [field, fs] of Object.entries(spec.fields)) {
      const fv = v[field]
      const fp = `${path}/${esc(field)}`
      if (fv === undefined) {
        if (!fs.optional) this.fail(fp, `Op "${v.op}" needs field "${field}"`)
        continue
      }
      this.field(fs.kind, fv, fp, depth + 1)
    }
  }

  field(kind: FieldKind, v: unknown, path: string, depth: number): void {
    switch (kind) {
      case 'value': return this.value(v, path, depth)
      case 'expr': return this.expr(v, path, depth)
      case 'name': return this.name(v, path)
      case 'names':
        if (!Array.isArray(v)) return this.fail(path, 'Expected an array of names')
        return v.forEach((n, i) => this.name(n, `${path}/${i}`))
      case 'string': if (typeof v !== 'string') this.fail(path, 'Expected a string'); return
      case 'steps': return this.steps(v, path, depth)
      case 'branches':
        if (!Array.isArray(v)) return this.fail(path, 'Expected a list of step lists')
        return v.forEach((b, i) => this.steps(b, `${path}/${i}`, depth + 1))
      case 'pattern': return this.pattern(v, path, depth)
      case 'bindings':
        if (!isObj(v)) return this.fail(path, 'Expected an object of name: value')
        for (const k of Object.keys(v)) { this.name(k, `${path}/${esc(k)}`); this.value(v[k], `${path}/${esc(k)}`, depth + 1) }
        return
      case 'cases':
        if (!Array.isArray(v)) return this.fail(path, 'Expected a list of cases')
        return v.forEach((c, i) => {
          const cp = `${path}/${i}`
          if (!isObj(c)) return this.fail(cp, 'Expected a case { test?, body }')
          if (c.test !== undefined && c.test !== null) this.expr(c.test, `${cp}/test`, depth + 1)
          this.steps(c.body, `${cp}/body`, depth + 1)
        })
      case 'declKind':
        if (v !== 'let' && v !== 'const' && v !== 'assign') this.fail(path, 'Expected "let", "const" or "assign"')
        return
    }
  }

  value(v: unknown, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isFinite(v)) this.fail(path, 'Non-finite numbers cannot be JSON literals')
      return
    }
    if (isObj(v) && '$expr' in v) return this.expr(v, path, depth)
    if (Array.isArray(v)) return v.forEach((x, i) => this.value(x, `${path}/${i}`, depth + 1))
    for (const k of Object.keys(v)) {
      if (FORBIDDEN_NAMES.has(k)) this.fail(`${path}/${esc(k)}`, `Forbidden key "${k}"`)
      this.value((v as any)[k], `${path}/${esc(k)}`, depth + 1)
    }
  }

  exprList(v: unknown, path: string, depth: number, spread: boolean): void {
    if (!Array.isArray(v)) return this.fail(path, 'Expected an array of expressions')
    v.forEach((x, i) => {
      if (spread && isObj(x) && x.$expr === 'spread') {
        if (this.enter(`${path}/${i}`, depth + 1)) this.expr(x.argument, `${path}/${i}/argument`, depth + 2)
      } else this.expr(x, `${path}/${i}`, depth + 1)
    })
  }

  expr(v: unknown, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (!isObj(v) || typeof v.$expr !== 'string') return this.fail(path, 'Expected an expression { $expr, ... }')
    if (!Object.prototype.hasOwnProperty.call(EXPR_KINDS, v.$expr)) return this.fail(`${path}/$expr`, `Unknown expression kind "${v.$expr}"`)
    this.loc(v.loc, `${path}/loc`)
    const d = depth + 1
    switch (v.$expr) {
      case 'literal': return this.literal(v.value, `${path}/value`, d)
      case 'ident': return this.name(v.name, `${path}/name`)
      case 'member':
        this.expr(v.object, `${path}/object`, d)
        if (v.computed) this.expr(v.property, `${path}/property`, d)
        else if (typeof v.property !== 'string') this.fail(`${path}/property`, 'Expected a property name')
        else if (FORBIDDEN_NAMES.has(v.property)) this.fail(`${path}/property`, `Forbidden property "${v.property}"`)
        return
      case 'binary':
        if (!BINARY.has(v.op)) this.fail(`${path}/op`, `Unknown binary operator "${v.op}"`)
        this.expr(v.left, `${path}/left`, d); this.expr(v.right, `${path}/right`, d); return
      case 'logical':
        if (!LOGICAL.has(v.op)) this.fail(`${path}/op`, `Unknown logical operator "${v.op}"`)
        this.expr(v.left, `${path}/left`, d); this.expr(v.right, `${path}/right`, d); return
      case 'unary':
        if (!UNARY.has(v.op)) this.fail(`${path}/op`, `Unknown unary operator "${v.op}"`)
        return this.expr(v.argument, `${path}/argument`, d)
      case 'conditional':
        this.expr(v.test, `${path}/test`, d); this.expr(v.consequent, `${path}/consequent`, d); this.expr(v.alternate, `${path}/alternate`, d); return
      case 'array': return this.exprList(v.elements, `${path}/elements`, d, true)
      case 'object':
        if (!Array.isArray(v.properties)) return this.fail(`${path}/properties`, 'Expected an array of properties')
        return v.properties.forEach((p: any, i: number) => {
          const pp = `${path}/properties/${i}`
          if (isObj(p) && p.$expr === 'spread') return this.expr(p.argument, `${pp}/argument`, d + 1)
          if (!isObj(p)) return this.fail(pp, 'Expected a property { key, value }')
          if (p.computed) this.expr(p.key, `${pp}/key`, d + 1)
          else if (typeof p.key !== 'string') this.fail(`${pp}/key`, 'Expected a key string')
          else if (FORBIDDEN_NAMES.has(p.key)) this.fail(`${pp}/key`, `Forbidden key "${p.key}"`)
          this.expr(p.value, `${pp}/value`, d + 1)
        })
      case 'spread': return this.fail(path, '`spread` is only valid inside array, object or call arguments')
      case 'template':
        if (!Array.isArray(v.quasis) || !v.quasis.every((q: unknown) => typeof q === 'string')) this.fail(`${path}/quasis`, 'Expected an array of strings')
        if (!Array.isArray(v.expressions)) return this.fail(`${path}/expressions`, 'Expected an array of expressions')
        if (Array.isArray(v.quasis) && v.quasis.length !== v.expressions.length + 1) this.fail(path, 'template needs one more quasi than expressions')
        return this.exprList(v.expressions, `${path}/expressions`, d, false)
      case 'call':
        this.name(v.callee, `${path}/callee`)
        return this.exprList(v.args ?? [], `${path}/args`, d, true)
      case 'methodCall':
        this.expr(v.object, `${path}/object`, d)
        if (typeof v.method !== 'string' || FORBIDDEN_NAMES.has(v.method)) this.fail(`${path}/method`, 'Expected an allowed method name')
        if (!Array.isArray(v.args ?? [])) return this.fail(`${path}/args`, 'Expected an array of arguments')
        return (v.args ?? []).forEach((a: any, i: number) => {
          if (isObj(a) && a.$expr === 'lambda') this.lambda(a, `${path}/args/${i}`, d + 1)
          else if (isObj(a) && a.$expr === 'spread') this.expr(a.argument, `${path}/args/${i}/argument`, d + 1)
          else this.expr(a, `${path}/args/${i}`, d + 1)
        })
      case 'lambda': return this.fail(path, 'A lambda can only be the callback argument of an array method')
      case 'assign':
        if (!ASSIGN.has(v.op)) this.fail(`${path}/op`, `Unknown assignment operator "${v.op}"`)
        if (isObj(v.target) && '$pattern' in v.target) this.pattern(v.target, `${path}/target`, d)
        else if (!isObj(v.target) || (v.target.$expr !== 'ident' && v.target.$expr !== 'member')) this.fail(`${path}/target`, 'Assignment target must be ident, member or pattern')
        else this.expr(v.target, `${path}/target`, d)
        return this.expr(v.value, `${path}/value`, d)
      case 'update':
        if (v.op !== '++' && v.op !== '--') this.fail(`${path}/op`, 'Expected "++" or "--"')
        if (!isObj(v.argument) || (v.argument.$expr !== 'ident' && v.argument.$expr !== 'member')) return this.fail(`${path}/argument`, 'Update target must be ident or member')
        return this.expr(v.argument, `${path}/argument`, d)
      case 'sequence': return this.exprList(v.expressions, `${path}/expressions`, d, false)
      case 'regex':
        if (typeof v.pattern !== 'string') this.fail(`${path}/pattern`, 'Expected a pattern string')
        if (v.flags !== undefined && (typeof v.flags !== 'string' || !/^[gimsuy]*$/.test(v.flags))) this.fail(`${path}/flags`, 'Unsupported regex flags')
        return
    }
  }

  lambda(v: Record<string, any>, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (!Array.isArray(v.params)) this.fail(`${path}/params`, 'Expected an array of patterns')
    else v.params.forEach((p: unknown, i: number) => this.pattern(p, `${path}/params/${i}`, depth + 1))
    if ((v.body === undefined) === (v.steps === undefined)) return this.fail(path, 'A lambda needs exactly one of body / steps')
    if (v.body !== undefined) this.expr(v.body, `${path}/body`, depth + 1)
    else this.steps(v.steps, `${path}/steps`, depth + 1)
  }

  literal(v: unknown, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return
    if (typeof v === 'number') { if (!Number.isFinite(v)) this.fail(path, 'Non-finite numbers cannot be JSON literals'); return }
    if (Array.isArray(v)) return v.forEach((x, i) => this.literal(x, `${path}/${i}`, depth + 1))
    if (isObj(v)) {
      for (const k of Object.keys(v)) {
        if (FORBIDDEN_NAMES.has(k)) this.fail(`${path}/${esc(k)}`, `Forbidden key "${k}"`)
        this.literal(v[k], `${path}/${esc(k)}`, depth + 1)
      }
      return
    }
    this.fail(path, 'Literal must be JSON data')
  }

  pattern(v: unknown, path: string, depth: number): void {
    if (!this.enter(path, depth)) return
    if (typeof v === 'string') return this.name(v, path)
    if (!isObj(v) || typeof v.$pattern !== 'string') return this.fail(path, 'Expected a pattern (name or { $pattern })')
    switch (v.$pattern) {
      case 'object':
        if (!Array.isArray(v.properties)) return this.fail(`${path}/properties`, 'Expected an array')
        v.properties.forEach((p: any, i: number) => {
          const pp = `${path}/properties/${i}`
          if (!isObj(p)) return this.fail(pp, 'Expected { key, value }')
          if (p.computed) this.expr(p.key, `${pp}/key`, depth + 2)
          else if (typeof p.key !== 'string' || FORBIDDEN_NAMES.has(p.key)) this.fail(`${pp}/key`, 'Expected an allowed key')
          this.pattern(p.value, `${pp}/value`, depth + 2)
        })
        if (v.rest !== undefined) this.name(v.rest, `${path}/rest`)
        return
      case 'array':
        if (!Array.isArray(v.elements)) return this.fail(`${path}/elements`, 'Expected an array')
        v.elements.forEach((e: unknown, i: number) => { if (e !== null) this.pattern(e, `${path}/elements/${i}`, depth + 1) })
        if (v.rest !== undefined) this.pattern(v.rest, `${path}/rest`, depth + 1)
        return
      case 'default':
        this.pattern(v.target, `${path}/target`, depth + 1)
        return this.expr(v.default, `${path}/default`, depth + 1)
      case 'target':
        if (!isObj(v.target) || (v.target.$expr !== 'ident' && v.target.$expr !== 'member')) return this.fail(`${path}/target`, 'Expected ident or member')
        return this.expr(v.target, `${path}/target`, depth + 1)
      default:
        return this.fail(`${path}/$pattern`, `Unknown pattern kind "${v.$pattern}"`)
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
  if (ast.op !== 'seq') ch.fail('/op', 'The root must be { "op": "seq" }')
  for (const k of Object.keys(ast)) {
    if (!ROOT_META.has(k) && !STEP_META.has(k) && k !== 'steps') ch.fail(`/${esc(k)}`, `Unknown root field "${k}"`)
  }
  ch.steps(ast.steps, '/steps', 1)
  if (ast.params !== undefined) ch.pattern(ast.params, '/params', 1)
  if (ast.functions !== undefined) {
    if (!isObj(ast.functions)) ch.fail('/functions', 'Expected an object of functions')
    else for (const [name, def] of Object.entries(ast.functions)) {
      const fp = `/functions/${esc(name)}`
      ch.name(name, fp)
      if (!isObj(def)) { ch.fail(fp, 'Expected { params, steps }'); continue }
      if (!Array.isArray(def.params)) ch.fail(`${fp}/params`, 'Expected an array of patterns')
      else def.params.forEach((p: unknown, i: number) => ch.pattern(p, `${fp}/params/${i}`, 2))
      ch.steps(def.steps, `${fp}/steps`, 2)
    }
  }
  if (ast.inputSchema !== undefined && !isObj(ast.inputSchema)) ch.fail('/inputSchema', 'Expected a JSON Schema object')
  if (ast.file !== undefined && typeof ast.file !== 'string') ch.fail('/file', 'Expected a string')
  return ch.problems
}
