/**
 * The args check of a program, made once per program. The transpiler's
 * schemas are often just "an object with these keys" (no types known): that
 * shape is checked directly; anything richer goes to tosijs-schema, which
 * gives the same answer for the simple shape (key present, value anything).
 */
import { validate } from 'tosijs-schema'
import { schemaGuard } from './schema-guard.ts'

const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples'])

/** Only annotations: any value is valid. */
const isAnySchema = (s: unknown): boolean =>
  s !== null && typeof s === 'object' && !Array.isArray(s) && Object.keys(s).every((k) => ANNOTATIONS.has(k))

/**
 * The check of a program's args against its input schema. Patterns in the
 * schema are checked first (schema-guard.ts): REGEX_UNSAFE here, or
 * ARGS_INVALID from the check, before the host regex could run long.
 */
export function makeArgsCheck(schema: Record<string, unknown>): (value: unknown) => boolean {
  const guard = schemaGuard(schema)
  if (guard) return (value) => { guard(value); return validate(value as any, schema as any) }
  const props = schema.properties as Record<string, unknown> | undefined
  const required = schema.required as unknown
  const simple = schema.type === 'object'
    && Object.keys(schema).every((k) => k === 'type' || k === 'properties' || k === 'required' || ANNOTATIONS.has(k))
    && (props === undefined || (typeof props === 'object' && props !== null && Object.values(props).every(isAnySchema)))
    && (required === undefined || (Array.isArray(required) && required.every((k) => typeof k === 'string')))
  if (!simple) return (value) => validate(value as any, schema as any)
  const keys = (required as string[] | undefined) ?? []
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
    for (let i = 0; i < keys.length; i++) if (!Object.prototype.hasOwnProperty.call(value, keys[i]!)) return false
    return true
  }
}
