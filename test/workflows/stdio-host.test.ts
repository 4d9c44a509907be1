/** `ajsc workflow host --stdio` driven from this process over a pipe, as a seed host would. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { resolve } from 'node:path'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')
let host: ChildProcessWithoutNullStreams
let next: () => Promise<any>
let nextId = 1

beforeAll(() => {
  host = spawn(process.execPath, [MAIN, 'workflow', 'host', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] })
  const lines = createInterface({ input: host.stdout })
  const queue: string[] = []
  const waiters: Array<(l: string) => void> = []
  lines.on('line', (l) => { const w = waiters.shift(); if (w) w(l); else queue.push(l) })
  next = () => new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error('no reply from the host within 10 s')), 10_000)
    const take = (l: string) => { clearTimeout(t); res(JSON.parse(l)) }
    const l = queue.shift()
    if (l !== undefined) take(l); else waiters.push(take)
  })
})
afterAll(() => { host.stdin.end(); host.kill() })

async function rpc(method: string, params?: unknown): Promise<any> {
  const id = nextId++
  host.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) })}\n`)
  const reply = await next()
  expect(reply.id).toBe(id)
  return reply
}

const SOURCE = `import { sleep } from 'workflow:extra'
phase('ask', { of: 2 })
const answer = await agent('What is ' + args.q + '?', { model: 'small' })
await sleep(5)
log('answer', answer)
export default { answer, spent: budget.spent() }
`

test('start_module, poll, take_pending_requests, resolve_request: the seed methods and encodings', async () => {
  const started = await rpc('start_module', { source: SOURCE, source_name: 'ask.ajs', args: { q: '6x7' }, budget: { total: 10, spent: 0 } })
  const execution = started.result.execution
  expect(typeof execution).toBe('string')
  expect((await rpc('poll', { execution })).result).toEqual({ Call: { type: 'phase', name: 'ask', options: { of: 2 } } })
  const req = (await rpc('poll', { execution })).result
  expect(req).toMatchObject({ Request: { type: 'agent', prompt: 'What is 6x7?', options: { model: 'small' } } })
  const taken = (await rpc('take_pending_requests', { execution })).result
  expect(taken).toEqual([req.Request])
  expect((await rpc('poll', { execution })).result).toBe('Pending')
  const resolved = await rpc('resolve_request', { execution, id: req.Request.id, resolution: { OkWithBudget: { value: 42, budget: { total: 10, spent: 3 } } } })
  expect(resolved.result).toBeNull()
  const sleep = (await rpc('poll', { execution })).result
  expect(sleep).toMatchObject({ Request: { type: 'sleep', durationMs: 5 } })
  await rpc('resolve_request', { execution, id: sleep.Request.id, resolution: 'OkUndefined' })
  expect((await rpc('poll', { execution })).result).toEqual({ Call: { type: 'log', values: ['answer', 42] } })
  expect((await rpc('poll', { execution })).result).toEqual({ Complete: { result: { answer: 42, spent: 3 } } })
  const journal = (await rpc('journal', { execution })).result
  expect(journal.map((e: { t: string }) => e.t)).toEqual(['start', 'call', 'request', 'resolution', 'request', 'resolution', 'call', 'end'])
  await rpc('dispose', { execution })
})

test('two executions at once are told apart by execution id; resume_module continues a journal', async () => {
  const a = (await rpc('start_module', { source: `export default await agent(args.p)`, args: { p: 'A' } })).result.execution
  const b = (await rpc('start_module', { source: `export default await agent(args.p)`, args: { p: 'B' } })).result.execution
  expect(a).not.toBe(b)
  const ra = (await rpc('poll', { execution: a })).result.Request
  const rb = (await rpc('poll', { execution: b })).result.Request
  expect([ra.prompt, rb.prompt]).toEqual(['A', 'B'])
  // Without `execution` while two are open: invalid params.
  expect((await rpc('poll')).error.code).toBe(-32602)
  await rpc('resolve_request', { execution: b, id: rb.id, resolution: { Ok: 'b' } })
  expect((await rpc('poll', { execution: b })).result).toEqual({ Complete: { result: 'b' } })
  const journal = (await rpc('journal', { execution: a })).result
  await rpc('dispose', { execution: a })
  await rpc('dispose', { execution: b })
  const c = (await rpc('resume_module', { source: `export default await agent(args.p)`, journal })).result.execution
  const rc = (await rpc('poll', { execution: c })).result.Request
  expect(rc).toEqual(ra)
  await rpc('resolve_request', { id: rc.id, resolution: { Ok: 'a' } })
  expect((await rpc('poll')).result).toEqual({ Complete: { result: 'a' } })
  await rpc('dispose', { execution: c })
})

test('errors are JSON-RPC errors with the workflow code; the host keeps serving', async () => {
  host.stdin.write('not json\n')
  expect((await next()).error.code).toBe(-32700)
  expect((await rpc('nope')).error.code).toBe(-32601)
  const bad = await rpc('start_module', { source: 'const x = Date.now()', source_name: 'bad.ajs' })
  expect(bad.error).toMatchObject({ code: -32000, data: { code: 'AJS5006', file: 'bad.ajs', line: 1, column: 11 } })
  const ex = (await rpc('start_module', { source: 'export default await agent("x")' })).result.execution
  const r = (await rpc('poll', { execution: ex })).result.Request
  expect((await rpc('resolve_request', { execution: ex, id: 'nope', resolution: 'OkUndefined' })).error.data.code).toBe('WORKFLOW_UNKNOWN_REQUEST')
  expect((await rpc('resolve_request', { execution: ex, id: r.id, resolution: { Bad: 1 } })).error.data.code).toBe('WORKFLOW_RESOLUTION_INVALID')
  await rpc('resolve_request', { execution: ex, id: r.id, resolution: { Err: { message: 'model down' } } })
  const failed = await rpc('poll', { execution: ex })
  expect(failed.error).toMatchObject({ code: -32000, data: { code: 'WORKFLOW_FAILED', cause: { message: 'model down' } } })
  await rpc('dispose', { execution: ex })
})

test('start_module takes timeouts: the deadline and a request\'s timeout are sleep requests the host answers; resume_module keeps them', async () => {
  const source = `let draft
try { draft = await agent('draft', { retry: { maximumAttempts: 1 } }) } catch (e) { draft = 'no draft: ' + e.message }
await signal('go')
export default draft`
  const execution = (await rpc('start_module', { source, source_name: 'draft.ajs', timeouts: { runMs: 3_600_000, requestMs: 30_000 } })).result.execution
  // What is left of the deadline when the host is asked: the clock may have moved a millisecond since the start.
  const first = (await rpc('poll', { execution })).result.Request
  expect(first.type).toBe('sleep')
  expect(first.durationMs).toBeLessThanOrEqual(3_600_000)
  expect(first.durationMs).toBeGreaterThan(3_600_000 - 60_000)
  const [deadline, agent, timer] = (await rpc('take_pending_requests', { execution })).result
  expect([deadline.type, agent.type, timer.type, timer.durationMs]).toEqual(['sleep', 'agent', 'sleep', 30_000])
  expect((await rpc('pending_request_ids', { execution })).result.sort()).toEqual([deadline.id, agent.id, timer.id].sort())

  // The model never answers: the host's timer for the request ends first; the request is no longer pending.
  await rpc('resolve_request', { execution, id: timer.id, resolution: 'OkUndefined' })
  expect((await rpc('poll', { execution })).result).toBe('Pending') // waits for 'go'
  expect((await rpc('pending_request_ids', { execution })).result).toEqual([deadline.id])
  expect((await rpc('resolve_request', { execution, id: agent.id, resolution: { Ok: 'late' } })).error.data.code).toBe('WORKFLOW_UNKNOWN_REQUEST')

  // A crash: another host resumes the journal; the deadline (in the start entry) is asked again for what is left.
  const journal = (await rpc('journal', { execution })).result
  expect(journal[0]).toMatchObject({ t: 'start', timeouts: { runMs: 3_600_000, requestMs: 30_000 } })
  await rpc('dispose', { execution })
  const again = (await rpc('resume_module', { source, source_name: 'draft.ajs', journal })).result.execution
  const left = (await rpc('poll', { execution: again })).result.Request
  expect(left.id).toBe(deadline.id)
  expect(left.durationMs).toBeLessThanOrEqual(3_600_000)
  expect(left.durationMs).toBeGreaterThan(3_500_000)
  await rpc('take_pending_requests', { execution: again })
  await rpc('resolve_request', { execution: again, id: left.id, resolution: 'OkUndefined' })
  const ended = await rpc('poll', { execution: again })
  expect(ended.error).toMatchObject({ code: -32000, data: { code: 'WORKFLOW_TIMEOUT' } })
  expect((await rpc('journal', { execution: again })).result.at(-1)).toMatchObject({ t: 'end', error: { code: 'WORKFLOW_TIMEOUT' } })
  await rpc('dispose', { execution: again })

  const bad = await rpc('start_module', { source, timeouts: { runMs: -1 } })
  expect(bad.error).toMatchObject({ code: -32000, data: { code: 'WORKFLOW_OPTIONS_INVALID' } })
})
