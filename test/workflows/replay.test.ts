/** Journal, replay and resume: same state, no re-emitted calls, remainders, mismatches, limits. */
import { expect, test } from 'bun:test'
import {
  MemoryJournalStore, compileWorkflow, resumeWorkflow, startWorkflow, WorkflowError, type JournalEntry, type WorkflowRequest,
} from '../../src/workflows/index.ts'
import { drive, fakeClock } from './helpers.ts'

const STEPS = `import { sleep } from 'workflow:extra'
phase('collect')
const a = await agent('first ' + args.topic)
log('got', a)
const r = Math.random()
await sleep(60000)
phase('finish')
const b = await agent('second ' + a)
export default { a, b, r, spent: budget.spent() }
`
const answer = (r: WorkflowRequest) =>
  r.type === 'agent' ? { OkWithBudget: { value: r.prompt.toUpperCase(), budget: { total: 10, spent: r.prompt.length } } } : 'OkUndefined'

async function rejection(p: Promise<unknown>): Promise<WorkflowError> {
  try { await p } catch (e) { return e as WorkflowError }
  throw new Error('expected a rejection')
}

test('a resumed run reaches the same result; log/phase before the crash point are not emitted again', async () => {
  const program = compileWorkflow(STEPS, { sourceName: 'steps.ajs' })
  const full = startWorkflow(program, { args: { topic: 'cats' }, budget: { total: 10 } })
  const whole = await drive(full, answer)
  const journal = full.journal()
  // Cut the journal right after the first agent's resolution, as a crash would.
  const cut = journal.findIndex((e) => e.t === 'resolution') + 1
  const resumed = await resumeWorkflow(program, journal.slice(0, cut))
  const rest = await drive(resumed, answer)
  expect(rest.result).toEqual(whole.result)
  const emitted = rest.seen.filter((p) => typeof p === 'object' && 'Call' in p)
  // `phase('collect')` came before the cut: only the log and the second phase are new.
  expect(emitted).toEqual([{ Call: { type: 'log', values: ['got', 'FIRST CATS'] } }, { Call: { type: 'phase', name: 'finish' } }])
  // The resumed journal continues the original one and equals it (same seed, same request ids).
  expect(resumed.journal().filter((e) => e.t !== 'start').map((e) => e.t)).toEqual(journal.filter((e) => e.t !== 'start').map((e) => e.t))
})

test('resume restores the budget spent from the journal', async () => {
  const full = startWorkflow(STEPS, { args: { topic: 'x' }, budget: { total: 10 } })
  await drive(full, answer)
  const journal = full.journal()
  const cut = journal.findIndex((e) => e.t === 'request' && e.request.type === 'sleep') + 1
  const resumed = await resumeWorkflow(STEPS, journal.slice(0, cut))
  expect(resumed.budget).toEqual({ total: 10, spent: 'first x'.length })
  resumed.dispose()
})

test('a sleep in flight at the crash waits only the remainder (fake clock)', async () => {
  const clock = fakeClock()
  const ex = startWorkflow(`import { sleep } from 'workflow:extra'\nawait sleep(60000)\nexport default 'woke'`, { clock: clock.now })
  const first = (await ex.poll()) as { Request: WorkflowRequest }
  expect(first.Request).toMatchObject({ type: 'sleep', durationMs: 60000 })
  const journal = ex.journal()
  expect(journal.find((e) => e.t === 'request')).toMatchObject({ wakeAt: clock.now() + 60000 })
  ex.dispose()
  clock.advance(45_000)
  const resumed = await resumeWorkflow(`import { sleep } from 'workflow:extra'\nawait sleep(60000)\nexport default 'woke'`, journal, { clock: clock.now })
  const again = (await resumed.poll()) as { Request: WorkflowRequest }
  // Same request id, remaining 15 s.
  expect(again.Request).toEqual({ type: 'sleep', id: first.Request.id, durationMs: 15000 })
  clock.advance(60_000)
  resumed.dispose()
  const late = await resumeWorkflow(`import { sleep } from 'workflow:extra'\nawait sleep(60000)\nexport default 'woke'`, journal, { clock: clock.now })
  expect(((await late.poll()) as { Request: WorkflowRequest }).Request).toMatchObject({ durationMs: 0 })
  late.resolveRequest(first.Request.id, 'OkUndefined')
  expect(await late.poll()).toEqual({ Complete: { result: 'woke' } })
})

test('a journal of another AST is refused with WORKFLOW_VERSION_MISMATCH', async () => {
  const ex = startWorkflow(`export default await agent('a')`)
  await ex.poll()
  const journal = ex.journal()
  ex.dispose()
  const err = await rejection(resumeWorkflow(`export default await agent('b')`, journal))
  expect(err.code).toBe('WORKFLOW_VERSION_MISMATCH')
  expect(err.entry).toBe(0)
})

test('a replay that takes another path fails with JOURNAL_MISMATCH naming the entry', async () => {
  // Same AST, different path: the journal says args.mode was "a"; a tampered start entry says "b".
  const src = `const mode = args.mode\nconst x = mode === 'a' ? await agent('path a') : await agent('path b')\nexport default x`
  const ex = startWorkflow(src, { args: { mode: 'a' } })
  await drive(ex, () => ({ Ok: 1 }))
  const journal = ex.journal()
  const tampered = journal.map((e) => (e.t === 'start' ? { ...e, args: { mode: 'b' } } : e)) as JournalEntry[]
  const err = await rejection(resumeWorkflow(src, tampered, { sourceName: 'paths.ajs' }))
  expect(err.code).toBe('JOURNAL_MISMATCH')
  const requestEntry = journal.findIndex((e) => e.t === 'request')
  expect(err.entry).toBe(requestEntry)
  expect(err.message).toContain(`journal entry #${requestEntry} (agent at paths.ajs:2:32`)
  expect(err.message).toContain('instead it asked for agent at paths.ajs:2:56')
})

test('a malformed journal is JOURNAL_INVALID with the entry index', async () => {
  const ex = startWorkflow(`export default await agent('a')`)
  await ex.poll()
  const journal = ex.journal()
  ex.dispose()
  expect((await rejection(resumeWorkflow(`export default await agent('a')`, []))).code).toBe('JOURNAL_INVALID')
  const bad = [...journal, { t: 'resolution', id: 'agent-unknown', resolution: 'OkUndefined' }] as JournalEntry[]
  const err = await rejection(resumeWorkflow(`export default await agent('a')`, bad))
  expect(err.code).toBe('JOURNAL_INVALID')
  expect(err.entry).toBe(journal.length)
})

test('entries go to the store before poll returns; limits are JOURNAL_LIMIT errors', async () => {
  const store = new MemoryJournalStore()
  const ex = startWorkflow(`for (let i = 0; i < 10; i++) await agent('n' + i)\nexport default 1`, { store, executionId: 'run-1', limits: { maxEntries: 6 } })
  const p = (await ex.poll()) as { Request: WorkflowRequest }
  expect(store.read('run-1').map((e) => e.t)).toEqual(['start', 'request'])
  ex.resolveRequest(p.Request.id, { Ok: 1 })
  const err = await rejection(drive(ex, () => ({ Ok: 1 })))
  expect(err.code).toBe('JOURNAL_LIMIT')
  expect(err.message).toContain('limits.maxEntries')
  expect(store.read('run-1').length).toBe(6)
})

test('entries larger than maxEntryBytes are refused', async () => {
  const ex = startWorkflow(`export default await agent('x'.repeat(5000))`, { limits: { maxEntryBytes: 1000 } })
  const err = await rejection(ex.poll())
  expect(err.code).toBe('JOURNAL_LIMIT')
  expect(err.message).toContain('limits.maxEntryBytes')
})

test('random and uuid replay to the same values', async () => {
  const src = `const a = Math.random()\nconst u = uuid({})\nconst x = await agent('k')\nexport default { a, u, x, b: Math.random() }`
  const ex = startWorkflow(src)
  const whole = await drive(ex, () => ({ Ok: 'v' }))
  const journal = ex.journal()
  const resumed = await resumeWorkflow(src, journal.slice(0, 2))
  expect((await drive(resumed, () => ({ Ok: 'v' }))).result).toEqual(whole.result)
})
