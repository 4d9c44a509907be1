/**
 * A newcomer's `--args /tmp/args.json` (a path without the `@`) said only
 * "--args is not valid JSON: Unexpected token '/'". Now the error names the
 * @ form when the file exists, or says it does not exist either, in every
 * command that reads a JSON object flag (run, eval, workflow run, flow run's
 * --input and --args); other malformed JSON keeps the parser's message.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

setDefaultTimeout(30_000)

let dir: string
let args: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-args-path-'))
  writeFileSync(join(dir, 'greet.ajs'), 'function greet({ name = "World" }) { return { greeting: `Hello, ${name}!` } }\n')
  writeFileSync(join(dir, 'wf.ajs'), 'export default function greet({ name = "World" }) {\n  return `Hello, ${name}!`\n}\n')
  args = join(dir, 'args.json')
  writeFileSync(args, '{"name":"Ada"}')
  mkdirSync(join(dir, 'home'))
  writeFileSync(join(dir, 'home', 'mine.json'), '{"name":"Home"}')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const usage = (r: { code: number; stderr: string }, message: string, hint: string) => {
  expect(r.code).toBe(2)
  expect(r.stderr).toContain('error CLI_USAGE: ')
  expect(r.stderr).toContain(`${message}\n`)
  expect(r.stderr).toContain(hint)
}

describe('--args given a path without @', () => {
  test('an existing file: did you mean --args @path (absolute, relative, ./)', () => {
    usage(ajsc(['run', 'greet.ajs', '--args', args], { cwd: dir }), `--args takes JSON, @file.json or -: did you mean --args @${args}?`, `A file is read when its path starts with @: --args @${args}.`)
    usage(ajsc(['run', 'greet.ajs', '--args', 'args.json'], { cwd: dir }), '--args takes JSON, @file.json or -: did you mean --args @args.json?', 'A file is read when its path starts with @')
    usage(ajsc(['run', 'greet.ajs', '--args', './args.json'], { cwd: dir }), '--args takes JSON, @file.json or -: did you mean --args @./args.json?', 'A file is read when its path starts with @')
    // The suggestion works: the same path with @ runs.
    const ok = ajsc(['run', 'greet.ajs', '--args', '@./args.json'], { cwd: dir })
    expect([ok.code, JSON.parse(ok.stdout)]).toEqual([0, { greeting: 'Hello, Ada!' }])
  })

  test('a path that names no file: says so, and no @ suggestion of a missing file', () => {
    for (const value of ['./nope.json', '../nope.json', '/nonexistent/args.json', 'nope.json']) {
      const r = ajsc(['run', 'greet.ajs', '--args', value], { cwd: dir })
      usage(r, `--args takes JSON, @file.json or -: "${value}" is not JSON, and no such file exists either`, `Pass the object inline (--args '{"key": "value"}'), or write the file and pass --args @${value}.`)
      expect(r.stderr).not.toContain('did you mean')
    }
  })

  test('~ (unexpanded, as in --args=~/x.json): the suggestion holds the expanded path', () => {
    const env = { HOME: join(dir, 'home') }
    usage(ajsc(['run', 'greet.ajs', '--args=~/mine.json'], { cwd: dir, env }), `did you mean --args @${join(dir, 'home', 'mine.json')}?`, 'A file is read when its path starts with @')
    usage(ajsc(['run', 'greet.ajs', '--args', '~/gone.json'], { cwd: dir, env }), '"~/gone.json" is not JSON, and no such file exists either', `write the file and pass --args @${join(dir, 'home', 'gone.json')}.`)
  })

  test('a directory', () => {
    usage(ajsc(['run', 'greet.ajs', '--args', 'home'], { cwd: dir }), '--args takes JSON, @file.json or -: "home" is not JSON, and it is a directory', 'or name a JSON file in it: --args @home/args.json.')
  })

  test('eval, workflow run and flow run (--input and --args) share the message', () => {
    const hint = 'A file is read when its path starts with @'
    usage(ajsc(['eval', '-p', 'args.name', '--args', 'args.json'], { cwd: dir }), '--args takes JSON, @file.json or -: did you mean --args @args.json?', hint)
    usage(ajsc(['workflow', 'run', 'wf.ajs', '--args', 'args.json', '--runs-dir', 'runs'], { cwd: dir }), '--args takes JSON, @file.json or -: did you mean --args @args.json?', hint)
    usage(ajsc(['flow', 'run', 'x.flow.json', '--input', 'args.json'], { cwd: dir }), '--input takes JSON, @file.json or -: did you mean --input @args.json?', hint)
    usage(ajsc(['flow', 'run', 'x.flow.json', '--args', 'args.json'], { cwd: dir }), '--args takes JSON, @file.json or -: did you mean --args @args.json?', hint)
  })

  test('--json: the same diagnostic', () => {
    const r = ajsc(['run', 'greet.ajs', '--args', 'args.json', '--json'], { cwd: dir })
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout).diagnostics[0]).toMatchObject({ code: 'CLI_USAGE', message: '--args takes JSON, @file.json or -: did you mean --args @args.json?' })
  })

  test('malformed JSON that is no path keeps the parser message', () => {
    for (const value of ['{bad', 'hello', '{"name":}']) {
      const r = ajsc(['run', 'greet.ajs', '--args', value], { cwd: dir })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('error CLI_USAGE: --args is not valid JSON: ')
      expect(r.stderr).not.toContain('takes JSON')
    }
  })
})
