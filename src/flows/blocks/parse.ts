/**
 * Reading and writing Block flow documents. `parseBlockFlow` validates
 * (throwing `FlowError` with every problem, located in the text when given
 * text) and returns a normalized copy; `serializeBlockFlow` writes known
 * keys in a fixed order (KEY_ORDER) and unknown keys after them, verbatim.
 * The only rewrite is `array_field` → `arrayField`, so parse → serialize →
 * parse is lossless.
 */
import { FlowError, locateProblems, parseJsonText } from '../problems.ts'
import { copyJson, type ParseFlowOptions } from '../saved-flow/parse.ts'
import { KEY_ORDER, type BlockFlow } from './model.ts'
import { validateBlockFlow } from './validate.ts'

type Obj = Record<string, unknown>

function ordered(value: Obj, order: readonly string[], map: (key: string, v: unknown) => unknown = (_k, v) => copyJson(v)): Obj {
  const entries: Array<[string, unknown]> = []
  for (const key of order) if (value[key] !== undefined) entries.push([key, map(key, value[key])])
  for (const [key, v] of Object.entries(value)) if (!order.includes(key) && v !== undefined) entries.push([key, copyJson(v)])
  return Object.fromEntries(entries)
}

const schemaNode = (v: unknown) => ordered(v as Obj, KEY_ORDER.schema, (_k, fields) => (fields as Obj[]).map((f) => ordered(f, KEY_ORDER.field)))

function stepNode(node: unknown): unknown {
  if (typeof node === 'string') return node
  const c = { ...(node as Obj) }
  if (c['arrayField'] === undefined && c['array_field'] !== undefined) c['arrayField'] = c['array_field']
  delete c['array_field']
  return ordered(c, KEY_ORDER.container, (k, v) => k === 'children' ? (v as unknown[]).map(stepNode) : copyJson(v))
}

function normalize(flow: Obj): BlockFlow {
  return ordered(flow, KEY_ORDER.flow, (key, v) => {
    if (key === 'global_input_schema') return schemaNode(v)
    if (key === 'steps') return Array.isArray(v) ? v.map(stepNode) : stepNode(v)
    if (key === 'blocks') {
      return Object.fromEntries(Object.entries(v as Obj).map(([id, b]) => [id, ordered(b as Obj, KEY_ORDER.block, (k, x) =>
        k === 'input_schema' || k === 'output_schema' ? schemaNode(x) : copyJson(x))]))
    }
    return copyJson(v)
  }) as BlockFlow
}

/** Parse and validate a Block flow; throws `FlowError` listing every problem. */
export function parseBlockFlow(textOrValue: unknown, options: ParseFlowOptions = {}): BlockFlow {
  const text = typeof textOrValue === 'string' ? textOrValue : undefined
  const value = text === undefined ? textOrValue : parseJsonText(text, options.file)
  const problems = validateBlockFlow(value)
  if (problems.length > 0) throw new FlowError(text === undefined ? problems : locateProblems(problems, text), options.file, text)
  return normalize(value as Obj)
}

/** The normalized JSON text of a Block flow (2-space indent, trailing newline). */
export function serializeBlockFlow(flow: BlockFlow): string {
  const problems = validateBlockFlow(flow)
  if (problems.length > 0) throw new FlowError(problems)
  return `${JSON.stringify(normalize(flow as unknown as Obj), null, 2)}\n`
}
