/**
 * The seed's AST dialect, and its migration to "ajs/1".
 *
 * ASTs written by the seed's builder have no `ajs` marker. Two of their
 * constructs mean something else than in ajs/1:
 *
 * - `{ op: 'return', schema }` without `value` returns a new object with one
 *   key per key of `schema.properties`, each the current value of the
 *   variable of that name (`schema: {}` returns `{}`);
 * - an `ident` (or `varGet` / `varsExport` key) that names no declared
 *   variable reads the run's args of that name: variables first, then args.
 *
 * `migrateAst` rewrites such an AST into plain ajs/1 and lists every
 * construct it changed. Importing this module also registers it with the
 * VM (dialect.ts): a VM then runs a root without `ajs` through the same
 * function (cached per AST object), so a stored seed AST and its migration
 * give the same results. The full entry (`ajs-lang`) and `ajsc` import it;
 * `ajs-lang/vm` stays small and takes it as `import 'ajs-lang/dialect/seed'`.
 *
 * How the args fallback is expressed in ajs/1: every name that is read
 * somewhere and is either declared nowhere, or only by function-scope
 * assignments (`varSet`, a step's `result`), is imported at the start of the
 * program with `varsImport`. Reads before the first assignment then see the
 * arg, later ones the variable, and `varSet` assigns the imported binding:
 * the seed's "variables first, then args". A name declared nowhere must be an
 * arg: the VM refuses a run whose args lack it with `UNKNOWN_IDENTIFIER` (as
 * an unknown identifier is refused today), and the migrated AST carries a
 * guard step that throws a ReferenceError when it reads `undefined`.
 */
import { CORE_OPS, FORBIDDEN_NAMES, type FieldKind } from '../ast/nodes.ts'
import type { AjsProgram } from '../ast/types.ts'
import { GLOBAL_VALUES, NAMESPACES } from './builtins/globals.ts'
import { vmError } from './errors.ts'
import { registerDialect, type Migration, type MigrationChange } from './dialect.ts'

export type { Migration, MigrationChange }
import { DEFAULTS } from './limits.ts'

/** JSON nesting the migration walks (an AST node is several JSON levels; the VM checks its own depth limit afterwards). */
const MAX_JSON_DEPTH = DEFAULTS.maxAstDepth * 4

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k)
const esc = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')

interface Read { path: string; construct: string }

class Scan {
  /** Declared by `let`/`const`-like forms, parameters, patterns, loop variables, helpers. */
  readonly block = new Set<string>()
  /** Declared only by function-scope assignment (`varSet`, `result`). */
  readonly assigned = new Set<string>()
  /** Reads that fall back to args, in order of first appearance. */
  readonly reads = new Map<string, Read[]>()
  readonly changes: MigrationChange[] = []

  read(name: unknown, path: string, construct: string): void {
    if (typeof name !== 'string') return
    let list = this.reads.get(name)
    if (!list) this.reads.set(name, (list = []))
    list.push({ path, construct })
  }

  declare(name: unknown): void {
    if (typeof name === 'string') this.block.add(name)
  }

  steps(list: unknown, path: string): unknown {
    return Array.isArray(list) ? list.map((st, i) => this.step(st, `${path}/${i}`)) : list
  }

  private nodes = 0
  private depth = 0

  /** Bounds the walk: a cyclic, too deep or too large seed AST is refused before the VM validates it. */
  private guard<T>(fn: () => T): T {
    if (++this.nodes > DEFAULTS.maxAstNodes) throw vmError('AST_TOO_LARGE', `The AST has more than ${DEFAULTS.maxAstNodes} nodes`)
    if (++this.depth > MAX_JSON_DEPTH) throw vmError('AST_TOO_DEEP', 'The AST nests too deeply (or is cyclic)')
    try {
      return fn()
    } finally {
      this.depth--
    }
  }

  step(node: unknown, path: string): unknown {
    return this.guard(() => this.stepIn(node, path))
  }

  private stepIn(step: unknown, path: string): unknown {
    if (!isObj(step) || typeof step.op !== 'string') return this.value(step, path)
    let node: Obj = step
    const op = step.op
    const spec = has(CORE_OPS, op) ? CORE_OPS[op] : undefined
    const out: Obj = {}
    if (op === 'return' && has(node, 'schema')) return this.schemaReturn(node, path)
    if (op === 'try' && node.catch !== undefined && node.catchParam === undefined) {
      // The seed's catch block sees the error as `error` (its docs read `error.message` there).
      node = { ...node, catchParam: 'error' }
      this.changes.push({ path, construct: 'try.catch', message: 'catch without a parameter: the error is bound as `error`' })
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'op' || k === 'loc') out[k] = v
      else if (k === 'result') {
        if (typeof v === 'string') this.assigned.add(v)
        out[k] = v
      } else {
        const kind: FieldKind = spec && has(spec.fields, k) ? spec.fields[k]!.kind : 'value'
        out[k] = this.field(op, kind, v, `${path}/${esc(k)}`, node)
      }
    }
    return out
  }

  private schemaReturn(node: Obj, path: string): Obj {
    const out: Obj = {}
    for (const [k, v] of Object.entries(node)) if (k !== 'schema') out[k] = v
    if (node.value !== undefined) {
      out.value = this.value(node.value, `${path}/value`)
      this.changes.push({ path, construct: 'return.schema', message: 'return with both value and schema: the schema is dropped (ajs/1 returns the value)' })
      return out
    }
    const schema = node.schema
    const props = isObj(schema) && isObj(schema.properties) ? Object.keys(schema.properties) : []
    for (const k of props) {
      this.read(k, `${path}/schema/properties/${esc(k)}`, 'return.schema')
    }
    out.value = { $expr: 'object', properties: props.map((k) => ({ key: k, value: { $expr: 'ident', name: k } })) }
    this.changes.push({
      path,
      construct: 'return.schema',
      message: props.length === 0
        ? 'return with a schema and no value: returns {}'
        : `return with a schema and no value: returns { ${props.join(', ')} } from the variables of those names`,
    })
    return out
  }

  private field(op: string, kind: FieldKind, v: unknown, path: string, node: Obj): unknown {
    switch (kind) {
      case 'name':
        if (op === 'varSet') { if (typeof v === 'string') this.assigned.add(v) }
        else if (op === 'varGet') this.read(v, path, 'varGet')
        else this.declare(v)
        return v
      case 'names':
        if (Array.isArray(v)) {
          if (op === 'varsExport') v.forEach((n, i) => this.read(n, `${path}/${i}`, 'varsExport'))
          else v.forEach((n) => this.declare(n))
        }
        return v
      case 'string':
      case 'declKind':
        return v
      case 'steps':
        return this.steps(v, path)
      case 'branches':
        return Array.isArray(v) ? v.map((b, i) => this.steps(b, `${path}/${i}`)) : v
      case 'pattern':
        return this.pattern(v, path, !(op === 'destructure' && node.kind === 'assign'))
      case 'bindings': {
        if (!isObj(v)) return v
        const out: Obj = {}
        for (const [k, x] of Object.entries(v)) {
          this.declare(k)
          out[k] = this.value(x, `${path}/${esc(k)}`)
        }
        return out
      }
      case 'cases':
        return Array.isArray(v)
          ? v.map((c, i) => {
            if (!isObj(c)) return c
            const out: Obj = { ...c }
            if (c.test !== undefined && c.test !== null) out.test = this.value(c.test, `${path}/${i}/test`)
            if (c.body !== undefined) out.body = this.steps(c.body, `${path}/${i}/body`)
            return out
          })
          : v
      default:
        return this.value(v, path)
    }
  }

  value(v: unknown, path: string): unknown {
    return v !== null && typeof v === 'object' ? this.guard(() => this.valueIn(v, path)) : v
  }

  private valueIn(v: unknown, path: string): unknown {
    if (Array.isArray(v)) return v.map((x, i) => this.value(x, `${path}/${i}`))
    if (!isObj(v)) return v
    if (has(v, '$expr')) return this.expr(v, path)
    if (has(v, '$pattern')) return this.pattern(v, path, true)
    const out: Obj = {}
    for (const [k, x] of Object.entries(v)) out[k] = this.value(x, `${path}/${esc(k)}`)
    return out
  }

  private expr(node: Obj, path: string): unknown {
    switch (node.$expr) {
      case 'literal':
        return node
      case 'ident':
        this.read(node.name, path, 'ident')
        return { ...node }
      case 'update':
        if (isObj(node.argument) && node.argument.$expr === 'ident') {
          this.read(node.argument.name, `${path}/argument`, 'ident')
          return { ...node, argument: { ...node.argument } }
        }
        break
      case 'assign': {
        const out: Obj = { ...node }
        const t = node.target
        if (isObj(t) && has(t, '$pattern')) out.target = this.pattern(t, `${path}/target`, false)
        else if (isObj(t) && t.$expr === 'ident') out.target = { ...t }
        else out.target = this.value(t, `${path}/target`)
        // `x += 1` reads x.
        if (isObj(t) && t.$expr === 'ident' && node.op !== '=') this.read(t.name, `${path}/target`, 'ident')
        out.value = this.value(node.value, `${path}/value`)
        return out
      }
      case 'lambda': {
        const out: Obj = { ...node }
        if (Array.isArray(node.params)) out.params = node.params.map((p, i) => this.pattern(p, `${path}/params/${i}`, true))
        if (node.body !== undefined) out.body = this.value(node.body, `${path}/body`)
        if (node.steps !== undefined) out.steps = this.steps(node.steps, `${path}/steps`)
        return out
      }
    }
    const out: Obj = {}
    for (const [k, x] of Object.entries(node)) out[k] = k === '$expr' ? x : this.value(x, `${path}/${esc(k)}`)
    return out
  }

  /** Copy a pattern; `decl` adds its bound names to the declared set. */
  pattern(p: unknown, path: string, decl: boolean): unknown {
    return this.guard(() => this.patternIn(p, path, decl))
  }

  private patternIn(p: unknown, path: string, decl: boolean): unknown {
    if (typeof p === 'string') {
      if (decl) this.declare(p)
      return p
    }
    if (!isObj(p)) return p
    const out: Obj = { ...p }
    switch (p.$pattern) {
      case 'object':
        if (Array.isArray(p.properties)) {
          out.properties = p.properties.map((q, i) => {
            if (!isObj(q)) return q
            const o: Obj = { ...q }
            if (q.computed) o.key = this.value(q.key, `${path}/properties/${i}/key`)
            o.value = this.pattern(q.value, `${path}/properties/${i}/value`, decl)
            return o
          })
        }
        if (p.rest !== undefined) out.rest = this.pattern(p.rest, `${path}/rest`, decl)
        break
      case 'array':
        if (Array.isArray(p.elements)) out.elements = p.elements.map((e, i) => (e === null ? null : this.pattern(e, `${path}/elements/${i}`, decl)))
        if (p.rest !== undefined) out.rest = this.pattern(p.rest, `${path}/rest`, decl)
        break
      case 'default':
        out.target = this.pattern(p.target, `${path}/target`, decl)
        out.default = this.value(p.default, `${path}/default`)
        break
      case 'target':
        if (isObj(p.target) && p.target.$expr !== 'ident') out.target = this.value(p.target, `${path}/target`)
        break
    }
    return out
  }
}

const isGlobal = (n: string) => has(GLOBAL_VALUES, n) || has(NAMESPACES, n)

/**
 * Rewrite a seed-dialect AST (no `ajs` marker) into ajs/1, listing every
 * construct changed (paths point into the input). An AST that already has
 * `ajs: 1` comes back as is with no changes; another version is refused
 * (`AST_VERSION`). The input is never modified.
 */
export function migrateAst(ast: unknown): Migration {
  if (!isObj(ast)) throw vmError('AST_INVALID', 'migrateAst expects an AST object')
  if (ast.ajs !== undefined) {
    if (ast.ajs === 1) return { ast: ast as unknown as AjsProgram, changes: [], argNames: [] }
    throw vmError('AST_VERSION', `Unsupported format version ${JSON.stringify(ast.ajs)} (migrateAst reads the seed dialect and ajs/1)`, { path: '/ajs' })
  }
  try {
    return migrateRoot(ast)
  } catch (e) {
    if (e instanceof RangeError) throw vmError('AST_TOO_DEEP', 'The AST nests too deeply to migrate')
    throw e
  }
}

function migrateRoot(ast: Obj): Migration {
  const sc = new Scan()
  const out: Obj = { ajs: 1 }
  const helpers = new Set<string>()
  for (const [k, v] of Object.entries(ast)) {
    if (k === 'steps') out.steps = sc.steps(v, '/steps')
    else if (k === 'params') out.params = sc.pattern(v, '/params', true)
    else if (k === 'functions' && isObj(v)) {
      const fns: Obj = {}
      for (const [name, fn] of Object.entries(v)) {
        helpers.add(name)
        if (!isObj(fn)) { fns[name] = fn; continue }
        const base = `/functions/${esc(name)}`
        const copy: Obj = { ...fn }
        if (Array.isArray(fn.params)) copy.params = fn.params.map((p, i) => sc.pattern(p, `${base}/params/${i}`, true))
        copy.steps = sc.steps(fn.steps, `${base}/steps`)
        fns[name] = copy
      }
      out.functions = fns
    } else out[k] = v
  }
  const changes: MigrationChange[] = [{ path: '', construct: 'version', message: 'no "ajs" marker: read as the seed dialect, written as "ajs": 1' }]
  const imports: string[] = []
  const argNames: string[] = []
  for (const [name, reads] of sc.reads) {
    if (sc.block.has(name) || helpers.has(name) || FORBIDDEN_NAMES.has(name)) continue
    if (isGlobal(name) && !sc.assigned.has(name)) continue
    const hard = reads.some((r) => r.construct !== 'return.schema')
    const fromArgsOnly = !sc.assigned.has(name)
    // A variable read only by a schema `return` is the variable (its assignment came first).
    if (!hard && !fromArgsOnly) continue
    imports.push(name)
    if (hard && fromArgsOnly) argNames.push(name)
    for (const r of reads) {
      if (r.construct === 'return.schema') continue
      changes.push({
        path: r.path,
        construct: r.construct,
        message: fromArgsOnly
          ? `"${name}" names no declared variable: it reads the run's args (imported at /steps/0)`
          : `"${name}" is read before it may be assigned: it starts as the run's arg of that name (imported at /steps/0)`,
      })
    }
  }
  if (imports.length > 0 && Array.isArray(out.steps)) {
    const guards = argNames.map((name) => ({
      op: 'if',
      condition: { $expr: 'binary', op: '===', left: { $expr: 'ident', name }, right: { $expr: 'ident', name: 'undefined' } },
      then: [{ op: 'Error', name: 'ReferenceError', message: `Unknown identifier "${name}"` }],
    }))
    out.steps = [{ op: 'varsImport', keys: imports }, ...guards, ...out.steps]
  }
  changes.push(...sc.changes)
  changes.sort((a, b) => comparePaths(a.path, b.path))
  return { ast: out as unknown as AjsProgram, changes, argNames }
}

/** Document order of two JSON pointers (numeric segments compare as numbers). */
function comparePaths(a: string, b: string): number {
  const x = a.split('/'), y = b.split('/')
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue
    const m = Number(x[i]), n = Number(y[i])
    if (x[i] !== '' && y[i] !== '' && Number.isInteger(m) && Number.isInteger(n)) return m - n
    return x[i]! < y[i]! ? -1 : 1
  }
  return x.length - y.length
}

registerDialect(migrateAst)
