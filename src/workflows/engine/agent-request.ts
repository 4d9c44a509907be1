/**
 * Answering an `agent` request with the `llm` capability: plain text, or
 * JSON validated against `options.schema` with one corrective retry. The
 * options a workflow may pass are picked by name; nothing else reaches the
 * endpoint.
 */
import { validate } from 'tosijs-schema'

/** The subset of `capabilities.llm` (createOpenAICompatibleLLM) the driver uses. */
export interface LlmLike {
  predict(prompt: string, options?: Record<string, unknown>): Promise<string>
}

const PASSED = ['system', 'model', 'temperature', 'maxTokens', 'topP', 'stop', 'seed'] as const

function schemaProblem(value: unknown, schema: Record<string, unknown>): string | null {
  let first: string | null = null
  const ok = validate(value as never, schema as never, (path: string, message: string) => { first ??= `${path}: ${message}` })
  return ok ? null : first ?? 'does not match the schema'
}

function parseJson(text: string): { value?: unknown; problem?: string } {
  // Models often wrap JSON in a code fence.
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text)
  try {
    return { value: JSON.parse(fenced ? fenced[1]! : text) }
  } catch (e) {
    return { problem: `not JSON (${(e as Error).message})` }
  }
}

/** Run one agent request: the text, or the validated JSON value. Throws with a clear message on failure. */
export async function answerAgent(llm: LlmLike, prompt: string, options: unknown, signal?: AbortSignal): Promise<unknown> {
  const o = (options !== null && typeof options === 'object' && !Array.isArray(options) ? options : {}) as Record<string, unknown>
  const call: Record<string, unknown> = {}
  for (const k of PASSED) if (o[k] !== undefined) call[k] = o[k]
  if (signal) call['signal'] = signal
  const schema = o['schema']
  if (schema === undefined || schema === null) return llm.predict(prompt, call)
  if (typeof schema !== 'object' || Array.isArray(schema)) throw new Error('options.schema must be a JSON Schema object')
  const asked = `${prompt}\n\nAnswer with only a JSON value matching this JSON Schema:\n${JSON.stringify(schema)}`
  let text = await llm.predict(asked, { ...call, responseFormat: 'json' })
  let parsed = parseJson(text)
  let problem = parsed.problem ?? schemaProblem(parsed.value, schema as Record<string, unknown>)
  if (problem === null) return parsed.value
  // One corrective retry, telling the model what was wrong.
  text = await llm.predict(`${asked}\n\nYour previous answer was invalid (${problem}):\n${text.slice(0, 2000)}\nAnswer again with only the corrected JSON.`, { ...call, responseFormat: 'json' })
  parsed = parseJson(text)
  problem = parsed.problem ?? schemaProblem(parsed.value, schema as Record<string, unknown>)
  if (problem === null) return parsed.value
  throw new Error(`the model's answer does not match options.schema after one corrective retry: ${problem}`)
}
