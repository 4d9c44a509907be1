/**
 * A scripted `llm` capability for flow tests: every call is recorded
 * (prompt and options without the signal) and answered by `answer`, which
 * may return text or `{ content, usage }` (token reporting).
 */
export interface LlmCall { prompt: string; options: Record<string, unknown> }
export type Answer = string | { content: string; usage?: Record<string, number> }

export function fakeLLM(answer: (prompt: string, options: Record<string, unknown>, call: number) => Answer | Promise<Answer>) {
  const calls: LlmCall[] = []
  return {
    calls,
    async predict(prompt: string, options: Record<string, unknown> = {}): Promise<Answer> {
      const { signal: _signal, ...rest } = options
      calls.push({ prompt, options: rest })
      return answer(prompt, rest, calls.length)
    },
  }
}

/** Answers structured-output calls with `values[field]` for every requested field (JSON), text calls with `text`. */
export function jsonLLM(values: (prompt: string) => Record<string, unknown>, text = 'ok') {
  return fakeLLM((prompt, options) => options['responseFormat'] ? JSON.stringify(values(prompt)) : text)
}
