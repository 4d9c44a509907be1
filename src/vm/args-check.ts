/**
 * The args check of a program, made once per program, and the checks of host
 * atoms' input and output schemas. What the transpiler writes for plain
 * parameters (an object with these keys, the types of defaults) and many
 * atoms' schemas (`{ type: 'object' }`, `s.object({ n: s.number })`) are
 * checked here (`compile`), with tosijs-schema's answers and messages, and
 * need no validator; anything richer (`enum`, `pattern`, `items`, bounds, ...)
 * goes to tosijs-schema, the opt-in part `ajs-lang/vm/schema`
 * (schema-hook.ts), or is refused without it.
 */
import { schemaGuard } from './schema-guard.ts'
import { schemaValidator } from './schema-hook.ts'

const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples'])
const KEYWORDS = new Set([...ANNOTATIONS, 'type', 'properties', 'required', 'additionalProperties', 'items'])
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** A problem: where (`a.b`, '' for the value itself) and what, as tosijs-schema words it. */
type Problem = [path: string, message: string]
type Check = (value: unknown) => Problem | undefined

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const any: Check = () => undefined

/**
 * The check of schema `u` when it keeps to the keywords the transpiler and `s.object` write for
 * plain data (`type`, one type or one and `'null'`; `properties`; `required`; `items`, one schema;
 * `additionalProperties` true or false, neither of which tosijs-schema enforces; annotations),
 * else null: the validator's job. The answer and the first message are tosijs-schema's
 * (test/vm/args-check.test.ts compares them), except that a `required` key must be the value's
 * own, a schema of annotations only (or `additionalProperties: true`) accepts any value,
 * non-finite numbers too, as before, and every item of an array is checked, where tosijs-schema
 * samples 97 of a longer one.
 */
function compile(u: unknown): Check | null {
  if (!isObj(u)) return null
  const keys = Object.keys(u)
  if (keys.every((k) => ANNOTATIONS.has(k))) return any
  if (!keys.every((k) => KEYWORDS.has(k) && (k !== 'additionalProperties' || typeof u[k] === 'boolean'))) return null
  const t = u.type
  if (t !== undefined && !(typeof t === 'string' ? TYPES.has(t) : Array.isArray(t) && TYPES.has(t[0]) && t.every((x, i) => i === 0 || x === 'null'))) return null
  const c = (Array.isArray(t) ? t[0] : t) as string | undefined
  const nullable = Array.isArray(t) && t.includes('null')
  const required = u.required ?? []
  if (!Array.isArray(required) || !required.every((k) => typeof k === 'string')) return null
  const props: Array<[string, Check]> = []
  if (u.properties !== undefined) {
    if (!isObj(u.properties)) return null
    for (const k of Object.keys(u.properties)) {
      const p = compile(u.properties[k])
      if (!p) return null
      if (p !== any) props.push([k, p])
    }
  }
  const items = u.items === undefined ? any : compile(u.items)
  if (!items) return null
  return (w) => {
    if (w === null) return t === 'null' || nullable || c === undefined ? undefined : ['', 'Expected value, got null']
    if (w === undefined) return nullable || c === undefined ? undefined : ['', 'Expected value, got undefined']
    if (c === 'integer') { if (typeof w !== 'number' || !Number.isInteger(w)) return ['', 'Expected integer'] }
    else if (c === 'array') { if (!Array.isArray(w)) return ['', 'Expected array'] }
    else if (c === 'object') { if (typeof w !== 'object' || Array.isArray(w)) return ['', 'Expected object'] }
    else if (c !== undefined && typeof w !== c) return ['', `Expected ${c}`]
    if (typeof w === 'number' && !Number.isFinite(w)) return ['', 'Expected finite number']
    if (c === 'array') {
      for (let i = 0; items !== any && i < (w as unknown[]).length; i++) {
        const p = items((w as unknown[])[i])
        if (p) return [p[0] ? `${i}.${p[0]}` : String(i), p[1]]
      }
      return undefined
    }
    if (c !== 'object') return undefined
    for (let i = 0; i < required.length; i++) if (!Object.hasOwn(w, required[i])) return ['', `Missing ${required[i]}`]
    for (let i = 0; i < props.length; i++) {
      const [k, check] = props[i]!
      const p = k in (w as object) ? check((w as Record<string, unknown>)[k]) : undefined
      if (p) return [p[0] ? `${k}.${p[0]}` : k, p[1]]
    }
    return undefined
  }
}

/** A problem as the args' path and what is wrong: `args.a.b: Expected integer`. */
const problem = (path: string, message: string): string => `${path === '' || path === 'root' ? 'args' : `args.${path}`}: ${message}`

/** A check: the first problem (`args.a: Expected integer`), or undefined when the value matches. */
export type SchemaCheck = (value: unknown) => string | undefined

/**
 * The check of a program's args against its input schema. Patterns in the
 * schema are checked first (schema-guard.ts): REGEX_UNSAFE here, or
 * ARGS_INVALID from the check, before the host regex could run long. A schema
 * `compile` does not take, on a VM without the schema part: FEATURE_MISSING
 * here, so nothing is cached and importing the part later runs the program.
 */
export function makeArgsCheck(schema: Record<string, unknown>): SchemaCheck {
  return makeCheck(schema, schemaGuard(schema), 'args')
}

/** Each host atom schema's check, made on the first call (a host's schemas are trusted: no pattern guard). */
const atomChecks = new WeakMap<object, SchemaCheck>()

/** The check of atom `op`'s input or output against its schema (FEATURE_MISSING, never cached, as above). */
export function atomSchemaCheck(schema: Record<string, unknown>, what: 'input' | 'output', op: string): SchemaCheck {
  let check = atomChecks.get(schema)
  if (!check) atomChecks.set(schema, (check = makeCheck(schema, null, what, op)))
  return check
}

function makeCheck(schema: Record<string, unknown>, guard: ((value: unknown) => void) | null, what: 'args' | 'input' | 'output', op?: string): SchemaCheck {
  const own = guard ? null : compile(schema)
  if (own) return (value) => { const p = own(value); return p && problem(p[0], p[1]) }
  const validate = schemaValidator(what, op)
  return (value) => {
    guard?.(value)
    let first: string | undefined
    const ok = validate(value, schema, (path, message) => { first ??= problem(path, message) })
    return ok ? undefined : first ?? "see the program's inputSchema"
  }
}
