/**
 * Fake model servers on 127.0.0.1 (random port): an OpenAI-compatible
 * chat API streaming SSE and an Ollama chat API streaming NDJSON. Each asks
 * for the `add` tool (a=2, b=3) until the conversation holds a tool result,
 * then answers `The sum is <result>.` (format "none": `Hello.` at once) — in the tool-call format the test
 * picks: native `tool_calls`, `<tool_call>` text, or both at once ("mixed");
 * "silent" answers nothing until a message asks it to continue.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

export type ToolFormat = 'functions' | 'xml' | 'mixed' | 'none' | 'silent'

export interface FakeLlm {
  url: string
  requests: any[]
  close(): Promise<void>
}

const XML_CALL = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'

/** The tool result the conversation holds, if any. */
function toolResult(messages: any[]): string | undefined {
  const last = messages.at(-1)
  if (last?.role === 'tool') return String(last.content)
  const m = /<tool_response>\s*([\s\S]*?)\s*<\/tool_response>/.exec(String(last?.content ?? ''))
  return m?.[1]
}

async function body(req: IncomingMessage): Promise<any> {
  let text = ''
  for await (const chunk of req) text += chunk
  return JSON.parse(text)
}

function listen(server: Server): Promise<string> {
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number }
    ok(`http://127.0.0.1:${addr.port}`)
  }))
}

function closer(server: Server): () => Promise<void> {
  return () => new Promise((ok) => { server.closeAllConnections?.(); server.close(() => ok()) })
}

/** The native tool call a fake makes (default: add a=2 b=3). */
export interface FakeCall { name: string; arguments: Record<string, unknown> }

/** `failOn`: a request whose last user message matches gets HTTP 500 (a failed turn). */
export async function startFakeOpenAI(format: ToolFormat, options: { hang?: boolean; call?: FakeCall; failOn?: RegExp } = {}): Promise<FakeLlm> {
  const requests: any[] = []
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') { res.writeHead(404).end('not found'); return }
    const payload = await body(req)
    requests.push(payload)
    const lastUser = [...payload.messages].reverse().find((m: any) => m.role === 'user')
    if (options.failOn?.test(String(lastUser?.content))) { res.writeHead(500, { 'content-type': 'text/plain' }).end('model crashed'); return }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    if (options.hang) { res.write(': waiting\n\n'); return }
    const send = (delta: unknown, extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`)
    send({ role: 'assistant' })
    const result = toolResult(payload.messages)
    if (format === 'silent') {
      // Says nothing until nudged.
      if (/continue/i.test(String(payload.messages.at(-1)?.content))) send({ content: 'Hello.' })
    } else if (result !== undefined || format === 'none') {
      for (const piece of result === undefined ? ['Hel', 'lo.'] : ['The sum ', 'is ', `${result}.`]) send({ content: piece })
    } else {
      if (format === 'xml' || format === 'mixed') for (const piece of ['I will add.\n', XML_CALL.slice(0, 20), XML_CALL.slice(20)]) send({ content: piece })
      if (format === 'functions' || format === 'mixed') {
        const args = JSON.stringify(options.call?.arguments ?? { a: 2, b: 3 })
        send({ tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: options.call?.name ?? 'add', arguments: '' } }] })
        send({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 9) } }] })
        send({ tool_calls: [{ index: 0, function: { arguments: args.slice(9) } }] })
      }
    }
    res.write(`data: ${JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } })}\n\n`)
    res.end('data: [DONE]\n\n')
  })
  const url = await listen(server)
  return { url: `${url}/v1`, requests, close: closer(server) }
}

export async function startFakeOllama(format: ToolFormat): Promise<FakeLlm> {
  const requests: any[] = []
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/api/chat') { res.writeHead(404).end('not found'); return }
    const payload = await body(req)
    requests.push(payload)
    res.writeHead(200, { 'content-type': 'application/x-ndjson' })
    const line = (message: Record<string, unknown>, done = false, extra: Record<string, unknown> = {}) =>
      res.write(`${JSON.stringify({ model: payload.model, created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content: '', ...message }, done, ...extra })}\n`)
    const result = toolResult(payload.messages)
    if (result !== undefined || format === 'none') {
      for (const piece of result === undefined ? ['Hel', 'lo.'] : ['The sum ', 'is ', `${result}.`]) line({ content: piece })
    } else {
      if (format === 'xml' || format === 'mixed') for (const piece of ['I will add.\n', XML_CALL]) line({ content: piece })
      if (format === 'functions' || format === 'mixed') line({ tool_calls: [{ function: { name: 'add', arguments: { a: 2, b: 3 } } }] })
    }
    line({}, true, { done_reason: 'stop', prompt_eval_count: 10, eval_count: 5 })
    res.end()
  })
  const url = await listen(server)
  return { url, requests, close: closer(server) }
}
