/**
 * Python workflows (docs/python.md, "Python workflows"): a `.py` source runs on the workflow engine,
 * its `agent(...)` calls become requests and its custom atom calls are journaled by call site. Across
 * a real crash (SIGKILL while an atom runs), `ajsc workflow resume` in a new process finishes the run
 * without calling the journaled atoms again.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compileWorkflow, startWorkflow } from '../../src/workflows/index.ts'
import { calls, drive, spawnAjsc as spawnProcess } from './helpers.ts'

const ATOMS = resolve(import.meta.dir, 'fixtures/atoms.mjs')
let dir: string

const ORDERS = `receipts = []
for i in range(1, 4):
    receipts.append(charge(order=i)["receipt"])
shipped = ship({"order": 1})
return {"receipts": receipts, "shipped": shipped, "total": float(len(receipts))}
`

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-py-'))
  writeFileSync(join(dir, 'orders.py'), ORDERS)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [])

test('a Python workflow: agent() is a request whose answer comes back as Python values; args, helpers; print is a log line', async () => {
  const src = `
def ask(topic):
    return agent(f"Summarize {topic}", {"model": "small"})

notes = [ask(t) for t in args["topics"]]
print("notes:", len(notes), notes[0]["text"], sep=" | ")
sleep(1000)
return {"notes": notes, "words": sum(len(n["text"].split()) for n in notes)}
`
  const program = compileWorkflow(src, { sourceName: 'notes.py' })
  expect(program.ast.libraries).toEqual({ workflow: 1, python: 1 })
  const ex = startWorkflow(program, { args: { topics: ['cats', 'dogs'] } })
  const prompts: unknown[] = []
  const { result, seen } = await drive(ex, (r) => {
    if (r.type !== 'agent') return 'OkUndefined'
    prompts.push([r.prompt, (r as { options?: unknown }).options])
    return { Ok: { text: `${r.prompt} in brief` } }
  })
  // print writes to the workflow's log (a journaled `log` call), as CPython's print writes a line.
  expect(calls(seen)).toContainEqual({ type: 'log', values: ['notes: | 2 | Summarize cats in brief'] })
  expect(prompts).toEqual([['Summarize cats', { model: 'small' }], ['Summarize dogs', { model: 'small' }]])
  expect(result).toEqual({ notes: [{ text: 'Summarize cats in brief' }, { text: 'Summarize dogs in brief' }], words: 8 })
})

test('a generator whose body calls agent() runs through at its call (the runtime cannot wait): the same items', async () => {
  const src = `
def drafts(topics):
    for t in topics:
        yield agent(f"Draft {t}")["text"]

return {"drafts": [d.upper() for d in drafts(args["topics"])], "first": next(drafts(["x"]))}
`
  const { result } = await drive(startWorkflow(compileWorkflow(src, { sourceName: 'gen.py' }), { args: { topics: ['a', 'b'] } }), (r) => (r.type === 'agent' ? { Ok: { text: r.prompt } } : 'OkUndefined'))
  expect(result).toEqual({ drafts: ['DRAFT A', 'DRAFT B'], first: 'Draft x' })
})

test('a Python workflow refuses a wrong call of a workflow function with a located error', () => {
  expect(() => compileWorkflow('agent()\nreturn {}', { sourceName: 'bad.py' })).toThrow(/missing required argument 'prompt'/)
  expect(() => compileWorkflow('x = 1\nlookup(3)', { sourceName: 'bad.py' })).toThrow(expect.objectContaining({ code: 'AJS7006', line: 2, hint: expect.stringContaining('--atoms ./atoms.mjs') }))
  expect(() => compileWorkflow('agnet("hi")', { sourceName: 'bad.py' })).toThrow(expect.objectContaining({ hint: expect.stringContaining('Did you mean `agent`?') }))
})

test('SIGKILL while an atom of a Python workflow runs, resume in a new process: journaled calls are not repeated', async () => {
  const log = join(dir, 'crash.log')
  const hold = join(dir, 'hold')
  writeFileSync(hold, '')
  const env = { ...process.env, NO_COLOR: '1', AJS_WF_ATOM_LOG: log, AJS_WF_ATOM_HOLD: hold }
  const spawnAjsc = (args: string[]) => spawnProcess(dir, env, args)
  const first = spawnAjsc(['workflow', 'run', 'orders.py', '--atoms', ATOMS, '--runs-dir', 'runs'])
  for (let i = 0; i < 1500 && !lines(log).includes('ship 1 start'); i++) await new Promise((r) => setTimeout(r, 20))
  first.child.kill('SIGKILL')
  expect((await first.done).signal).toBe('SIGKILL')
  rmSync(hold)
  expect(lines(log)).toEqual(['charge 1', 'charge 2', 'charge 3', 'ship 1 start'])

  const [runId] = readdirSync(join(dir, 'runs'))
  const second = await spawnAjsc(['workflow', 'resume', runId!, '--atoms', ATOMS, '--runs-dir', 'runs', '--json']).done
  expect(second.stderr).toBe('')
  expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, result: { receipts: ['r-1', 'r-2', 'r-3'], shipped: 'shipped 1', total: 3 } })
  // Each charge ran once; ship was running at the crash, so it ran again (at least once).
  expect(lines(log)).toEqual(['charge 1', 'charge 2', 'charge 3', 'ship 1 start', 'ship 1 start', 'ship 1 done'])
}, 60_000)
