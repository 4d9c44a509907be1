/**
 * `ajsc inspect --json` and `ajsc atoms --json`: the two commands had no
 * JSON report (inspect only served a page; atoms had --format json, whose
 * errors were text). Now one report each, errors included (io.ts).
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

setDefaultTimeout(30_000)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-inspect-json-'))
  writeFileSync(join(dir, 'boom.ajs'), 'function boom({ n }) {\n  let x = n * 2\n  if (x > 10) throw new Error("too big")\n  return { x }\n}\n')
  writeFileSync(join(dir, 'failed.json'), ajsc(['run', 'boom.ajs', '--trace', '--json', '--args', '{"n":9}'], { cwd: dir }).stdout)
  writeFileSync(join(dir, 'wf.js'), 'phase("one")\nlog("hello")\nexport default { ok: 1 }\n')
  expect(ajsc(['workflow', 'run', 'wf.js', '--runs-dir', 'runs'], { cwd: dir }).code).toBe(0)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc inspect --json', () => {
  test('the items the inspector would show, without serving: a failed run with its error, a done workflow', () => {
    const r = ajsc(['inspect', 'failed.json', 'runs', '--json'], { cwd: dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ command: 'inspect', ok: true, exitCode: 0, diagnostics: [] })
    const byKind = Object.fromEntries(report.items.map((i: { kind: string }) => [i.kind, i]))
    expect(byKind.run).toMatchObject({ id: 'failed', state: 'failed', label: 'ajsc run', result: null, fuelUsed: expect.any(Number), traceSteps: expect.any(Number), error: { code: 'THROWN', message: 'too big', location: 'boom.ajs:3:15' } })
    expect(byKind.workflow).toMatchObject({ state: 'done', label: 'wf.js', result: { ok: 1 }, requests: [], journalEntries: expect.any(Number), budget: null })
    expect(Date.parse(byKind.workflow.at)).toBeGreaterThan(0)
  })

  test('a missing input is the report of CLI_NOT_FOUND; --port with --json a usage error', () => {
    const missing = ajsc(['inspect', 'nope.json', '--json'], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout)).toMatchObject({ command: 'inspect', ok: false, diagnostics: [{ code: 'CLI_NOT_FOUND' }] })
    const port = ajsc(['inspect', 'failed.json', '--json', '--port', '0'], { cwd: dir })
    expect(port.code).toBe(2)
    expect(JSON.parse(port.stdout).diagnostics[0]).toMatchObject({ code: 'CLI_USAGE' })
  })
})

describe('ajsc atoms --json', () => {
  test('the atoms as --format json lists them and as TypeScript declarations, in one report', () => {
    const r = ajsc(['atoms', '--core', '--only', 'storeGet', '--json'])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ command: 'atoms', ok: true, exitCode: 0, diagnostics: [] })
    expect(report.atoms).toEqual(JSON.parse(ajsc(['atoms', '--core', '--only', 'storeGet', '--format', 'json']).stdout))
    expect(report.declarations).toBe(ajsc(['atoms', '--core', '--only', 'storeGet']).stdout)
  })

  test('an error is the report too', () => {
    const r = ajsc(['atoms', '--only', 'storeGte', '--core', '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toMatchObject({ command: 'atoms', ok: false, diagnostics: [{ code: 'CLI_USAGE', message: '--only storeGte: no such atom (did you mean storeGet?)' }] })
  })
})
