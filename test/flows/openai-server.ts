/**
 * A small OpenAI-compatible chat server on 127.0.0.1 (random port) for the
 * end-to-end flow tests. Structured-output requests (`response_format` with
 * a JSON schema) get an object with every schema property filled from the
 * prompt: strings echo the prompt's first line, integers count its words,
 * booleans say whether it contains "yes", lists split the first line on
 * commas. Plain requests get `echo: <prompt>`.
 */
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface OpenAIServer {
  baseUrl: string
  requests: Array<Record<string, unknown>>
  close(): Promise<void>
}

function answer(body: Record<string, unknown>): string {
  const messages = body['messages'] as Array<{ role: string; content: string }>
  const prompt = messages.at(-1)!.content
  const first = prompt.split('\n')[0]!
  const format = body['response_format'] as { json_schema?: { schema?: { properties?: Record<string, { type?: string }> } } } | undefined
  const props = format?.json_schema?.schema?.properties
  if (!props) return `echo: ${prompt}`
  const out: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(props)) {
    out[name] = schema.type === 'integer' || schema.type === 'number' ? first.split(/\s+/).length
      : schema.type === 'boolean' ? /yes/i.test(prompt)
        : schema.type === 'array' ? first.split(',').map((s) => s.trim())
          : first
  }
  return JSON.stringify(out)
}

export async function startOpenAIServer(): Promise<OpenAIServer> {
  const sockets = new Set<Socket>()
  const requests: OpenAIServer['requests'] = []
  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => { if (raw.length < 1_000_000) raw += c })
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>
      requests.push(body)
      res.writeHead(req.url === '/v1/chat/completions' ? 200 : 404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: answer(body) } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }))
    })
  })
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()) }),
  }
}
