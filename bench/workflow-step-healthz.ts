/**
 * `/healthz` latency while a workflow step burns CPU on `ajsc serve` (in-process stores, one pool
 * thread): a tenant allowed 10^9 fuel per step runs a loop of N iterations in one step (about a
 * second at the default N) while this process asks `/healthz` every 5 ms. Prints the latency
 * idle and during the step (median, p99, worst) and how long the step took. Where a step's VM
 * runs on the event loop (before workflow threads), the event loop stalls between time slices.
 *
 *   bun bench/workflow-step-healthz.ts [iterations=30000000]
 */
import { createServer, parseServeConfig, tokenSha256 } from '../src/server/index.ts'

const iterations = Number(process.argv[2] ?? 30_000_000)
const server = await createServer({
  config: parseServeConfig({ tenants: [{ id: 'cpu', tokenSha256: tokenSha256('t'), limits: { fuelPerRun: 1_000_000_000, timeoutMs: 60_000 } }] }),
  pool: { size: 1 },
})
const url = await server.listen({ port: 0 })
const req = async (method: string, path: string, body?: unknown) =>
  (await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer t', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<any>

const healthz = async (): Promise<number> => {
  const t0 = performance.now()
  const res = await fetch(`${url}/healthz`)
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`)
  return performance.now() - t0
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  return `median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, worst ${s[s.length - 1]!.toFixed(1)} ms (${s.length} answers)`
}

const idle: number[] = []
for (let i = 0; i < 100; i++) { idle.push(await healthz()); await Bun.sleep(5) }

// Warm up: the program compiled and the workflow path exercised once.
const warm = await req('POST', '/v1/workflows', { source: 'let s = 0\nfor (let i = 0; i < 1000; i++) s += i\nexport default s' })
for (;;) { const wf = await req('GET', `/v1/workflows/${warm.id}`); if (wf.state === 'done' || wf.state === 'failed') break; await Bun.sleep(5) }

const source = `let s = 0\nfor (let i = 0; i < ${iterations}; i++) s = (s + i) % 1000003\nexport default s`
// /healthz is asked in a loop of its own from before the workflow starts until it ends: a stalled event loop shows as one slow answer.
const during: number[] = []
let ended = false
const sampler = (async () => { while (!ended) { during.push(await healthz()); await Bun.sleep(5) } })()
const t0 = performance.now()
const { id } = await req('POST', '/v1/workflows', { source })
let wf: any
for (;;) {
  wf = await req('GET', `/v1/workflows/${id}`)
  if (wf.state === 'done' || wf.state === 'failed') break
  await Bun.sleep(20)
}
ended = true
await sampler
const stepMs = performance.now() - t0
console.log(`idle:        ${stats(idle)}`)
console.log(`during step: ${stats(during)}`)
console.log(`workflow ${wf.state}${wf.error ? ` (${wf.error.code}: ${wf.error.message})` : ''} after ${stepMs.toFixed(0)} ms (${iterations} iterations)`)
await server.close()
