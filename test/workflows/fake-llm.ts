/**
 * A fake OpenAI-compatible endpoint on 127.0.0.1 that counts chat calls per
 * prompt (the first user message) and answers `echo: <prompt>`. Prompts in
 * `hold` are never answered (a model call in flight), so a test can kill
 * the workflow process while one is outstanding.
 */
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface FakeLlm {
  baseUrl: string
  /** Calls received, per prompt. */
  counts: Map<string, number>
  /** Prompts left unanswered while present. */
  hold: Set<string>
  /** Prompts answered with HTTP 503 while present (a transient failure). */
  down: Set<string>
  /** Resolves once `prompt` has been received `times` times (bounded by `ms`). */
  received(prompt: string, times?: number, ms?: number): Promise<void>
  close(): Promise<void>
}

const promptOf = (body: Record<string, unknown>): string => {
  const messages = (body['messages'] ?? []) as Array<{ role: string; content: string }>
  const user = messages.find((m) => m.role === 'user')?.content ?? ''
  return user.split('\n')[0]!
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const sockets = new Set<Socket>()
  const counts = new Map<string, number>()
  const hold = new Set<string>()
  const down = new Set<string>()
  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => { raw += c })
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>
      const prompt = promptOf(body)
      counts.set(prompt, (counts.get(prompt) ?? 0) + 1)
      if (hold.has(prompt)) return
      if (down.has(prompt)) {
        res.writeHead(503, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: 'overloaded' } }))
        return
      }
      // Prompts starting with "sloppy" get an answer that breaks the schema the first time (for the corrective retry).
      const asked = ((body['messages'] ?? []) as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? ''
      const sloppy = prompt.startsWith('sloppy') && !asked.includes('previous answer was invalid')
      const content = body['response_format'] ? (sloppy ? 'Sure! {"echo": 1' : JSON.stringify({ echo: prompt })) : `echo: ${prompt}`
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }))
    })
  })
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    counts,
    hold,
    down,
    async received(prompt, times = 1, ms = 15_000) {
      const until = Date.now() + ms
      while ((counts.get(prompt) ?? 0) < times) {
        if (Date.now() > until) throw new Error(`fake LLM: "${prompt}" not received ${times} time(s) within ${ms} ms (counts: ${JSON.stringify([...counts])})`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()) }),
  }
}
