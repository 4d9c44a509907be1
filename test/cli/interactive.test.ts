/** `ajsc eval`, `ajsc repl` and `ajsc init`, through the real binary. */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

// Each test spawns the real binary, several times; a loaded machine needs more than bun's 5 s.
setDefaultTimeout(30_000)

let dir: string
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ajsc-interactive-')) })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc eval', () => {
  test('-p prints the value of the last expression; statements and args work', () => {
    expect(ajsc(['eval', '-p', '1 + 2']).stdout.trim()).toBe('3')
    const r = ajsc(['eval', '-p', 'let xs = [1, 2, 3]\nxs.map(x => x * args.k)', '--args', '{"k":10}'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([10, 20, 30])
  })

  test('-p and the repl show NaN, Infinity, -0 and undefined as JavaScript writes them (JSON would print null and 0)', () => {
    const r = ajsc(['eval', '-p', '[0 / 0, -1 / 0, -0, undefined, { a: undefined, b: [1 / 0] }, "s", null, []]'])
    expect(r.stdout).toBe('[\n  NaN,\n  -Infinity,\n  -0,\n  undefined,\n  {\n    "a": undefined,\n    "b": [\n      Infinity\n    ]\n  },\n  "s",\n  null,\n  []\n]\n')
    const repl = ajsc(['repl'], { input: 'let z = 0 / 0\nz\n', env: { AJSC_HISTORY: '' } })
    expect(repl.stdout).toBe('NaN\n')
    // The JSON report keeps strict JSON.
    expect(JSON.parse(ajsc(['eval', '-p', '0 / 0', '--json']).stdout).result).toBeNull()
  })

  test('without -p nothing is printed; errors point into the code as typed', () => {
    const quiet = ajsc(['eval', 'let a = 1'])
    expect(quiet).toMatchObject({ code: 0, stdout: '' })
    const bad = ajsc(['eval', '-p', 'let q = 1\nq + nope'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('<eval>:2:5: error AJS3001: `nope` is not declared')
    const fuel = ajsc(['eval', 'let i = 0; while (true) { i++ }', '--fuel', '2', '--json'])
    expect(fuel.code).toBe(1)
    expect(JSON.parse(fuel.stdout)).toMatchObject({ command: 'eval', ok: false, diagnostics: [{ code: 'FUEL_EXHAUSTED', file: '<eval>', line: 1 }] })
  })
})

describe('ajsc repl', () => {
  const repl = (lines: string[], env: Record<string, string> = {}) => ajsc(['repl'], { input: `${lines.join('\n')}\n`, env: { AJSC_HISTORY: '', ...env } })

  test('variables persist across lines; multi-line input; the store persists', () => {
    const r = repl(['let xs = [1, 2, 3]', 'let total = xs.reduce((a, b) => a + b, 0)', 'total * 2', 'let o = {', '  t: total,', '  n: xs.length', '}', 'o', 'storeSet({ key: "k", value: 5 })', 'storeGet({ key: "k" }) + total'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const values = r.stdout.trim().split(/\n(?=[^\s}\]])/).map((v) => JSON.parse(v))
    expect(values).toEqual([12, { t: 6, n: 3 }, 11])
  })

  test('.help, .fuel, .vars, errors keep the session going', () => {
    const r = repl(['.help', 'let a = 2', 'nope + a', 'a * 5', '.vars', '.fuel 2', 'let i = 0; while (true) { i++ }', '.fuel', '.exit', 'a'])
    expect(r.stdout).toContain('.fuel [n]')
    expect(r.stderr).toContain('<repl>:1:1: error AJS3001: `nope` is not declared')
    expect(r.stdout).toContain('10\n')
    expect(r.stdout).toContain('"a": 2')
    expect(r.stderr).toContain('error FUEL_EXHAUSTED')
    expect(r.stderr).toContain('hint: Raise the budget per entry with .fuel <n> (now 2).')
    expect(r.stdout).toMatch(/fuel: last 2, total [\d.]+, budget per entry 2/)
    // .exit ends the session: the last line is never run.
    expect(r.stdout.trim().endsWith('budget per entry 2')).toBe(true)
  })

  test('history is kept in AJSC_HISTORY', () => {
    const file = join(dir, 'history')
    repl(['let h = 1', 'h + 1'], { AJSC_HISTORY: file })
    expect(readFileSync(file, 'utf8')).toBe('let h = 1\nh + 1\n')
  })
})

describe('ajsc init', () => {
  test('writes a starter project and refuses to overwrite it', () => {
    const r = ajsc(['init', 'starter'], { cwd: dir })
    expect(r.code).toBe(0)
    for (const f of ['package.json', 'agents/greet.ajs', 'app.mjs', 'build.mjs', 'test/greet.test.mjs', 'README.md']) expect(existsSync(join(dir, 'starter', f))).toBe(true)
    const pkg = JSON.parse(readFileSync(join(dir, 'starter/package.json'), 'utf8'))
    expect(pkg.dependencies['ajs-lang']).toStartWith('^')
    expect(ajsc(['check', 'starter/agents'], { cwd: dir }).code).toBe(0)
    const again = ajsc(['init', 'starter', '--json'], { cwd: dir })
    expect(again.code).toBe(1)
    expect(JSON.parse(again.stdout).diagnostics[0].code).toBe('CLI_EXISTS')
    writeFileSync(join(dir, 'starter/agents/greet.ajs'), 'changed')
    expect(ajsc(['init', 'starter', '--force'], { cwd: dir }).code).toBe(0)
    expect(readFileSync(join(dir, 'starter/agents/greet.ajs'), 'utf8')).toContain('function greet')
  })
})
