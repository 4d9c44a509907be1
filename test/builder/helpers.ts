/** Shared helpers of the builder tests. */
import { Agent } from '../../src/builder/index.ts'

/** A deep copy without `loc` and `file` (the transpiler's source positions). */
export function stripLoc(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripLoc)
  if (v === null || typeof v !== 'object') return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v).sort()) if (k !== 'loc' && k !== 'file') out[k] = stripLoc((v as Record<string, unknown>)[k])
  return out
}

/** Canonical JSON (sorted keys, no locations): structural identity, key order ignored. */
export const canon = (v: unknown): string => JSON.stringify(stripLoc(v))

/**
 * The root the transpiler makes for `function <name>({ a, b })` without
 * JSDoc: every parameter required, untyped.
 */
export function fn(name: string, ...params: string[]) {
  const properties = Object.fromEntries(params.map((p) => [p, {}]))
  const schema = params.length ? { type: 'object', properties, required: params } : { type: 'object', properties: {} }
  return Agent.take(schema).meta({ name })
}
