/**
 * Workflow commands over HTTP (in memory): retry from the failed step, signals (before and after the wait,
 * idempotent ids), queries, cancellation with cleanup, child workflows (result to the parent's journal,
 * cancellation propagating), and live executions between steps (journal entries replayed per step counted).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeLlm } from '../workflows/fake-llm.ts'
import type { AjsServer } from '../../src/server/index.ts'
import { startWorkflowServer, type WorkflowTestServer } from './workflow-server.ts'
import { workflowStepStats } from '../../src/server/workflows.ts'

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

/** Send a command, again while a step holds the workflow (409 WORKFLOW_BUSY). */
async function command(path: string, body: unknown) {
  for (;;) {
    const r = await req('POST', path, body)
    if (r.json?.error?.code !== 'WORKFLOW_BUSY') return r
    await Bun.sleep(50)
  }
}

describe('retry', () => {
  test('a run failed by a down endpoint is retried from its failed step with a new policy; completed calls are not repeated', async () => {
    const source = `const a = await agent('retry-outline')\nconst b = await agent('retry-draft ' + a)\nexport default b`
    llm.down.add('retry-draft echo: retry-outline')
    const { json: started } = await start({ source, retry: { maximumAttempts: 2, initialIntervalMs: 10 } })
    const failed = await until(started.id, (wf) => wf.state === 'failed')
    expect(failed.error.message).toContain('503')
    expect(llm.counts.get('retry-draft echo: retry-outline')).toBe(2)

    expect((await req('POST', `/v1/workflows/${started.id}/retry`, { retry: { maximumAttempts: 'x' } })).status).toBe(400)
    llm.down.delete('retry-draft echo: retry-outline')
    const retried = await command(`/v1/workflows/${started.id}/retry`, { retry: { maximumAttempts: 1 } })
    expect(retried.status).toBe(200)
    expect(retried.json.state).toBe('running')
    expect(retried.json.error).toBeUndefined()
    const done = await until(started.id, (wf) => wf.state === 'done')
    expect(done.result).toBe('echo: retry-draft echo: retry-outline')
    expect(llm.counts.get('retry-outline')).toBe(1)
    expect(llm.counts.get('retry-draft echo: retry-outline')).toBe(3)

    const again = await req('POST', `/v1/workflows/${started.id}/retry`, {})
    expect(again.status).toBe(409)
    expect(again.json.error.code).toBe('WORKFLOW_STATE')
    expect((await req('POST', `/v1/workflows/${started.id}/retry`, {}, 'other-token')).status).toBe(404)
  })
})

describe('signals and queries', () => {
  const REVIEW = `
expose('stage', 'drafting')
const first = await signal('review')
expose('stage', 'first review')
const second = await signal('review', 600000)
expose('stage', 'done')
export default [first, second]`

  test('a signal sent before the first step and one sent to a waiting workflow; an id is taken once; queries read exposed values', async () => {
    const { json: started } = await start({ source: REVIEW })
    // Sent at once (the first step may not have run: the command writes the start entry).
    const s1 = await command(`/v1/workflows/${started.id}/signal`, { name: 'review', value: { ok: 1 }, id: 'rev-1' })
    expect(s1.status).toBe(200)
    expect(s1.json.signal).toEqual({ id: 'rev-1', duplicate: false })
    const waiting = await until(started.id, (wf) => wf.state === 'waiting')
    expect(waiting.exposed).toBeUndefined()
    expect((await req('GET', `/v1/workflows/${started.id}/query/stage`)).json).toMatchObject({ name: 'stage', value: 'first review' })
    expect((await req('GET', `/v1/workflows/${started.id}/query/nope`)).status).toBe(404)
    expect((await req('GET', `/v1/workflows/${started.id}/query/stage`, undefined, 'other-token')).status).toBe(404)

    const dup = await command(`/v1/workflows/${started.id}/signal`, { name: 'review', value: { ok: 'again' }, id: 'rev-1' })
    expect(dup.json.signal).toEqual({ id: 'rev-1', duplicate: true })
    await command(`/v1/workflows/${started.id}/signal`, { name: 'review', value: { ok: 2 } })
    const done = await until(started.id, (wf) => wf.state === 'done')
    expect(done.result).toEqual([{ ok: 1 }, { ok: 2 }])
    expect((await req('GET', `/v1/workflows/${started.id}/query/stage`)).json.value).toBe('done')
    const late = await req('POST', `/v1/workflows/${started.id}/signal`, { name: 'review' })
    expect(late.status).toBe(409)
    expect(late.json.error.code).toBe('WORKFLOW_STATE')
    expect((await req('POST', `/v1/workflows/${started.id}/signal`, { value: 1 })).status).toBe(400)
  })
})

describe('cancellation', () => {
  test('cancel a waiting workflow: its wait throws WORKFLOW_CANCELLED, finally runs an agent call, it ends cancelled', async () => {
    const source = `
try {
  await agent('approve?', { external: true })
} finally {
  await agent('cleanup')
}
export default 'not reached'`
    const { json: started } = await start({ source })
    await until(started.id, (wf) => wf.state === 'waiting')
    const c = await command(`/v1/workflows/${started.id}/cancel`, { reason: 'superseded' })
    expect(c.status).toBe(200)
    const ended = await until(started.id, (wf) => wf.state === 'cancelled')
    expect(ended.error.code).toBe('WORKFLOW_CANCELLED')
    expect(ended.error.message).toContain('superseded')
    expect(llm.counts.get('cleanup')).toBe(1)
    const again = await req('POST', `/v1/workflows/${started.id}/cancel`, {})
    expect(again.json.error.code).toBe('WORKFLOW_STATE')
  })
})

describe('child workflows', () => {
  const PARENT = `
const a = await workflow('child', { n: 2 })
const b = await workflow('child', { n: 3 })
export default { a, b, spent: budget.spent() }`
  const CHILD = `
const answer = await agent('child ' + args.n)
const ok = await agent('confirm ' + args.n + '?', { external: true })
export default { answer, ok, n: args.n }`

  test('a child runs as its own workflow of the tenant; its result goes to the parent, which completes', async () => {
    const { json: parent } = await start({ source: PARENT, workflows: { child: CHILD }, budget: 10 })
    for (const n of [2, 3]) {
      const waiting = await until(parent.id, (wf) => wf.state === 'waiting' && wf.children?.length === n - 1)
      const child = waiting.children[n - 2]
      const c = await until(child.id, (wf) => wf.state === 'waiting')
      expect(c.parent).toBe(parent.id)
      await req('POST', `/v1/workflows/${child.id}/requests/${c.requests[0].id}`, { value: true })
    }
    const done = await until(parent.id, (wf) => wf.state === 'done')
    expect(done.result).toEqual({ a: { answer: 'echo: child 2', ok: true, n: 2 }, b: { answer: 'echo: child 3', ok: true, n: 3 }, spent: 2 })
    expect(llm.counts.get('child 2')).toBe(1)
  })

  test('an unknown module fails the call (the parent may catch it); the child of another tenant is not visible', async () => {
    const { json: wf } = await start({ source: `let r\ntry { r = await workflow('missing') } catch (e) { r = e.message }\nexport default r` })
    const done = await until(wf.id, (x) => x.state === 'done')
    expect(done.result).toContain('no module "missing"')
    const refused = await start({ source: PARENT, workflows: { child: 'const x = (' } })
    expect(refused.status).toBe(422)
  })

  test('cancelling the parent cancels the child it waits for', async () => {
    const { json: parent } = await start({ source: PARENT, workflows: { child: CHILD } })
    const waiting = await until(parent.id, (wf) => wf.state === 'waiting' && wf.children?.length === 1)
    const childId = waiting.children[0].id
    await until(childId, (wf) => wf.state === 'waiting')
    expect((await command(`/v1/workflows/${parent.id}/cancel`, { reason: 'stop' })).status).toBe(200)
    expect((await until(parent.id, (wf) => wf.state === 'cancelled')).error.code).toBe('WORKFLOW_CANCELLED')
    const child = await until(childId, (wf) => wf.state === 'cancelled')
    expect(child.error.message).toContain(parent.id)
  })
})

describe('live executions between steps', () => {
  const STEPS = (n: number) => `const out = []\nfor (let i = 0; i < ${n}; i++) out.push(await agent('live ' + i, { external: true }))\nexport default out.length`

  async function answerAll(id: string, n: number) {
    for (let i = 0; i < n; i++) {
      const wf = await until(id, (x) => x.state === 'waiting' && x.requests.length === 1 && x.requests[0].prompt === `live ${i}`)
      await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: i })
    }
    return (await until(id, (x) => x.state === 'done')).result
  }

  test('a step continues the live execution: no journal entry is replayed after the first step', async () => {
    const before = { ...workflowStepStats }
    const { json: wf } = await start({ source: STEPS(30) })
    expect(await answerAll(wf.id, 30)).toBe(30)
    // 31 steps: the first starts the run from the start entry POST /v1/workflows wrote (one entry), each later one absorbs the answer journaled by the POST.
    expect(workflowStepStats.replayedEntries - before.replayedEntries).toBe(1)
    expect(workflowStepStats.misses - before.misses).toBe(1)
    expect(workflowStepStats.hits - before.hits).toBe(30)
  })

  test('evicted executions replay from the journal to the same state', async () => {
    const saved = workflowStepStats.maxLive
    workflowStepStats.maxLive = 1
    try {
      const before = { ...workflowStepStats }
      const a = (await start({ source: STEPS(4) })).json.id
      const b = (await start({ source: STEPS(4) })).json.id
      // Interleaved: each step of one evicts the other.
      for (let i = 0; i < 4; i++) {
        for (const id of [a, b]) {
          const wf = await until(id, (x) => x.state === 'waiting' && x.requests[0]?.prompt === `live ${i}`)
          await req('POST', `/v1/workflows/${id}/requests/${wf.requests[0].id}`, { value: i })
          await until(id, (x) => x.state === 'done' || x.requests[0]?.prompt === `live ${i + 1}`) // one step at a time
        }
      }
      for (const id of [a, b]) expect((await until(id, (x) => x.state === 'done')).result).toBe(4)
      expect(workflowStepStats.misses - before.misses).toBeGreaterThan(4) // the first two steps, and replays after evictions
      expect(workflowStepStats.replayedEntries - before.replayedEntries).toBeGreaterThan(0)
    } finally {
      workflowStepStats.maxLive = saved
    }
  }, 30_000)
})
