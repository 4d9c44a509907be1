/**
 * Timeouts (issue 24): the run deadline (timeouts.runMs) and per-request
 * timeouts (timeouts.requestMs, agent(p, { timeoutMs })), journaled as the
 * engine's own sleep requests, so they survive a crash (fake clock); and
 * continueAsNew(args): a run restarts with a fresh journal, linked to the old one.
 */
import { expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  FileJournalStore, MemoryJournalStore, compileWorkflow, continueWorkflow, resumeWorkflow, startWorkflow, summarizeJournal,
  type JournalEntry, type WorkflowExecution, type WorkflowRequest,
} from '../../src/workflows/index.ts'
import { ajscIn, fakeClock } from './helpers.ts'

const sleepsOf = (batch: WorkflowRequest[]) => batch.filter((r): r is WorkflowRequest & { type: 'sleep' } => r.type === 'sleep')

/** Poll until Pending (or an end), draining requests; returns what was drained. */
async function drain(ex: WorkflowExecution): Promise<WorkflowRequest[]> {
  const out: WorkflowRequest[] = []
  for (let i = 0; i < 100; i++) {
    const p = await ex.poll()
    if (p === 'Pending' || 'Complete' in p) return out
    if ('Call' in p) continue
    out.push(...ex.takePendingRequests())
  }
  throw new Error('never parked')
}

test('the run deadline is a journaled sleep: it survives a crash, then fails the run WORKFLOW_TIMEOUT (not catchable)', async () => {
  const clock = fakeClock(1_000_000)
  const program = compileWorkflow(`
let got
try { got = await signal('go') } catch (e) { got = 'caught ' + e.message }
export default got`)
  const store = new MemoryJournalStore()
  const first = startWorkflow(program, { store, executionId: 'dl', clock: clock.now, timeouts: { runMs: 10_000 } })
  const [deadline] = sleepsOf(await drain(first))
  expect(deadline!.durationMs).toBe(10_000)
  expect(store.read('dl')[0]).toMatchObject({ t: 'start', timeouts: { runMs: 10_000 } })
  expect(store.read('dl')[1]).toMatchObject({ t: 'request', key: 'sleep|deadline:run|0|0', wakeAt: 1_010_000 })
  first.dispose() // a crash

  clock.advance(4_000)
  const second = await resumeWorkflow(program, store.read('dl'), { store, executionId: 'dl', clock: clock.now })
  const [left] = sleepsOf(await drain(second))
  expect(left).toMatchObject({ id: deadline!.id, durationMs: 6_000 }) // only what is left
  clock.advance(6_000)
  second.resolveRequest(left!.id, 'OkUndefined')
  const err = await second.poll().then(() => null, (e) => e)
  expect(err).toMatchObject({ code: 'WORKFLOW_TIMEOUT' })
  expect(err.hint).toContain('timeouts.runMs')
  expect(store.read('dl').at(-1)).toMatchObject({ t: 'end', error: { code: 'WORKFLOW_TIMEOUT' } })

  // A replay of the ended journal reaches the same failure (no JOURNAL_MISMATCH).
  const third = await resumeWorkflow(program, store.read('dl'), { clock: clock.now })
  await expect(third.poll()).rejects.toMatchObject({ code: 'WORKFLOW_TIMEOUT' })
})

test('a run that ends before its deadline drops the deadline (its request signal is aborted)', async () => {
  const ex = startWorkflow(`export default await agent('hi')`, { timeouts: { runMs: 60_000 } })
  const batch = await drain(ex)
  const deadline = sleepsOf(batch)[0]!
  const signal = ex.requestSignal(deadline.id)
  ex.resolveRequest(batch.find((r) => r.type === 'agent')!.id, { Ok: 'hello' })
  expect(await ex.poll()).toEqual({ Complete: { result: 'hello' } })
  expect(signal.aborted).toBe(true)
  expect(ex.pendingRequestIds()).toEqual([])
  expect(summarizeJournal(ex.journal()).requests.inFlight).toEqual([]) // the deadline is journaled as ended
  expect(await (await resumeWorkflow(ex.program, ex.journal())).poll()).toEqual({ Complete: { result: 'hello' } })
})

test('a cancellation leaves the deadline in place for the cleanup', async () => {
  const ex = startWorkflow(`try { await agent('work') } finally { await agent('cleanup') }`, { timeouts: { runMs: 60_000 } })
  await drain(ex)
  ex.cancel('stop')
  const batch = await drain(ex)
  expect(batch.map((r) => r.type)).toEqual(['agent'])
  expect(ex.pendingRequestIds()).toHaveLength(2) // the cleanup agent and the deadline
})

test('per-request timeouts: an attempt that takes too long fails TIMEOUT, is retried, and the host work is aborted; replays match', async () => {
  const clock = fakeClock(0)
  const program = compileWorkflow(`
let r
try { r = await agent('slow', { timeoutMs: 500, retry: { maximumAttempts: 2, initialIntervalMs: 100 } }) } catch (e) { r = e.message }
export default r`)
  const store = new MemoryJournalStore()
  const ex = startWorkflow(program, { store, executionId: 'rt', clock: clock.now })
  const aborted: boolean[] = []
  let result: unknown
  for (let i = 0; i < 50 && result === undefined; i++) {
    const p = await ex.poll()
    if (p !== 'Pending' && 'Complete' in p) { result = p.Complete.result; break }
    for (const r of ex.takePendingRequests()) {
      if (r.type === 'agent') { const s = ex.requestSignal(r.id); s.addEventListener('abort', () => aborted.push(true)) } // never answered
      else { clock.advance((r as { durationMs: number }).durationMs); ex.resolveRequest(r.id, 'OkUndefined') }
    }
  }
  expect(result).toBe('agent request timed out after 500 ms (timeoutMs)')
  expect(aborted).toEqual([true, true])
  const journal = store.read('rt')
  expect(journal.filter((e) => e.t === 'attempt')).toMatchObject([{ attempt: 1, error: { code: 'TIMEOUT' } }])
  expect(journal.filter((e) => e.t === 'request').map((e) => (e as { key: string }).key.split('|').slice(0, 2).join('|'))).toEqual([
    'agent|3:16', expect.stringMatching(/^sleep\|timeout:agent-/), expect.stringMatching(/^sleep\|retry:agent-/), expect.stringMatching(/^sleep\|timeout:agent-/),
  ])
  const again = await resumeWorkflow(program, journal)
  expect(await again.poll()).toEqual({ Complete: { result: 'agent request timed out after 500 ms (timeoutMs)' } })
})

test('per-request timeouts: an answer first ends the timer; a timer in flight at a crash waits only what is left', async () => {
  const clock = fakeClock(0)
  const program = compileWorkflow(`const a = await agent('one')\nconst b = await agent('two')\nexport default a + b`)
  const store = new MemoryJournalStore()
  const first = startWorkflow(program, { store, executionId: 'rq', clock: clock.now, timeouts: { requestMs: 1_000 } })
  let batch = await drain(first)
  expect(batch.map((r) => r.type)).toEqual(['agent', 'sleep'])
  first.resolveRequest(batch[0]!.id, { Ok: 'A' })
  const ended = [batch[0]!.id, batch[1]!.id]
  batch = await drain(first)
  expect(store.read('rq').filter((e) => e.t === 'resolution').map((e) => (e as { id: string }).id)).toEqual(ended)
  expect(batch.map((r) => r.type)).toEqual(['agent', 'sleep'])
  first.dispose() // a crash while 'two' runs

  clock.advance(300)
  const second = await resumeWorkflow(program, store.read('rq'), { store, executionId: 'rq', clock: clock.now })
  const again = await drain(second)
  expect(again.map((r) => [r.type, r.type === 'sleep' ? r.durationMs : r.id])).toEqual([['agent', batch[0]!.id], ['sleep', 700]])
  second.resolveRequest(again[0]!.id, { Ok: 'B' })
  expect(await second.poll()).toEqual({ Complete: { result: 'AB' } })
  expect((await resumeWorkflow(program, store.read('rq'))).state).toBe('complete')
})

test('timeouts are checked', () => {
  expect(() => startWorkflow('export default 1', { timeouts: { runMs: -1 } })).toThrow(/runMs must be a positive number/)
  expect(() => startWorkflow('export default 1', { timeouts: { runMS: 5 } as never })).toThrow(/Unknown options.timeouts field "runMS"/)
})

test('continueAsNew: each run of the chain has a fresh journal linked to the previous one; catch cannot stop it, finally runs', async () => {
  const program = compileWorkflow(`
const n = args.n ?? 0
const word = await agent('word ' + n)
const acc = (args.acc ?? '') + word
try { if (n < 3) continueAsNew({ n: n + 1, acc }) } catch (e) { log('never') } finally { if (n < 3) log('finally') }
export default acc`)
  const store = new MemoryJournalStore()
  let id = 'chain-0'
  let ex = startWorkflow(program, { store, executionId: id, args: {}, budget: { total: 10 }, timeouts: { requestMs: 5_000 } })
  const lengths: number[] = []
  for (let run = 0; ; run++) {
    let out: unknown
    for (;;) {
      const p = await ex.poll()
      if (p === 'Pending') continue
      if ('Call' in p) { expect(p.Call).toEqual({ type: 'log', values: ['finally'] }); continue }
      if ('Complete' in p) { out = p.Complete; break }
      for (const r of ex.takePendingRequests()) {
        if (r.type === 'agent') ex.resolveRequest(r.id, { OkWithBudget: { value: String(run), budget: { total: 10, spent: ex.budget.spent + 1 } } })
      }
    }
    const journal = store.read(id)
    lengths.push(journal.length)
    if (run === 3) { expect(out).toEqual({ result: '0123' }); break }
    expect(out).toEqual({ result: null, continueAsNew: { args: { n: run + 1, acc: '0123'.slice(0, run + 1) } } })
    expect(journal.at(-1)).toMatchObject({ t: 'end', continueAsNew: { budget: { total: 10, spent: run + 1 } } })
    // A replay of the continued run ends the same way.
    expect(await (await resumeWorkflow(program, journal)).poll()).toMatchObject({ Complete: { continueAsNew: { args: { n: run + 1 } } } })
    const next = `chain-${run + 1}`
    ex = continueWorkflow(program, { executionId: id, journal }, { store, executionId: next })
    expect(store.read(next)[0]).toMatchObject({ t: 'start', previous: id, chain: run + 1, args: { n: run + 1 }, budget: { spent: run + 1 }, timeouts: { requestMs: 5_000 } })
    id = next
  }
  expect(new Set(lengths).size).toBe(1) // every run's journal is as long as one run
  expect(() => continueWorkflow(program, { executionId: id, journal: store.read(id) })).toThrow(/did not end with continueAsNew/)
})

test('CLI: a local run continues as new into runs of its own (<run-id>.c<n>), linked to the previous; --timeouts sets a deadline', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ajs-wf-can-'))
  try {
    writeFileSync(join(dir, 'count.ajs'), `import { sleep } from 'workflow:extra'\nconst n = args.n ?? 0\nawait sleep(1)\nif (n < 2) continueAsNew({ n: n + 1 })\nexport default n\n`)
    const r = await ajscIn(dir, ['workflow', 'run', 'count.ajs', '--runs-dir', 'runs', '--json'])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.out)
    expect(out.result).toBe(2)
    const ids = readdirSync(join(dir, 'runs')).sort()
    expect(ids).toHaveLength(3)
    expect(out.runId).toBe(`${ids[0]}.c2`)
    const store = new FileJournalStore(join(dir, 'runs'))
    expect(store.read(`${ids[0]}.c2`)[0]).toMatchObject({ t: 'start', previous: `${ids[0]}.c1`, chain: 2, args: { n: 2 } })
    expect(store.read(ids[0]!).at(-1)).toMatchObject({ t: 'end', continueAsNew: { args: { n: 1 } } })
    const shown = await ajscIn(dir, ['workflow', 'show', `${ids[0]}.c1`, '--runs-dir', 'runs'])
    expect(shown.out).toContain(`chain     run 1 of its chain, continues ${ids[0]}`)
    expect(shown.out).toContain('continued as new with {"n":2}')
    // Resuming the first run of the chain finds its next runs again instead of starting new ones.
    const again = JSON.parse((await ajscIn(dir, ['workflow', 'resume', ids[0]!, '--runs-dir', 'runs', '--json'])).out)
    expect([again.runId, again.result]).toEqual([`${ids[0]}.c2`, 2])
    expect(readdirSync(join(dir, 'runs'))).toHaveLength(3)

    writeFileSync(join(dir, 'wait.ajs'), `import { sleep } from 'workflow:extra'\nawait sleep(5000)\nexport default 'late'\n`)
    const late = await ajscIn(dir, ['workflow', 'run', 'wait.ajs', '--runs-dir', 'runs2', '--timeouts', '{"runMs":50}', '--json'])
    expect(late.code).toBe(1)
    expect(late.out).toContain('WORKFLOW_TIMEOUT')
    expect((await ajscIn(dir, ['workflow', 'run', 'wait.ajs', '--runs-dir', 'runs2', '--timeouts', '{"runMs":"x"}'])).err).toContain('--timeouts.runMs must be a positive number')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
