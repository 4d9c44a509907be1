/**
 * Issue 29, item 3: a non-streaming JSON answer to a `stream: true` request is read (not taken as
 * empty), for both protocols; a turn that ran in Safe Mode says so in the exit code and the report.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ollamaStream, openaiStream } from '../../src/flowlang/runtime/protocols.ts'
import type { StreamDelta } from '../../src/flowlang/runtime/types.ts'
import { ajscAsync } from '../cli/run-cli.ts'
import { startFakeOpenAI } from './fake-llm.ts'
import { chainGraph, MCP_FIXTURE } from './helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'flowlang-newcomer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A server answering every POST with `body` (text) and `type` — never a stream. */
async function plain(body: (payload: any) => string, type = 'application/json'): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    let text = ''
    for await (const c of req) text += c
    res.writeHead(200, { 'content-type': type }).end(body(JSON.parse(text)))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as { port: number }).port
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok()) }) }
}

async function collect(gen: AsyncGenerator<StreamDelta>): Promise<StreamDelta[]> {
  const out: StreamDelta[] = []
  for await (const d of gen) out.push(d)
  return out
}
const request = (baseUrl: string) => ({ baseUrl, model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], signal: new AbortController().signal })

describe('3. a non-streaming answer is read', () => {
  test('OpenAI: one chat.completion JSON (text, tool calls, usage) gives the same deltas', async () => {
    const completion = {
      id: 'c', object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.', tool_calls: [{ id: 't1', type: 'function', function: { name: 'add', arguments: '{"a":2}' } }] }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    }
    const s = await plain(() => JSON.stringify(completion, null, 2))
    try {
      expect(await collect(openaiStream(request(`${s.url}/v1`)))).toEqual([
        { type: 'text', text: 'Hello.' },
        { type: 'tool_call', index: 0, id: 't1', name: 'add', argumentsText: '{"a":2}' },
        { type: 'usage', promptTokens: 3, completionTokens: 2 },
      ])
    } finally { await s.close() }
  })
  test('Ollama: a pretty-printed { message, done } JSON is read whole', async () => {
    const s = await plain(() => JSON.stringify({ model: 'm', message: { role: 'assistant', content: 'Hi there.' }, done: true, prompt_eval_count: 4, eval_count: 2 }, null, 2))
    try {
      expect(await collect(ollamaStream(request(s.url)))).toEqual([{ type: 'text', text: 'Hi there.' }, { type: 'usage', promptTokens: 4, completionTokens: 2 }])
    } finally { await s.close() }
  })
  test('a body that is neither a stream nor a completion is an error, not an empty answer', async () => {
    const s = await plain(() => '<html>gateway</html>', 'text/html')
    try {
      await expect(collect(openaiStream(request(`${s.url}/v1`)))).rejects.toThrow(/neither|not Server-Sent Events nor a JSON completion/)
      await expect(collect(ollamaStream(request(s.url)))).rejects.toThrow(/not NDJSON nor a JSON completion/)
    } finally { await s.close() }
    const empty = await plain(() => '')
    try {
      await expect(collect(openaiStream(request(`${empty.url}/v1`)))).rejects.toThrow('empty body')
    } finally { await empty.close() }
  })
  test('ajsc flowlang run against a non-streaming endpoint prints the answer', async () => {
    const s = await plain(() => JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Plain answer.' } }] }))
    try {
      const file = join(dir, 'plain.json')
      writeFileSync(file, JSON.stringify(chainGraph('protocol.openai', 'codec.mcp_over_functions', `${s.url}/v1`)))
      const r = await ajscAsync(['flowlang', 'run', file, '--json', '--prompt', 'hi', '--mcp', `"${process.execPath}" "${MCP_FIXTURE}"`])
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, answer: 'Plain answer.', mode: 'normal', safeMode: false })
      expect(r.code).toBe(0)
    } finally { await s.close() }
  })
})

describe('3. Safe Mode shows in the exit code and the report', () => {
  test('a broken flow answered by the baseline: exit 1 with FLOW6007 (the answer still on stdout); --allow-safe-mode exits 0', async () => {
    const llm = await startFakeOpenAI('none')
    try {
      const file = join(dir, 'broken.json')
      const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
      g.nodes.push({ id: 'z', type: 'codec.nope', options: {} })
      writeFileSync(file, JSON.stringify(g))
      const mcp = `"${process.execPath}" "${MCP_FIXTURE}"`
      const r = await ajscAsync(['flowlang', 'run', file, '--prompt', 'hi', '--mcp', mcp])
      expect(r.stdout).toBe('Hello.\n')
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('error FLOW6007: The turn ran in Safe Mode (the baseline, not your flow): the flow failed validation')
      const json = await ajscAsync(['flowlang', 'run', file, '--json', '--prompt', 'hi', '--mcp', mcp])
      const report = JSON.parse(json.stdout)
      expect(report).toMatchObject({ ok: false, exitCode: 1, mode: 'safe', safeMode: true, answer: 'Hello.' })
      expect(report.diagnostics.map((d: { code: string; severity: string }) => `${d.severity} ${d.code}`)).toContain('error FLOW6007')
      const allowed = await ajscAsync(['flowlang', 'run', file, '--allow-safe-mode', '--prompt', 'hi', '--mcp', mcp])
      expect(allowed.code).toBe(0)
      expect(allowed.stderr).toContain('warning FLOW6007')
    } finally { await llm.close() }
  })
})
