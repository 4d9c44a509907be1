/**
 * The program root: `take(schema)` (input schema + parameter pattern),
 * `meta(...)`, and `build` which assembles the "ajs/1" document and
 * validates it, turning the first problem into a located BuilderError.
 */
import type { AjsProgram, Expr, Json, Pattern, Step } from '../ast/types.ts'
import { validateAst } from '../ast/validate.ts'
import { BuilderError } from './errors.ts'
import { argError, checkKeys, isPlainObject } from './body.ts'
import { addNames, checkName, type RootMeta, type State } from './state.ts'
import { node as make } from '../ast/build.ts'

type JsonSchema = Record<string, unknown>

/** A tosijs-schema builder (`.schema`) or a plain JSON Schema, as a private copy. */
export function schemaOf(s: unknown, what: string): JsonSchema {
  const raw = s !== null && typeof s === 'object' && 'schema' in s && typeof (s as { schema: unknown }).schema === 'object'
    ? (s as { schema: unknown }).schema
    : s
  if (!isPlainObject(raw)) throw argError(`${what} expects a tosijs-schema builder (s.object({...})) or a JSON Schema object`)
  return JSON.parse(JSON.stringify(raw)) as JsonSchema
}

/** A JSON default as the expression the transpiler writes for it (`[]` is an array literal, ...). */
function jsonExpr(v: Json): Expr {
  if (Array.isArray(v)) return make('array', { elements: v.map(jsonExpr) })
  if (v !== null && typeof v === 'object') {
    return make('object', { properties: Object.keys(v).map((key) => ({ key, value: jsonExpr(v[key]!) })) })
  }
  return make('literal', { value: v })
}

/**
 * `take(schema)`: the schema becomes the program's `inputSchema` (the VM
 * validates args against it) and its properties become the parameters, as
 * `function f({ a, b = 1 })` would: a property with a `default` gets a
 * default pattern, so the default also applies when the arg is missing.
 */
export function takeSchema(st: State, s: unknown): State {
  try {
    const schema = schemaOf(s, 'take()')
    if (schema.type !== undefined && schema.type !== 'object') throw argError('take() needs an object schema (the run\'s args are one object)')
    const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
    if (!isPlainObject(props)) throw argError('take(): `properties` must be an object')
    const keys = Object.keys(props)
    for (const k of keys) checkName(k, 'take() property')
    const properties = keys.map((key) => {
      const p = props[key]
      const value: Pattern = isPlainObject(p) && 'default' in p
        ? { $pattern: 'default', target: key, default: jsonExpr(p.default as Json) }
        : key
      return { key, value }
    })
    const root: RootMeta = { ...st.root, inputSchema: schema }
    if (keys.length > 0) root.params = { $pattern: 'object', properties }
    else delete root.params
    return st.with({ root, names: addNames(st.names, keys) })
  } catch (e) {
    if (e instanceof BuilderError && e.path === undefined) throw new BuilderError(e.code, e.detail, { path: '/inputSchema', cause: e.cause })
    throw e
  }
}

export function metaOf(m: unknown): Partial<RootMeta> {
  if (!isPlainObject(m)) throw argError('meta({ name?, description?, outputSchema? })')
  checkKeys(m, ['name', 'description', 'outputSchema'], 'meta')
  const out: Partial<RootMeta> = {}
  if (m.name !== undefined) {
    if (typeof m.name !== 'string') throw argError('meta: name must be a string')
    out.name = m.name
  }
  if (m.description !== undefined) {
    if (typeof m.description !== 'string') throw argError('meta: description must be a string')
    out.description = m.description
  }
  if (m.outputSchema !== undefined) out.outputSchema = schemaOf(m.outputSchema, 'meta outputSchema')
  return out
}

/** The op of the innermost step on a JSON pointer path. */
function opAt(ast: unknown, path: string): string | undefined {
  let node: unknown = ast
  let op: string | undefined
  for (const seg of path.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') break
    node = (node as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')]
    if (isPlainObject(node) && typeof node.op === 'string' && !('$expr' in node)) op = node.op
  }
  return op
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
  }
  return v
}

const built = new WeakMap<State, AjsProgram>()

/** The validated, frozen "ajs/1" document of a builder (cached: builders are immutable). */
export function buildProgram(st: State): AjsProgram {
  const cached = built.get(st)
  if (cached) return cached
  const root = st.root ?? {}
  const ast: AjsProgram = {
    ajs: 1,
    op: 'seq',
    ...(root.name !== undefined ? { name: root.name } : {}),
    ...(root.description !== undefined ? { description: root.description } : {}),
    ...(root.params !== undefined ? { params: root.params } : {}),
    ...(root.inputSchema !== undefined ? { inputSchema: root.inputSchema } : {}),
    ...(root.outputSchema !== undefined ? { outputSchema: root.outputSchema } : {}),
    steps: structuredClone(st.steps) as Step[],
  }
  const problems = validateAst(ast, { atoms: st.reg.custom })
  if (problems.length > 0) {
    const first = problems[0]!
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    throw new BuilderError('BUILDER_INVALID_AST', `${first.message}${more}`, { path: first.path || '/', op: opAt(ast, first.path) })
  }
  built.set(st, deepFreeze(ast))
  return ast
}
