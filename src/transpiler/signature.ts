/**
 * The entry's signature and input JSON Schema, from its parameter pattern
 * and JSDoc.
 *
 * Types come from JSDoc `@param {type}` when present, else from default
 * values (`n = 3` is an integer, `xs = ['a']` an array of strings). A
 * parameter without a default is required. The VM validates run args
 * against `inputSchema` before running.
 */

import type { AssignmentProperty, Expression, Pattern as EsPattern, RestElement } from 'acorn'
import type { Json } from '../ast/types.ts'
import type { LowerContext } from './context.ts'
import type { JsDoc, JsDocParam } from './jsdoc.ts'

export type JsonSchema = Record<string, unknown>

/** One parameter of the entry. */
export interface ParamSignature {
  name: string
  required: boolean
  /** The default value, when it is a constant. */
  default?: Json
  /** Short type name: `string`, `integer`, `number`, `boolean`, `object`, `string[]`, `any`, ... */
  type: string
  schema: JsonSchema
  description?: string
}

export interface Signature {
  /** The entry function's name. */
  name: string
  description?: string
  /** `object`: one destructured object; `named`: named params bound from args fields; `none`: no params. */
  kind: 'object' | 'named' | 'none'
  params: ParamSignature[]
}

const NOT_CONST = Symbol('not constant')

/** The value of a constant default (`3`, `-1`, `'x'`, `[1, 2]`, `{ a: true }`), else NOT_CONST. */
export function constValue(node: Expression): Json | typeof NOT_CONST {
  switch (node.type) {
    case 'Literal':
      if ('regex' in node && node.regex) return NOT_CONST
      if (typeof node.value === 'bigint') return NOT_CONST
      return node.value as Json
    case 'UnaryExpression':
      if (node.operator === '-' && node.argument.type === 'Literal' && typeof node.argument.value === 'number') return -node.argument.value
      return NOT_CONST
    case 'TemplateLiteral':
      return node.expressions.length === 0 ? (node.quasis[0]!.value.cooked ?? NOT_CONST) : NOT_CONST
    case 'ArrayExpression': {
      const out: Json[] = []
      for (const el of node.elements) {
        if (!el || el.type === 'SpreadElement') return NOT_CONST
        const v = constValue(el)
        if (v === NOT_CONST) return NOT_CONST
        out.push(v)
      }
      return out
    }
    case 'ObjectExpression': {
      const out: Record<string, Json> = {}
      for (const p of node.properties) {
        if (p.type !== 'Property' || p.computed || p.kind !== 'init' || p.method) return NOT_CONST
        const key = p.key.type === 'Identifier' ? p.key.name : String((p.key as { value: unknown }).value)
        const v = constValue(p.value as Expression)
        if (v === NOT_CONST) return NOT_CONST
        out[key] = v
      }
      return out
    }
    default:
      return NOT_CONST
  }
}

/**
 * JSON Schema inferred from an example value. A `null` says nothing about
 * the type (`{ a = null }` means "optional, any value"), so it gives `{}`.
 */
export function inferSchema(value: Json): JsonSchema {
  if (value === null) return {}
  if (Array.isArray(value)) {
    if (value.length === 0) return { type: 'array' }
    const items = value.map(inferSchema)
    const types = new Set(items.map((s) => s.type))
    if (types.size === 1) return { type: 'array', items: items[0]! }
    if (types.size === 2 && types.has('integer') && types.has('number')) return { type: 'array', items: { type: 'number' } }
    return { type: 'array' }
  }
  switch (typeof value) {
    case 'string': return { type: 'string' }
    case 'boolean': return { type: 'boolean' }
    case 'number': return { type: Number.isInteger(value) ? 'integer' : 'number' }
    default: {
      const properties: Record<string, JsonSchema> = {}
      for (const [k, v] of Object.entries(value)) properties[k] = inferSchema(v)
      return { type: 'object', properties }
    }
  }
}

const SIMPLE: Record<string, string> = {
  string: 'string', number: 'number', integer: 'integer', int: 'integer', boolean: 'boolean', bool: 'boolean',
  object: 'object', null: 'null', array: 'array',
}

/** A JSDoc type expression as JSON Schema, or undefined when it is not understood. */
export function docTypeSchema(text: string): JsonSchema | undefined {
  const t = text.trim()
  if (t === '*' || t.toLowerCase() === 'any' || t === '') return {}
  if (t.endsWith('[]')) {
    const items = docTypeSchema(t.slice(0, -2))
    return items ? { type: 'array', items } : undefined
  }
  const generic = /^Array\s*<(.+)>$/i.exec(t)
  if (generic) {
    const items = docTypeSchema(generic[1]!)
    return items ? { type: 'array', items } : undefined
  }
  if (t.includes('|')) {
    const parts = t.split('|').map((p) => docTypeSchema(p.replace(/^\(|\)$/g, '')))
    if (parts.some((p) => !p || typeof p.type !== 'string' || Object.keys(p).length !== 1)) return undefined
    return { type: parts.map((p) => p!.type as string) }
  }
  const simple = SIMPLE[t.toLowerCase()]
  return simple ? { type: simple } : undefined
}

/** Short display name of a schema's type. */
export function typeName(schema: JsonSchema): string {
  const t = schema.type
  if (Array.isArray(t)) return t.join('|')
  if (t === 'array') return schema.items ? `${typeName(schema.items as JsonSchema)}[]` : 'array'
  return typeof t === 'string' ? t : 'any'
}

interface Field {
  schema: JsonSchema
  required: boolean
  default?: Json
}

class SchemaBuilder {
  readonly docs = new Map<string, JsDocParam>()
  readonly used = new Set<JsDocParam>()

  constructor(private ctx: LowerContext, doc: JsDoc | undefined, topNames: ReadonlySet<string>) {
    for (const p of doc?.params ?? []) {
      const parts = p.path.split('.')
      // `@param {object} input` + `@param {string} input.city`: the first segment names the whole object.
      if (parts.length > 1 && !topNames.has(parts[0]!)) parts.shift()
      else if (parts.length === 1 && !topNames.has(parts[0]!) && doc!.params.some((q) => q.path.startsWith(p.path + '.'))) {
        this.used.add(p)
        continue
      }
      this.docs.set(parts.join('.'), p)
    }
  }

  field(node: EsPattern, path: string): Field {
    const doc = this.docs.get(path)
    if (doc) this.used.add(doc)
    const docSchema = doc?.type !== undefined ? this.docType(doc) : undefined
    let field: Field
    switch (node.type) {
      case 'AssignmentPattern': {
        const inner = this.field(node.left, path)
        const value = constValue(node.right)
        field = { schema: inner.schema, required: false }
        if (value !== NOT_CONST) {
          field.default = value
          if (docSchema === undefined && Object.keys(inner.schema).length === 0) field.schema = inferSchema(value)
          field.schema = { ...field.schema, default: value }
        }
        break
      }
      case 'ObjectPattern':
        field = { schema: this.object(node.properties, path + '.'), required: true }
        break
      case 'ArrayPattern':
        field = { schema: { type: 'array' }, required: true }
        break
      default:
        field = { schema: {}, required: true }
    }
    if (docSchema) field.schema = { ...docSchema, ...(field.default !== undefined ? { default: field.default } : {}) }
    if (doc?.optional) field.required = false
    if (doc?.description) field.schema = { ...field.schema, description: doc.description }
    return field
  }

  object(properties: Array<AssignmentProperty | RestElement>, prefix: string): JsonSchema {
    const props: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const p of properties) {
      if (p.type === 'RestElement' || p.computed) continue
      const key = p.key.type === 'Identifier' ? p.key.name : String((p.key as { value: unknown }).value)
      const f = this.field(p.value, prefix + key)
      props[key] = f.schema
      if (f.required) required.push(key)
    }
    return required.length ? { type: 'object', properties: props, required } : { type: 'object', properties: props }
  }

  private docType(doc: JsDocParam): JsonSchema | undefined {
    const schema = docTypeSchema(doc.type!)
    if (!schema) {
      const pos = this.ctx.locator.position(doc.offset)
      this.ctx.warn('JSDOC_TYPE', [pos.line, pos.column], { type: doc.type, name: doc.path })
    }
    return schema
  }

  warnUnused(): void {
    for (const d of this.docs.values()) {
      if (this.used.has(d)) continue
      const pos = this.ctx.locator.position(d.offset)
      this.ctx.warn('JSDOC_PARAM', [pos.line, pos.column], { name: d.path })
    }
  }
}

/** The entry's named fields: `{ a, b = 1 }` or `(a, b = 1)`, as key + pattern. */
export type EntryFields = Array<{ key: string; value: EsPattern }>

export function buildSignature(
  name: string,
  kind: Signature['kind'],
  fields: EntryFields,
  doc: JsDoc | undefined,
  ctx: LowerContext,
): { signature: Signature; inputSchema: JsonSchema } {
  const builder = new SchemaBuilder(ctx, doc, new Set(fields.map((f) => f.key)))
  const params: ParamSignature[] = []
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const { key, value } of fields) {
    const f = builder.field(value, key)
    properties[key] = f.schema
    if (f.required) required.push(key)
    const p: ParamSignature = { name: key, required: f.required, type: typeName(f.schema), schema: f.schema }
    if (f.default !== undefined) p.default = f.default
    if (typeof f.schema.description === 'string') p.description = f.schema.description
    params.push(p)
  }
  builder.warnUnused()
  const inputSchema: JsonSchema = required.length ? { type: 'object', properties, required } : { type: 'object', properties }
  const signature: Signature = { name, kind, params }
  if (doc?.description) signature.description = doc.description
  return { signature, inputSchema }
}
