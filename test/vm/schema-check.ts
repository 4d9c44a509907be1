/**
 * A tiny JSON Schema checker for exactly the subset schema/ajs-1.json uses:
 * $ref (local #/$defs), type, const, enum, not, anyOf, oneOf, properties,
 * required, additionalProperties, propertyNames, items, minItems, maxItems,
 * pattern, minimum. Returns the first failing instance path, or null.
 */
type Schema = boolean | Record<string, any>

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v

function typeMatches(want: string, v: unknown): boolean {
  const t = typeOf(v)
  return want === t || (want === 'number' && t === 'integer')
}

const KNOWN = new Set(['$schema', '$id', '$defs', '$ref', 'title', 'description', 'type', 'const', 'enum', 'not', 'anyOf', 'oneOf',
  'properties', 'required', 'additionalProperties', 'propertyNames', 'items', 'minItems', 'maxItems', 'pattern', 'minimum'])

export function checkSchema(root: Record<string, any>, value: unknown): string | null {
  const resolve = (r: string) => {
    const m = /^#\/\$defs\/(.+)$/.exec(r)
    if (!m || !(m[1]! in root.$defs)) throw new Error(`unresolvable $ref ${r}`)
    return root.$defs[m[1]!]
  }
  const check = (s: Schema, v: unknown, path: string): string | null => {
    if (s === true) return null
    if (s === false) return path || '/'
    for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`schema keyword ${k} not supported by the checker`)
    if (s.$ref) { const e = check(resolve(s.$ref), v, path); if (e !== null) return e }
    if (s.type !== undefined) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type]
      if (!types.some((t) => typeMatches(t, v))) return path || '/'
    }
    if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(v)) return path || '/'
    if (s.enum && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v))) return path || '/'
    if (s.not && check(s.not, v, path) === null) return path || '/'
    if (s.anyOf && !s.anyOf.some((x: Schema) => check(x, v, path) === null)) return path || '/'
    if (s.oneOf) {
      const ok = s.oneOf.filter((x: Schema) => check(x, v, path) === null).length
      if (ok !== 1) {
        // report the deepest failure of the best-matching alternative for readability
        return path || '/'
      }
    }
    if (typeof v === 'string') {
      if (s.pattern && !new RegExp(s.pattern).test(v)) return path || '/'
    }
    if (typeof v === 'number' && s.minimum !== undefined && v < s.minimum) return path || '/'
    if (Array.isArray(v)) {
      if (s.minItems !== undefined && v.length < s.minItems) return path || '/'
      if (s.maxItems !== undefined && v.length > s.maxItems) return path || '/'
      if (s.items !== undefined) for (let i = 0; i < v.length; i++) { const e = check(s.items, v[i], `${path}/${i}`); if (e !== null) return e }
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      for (const r of s.required ?? []) if (!(r in o)) return `${path}/${r}`
      for (const [k, x] of Object.entries(o)) {
        if (s.propertyNames) { const e = check(s.propertyNames, k, `${path}/${k}`); if (e !== null) return e }
        if (s.properties && k in s.properties) { const e = check(s.properties[k], x, `${path}/${k}`); if (e !== null) return e }
        else if (s.additionalProperties !== undefined) { const e = check(s.additionalProperties, x, `${path}/${k}`); if (e !== null) return e }
      }
    }
    return null
  }
  return check(root, value, '')
}
