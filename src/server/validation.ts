/**
 * A request the route's JSON schema refuses, said in the request's terms: which field
 * (`body.argz`, `query.limit`, `params.id`), what is wrong with it (`must be a number, got
 * "10"`, `needs "spec"`), for an unknown field the known one it was probably meant to be
 * (the words of every key check: host/unknown-key.ts), and a hint quoting the field's
 * description and where the whole schema is. Fastify hands its ajv errors over as
 * `error.validation` (ajv runs with `verbose`, so each error carries the schema it broke and
 * the value that broke it) and where they were found as `error.validationContext`.
 */
import { unknownKeyMessage } from '../host/unknown-key.ts'
import { HttpError } from './errors.ts'
import { openApiPath } from './body.ts'

/** One ajv error as fastify passes it, with ajv's `verbose` members. */
export interface SchemaError {
  keyword: string
  instancePath: string
  schemaPath: string
  params: Record<string, unknown>
  message?: string
  schema?: unknown
  parentSchema?: SchemaNode
  data?: unknown
}

interface SchemaNode {
  type?: string | string[]
  description?: string
  title?: string
  properties?: Record<string, unknown>
  patternProperties?: Record<string, { title?: string }>
}

/** fastify's validationContext, as a client names that part of the request. */
const PARTS: Record<string, string> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' }

/** Whose schema the hint points at. */
const WHOSE: Record<string, string> = { body: 'the body\'s', query: 'the query string\'s', params: 'the path parameters\'', headers: 'the headers\'' }

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A member of the field at `path`: `.fuel`, `[0]`, `["a b"]` (a query's or headers' keys as they are: `query.attr.team`). */
const member = (path: string, key: string): string =>
  /^(0|[1-9][0-9]*)$/.test(key) ? `${path}[${key}]` : IDENTIFIER.test(key) || path === 'query' || path === 'headers' ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/** `body` + `/options/fuel` → `body.options.fuel` (ajv's instancePath is a JSON pointer). */
export function fieldPath(part: string, instancePath: string): string {
  if (instancePath === '') return part
  return instancePath.slice(1).split('/').reduce((path, raw) => member(path, raw.replace(/~1/g, '/').replace(/~0/g, '~')), part)
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number', integer: 'a whole number', string: 'a string', boolean: 'true or false', object: 'an object', array: 'an array', null: 'null',
}
/** ajv's `type` params of some errors (`number,string` for a list) → `a number or a string`. */
const typeWords = (errors: readonly SchemaError[]): string =>
  errors.flatMap((e) => String(e.params['type']).split(',')).map((t) => TYPE_WORDS[t] ?? t).join(' or ')

/** A value as a message shows it: scalars as JSON (long strings cut), containers by kind. */
export function shown(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (Array.isArray(v)) return 'an array'
  if (v !== null && typeof v === 'object') return 'an object'
  const text = JSON.stringify(v)
  return text.length > 60 ? `${text.slice(0, 57)}..."` : text
}

const quoted = (names: readonly unknown[]): string => names.map((n) => JSON.stringify(n)).join(', ')

/** The names an object schema knows: its properties, and its patterns by their titles (`attr.<name>`). */
function knownNames(schema: SchemaNode | undefined): string[] {
  const names = Object.keys(schema?.properties ?? {})
  for (const [pattern, s] of Object.entries(schema?.patternProperties ?? {})) names.push(s.title ?? `/${pattern}/`)
  return names
}

interface Found { path: string; message: string; /** The schema of the field, for its description. */ field?: SchemaNode }

/** The field one ajv error is about, and what is wrong with it. */
function problem(e: SchemaError, part: string): Found {
  const where = fieldPath(part, e.instancePath)
  if (e.keyword === 'additionalProperties') {
    const key = String(e.params['additionalProperty'])
    const names = knownNames(e.parentSchema)
    const path = member(where, key)
    return { path, message: names.length === 0 ? `${path}: unknown key (${where} takes none)` : `${path}: ${unknownKeyMessage(key, names)}` }
  }
  if (e.keyword === 'required') {
    const key = String(e.params['missingProperty'])
    return { path: member(where, key), message: `${where} needs ${JSON.stringify(key)}`, field: e.parentSchema?.properties?.[key] as SchemaNode | undefined }
  }
  return { path: where, message: wrong(e, where), field: e.parentSchema }
}

/** What is wrong with the value at `where`, for one ajv error. */
function wrong(e: SchemaError, where: string): string {
  const got = `, got ${shown(e.data)}`
  switch (e.keyword) {
    case 'type': return `${where} must be ${typeWords([e])}${got}`
    case 'enum': return `${where} must be one of ${quoted(e.params['allowedValues'] as unknown[])}${got}`
    case 'const': return `${where} must be ${JSON.stringify(e.params['allowedValue'])}${got}`
    case 'minProperties':
      if (e.params['limit'] === 1) return `${where} needs at least one of ${quoted(knownNames(e.parentSchema))}`
      return `${where} ${e.message}`
    case 'maxLength': case 'minLength': return `${where} ${e.message}, got ${typeof e.data === 'string' ? e.data.length : '?'}`
    case 'maxItems': case 'minItems': return `${where} ${e.message}, got ${Array.isArray(e.data) ? e.data.length : '?'}`
    case 'maxProperties': return `${where} ${e.message}, got ${e.data && typeof e.data === 'object' ? Object.keys(e.data).length : '?'}`
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': case 'multipleOf': case 'pattern': case 'format':
      return `${where} ${e.message}${got}`
    default: return `${where} ${e.message ?? `breaks the schema's ${e.keyword}`}`
  }
}

/**
 * The error to report of those ajv gave. It stops at the first failing keyword, but an anyOf or
 * oneOf lists each branch's errors before its own: branches that are all type errors at the same
 * place are merged (`must be a number or a string`), others are joined (`matches none of its
 * forms: …; or …`).
 */
function report(errors: readonly SchemaError[], part: string): Found {
  const last = errors[errors.length - 1]!
  const where = fieldPath(part, last.instancePath)
  if ((last.keyword === 'anyOf' || last.keyword === 'oneOf') && errors.length > 1) {
    const branches = errors.slice(0, -1).filter((e) => e.schemaPath.startsWith(last.schemaPath + '/'))
    if (branches.length > 0 && branches.every((e) => e.keyword === 'type' && e.instancePath === last.instancePath)) {
      return { path: where, message: `${where} must be ${typeWords(branches)}, got ${shown(last.data)}`, field: last.parentSchema }
    }
    if (branches.length > 0) return { path: where, message: `${where} matches none of its forms: ${branches.map((e) => problem(e, part).message).join('; or ')}`, field: last.parentSchema }
  }
  return problem(errors[0]!, part)
}

/** The 400 BAD_REQUEST for a schema refusal of `part` ('body', 'querystring', ...) of a request to `method url`. */
export function schemaRefusal(errors: readonly SchemaError[], context: string | undefined, route: { method: string; url?: string }): HttpError {
  const part = PARTS[context ?? 'body'] ?? context ?? 'body'
  const { path, message, field } = report(errors, part)
  const about = field?.description ? `${path}: ${field.description.replace(/\.$/, '')}. ` : ''
  const whose = WHOSE[part] ?? `the ${part}'`
  const schema = route.url ? `${whose} schema: ${route.method} ${openApiPath(route.url)} in GET /openapi.json` : `${whose} schema in GET /openapi.json`
  return new HttpError('BAD_REQUEST', `Invalid request: ${message}`, { hint: `${about}See ${schema}.`, details: [{ path, message }] })
}
