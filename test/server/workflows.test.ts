/** Durable workflows over HTTP (in memory): agent calls through the tenant's LLM, external requests answered by POST, tenant isolation. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeLlm } from '../workflows/fake-llm.ts'
import type { AjsServer } from '../../src/server/index.ts'
import { startWorkflowServer, type WorkflowTestServer } from './workflow-server.ts'

let t: WorkflowTestServer
let llm: FakeLlm
let server: AjsServer
let url: string
beforeAll(async () => {
  t = await startWorkflowServer()
  ;({ llm, server, url } = t)
})
afterAll(async () => {
  await t?.close()
})
const req: WorkflowTestServer['req'] = (...a) => t.req(...a)
const until: WorkflowTestServer['until'] = (...a) => t.until(...a)
const start: WorkflowTestServer['start'] = (...a) => t.start(...a)

export const REFUND = `
export const meta = { name: 'refund', version: 1 }
const summary = await agent(\`Summarize ticket \${args.ticket}\`)
log('summarized', args.ticket)
const approval = await agent(\`Approve refund for \${args.ticket}?\`, { external: true })
const mail = await agent(\`Write mail for \${args.ticket}: \${approval.decision}\`)
export default { summary, approval, mail }
`

describe('workflows', () => {
  test('start (201), run agent calls, park on an external request, resume on its answer, complete', async () => {
    const started = await req('POST', '/v1/workflows', { source: REFUND, args: { ticket: 'T-1' } })
    expect(started.status).toBe(201)
    const id = started.json.id
    expect(id).toMatch(/^wf_/)
    expect(started.json).toMatchObject({ state: 'running', meta: { name: 'refund', version: 1 } })
    const waiting = await until(id, (wf) => wf.state === 'waiting')
    const rid = waiting.requests[0].id
    expect(rid).toMatch(/^agent-/)
    expect(waiting.requests).toEqual([{ id: rid, prompt: 'Approve refund for T-1?', options: { external: true } }])
    expect(waiting.logs).toEqual([{ type: 'log', values: ['summarized', 'T-1'] }])
    expect(llm.counts.get('Summarize ticket T-1')).toBe(1)
    expect(llm.counts.has('Approve refund for T-1?')).toBe(false)
    const answered = await req('POST', `/v1/workflows/${id}/requests/${rid}`, { value: { decision: 'yes' } })
    expect(answered.status).toBe(200)
    expect(answered.json.requests).toEqual([])
    const done = await until(id, (wf) => wf.state === 'done')
    expect(done.result).toEqual({ summary: 'echo: Summarize ticket T-1', approval: { decision: 'yes' }, mail: 'echo: Write mail for T-1: yes' })
    // Replaying the journal on resume did not ask the model again.
    expect(llm.counts.get('Summarize ticket T-1')).toBe(1)
    expect(llm.counts.get('Write mail for T-1: yes')).toBe(1)
    const again = await req('POST', `/v1/workflows/${id}/requests/${rid}`, { value: { decision: 'no' } })
    expect([again.status, again.json.error.code]).toEqual([409, 'ALREADY_RESOLVED'])
  })

  test('another tenant can neither see a workflow nor answer its requests; unknown requests are 404', async () => {
    const { id } = (await req('POST', '/v1/workflows', { source: REFUND, args: { ticket: 'T-2' } })).json
    const waiting = await until(id, (wf) => wf.state === 'waiting')
    expect((await req('GET', `/v1/workflows/${id}`, undefined, 'other-token')).status).toBe(404)
    const foreign = await req('POST', `/v1/workflows/${id}/requests/${waiting.requests[0].id}`, { value: 1 }, 'other-token')
    expect([foreign.status, foreign.json.error.code]).toEqual([404, 'NOT_FOUND'])
    expect((await req('POST', `/v1/workflows/${id}/requests/agent-nope`, { value: 1 })).status).toBe(404)
    expect((await req('GET', '/v1/workflows/wf_nope')).status).toBe(404)
    expect((await req('GET', `/v1/workflows/${id}`)).json.state).toBe('waiting')
  })

  test('a workflow that does not compile is 422 with the location; without an LLM an agent call fails the workflow clearly', async () => {
    const bad = await req('POST', '/v1/workflows', { source: 'const x = await agent(' })
    expect([bad.status, bad.json.error.code]).toEqual([422, 'AJS1001'])
    expect((await req('POST', '/v1/workflows', { args: {} })).status).toBe(400)
    const { id } = (await req('POST', '/v1/workflows', { source: 'const a = await agent("hi")\nexport default { a }' }, 'other-token')).json
    const failed = await until(id, (wf) => wf.state === 'failed', 'other-token')
    expect(failed.error.message).toContain('capabilities.llm')
  })
})
