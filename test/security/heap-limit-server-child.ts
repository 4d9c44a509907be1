/**
 * Child process of guards.test.ts's per-worker heap limit test: a server with one 64 MiB worker gets a
 * run holding 300 strings of 4 MB, then a health check and a small run. Prints the outcome as JSON.
 * Its own process, as `ajsc serve` is: where the runtime applies no worker heap limit (Bun), the pool
 * watches the process's resident memory, and a test process that has run thousands of tests holds
 * memory it freed, which such a run can fill without the process growing.
 */
import { createServer, parseServeConfig, tokenSha256 } from '../../src/server/index.ts'

const server = await createServer({
  config: parseServeConfig({ tenants: [{ id: 'h', tokenSha256: tokenSha256('token-h'), limits: { fuelPerRun: 1e6, timeoutMs: 20_000 } }] }),
  pool: { size: 1, maxHeapMb: 64, graceMs: 500 },
})
try {
  const url = await server.listen({ port: 0 })
  const headers = { authorization: 'Bearer token-h', 'content-type': 'application/json' }
  // 300 strings of 4 MB: 1.2 GB kept alive; each is under the run's 16 MiB value ceiling.
  const source = "function main() { const keep = []\n for (let i = 0; i < 300; i++) keep.push('x'.repeat(4000000) + i)\n return keep.length }"
  const started = performance.now()
  const res = await fetch(`${url}/v1/runs`, { method: 'POST', headers, body: JSON.stringify({ source, options: { fuel: 1e6, timeoutMs: 20_000 } }) })
  const body = await res.json() as { error?: { code: string; message?: string } }
  const ms = performance.now() - started
  const health = (await fetch(`${url}/healthz`)).status
  const after = await fetch(`${url}/v1/runs`, { method: 'POST', headers, body: JSON.stringify({ source: 'function main() { return 1 }' }) })
  const afterResult = ((await after.json()) as { result: unknown }).result
  console.log(JSON.stringify({ code: body.error?.code ?? null, body: JSON.stringify(body).slice(0, 300), ms, heapStops: server.pool.heapStops, health, afterResult }))
} finally {
  await server.close()
}
