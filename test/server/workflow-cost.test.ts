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
