/** `ajsc workflow` in process: run with schema, child workflows and sleep; ls / show; every error path's code and exit status. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeLlm, type FakeLlm } from './fake-llm.ts'
import { ajscIn } from './helpers.ts'

let llm: FakeLlm
let dir: string
beforeAll(async () => {
  llm = await startFakeLlm()
  dir = mkdtempSync(join(tmpdir(), 'ajs-wf-cli-'))
  mkdirSync(join(dir, 'flows'))
  writeFileSync(join(dir, 'flows', 'main.ajs'), `import { sleep } from 'workflow:extra'
export const meta = { name: 'main' }
phase('plan')
const plan = await agent('sloppy plan for ' + args.topic, { schema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] } })
await sleep(5)
phase('children')
const kids = await parallel([() => workflow('child', { n: 1 }), () => workflow({ scriptPath: 'child.ajs' }, { n: 2 })])
log('done', kids.length)
export default { plan, kids }
`)
  writeFileSync(join(dir, 'flows', 'child.ajs'), `export default await agent('child ' + args.n)\n`)
  writeFileSync(join(dir, 'flows', 'bad.ajs'), `const t = Date.now()\n`)
})
afterAll(async () => {
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

const ajsc = (...argv: string[]) => ajscIn(dir, argv)

test('run: schema answers with one corrective retry, sleep, child workflows; the result on stdout, progress on stderr', async () => {
  const r = await ajsc('workflow', 'run', 'flows/main.ajs', '--args', '{"topic":"cats"}', '--llm', llm.baseUrl, '--model', 'echo', '--max-agents', '2')
  expect(r.code).toBe(0)
  expect(JSON.parse(r.out)).toEqual({ plan: { echo: 'sloppy plan for cats' }, kids: ['echo: child 1', 'echo: child 2'] })
  expect(r.err).toMatch(/^run \d{8}-\d{6}-[0-9a-f]{6}\nphase plan\nphase children\ndone 2\n$/)
  expect(llm.counts.get('sloppy plan for cats')).toBe(2)
  const runs = readdirSync(join(dir, '.ajs', 'runs'))
  expect(runs.length).toBe(1)
  // Each child has its own journal under the parent's run directory.
  expect(readdirSync(join(dir, '.ajs', 'runs', runs[0]!, 'children')).length).toBe(2)

  const ls = await ajsc('workflow', 'ls')
  expect(ls.out).toContain(`${runs[0]}  complete  phase children  budget 3 spent  `)
  const show = await ajsc('workflow', 'show', runs[0]!, '--json')
  const report = JSON.parse(show.out)
  expect(report).toMatchObject({ command: 'workflow show', ok: true, run: { state: 'complete', phases: ['plan', 'children'], requests: { total: 4, resolved: 4, inFlight: [] } } })
  const text = await ajsc('workflow', 'show', runs[0]!)
  expect(text.out).toContain('phases    plan → children')
})

test('--budget caps agent calls: the next one fails with a clear message', async () => {
  writeFileSync(join(dir, 'two.ajs'), `const a = await agent('one')\nconst b = await agent('two')\nexport default [a, b]\n`)
  const r = await ajsc('workflow', 'run', 'two.ajs', '--llm', llm.baseUrl, '--budget', '1', '--runs-dir', 'budget-runs', '--json')
  expect(r.code).toBe(1)
  const report = JSON.parse(r.out)
  expect(report.diagnostics[0]).toMatchObject({ code: 'CAPABILITY_ERROR', message: 'agent(): budget exhausted (1 of 1 agent calls)', line: 2 })
})

test('errors: exit codes and codes', async () => {
  const missing = await ajsc('workflow', 'run', 'nope.ajs', '--json')
  expect([missing.code, JSON.parse(missing.out).diagnostics[0].code]).toEqual([1, 'CLI_NOT_FOUND'])
  const bad = await ajsc('workflow', 'run', 'flows/bad.ajs')
  expect(bad.code).toBe(1)
  expect(bad.err).toContain('flows/bad.ajs:1:11: error AJS5006')
  expect(bad.err).not.toContain('resume with')
  const unknown = await ajsc('workflow', 'resume', 'no-such-run', '--json')
  expect([unknown.code, JSON.parse(unknown.out).diagnostics[0].code]).toEqual([1, 'WORKFLOW_RUN_NOT_FOUND'])
  expect((await ajsc('workflow', 'host')).code).toBe(2)
  expect((await ajsc('workflow', 'run', 'flows/main.ajs', '--model', 'm')).code).toBe(2)
  expect((await ajsc('workflow', 'run', 'flows/main.ajs', '--max-agents', '0')).code).toBe(2)
  expect((await ajsc('workflow', 'run', 'flows/main.ajs', '--args', '[1]')).code).toBe(2)
  const noLlm = await ajsc('workflow', 'run', 'flows/child.ajs', '--runs-dir', 'no-llm')
  expect(noLlm.code).toBe(1)
  expect(noLlm.err).toContain('no model endpoint: pass --llm <url>')
  expect(noLlm.err).toContain('retry with: ajsc workflow retry')
  // The file changed since the run started: its journal is refused.
  const runId = /retry with: ajsc workflow retry (\S+)/.exec(noLlm.err)![1]!
  writeFileSync(join(dir, 'flows', 'child.ajs'), `export default await agent('changed ' + args.n)\n`)
  const changed = await ajsc('workflow', 'resume', runId, '--runs-dir', 'no-llm', '--json')
  expect([changed.code, JSON.parse(changed.out).diagnostics[0].code]).toEqual([1, 'WORKFLOW_VERSION_MISMATCH'])
})
