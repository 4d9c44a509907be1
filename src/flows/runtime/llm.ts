/**
 * Model calls of flows, through the run's `llm` capability.
 *
 * `askText` is a plain completion (SavedFlow `prompt` nodes).
 * `askStructured` asks for a JSON object with given fields (Block `llm`
 * blocks, and yes/no branch decisions): the fields become a JSON Schema sent
 * as `response_format`, the answer is parsed and checked, and a wrong answer
 * gets exactly one corrective retry that says what was wrong before the call
 * fails with `FLOW_LLM_OUTPUT`. A capability may answer `{ content, usage }`
 * instead of a string; the token counts then reach the step's events.
 */
import { VmError } from '../../vm/errors.ts'
import type { AtomContext } from '../../vm/atoms/types.ts'
import { FLOW_RUN_CODES, type FlowRunCode } from '../../diagnostics/flow-codes.ts'
import type { FlowEventSink, TokenUsage } from './events.ts'

/** A field of an input/output schema (Block flows; also built for decisions). */
export interface SchemaField {
  name: string
  type?: string
  description?: string
  required?: boolean
}

/** Field types and the JSON Schema each one means. */
export const FIELD_TYPES: Record<string, Record<string, unknown>> = {
  string: { type: 'string' }, str: { type: 'string' }, text: { type: 'string' },
  number: { type: 'number' }, float: { type: 'number' },
  integer: { type: 'integer' }, int: { type: 'integer' },
  boolean: { type: 'boolean' }, bool: { type: 'boolean' },
  list: { type: 'array' }, array: { type: 'array' },
  object: { type: 'object' }, dict: { type: 'object' },
  any: {},
}

export function flowError(code: FlowRunCode, message: string, extra: { op?: string; value?: unknown } = {}): VmError {
  const err = new VmError(code, message, extra)
  err.hint = FLOW_RUN_CODES[code].hint
  return err
}

export const sinkOf = (ctx: AtomContext): FlowEventSink | undefined => {
  const sink = ctx.capabilities['flowEvents']
  return sink && typeof sink === 'object' && typeof (sink as FlowEventSink).stepStarted === 'function' ? sink as FlowEventSink : undefined
}

/** Options passed through to `llm.predict` from a block's `config` (snake or camel case). */
const CONFIG_OPTIONS: Record<string, string> = {
  temperature: 'temperature', max_tokens: 'maxTokens', maxTokens: 'maxTokens', top_p: 'topP', topP: 'topP', seed: 'seed', stop: 'stop',
}

export interface AskOptions {
  step: string
  system?: string
  model?: string
  config?: Record<string, unknown>
  responseFormat?: Record<string, unknown>
}

function usageOf(raw: unknown): TokenUsage | undefined {
  const u = raw as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; prompt?: unknown; completion?: unknown; total?: unknown } | undefined
  if (!u || typeof u !== 'object') return undefined
  const num = (...xs: unknown[]) => { for (const x of xs) if (typeof x === 'number' && Number.isFinite(x)) return x; return 0 }
  const prompt = num(u.prompt_tokens, u.prompt)
  const completion = num(u.completion_tokens, u.completion)
  return { prompt, completion, total: num(u.total_tokens, u.total) || prompt + completion }
}

/** One `llm.predict` call; the answer text. */
export async function askText(ctx: AtomContext, prompt: string, options: AskOptions): Promise<string> {
  const llm = ctx.capabilities['llm'] as { predict?: (p: string, o: Record<string, unknown>) => Promise<unknown> } | undefined
  if (!llm || typeof llm.predict !== 'function') {
    throw new VmError('CAPABILITY_MISSING', `step "${options.step}" needs capabilities.llm.predict`, { op: ctx.op })
  }
  const callOptions: Record<string, unknown> = { signal: ctx.signal }
  for (const [key, value] of Object.entries(options.config ?? {})) {
    const name = CONFIG_OPTIONS[key]
    if (name && value !== undefined && value !== null) callOptions[name] = value
  }
  if (options.system) callOptions['system'] = options.system
  if (options.model) callOptions['model'] = options.model
  if (options.responseFormat) callOptions['responseFormat'] = options.responseFormat
  let answer: unknown
  try {
    answer = await llm.predict(prompt, callOptions)
  } catch (e) {
    if (e instanceof VmError) throw e
    const code = (e as { code?: unknown })?.code
    throw new VmError('CAPABILITY_ERROR', `step "${options.step}": llm.predict: ${typeof code === 'string' ? `[${code}] ` : ''}${(e as Error)?.message ?? String(e)}`, { op: ctx.op })
  }
  if (answer && typeof answer === 'object' && typeof (answer as { content?: unknown }).content === 'string') {
    const usage = usageOf((answer as { usage?: unknown }).usage)
    if (usage) sinkOf(ctx)?.addTokens(options.step, usage)
    return (answer as { content: string }).content
  }
  if (typeof answer !== 'string') throw new VmError('CAPABILITY_ERROR', `step "${options.step}": llm.predict answered ${answer === null ? 'null' : typeof answer}, not text`, { op: ctx.op })
  return answer
}

/** The JSON Schema of an object with these fields. */
export function fieldsSchema(fields: readonly SchemaField[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const f of fields) properties[f.name] = { ...(FIELD_TYPES[f.type ?? 'any'] ?? {}), ...(f.description ? { description: f.description } : {}) }
  return { type: 'object', properties, required: fields.filter((f) => f.required !== false).map((f) => f.name), additionalProperties: false }
}

const typeOk = (v: unknown, type: string | undefined): boolean => {
  switch (FIELD_TYPES[type ?? 'any']?.['type']) {
    case 'string': return typeof v === 'string'
    case 'number': return typeof v === 'number' && Number.isFinite(v)
    case 'integer': return Number.isInteger(v)
    case 'boolean': return typeof v === 'boolean'
    case 'array': return Array.isArray(v)
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v)
    default: return true
  }
}

/** Check a model's answer; the output dict (declared keys only) or what is wrong with it. */
export function checkStructured(text: string, fields: readonly SchemaField[]): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  const body = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text)?.[1] ?? text
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return { ok: false, reason: 'the answer is not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the answer is not a JSON object' }
  const out: Record<string, unknown> = {}
  for (const f of fields) {
    if (!Object.hasOwn(value, f.name)) {
      if (f.required === false) continue
      return { ok: false, reason: `field "${f.name}" is missing` }
    }
    const v = (value as Record<string, unknown>)[f.name]
    if (!typeOk(v, f.type)) return { ok: false, reason: `field "${f.name}" must be ${f.type}` }
    out[f.name] = v
  }
  return { ok: true, value: out }
}

const describeFields = (fields: readonly SchemaField[]) =>
  fields.map((f) => `- ${f.name}${f.type ? ` (${f.type})` : ''}${f.description ? `: ${f.description}` : ''}`).join('\n')

/** Ask for a JSON object with `fields`; one corrective retry, then FLOW_LLM_OUTPUT. */
export async function askStructured(ctx: AtomContext, prompt: string, fields: readonly SchemaField[], options: AskOptions): Promise<Record<string, unknown>> {
  const instruction = `Answer with only a JSON object with these fields:\n${describeFields(fields)}`
  const system = options.system ? `${options.system}\n\n${instruction}` : instruction
  const responseFormat = { type: 'json_schema', json_schema: { name: 'output', strict: true, schema: fieldsSchema(fields) } }
  const first = await askText(ctx, prompt, { ...options, system, responseFormat })
  const checked = checkStructured(first, fields)
  if (checked.ok) return checked.value
  ctx.charge(ATOM_LLM_COST)
  const retryPrompt = `${prompt}\n\nYour previous answer was:\n${first.slice(0, 2000)}\n\nIt was not valid: ${checked.reason}. ${instruction}`
  const second = await askText(ctx, retryPrompt, { ...options, system, responseFormat })
  const again = checkStructured(second, fields)
  if (again.ok) return again.value
  throw flowError('FLOW_LLM_OUTPUT', `step "${options.step}": the model's answer is not valid after one corrective retry: ${again.reason}`, { op: ctx.op, value: { answer: second.slice(0, 500) } })
}

/** Fuel of one model call (the same as the core `llmPredict` atom). */
export const ATOM_LLM_COST = 100
