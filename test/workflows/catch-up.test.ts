/**
 * Catching a live execution up (execution-catchup.ts): two executions of one
 * run, as two worker processes hold them, take its steps in turn over one
 * store. Each replays only the entries the other journaled since its own last
 * one (never the whole journal again), and the run ends as a single execution
 * would, with a journal a fresh replay accepts. A tail that does not fit is
 * refused, and a custom atom the tail has is not called again.
 */
import { expect, test } from 'bun:test'
import { defineAtom, s } from '../../src/index.ts'
import { MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow, type JournalEntry, type WorkflowExecution, type WorkflowRequest, type WorkflowResolution } from '../../src/workflows/index.ts'
import { CANCELLED_WITH_CLEANUP } from './helpers.ts'

const SOURCE = `
let total = 0
for (let i = 0; i < 12; i++) {
  log('step ' + i)
  total += await agent('q' + i, { timeoutMs: 60000 })
  if (i % 4 === 3) {
    const pair = await parallel([() => agent('pa' + i), () => agent('pb' + i)])
    total += pair[0] + pair[1]
  }
  if (i === 6) total += (await lookup({ n: i })).v
  if (i === 8) total += (await signal('bonus')).add
  upsertAttributes({ done: i })
}
export default total
`

function lookupAtom() {
  const seen: number[] = []
  const atom = defineAtom('lookup', s.object({ n: s.number }), undefined, async ({ n }) => { seen.push(n); return { v: n * 100 } })
  return { atom, seen }
}

const answerOf = (r: WorkflowRequest): WorkflowResolution => ({ Ok: r.type === 'agent' ? r.prompt.length : null })
/** Answer the agent requests; the timers of their timeouts stay parked (they end with their request). */
const answerAll = (ex: WorkflowExecution): void => { for (const r of ex.takePendingRequests()) if (r.type !== 'sleep') ex.resolveRequest(r.id, answerOf(r)) }

/**
 * One step of `ex`, as a worker takes it: what the store has past its last entry is applied (a command's
 * entries) or replayed forward (another process's steps), then the requests pending are answered and the run
 * goes on until it asks for new ones, which the next step (maybe the other process) answers.
 */
async function step(ex: WorkflowExecution, store: MemoryJournalStore, id: string, replayed: { n: number }): Promise<unknown> {
  const tail = store.read(id).slice(ex.entryCount)
  if (tail.length > 0 && !ex.absorb(tail)) {
    expect(await ex.catchUp(tail)).toBe(true)
    replayed.n += tail.length
  }
  let answered = false
  for (;;) {
    const p = await ex.poll()
    if (p === 'Pending') return undefined
    if ('Call' in p) continue
    if ('Complete' in p) return p.Complete.result
    if (answered) { ex.takePendingRequests(); return undefined }
    answerAll(ex)
    answered = true
  }
}

test('two executions taking a run\'s steps in turn replay each entry at most once and end as one execution would', async () => {
  const { atom, seen } = lookupAtom()
  const program = compileWorkflow(SOURCE, { atoms: [atom] })
  // The reference: one execution from start to end.
  const single = startWorkflow(program, { atoms: [atom] })
  single.signal('bonus', { add: 7 })
  let expected: unknown
  for (let i = 0; i < 500 && expected === undefined; i++) {
    const p = await single.poll()
    if (typeof p === 'object' && 'Complete' in p) expected = p.Complete.result
    else if (typeof p === 'object' && 'Request' in p) answerAll(single)
  }
  expect(typeof expected).toBe('number')
  const kinds = single.journal().map((e) => e.t)
  seen.length = 0

  const store = new MemoryJournalStore()
  const id = 'wf-alt'
  const execs: Array<WorkflowExecution | undefined> = [startWorkflow(program, { store, executionId: id, atoms: [atom] }), undefined]
  const replayed = [{ n: 0 }, { n: 0 }]
  let result: unknown
  let signalled = false
  for (let s = 0; s < 200 && result === undefined; s++) {
    const turn = s % 2
    if (!execs[turn]) {
      // The second process's first step: it replays the journal once.
      const journal = store.read(id)
      execs[turn] = await resumeWorkflow(program, journal, { store, executionId: id, atoms: [atom] })
      replayed[turn]!.n += journal.length
    }
    result = await step(execs[turn]!, store, id, replayed[turn]!)
    // The signal comes from outside (a command appends it) once the run waits for it.
    const journal = store.read(id)
    if (!signalled && journal.some((e) => e.t === 'request') && journal.filter((e) => e.t === 'atom').length === 1 && journal.filter((e) => e.t === 'call').length >= 9) {
      store.append(id, [{ t: 'signal', id: 'sig-bonus', name: 'bonus', payload: { add: 7 } }])
      signalled = true
    }
  }
  expect(result).toBe(expected)
  const journal = store.read(id)
  expect(journal.map((e) => e.t).sort()).toEqual([...kinds].sort())
  // Each execution replayed each entry at most once (not the journal at every step: its square).
  for (const r of replayed) expect(r.n).toBeLessThanOrEqual(journal.length)
  // The first only what the second wrote, the second its first journal and then what the first wrote.
  expect(replayed[0]!.n + replayed[1]!.n).toBeLessThanOrEqual(journal.length + 2)
  expect(replayed[0]!.n).toBeGreaterThan(0)
  expect(replayed[1]!.n).toBeGreaterThan(0)
  expect(seen).toEqual([6]) // the atom ran once, in whichever execution reached it first
  // Nothing was journaled twice: a fresh replay of the journal accepts it and ends the same.
  const fresh = await resumeWorkflow(program, journal, { atoms: [atom] })
  expect(await fresh.poll()).toEqual({ Complete: { result: expected } })
  expect(seen).toEqual([6])
})

test('a tail that does not fit the live state is refused and nothing of it is journaled; the run stays replayable', async () => {
  const program = compileWorkflow(`const a = await agent('one')\nconst b = await agent('two')\nexport default a + b`)
  const store = new MemoryJournalStore()
  const ex = startWorkflow(program, { store, executionId: 'wf-x' })
  const first = (await ex.poll()) as { Request: WorkflowRequest }
  ex.takePendingRequests()
  const before = store.read('wf-x').length
  // Another writer's tail: an answer, then a request this run never asks for at this point.
  const tail: JournalEntry[] = [
    { t: 'resolution', id: first.Request.id, resolution: { Ok: 1 } },
    { t: 'request', key: 'agent|9:0|0000000000000000|0', request: { type: 'agent', id: 'agent-elsewhere', prompt: 'three' } },
  ]
  expect(await ex.catchUp(tail)).toBe(false)
  expect(ex.state).toBe('disposed')
  expect(store.read('wf-x').length).toBe(before)
  // A resolution of a request it never made is refused up front, leaving it live.
  const other = startWorkflow(program)
  await other.poll()
  expect(await other.catchUp([{ t: 'resolution', id: 'agent-nope', resolution: { Ok: 1 } }])).toBe(false)
  expect(other.state).toBe('running')
})

test('a catch-up over a tail with the parked request answered and the next one asked: continues from there', async () => {
  const program = compileWorkflow(`const a = await agent('one')\nconst b = await agent('two')\nconst c = await agent('three')\nexport default [a, b, c]`)
  const store = new MemoryJournalStore()
  const x = startWorkflow(program, { store, executionId: 'wf-y' })
  await x.poll()
  x.takePendingRequests()
  // Another process replays the journal, answers 'one' and 'two' and parks on 'three'.
  const y = await resumeWorkflow(program, store.read('wf-y'), { store, executionId: 'wf-y' })
  for (let i = 0; i < 2; i++) {
    const p = (await y.poll()) as { Request: WorkflowRequest }
    y.takePendingRequests()
    y.resolveRequest(p.Request.id, { Ok: i + 1 })
  }
  expect(await y.poll()).toMatchObject({ Request: { prompt: 'three' } })
  y.takePendingRequests()
  const tail = store.read('wf-y').slice(x.entryCount)
  expect(tail.map((e) => e.t)).toEqual(['resolution', 'request', 'resolution', 'request'])
  expect(await x.catchUp(tail)).toBe(true)
  const three = (await x.poll()) as { Request: WorkflowRequest }
  expect(three.Request).toMatchObject({ type: 'agent', prompt: 'three' }) // asked again: in flight when the tail ended
  x.takePendingRequests()
  x.resolveRequest(three.Request.id, { Ok: 3 })
  expect(await x.poll()).toEqual({ Complete: { result: [1, 2, 3] } })
  expect(store.read('wf-y').filter((e) => e.t === 'request')).toHaveLength(3)
})

test('a tail with a cancellation another process delivered: the parked wait throws it here too, cleanup runs once', async () => {
  const program = compileWorkflow(CANCELLED_WITH_CLEANUP)
  const store = new MemoryJournalStore()
  const x = startWorkflow(program, { store, executionId: 'wf-c' })
  expect(await x.poll()).toMatchObject({ Request: { prompt: 'long work' } })
  x.takePendingRequests()
  // A command journals the cancellation; another process's step replays and delivers it, and asks for the cleanup.
  store.append('wf-c', [{ t: 'cancel', reason: 'stop' }])
  const y = await resumeWorkflow(program, store.read('wf-c'), { store, executionId: 'wf-c' })
  expect(await y.poll()).toMatchObject({ Request: { prompt: 'clean up' } })
  y.takePendingRequests()
  const tail = store.read('wf-c').slice(x.entryCount)
  expect(tail.map((e) => e.t)).toEqual(['cancel', 'resolution', 'request'])
  expect(x.absorb(tail)).toBe(false)
  expect(await x.catchUp(tail)).toBe(true)
  expect(x.cancelled).toBe('stop')
  const cleanup = (await x.poll()) as { Request: WorkflowRequest }
  expect(cleanup.Request).toMatchObject({ prompt: 'clean up' })
  x.takePendingRequests()
  x.resolveRequest(cleanup.Request.id, { Ok: 'done' })
  await expect(x.poll()).rejects.toMatchObject({ code: 'WORKFLOW_CANCELLED' })
  const journal = store.read('wf-c')
  expect(journal.filter((e) => e.t === 'cancel')).toHaveLength(1)
  expect(journal.filter((e) => e.t === 'request')).toHaveLength(2)
  expect(journal.at(-1)).toMatchObject({ t: 'end', error: { code: 'WORKFLOW_CANCELLED' } })
})
