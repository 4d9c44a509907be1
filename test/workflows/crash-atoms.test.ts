/**
 * Custom atoms through `ajsc workflow run|resume --atoms <module>`: in
 * process, and across a real crash (SIGKILL while an atom runs). The
 * atoms log every call to a file: after the resume, no atom whose result
 * was journaled is called again; only the one running at the crash is
 * (at least once).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajscIn, spawnAjsc as spawnProcess } from './helpers.ts'

const ATOMS = resolve(import.meta.dir, 'fixtures/atoms.mjs')
let dir: string

const FLOW = `export const meta = { name: 'orders' }
const receipts = []
for (let i = 1; i <= 3; i++) {
  phase('charge ' + i)
  receipts.push((await charge({ order: i })).receipt)
}
const shipped = await ship({ order: 1 })
export default { receipts, shipped }
`

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-atoms-'))
  writeFileSync(join(dir, 'orders.ajs'), FLOW)
})
afterAll(() => {
  delete process.env['AJS_WF_ATOM_LOG']
  rmSync(dir, { recursive: true, force: true })
})

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [])

const ajsc = (...argv: string[]) => ajscIn(dir, argv)

test('ajsc workflow run --atoms <module>: the workflow calls the module\'s atoms; without it the call is refused with the code', async () => {
  process.env['AJS_WF_ATOM_LOG'] = join(dir, 'inproc.log')
  const ok = await ajsc('workflow', 'run', 'orders.ajs', '--atoms', ATOMS, '--runs-dir', 'runs-a', '--json')
  expect(ok.code).toBe(0)
  const report = JSON.parse(ok.out)
  expect(report.result).toEqual({ receipts: ['r-1', 'r-2', 'r-3'], shipped: 'shipped 1' })
  expect(lines(join(dir, 'inproc.log'))).toEqual(['charge 1', 'charge 2', 'charge 3', 'ship 1 start', 'ship 1 done'])
  const journal = readFileSync(join(dir, 'runs-a', report.runId, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  expect(journal.filter((e) => e.t === 'atom').map((e) => [e.op, e.resolution])).toEqual([
    ['charge', { Ok: { receipt: 'r-1' } }], ['charge', { Ok: { receipt: 'r-2' } }], ['charge', { Ok: { receipt: 'r-3' } }], ['ship', { Ok: 'shipped 1' }],
  ])

  const show = await ajsc('workflow', 'show', report.runId, '--runs-dir', 'runs-a')
  expect(show.out).toContain('atoms     4 journaled\n')
  expect(JSON.parse((await ajsc('workflow', 'show', report.runId, '--runs-dir', 'runs-a', '--json')).out).run.atoms).toEqual({ total: 4, errors: 0 })

  const without = await ajsc('workflow', 'run', 'orders.ajs', '--runs-dir', 'runs-a', '--json')
  expect(without.code).toBe(1)
  expect(JSON.parse(without.out).diagnostics[0]).toMatchObject({ code: 'AJS3002', message: expect.stringContaining('charge') })
  const names = await ajsc('workflow', 'run', 'orders.ajs', '--atoms', 'charge,ship', '--runs-dir', 'runs-a')
  expect(names.code).toBe(2)
  expect(names.err).toContain('a run needs the atoms themselves')
})

test('SIGKILL while an atom runs, resume --atoms in a new process: journaled atoms are not called again', async () => {
  const log = join(dir, 'crash.log')
  const hold = join(dir, 'hold')
  writeFileSync(hold, '')
  const env = { ...process.env, NO_COLOR: '1', AJS_WF_ATOM_LOG: log, AJS_WF_ATOM_HOLD: hold }
  const spawnAjsc = (args: string[]) => spawnProcess(dir, env, args)
  const first = spawnAjsc(['workflow', 'run', 'orders.ajs', '--atoms', ATOMS, '--runs-dir', 'runs-b'])
  while (!lines(log).includes('ship 1 start')) await new Promise((r) => setTimeout(r, 20))
  first.child.kill('SIGKILL')
  expect((await first.done).signal).toBe('SIGKILL')
  rmSync(hold)

  const [runId] = readdirSync(join(dir, 'runs-b'))
  const refused = await spawnAjsc(['workflow', 'resume', runId!, '--runs-dir', 'runs-b', '--json']).done
  expect(refused.code).toBe(1)
  expect(JSON.parse(refused.stdout).diagnostics[0]).toMatchObject({ code: 'AJS3002', hint: expect.stringContaining('--atoms ./atoms.mjs') })

  const second = await spawnAjsc(['workflow', 'resume', runId!, '--atoms', ATOMS, '--runs-dir', 'runs-b', '--json']).done
  expect(second.stderr).toBe('')
  expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, result: { receipts: ['r-1', 'r-2', 'r-3'], shipped: 'shipped 1' } })
  // Each charge ran once; ship was running at the crash, so it ran again (at least once).
  expect(lines(log)).toEqual(['charge 1', 'charge 2', 'charge 3', 'ship 1 start', 'ship 1 start', 'ship 1 done'])
})
