/**
 * Child process of workflow-steps.test.ts: an in-memory `ajsc serve` (one pool thread, one
 * workflow thread) where one tenant's workflow steps burn CPU while another tenant's
 * `/healthz`, runs and workflows must keep answering. Prints one JSON line of what it saw;
 * the parent asserts on it (and bounds this process's time and memory).
 */
import { createServer, loadServerAtoms, parseServeConfig, tokenSha256 } from '../../src/server/index.ts'
import { workflowStepStats } from '../../src/server/workflows.ts'

const config = parseServeConfig({
  atoms: ['./workflow-steps-atoms.mjs'],
  tenants: [
    // Allowed a huge step (10^9 fuel): its loop runs for about a second per step.
    { id: 'hog', tokenSha256: tokenSha256('hog-token'), limits: { fuelPerRun: 1_000_000_000, timeoutMs: 30_000 } },
    // The same fuel but a 300 ms time limit: its endless loop is halted.
    { id: 'capped', tokenSha256: tokenSha256('capped-token'), limits: { fuelPerRun: 1_000_000_000, timeoutMs: 300 } },
    { id: 'good', tokenSha256: tokenSha256('good-token') },
  ],
}, { baseDir: import.meta.dir })
const server = await createServer({ config, atoms: await loadServerAtoms(config), pool: { size: 1, graceMs: 500 } })
const url = await server.listen({ port: 0 })
const req = async (method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: any }> => {
  const res = await fetch(`${url}${path}`, {
    method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, json: await res.json() }
}
const until = async (id: string, token: string, pred: (wf: any) => boolean): Promise<any> => {
  let wf: any
  for (let i = 0; i < 3000; i++) {
    wf = (await req('GET', `/v1/workflows/${id}`, token)).json
    if (pred(wf)) return wf
    await Bun.sleep(10)
  }
  throw new Error(`workflow ${id} never reached the state: ${JSON.stringify(wf)}`)
}
const ended = (wf: any) => wf.state === 'done' || wf.state === 'failed' || wf.state === 'cancelled'
const waitingFor = (prompt: string) => (wf: any) => wf.state === 'waiting' && wf.requests?.[0]?.prompt === prompt
let peakRss = 0
const rss = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()) }, 20)

// 1. The good tenant's workflow is live in the (only) workflow thread, parked on an external request.
const goodSource = `const a = await agent('first', { external: true })\nconst b = await agent('second', { external: true })\nexport default a + b`
const good = (await req('POST', '/v1/workflows', 'good-token', { source: goodSource })).json
const first = await until(good.id, 'good-token', waitingFor('first'))

// 2. The hog's steps: two loops of ~40M iterations each, one step apiece (a sleep parks between them).
const hogSource = `import { sleep } from 'workflow:extra'
let s = 0
for (let i = 0; i < 40000000; i++) s = (s + i) % 1000003
await sleep(1100)
for (let i = 0; i < 40000000; i++) s = (s + i) % 1000003
export default s`
const hog = (await req('POST', '/v1/workflows', 'hog-token', { source: hogSource })).json

// 3. Meanwhile the good tenant asks /healthz, runs programs and answers its workflow: every answer must come.
const healthz: number[] = []
const runs: unknown[] = []
let hogWf: any
const before = { ...workflowStepStats }
let answered = false
for (let i = 0; ; i++) {
  const t0 = performance.now()
  const h = await req('GET', '/healthz', null)
  healthz.push(h.status === 200 ? performance.now() - t0 : -1)
  if (i % 5 === 0) runs.push((await req('POST', '/v1/runs', 'good-token', { source: 'function f({ n }) { return n * 2 }', args: { n: i } })).json.result)
  if (i === 10 && !answered) {
    answered = true
    await req('POST', `/v1/workflows/${good.id}/requests/${first.requests[0].id}`, 'good-token', { value: 40 })
  }
  hogWf = (await req('GET', `/v1/workflows/${hog.id}`, 'hog-token')).json
  if (ended(hogWf)) break
  await Bun.sleep(20)
}
const second = await until(good.id, 'good-token', waitingFor('second'))
await req('POST', `/v1/workflows/${good.id}/requests/${second.requests[0].id}`, 'good-token', { value: 2 })
const goodDone = await until(good.id, 'good-token', ended)
const afterHog = { ...workflowStepStats }

/**
 * Another tenant's workflow parks on an external request (live in the thread), the capped tenant runs `source` past
 * its 300 ms limit, then the parked workflow is answered: how each ended, the capped one's last journal entry, the
 * threads recycled meanwhile and whether the parked workflow replayed (misses) or went on live (hits).
 */
async function overrunBeside(source: string, answer: string) {
  const parked = (await req('POST', '/v1/workflows', 'good-token', { source: `const x = await agent('park', { external: true })\nexport default x` })).json
  const park = await until(parked.id, 'good-token', waitingFor('park'))
  const recycled = server.pool.workflows.recycled
  const overran = (await req('POST', '/v1/workflows', 'capped-token', { source })).json
  const wf = await until(overran.id, 'capped-token', ended)
  const journal = (await req('GET', `/v1/workflows/${overran.id}/journal`, 'capped-token')).json
  const before = { ...workflowStepStats }
  await req('POST', `/v1/workflows/${parked.id}/requests/${park.requests[0].id}`, 'good-token', { value: answer })
  const done = await until(parked.id, 'good-token', ended)
  return {
    overran: wf, last: journal.entries?.at(-1), recycled: server.pool.workflows.recycled - recycled,
    parked: { state: done.state, result: done.result, misses: workflowStepStats.misses - before.misses, hits: workflowStepStats.hits - before.hits },
  }
}

// 4. A step past its tenant's time limit is halted in its thread (TIMEOUT); the thread and the other live executions stay.
const capped = await overrunBeside('let i = 0\nwhile (true) { i++ }\nexport default i', 'kept')

// 5. A terminated thread: the live executions it held replay once on their next step, to the same state.
const phoenix = (await req('POST', '/v1/workflows', 'good-token', { source: goodSource })).json
const p1 = await until(phoenix.id, 'good-token', waitingFor('first'))
await server.pool.workflows.of(phoenix.id).terminate('terminated by the test')
const beforeReplay = { ...workflowStepStats }
await req('POST', `/v1/workflows/${phoenix.id}/requests/${p1.requests[0].id}`, 'good-token', { value: 1 })
const p2 = await until(phoenix.id, 'good-token', waitingFor('second'))
await req('POST', `/v1/workflows/${phoenix.id}/requests/${p2.requests[0].id}`, 'good-token', { value: 2 })
const phoenixDone = await until(phoenix.id, 'good-token', ended)
const afterReplay = { ...workflowStepStats }

// 6. Host code the VM cannot interrupt (an atom spinning for 3 s) past the 300 ms limit: its thread is terminated after the
// grace period; the step fails TIMEOUT (journaled as its end), and the other workflow live in that thread replays once.
const spin = await overrunBeside('const n = await spin({ ms: 3000 })\nexport default n', 'went on')
const metrics = await (await fetch(`${url}/metrics`)).text()

clearInterval(rss)
await server.close()
console.log(JSON.stringify({
  healthz, runs, hog: { state: hogWf.state, result: hogWf.result, error: hogWf.error }, good: { state: goodDone.state, result: goodDone.result },
  goodSteps: { hits: afterHog.hits - before.hits, misses: afterHog.misses - before.misses },
  capped: { state: capped.overran.state, error: capped.overran.error, last: capped.last },
  keeper: { state: capped.parked.state, result: capped.parked.result, misses: capped.parked.misses, hits: capped.parked.hits },
  recycled: capped.recycled,
  spin: { state: spin.overran.state, cause: spin.overran.error?.cause?.code, last: spin.last?.error?.code, recycled: spin.recycled },
  bystander: { state: spin.parked.state, result: spin.parked.result, misses: spin.parked.misses },
  recycledGauge: Number(/^ajs_workflow_threads_recycled (\d+)/m.exec(metrics)?.[1]),
  phoenix: { state: phoenixDone.state, result: phoenixDone.result, misses: afterReplay.misses - beforeReplay.misses, hits: afterReplay.hits - beforeReplay.hits },
  peakRssMiB: Math.round(peakRss / 1024 / 1024),
}))
