/**
 * A crash before the first poll, at the library level: the start entry is
 * in the store when startWorkflow returns, a journal holding only it resumes
 * from the beginning, a torn last line of journal.jsonl counts as not
 * written (and is cut off before the next append), while real damage (a bad
 * line in the middle, another journal version, another program) is still
 * refused with its code.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compileWorkflow, FileJournalStore, resumeWorkflow, startWorkflow, WorkflowError, type JournalEntry, type JournalStore, type WorkflowRequest } from '../../src/workflows/index.ts'
import { drive } from './helpers.ts'

const SOURCE = `phase('ask')
const a = await agent('first')
const b = await agent('second ' + a)
export default { a, b, lucky: Math.floor(random() * 1000) }
`
const program = compileWorkflow(SOURCE, { sourceName: 'ask.ajs' })
const answer = (r: WorkflowRequest) => ({ Ok: `<${r.type === 'agent' ? r.prompt : r.type}>` })
let root: string
let store: FileJournalStore
let n = 0

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ajs-wf-start-'))
  store = new FileJournalStore(root)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function rejection(p: Promise<unknown>): Promise<WorkflowError> {
  try { await p } catch (e) { return e as WorkflowError }
  throw new Error('expected a rejection')
}

/** A run "crashed" right after startWorkflow returned: what its journal file holds then. */
function crashedBeforeFirstPoll(): { id: string; path: string; text: string } {
  const id = `run-${++n}`
  const path = store.journalPath(id)
  const ex = startWorkflow(program, { store, executionId: id, seed: 7 })
  const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
  // dispose() hands what is queued to the store (a clean stop); a crash does not: put back what the crash left.
  ex.dispose()
  writeFileSync(path, text)
  return { id, path, text }
}

const reference = startWorkflow(program, { seed: 7 })
const uninterrupted = (async () => (await drive(reference, answer)).result)()

async function resumeToEnd(id: string): Promise<unknown> {
  const ex = await resumeWorkflow(program, store.read(id), { store, executionId: id })
  try { return (await drive(ex, answer)).result } finally { ex.dispose() }
}

test('the start entry is in the store, fsynced, when startWorkflow returns (before any poll)', () => {
  const { text } = crashedBeforeFirstPoll()
  expect(text.endsWith('\n')).toBe(true)
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as JournalEntry)
  expect(lines.map((e) => e.t)).toEqual(['start'])
  expect(lines[0]).toMatchObject({ v: 1, astHash: program.astHash, sourceName: 'ask.ajs', seed: 7 })
})

test('a journal holding only its start entry resumes from the beginning: same result as an uninterrupted run', async () => {
  const { id } = crashedBeforeFirstPoll()
  expect(await resumeToEnd(id)).toEqual(await uninterrupted)
  const entries = store.read(id)
  expect(entries.filter((e) => e.t === 'start').length).toBe(1)
  expect(entries.map((e) => e.t)).toEqual(reference.journal().map((e) => e.t))
  expect(entries.at(-1)).toEqual({ t: 'end', result: await uninterrupted })
})

test('a torn last line is not written: dropped on read, cut off before the next append', async () => {
  const { id, path, text } = crashedBeforeFirstPoll()
  const torn = '{"t":"call","call":{"type":"phase","na'
  appendFileSync(path, torn)
  expect(store.read(id).map((e) => e.t)).toEqual(['start'])
  expect(await resumeToEnd(id)).toEqual(await uninterrupted)
  const after = readFileSync(path, 'utf8')
  expect(after).not.toContain(torn + '{')
  expect(after.startsWith(text)).toBe(true)
  expect(after.endsWith('\n')).toBe(true)
  for (const line of after.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
  expect(store.read(id).at(-1)).toEqual({ t: 'end', result: await uninterrupted })
})

test('a complete last line missing only its newline is kept; the newline is added before the next append', async () => {
  const { id, path, text } = crashedBeforeFirstPoll()
  writeFileSync(path, text.trimEnd())
  expect(store.read(id).map((e) => e.t)).toEqual(['start'])
  expect(await resumeToEnd(id)).toEqual(await uninterrupted)
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n')
  expect(lines[0]).toBe(text.trimEnd())
  expect(store.read(id).map((e) => e.t)[0]).toBe('start')
})

test('a torn start entry or an empty file reads as an empty journal; resumeWorkflow explains what to do', async () => {
  const torn = crashedBeforeFirstPoll()
  writeFileSync(torn.path, torn.text.slice(0, 40))
  expect(store.read(torn.id)).toEqual([])
  const empty = crashedBeforeFirstPoll()
  writeFileSync(empty.path, '')
  expect(store.read(empty.id)).toEqual([])
  const err = await rejection(resumeWorkflow(program, store.read(empty.id), { store, executionId: empty.id }))
  expect(err).toBeInstanceOf(WorkflowError)
  expect(err.code).toBe('JOURNAL_INVALID')
  expect(err.message).toContain('The journal is empty')
  expect(err.hint).toContain('startWorkflow(program, { executionId })')
  // Starting again under the same id replaces the torn start entry.
  const again = startWorkflow(program, { store, executionId: torn.id, seed: 7 })
  expect((await drive(again, answer)).result).toEqual(await uninterrupted)
  expect(store.read(torn.id)[0]).toMatchObject({ t: 'start', seed: 7 })
  expect(readFileSync(torn.path, 'utf8')).not.toContain(torn.text.slice(0, 40) + '{')
})

test('real damage is still refused: a bad line in the middle, another journal version, another program', async () => {
  const mid = crashedBeforeFirstPoll()
  writeFileSync(mid.path, `${mid.text}{"t":"call","call":\n${mid.text}`)
  const bad = (() => { try { store.read(mid.id) } catch (e) { return e as WorkflowError } throw new Error('expected JOURNAL_INVALID') })()
  expect(bad.code).toBe('JOURNAL_INVALID')
  expect(bad.message).toBe(`${mid.path}:2: not a JSON line (a torn write can only be the last line)`)
  expect(bad.entry).toBe(1)
  expect(bad.hint).toContain('journal.jsonl')

  const old = crashedBeforeFirstPoll()
  const start = JSON.parse(old.text) as JournalEntry
  const v2 = await rejection(resumeWorkflow(program, [{ ...start, v: 2 } as JournalEntry]))
  expect([v2.code, v2.entry, v2.message]).toEqual(['JOURNAL_INVALID', 0, 'Journal entry #0: unsupported journal version 2 or missing astHash/seed'])

  const other = await rejection(resumeWorkflow(`export default 1`, store.read(old.id), { sourceName: 'other.ajs' }))
  expect(other.code).toBe('WORKFLOW_VERSION_MISMATCH')
  expect(other.message).toContain('other.ajs')
})

test('an asynchronous store gets the start entry from startWorkflow; poll waits for it; a failed write is what poll reports', async () => {
  const writes: Array<{ types: string[]; done: () => void }> = []
  const slow: JournalStore = {
    append: (_id, entries) => new Promise<void>((done) => writes.push({ types: entries.map((e) => e.t), done })),
    read: () => [],
  }
  const ex = startWorkflow(program, { store: slow, executionId: 'async-1' })
  expect(writes.map((w) => w.types)).toEqual([['start']])
  let polled = false
  const first = ex.poll().then((p) => { polled = true; return p })
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
  expect(polled).toBe(false) // the start entry is not stored yet
  writes[0]!.done()
  // Writes are issued in order, one at a time: the poll's batch goes once the start entry is stored.
  while (writes.length < 2) await new Promise((r) => setImmediate(r))
  expect(writes.map((w) => w.types)).toEqual([['start'], ['call', 'request']])
  expect(polled).toBe(false)
  writes[1]!.done()
  expect(await first).toEqual({ Call: { type: 'phase', name: 'ask' } })
  ex.dispose()

  const failing: JournalStore = { append: async () => { throw new Error('disk on fire') }, read: () => [] }
  const broken = startWorkflow(program, { store: failing, executionId: 'async-2' })
  await new Promise((r) => setImmediate(r)) // no unhandled rejection while nobody polls
  expect(await broken.poll().then(() => 'polled', (e: Error) => e.message)).toBe('disk on fire')
  expect(await broken.poll().then(() => 'polled', (e: Error) => e.message)).toBe('disk on fire')
  broken.dispose()
})
