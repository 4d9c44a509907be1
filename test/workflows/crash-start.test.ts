/**
 * A crash before the first poll, for real: a local run killed with SIGKILL
 * (by itself, at a chosen clock read: see fixtures/crash-at-clock-read.ts)
 * while its start entry is being made or right after it, before the first
 * request is durable. `ajsc workflow resume` then finishes it with the
 * result of an uninterrupted run and every agent call made once; `ls` /
 * `show` describe such runs, torn and damaged journals clearly.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'
import { ajscIn } from './helpers.ts'

const FIXTURE = resolve(import.meta.dir, 'fixtures/crash-at-clock-read.ts')
const ARGS = '{"topic":"tea"}'
let llm: FakeLlm
let dir: string
let reference: unknown

beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-crash-start-'))
  writeFileSync(join(dir, 'steps.ajs'), `import { sleep } from 'workflow:extra'
await sleep(1)
phase('ask')
const a = await agent('first ' + args.topic)
const b = await agent('second ' + args.topic)
export default { a, b }
`)
  const r = await ajsc('workflow', 'run', 'steps.ajs', '--args', ARGS, '--llm', llm.baseUrl, '--model', 'echo', '--runs-dir', 'reference', '--json')
  expect(r.code).toBe(0)
  reference = JSON.parse(r.out).result
  expect(reference).toEqual({ a: 'echo: first tea', b: 'echo: second tea' })
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

const ajsc = (...argv: string[]) => ajscIn(dir, argv)

/** Start steps.ajs in a child process that SIGKILLs itself at clock read `read`; resolves once it is dead. */
async function crashAt(read: number, runId: string): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, join(dir, 'steps.ajs'), join(dir, 'runs'), runId, String(read), ARGS, llm.baseUrl], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (c) => { output += c })
  child.stderr!.on('data', (c) => { output += c })
  const signal = await new Promise<string | null>((res) => child.on('close', (_code, sig) => res(sig)))
  expect({ signal, output }).toEqual({ signal: 'SIGKILL', output: '' })
  return runId
}

const journalOf = (runId: string) => join(dir, 'runs', runId, 'journal.jsonl')
const resume = (runId: string) => ajsc('workflow', 'resume', runId, '--llm', llm.baseUrl, '--model', 'echo', '--runs-dir', 'runs', '--json')

async function expectResumedLikeReference(runId: string): Promise<void> {
  llm.counts.clear()
  const r = await resume(runId)
  expect(JSON.parse(r.out)).toMatchObject({ command: 'workflow resume', ok: true, runId, result: reference })
  expect(r.code).toBe(0)
  // Nothing was asked before the crash, so every agent call is made exactly once.
  expect(Object.fromEntries(llm.counts)).toEqual({ 'first tea': 1, 'second tea': 1 })
  const show = JSON.parse((await ajsc('workflow', 'show', runId, '--runs-dir', 'runs', '--json')).out)
  expect(show.run).toMatchObject({ state: 'complete', result: reference, phases: ['ask'], requests: { total: 3, resolved: 3, inFlight: [] } })
}

test('SIGKILL after the start entry, before the first request is durable: resume runs it from the beginning', async () => {
  const runId = await crashAt(2, 'after-start')
  const lines = readFileSync(journalOf(runId), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
  expect(lines.map((e) => e.t)).toEqual(['start'])
  expect(lines[0].args).toEqual({ topic: 'tea' })
  const ls = await ajsc('workflow', 'ls', '--runs-dir', 'runs')
  expect(ls.out).toContain(`${runId}  running   phase -  budget 0 spent  ${join(dir, 'steps.ajs')}`)
  await expectResumedLikeReference(runId)
}, 60_000)

test('SIGKILL while the start entry is made: no journal yet, resume starts it from run.json', async () => {
  const runId = await crashAt(1, 'during-start')
  expect(existsSync(journalOf(runId))).toBe(false)
  const show = await ajsc('workflow', 'show', runId, '--runs-dir', 'runs')
  expect(show.code).toBe(0)
  expect(show.out).toContain('state     running')
  expect(show.out).toContain('journal   0 entries: stopped before its start entry was written; resume starts it from the beginning')
  await expectResumedLikeReference(runId)
}, 60_000)

test('an empty journal file, a torn start entry, a torn line after it: all resume from the beginning', async () => {
  const base = await crashAt(2, 'torn-base')
  const header = readFileSync(journalOf(base), 'utf8')
  const variants: Record<string, string> = {
    'empty-file': '',
    'torn-start': header.slice(0, 25),
    'torn-second': `${header}{"t":"request","key":"sleep|2:6|`,
  }
  for (const [runId, text] of Object.entries(variants)) {
    cpSync(join(dir, 'runs', base), join(dir, 'runs', runId), { recursive: true })
    writeFileSync(journalOf(runId), text)
    await expectResumedLikeReference(runId)
    const after = readFileSync(journalOf(runId), 'utf8')
    for (const line of after.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
  }
}, 60_000)

test('a damaged journal is refused by resume, shown as invalid by ls and show', async () => {
  const runId = await crashAt(2, 'damaged')
  const header = readFileSync(journalOf(runId), 'utf8')
  appendFileSync(journalOf(runId), `not json\n${header}`)
  const r = await resume(runId)
  expect(r.code).toBe(1)
  const diag = JSON.parse(r.out).diagnostics[0]
  expect(diag).toMatchObject({ code: 'JOURNAL_INVALID', message: `${journalOf(runId)}:2: not a JSON line (a torn write can only be the last line)` })
  expect(diag.hint).toContain('ajsc workflow run')

  mkdirSync(join(dir, 'runs', 'broken-record'))
  writeFileSync(join(dir, 'runs', 'broken-record', 'run.json'), '{"file":')
  const ls = await ajsc('workflow', 'ls', '--runs-dir', 'runs')
  expect(ls.code).toBe(0)
  expect(ls.out).toContain('broken-record  invalid   phase -  budget -    (JOURNAL_INVALID: see `ajsc workflow show broken-record`)')
  const record = await ajsc('workflow', 'show', 'broken-record', '--runs-dir', 'runs', '--json')
  expect(record.code).toBe(1)
  expect(JSON.parse(record.out).diagnostics[0]).toMatchObject({ code: 'JOURNAL_INVALID', message: `${join(dir, 'runs', 'broken-record', 'run.json')}: not a run record (JSON with "file" and "createdAt")` })
  expect(ls.out).toContain(`${runId}  invalid   phase -  budget -  ${join(dir, 'steps.ajs')}  (JOURNAL_INVALID: see \`ajsc workflow show ${runId}\`)`)
  expect(ls.out).toContain('after-start  complete')
  const show = await ajsc('workflow', 'show', runId, '--runs-dir', 'runs')
  expect(show.code).toBe(1)
  expect(show.out).toContain('state     invalid')
  expect(show.out).toContain('journal   damaged (see error)')
  const text = await ajsc('workflow', 'resume', runId, '--runs-dir', 'runs')
  expect(text.err).toContain('hint: The journal was changed or damaged after it was written.')
  expect(text.err).not.toContain('resume with')
  expect(show.err).toContain('JOURNAL_INVALID')
  expect(show.err).toContain(`${journalOf(runId)}:2: not a JSON line`)
}, 60_000)

test('an empty journal and a run.json from before args were recorded: a clear error naming the command to start again', async () => {
  const runId = await crashAt(1, 'old-record')
  const record = join(dir, 'runs', runId, 'run.json')
  const { args: _args, budget: _budget, ...old } = JSON.parse(readFileSync(record, 'utf8'))
  writeFileSync(record, JSON.stringify(old))
  const r = await resume(runId)
  expect(r.code).toBe(1)
  const diag = JSON.parse(r.out).diagnostics[0]
  expect(diag.code).toBe('JOURNAL_INVALID')
  expect(diag.message).toContain('has no journal entries')
  expect(diag.hint).toBe(`Nothing of it ran: start it again with \`ajsc workflow run ${join(dir, 'steps.ajs')}\` and its --args.`)
}, 60_000)

test('an empty journal of a file changed since the run started: WORKFLOW_VERSION_MISMATCH, as for any journal', async () => {
  const runId = await crashAt(1, 'changed-file')
  writeFileSync(join(dir, 'changed.ajs'), `export default await agent('other ' + args.topic)\n`)
  const record = join(dir, 'runs', runId, 'run.json')
  writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), file: join(dir, 'changed.ajs') }))
  llm.counts.clear()
  const r = await resume(runId)
  expect(r.code).toBe(1)
  expect(JSON.parse(r.out).diagnostics[0]).toMatchObject({ code: 'WORKFLOW_VERSION_MISMATCH', message: expect.stringContaining(`was started with ${join(dir, 'changed.ajs')} at AST hash`) })
  expect(llm.counts.size).toBe(0)
}, 60_000)
