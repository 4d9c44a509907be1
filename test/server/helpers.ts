/** A test server with a few tenants (each limit has its own tenant), plus small HTTP helpers. */
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { transpile } from '../../src/index.ts'

export const TOKENS = {
  a: 'token-a', b: 'token-b', rate: 'token-rate', busy: 'token-busy', quota: 'token-quota', cpu: 'token-cpu',
} as const

export const TEST_CONFIG = {
  tenants: [
    { id: 'a', tokenSha256: tokenSha256(TOKENS.a), limits: { fuelPerRun: 5000, timeoutMs: 5000 } },
    { id: 'b', tokenSha256: tokenSha256(TOKENS.b) },
    { id: 'rate', tokenSha256: tokenSha256(TOKENS.rate), limits: { requestsPerMinute: 2 } },
    { id: 'busy', tokenSha256: tokenSha256(TOKENS.busy), limits: { concurrentRuns: 1, fuelPerRun: 1e12, timeoutMs: 10_000 } },
    { id: 'quota', tokenSha256: tokenSha256(TOKENS.quota), limits: { fuelPerDay: 1 } },
    { id: 'cpu', tokenSha256: tokenSha256(TOKENS.cpu), limits: { concurrentRuns: 1, fuelPerRun: 1e12, timeoutMs: 10_000 } },
  ],
  limits: { maxBodyBytes: 65_536, maxAstDepth: 60 },
  operatorTokenSha256: tokenSha256('token-operator'),
}

export interface TestServer {
  server: AjsServer
  url: string
  req(method: string, path: string, opts?: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string>; signal?: AbortSignal }): Promise<{ status: number; headers: Headers; json: any; text: string }>
  close(): Promise<void>
}

export async function startTestServer(pool: { size?: number; queueSize?: number; graceMs?: number } = { size: 2 }, config: object = TEST_CONFIG): Promise<TestServer> {
  const server = await createServer({ config: parseServeConfig(config), pool })
  const url = await server.listen({ port: 0 })
  return {
    server,
    url,
    async req(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      const token = opts.token === undefined ? TOKENS.a : opts.token
      if (token !== null) headers['authorization'] = `Bearer ${token}`
      let body: string | undefined = opts.raw
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await fetch(`${url}${path}`, { method, headers, body, signal: opts.signal })
      const text = await res.text()
      let json: any
      try { json = JSON.parse(text) } catch { json = undefined }
      return { status: res.status, headers: res.headers, json, text }
    },
    close: () => server.close(),
  }
}

export const ast = (source: string) => transpile(source).ast

/**
 * An async run's record once it is done (the tenant's concurrentRuns slot is free again), polled every
 * 10 ms for at most `waitMs` (default 3 s; then the record as it is, for the test's assertion to show),
 * as the tenant of `token`, on any server of the test (a TestServer, a workflow server, an `ajsc serve` process).
 */
export async function runFinished(server: { url: string }, id: string, token: string = TOKENS.a, waitMs = 3_000): Promise<any> {
  const read = async () => (await fetch(`${server.url}/v1/runs/${id}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<any>
  let rec = await read()
  for (let i = 0; i < waitMs / 10 && rec.state !== 'done'; i++) {
    await Bun.sleep(10)
    rec = await read()
  }
  return rec
}

/** Runs counted by /metrics for a tenant (ok + error). */
export async function runsCounted(t: TestServer, tenant: string): Promise<number> {
  const text = (await t.req('GET', '/metrics', { token: 'token-operator' })).text
  let n = 0
  for (const m of text.matchAll(new RegExp(`^ajs_runs_total\\{tenant="${tenant}",outcome="\\w+"\\} (\\d+)$`, 'gm'))) n += Number(m[1])
  return n
}
