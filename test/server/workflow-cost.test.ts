/** Linear cost on the server: a workflow's steps compile its source once per process (counted, not timed). */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createServer, parseServeConfig, tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { workflowPrograms } from '../../src/server/workflow-programs.ts'

let server: AjsServer
let url: string
beforeAll(async () => {
  server = await createServer({ config: parseServeConfig({ tenants: [{ id: 'ops', tokenSha256: tokenSha256('ops-token') }] }), pool: { size: 1 } })
  url = await server.listen({ port: 0 })
})
afterAll(async () => { await server.close() })

async function req(method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  return res.json() as Promise<any>
}

test('ten steps of one workflow (each answered externally) compile its source once', async () => {
  const source = `const out = []\nfor (let i = 0; i < 10; i++) out.push(await agent('step ' + i, { external: true }))\nexport default out`
  const { id } = await req('POST', '/v1/workflows', { source })
  const before = workflowPrograms.compiles
  for (let i = 0; i < 10; i++) {
    let wf: any
    for (let k = 0; k < 300; k++) { wf = await req('GET', `/v1/workflows/${id}`); if (wf.state === 'waiting' && wf.requests.length === 1) break; await Bun.sleep(10) }
    await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: i })
  }
  let done: any
  for (let k = 0; k < 300; k++) { done = await req('GET', `/v1/workflows/${id}`); if (done.state === 'done') break; await Bun.sleep(10) }
  expect(done.result).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  // 11 steps (the first and one per answer): the program came from the cache after the first (compiled at most once here).
  expect(workflowPrograms.compiles - before).toBeLessThanOrEqual(1)
})

test("a workflow's source compiles in a pool thread (as procedures do), once: its steps take it from the cache", async () => {
  const source = `const a = await agent('first', { external: true })\nexport default { a, tag: 'pool-compiled' }`
  const pool = server.pool.compilations
  const cache = workflowPrograms.compiles
  const { id } = await req('POST', '/v1/workflows', { source })
  expect(server.pool.compilations - pool).toBe(1) // compiled in a worker, not on the event loop
  let wf: any
  for (let k = 0; k < 300; k++) { wf = await req('GET', `/v1/workflows/${id}`); if (wf.state === 'waiting' && wf.requests.length === 1) break; await Bun.sleep(10) }
  await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: 7 })
  for (let k = 0; k < 300; k++) { wf = await req('GET', `/v1/workflows/${id}`); if (wf.state === 'done') break; await Bun.sleep(10) }
  expect(wf.result).toEqual({ a: 7, tag: 'pool-compiled' })
  expect(workflowPrograms.compiles - cache).toBe(1)
  expect(server.pool.compilations - pool).toBe(1)
})

test('a module that does not compile is refused with 422 from the pool, its column 1-based like its location', async () => {
  const res = await fetch(`${url}/v1/workflows`, { method: 'POST', headers: { authorization: 'Bearer ops-token', 'content-type': 'application/json' }, body: JSON.stringify({ source: `const x = Date.now()\nexport default x` }) })
  expect(res.status).toBe(422)
  const { error } = await res.json() as any
  expect(error).toMatchObject({ code: 'AJS5006', line: 1, column: 11, location: 'workflow.ajs:1:11' })
})
