/**
 * Timeouts and continue-as-new on ajsc serve (in memory): a run deadline
 * (inline and parked), a per-request timeout on an external request, and a
 * workflow that continues as new keeping its id with a journal of one run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { postgresAvailable } from './postgres.ts'
import { servePostgres } from './ajsc-process.ts'
import type { FakeLlm } from '../workflows/fake-llm.ts'
import { tokenSha256, type AjsServer } from '../../src/server/index.ts'
import { startWorkflowServer, type WorkflowTestServer } from './workflow-server.ts'

const pgAvailable = postgresAvailable()
/** An endpoint that never answers (its requests are aborted by the caller). */
let hanging: ReturnType<typeof Bun.serve>
const aborted: string[] = []
let t: WorkflowTestServer
let llm: FakeLlm
let server: AjsServer
let url: string
beforeAll(async () => {
  hanging = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => new Promise<Response>((_, reject) => req.signal.addEventListener('abort', () => { aborted.push(req.url); reject(new Error('aborted')) })) })
  t = await startWorkflowServer((fake) => [
    { id: 'ops', tokenSha256: tokenSha256('ops-token'), capabilities: { llm: { baseUrl: fake.baseUrl, model: 'fake' } } },
    { id: 'slow', tokenSha256: tokenSha256('slow-token'), capabilities: { llm: { baseUrl: `http://127.0.0.1:${hanging.port}/v1`, model: 'fake' } } },
  ])
  ;({ llm, server, url } = t)
})
afterAll(async () => {
  await t?.close()
  hanging.stop(true)
})
const req: WorkflowTestServer['req'] = (...a) => t.req(...a)
const until: WorkflowTestServer['until'] = (...a) => t.until(...a)
const start: WorkflowTestServer['start'] = (...a) => t.start(...a)

test('a run deadline fails the workflow WORKFLOW_TIMEOUT, inline and after parking', async () => {
  const source = `const s = await signal('never')\nexport default s`
  const short = await start({ source, timeouts: { runMs: 200 } })
  // runMs counts from POST /v1/workflows (the start entry is written with the row): long enough to park after the first step.
  const long = await start({ source, timeouts: { runMs: 3_000 } })
  expect(short.status).toBe(201)
  const parked = await until(long.json.id, (wf) => wf.state === 'waiting')
  expect(parked.wakeAt).toBeGreaterThan(Date.now() - 100)
  for (const id of [short.json.id, long.json.id]) {
    const wf = await until(id, (w) => w.state === 'failed')
    expect(wf.error.code).toBe('WORKFLOW_TIMEOUT')
  }
  expect((await req('POST', '/v1/workflows', { source, timeouts: { runMs: -5 } })).status).toBe(400)
  expect((await req('POST', '/v1/workflows', { source, timeouts: { minutes: 5 } })).status).toBe(400)
})

test('a per-request timeout ends an external request nobody answers', async () => {
  const source = `let r
try { r = await agent('approve?', { external: true, timeoutMs: 150, retry: { maximumAttempts: 1 } }) } catch (e) { r = e.message }
export default r`
  const { json } = await start({ source })
  const wf = await until(json.id, (w) => w.state === 'done')
  expect(wf.result).toBe('agent request timed out after 150 ms (timeoutMs)')
})

test('a request timeout longer than a step\'s inline wait aborts an LLM call that never answers', async () => {
  const source = `let r
try { r = await agent('hello?', { timeoutMs: 1_300, retry: { maximumAttempts: 1 } }) } catch (e) { r = e.message }
export default r`
  const started = (await req('POST', '/v1/workflows', { source }, 'slow-token')).json
  let wf: any
  for (let i = 0; i < 300; i++) {
    wf = (await req('GET', `/v1/workflows/${started.id}`, undefined, 'slow-token')).json
    if (wf.state === 'done') break
    await Bun.sleep(20)
  }
  expect(wf.result).toBe('agent request timed out after 1300 ms (timeoutMs)')
  expect(aborted.length).toBe(1)
})

test('continueAsNew keeps the workflow id; its journal holds one run, linked to the previous', async () => {
  const source = `const n = args.n ?? 0
const word = await agent('chain ' + n)
if (n < 3) continueAsNew({ n: n + 1 })
export default { n, word }`
  const { json } = await start({ source, budget: 10 })
  const wf = await until(json.id, (w) => w.state === 'done')
  expect(wf.result).toEqual({ n: 3, word: 'echo: chain 3' })
  expect(wf.chain).toBe(3)
  expect(wf.spent).toBe(4) // the budget spent carries over the chain
  const page = (await req('GET', `/v1/workflows/${json.id}/journal`)).json
  const entries = page.entries.map((e: any) => e.entry ?? e)
  expect(entries[0]).toMatchObject({ t: 'start', previous: json.id, chain: 3, args: { n: 3 }, budget: { total: 10, spent: 3 } })
  expect(entries.length).toBeLessThan(8)
})

describe.skipIf(!pgAvailable)('on PostgreSQL (ajsc serve --database)', () => {
  let served: Awaited<ReturnType<typeof servePostgres>> | undefined
  afterAll(async () => { await served?.stop() })

  test('continueAsNew replaces the journal in the same transaction as the next step; a parked deadline fails the run', async () => {
    served = await servePostgres('ajs-wf-timeouts-pg-')
    const base = served.url
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: 'Bearer ops-token', ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
      return await res.json() as any
    }
    const wait = async (id: string, ok: (wf: any) => boolean) => {
      let wf: any
      for (let i = 0; i < 400; i++) {
        wf = await call('GET', `/v1/workflows/${id}`)
        if (ok(wf)) return wf
        await Bun.sleep(25)
      }
      throw new Error(`${id}: ${JSON.stringify(wf)}`)
    }
    const chain = await call('POST', '/v1/workflows', { source: `import { sleep } from 'workflow:extra'
const n = args.n ?? 0
await sleep(5)
if (n < 4) continueAsNew({ n: n + 1 })
export default n` })
    const late = await call('POST', '/v1/workflows', { source: `export default await signal('never')`, timeouts: { runMs: 1_200 } })
    expect((await wait(chain.id, (wf) => wf.state === 'done')).result).toBe(4)
    const page = await call('GET', `/v1/workflows/${chain.id}/journal`)
    expect(page.entries[0]).toMatchObject({ t: 'start', chain: 4, previous: chain.id, args: { n: 4 } })
    expect(page.entries.length).toBeLessThan(8)
    expect((await wait(late.id, (wf) => wf.state === 'failed')).error.code).toBe('WORKFLOW_TIMEOUT')
  }, 30_000)
})
