// A remote VM: a node:http server that runs posted ASTs. It imports only
// `ajs-lang/vm` (no parser, no transpiler), validates every AST before
// running it, and sets the limits and capabilities itself: the client
// decides what to run, never with what rights.
import http from 'node:http'
import { AgentVM, validateAst } from 'ajs-lang/vm'

const MAX_BODY = 256 * 1024

export function createRemoteVmServer(): http.Server {
  const vm = new AgentVM()
  const store = new Map<string, unknown>()
  const capabilities = {
    store: { get: (k: string) => store.get(k) ?? null, set: (k: string, v: unknown) => { store.set(k, v); return null } },
  }
  return http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method !== 'POST' || req.url !== '/run') return reply(404, { error: 'POST /run { ast, args }' })
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
      if (raw.length > MAX_BODY) { reply(413, { error: 'body too large' }); req.destroy() }
    })
    req.on('end', async () => {
      let body: { ast?: unknown; args?: unknown }
      try {
        body = JSON.parse(raw)
      } catch {
        return reply(400, { error: 'body is not JSON' })
      }
      const problems = validateAst(body.ast)
      if (problems.length > 0) return reply(400, { error: 'invalid AST', problems: problems.slice(0, 5) })
      // The server's limits, not the client's.
      const result = await vm.run(body.ast, body.args ?? {}, { fuel: 1000, timeoutMs: 2000, capabilities })
      reply(200, result)
    })
  })
}
