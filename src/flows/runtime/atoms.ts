/**
 * The atoms compiled flows call. Both formats share them: step events,
 * model calls (text, structured, yes/no decisions), branch handles, loop
 * inputs and the flow-level errors. A VM runs a compiled flow when it has
 * these atoms (`flowAtoms`); `runFlow` sets that up.
 */
import { defineAtom } from '../../vm/atoms/define.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import { FLOW_RUN_CODES, type FlowRunCode } from '../../diagnostics/flow-codes.ts'
import { ATOM_LLM_COST, askStructured, askText, flowError, sinkOf, type SchemaField } from './llm.ts'
import { MAX_TEMPLATE_CHARS, renderTemplate } from './template.ts'

const obj = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required })
const str = { type: 'string' }
const any = {}

const flowStepStart = defineAtom('flowStepStart', obj({ step: str, kind: str, iteration: { type: 'integer' } }, ['step', 'kind']), undefined,
  ({ step, kind, iteration }: { step: string; kind: string; iteration?: number }, ctx) => { sinkOf(ctx)?.stepStarted(step, kind, ctx.now(), ctx.fuelLeft, iteration); return null },
  { cost: 0, sync: true, docs: 'Flow event: a step starts.' })

const flowStepEnd = defineAtom('flowStepEnd', obj({ step: str }, ['step']), undefined,
  ({ step }: { step: string }, ctx) => { sinkOf(ctx)?.stepCompleted(step, ctx.now(), ctx.fuelLeft); return null },
  { cost: 0, sync: true, docs: 'Flow event: a step completed.' })

const flowFail = defineAtom('flowFail', obj({ code: str, message: str }, ['code', 'message']), undefined,
  ({ code, message }: { code: string; message: string }) => {
    if (!Object.hasOwn(FLOW_RUN_CODES, code)) throw new TypeError(`flowFail: unknown code ${code}`)
    throw flowError(code as FlowRunCode, message)
  },
  { cost: 0, sync: true, docs: 'End the run with a flow error code.' })

/** The handle a branch follows: a string names it; anything else is its truthiness. */
export function handleOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null && typeof (value as { outcome?: unknown }).outcome === 'string') return (value as { outcome: string }).outcome
  return value ? 'true' : 'false'
}

const flowHandle = defineAtom('flowHandle', obj({ value: any }, []), str,
  ({ value }: { value?: unknown }) => handleOf(value), { cost: 0, sync: true, docs: 'The branch handle of a decision value.' })

interface PromptInput { step: string; prompt: string; persona?: string; history: Array<{ node: string; output: unknown }>; input?: unknown }

/** A SavedFlow prompt as the model sees it: the prompt, the run's input, the outputs before it. */
export function composePrompt(prompt: string, history: PromptInput['history'], input: unknown): string {
  const parts = [prompt]
  if (input && typeof input === 'object' && Object.keys(input).length > 0) parts.push(`Input of this run (JSON):\n${JSON.stringify(input)}`)
  if (history.length > 0) {
    parts.push(`Outputs of the previous steps:\n${history.map((h) => `[${h.node}]\n${typeof h.output === 'string' ? h.output : JSON.stringify(h.output)}`).join('\n\n')}`)
  }
  return parts.join('\n\n')
}

const flowPrompt = defineAtom('flowPrompt',
  obj({ step: str, prompt: str, persona: str, history: { type: 'array' }, input: any }, ['step', 'prompt', 'history']), str,
  (i: PromptInput, ctx) => askText(ctx, composePrompt(i.prompt, i.history, i.input), { step: i.step, ...(i.persona ? { system: i.persona } : {}) }),
  { cost: ATOM_LLM_COST, timeoutMs: 0, docs: 'A SavedFlow prompt node through capabilities.llm.' })

const flowDecide = defineAtom('flowDecide',
  obj({ step: str, question: str, persona: str, history: { type: 'array' }, input: any }, ['step', 'question', 'history']), str,
  async (i: Omit<PromptInput, 'prompt'> & { question: string }, ctx) => {
    const fields: SchemaField[] = [{ name: 'answer', type: 'boolean', description: 'true for yes, false for no' }]
    const prompt = composePrompt(`Answer yes or no: ${i.question}`, i.history, i.input)
    const out = await askStructured(ctx, prompt, fields, { step: i.step, ...(i.persona ? { system: i.persona } : {}) })
    return out['answer'] ? 'true' : 'false'
  },
  { cost: ATOM_LLM_COST, timeoutMs: 0, docs: 'A yes/no branch decision through capabilities.llm.' })

interface LlmBlockInput { step: string; prompt: string; input?: unknown; initial?: unknown; fields: SchemaField[]; model?: string; config?: Record<string, unknown> }

const flowLlm = defineAtom('flowLlm',
  obj({ step: str, prompt: str, input: any, initial: any, fields: { type: 'array' }, model: str, config: { type: 'object' } }, ['step', 'prompt', 'fields']),
  { type: 'object' },
  (i: LlmBlockInput, ctx) => {
    let prompt: string
    try {
      // Pay first: the filled length is known (and charged) before the prompt is built.
      prompt = renderTemplate(i.prompt, i.input, i.initial, (chars) => ctx.charge(chars * FUEL_PER_CHAR))
    } catch (e) {
      const err = flowError('FLOW_TEMPLATE', `step "${i.step}": ${(e as Error).message}`)
      if ((e as { tooLong?: number }).tooLong !== undefined) err.hint = `Shorten the template or the values it repeats: a filled template has at most ${MAX_TEMPLATE_CHARS} characters.`
      throw err
    }
    return askStructured(ctx, prompt, i.fields, { step: i.step, ...(i.model ? { model: i.model } : {}), ...(i.config ? { config: i.config } : {}) })
  },
  { cost: ATOM_LLM_COST, timeoutMs: 0, docs: 'A Block flow llm block: template, structured output, one corrective retry.' })

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The VM's rates: 0.00001 fuel per character and 0.0001 per value built. */
const FUEL_PER_CHAR = 0.00001
const FUEL_PER_VALUE = 0.0001
/** The most values a loop's per-item inputs may hold together (the membrane's copy cap). */
export const MAX_LOOP_VALUES = 1_000_000

/** Values in `v` (each container and each leaf counts one), counting no further than `cap`; iterative. */
function countValues(v: unknown, cap: number): number {
  let n = 0
  const stack: unknown[] = [v]
  while (stack.length > 0 && n <= cap) {
    const x = stack.pop()
    n++
    if (Array.isArray(x)) { for (const y of x) stack.push(y) } else if (isDict(x)) { for (const k in x) stack.push(x[k]) }
  }
  return n
}

const flowLoopItems = defineAtom('flowLoopItems', obj({ step: str, input: any, field: str }, ['step', 'field']), { type: 'array' },
  ({ step, input, field }: { step: string; input?: unknown; field: string }, ctx) => {
    const list = isDict(input) ? input[field] : undefined
    if (!Array.isArray(list)) {
      throw flowError('FLOW_LOOP_INPUT', `loop "${step}": its input ${isDict(input) ? `field "${field}" is ${list === undefined ? 'missing' : `not a list (${typeof list})`}` : 'is not a dict'}`)
    }
    const siblings = Object.fromEntries(Object.entries(input as Record<string, unknown>).filter(([k]) => k !== field))
    // Pay first (issue 23, class 4): every item's input repeats the siblings, so the result holds
    // items x (1 + the siblings' values) + the items' own values. Counted (up to the cap), charged, then built.
    const perItem = 1 + countValues(siblings, MAX_LOOP_VALUES)
    const total = list.length * perItem + countValues(list, MAX_LOOP_VALUES)
    if (total > MAX_LOOP_VALUES) {
      throw flowError('FLOW_LOOP_INPUT', `loop "${step}": its per-item inputs would hold over ${MAX_LOOP_VALUES} values (${list.length} items, each with the ${perItem - 1} values of the other input fields); pass the large fields another way`)
    }
    ctx.charge(total * FUEL_PER_VALUE)
    return list.map((item) => Object.fromEntries([...Object.entries(siblings), [field, item]]))
  },
  { cost: 0.1, sync: true, docs: 'Per-iteration inputs of a loop: { ...sibling_fields, [arrayField]: item }.' })

const flowCodeArgs = defineAtom('flowCodeArgs', obj({ step: str, input: any, initial: any, params: { type: 'array', items: str }, first: { type: 'boolean' } }, ['step']), { type: 'object' },
  ({ step, input, initial, params, first }: { step: string; input?: unknown; initial?: unknown; params?: string[]; first?: boolean }) => {
    // The contract's call site: _block(initial=<global input>, **pipeline_input).
    if (!isDict(input)) throw flowError('FLOW_BLOCK_INPUT', `code block "${step}": argument after ** must be a mapping, not ${Array.isArray(input) ? 'list' : input === null || input === undefined ? 'NoneType' : typeof input}`)
    if (Object.hasOwn(input, 'initial')) throw flowError('FLOW_BLOCK_INPUT', `code block "${step}": got multiple values for keyword argument 'initial'`)
    if (params) {
      // A binding error is a wiring mistake between steps, not an exception the block could catch.
      const from = first ? 'the global input' : 'the previous step'
      const extra = Object.keys(input).find((k) => !params.includes(k))
      const missing = params.find((p) => !Object.hasOwn(input, p))
      if (extra !== undefined || missing !== undefined) {
        const what = extra !== undefined ? `got an unexpected keyword argument '${extra}'` : `missing required argument '${missing}'`
        const e = flowError('FLOW_BLOCK_INPUT', `code block "${step}" takes (${params.join(', ')}) but ${from} has the keys (${Object.keys(input).join(', ')}): TypeError: _block() ${what}`)
        e.hint = first
          ? `A first code block receives the global input as keyword arguments: make its input_schema fields exactly the input's keys (${Object.keys(input).join(', ') || 'none'}), or pass only those keys.`
          : `Make the previous step output exactly the input_schema fields of "${step}" (each key is a keyword argument).`
        throw e
      }
    }
    return { ...input, initial: initial ?? {} }
  },
  { cost: 0, sync: true, docs: 'The keyword arguments of a code block: pipeline_input plus initial (checked against its parameters).' })

/** Every atom compiled flows call. */
export const flowAtoms: readonly AtomDef[] = Object.freeze([
  flowStepStart, flowStepEnd, flowFail, flowHandle, flowPrompt, flowDecide, flowLlm, flowLoopItems, flowCodeArgs,
])

export const FLOW_ATOM_NAMES: ReadonlySet<string> = new Set(flowAtoms.map((a) => a.op))
