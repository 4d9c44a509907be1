import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createOpenAICompatibleLLM } from '../../src/capabilities/llm.ts'
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.ts'

let fake: FakeOpenAI
beforeAll(async () => { fake = await startFakeOpenAI() })
afterAll(async () => { await fake.close() })

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as { code: string }).code
  }
  throw new Error('expected a rejection')
}

const llm = (extra: Record<string, unknown> = {}) => createOpenAICompatibleLLM({ baseUrl: fake.baseUrl, model: 'echo-model', ...extra })

describe('createOpenAICompatibleLLM', () => {
  test('predict returns the assistant message text', async () => {
    expect(await llm().predict('Hi')).toBe('user:Hi')
  })

  test('system prompt and options are sent in the OpenAI format', async () => {
    const out = await llm({ apiKey: 'sk-test' }).predict('Q', { system: 'Be brief', temperature: 0.2, maxTokens: 50, topP: 0.9, stop: ['\n'], seed: 7 })
    expect(out).toBe('system:Be brief|user:Q')
    const req = fake.requests.at(-1)!
    expect(req.path).toBe('/v1/chat/completions')
    expect(req.headers['authorization']).toBe('Bearer sk-test')
    expect(req.body).toMatchObject({ model: 'echo-model', temperature: 0.2, max_tokens: 50, top_p: 0.9, stop: ['\n'], seed: 7 })
  })

  test('null options are ignored and responseFormat json maps to json_object', async () => {
    await llm().predict('Q', { system: null, temperature: undefined, responseFormat: 'json' } as never)
    expect(fake.requests.at(-1)!.body['response_format']).toEqual({ type: 'json_object' })
    expect(fake.requests.at(-1)!.body['temperature']).toBeUndefined()
  })

  test('the per-call model overrides the default', async () => {
    expect(await codeOf(llm().predict('Q', { model: 'error-model' }))).toBe('LLM_HTTP')
  })

  test('an error status carries the server message', async () => {
    try {
      await llm({ model: 'error-model' }).predict('Q')
      throw new Error('unreachable')
    } catch (e) {
      expect((e as { code: string }).code).toBe('LLM_HTTP')
      expect((e as Error).message).toContain('model does not exist')
    }
  })

  test.each([
    ['html-error', 'LLM_HTTP'],
    ['no-choices', 'LLM_BAD_RESPONSE'],
    ['not-json', 'LLM_BAD_RESPONSE'],
  ])('model %s → %s', async (model, code) => {
    expect(await codeOf(llm({ model }).predict('Q'))).toBe(code)
  })

  test('maxBytes limits the answer', async () => {
    expect(await codeOf(llm({ model: 'huge', maxBytes: 10_000 }).predict('Q'))).toBe('LLM_TOO_LARGE')
  })

  test('timeoutMs gives LLM_TIMEOUT', async () => {
    expect(await codeOf(llm({ model: 'slow', timeoutMs: 50 }).predict('Q'))).toBe('LLM_TIMEOUT')
  })

  test('the caller signal gives LLM_ABORTED', async () => {
    const controller = new AbortController()
    const p = llm({ model: 'slow' }).predict('Q', { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    expect(await codeOf(p)).toBe('LLM_ABORTED')
    expect(await codeOf(llm().predict('Q', { signal: AbortSignal.abort() }))).toBe('LLM_ABORTED')
  })

  test('an unreachable endpoint is LLM_NETWORK', async () => {
    // A port that was just closed refuses connections: no outside traffic.
    const gone = await startFakeOpenAI()
    await gone.close()
    expect(await codeOf(createOpenAICompatibleLLM({ baseUrl: gone.baseUrl, model: 'm' }).predict('Q'))).toBe('LLM_NETWORK')
  })

  test.each([
    ['', {}],
    [42, {}],
    ['Q', { temperature: 5 }],
    ['Q', { maxTokens: 1.5 }],
    ['Q', { tools: [] }],
    ['Q', { system: 3 }],
    ['Q', { responseFormat: 'xml' }],
  ])('bad input %p %j is refused before any request', async (prompt, options) => {
    const before = fake.requests.length
    expect(['LLM_BAD_PROMPT', 'LLM_BAD_OPTIONS']).toContain(await codeOf(llm().predict(prompt as never, options as never)))
    expect(fake.requests.length).toBe(before)
  })

  test('embed returns vectors in input order', async () => {
    const cap = llm({ embeddingModel: 'embed-model' })
    expect(await cap.embed('abc')).toEqual([3, 0])
    expect(await cap.embed(['a', 'bb'])).toEqual([[1, 0], [2, 1]])
    expect(fake.requests.at(-1)!.body['model']).toBe('embed-model')
  })

  test.each([
    [{}],
    [{ baseUrl: 'not a url', model: 'm' }],
    [{ baseUrl: 'ftp://x/v1', model: 'm' }],
    [{ baseUrl: 'http://x/v1' }],
    [{ baseUrl: 'http://x/v1', model: 'm', timeout: 5 }],
  ])('bad options %j → LLM_OPTIONS', (options) => {
    expect(() => createOpenAICompatibleLLM(options as never)).toThrow(expect.objectContaining({ code: 'LLM_OPTIONS' }))
  })
})
