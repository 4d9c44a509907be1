/**
 * describeAtoms: the atoms a VM offers as TypeScript declarations with doc
 * comments (for a model's prompt), or as JSON tool descriptions. JSON Schema
 * becomes TypeScript types: objects (optional fields with `?`), arrays and
 * tuples, unions (`anyOf`/`oneOf`, type lists), enums and consts, `allOf`
 * as an intersection, local `$ref`s inlined (a cycle is `unknown`);
 * descriptions, defaults and bounds become doc comments.
 */
import type { JsonSchema } from '../vm/atoms/types.ts'

/** What describeAtoms reads of an atom (an AtomDef has it). */
export interface DescribableAtom {
  op: string
  docs?: string
  inputSchema?: JsonSchema
  outputSchema?: JsonSchema
  fields?: Record<string, { kind: string; optional?: boolean }>
  effects?: 'pure' | 'io'
  expression?: boolean
}

export type AtomsLike = Readonly<Record<string, unknown>> | readonly unknown[] | ReadonlyMap<string, unknown>

export interface DescribeOptions {
  format?: 'typescript' | 'json'
  /** Only these atoms (by name). */
  only?: readonly string[]
  /** Tag each declaration with `@effects io` (default true). */
  effects?: boolean
}

/** The atoms of a table, list or map, in order, that programs can call as `name({ ... })`. */
export function atomList(atoms: AtomsLike): DescribableAtom[] {
  const values = atoms instanceof Map ? [...atoms.values()] : Array.isArray(atoms) ? atoms : Object.values(atoms)
  return (values as unknown[]).filter((a): a is DescribableAtom => !!a && typeof a === 'object' && typeof (a as DescribableAtom).op === 'string')
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k))

interface Ctx { root: JsonSchema; seen: Set<string>; depth: number; budget: { left: number } }

/**
 * Schema nodes and characters of text one type may be written from. A tool's schema (an MCP
 * server's) may share `$ref`s under wide `anyOf`s: written out in full, 14 levels of 50 were a
 * 125 MB type in 10 s. Past the budget the rest of the type is `unknown`.
 */
export const SCHEMA_TS_BUDGET = 50_000

function resolveRef(ref: string, ctx: Ctx): JsonSchema | undefined {
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = ctx.root
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return node && typeof node === 'object' ? (node as JsonSchema) : undefined
}

/** The doc comment lines of a schema: description, bounds, format, default. */
function docOf(s: JsonSchema): string[] {
  const parts: string[] = []
  if (typeof s.description === 'string' && s.description.trim()) parts.push(s.description.trim())
  const tags: string[] = []
  for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'format']) {
    if (s[k] !== undefined && typeof s[k] !== 'object') tags.push(`@${k} ${String(s[k])}`)
  }
  if (s.default !== undefined) tags.push(`@default ${JSON.stringify(s.default)}`)
  if (tags.length) parts.push(tags.join(' '))
  return parts
}

function comment(lines: string[], indent: string): string {
  const text = lines.join(' ').replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim()
  return text ? `${indent}/** ${text} */\n` : ''
}

/** `text`, its length taken from the budget. */
const spend = (c: Ctx, text: string): string => {
  c.budget.left -= text.length
  return text
}

const paren = (t: string) => (/[|&]/.test(t) && !/^\{[\s\S]*\}$/.test(t) ? `(${t})` : t)
const union = (ts: string[]) => { const u = [...new Set(ts)]; return u.includes('unknown') ? 'unknown' : u.join(' | ') }

/** A JSON Schema as a TypeScript type; `indent` is the indentation of the line the type starts on. */
export function schemaToTs(schema: unknown, indent = '', ctx?: Ctx): string {
  if (schema === true || schema === undefined) return 'unknown'
  if (schema === false) return 'never'
  if (!schema || typeof schema !== 'object') return 'unknown'
  const s = schema as JsonSchema
  const c: Ctx = ctx ?? { root: s, seen: new Set(), depth: 0, budget: { left: SCHEMA_TS_BUDGET } }
  if (c.depth > 12 || --c.budget.left < 0) return 'unknown'
  const inner = (x: unknown, ind = indent) => schemaToTs(x, ind, { ...c, depth: c.depth + 1 })
  if (typeof s.$ref === 'string') {
    if (c.seen.has(s.$ref)) return 'unknown'
    const target = resolveRef(s.$ref, c)
    if (!target) return 'unknown'
    return schemaToTs(target, indent, { ...c, seen: new Set([...c.seen, s.$ref]), depth: c.depth + 1 })
  }
  if ('const' in s) return spend(c, JSON.stringify(s.const) ?? 'unknown')
  if (Array.isArray(s.enum)) return s.enum.length ? spend(c, union(s.enum.map((v) => JSON.stringify(v)))) : 'never'
  const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined
  if (Array.isArray(alts)) return union(alts.map((a) => paren(inner(a))))
  if (Array.isArray(s.allOf)) return s.allOf.map((a) => paren(inner(a))).join(' & ') || 'unknown'
  const type = s.type
  if (Array.isArray(type)) return union(type.map((t) => paren(inner({ ...s, type: t }))))
  switch (type) {
    case 'string': return 'string'
    case 'number': case 'integer': return 'number'
    case 'boolean': return 'boolean'
    case 'null': return 'null'
    case 'array': {
      const tuple = (s.prefixItems ?? (Array.isArray(s.items) ? s.items : undefined)) as unknown[] | undefined
      if (tuple) return `[${tuple.map((t) => inner(t)).join(', ')}]`
      return `${paren(inner(s.items))}[]`
    }
    case 'object': return objectType(s, indent, c)
    default:
      if (s.properties || s.additionalProperties) return objectType(s, indent, c)
      if (s.items) return inner({ ...s, type: 'array' })
      return 'unknown'
  }
}

function objectType(s: JsonSchema, indent: string, c: Ctx): string {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((s.required as string[] | undefined) ?? [])
  const names = Object.keys(props)
  const extra = s.additionalProperties
  const inner = (x: unknown, ind: string) => schemaToTs(x, ind, { ...c, depth: c.depth + 1 })
  if (names.length === 0) {
    if (extra && typeof extra === 'object') return `Record<string, ${inner(extra, indent)}>`
    return extra === false ? '{}' : 'Record<string, unknown>'
  }
  const documented = names.some((n) => docOf(props[n] ?? {}).length > 0)
  const sub = `${indent}  `
  const members = names.map((n) => {
    const p = props[n] ?? {}
    const opt = required.has(n) ? '' : '?'
    const doc = docOf(p)
    c.budget.left -= n.length + doc.reduce((sum, d) => sum + d.length, 0)
    return { doc, text: `${key(n)}${opt}: ${inner(p, documented ? sub : indent)}` }
  })
  if (extra && typeof extra === 'object') members.push({ doc: [], text: `[key: string]: ${inner(extra, documented ? sub : indent)}` })
  const inline = `{ ${members.map((m) => m.text).join('; ')} }`
  if (!documented && inline.length + indent.length <= 100) return inline
  return `{\n${members.map((m) => `${comment(m.doc, sub)}${sub}${m.text}`).join('\n')}\n${indent}}`
}

/** The input type of an atom: its input schema, else its value fields (each `unknown`). */
function inputType(a: DescribableAtom): string | undefined {
  if (a.inputSchema) return schemaToTs(a.inputSchema)
  const fields = Object.entries(a.fields ?? {})
  if (fields.some(([, f]) => f.kind !== 'value')) return undefined
  if (fields.length === 0) return '{}'
  return `{ ${fields.map(([n, f]) => `${key(n)}${f.optional ? '?' : ''}: unknown`).join('; ')} }`
}

function declaration(a: DescribableAtom, options: DescribeOptions): string | undefined {
  if (a.expression === false || !IDENT.test(a.op)) return undefined
  const input = inputType(a)
  if (input === undefined) return undefined
  const doc: string[] = []
  if (a.docs) doc.push(a.docs.trim())
  if (options.effects !== false && a.effects) doc.push(`@effects ${a.effects}`)
  const oneLine = doc.join(' ')
  const head = doc.length === 0 ? '' : !oneLine.includes('\n') && oneLine.length <= 100
    ? `/** ${oneLine.replace(/\*\//g, '*\\/')} */\n`
    : `/**\n${doc.flatMap((d) => d.split('\n')).map((l) => ` * ${l.replace(/\*\//g, '*\\/')}`).join('\n')}\n */\n`
  const optionalInput = a.inputSchema ? !((a.inputSchema.required as unknown[] | undefined)?.length) : !Object.values(a.fields ?? {}).some((f) => !f.optional)
  return `${head}declare function ${a.op}(input${optionalInput ? '?' : ''}: ${input}): ${schemaToTs(a.outputSchema)}`
}

/**
 * The atoms as TypeScript declarations (default) or as JSON tool
 * descriptions (`[{ name, description, effects, inputSchema, outputSchema }]`).
 * Atoms that a program cannot call as `name({ ... })` (statement ops such
 * as `if`, vendor-namespaced names) are left out.
 */
export function describeAtoms(atoms: AtomsLike, options: DescribeOptions = {}): string {
  const format = options.format ?? 'typescript'
  if (format !== 'typescript' && format !== 'json') throw new TypeError(`describeAtoms: unknown format ${JSON.stringify(format)} (typescript or json)`)
  let list = atomList(atoms)
  if (options.only) { const only = new Set(options.only); list = list.filter((a) => only.has(a.op)) }
  if (format === 'json') {
    return JSON.stringify(list.filter((a) => a.expression !== false && IDENT.test(a.op) && inputType(a) !== undefined).map((a) => ({
      name: a.op,
      ...(a.docs ? { description: a.docs } : {}),
      ...(a.effects ? { effects: a.effects } : {}),
      inputSchema: a.inputSchema ?? { type: 'object', properties: Object.fromEntries(Object.keys(a.fields ?? {}).map((k) => [k, {}])) },
      ...(a.outputSchema ? { outputSchema: a.outputSchema } : {}),
    })), null, 2)
  }
  return list.map((a) => declaration(a, options)).filter((d): d is string => d !== undefined).join('\n\n') + '\n'
}
