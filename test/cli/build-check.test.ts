/** `ajsc build` and `ajsc check`, plus the program-level behaviour (help, version, colors, exit codes). */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajsc, ROOT } from './run-cli.ts'
import { runCli } from '../../src/cli/program.ts'
import { wantsColor, type CliIO } from '../../src/cli/io.ts'
import { ensureBuilt } from '../package/built.ts'

let dir: string
const write = (name: string, text: string) => {
  const p = join(dir, name)
  mkdirSync(resolve(p, '..'), { recursive: true })
  writeFileSync(p, text)
  return p
}
const GOOD = 'function add({ a, b }) {\n  return { sum: a + b }\n}\n'
const BAD = 'function f({ a }) {\n  return { b }\n}\n'

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-build-'))
  write('flows/add.ajs', GOOD)
  write('flows/nested/twice.ajs', 'function twice({ n }) { return { n: n * 2 } }\n')
  write('flows/readme.txt', 'not a flow')
  write('broken/bad.ajs', BAD)
  write('warn.ajs', "function w({ a }) { return { eq: a == 'x' } }\n")
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc (program)', () => {
  test('--version prints the version from package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    for (const flag of ['--version', '-v']) {
      const r = ajsc([flag])
      expect(r.code).toBe(0)
      expect(r.stdout.trim()).toBe(pkg.version)
    }
  })

  test('--help lists the commands; each command documents its options', () => {
    const r = ajsc(['--help'])
    expect(r.code).toBe(0)
    for (const c of ['build', 'run', 'check']) expect(r.stdout).toContain(c)
    const run = ajsc(['run', '--help']).stdout
    for (const o of ['--args', '--fuel', '--timeout', '--trace', '--json', '--allow-fetch', '--llm', '--model']) expect(run).toContain(o)
    const build = ajsc(['build', '--help']).stdout
    for (const o of ['--outdir', '--pretty', '--minify', '--watch']) expect(build).toContain(o)
    expect(ajsc(['check', '--help']).stdout).toContain('--json')
  })

  test('usage errors exit 2', () => {
    expect(ajsc([]).code).toBe(2)
    expect(ajsc(['frob']).code).toBe(2)
    expect(ajsc(['build']).code).toBe(2)
    expect(ajsc(['check', '--nope', 'x.ajs']).code).toBe(2)
  })

  test('colors only on a TTY and never with NO_COLOR', async () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true)
    expect(wantsColor({ isTTY: false }, {})).toBe(false)
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false)
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true)
    expect(wantsColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false)
    const bad = join(dir, 'broken/bad.ajs')
    const captured = async (color: boolean) => {
      let err = ''
      const io: CliIO = { out: () => {}, err: (s) => { err += s }, readStdin: async () => '', color, cwd: dir, env: {} }
      expect(await runCli(['check', bad], io)).toBe(1)
      return err
    }
    expect(await captured(true)).toContain('\u001b[31m')
    expect(await captured(false)).not.toContain('\u001b[')
    // A spawned ajsc writes to pipes: no colors even without NO_COLOR.
    expect(ajsc(['check', bad], { env: { NO_COLOR: '' } }).stderr).not.toContain('\u001b[')
  })

  test('the built bin runs on plain Node', () => {
    ensureBuilt()
    const r = ajsc(['run', 'examples/hello.ajs', '--args', '{"name":"Node"}'], { node: true })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).greeting).toBe('Hello, Node!')
    expect(ajsc(['--version'], { node: true }).stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
  }, 60_000)
})

describe('ajsc build', () => {
  test('a directory: every .ajs below it, next to each source', () => {
    const r = ajsc(['build', 'flows'], { cwd: dir })
    expect(r.code).toBe(0)
    const ast = JSON.parse(readFileSync(join(dir, 'flows/add.json'), 'utf8'))
    expect(ast).toMatchObject({ ajs: 1, op: 'seq', name: 'add', file: 'flows/add.ajs' })
    expect(existsSync(join(dir, 'flows/nested/twice.json'))).toBe(true)
    expect(existsSync(join(dir, 'flows/readme.json'))).toBe(false)
    expect(r.stderr).toContain('2 built')
  })

  test('--outdir keeps the layout; --pretty indents; --minify drops positions', () => {
    expect(ajsc(['build', 'flows', '--outdir', 'out', '--pretty'], { cwd: dir }).code).toBe(0)
    const pretty = readFileSync(join(dir, 'out/nested/twice.json'), 'utf8')
    expect(pretty).toContain('\n  "ajs": 1')
    expect(ajsc(['build', 'flows/add.ajs', '--outdir', 'min', '--minify'], { cwd: dir }).code).toBe(0)
    const min = readFileSync(join(dir, 'min/add.json'), 'utf8')
    expect(min).not.toContain('"loc"')
    expect(min.trim().split('\n').length).toBe(1)
    expect(ajsc(['build', 'flows', '--pretty', '--minify'], { cwd: dir }).code).toBe(2)
  })

  test('globs, quoted', () => {
    const r = ajsc(['build', 'flows/**/*.ajs', '--outdir', 'globbed', '--json'], { cwd: dir })
    expect(r.code).toBe(0)
    const summary = JSON.parse(r.stdout)
    expect(summary.ok).toBe(true)
    expect(summary.files.map((o: { input: string }) => o.input).sort()).toEqual(['flows/add.ajs', 'flows/nested/twice.ajs'])
    expect(summary.files.map((o: { output: string }) => o.output).sort()).toEqual(['globbed/add.json', 'globbed/nested/twice.json'])
    expect(ajsc(['build', 'flows/**/*.nope'], { cwd: dir }).code).toBe(1)
  })

  test('- compiles stdin to stdout', () => {
    const r = ajsc(['build', '-'], { input: GOOD })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).steps[0].op).toBe('return')
  })

  test('a failing file is reported, the others still build, exit 1', () => {
    const r = ajsc(['build', 'broken/bad.ajs', 'flows/add.ajs', '--outdir', 'mixed'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('broken/bad.ajs:2:12: error AJS3001:')
    expect(existsSync(join(dir, 'mixed/flows/add.json'))).toBe(true)
    expect(ajsc(['build', 'missing.ajs'], { cwd: dir }).code).toBe(1)
  })

  test('--watch rebuilds a file when it changes', async () => {
    const src = write('watched.ajs', 'function v() { return { v: 1 } }\n')
    const out = join(dir, 'watched.json')
    const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), 'build', src, '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    const waitFor = (cond: () => boolean) => new Promise<void>((res, rej) => {
      const started = Date.now()
      const tick = () => (cond() ? res() : Date.now() - started > 15_000 ? rej(new Error(`timed out; stderr: ${stderr}`)) : setTimeout(tick, 25))
      tick()
    })
    child.stderr.on('data', (c) => { stderr += c })
    try {
      await waitFor(() => stderr.includes('watching'))
      expect(readFileSync(out, 'utf8')).toContain('"value":1')
      writeFileSync(src, 'function v() { return { v: 2 } }\n')
      await waitFor(() => existsSync(out) && readFileSync(out, 'utf8').includes('"value":2'))
    } finally {
      child.kill('SIGINT')
    }
    const code = await new Promise((r) => child.on('close', r))
    expect(code).toBe(0)
  }, 30_000)
})

describe('ajsc check', () => {
  test('clean files exit 0 and write nothing', () => {
    const r = ajsc(['check', 'flows/add.ajs'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('1 file checked: no errors')
  })

  test('messages name files as the user can open them: relative to the working directory, absolute outside it', () => {
    const inside = ajsc(['check', 'broken'], { cwd: dir })
    expect(inside.stderr).toContain('broken/bad.ajs:2:12: error AJS3001')
    const elsewhere = ajsc(['check', join(dir, 'broken/bad.ajs')], { cwd: join(dir, 'flows') })
    expect(elsewhere.stderr).toContain(`${join(dir, 'broken/bad.ajs')}:2:12: error AJS3001`)
  })

  test('errors: file:line:col: error CODE: message, a code frame, exit 1', () => {
    const r = ajsc(['check', 'broken/bad.ajs', 'flows'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('broken/bad.ajs:2:12: error AJS3001: `b` is not declared')
    expect(r.stderr).toContain('> 2 |   return { b }')
    expect(r.stderr).toMatch(/\n\s+\| {12}\^/)
    expect(r.stderr).toContain('hint:')
  })

  test('--json lists every diagnostic with its position', () => {
    const r = ajsc(['check', 'broken/bad.ajs', 'warn.ajs', 'flows/add.ajs', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report.errors).toBe(1)
    expect(report.warnings).toBe(1)
    const bad = report.files.find((f: { file: string }) => f.file === 'broken/bad.ajs')
    expect(bad.ok).toBe(false)
    expect(report.diagnostics.find((d: { file: string }) => d.file === 'broken/bad.ajs')).toMatchObject({ code: 'AJS3001', severity: 'error', line: 2, column: 12 })
    const warn = report.files.find((f: { file: string }) => f.file === 'warn.ajs')
    expect(warn).toMatchObject({ ok: true, warnings: 1 })
    expect(report.diagnostics.find((d: { file: string }) => d.file === 'warn.ajs')).toMatchObject({ code: 'AJS4003', severity: 'warning' })
  })

  test('warnings alone exit 0', () => {
    const r = ajsc(['check', 'warn.ajs'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('warning AJS4003')
  })

  test('.json files are validated as ASTs', () => {
    write('bad-ast.json', '{"ajs":99,"op":"seq","steps":[]}')
    const r = ajsc(['check', 'bad-ast.json', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).diagnostics[0].code).toBe('AST_VERSION')
    expect(ajsc(['check', 'flows/add.json'], { cwd: dir }).code).toBe(0)
  })

  test('--atoms declares custom atoms', () => {
    write('custom.ajs', 'function c({ x }) { return { y: myAtom({ x }) } }\n')
    expect(ajsc(['check', 'custom.ajs'], { cwd: dir }).code).toBe(1)
    expect(ajsc(['check', 'custom.ajs', '--atoms', 'myAtom'], { cwd: dir }).code).toBe(0)
  })
})
