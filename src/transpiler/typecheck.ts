/**
 * The type check of a program against its atoms' schemas (`transpile(src,
 * { atoms, typecheck: true })`, code mode, issue 25). A small checker over
 * the source's syntax tree, run after the lowering accepted it: it knows the
 * JSON Schemas of the atoms' inputs and outputs, follows results through
 * `const` names, destructuring, member reads and `for...of`, and reports,
 * located and with a hint:
 *
 * - AJS6001 a required field missing from an atom call's object;
 * - AJS6002 a field whose value cannot have the schema's type (literals,
 *   templates, arithmetic, comparisons, other results), or a literal outside
 *   an `enum` / `const`;
 * - AJS6003 a field the input schema does not declare;
 * - AJS6004 a read of a field the result's schema does not declare;
 * - AJS6005 a result used as what it is not (a property of a number,
 *   iterating an object).
 *
 * What it cannot know (a value from the arguments, an untyped atom, a spread)
 * it does not check: no false alarms for untyped code. Declared object
 * properties are read as closed (as TypeScript does): a field outside them is
 * reported even when the schema allows additional properties; input objects
 * are checked the same way unless `additionalProperties` is `true` or a schema.
 */
import { parse, type Node } from 'acorn'
import type { CodeName } from '../diagnostics/codes.ts'
import { makeDiagnostic, TranspileError, type Diagnostic } from '../diagnostics/diagnostic.ts'
import { codeFrame } from '../diagnostics/format.ts'
import { SourceLocator } from '../diagnostics/location.ts'
import { COMPARISON_OPERATORS } from '../ast/nodes.ts'
import { didYouMean } from './suggest.ts'

type Schema = Record<string, unknown>
/** What the checker reads of an atom: its JSON Schemas. */
export interface TypedAtom { inputSchema?: unknown; outputSchema?: unknown }

export interface TypecheckOptions { filename?: string }

type AnyNode = Node & Record<string, any>

const isObj = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v)

/**
 * The types found per schema in this check (the schemas are a tool's, e.g. an MCP server's): each is
 * worked out once, so `anyOf`s sharing `$ref`s cost their size, not the product of their widths
 * (30 levels of 4 was 4^30 steps), and one under way is not entered again (`anyOf: [{ $ref: self }]`
 * overflowed the host stack): the types of a cycle are not known.
 */
let typesMemo = new WeakMap<Schema, { root: Schema | undefined; types: Set<string> | undefined }>()
const typesUnderWay = new Set<Schema>()

/** The concrete type names a schema allows (undefined: anything / not known). */
function typesOf(s: Schema | undefined, root?: Schema): Set<string> | undefined {
  if (!s) return undefined
  const r = deref(s, root)
  if (!r) return undefined
  const known = typesMemo.get(r)
  if (known !== undefined && known.root === root) return known.types
  if (typesUnderWay.has(r)) return undefined
  typesUnderWay.add(r)
  let types: Set<string> | undefined
  try {
    types = ownTypes(r, root)
  } finally {
    typesUnderWay.delete(r)
  }
  typesMemo.set(r, { root, types })
  return types
}

function ownTypes(r: Schema, root: Schema | undefined): Set<string> | undefined {
  if ('const' in r) return new Set([jsonType(r.const)])
  if (Array.isArray(r.enum)) return new Set(r.enum.map(jsonType))
  const alts = (r.anyOf ?? r.oneOf) as unknown[] | undefined
  if (Array.isArray(alts)) {
    const out = new Set<string>()
    for (const a of alts) {
      const t = typesOf(isObj(a) ? a : undefined, root)
      if (!t) return undefined
      for (const x of t) out.add(x)
    }
    return out
  }
  const t = r.type
  if (typeof t === 'string') return new Set([t === 'integer' ? 'number' : t])
  if (Array.isArray(t)) return new Set(t.map((x) => (x === 'integer' ? 'number' : String(x))))
  if (r.properties || r.additionalProperties) return new Set(['object'])
  if (r.items) return new Set(['array'])
  return undefined
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v === 'object' ? 'object' : typeof v
}

function deref(s: Schema, root?: Schema, depth = 0): Schema | undefined {
  if (typeof s.$ref !== 'string') return s
  if (!root || depth > 8 || !s.$ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const part of s.$ref.slice(2).split('/')) node = isObj(node) ? node[part] : undefined
  return isObj(node) ? deref(node, root, depth + 1) : undefined
}

/** A typed value: its schema and the schema document its `$ref`s resolve in. */
interface Typed { schema: Schema; root: Schema; what: string }

/** The object alternatives of a schema (itself, or those of anyOf/oneOf), dereferenced. */
function objectAlternatives(t: Typed): Schema[] | undefined {
  const r = deref(t.schema, t.root)
  if (!r) return undefined
  const alts = (r.anyOf ?? r.oneOf) as unknown[] | undefined
  if (Array.isArray(alts)) {
    const out: Schema[] = []
    for (const a of alts) {
      if (!isObj(a)) return undefined
      const d = deref(a, t.root)
      if (!d) return undefined
      const ty = typesOf(d, t.root)
      if (!ty) return undefined
      if (ty.has('object')) out.push(d)
    }
    return out
  }
  return typesOf(r, t.root)?.has('object') ? [r] : []
}

function describeTypes(ts: Set<string>): string {
  const names = [...ts].map((t) => (t === 'object' ? 'an object' : t === 'array' ? 'an array' : t === 'null' ? 'null' : `a ${t}`))
  return names.length <= 1 ? names[0] ?? 'nothing' : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
}

const listFields = (names: string[]) => (names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none')

/** A scope: names -> what is known of their value (undefined: not known). */
class Scope {
  private readonly vars = new Map<string, Typed | undefined>()
  constructor(readonly parent?: Scope) {}
  declare(name: string, t: Typed | undefined) { this.vars.set(name, t) }
  lookup(name: string): Typed | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name)
    return undefined
  }
  /** Forget what is known of `name` (it was assigned). */
  forget(name: string) {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.vars.has(name)) { s.vars.set(name, undefined); return }
  }
}

class Checker {
  readonly diagnostics: Diagnostic[] = []
  private readonly locator: SourceLocator
  constructor(readonly source: string, readonly file: string, readonly atoms: ReadonlyMap<string, TypedAtom>, private readonly helpers: Set<string>) {
    this.locator = new SourceLocator(source)
  }

  report(name: CodeName, node: AnyNode, params: Record<string, string>) {
    const pos = this.locator.position(node.start)
    this.diagnostics.push(makeDiagnostic(name, params, this.file, pos.line, pos.column))
  }

  /** The static type of an expression, where it is known. */
  typeOf(node: AnyNode, scope: Scope): { types?: Set<string>; typed?: Typed; literal?: { value: unknown } } {
    switch (node.type) {
      case 'Literal':
        if (node.regex) return {}
        return { types: new Set([jsonType(node.value)]), literal: { value: node.value } }
      case 'TemplateLiteral': return { types: new Set(['string']) }
      case 'ArrayExpression': return { types: new Set(['array']) }
      case 'ObjectExpression': return { types: new Set(['object']) }
      case 'UnaryExpression':
        if (node.operator === '!' || node.operator === 'delete') return { types: new Set(['boolean']) }
        if (node.operator === 'typeof') return { types: new Set(['string']) }
        if (node.operator === '-' || node.operator === '+' || node.operator === '~') return { types: new Set(['number']) }
        return {}
      case 'BinaryExpression': {
        if (node.operator === 'in' || (COMPARISON_OPERATORS as readonly string[]).includes(node.operator)) return { types: new Set(['boolean']) }
        if (node.operator === '+') {
          const l = this.typeOf(node.left, scope).types
          const r = this.typeOf(node.right, scope).types
          if ((l?.size === 1 && l.has('string')) || (r?.size === 1 && r.has('string'))) return { types: new Set(['string']) }
          if (l?.size === 1 && l.has('number') && r?.size === 1 && r.has('number')) return { types: new Set(['number']) }
          return {}
        }
        return { types: new Set(['number']) }
      }
      case 'Identifier': {
        const t = scope.lookup(node.name)
        return t ? { typed: t, types: typesOf(t.schema, t.root) } : {}
      }
      case 'CallExpression': {
        if (node.callee.type === 'Identifier' && !this.helpers.has(node.callee.name) && !scope.lookup(node.callee.name)) {
          const atom = this.atoms.get(node.callee.name)
          if (atom && isObj(atom.outputSchema)) {
            const typed = { schema: atom.outputSchema, root: atom.outputSchema, what: `the result of \`${node.callee.name}\`` }
            return { typed, types: typesOf(typed.schema, typed.root) }
          }
        }
        return {}
      }
      case 'AwaitExpression': return this.typeOf(node.argument, scope)
      case 'ChainExpression': return this.typeOf(node.expression, scope)
      case 'MemberExpression': {
        const t = this.memberType(node, scope, false)
        return t ? { typed: t, types: typesOf(t.schema, t.root) } : {}
      }
      default: return {}
    }
  }

  /** The type of `obj.prop` (reporting misuse when `report`). */
  memberType(node: AnyNode, scope: Scope, report: boolean): Typed | undefined {
    const obj = this.typeOf(node.object, scope).typed
    if (!obj) return undefined
    let prop: string | undefined
    if (!node.computed && node.property.type === 'Identifier') prop = node.property.name
    else if (node.computed && node.property.type === 'Literal' && typeof node.property.value === 'string') prop = node.property.value
    const types = typesOf(obj.schema, obj.root)
    const r = deref(obj.schema, obj.root)
    if (!r || !types) return undefined
    if (types.has('array') && types.size <= 2 && (types.size === 1 || types.has('null'))) {
      if (node.computed && prop === undefined) {
        const items = isObj(r.items) ? r.items : undefined
        return items ? { schema: items, root: obj.root, what: `an item of ${obj.what}` } : undefined
      }
      return undefined // length and methods
    }
    if (prop === undefined) return undefined
    const alts = objectAlternatives(obj)
    if (alts === undefined) return undefined
    if (alts.length === 0) {
      if (report && !types.has('string') && !types.has('array')) {
        this.report('RESULT_MISUSE', node.property, { what: obj.what, actual: describeTypes(types), detail: `it has no field \`${prop}\``, fix: `Use the value itself, not \`.${prop}\`.` })
      }
      return undefined
    }
    const found = alts.map((a) => (isObj(a.properties) ? (a.properties as Record<string, unknown>)[prop!] : undefined)).find((p) => p !== undefined)
    if (found !== undefined) return isObj(found) ? { schema: found, root: obj.root, what: `\`${prop}\` of ${obj.what}` } : undefined
    const declared = alts.flatMap((a) => (isObj(a.properties) ? Object.keys(a.properties) : []))
    const open = alts.some((a) => !isObj(a.properties) || isObj(a.additionalProperties) || a.additionalProperties === true && Object.keys(a.properties as object).length === 0)
    if (open) {
      const extra = alts.map((a) => a.additionalProperties).find(isObj)
      return extra ? { schema: extra, root: obj.root, what: `\`${prop}\` of ${obj.what}` } : undefined
    }
    if (report) this.report('RESULT_FIELD', node.property, { field: prop, what: obj.what, suggest: didYouMean(prop, declared), fields: listFields(declared) })
    return undefined
  }

  /** Check an atom call's argument against its input schema. */
  checkCall(node: AnyNode, name: string, schema: Schema, scope: Scope) {
    const arg = node.arguments[0] as AnyNode | undefined
    if (!arg || node.arguments.length !== 1 || arg.type !== 'ObjectExpression') {
      if (!arg) {
        const required = (schema.required as string[] | undefined) ?? []
        if (required.length) this.report('ATOM_ARG_MISSING', node, { name, field: required[0]!, fields: required.map((f) => `${f}: ...`).join(', ') })
      }
      return
    }
    this.checkObject(arg, schema, schema, `\`${name}\``, name, scope)
  }

  checkObject(obj: AnyNode, schema: Schema, root: Schema, what: string, atom: string, scope: Scope) {
    const r = deref(schema, root)
    if (!r || !isObj(r.properties)) return
    const props = r.properties as Record<string, unknown>
    const declared = Object.keys(props)
    const closed = !(r.additionalProperties === true || isObj(r.additionalProperties))
    const given = new Set<string>()
    let spread = false
    for (const p of obj.properties as AnyNode[]) {
      if (p.type === 'SpreadElement') { spread = true; continue }
      let key: string | undefined
      if (!p.computed && p.key.type === 'Identifier') key = p.key.name
      else if (p.key.type === 'Literal') key = String(p.key.value)
      if (key === undefined) { spread = true; continue }
      given.add(key)
      const ps = props[key]
      if (ps === undefined) {
        if (closed) this.report('ATOM_ARG_UNKNOWN', p.key, { name: what, field: key, suggest: didYouMean(key, declared), fields: listFields(declared) })
        continue
      }
      if (isObj(ps)) this.checkValue(p.value, ps, root, `\`${key}\` of ${what}`, atom, scope)
    }
    if (spread) return
    const required = ((r.required as string[] | undefined) ?? []).filter((f) => !given.has(f))
    for (const f of required) {
      const all = ((r.required as string[] | undefined) ?? [])
      this.report('ATOM_ARG_MISSING', obj, { name: what, field: f, fields: all.map((x) => `${x}: ...`).join(', ') })
    }
  }

  checkValue(value: AnyNode, schema: Schema, root: Schema, what: string, atom: string, scope: Scope) {
    const expected = typesOf(schema, root)
    const r = deref(schema, root)
    if (value.type === 'ObjectExpression' && r && expected?.has('object')) {
      const alts = objectAlternatives({ schema: r, root, what })
      if (alts && alts.length === 1) this.checkObject(value, alts[0]!, root, what, atom, scope)
      return
    }
    if (!expected || !r) return
    const got = this.typeOf(value, scope)
    if (got.literal !== undefined && (Array.isArray(r.enum) || 'const' in r)) {
      const allowed = Array.isArray(r.enum) ? r.enum : [r.const]
      if (!allowed.some((v) => v === got.literal!.value)) {
        this.report('ATOM_ARG_TYPE', value, { field: what, expected: `one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`, actual: JSON.stringify(got.literal.value), hint: `Write one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}.` })
      }
      return
    }
    if (!got.types || got.types.size === 0) return
    const ok = [...got.types].some((t) => expected.has(t) || (t === 'number' && expected.has('integer')))
    if (!ok) {
      const conv = expected.has('string') && got.types.has('number') ? 'Convert it: `String(x)`.' : expected.has('number') && got.types.has('string') ? 'Convert it: `Number(x)`.' : `Pass ${describeTypes(expected)}.`
      this.report('ATOM_ARG_TYPE', value, { field: what, expected: describeTypes(expected), actual: describeTypes(got.types), hint: conv })
    }
  }

  /** Bind a declaration's pattern to what is known of its value. */
  bind(pattern: AnyNode, t: Typed | undefined, scope: Scope, init?: AnyNode) {
    if (pattern.type === 'Identifier') { scope.declare(pattern.name, t); return }
    if (pattern.type === 'AssignmentPattern') { this.bind(pattern.left, undefined, scope); return }
    if (pattern.type === 'ObjectPattern') {
      for (const p of pattern.properties as AnyNode[]) {
        if (p.type === 'RestElement') { this.bind(p.argument, undefined, scope); continue }
        let sub: Typed | undefined
        if (t && !p.computed && p.key.type === 'Identifier') {
          sub = this.memberType({ type: 'MemberExpression', object: init ?? { type: 'Identifier', name: '__typed', start: p.key.start }, property: p.key, computed: false, start: p.key.start } as unknown as AnyNode, withTyped(scope, init, t), true)
        }
        this.bind(p.value, sub, scope)
      }
      return
    }
    if (pattern.type === 'ArrayPattern') {
      for (const e of pattern.elements as Array<AnyNode | null>) if (e) this.bind(e.type === 'RestElement' ? e.argument : e, undefined, scope)
    }
  }

  walk(node: AnyNode | null | undefined, scope: Scope): void {
    if (!node || typeof node.type !== 'string') return
    switch (node.type) {
      case 'FunctionDeclaration': case 'ArrowFunctionExpression': case 'FunctionExpression': {
        const inner = new Scope(scope)
        for (const p of node.params as AnyNode[]) this.bind(p, undefined, inner)
        this.walk(node.body, inner)
        return
      }
      case 'BlockStatement': case 'StaticBlock': {
        const inner = new Scope(scope)
        for (const s of node.body) this.walk(s, inner)
        return
      }
      case 'VariableDeclaration':
        for (const d of node.declarations as AnyNode[]) {
          this.walk(d.init, scope)
          const t = d.init && node.kind === 'const' ? this.typeOf(d.init, scope).typed : undefined
          this.bind(d.id, t, scope, d.init)
        }
        return
      case 'ForOfStatement': case 'ForInStatement': {
        const inner = new Scope(scope)
        this.walk(node.right, scope)
        let item: Typed | undefined
        if (node.type === 'ForOfStatement') {
          const it = this.typeOf(node.right, scope)
          if (it.typed && it.types && !it.types.has('array') && !it.types.has('string') && it.types.size > 0) {
            this.report('RESULT_MISUSE', node.right, { what: it.typed.what, actual: describeTypes(it.types), detail: 'it cannot be iterated', fix: 'Iterate one of its array fields, or `Object.keys(...)` of it.' })
          } else if (it.typed) {
            const r = deref(it.typed.schema, it.typed.root)
            if (r && isObj(r.items)) item = { schema: r.items, root: it.typed.root, what: `an item of ${it.typed.what}` }
          }
        }
        if (node.left.type === 'VariableDeclaration') {
          for (const d of node.left.declarations as AnyNode[]) this.bind(d.id, node.left.kind === 'const' ? item : undefined, inner)
        }
        this.walk(node.body, inner)
        return
      }
      case 'ForStatement': {
        const inner = new Scope(scope)
        this.walk(node.init, inner); this.walk(node.test, inner); this.walk(node.update, inner); this.walk(node.body, inner)
        return
      }
      case 'CatchClause': {
        const inner = new Scope(scope)
        if (node.param) this.bind(node.param, undefined, inner)
        this.walk(node.body, inner)
        return
      }
      case 'AssignmentExpression':
        if (node.left.type === 'Identifier') scope.forget(node.left.name)
        this.walk(node.left, scope); this.walk(node.right, scope)
        return
      case 'UpdateExpression':
        if (node.argument.type === 'Identifier') scope.forget(node.argument.name)
        this.walk(node.argument, scope)
        return
      case 'CallExpression':
        if (node.callee.type === 'Identifier' && !this.helpers.has(node.callee.name) && !scope.lookup(node.callee.name)) {
          const atom = this.atoms.get(node.callee.name)
          if (atom && isObj(atom.inputSchema)) this.checkCall(node, node.callee.name, atom.inputSchema, scope)
        }
        if (node.callee.type === 'MemberExpression') this.walkMember(node.callee, scope, true)
        else this.walk(node.callee, scope)
        for (const a of node.arguments) this.walk(a, scope)
        return
      case 'MemberExpression':
        this.walkMember(node, scope, false)
        return
      default:
        for (const [k, v] of Object.entries(node)) {
          if (k === 'type' || k === 'start' || k === 'end' || k === 'loc') continue
          if (Array.isArray(v)) for (const x of v) { if (x && typeof x === 'object') this.walk(x as AnyNode, scope) }
          else if (v && typeof v === 'object' && typeof (v as AnyNode).type === 'string') this.walk(v as AnyNode, scope)
        }
    }
  }

  /** A member read: report a missing field; `method` when it is the callee of a call. */
  walkMember(node: AnyNode, scope: Scope, method: boolean) {
    this.walk(node.object, scope)
    if (node.computed) this.walk(node.property, scope)
    if (!method) this.memberType(node, scope, true)
    else {
      // obj.method(): only a read of obj's own fields matters (methods of strings and arrays are fine).
      const obj = this.typeOf(node.object, scope)
      const types = obj.types
      if (obj.typed && types && types.size === 1 && (types.has('object'))) this.memberType(node, scope, true)
    }
  }
}

/** A scope where a synthetic `__typed` node stands for a value already typed. */
function withTyped(scope: Scope, init: AnyNode | undefined, t: Typed): Scope {
  if (init) return scope
  const s = new Scope(scope)
  s.declare('__typed', t)
  return s
}

/**
 * Check a source against the atoms' schemas (`atoms`: a table by name of
 * objects with `inputSchema` / `outputSchema`, such as a VM's atoms or
 * `mcpAtoms(...).atoms`). Returns the errors, in source order.
 */
export function typecheckSource(source: string, atoms: Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>, options: TypecheckOptions = {}): Diagnostic[] {
  const table = new Map<string, TypedAtom>()
  const entries = atoms instanceof Map ? [...atoms.entries()] : Object.entries(atoms as Record<string, unknown>)
  for (const [name, a] of entries) {
    if (isObj(a) && (isObj(a.inputSchema) || isObj(a.outputSchema))) table.set(typeof a.op === 'string' ? a.op : name, a as TypedAtom)
  }
  if (table.size === 0) return []
  // A host may change its schemas between checks: what was found of them holds for one check.
  typesMemo = new WeakMap()
  const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module' }) as AnyNode
  const helpers = new Set<string>()
  for (const s of program.body as AnyNode[]) {
    const fn = s.type === 'ExportDefaultDeclaration' || s.type === 'ExportNamedDeclaration' ? s.declaration : s
    if (fn?.type === 'FunctionDeclaration' && fn.id) helpers.add(fn.id.name)
  }
  const checker = new Checker(source, options.filename ?? '<ajs>', table, helpers)
  checker.walk(program, new Scope())
  return checker.diagnostics.sort((a, b) => a.line - b.line || a.column - b.column)
}

/**
 * transpile's `typecheck: true`: throw the first type error (carrying all of
 * them in `errors`) as a TranspileError. Names only (a list of strings) check nothing.
 */
export function typecheckOrThrow(source: string, atoms: unknown, filename: string): void {
  // A list of names checks nothing; a list of atoms is checked like a table of them.
  if (!atoms || typeof atoms !== 'object') return
  const found = typecheckSource(source, atoms as Record<string, unknown>, { filename })
  if (found.length === 0) return
  const locator = new SourceLocator(source)
  const errors = found.map((d) => new TranspileError(d, codeFrame(locator, d.line, d.column)))
  errors[0]!.errors = errors
  throw errors[0]
}
