/**
 * Static wiring of a Block flow: which keys reach each `code` block.
 *
 * A code block is called `_block(initial=…, **pipeline_input)`, so the keys
 * it receives must be exactly its `input_schema` fields. Where the pipeline
 * input is known before the run — the flow's `global_input_schema` for the
 * first step, an `llm` block's `output_schema`, a `v` container's merged
 * ids, the list a `loop` outputs — a mismatch is a compile-time problem
 * (`BlockInputMismatch`), so `validate`, `compile` and `run` refuse it alike,
 * instead of a Python `TypeError` in production. Where it is not known (after
 * a code block, whose dict is only known at run), nothing is claimed.
 */
import { problem, type FlowProblem } from '../problems.ts'
import type { BlockFlow, StepNode } from './model.ts'

/** What a step receives: known keys (and where they come from), a list, or unknown. */
type Shape = { fields: readonly string[]; from: string } | { list: string } | undefined

const pointer = (id: string) => `/blocks/${id.replaceAll('~', '~0').replaceAll('/', '~1')}`
const names = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(', ')

export function checkWiring(flow: BlockFlow, problems: FlowProblem[]): void {
  const global = flow.global_input_schema
  const start: Shape = global ? { fields: global.fields.map((f) => f.name), from: 'the global input (global_input_schema)' } : undefined
  const root = flow.steps
  walk(typeof root === 'object' && !Array.isArray(root) ? root : { type: 'h', children: Array.isArray(root) ? root : [root] }, start)

  function walk(node: StepNode, input: Shape): Shape {
    if (typeof node === 'string') return leaf(node, input)
    if (node.type === 'h') return node.children.reduce<Shape>((shape, child) => walk(child, shape), input)
    if (node.type === 'v') {
      node.children.forEach((child) => walk(child, input))
      return { fields: node.children.map((c, i) => typeof c === 'string' ? c : String(i)), from: `the ${node.id ? `"${node.id}" ` : ''}v container (one key per child)` }
    }
    // A loop gives each iteration { ...siblings, [arrayField]: item }: the same keys as its input.
    const item: Shape = input && 'fields' in input ? { fields: input.fields, from: `an iteration of loop ${node.id ? `"${node.id}"` : ''} (${input.from}, one item)` } : undefined
    node.children.reduce<Shape>((shape, child) => walk(child, shape), item)
    return { list: `loop ${node.id ? `"${node.id}"` : ''}`.trim() }
  }

  function leaf(id: string, input: Shape): Shape {
    const block = flow.blocks[id]
    if (!block) return undefined
    if (block.processor_type === 'passthrough') return input
    if (block.processor_type === 'llm') {
      const fields = block.output_schema?.fields
      return fields ? { fields: fields.map((f) => f.name), from: `llm block "${id}" (its output_schema)` } : undefined
    }
    const params = block.input_schema?.fields.map((f) => f.name) ?? []
    const at = `${pointer(id)}/input_schema`
    if (input && 'list' in input) {
      problems.push(problem('BlockInputMismatch', at,
        `code block "${id}" receives the list that ${input.list} outputs, but a code block is called with keyword arguments (**pipeline_input needs a dict)`,
        'put an llm block (or a code block in a container) between the loop and this block that turns the list into a dict, e.g. { "items": [...] }'))
    } else if (input) {
      const taken = new Set(params)
      const given = new Set(input.fields)
      const extra = input.fields.filter((f) => !taken.has(f))
      const missing = params.filter((p) => !given.has(p))
      if (extra.length > 0 || missing.length > 0) {
        const parts = [
          ...(extra.length > 0 ? [`gets ${names(extra)} that it does not take (TypeError: _block() got an unexpected keyword argument '${extra[0]}')`] : []),
          ...(missing.length > 0 ? [`does not get ${names(missing)} that it takes (TypeError: _block() missing required argument '${missing[0]}')`] : []),
        ]
        problems.push(problem('BlockInputMismatch', at,
          `code block "${id}" takes (${params.join(', ')}) but receives the keys of ${input.from}: it ${parts.join(' and ')}`,
          `make the input_schema fields of "${id}" exactly ${input.fields.length > 0 ? names(input.fields) : 'none'} (each key arrives as a keyword argument; the global input is also there as \`initial\`), or change what the previous step outputs`))
      }
    }
    return undefined
  }
}
