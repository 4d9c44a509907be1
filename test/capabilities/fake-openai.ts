/**
 * A fake OpenAI-compatible server on 127.0.0.1 for the LLM capability tests.
 * It records every request; the model name picks the behaviour, so one
 * server covers success, errors, bad answers and a model that never answers.
 */

import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface FakeOpenAI {
  baseUrl: string
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>
  close(): Promise<void>
}

function send(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(typeof value === 'string' ? value : JSON.stringify(value))
}

/** Behaviour by model name. */
const MODELS: Record<string, (res: http.ServerResponse, body: Record<string, unknown>) => void> = {
  'echo-model': (res, body) => {
    const messages = body['messages'] as Array<{ role: string; content: string }>
    const text = messages.map((m) => `${m.role}:${m.content}`).join('|')
    send(res, 200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text } }] })
  },
  'error-model': (res) => send(res, 400, { error: { message: 'model does not exist', type: 'invalid_request_error' } }),
  'html-error': (res) => { res.writeHead(502, { 'content-type': 'text/html' }); res.end('<h1>bad gateway</h1>') },
  'no-choices': (res) => send(res, 200, { choices: [] }),
  'not-json': (res) => { res.writeHead(200); res.end('hello') },
  'huge': (res) => send(res, 200, { choices: [{ message: { content: 'x'.repeat(100_000) } }] }),
  'slow': () => { /* never answers */ },
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const sockets = new Set<Socket>()
  const requests: FakeOpenAI['requests'] = []
  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => { if (raw.length < 1_000_000) raw += c })
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const body = JSON.parse(raw || '{}') as Record<string, unknown>
      requests.push({ path, headers: req.headers, body })
      if (path === '/v1/embeddings') {
        const input = body['input']
        const texts = Array.isArray(input) ? input : [input]
        // Deliberately reversed order: clients must sort by index.
        const data = texts.map((t, index) => ({ object: 'embedding', index, embedding: [String(t).length, index] })).reverse()
        send(res, 200, { object: 'list', data })
        return
      }
      if (path !== '/v1/chat/completions') return send(res, 404, { error: 'not found' })
      const handler = MODELS[String(body['model'])]
      if (!handler) return send(res, 404, { error: { message: `unknown model ${String(body['model'])}` } })
      handler(res, body)
    })
  })
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()) }),
  }
}
