/**
 * A real crash: `ajsc workflow run` in a child process is killed with
 * SIGKILL while an agent call is in flight, then `ajsc workflow resume` in a
 * new process finishes the run. The fake LLM counts calls: no completed call
 * is made again; only the one in flight at the crash is (at-least-once).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')
let llm: FakeLlm
let dir: string

beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-crash-'))
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

function ajsc(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c) => { stdout += c })
  child.stderr!.on('data', (c) => { stderr += c })
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((res) => {
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }))
  })
  return { child, done }
}

test('SIGKILL mid-run, resume in a new process: no completed agent call repeated', async () => {
  writeFileSync(join(dir, 'steps.ajs'), `export const meta = { name: 'steps' }
const out = []
for (let i = 1; i <= 5; i++) {
  phase('step ' + i)
  out.push(await agent('step ' + i))
}
export default out
`)
  const flags = ['--llm', llm.baseUrl, '--model', 'echo', '--runs-dir', 'runs']
  llm.hold.add('step 3')
  const first = ajsc(['workflow', 'run', 'steps.ajs', ...flags])
  await llm.received('step 3')
  first.child.kill('SIGKILL')
  const killed = await first.done
  expect(killed.signal).toBe('SIGKILL')
  llm.hold.clear()

  const [runId] = readdirSync(join(dir, 'runs'))
  const second = await ajsc(['workflow', 'resume', runId!, ...flags, '--json']).done
  expect(second.stderr).toBe('')
  const report = JSON.parse(second.stdout)
  expect(report).toMatchObject({ command: 'workflow resume', ok: true, runId, result: [1, 2, 3, 4, 5].map((i) => `echo: step ${i}`) })
  expect(second.code).toBe(0)
  // Completed before the crash: asked once. In flight at the crash: asked again. After: once.
  expect(Object.fromEntries(llm.counts)).toEqual({ 'step 1': 1, 'step 2': 1, 'step 3': 2, 'step 4': 1, 'step 5': 1 })

  const show = await ajsc(['workflow', 'show', runId!, '--runs-dir', 'runs', '--json']).done
  const run = JSON.parse(show.stdout).run
  expect(run).toMatchObject({ state: 'complete', phases: ['step 1', 'step 2', 'step 3', 'step 4', 'step 5'], budget: { total: null, spent: 5 } })
  expect(run.requests).toEqual({ total: 5, resolved: 5, inFlight: [] })
}, 60_000)
