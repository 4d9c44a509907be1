/**
 * `compileBlockFlow`: a Block flow → an ajs/1 program, with the Block
 * Runtime Contract's data flow:
 *
 * - the program's args are the flow's global input (`initial`); the first
 *   step's `pipeline_input` is that input;
 * - `h` runs its children left to right, each getting the previous output;
 * - `v` runs its children concurrently (a `parallel` step) on the same input
 *   and merges `{ <block id>: output }` / `{ "<index>": output }` for nested
 *   containers;
 * - `loop` gives each iteration `{ ...sibling_fields, [arrayField]: item }`,
 *   runs its children in sequence on it, and outputs the list of results;
 * - `llm` blocks render their template and ask for a dict of their output
 *   fields (`flowLlm`), `passthrough` forwards, `code` blocks call the
 *   Python body compiled by the Python frontend (see ./code.ts).
 *
 * Every block and container reports step_started / step_completed.
 */
import { LIBRARIES } from '../../ast/libraries.ts'
import type { AjsProgram, Step } from '../../ast/types.ts'
import { FlowError, type FlowProblem } from '../problems.ts'
import { fieldsSchema } from '../runtime/llm.ts'
import { callAtom, exprStep, id, let_, lit, member, objectOf, ret, set } from '../runtime/ast.ts'
import type { Block, BlockFlow, Container, StepNode } from './model.ts'
import { parseBlockFlow } from './parse.ts'
import { compileCodeBlock, type CodeHelper } from './code.ts'
import { checkWiring } from './wiring.ts'

export interface CompileBlockFlowOptions {
  /** File name used in messages. */
  file?: string
}

interface Ctx {
  flow: BlockFlow
  counter: number
  functions: Record<string, CodeHelper>
  problems: FlowProblem[]
  /** Index variables of the loops being compiled, innermost last (events carry `iteration`). */
  loops: string[]
  /** Whether a code block was compiled (the program then declares the Python library). */
  usesPython?: boolean
}

const fresh = (c: Ctx, base: string) => `${base}${++c.counter}`

/** A step's body between its events, in its own block so the event fuel is the step's. */
function withEvents(c: Ctx, step: string, kind: string, body: Step[]): Step[] {
  const loop = c.loops.at(-1)
  return [
    exprStep(callAtom('flowStepStart', { step: lit(step), kind: lit(kind), ...(loop ? { iteration: id(loop) } : {}) })),
    { op: 'scope', steps: body } as Step,
    exprStep(callAtom('flowStepEnd', { step: lit(step) })),
  ]
}

function blockSteps(c: Ctx, stepId: string, block: Block, input: string, out: string): Step[] {
  switch (block.processor_type) {
    case 'passthrough':
      return [set(out, id(input))]
    case 'llm':
      return [set(out, callAtom('flowLlm', {
        step: lit(stepId), prompt: lit(block.prompt ?? block.content), input: id(input), initial: id('initial'),
        fields: lit(block.output_schema?.fields.map((f) => ({ name: f.name, ...(f.type ? { type: f.type } : {}), ...(f.description ? { description: f.description } : {}), ...(f.required === false ? { required: false } : {}) }))),
        ...(block.model ? { model: lit(block.model) } : {}),
        ...(block.config ? { config: lit(block.config) } : {}),
      }))]
    case 'code':
      return compileCodeBlock(c, stepId, block, input, out)
  }
}

/** Steps computing `out` from the variable `input`; returns the steps. */
function nodeSteps(c: Ctx, node: StepNode, input: string, out: string, pointer: string, childBase = `${pointer}/children`, implicit = false): Step[] {
  if (typeof node === 'string') {
    const block = c.flow.blocks[node]!
    return withEvents(c, node, block.processor_type, blockSteps(c, node, block, input, out))
  }
  const name = node.id ?? pointer
  const children = node.children
  // A root written as a list is a sequence the author did not name: no events of its own.
  const events = implicit ? (_step: string, _kind: string, body: Step[]) => body : (step: string, kind: string, body: Step[]) => withEvents(c, step, kind, body)
  const sequence = (from: string, to: string): Step[] => {
    const steps: Step[] = []
    let current = from
    children.forEach((child, i) => {
      const next = i === children.length - 1 ? to : fresh(c, 'o')
      if (next !== to) steps.push(let_({ [next]: lit(null) }))
      steps.push(...nodeSteps(c, child, current, next, `${childBase}/${i}`))
      current = next
    })
    return steps
  }
  if (node.type === 'h') return events(name, 'h', sequence(input, out))
  if (node.type === 'v') {
    const results = fresh(c, 'r')
    const branches = children.map((child, i) => {
      const branchOut = fresh(c, 'o')
      return [let_({ [branchOut]: lit(null) }), ...nodeSteps(c, child, input, branchOut, `${childBase}/${i}`), ret(id(branchOut))]
    })
    const merged = Object.fromEntries(children.map((child, i) => [typeof child === 'string' ? child : String(i), member(id(results), lit(i))]))
    return events(name, 'v', [
      { op: 'parallel', branches, result: results } as Step,
      set(out, objectOf(merged)),
    ])
  }
  const item = fresh(c, 'item')
  const itemOut = fresh(c, 'o')
  const index = fresh(c, 'i')
  c.loops.push(index)
  const body = sequence(item, itemOut)
  c.loops.pop()
  const map = { op: 'map', items: callAtom('flowLoopItems', { step: lit(name), input: id(input), field: lit((node as Container).arrayField) }), as: item, index, steps: [
    let_({ [itemOut]: lit(null) }),
    ...body,
    ret(id(itemOut)),
  ], result: out } as Step
  return events(name, 'loop', [map])
}

/** Compile a Block flow (parsed, or anything `parseBlockFlow` accepts); throws FlowError. */
export function compileBlockFlow(document: unknown, options: CompileBlockFlowOptions = {}): AjsProgram {
  const flow = parseBlockFlow(document, options)
  const c: Ctx = { flow, counter: 0, functions: {}, problems: [], loops: [] }
  const root = flow.steps
  const steps = typeof root === 'object' && !Array.isArray(root)
    ? nodeSteps(c, root, 'initial', 'output', '/steps')
    : nodeSteps(c, { type: 'h', children: Array.isArray(root) ? root : [root] }, 'initial', 'output', '/steps', '/steps', true)
  checkWiring(flow, c.problems)
  if (c.problems.length > 0) throw new FlowError(c.problems, options.file)
  const global = flow.global_input_schema
  return {
    ajs: 1,
    op: 'seq',
    libraries: c.usesPython ? { flow: LIBRARIES.flow.version, python: LIBRARIES.python.version } : { flow: LIBRARIES.flow.version },
    name: flow.name ?? 'flow',
    ...(flow.description ? { description: flow.description } : {}),
    params: 'initial',
    ...(global ? { inputSchema: { ...fieldsSchema(global.fields), additionalProperties: true } } : {}),
    ...(Object.keys(c.functions).length > 0 ? { functions: c.functions } : {}),
    steps: [let_({ output: lit(null) }), ...steps, ret(id('output'))],
  } as AjsProgram
}

export type { Ctx as BlockCompileContext }
