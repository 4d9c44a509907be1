/**
 * Signals (buffered before the wait, delivered to a parked wait, timeouts,
 * across a resume), queries, cancellation with cleanup, and versioning
 * (patched() with old and new runs, upgrade, divergence still refused).
 */
import { expect, test } from 'bun:test'
import { MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow, type WorkflowRequest } from '../../src/workflows/index.ts'
import { CANCELLED_WITH_CLEANUP, fakeClock } from './helpers.ts'

test('signals: one sent before the wait is buffered and journaled; one sent while parked wakes it; both replay after a crash', async () => {
  const store = new MemoryJournalStore()
  const program = compileWorkflow(`
const early = await signal('config')
expose('stage', 'waiting for approval')
const approval = await signal('approved')
expose('stage', 'approved')
export default { early, approval }`)
  const ex = startWorkflow(program, { store, executionId: 's1' })
  expect(ex.signal('config', { mode: 'fast' })).toBe(true) // before the run reached the wait
  expect(await ex.poll()).toBe('Pending')
  expect(ex.query('stage')).toBe('waiting for approval')
  ex.dispose() // a crash while waiting
  const again = await resumeWorkflow(program, store.read('s1'), { store, executionId: 's1' })
  expect(await again.poll()).toBe('Pending')
  expect(again.query()).toEqual({ stage: 'waiting for approval' })
  again.signal('approved', { by: 'ana' }, 'sig-ana')
  expect(again.signal('approved', { by: 'ana' }, 'sig-ana')).toBe(false) // the same id again: ignored
  expect(await again.poll()).toEqual({ Complete: { result: { early: { mode: 'fast' }, approval: { by: 'ana' } } } })
  expect(store.read('s1').filter((e) => e.t === 'signal' || e.t === 'wait').map((e) => e.t)).toEqual(['signal', 'wait', 'signal', 'wait'])
  const third = await resumeWorkflow(program, store.read('s1'))
  expect(await third.poll()).toEqual({ Complete: { result: { early: { mode: 'fast' }, approval: { by: 'ana' } } } })
})

test('a signal wait with a timeout: null when the timer ends first; a signal after the timeout goes to the next wait; replays the same', async () => {
  const clock = fakeClock()
  const program = compileWorkflow(`const first = await signal('go', 5000)\nconst second = await signal('go', 5000)\nexport default [first, second]`)
  const ex = startWorkflow(program, { clock: clock.now })
  const timer = (await ex.poll()) as { Request: WorkflowRequest & { durationMs: number } }
  expect(timer.Request).toMatchObject({ type: 'sleep', durationMs: 5000 })
  ex.resolveRequest(timer.Request.id, 'OkUndefined') // the timeout
  const timer2 = (await ex.poll()) as { Request: WorkflowRequest }
  ex.takePendingRequests()
  ex.signal('go', 'now')
  expect(await ex.poll()).toEqual({ Complete: { result: [null, 'now'] } })
  expect(() => ex.resolveRequest(timer2.Request.id, 'OkUndefined')).toThrow('No pending request') // its timer was ended with the wait
  const replay = await resumeWorkflow(program, ex.journal(), { clock: clock.now })
  expect(await replay.poll()).toEqual({ Complete: { result: [null, 'now'] } })
})

test('cancellation: the current wait throws WORKFLOW_CANCELLED, finally cleanup runs (and may call agents), the run ends cancelled; replays the same', async () => {
  const program = compileWorkflow(CANCELLED_WITH_CLEANUP)
  const store = new MemoryJournalStore()
  const ex = startWorkflow(program, { store, executionId: 'c1' })
  const work = (await ex.poll()) as { Request: WorkflowRequest }
  ex.takePendingRequests()
  const aborted = ex.requestSignal(work.Request.id)
  expect(ex.cancel('user asked')).toBe(true)
  expect(aborted.aborted).toBe(true) // the host stops the call in flight
  const cleanup = (await ex.poll()) as { Request: WorkflowRequest & { prompt: string } }
  expect(cleanup.Request.prompt).toBe('clean up')
  ex.resolveRequest(cleanup.Request.id, { Ok: 'done' })
  await expect(ex.poll()).rejects.toMatchObject({ code: 'WORKFLOW_CANCELLED', cause: { code: 'WORKFLOW_CANCELLED', message: 'cancelled: user asked' } })
  expect(store.read('c1').at(-1)).toMatchObject({ t: 'end', error: { code: 'WORKFLOW_CANCELLED' } })
  await expect((await resumeWorkflow(program, store.read('c1'))).poll()).rejects.toMatchObject({ code: 'WORKFLOW_CANCELLED' })
  // A cancel while no wait is parked is thrown by the next wait; a workflow may catch it and finish.
  const caught = startWorkflow(`let r\ntry { r = await signal('x') } catch (e) { r = e.code }\nexport default r`)
  caught.cancel()
  expect(await caught.poll()).toEqual({ Complete: { result: 'WORKFLOW_CANCELLED' } })
})

test('versioning: patched() keeps old runs on the old path and new runs on the new; upgrade pins the new AST; a divergent replay is still refused', async () => {
  const v1 = compileWorkflow(`const a = await agent('one')\nconst b = await agent('two')\nexport default [a, b]`)
  const v2 = compileWorkflow(`const a = await agent('one')
const b = patched('polite-two') ? await agent('two, please') : await agent('two')
export default [a, b]`)
  const store = new MemoryJournalStore()
  // An old run, in flight past its patched point (it asked 'two' already) ...
  const old = startWorkflow(v1, { store, executionId: 'old' })
  const one = (await old.poll()) as { Request: WorkflowRequest }
  old.resolveRequest(one.Request.id, { Ok: 'A' })
  await old.poll()
  old.dispose()
  await expect(resumeWorkflow(v2, store.read('old'))).rejects.toMatchObject({ code: 'WORKFLOW_VERSION_MISMATCH' })
  const upgraded = await resumeWorkflow(v2, store.read('old'), { store, executionId: 'old', upgrade: true })
  const two = (await upgraded.poll()) as { Request: WorkflowRequest & { prompt: string } }
  expect(two.Request.prompt).toBe('two') // the old branch: its journal asked for 'two'
  upgraded.resolveRequest(two.Request.id, { Ok: 'B' })
  expect(await upgraded.poll()).toEqual({ Complete: { result: ['A', 'B'] } })
  expect(store.read('old').some((e) => e.t === 'upgrade')).toBe(true)
  expect(await (await resumeWorkflow(v2, store.read('old'))).poll()).toEqual({ Complete: { result: ['A', 'B'] } }) // pinned to v2 now
  // An old run that had not reached the point takes the new path; a new run too.
  const early = startWorkflow(v1, { store, executionId: 'early' })
  await early.poll()
  early.dispose()
  const lifted = await resumeWorkflow(v2, store.read('early'), { upgrade: true })
  const ask1 = (await lifted.poll()) as { Request: WorkflowRequest }
  lifted.resolveRequest(ask1.Request.id, { Ok: 'A' })
  expect(((await lifted.poll()) as { Request: { prompt: string } }).Request.prompt).toBe('two, please')
  // A change without patched() that alters a step the journal has: JOURNAL_MISMATCH, not a silent continue.
  const v3 = compileWorkflow(`const a = await agent('uno')\nexport default a`)
  await expect(resumeWorkflow(v3, store.read('old'), { upgrade: true })).rejects.toMatchObject({ code: 'JOURNAL_MISMATCH' })
})
