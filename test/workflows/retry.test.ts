/**
 * Retries: policies (defaults, per run, per kind, per call), attempts and
 * their waits journaled, a wait that survives a resume (fake clock), custom
 * atoms, and retrying a failed run from its failed step (library and CLI).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineAtom, s } from '../../src/index.ts'
import {
  FileJournalStore, MemoryJournalStore, compileWorkflow, resumeWorkflow, retryWorkflow, startWorkflow,
  type JournalEntry, type WorkflowExecution, type WorkflowRequest, type WorkflowResolution,
} from '../../src/workflows/index.ts'
import { ajscIn, fakeClock } from './helpers.ts'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'

let llm: FakeLlm
let dir: string
beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-retry-'))
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Drive to the end: sleeps advance the fake clock by their duration (recorded); agents answered by `answer`. */
async function driveClock(ex: WorkflowExecution, clock: ReturnType<typeof fakeClock>, answer: (r: WorkflowRequest & { type: 'agent' }) => WorkflowResolution, slept: number[] = []): Promise<unknown> {
  for (let i = 0; i < 1000; i++) {
    const p = await ex.poll()
    if (p === 'Pending') continue
    if ('Complete' in p) return p.Complete.result
    if ('Call' in p) continue
    for (const r of ex.takePendingRequests()) {
      if (r.type === 'sleep') { slept.push(r.durationMs); clock.advance(r.durationMs); ex.resolveRequest(r.id, 'OkUndefined') } else if (r.type === 'agent') ex.resolveRequest(r.id, answer(r))
    }
  }
  throw new Error('not complete')
}

const down = (message = 'connect ECONNREFUSED'): WorkflowResolution => ({ Err: { message, code: 'LLM_NETWORK' } })

test('defaults: a transient error is retried with exponential backoff (journaled attempts and waits); a validation error is not', async () => {
  const clock = fakeClock()
  let calls = 0
  const ex = startWorkflow(`const a = await agent('flaky')
let b
try { b = await agent('strict') } catch (e) { b = 'refused: ' + e.message }
export default { a, b }`, { clock: clock.now })
  const slept: number[] = []
  const result = await driveClock(ex, clock, (r) => {
    calls++
    if (r.prompt === 'flaky') return calls < 3 ? down() : { Ok: 'A' }
    return { Err: { message: 'does not match the schema', code: 'LLM_BAD_RESPONSE' } }
  }, slept)
  expect(result).toEqual({ a: 'A', b: 'refused: does not match the schema' })
  expect(calls).toBe(4) // flaky three times (the default maximumAttempts), strict once
  expect(slept).toEqual([1000, 2000])
  const journal = ex.journal()
  expect(journal.filter((e) => e.t === 'attempt')).toMatchObject([
    { t: 'attempt', attempt: 1, error: { code: 'LLM_NETWORK', message: 'connect ECONNREFUSED' } },
    { t: 'attempt', attempt: 2, error: { code: 'LLM_NETWORK' } },
  ])
  // The run replays from its journal to the same result, asking nothing.
  const again = await resumeWorkflow(compileWorkflow(`const a = await agent('flaky')
let b
try { b = await agent('strict') } catch (e) { b = 'refused: ' + e.message }
export default { a, b }`), journal, { clock: clock.now })
  expect(await again.poll()).toEqual({ Complete: { result } })
})

test('policies: per run, per kind and per call (later wins); maximum interval; non-retryable codes; a bad policy is refused', async () => {
  const clock = fakeClock()
  const src = `let out = []
try { await agent('a') } catch (e) { out.push('a failed') }
try { await agent('b', { retry: { maximumAttempts: 2 } }) } catch (e) { out.push('b failed') }
try { await agent('c', { retry: { nonRetryableCodes: ['LLM_NETWORK'] } }) } catch (e) { out.push('c failed') }
export default out`
  const asked: string[] = []
  const slept: number[] = []
  const ex = startWorkflow(src, { clock: clock.now, retry: { maximumAttempts: 10, initialIntervalMs: 100, backoffCoefficient: 3, agent: { maximumAttempts: 4, maximumIntervalMs: 500 } } })
  expect(await driveClock(ex, clock, (r) => { asked.push(r.prompt); return down() }, slept)).toEqual(['a failed', 'b failed', 'c failed'])
  expect(asked).toEqual(['a', 'a', 'a', 'a', 'b', 'b', 'c'])
  expect(slept).toEqual([100, 300, 500, 100])
  // The run's policy is journaled in the start entry: a resume keeps it.
  expect(ex.journal()[0]).toMatchObject({ t: 'start', retry: { maximumAttempts: 10, agent: { maximumAttempts: 4 } } })
  // An Err without a code is not retried (the host did not say it is transient), unless it is marked transient.
  const ex2 = startWorkflow(`export default [await agent('x'), await agent('y')]`, { clock: clock.now })
  let n = 0
  expect(await driveClock(ex2, clock, (r) => (r.prompt === 'x' ? { Ok: 1 } : ++n < 2 ? { Err: { message: 'try later', transient: true } } : { Ok: 2 }))).toEqual([1, 2])
  expect(() => startWorkflow('export default 1', { retry: { maximumAttempts: 0 } })).toThrow('maximumAttempts must be an integer from 1 to 1000')
  expect(() => startWorkflow('export default 1', { retry: { tries: 2 } as never })).toThrow('unknown field "tries"')
  const bad = startWorkflow(`export default await agent('x', { retry: { backoffCoefficient: 0 } })`)
  await expect(bad.poll()).rejects.toMatchObject({ code: 'WORKFLOW_FAILED', cause: { code: 'ATOM_INPUT_INVALID' } })
})

test('a retry wait is durable: a crash during it resumes waiting only what is left, then asks again (same id)', async () => {
  const clock = fakeClock()
  const store = new MemoryJournalStore()
  const program = compileWorkflow(`export default await agent('flaky')`)
  const first = startWorkflow(program, { clock: clock.now, store, executionId: 'r1', retry: { initialIntervalMs: 10_000 } })
  const ask = (await first.poll()) as { Request: WorkflowRequest }
  first.resolveRequest(ask.Request.id, down())
  const wait = (await first.poll()) as { Request: WorkflowRequest & { durationMs: number } }
  expect(wait.Request).toMatchObject({ type: 'sleep', durationMs: 10_000 })
  first.dispose() // the crash, 4 s into the wait
  clock.advance(4000)
  expect(store.read('r1').map((e) => e.t)).toEqual(['start', 'request', 'attempt', 'request'])
  const second = await resumeWorkflow(program, store.read('r1'), { clock: clock.now, store, executionId: 'r1' })
  const rest = (await second.poll()) as { Request: WorkflowRequest & { durationMs: number } }
  expect(rest.Request).toMatchObject({ type: 'sleep', id: wait.Request.id, durationMs: 6000 })
  second.resolveRequest(rest.Request.id, 'OkUndefined')
  const again = (await second.poll()) as { Request: WorkflowRequest }
  expect(again.Request).toMatchObject({ type: 'agent', id: ask.Request.id, prompt: 'flaky' })
  second.resolveRequest(again.Request.id, { Ok: 'fine' })
  expect(await second.poll()).toEqual({ Complete: { result: 'fine' } })
  // Replayed again: the attempt and its wait are consumed, nothing is asked.
  const third = await resumeWorkflow(program, store.read('r1'), { clock: clock.now })
  expect(await third.poll()).toEqual({ Complete: { result: 'fine' } })
})

test('custom atoms retry per call (a second argument) and per run; each failed attempt is journaled, never the atom result twice', async () => {
  const clock = fakeClock()
  let calls = 0
  const flaky = defineAtom('flaky', s.object({ n: s.number }), s.number, async ({ n }) => {
    calls++
    if (calls < 3) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' })
    return n * 2
  })
  const src = `export default await flaky({ n: 21 }, { retry: { initialIntervalMs: 50 } })`
  const program = compileWorkflow(src, { atoms: [flaky] })
  const ex = startWorkflow(program, { atoms: [flaky], clock: clock.now })
  const slept: number[] = []
  expect(await driveClock(ex, clock, () => ({ Ok: 0 }), slept)).toBe(42)
  expect(calls).toBe(3)
  expect(slept).toEqual([50, 100])
  expect(ex.journal().filter((e) => e.t === 'attempt' || e.t === 'atom').map((e) => e.t)).toEqual(['attempt', 'attempt', 'atom'])
  const again = await resumeWorkflow(program, ex.journal(), { atoms: [flaky], clock: clock.now })
  expect(await again.poll()).toEqual({ Complete: { result: 42 } })
  expect(calls).toBe(3)
  // Non-retryable by the atom's own code.
  calls = 0
  const ex2 = startWorkflow(`try { await flaky({ n: 1 }) } catch (e) { log(e.message) }\nexport default 'done'`, { atoms: [flaky], clock: clock.now, retry: { atom: { nonRetryableCodes: ['ECONNRESET'] } } })
  expect(await driveClock(ex2, clock, () => ({ Ok: 0 }))).toBe('done')
  expect(calls).toBe(1)
})

test('retryWorkflow: a failed run is retried from its failed step; completed steps are not asked again', async () => {
  const clock = fakeClock()
  const store = new MemoryJournalStore()
  const program = compileWorkflow(`const a = await agent('one')\nconst b = await agent('two')\nexport default [a, b]`)
  const asked: string[] = []
  const first = startWorkflow(program, { clock: clock.now, store, executionId: 'f1', retry: { maximumAttempts: 2 } })
  // Caught, not `expect(...).rejects`: Bun's rejects on a still-pending promise can sit in the event loop
  // until an unrelated timer of an earlier test file fires (seconds in the full suite).
  const failed = await driveClock(first, clock, (r) => { asked.push(r.prompt); return r.prompt === 'one' ? { Ok: 'A' } : down() }).catch((e: unknown) => e)
  expect(failed).toMatchObject({ code: 'WORKFLOW_FAILED' })
  expect(asked).toEqual(['one', 'two', 'two'])
  const ended = store.read('f1').at(-1) as Extract<JournalEntry, { t: 'end' }>
  expect(ended.step).toMatch(/^agent\|2:/)
  // A resume replays the failure; a retry asks the failed step again (with whatever answers it now).
  await expect((await resumeWorkflow(program, store.read('f1'))).poll()).rejects.toMatchObject({ code: 'WORKFLOW_FAILED' })
  const retried = await retryWorkflow(program, store.read('f1'), { clock: clock.now, store, executionId: 'f1' })
  expect(await driveClock(retried, clock, (r) => { asked.push(r.prompt); return { Ok: 'B' } })).toEqual(['A', 'B'])
  expect(asked).toEqual(['one', 'two', 'two', 'two'])
  // The journal replays to the retried outcome; retrying a run that did not fail is refused.
  expect(await (await resumeWorkflow(program, store.read('f1'))).poll()).toEqual({ Complete: { result: ['A', 'B'] } })
  await expect(retryWorkflow(program, store.read('f1'))).rejects.toMatchObject({ code: 'WORKFLOW_OPTIONS_INVALID', message: expect.stringContaining('completed') })
})

test('CLI: the endpoint is down, the run fails after its retries; `workflow retry --llm <live>` finishes it without repeating completed calls', async () => {
  writeFileSync(join(dir, 'two.ajs'), `const a = await agent('first')\nconst b = await agent('second')\nexport default [a, b]\n`)
  llm.down.add('second')
  const flags = ['--model', 'echo', '--runs-dir', 'runs']
  const failed = await ajscIn(dir, ['workflow', 'run', 'two.ajs', '--llm', llm.baseUrl, ...flags, '--retry', '{"initialIntervalMs":20}'])
  expect(failed.code).toBe(1)
  expect(failed.err).toContain('503')
  expect(failed.err).toContain('retry with: ajsc workflow retry')
  expect(llm.counts.get('first')).toBe(1)
  expect(llm.counts.get('second')).toBe(3) // 5xx is transient: three attempts
  const [runId] = readdirSync(join(dir, 'runs'))
  const shown = JSON.parse((await ajscIn(dir, ['workflow', 'show', runId!, '--runs-dir', 'runs', '--json'])).out).run
  expect(shown).toMatchObject({ state: 'failed', retries: { attempts: 2, runs: 0 } })
  // A dead endpoint (connection refused) is another endpoint: retry the failed step against a live one.
  llm.down.clear()
  const retried = await ajscIn(dir, ['workflow', 'retry', runId!, '--llm', llm.baseUrl, ...flags, '--json'])
  expect(JSON.parse(retried.out)).toMatchObject({ command: 'workflow retry', ok: true, result: ['echo: first', 'echo: second'] })
  expect(llm.counts.get('first')).toBe(1)
  expect(llm.counts.get('second')).toBe(4)
  const after = JSON.parse((await ajscIn(dir, ['workflow', 'show', runId!, '--runs-dir', 'runs', '--json'])).out).run
  expect(after).toMatchObject({ state: 'complete', retries: { attempts: 2, runs: 1 }, requests: { total: 4, resolved: 4, inFlight: [] } })
  const again = await ajscIn(dir, ['workflow', 'retry', runId!, '--runs-dir', 'runs'])
  expect(again.code).toBe(1)
  expect(again.err).toContain('Only a failed run can be retried')
  expect(new FileJournalStore(join(dir, 'runs')).read(runId!).filter((e) => e.t === 'retry')).toHaveLength(1)
}, 30_000)
