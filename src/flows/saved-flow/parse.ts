/**
 * Reading and writing SavedFlow v1 documents.
 *
 * `parseSavedFlow` accepts JSON text or an already parsed value, validates
 * it (throwing a `FlowError` with every problem, located in the text when
 * there is text) and returns a normalized copy: spec defaults applied
 * (`spec_version` "1", `enabled` false, `position` [0, 0], edge handles
 * null), vendor `node_type`s and every `data` payload verbatim, unknown keys
 * kept. `serializeSavedFlow` writes it back with the spec's key order first
 * and unknown keys after, so parse → serialize → parse is lossless.
 */
import { FlowError, locateProblems, parseJsonText } from '../problems.ts'
import { SHAPES, type SavedFlow, type ShapeName } from './model.ts'
import { validateSavedFlow } from './validate.ts'

export interface ParseFlowOptions {
  /** File name used in messages. */
  file?: string
}

/** A deep copy of JSON data, safe for any key (no `__proto__` setter is ever hit). */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyJson(v)])) as T
  }
  return value
}

/** Known fields in spec order (defaults applied), then unknown keys in their original order. */
function normalize(value: Record<string, unknown>, shape: ShapeName): Record<string, unknown> {
  const fields = SHAPES[shape]
  const entries: Array<[string, unknown]> = []
  for (const [key, rule] of Object.entries(fields)) {
    let v = value[key] === undefined ? rule.default?.() : value[key]
    if (rule.type === 'flow') v = normalize(v as Record<string, unknown>, 'definition')
    else if (rule.type === 'nodes') v = (v as Record<string, unknown>[]).map((n) => normalize(n, 'node'))
    else if (rule.type === 'edges') v = (v as Record<string, unknown>[]).map((e) => normalize(e, 'edge'))
    else v = copyJson(v)
    entries.push([key, v])
  }
  for (const [key, v] of Object.entries(value)) if (!Object.hasOwn(fields, key) && v !== undefined) entries.push([key, copyJson(v)])
  return Object.fromEntries(entries)
}

/** Parse and validate a SavedFlow v1 document; throws `FlowError` listing every problem. */
export function parseSavedFlow(textOrValue: unknown, options: ParseFlowOptions = {}): SavedFlow {
  const text = typeof textOrValue === 'string' ? textOrValue : undefined
  const value = text === undefined ? textOrValue : parseJsonText(text, options.file)
  const problems = validateSavedFlow(value)
  if (problems.length > 0) throw new FlowError(text === undefined ? problems : locateProblems(problems, text), options.file, text)
  return normalize(value as Record<string, unknown>, 'savedFlow') as SavedFlow
}

/** The normalized JSON text of a SavedFlow (2-space indent, trailing newline). */
export function serializeSavedFlow(flow: SavedFlow): string {
  const problems = validateSavedFlow(flow)
  if (problems.length > 0) throw new FlowError(problems)
  return `${JSON.stringify(normalize(flow as unknown as Record<string, unknown>, 'savedFlow'), null, 2)}\n`
}
