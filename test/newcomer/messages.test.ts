/**
 * Issue 29, item 10 (messages): a misspelt run option gets a "did you mean"; an error's `column` is
 * 1-based like its `location` (the VM, the server's 422 body, the CLI); a traced loop's entries have a
 * `fuelTotal` that never goes down.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentVM } from '../../src/index.ts'
import { ajsc } from '../cli/run-cli.ts'
import { startTestServer, type TestServer } from '../server/helpers.ts'

const vm = new AgentVM()

describe('10. a misspelt run option', () => {
  test('`fule` is refused with "did you mean fuel"', async () => {
    const r = await vm.run('function f() { return 1 }', {}, { fule: 5 } as never)
    expect(r.error?.code).toBe('OPTIONS_INVALID')
    expect(r.error?.message).toBe('Unknown run option "fule" (did you mean "fuel"?)')
  })
  test('a misspelt limit too; a name close to nothing gets no suggestion', async () => {
    const limit = await vm.run('function f() { return 1 }', {}, { limits: { maxCallDeph: 5 } } as never)
    expect(limit.error?.message).toBe('Unknown limit "maxCallDeph" (did you mean "maxCallDepth"?)')
    const far = await vm.run('function f() { return 1 }', {}, { banana: 1 } as never)
    expect(far.error?.message).toBe('Unknown run option "banana"')
  })
})

// The `throw` fails at line 3, column 16 (1-based).
const FAILING = 'function f() {\n  let o = 1\n  if (o > 0) { throw new Error("boom") }\n  return { o }\n}'

describe('10. one convention for columns: 1-based, as in `location`', () => {
  test('a run error: column matches the column of location', async () => {
    const r = await vm.run(FAILING)
    expect(r.error).toMatchObject({ code: 'THROWN', line: 3, column: 16 })
    const [, line, column] = r.error!.location!.split(':')
    expect({ line: r.error!.line, column: r.error!.column }).toEqual({ line: Number(line), column: Number(column) })
  })
  test('a compile error the VM reports (source): column 1-based', async () => {
    const r = await vm.run('function f() {\n  var x = 1\n  return { x }\n}')
    expect(r.error).toMatchObject({ code: 'AJS2015', line: 2, column: 3 })
  })

  let t: TestServer
  beforeAll(async () => { t = await startTestServer({ size: 1 }) })
  afterAll(() => t.close())
  test("the server's 422 body for source that does not compile: column 1-based, like its location", async () => {
    const r = await t.req('POST', '/v1/runs', { body: { source: 'function f() {\n  var x = 1\n  return { x }\n}' } })
    expect(r.status).toBe(422)
    expect(r.json.error).toMatchObject({ code: 'AJS2015', line: 2, column: 3 })
    expect(r.json.error.location).toEndWith(':2:3')
  })
  test("the server's answer to a failing run: same column as the library's", async () => {
    const r = await t.req('POST', '/v1/runs', { body: { source: FAILING } })
    const local = await vm.run(FAILING)
    expect(r.json.error).toMatchObject({ code: 'THROWN', line: local.error!.line, column: local.error!.column })
    expect(r.json.error.location.endsWith(`:${local.error!.line}:${local.error!.column}`)).toBe(true)
  })
  test('ajsc run --json: the same column, and the code frame marks it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ajs-columns-'))
    try {
      writeFileSync(join(dir, 'bad.ajs'), FAILING)
      const out = ajsc(['run', join(dir, 'bad.ajs'), '--json'])
      if (!out.stdout) throw new Error(out.stderr)
      const d = JSON.parse(out.stdout).diagnostics.find((x: { severity: string }) => x.severity === 'error')
      expect(d).toMatchObject({ code: 'THROWN', line: 3, column: 16 })
      const column = d.column as number
      const caret = (d.frame as string).split('\n').find((l) => /^\s+\|\s*\^$/.test(l))!
      expect(caret.indexOf('^') - caret.indexOf('|') - 2).toBe(column - 1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('10. a traced 1,000-iteration loop', () => {
  test('entries are in start order and their fuelTotal never decreases', async () => {
    const r = await vm.run('function f() {\n  let s = 0\n  for (let i = 0; i < 1000; i++) {\n    s = s + i\n  }\n  return { s }\n}', {}, { trace: true, fuel: 1e5 })
    expect(r.result).toEqual({ s: 499500 })
    const totals = r.trace!.map((t) => t.fuelTotal)
    expect(totals.length).toBeGreaterThan(1000)
    for (let i = 1; i < totals.length; i++) if (totals[i]! < totals[i - 1]!) throw new Error(`entry ${i} (${r.trace![i]!.op}) has fuelTotal ${totals[i]} < ${totals[i - 1]}`)
    // The loop's entry comes before its body's, and its own fuel covers them.
    const loop = r.trace!.findIndex((t) => t.op === 'for')
    expect(r.trace![loop + 1]!.fuelTotal).toBeGreaterThanOrEqual(r.trace![loop]!.fuelTotal)
    expect(r.trace![loop]!.fuel).toBeGreaterThan(r.trace!.at(-1)!.fuel)
    expect(totals.at(-1)!).toBeLessThanOrEqual(r.fuelUsed)
  })
})
