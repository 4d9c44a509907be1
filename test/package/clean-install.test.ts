/**
 * `npm install` in a checkout leaves the working tree clean: the lockfile
 * is what npm would write (no rewrite), no install script runs (consumers
 * get no warning about `prepare`), and the first `npx ajsc` in a checkout
 * without dist/ builds it itself.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
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
})
