/** Every poll / resolve path of the boundary, in process. */
import { expect, test } from 'bun:test'
import { startWorkflow, WorkflowError, type WorkflowRequest } from '../../src/workflows/index.ts'
import { drive } from './helpers.ts'

function codeOf(fn: () => unknown): string | undefined {
  try { fn() } catch (e) { return (e as WorkflowError).code }
  return undefined
}
async function rejection(p: Promise<unknown>): Promise<WorkflowError> {
  try { await p } catch (e) { return e as WorkflowError }
  throw new Error('expected a rejection')
}

test('log and phase are Calls, in order; the result is Complete, again on every poll', async () => {
  const ex = startWorkflow(`log('a', args.n); phase('p1', { step: 1 }); log(); export default args.n * 2`, { args: { n: 21 } })
  expect(await ex.poll()).toEqual({ Call: { type: 'log', values: ['a', 21] } })
  expect(await ex.poll()).toEqual({ Call: { type: 'phase', name: 'p1', options: { step: 1 } } })
  expect(await ex.poll()).toEqual({ Call: { type: 'log', values: [] } })
  expect(await ex.poll()).toEqual({ Complete: { result: 42 } })
  expect(await ex.poll()).toEqual({ Complete: { result: 42 } })
  expect(ex.state).toBe('complete')
})

test('no default export completes with null', async () => {
  const ex = startWorkflow(`const x = 1`)
  expect(await ex.poll()).toEqual({ Complete: { result: null } })
})

test('an undrained request is reported again by poll; resolving it directly works', async () => {
  const ex = startWorkflow(`const a = await agent('one'); export default a`)
  const first = await ex.poll()
  const again = await ex.poll()
  expect(again).toEqual(first)
  const id = (first as { Request: WorkflowRequest }).Request.id
  ex.resolveRequest(id, { Ok: 'A' })
  expect(await ex.poll()).toEqual({ Complete: { result: 'A' } })
})

test('drained requests: Pending until resolved', async () => {
  const ex = startWorkflow(`export default await agent('x')`)
  const p = await ex.poll()
  expect(typeof p === 'object' && 'Request' in p).toBe(true)
  const [r] = ex.takePendingRequests()
  expect(ex.takePendingRequests()).toEqual([])
  expect(await ex.poll()).toBe('Pending')
  expect(await ex.poll()).toBe('Pending')
  expect(ex.pendingRequestIds()).toEqual([r!.id])
  ex.resolveRequest(r!.id, { Ok: 1 })
  expect(await ex.poll()).toEqual({ Complete: { result: 1 } })
})

test('Ok, OkUndefined, OkWithBudget and Err reach the workflow', async () => {
  const src = `
    const a = await agent('ok')
    const b = await agent('undefined')
    const before = budget.spent()
    const c = await agent('budget')
    let d
    try { await agent('err') } catch (e) { d = e.message }
    export default { a, b: b === undefined, before, c, d, total: budget.total, spent: budget.spent(), remaining: budget.remaining() }`
  const ex = startWorkflow(src, { budget: { total: 100, spent: 1 } })
  const answers: Record<string, unknown> = {
    ok: { Ok: { text: 'hi' } },
    undefined: 'OkUndefined',
    budget: { OkWithBudget: { value: 'paid', budget: { total: 100, spent: 30 } } },
    err: { Err: { message: 'rate limited' } },
  }
  const { result } = await drive(ex, (r) => answers[(r as { prompt: string }).prompt])
  expect(result).toEqual({ a: { text: 'hi' }, b: true, before: 1, c: 'paid', d: 'rate limited', total: 100, spent: 30, remaining: 70 })
  expect(ex.budget).toEqual({ total: 100, spent: 30 })
})

test('an uncaught Err fails the workflow: poll throws WORKFLOW_FAILED with the located cause', async () => {
  const ex = startWorkflow(`log('before')\nconst a = await agent('x')\nexport default a`, { sourceName: 'fail.ajs' })
  const p = await ex.poll()
  expect(p).toEqual({ Call: { type: 'log', values: ['before'] } })
  const r = await ex.poll()
  ex.resolveRequest((r as { Request: WorkflowRequest }).Request.id, { Err: { message: 'boom' } })
  const err = await rejection(ex.poll())
  expect(err.code).toBe('WORKFLOW_FAILED')
  expect(err.cause?.message).toBe('boom')
  expect(err.cause?.location).toBe('fail.ajs:2:17')
  expect(ex.state).toBe('failed')
})

test('unknown, repeated and malformed resolutions throw; the execution is unharmed', async () => {
  const ex = startWorkflow(`export default await agent('x')`)
  const r = (await ex.poll()) as { Request: WorkflowRequest }
  expect(codeOf(() => ex.resolveRequest('nope', { Ok: 1 }))).toBe('WORKFLOW_UNKNOWN_REQUEST')
  expect(codeOf(() => ex.resolveRequest(r.Request.id, { Bad: 1 }))).toBe('WORKFLOW_RESOLUTION_INVALID')
  ex.resolveRequest(r.Request.id, { Ok: 2 })
  expect(codeOf(() => ex.resolveRequest(r.Request.id, { Ok: 3 }))).toBe('WORKFLOW_UNKNOWN_REQUEST')
  expect(await ex.poll()).toEqual({ Complete: { result: 2 } })
})

test('a guest error (not a request) fails with its own code and location', async () => {
  const ex = startWorkflow(`log('x')\nif (args.n > 1) throw new Error('too big')\nexport default 1`, { sourceName: 'g.ajs', args: { n: 2 } })
  expect(await ex.poll()).toEqual({ Call: { type: 'log', values: ['x'] } })
  const err = await rejection(ex.poll())
  expect(err).toBe(ex.error!)
  expect(err.code).toBe('WORKFLOW_FAILED')
  expect(err.cause?.code).toBe('THROWN')
  expect(err.cause?.location).toBe('g.ajs:2:17')
})

test('dispose stops the execution: poll and resolve throw WORKFLOW_DISPOSED', async () => {
  const ex = startWorkflow(`export default await agent('x')`)
  const r = (await ex.poll()) as { Request: WorkflowRequest }
  ex.dispose()
  expect(ex.state).toBe('disposed')
  expect((await rejection(ex.poll())).code).toBe('WORKFLOW_DISPOSED')
  expect(codeOf(() => ex.resolveRequest(r.Request.id, { Ok: 1 }))).toBe('WORKFLOW_DISPOSED')
})

test('options are checked: unknown keys and bad values are WORKFLOW_OPTIONS_INVALID', () => {
  expect(codeOf(() => startWorkflow('export default 1', { nope: 1 } as never))).toBe('WORKFLOW_OPTIONS_INVALID')
  expect(codeOf(() => startWorkflow('export default 1', { sandbox: { fuel: -1 } }))).toBe('WORKFLOW_OPTIONS_INVALID')
  expect(codeOf(() => startWorkflow('export default 1', { sandbox: { memory: 1 } as never }))).toBe('WORKFLOW_OPTIONS_INVALID')
  expect(codeOf(() => startWorkflow('export default 1', { limits: { maxEntries: 0 } }))).toBe('WORKFLOW_OPTIONS_INVALID')
  expect(codeOf(() => startWorkflow({ ajs: 1 } as never))).toBe('WORKFLOW_OPTIONS_INVALID')
})

test('out of fuel is a failure with the VM code', async () => {
  const ex = startWorkflow(`let n = 0\nwhile (true) { n++ }`, { sandbox: { fuel: 50 } })
  const err = await rejection(ex.poll())
  expect(err.code).toBe('WORKFLOW_FAILED')
  expect(err.cause?.code).toBe('FUEL_EXHAUSTED')
})

test('a long computation between requests is not reported as Pending (the VM pauses between time slices)', async () => {
  const ex = startWorkflow(`const a = await agent('one')\nlet s = 0\nfor (let i = 0; i < 1000000; i++) s += i % 7\nexport default await agent('two ' + s)`)
  const first = (await ex.poll()) as { Request: WorkflowRequest }
  ex.resolveRequest(first.Request.id, { Ok: 1 })
  const second = await ex.poll()
  expect(second).toMatchObject({ Request: { type: 'agent', prompt: 'two 2999997' } })
  ex.dispose()
})

test('takePendingRequests drains every queued request; calls stay queued in order', async () => {
  const ex = startWorkflow(`const r = await parallel([() => agent('a'), () => { log('in task'); return agent('b') }])\nexport default r`)
  const first = await ex.poll()
  expect(first).toMatchObject({ Request: { prompt: 'a' } })
  const taken = ex.takePendingRequests()
  expect(taken.map((r) => (r as { prompt: string }).prompt)).toEqual(['a', 'b'])
  expect(await ex.poll()).toEqual({ Call: { type: 'log', values: ['in task'] } })
  expect(await ex.poll()).toBe('Pending')
  for (const r of taken) ex.resolveRequest(r.id, { Ok: (r as { prompt: string }).prompt })
  expect(await ex.poll()).toEqual({ Complete: { result: ['a', 'b'] } })
})
