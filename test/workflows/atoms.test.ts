/**
 * Custom atoms in workflows: each call's value or error is journaled, and a
 * resume returns it without calling the atom again; a replay that asks for
 * another call is JOURNAL_MISMATCH and calls nothing new.
 */
import { expect, test } from 'bun:test'
import { defineAtom, s } from '../../src/index.ts'
import {
  MemoryJournalStore, WorkflowError, checkJournal, compileWorkflow, resumeWorkflow, startWorkflow,
  type JournalEntry, type WorkflowRequest,
} from '../../src/workflows/index.ts'
import { drive } from './helpers.ts'

/** A counting lookup: negative ids fail with a coded error. */
function lookupAtom() {
  const seen: number[] = []
  const atom = defineAtom('lookupUser', s.object({ id: s.number }), undefined, async ({ id }) => {
    seen.push(id)
    if (id < 0) throw Object.assign(new Error(`no user ${id}`), { code: 'E404' })
    return { id, name: `user${id}` }
  })
  return { atom, seen }
}

const rejection = async (p: Promise<unknown> | (() => unknown)): Promise<WorkflowError> => {
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (e) {
    return e as WorkflowError
  }
  throw new Error('expected a rejection')
}

const SRC = `const user = await lookupUser({ id: args.id })
const reply = await agent('greet ' + user.name)
export default { user, reply }
`

test('a workflow calls a custom atom: its value is journaled with the call site, and a resume does not call it again', async () => {
  const { atom, seen } = lookupAtom()
  const program = compileWorkflow(SRC, { atoms: [atom], sourceName: 'greet.ajs' })
  expect(program.atoms).toEqual(['lookupUser'])
  const store = new MemoryJournalStore()
  const ex = startWorkflow(program, { atoms: [atom], args: { id: 7 }, store, executionId: 'x1' })
  const first = await ex.poll() as { Request: WorkflowRequest }
  expect(first.Request).toMatchObject({ type: 'agent', prompt: 'greet user7' })
  expect(seen).toEqual([7])
  const journal = store.read('x1')
  const entry = journal.find((e) => e.t === 'atom')
  expect(entry).toEqual({ t: 'atom', key: expect.stringMatching(/^atom:lookupUser\|1:19\|[0-9a-f]{16}\|0$/), op: 'lookupUser', resolution: { Ok: { id: 7, name: 'user7' } } })
  expect(() => checkJournal(journal)).not.toThrow()
  ex.dispose()

  // A new process: same journal, the atom's result comes from it.
  const again = await resumeWorkflow(program, journal, { atoms: [atom], store, executionId: 'x1' })
  const { result } = await drive(again, () => ({ Ok: 'hi' }))
  expect(result).toEqual({ user: { id: 7, name: 'user7' }, reply: 'hi' })
  expect(seen).toEqual([7])
  expect(store.read('x1').filter((e) => e.t === 'atom')).toHaveLength(1)
})

test('an error thrown by the atom is journaled and thrown again on replay, catchable, with the same code and message', async () => {
  const { atom, seen } = lookupAtom()
  const src = `let caught = null
try { await lookupUser({ id: -1 }) } catch (e) { caught = { message: e.message, code: e.code, name: e.name } }
const ok = await agent('after')
export default { caught, ok }
`
  const ex = startWorkflow(src, { atoms: [atom] })
  await ex.poll()
  const journal = ex.journal()
  expect(journal.find((e) => e.t === 'atom')).toMatchObject({
    op: 'lookupUser',
    error: { name: 'AgentError', code: 'ATOM_ERROR', op: 'lookupUser', message: 'lookupUser: [E404] no user -1', value: { code: 'E404', message: 'no user -1' } },
  })
  const live = (await drive(ex, () => ({ Ok: 1 }))).result
  expect(live).toEqual({ caught: { message: 'lookupUser: [E404] no user -1', code: 'ATOM_ERROR', name: 'Error' }, ok: 1 })
  ex.dispose()
  const replayed = (await drive(await resumeWorkflow(src, journal, { atoms: [atom] }), () => ({ Ok: 1 }))).result
  expect(replayed).toEqual(live)
  expect(seen).toEqual([-1])
})

test('an uncaught atom error fails the workflow, and the failure replays from the journal', async () => {
  const { atom, seen } = lookupAtom()
  const ex = startWorkflow('export default await lookupUser({ id: -2 })', { atoms: [atom], sourceName: 'f.ajs' })
  const err = await rejection(() => ex.poll())
  expect(err.code).toBe('WORKFLOW_FAILED')
  expect(err.cause).toMatchObject({ code: 'ATOM_ERROR', message: 'lookupUser: [E404] no user -2', location: 'f.ajs:1:22' })
  const again = await resumeWorkflow('export default await lookupUser({ id: -2 })', ex.journal(), { atoms: [atom], sourceName: 'f.ajs' })
  expect((await rejection(() => again.poll())).cause).toMatchObject({ code: 'ATOM_ERROR', message: 'lookupUser: [E404] no user -2' })
  expect(seen).toEqual([-2])
})

test('calls are told apart by site, input and occurrence (loops, helpers, parallel branches)', async () => {
  let n = 0
  const next = defineAtom('nextId', s.object({ prefix: s.string }), s.string, async ({ prefix }) => `${prefix}${++n}`)
  const src = `function mint(p) { return nextId({ prefix: p }) }
const ids = []
for (let i = 0; i < 3; i++) ids.push(await mint('a'))
const both = await parallel([() => nextId({ prefix: 'p' }), () => nextId({ prefix: 'q' })])
export default { ids, both }
`
  const ex = startWorkflow(src, { atoms: [next] })
  const { result } = await drive(ex, () => ({ Ok: null }))
  const journal = ex.journal()
  expect(journal.filter((e) => e.t === 'atom')).toHaveLength(5)
  const calledBefore = n
  const again = await resumeWorkflow(src, journal, { atoms: [next] })
  expect((await drive(again, () => ({ Ok: null }))).result).toEqual(result)
  expect(n).toBe(calledBefore)
  expect((result as { ids: string[] }).ids).toHaveLength(3)
})

test('a resume after the atom ran but before its result was journaled calls it again (at least once)', async () => {
  const { atom, seen } = lookupAtom()
  const ex = startWorkflow(SRC, { atoms: [atom], args: { id: 3 } })
  await ex.poll()
  const lost = ex.journal().filter((e) => e.t !== 'atom') as JournalEntry[] // the crash lost the atom entry
  ex.dispose()
  const later = lost.filter((e) => e.t === 'start') // ... and everything after it (nothing can follow it unjournaled)
  const again = await resumeWorkflow(SRC, later, { atoms: [atom] })
  expect((await drive(again, () => ({ Ok: 'x' }))).result).toEqual({ user: { id: 3, name: 'user3' }, reply: 'x' })
  expect(seen).toEqual([3, 3])
})

test('a replay that makes another atom call is JOURNAL_MISMATCH naming the entry, and the new call never runs', async () => {
  const { atom, seen } = lookupAtom()
  const ex = startWorkflow(SRC, { atoms: [atom], args: { id: 1 }, sourceName: 'greet.ajs' })
  await ex.poll()
  const journal = ex.journal()
  ex.dispose()
  // Same program, another path: the tampered start entry makes the call's input differ.
  const tampered = journal.map((e) => (e.t === 'start' ? { ...e, args: { id: 2 } } : e)) as JournalEntry[]
  const err = await rejection(resumeWorkflow(SRC, tampered, { atoms: [atom], sourceName: 'greet.ajs' }))
  expect(err.code).toBe('JOURNAL_MISMATCH')
  expect(err.entry).toBe(1)
  expect(err.message).toContain('(atom:lookupUser at greet.ajs:1:20 with input ')
  expect(err.message).toContain('instead it asked for atom:lookupUser at greet.ajs:1:20')
  expect(seen).toEqual([1])
})

test('a changed call is a new program: WORKFLOW_VERSION_MISMATCH before anything runs', async () => {
  const { atom, seen } = lookupAtom()
  const ex = startWorkflow(SRC, { atoms: [atom], args: { id: 1 } })
  await ex.poll()
  const changed = SRC.replace('lookupUser({ id: args.id })', 'lookupUser({ id: args.id + 1 })')
  expect((await rejection(resumeWorkflow(changed, ex.journal(), { atoms: [atom] }))).code).toBe('WORKFLOW_VERSION_MISMATCH')
  expect(seen).toEqual([1])
})

test('compile-time checks: unknown atoms, fields of a defineAtom, argument shape, redeclaring an atom', () => {
  const { atom } = lookupAtom()
  const code = (src: string, atoms?: Array<string | typeof atom>) => {
    try { compileWorkflow(src, atoms ? { atoms } : {}) } catch (e) { return (e as { code: string; message: string }) }
    return null
  }
  expect(code(SRC)).toMatchObject({ code: 'AJS3002', message: expect.stringContaining('lookupUser') })
  expect(code(SRC, ['lookupUser'])).toBeNull()
  expect(code('export default await lookupUser({ uid: 1 })', [atom])).toMatchObject({ code: 'AJS3008', message: expect.stringContaining('has no field `uid`') })
  expect(code('export default await lookupUser({})', [atom])).toMatchObject({ code: 'AJS3008', message: expect.stringContaining('needs the field `id`') })
  expect(code('export default await lookupUser({ id: 1 }, {}, 2)', ['lookupUser'])).toMatchObject({ code: 'AJS3008' })
  expect(code('const lookupUser = 1\nexport default lookupUser', ['lookupUser'])).toMatchObject({ code: 'AJS5009' })
  // An atom named like a workflow global or a core atom is not a custom atom of the module: the global wins.
  const log = defineAtom('log', s.object({}), undefined, () => { throw new Error('never called') })
  const program = compileWorkflow(`log('x')\nexport default 1`, { atoms: [log, 'agent'] })
  expect(program.atoms).toEqual([])
  expect(() => compileWorkflow('export default 1', { atoms: ['not a name'] })).toThrow('"not a name" is not an atom name')
})

test('a run must be given the atoms its program calls; options are checked', async () => {
  const { atom } = lookupAtom()
  const program = compileWorkflow(SRC, { atoms: ['lookupUser'], sourceName: 'greet.ajs' })
  const missing = await rejection(() => startWorkflow(program, {}))
  expect(missing.code).toBe('WORKFLOW_OPTIONS_INVALID')
  expect(missing.message).toBe('greet.ajs calls the custom atom lookupUser, which this run was not given')
  expect(missing.hint).toContain('--atoms ./atoms.mjs')
  expect((await rejection(() => startWorkflow(program, { atoms: ['lookupUser'] as never }))).message).toContain('the atoms themselves, not their names')
  expect((await rejection(() => startWorkflow(program, { atoms: [atom, atom] }))).message).toContain('two atoms are named "lookupUser"')
  const ex = startWorkflow(program, { atoms: [atom], args: { id: 1 } })
  await ex.poll()
  expect((await rejection(resumeWorkflow(program, ex.journal()))).code).toBe('WORKFLOW_OPTIONS_INVALID')
})

test('time limits, schemas and non-JSON results are outcomes too: journaled, replayed the same', async () => {
  let calls = 0
  const slow = defineAtom('slow', s.object({}), undefined, () => { calls++; return new Promise(() => {}) }, { timeoutMs: 20 })
  const odd = defineAtom('odd', s.object({}), undefined, async () => { calls++; return { big: 1n } })
  const typed = defineAtom('typed', s.object({ n: s.number }), s.number, async ({ n }) => { calls++; return n })
  const src = `const out = []
try { await slow({}) } catch (e) { out.push(e.code) }
try { await odd({}) } catch (e) { out.push(e.code) }
try { await typed({ n: 'x' }) } catch (e) { out.push(e.code) }
out.push(await typed({ n: 4 }))
export default out
`
  const atoms = [slow, odd, typed]
  const ex = startWorkflow(src, { atoms })
  const { result } = await drive(ex, () => ({ Ok: 0 }))
  expect(result).toEqual(['ATOM_TIMEOUT', 'ATOM_OUTPUT_INVALID', 'ATOM_INPUT_INVALID', 4])
  expect(calls).toBe(5) // a timeout is transient: 3 attempts by default (docs: retries); a bad input never reaches the atom
  const again = await resumeWorkflow(src, ex.journal(), { atoms })
  expect((await drive(again, () => ({ Ok: 0 }))).result).toEqual(result)
  expect(calls).toBe(5)
})

test('the workflow continues only once the atom\'s outcome is in the store (an asynchronous store is awaited)', async () => {
  const calls: number[] = []
  const step = defineAtom('step', s.object({ n: s.number }), s.number, async ({ n }) => { calls.push(n); return n })
  let release!: () => void
  const held = new Promise<void>((r) => { release = r })
  const inner = new MemoryJournalStore()
  const store = {
    async append(id: string, entries: readonly JournalEntry[]) {
      if (entries.some((e) => e.t === 'atom')) await held
      inner.append(id, entries)
    },
    read: (id: string) => inner.read(id),
  }
  const ex = startWorkflow('const a = await step({ n: 1 })\nconst b = await step({ n: 2 })\nexport default a + b', { atoms: [step], store, executionId: 'held' })
  for (let i = 0; i < 20 && calls.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
  await new Promise((r) => setTimeout(r, 20))
  expect(calls).toEqual([1]) // the first outcome is not durable yet: the second call waits
  release()
  expect(await ex.poll()).toEqual({ Complete: { result: 3 } })
  expect(calls).toEqual([1, 2])
  expect(inner.read('held').filter((e) => e.t === 'atom')).toHaveLength(2)
})
