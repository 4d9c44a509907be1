/**
 * The CLI conventions of io.ts, through the real binary: one JSON report on
 * stdout for every command and every error path (1-based positions), one
 * exit-code rule, esbuild-style output files, stdin only when asked, every
 * refusal of a file in one pass, hints that name flags.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { spawn } from 'node:child_process'
import { ajsc, ROOT } from './run-cli.ts'

// Each test spawns the real binary, several times; a loaded machine needs more than bun's 5 s.
setDefaultTimeout(30_000)

let dir: string
const write = (name: string, text: string) => {
  const p = join(dir, name)
  mkdirSync(resolve(p, '..'), { recursive: true })
  writeFileSync(p, text)
  return p
}
const THREE_ERRORS = 'function f({ a }) {\n  let x = nope\n  class K {}\n  return { b: x + missing }\n}\n'

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-conv-'))
  write('src/a.ajs', 'function a({ n = 1 }) { return { n: n + 1 } }\n')
  write('src/deep/b.ajs', 'function b() { return { b: true } }\n')
  write('three.ajs', THREE_ERRORS)
  write('empty/readme.txt', 'no sources here')
  write('spin.ajs', 'function spin() { let i = 0; while (true) { i++ } return { i } }\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const json = (stdout: string) => {
  const lines = stdout.trim().split('\n')
  expect(lines.length).toBe(1)
  return JSON.parse(lines[0]!)
}

describe('--json: one report shape on stdout for every command and error path', () => {
  const cases: Array<[string, string[], number, string | undefined]> = [
    ['build ok', ['build', 'src', '--outdir', 'out1'], 0, undefined],
    ['build refusal', ['build', 'three.ajs', '--outdir', 'out2'], 1, 'AJS3001'],
    ['build missing input', ['build', 'nope.ajs'], 1, 'CLI_NOT_FOUND'],
    ['build empty directory', ['build', 'empty'], 1, 'CLI_NO_INPUTS'],
    ['build conflicting flags', ['build', 'src', '--pretty', '--minify'], 2, 'CLI_USAGE'],
    ['check refusal', ['check', 'three.ajs'], 1, 'AJS3001'],
    ['check unknown flag', ['check', 'three.ajs', '--frob'], 2, 'CLI_USAGE'],
    ['run ok', ['run', 'src/a.ajs'], 0, undefined],
    ['run transpile error', ['run', 'three.ajs'], 1, 'AJS3001'],
    ['run out of fuel', ['run', 'spin.ajs', '--fuel', '3'], 1, 'FUEL_EXHAUSTED'],
    ['run bad --args', ['run', 'src/a.ajs', '--args', '{nope'], 2, 'CLI_USAGE'],
    ['run missing target', ['run', 'nope.ajs'], 1, 'CLI_NOT_FOUND'],
    ['run missing argument', ['run'], 2, 'CLI_USAGE'],
    ['unknown command', ['frob'], 2, 'CLI_USAGE'],
  ]
  test.each(cases)('%s', (_name, args, exitCode, code) => {
    const r = ajsc([...args, '--json'], { cwd: dir })
    expect(r.code).toBe(exitCode)
    const report = json(r.stdout)
    expect(report).toMatchObject({ ok: exitCode === 0, exitCode })
    expect(typeof report.command).toBe('string')
    expect(Array.isArray(report.diagnostics)).toBe(true)
    if (code) expect(report.diagnostics[0].code).toBe(code)
    for (const d of report.diagnostics) {
      expect(['error', 'warning']).toContain(d.severity)
      expect(typeof d.message).toBe('string')
      // Messages do not repeat their code.
      expect(d.message.startsWith(d.code)).toBe(false)
    }
    // With --json nothing but progress may reach stderr: no diagnostics text.
    expect(r.stderr).not.toContain('error ')
  })

  test('positions are 1-based in JSON as in text, files relative to the working directory', () => {
    const text = ajsc(['check', 'three.ajs', '--max-errors', '1'], { cwd: dir }).stderr
    expect(text).toContain('three.ajs:2:11: error AJS3001')
    const d = json(ajsc(['check', 'three.ajs', '--json', '--max-errors', '1'], { cwd: dir }).stdout).diagnostics[0]
    expect(d).toMatchObject({ file: 'three.ajs', line: 2, column: 11 })
    const run = json(ajsc(['run', 'spin.ajs', '--fuel', '2', '--json'], { cwd: dir }).stdout).diagnostics[0]
    expect(run.file).toBe('spin.ajs')
    const build = json(ajsc(['build', 'src/a.ajs', '--outfile', 'o/a.json', '--json'], { cwd: dir }).stdout)
    expect(build.files).toEqual([{ input: 'src/a.ajs', output: 'o/a.json', bytes: expect.any(Number), ok: true }])
  })
})

describe('every refusal of a file in one pass (--max-errors)', () => {
  test('check and build report all three refusals; --max-errors 1 stops at the first', () => {
    const all = ajsc(['check', 'three.ajs'], { cwd: dir })
    expect(all.stderr).toContain('three.ajs:2:11: error AJS3001: `nope` is not declared')
    expect(all.stderr).toContain('three.ajs:3:3: error AJS2001')
    expect(all.stderr).toContain('three.ajs:4:19: error AJS3001: `missing` is not declared')
    expect(all.stderr).toContain('3 errors')
    const one = ajsc(['build', 'three.ajs', '--max-errors', '1', '--json'], { cwd: dir })
    expect(json(one.stdout).diagnostics.length).toBe(1)
    expect(ajsc(['check', 'three.ajs', '--max-errors', '0'], { cwd: dir }).code).toBe(2)
  })

  test('run shows transpile warnings too', () => {
    write('warn.ajs', "function w({ a = 'x' }) { return { eq: a == 'x' } }\n")
    const r = ajsc(['run', 'warn.ajs'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('warn.ajs:1:40: warning AJS4003')
    expect(JSON.parse(r.stdout)).toEqual({ eq: true })
  })
})

describe('output files (esbuild conventions)', () => {
  test('--outfile (and -o) writes one file; several inputs need --outdir', () => {
    expect(ajsc(['build', 'src/a.ajs', '--outfile', 'one/a.ast.json'], { cwd: dir }).code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'one/a.ast.json'), 'utf8')).name).toBe('a')
    expect(ajsc(['build', 'src/a.ajs', '-o', 'two.json'], { cwd: dir }).code).toBe(0)
    expect(existsSync(join(dir, 'two.json'))).toBe(true)
    const many = ajsc(['build', 'src', '--outfile', 'x.json'], { cwd: dir })
    expect(many.code).toBe(2)
    expect(many.stderr).toContain('--outdir')
  })

  test('--outdir keeps paths relative to the inputs\' common directory', () => {
    expect(ajsc(['build', 'src/a.ajs', 'src/deep/b.ajs', '--outdir', 'dist1'], { cwd: dir }).code).toBe(0)
    expect(existsSync(join(dir, 'dist1/a.json'))).toBe(true)
    expect(existsSync(join(dir, 'dist1/deep/b.json'))).toBe(true)
  })

  test('- with --stdin-filename names the source in messages and in the AST; --outfile writes it', () => {
    const ok = ajsc(['build', '-', '--stdin-filename', 'flows/in.ajs'], { cwd: dir, input: 'function s() { return { s: 1 } }' })
    expect(JSON.parse(ok.stdout).file).toBe('flows/in.ajs')
    const bad = ajsc(['build', '-', '--stdin-filename', 'flows/in.ajs'], { cwd: dir, input: THREE_ERRORS })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('flows/in.ajs:2:11: error AJS3001')
    expect(ajsc(['build', '-', '--outfile', 'stdin.json'], { cwd: dir, input: 'function s() { return { s: 2 } }' }).code).toBe(0)
    expect(readFileSync(join(dir, 'stdin.json'), 'utf8')).toContain('"value":2')
  })

  test('a failed build removes its stale output; an empty directory is an error', () => {
    const src = write('stale/s.ajs', 'function s() { return { s: 1 } }\n')
    expect(ajsc(['build', src], { cwd: dir }).code).toBe(0)
    expect(existsSync(join(dir, 'stale/s.json'))).toBe(true)
    writeFileSync(src, THREE_ERRORS)
    expect(ajsc(['build', src], { cwd: dir }).code).toBe(1)
    expect(existsSync(join(dir, 'stale/s.json'))).toBe(false)
    const empty = ajsc(['build', 'empty'], { cwd: dir })
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain('empty: the directory holds no .ajs files')
  })
})

describe('ajsc run and stdin', () => {
  test('run - reads the program from stdin; arguments only from --args', () => {
    const r = ajsc(['run', '-', '--args', '{"n":20}'], { cwd: dir, input: 'function d({ n }) { return { d: n * 2 } }' })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ d: 40 })
    const ast = ajsc(['build', '-'], { input: 'function d({ n }) { return { d: n + 1 } }' }).stdout
    expect(JSON.parse(ajsc(['run', '-', '--args', '{"n":1}'], { input: ast }).stdout)).toEqual({ d: 2 })
    expect(ajsc(['run', '-', '--args', '-'], { input: '{}' }).code).toBe(2)
  })

  test('run does not wait on a stdin it was not asked to read', async () => {
    // stdin stays open and silent: ajsc must finish anyway.
    const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), 'run', 'src/a.ajs'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => { out += c })
    const code = await new Promise<number | null>((res) => {
      const t = setTimeout(() => { child.kill(); res(null) }, 10_000)
      child.on('close', (c) => { clearTimeout(t); res(c) })
    })
    child.stdin.end()
    expect(code).toBe(0)
    expect(JSON.parse(out)).toEqual({ n: 2 })
  }, 15_000)
})

describe('hints name the CLI flag; exit codes; default timeout', () => {
  test('out of fuel names --fuel; missing arguments name --args', () => {
    const fuel = ajsc(['run', 'spin.ajs', '--fuel', '3'], { cwd: dir })
    expect(fuel.stderr).toContain('hint: Raise the budget with --fuel (this run had 3)')
    expect(fuel.stderr).not.toContain('run options')
    write('needs.ajs', 'function needs({ n }) { return { n } }\n')
    const args = ajsc(['run', 'needs.ajs'], { cwd: dir })
    expect(args.code).toBe(1)
    expect(args.stderr).toContain('--args')
  })

  test('the default run timeout leaves room for a 120 s model call', () => {
    expect(ajsc(['run', '--help']).stdout).toMatch(/--timeout <ms>\s+wall-clock limit in ms \(default 300000/)
  })
})

describe('source maps for --minify', () => {
  test('a run-time error in a minified AST maps back to file:line:col', () => {
    write('map/boom.ajs', "function boom({ n }) {\n  let x = n + 1\n  if (x > 1) throw new Error('too big')\n  return { x }\n}\n")
    const built = ajsc(['build', 'map/boom.ajs', '--minify', '--sourcemap', '--outfile', 'map/boom.min.json'], { cwd: dir })
    expect(built.code).toBe(0)
    expect(readFileSync(join(dir, 'map/boom.min.json'), 'utf8')).not.toContain('"loc"')
    const withMap = ajsc(['run', 'map/boom.min.json', '--args', '{"n":5}'], { cwd: dir })
    expect(withMap.code).toBe(1)
    expect(withMap.stderr).toContain('map/boom.ajs:3:14: error THROWN')
    expect(withMap.stderr).toContain("> 3 |   if (x > 1) throw new Error('too big')")
    rmSync(join(dir, 'map/boom.min.json.map'))
    const without = ajsc(['run', 'map/boom.min.json', '--args', '{"n":5}'], { cwd: dir })
    expect(without.stderr).not.toContain('boom.ajs:3')
    expect(ajsc(['build', 'map/boom.ajs', '--sourcemap'], { cwd: dir }).code).toBe(2)
  })
})
