/**
 * A retry's wait survives a real crash: `ajsc workflow run` is killed with
 * SIGKILL while it waits before retrying a failed agent call; `ajsc workflow
 * resume` in a new process waits out the rest, asks the failed call again and
 * never repeats the completed one.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'
import { spawnAjsc } from './helpers.ts'

let llm: FakeLlm
let dir: string
beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-crash-retry-'))
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

const ajsc = (args: string[]) => spawnAjsc(dir, { ...process.env, NO_COLOR: '1' }, args)

const journalOf = (runId: string) => readFileSync(join(dir, 'runs', runId, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))

test('SIGKILL during a retry wait: resume waits the remainder and retries; the completed call is not repeated', async () => {
  writeFileSync(join(dir, 'wf.ajs'), `const a = await agent('first')\nconst b = await agent('second')\nexport default [a, b]\n`)
  llm.down.add('second')
  const flags = ['--llm', llm.baseUrl, '--model', 'echo', '--runs-dir', 'runs']
  const first = ajsc(['workflow', 'run', 'wf.ajs', ...flags, '--retry', '{"initialIntervalMs":1500}'])
  await llm.received('second')
  // Wait until the failed attempt and its wait are journaled, then kill.
  let runId = ''
  for (let i = 0; i < 200; i++) {
    const runs = existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []
    if (runs[0] && journalOf(runs[0]).some((e) => e.t === 'request' && e.key.startsWith('sleep|retry:'))) { runId = runs[0]; break }
    await new Promise((r) => setTimeout(r, 10))
  }
  expect(runId).not.toBe('')
  first.child.kill('SIGKILL')
  expect((await first.done).signal).toBe('SIGKILL')
  llm.down.clear()
  const t0 = Date.now()
  const second = await ajsc(['workflow', 'resume', runId, ...flags, '--json']).done
  expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, result: ['echo: first', 'echo: second'] })
  expect(Date.now() - t0).toBeLessThan(10_000)
  expect(Object.fromEntries(llm.counts)).toEqual({ first: 1, second: 2 })
  expect(journalOf(runId).map((e) => e.t)).toEqual(['start', 'request', 'resolution', 'request', 'attempt', 'request', 'resolution', 'resolution', 'end'])
}, 60_000)
