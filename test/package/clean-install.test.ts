/**
 * `npm install` in a checkout leaves the working tree clean: the lockfile
 * is what npm would write (no rewrite), no install script runs (consumers
 * get no warning about `prepare`), and the first `npx ajsc` in a checkout
 * without dist/ builds it itself; a later one rebuilds it when a source is
 * newer, once for several started together.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './built.ts'
import { sh } from './packed.ts'

const dir = mkdtempSync(join(tmpdir(), 'ajs-clean-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a checkout after npm install', () => {
  test('package-lock.json is stable: npm would write it unchanged', () => {
    const copy = join(dir, 'lock')
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'))
    cpSync(join(ROOT, 'package-lock.json'), join(copy, 'package-lock.json'))
    const r = sh('npm', ['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], copy)
    expect(r.code).toBe(0)
    expect(readFileSync(join(copy, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'))
  }, 120_000)

  test('no install scripts: nothing runs (or warns) when the package is installed', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall']) expect(scripts[hook]).toBeUndefined()
  })

  test('the first ajsc in a checkout without dist/ builds it', () => {
    const copy = join(dir, 'checkout')
    for (const part of ['bin', 'scripts', 'src', 'schema', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
    const r = sh('node', [join(copy, 'bin/ajsc.js'), 'eval', '-p', '6 * 7'], copy)
    expect(r.stderr).toContain('building dist/')
    expect(r.stdout.trim()).toBe('42')
    expect(existsSync(join(copy, 'dist/cli.js'))).toBe(true)
    expect(sh('node', [join(copy, 'bin/ajsc.js'), '--version'], copy).stderr).toBe('')
  }, 120_000)

  test('a source newer than dist/ (after git pull, or an edit) makes the next ajsc rebuild, once for several at a time', async () => {
    const copy = join(dir, 'checkout')
    expect(existsSync(join(copy, 'dist/cli.js'))).toBe(true) // the test above built it
    const program = join(copy, 'src/cli/program.ts')
    const text = readFileSync(program, 'utf8')
    expect(text).toContain('Compile, check and run AJS agent programs')
    writeFileSync(program, text.replace('Compile, check and run AJS agent programs', 'Freshly built: compile, check and run AJS agent programs'))
    const later = new Date(statSync(join(copy, 'dist/cli.js')).mtimeMs + 5_000)
    utimesSync(program, later, later)
    // Three at once: one builds, the others wait for its lock and run the fresh build.
    const runs = await Promise.all([1, 2, 3].map((i) => new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const c = spawn('node', [join(copy, 'bin/ajsc.js'), i === 1 ? '--help' : 'eval', ...(i === 1 ? [] : ['-p', `${i} * 7`])], { cwd: copy })
      let out = ''
      let err = ''
      c.stdout.on('data', (d) => { out += d })
      c.stderr.on('data', (d) => { err += d })
      c.on('close', (code) => done({ code, out, err }))
    })))
    for (const r of runs) expect(r.code).toBe(0)
    expect(runs[0]!.out).toContain('Freshly built: compile, check and run AJS agent programs')
    expect(runs.slice(1).map((r) => r.out.trim())).toEqual(['14', '21'])
    const builds = runs.filter((r) => r.err.includes('building dist/ (src/cli/program.ts changed since dist/ was built)'))
    expect(builds.length).toBe(1)
    expect(existsSync(join(copy, '.ajsc-building'))).toBe(false)
    // Fresh now: the next run builds nothing.
    expect(sh('node', [join(copy, 'bin/ajsc.js'), 'eval', '-p', '1 + 1'], copy).stderr).toBe('')
  }, 120_000)
})
