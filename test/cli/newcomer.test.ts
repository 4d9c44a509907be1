/**
 * Rough edges a newcomer met following README.md command by command and
 * typing the obvious next thing: each test here failed before its fix.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

// Each test spawns the real binary; a loaded machine needs more than bun's 5 s.
setDefaultTimeout(30_000)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-newcomer-'))
  writeFileSync(join(dir, 'hello.ajs'), 'function hello({ name = "World" }) { return { greeting: `Hello, ${name}!` } }\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('usage errors read like every other error, with or without --json', () => {
  test.each([
    [['run', 'hello.ajs', '--fuell', '5'], "unknown option '--fuell' (did you mean --fuel?)", 'ajsc run --help'],
    [['run'], "missing required argument 'target'", 'ajsc run --help'],
    [['frobnicate'], "unknown command 'frobnicate'", 'ajsc --help'],
    [['run', 'hello.ajs', 'extra'], "too many arguments for 'run'", 'ajsc run --help'],
    [['check', 'hello.ajs', '--jsn'], "unknown option '--jsn' (did you mean --json?)", 'ajsc check --help'],
    [['flow', 'run', 'x.json', '--frob'], "unknown option '--frob'", 'ajsc flow run --help'],
  ])('%p', (args, message, help) => {
    const r = ajsc(args, { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`error CLI_USAGE: ${message}`)
    expect(r.stderr).toContain(`hint: Run \`${help}\``)
    const j = ajsc([...args, '--json'], { cwd: dir })
    expect(j.code).toBe(2)
    const d = JSON.parse(j.stdout).diagnostics[0]
    expect(d).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining(message) })
    expect(d.hint).toContain(help)
  })

  test('a malformed flag value names the command in its hint, not `<command>`', () => {
    for (const [args, help] of [[['run', 'hello.ajs', '--fuel', 'lots'], 'ajsc run --help'], [['atoms', '--format', 'yaml'], 'ajsc atoms --help'], [['eval', '1', '--args', '[1]'], 'ajsc eval --help']] as const) {
      const r = ajsc([...args], { cwd: dir })
      expect(r.code).toBe(2)
      expect(r.stderr).not.toContain('<command>')
      expect(r.stderr).toContain(help)
    }
  })
})
