/** Battery atoms against a local fake OpenAI-compatible server on 127.0.0.1. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentVM, createMemoryStore } from '../../src/index.ts'
import { batteryAtoms, createBatteryLLM, BATTERY_ATOM_NAMES } from '../../src/batteries/index.ts'

const requests: Array<{ path: string; body: any }> = []
let server: http.Server
let baseUrl: string

/** Embeddings: [count of 'a', count of 'b', length]; chat: echoes, or calls a tool when tools are offered. */
function fakeEmbedding(text: string): number[] {
  return [text.split('a').length - 1, text.split('b').length - 1, 1]
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => { raw += c })
    req.on('end', () => {
      const body = JSON.parse(raw || '{}')
      requests.push({ path: req.url ?? '', body })
      if (body.model !== 'broken') res.writeHead(200, { 'content-type': 'application/json' })
      if (req.url === '/v1/embeddings') {
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input]
        res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: fakeEmbedding(t) })) }))
      } else if (body.model === 'broken') {
        res.writeHead(500)
        res.end(JSON.stringify({ error: { message: 'model crashed' } }))
      } else if (body.tools) {
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: body.tools[0].function.name, arguments: '{"city":"Lisbon"}' } }] } }] }))
      } else {
        const last = body.messages.at(-1)
        const text = typeof last.content === 'string' ? last.content : last.content.map((p: any) => p.type === 'text' ? p.text : `<img ${p.image_url.url}>`).join(' ')
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: `echo: ${text}` } }] }))
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => { server.closeAllConnections(); server.close() })

const setup = () => ({
  vm: new AgentVM(batteryAtoms),
  capabilities: { llm: createBatteryLLM({ baseUrl, model: 'fake' }), store: createMemoryStore() },
})

describe('batteries', () => {
  test('exports the six atoms', () => {
    expect(batteryAtoms.map((a) => a.op)).toEqual([...BATTERY_ATOM_NAMES])
  })

  test('llmPredictBattery: system + user -> chat message', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f({ q }) { return llmPredictBattery({ system: 'be brief', user: q, responseFormat: 'json', temperature: 0 }) }`, { q: 'hello' }, { capabilities })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ role: 'assistant', content: 'echo: hello' })
    const sent = requests.at(-1)!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.body).toMatchObject({ model: 'fake', temperature: 0, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello' }] })
  })

  test('llmPredictBattery with tools returns tool calls (tools from vm.getTools())', async () => {
    const { vm, capabilities } = setup()
    const tools = [{ type: 'function', function: { name: 'weather', description: 'weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const r = await vm.run(`function f({ tools }) {
      const msg = llmPredictBattery({ user: 'weather?', tools })
      return { name: msg.tool_calls[0].function.name, args: JSON.parse(msg.tool_calls[0].function.arguments) }
    }`, { tools }, { capabilities })
    expect(r.result).toEqual({ name: 'weather', args: { city: 'Lisbon' } })
    expect(requests.at(-1)!.body.tools).toEqual(tools)
  })

  test('llmPredictBattery falls back to predict on the kit LLM, and refuses tools there', async () => {
    const vm = new AgentVM(batteryAtoms)
    const llm = { predict: async (p: string, o: { system?: string }) => `${o.system}|${p}` }
    const ok = await vm.run(`function f() { return llmPredictBattery({ system: 's', user: 'u' }) }`, {}, { capabilities: { llm } })
    expect(ok.result).toEqual({ role: 'assistant', content: 's|u' })
    const refused = await vm.run(`function f() { return llmPredictBattery({ user: 'u', tools: [{}] }) }`, {}, { capabilities: { llm } })
    expect(refused.error?.message).toContain('capabilities.llm.chat')
  })

  test('llmVision sends image parts', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f() { return llmVision({ prompt: 'what is this?', images: ['data:image/png;base64,AAAA'] }) }`, {}, { capabilities })
    expect(r.result).toEqual({ role: 'assistant', content: 'echo: what is this? <img data:image/png;base64,AAAA>' })
    expect(requests.at(-1)!.body.messages[0].content[1]).toEqual({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } })
    const bad = await vm.run(`function f() { return llmVision({ prompt: 'x', images: ['file:///etc/passwd'] }) }`, {}, { capabilities })
    expect(bad.error?.message).toContain('LLM_BAD_PROMPT')
  })

  test('storeVectorize embeds one text or many', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f() { return { one: storeVectorize({ text: 'aab' }), many: storeVectorize({ text: ['a', 'bb'] }) } }`, {}, { capabilities })
    expect(r.result).toEqual({ one: [2, 1, 1], many: [[1, 0, 1], [0, 2, 1]] })
  })

  test('collections: create, add (vector or text), search by text or vector with a filter', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f() {
      storeCreateCollection({ collection: 'docs', dimensions: 3 })
      storeVectorAdd({ collection: 'docs', id: 'apples', text: 'aaaa', meta: { kind: 'fruit' } })
      storeVectorAdd({ collection: 'docs', id: 'bees', text: 'bbbb', meta: { kind: 'animal' } })
      storeVectorAdd({ collection: 'docs', id: 'raw', vector: [1, 1, 1], meta: { kind: 'fruit' } })
      const byText = storeSearch({ collection: 'docs', query: 'aaa', k: 2 })
      const filtered = storeSearch({ collection: 'docs', vector: [0, 1, 0], k: 5, filter: { kind: 'fruit' } })
      return { byText: byText.map((h) => h.id), top: byText[0].meta, filtered: filtered.map((h) => h.id) }
    }`, {}, { capabilities })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ byText: ['apples', 'raw'], top: { text: 'aaaa', kind: 'fruit' }, filtered: ['raw', 'apples'] })
  })

  test('a collection with fixed dimensions refuses other sizes', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f() {
      storeCreateCollection({ collection: 'c', dimensions: 2 })
      storeVectorAdd({ collection: 'c', id: 'x', vector: [1, 2, 3] })
      return {}
    }`, {}, { capabilities })
    expect(r.error?.message).toContain('has 2 dimensions, the vector has 3')
  })

  test('errors: endpoint failure, missing capability, bad collection name', async () => {
    const vm = new AgentVM(batteryAtoms)
    const broken = await vm.run(`function f() { return llmPredictBattery({ user: 'x', model: 'broken' }) }`, {}, { capabilities: { llm: createBatteryLLM({ baseUrl, model: 'fake' }) } })
    expect(broken.error?.message).toContain('LLM_HTTP')
    expect(broken.error?.message).toContain('model crashed')
    const missing = await vm.run(`function f() { return storeSearch({ collection: 'c', query: 'x' }) }`, {}, {})
    expect(missing.error?.message).toContain('needs capabilities.llm.embed')
    const name = await vm.run(`function f() { return storeCreateCollection({ collection: 'a:b' }) }`, {}, { capabilities: { store: createMemoryStore() } })
    expect(name.error?.message).toContain('collection must be')
  })

  test('battery calls are metered and cancelled with the run', async () => {
    const { vm, capabilities } = setup()
    const r = await vm.run(`function f() { return llmPredictBattery({ user: 'x' }) }`, {}, { capabilities })
    expect(r.fuelUsed).toBeGreaterThanOrEqual(100)
    const controller = new AbortController()
    controller.abort()
    const aborted = await vm.run(`function f() { return llmPredictBattery({ user: 'x' }) }`, {}, { capabilities, signal: controller.signal })
    expect(aborted.error?.code).toBe('ABORTED')
  })
})
