/**
 * Workflow steps through `ajsc serve` (in-process stores): a workflow of N
 * steps, each an external request answered over HTTP (one server step per
 * answer). Prints the time per step at each size, the compilations and the
 * journal entries replayed: a step continues the workflow's live execution
 * (src/server/workflows.ts), so nothing is replayed and the time per step
 * does not grow with N.
 *
 *   bun bench/workflow-serve-steps.ts 1000 10000
 */
import { createServer, parseServeConfig, tokenSha256 } from '../src/server/index.ts'
import { workflowPrograms } from '../src/server/workflow-programs.ts'
import { workflowStepStats } from '../src/server/workflows.ts'

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
const server = await createServer({ config: parseServeConfig({ tenants: [{ id: 'b', tokenSha256: tokenSha256('t'), limits: { fuelPerRun: 100_000_000 } }] }), pool: { size: 1 } })
const url = await server.listen({ port: 0 })
const req = async (method: string, path: string, body?: unknown) =>
  (await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer t', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<any>

for (const n of sizes.length ? sizes : [200, 400]) {
  const source = `let s = 0\nfor (let i = 0; i < ${n}; i++) s += await agent('step ' + i, { external: true })\nexport default s`
  const compiles = workflowPrograms.compiles
  const stats = { ...workflowStepStats }
  const t0 = performance.now()
  const { id } = await req('POST', '/v1/workflows', { source })
  for (let i = 0; i < n; i++) {
    let wf: any
    for (;;) { wf = await req('GET', `/v1/workflows/${id}`); if (wf.state === 'waiting' && wf.requests?.length) break; if (wf.state === 'failed') throw new Error(JSON.stringify(wf.error)); await Bun.sleep(1) }
    await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: 1 })
  }
  let done: any
  for (;;) { done = await req('GET', `/v1/workflows/${id}`); if (done.state === 'done' || done.state === 'failed') break; await Bun.sleep(1) }
  const ms = performance.now() - t0
  console.log(`${n} steps: ${ms.toFixed(0)} ms total, ${(ms / n).toFixed(2)} ms/step, result ${done.result}, compilations ${workflowPrograms.compiles - compiles}, steps live ${workflowStepStats.hits - stats.hits} / replayed ${workflowStepStats.misses - stats.misses}, entries replayed ${workflowStepStats.replayedEntries - stats.replayedEntries}`)
}
await server.close()
