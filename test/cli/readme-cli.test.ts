/**
 * The README's claims about the CLI and the examples, executed: every line
 * of the CLI quick start (those needing a service get their flags checked
 * against --help), the hello output and Node version it states, and every
 * example run with the command examples/README.md gives.
 */
import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ajsc, ROOT } from './run-cli.ts'

// Each test spawns the real binary, several times; a loaded machine needs more than bun's 5 s.
setDefaultTimeout(30_000)

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const section = readme.slice(readme.indexOf('## Quick start: CLI'))
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!
const lines = block.split('\n').filter((l) => l.includes('npx ajsc'))

/** Run a README line with `npx ajsc` pointing at this checkout's CLI. */
const sh = (line: string) => {
  const command = line.replace(/\s+# .*$/, '').replaceAll('npx ajsc', `"${process.execPath}" src/cli/main.ts`)
  const r = spawnSync('sh', ['-c', command], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('README: CLI quick start', () => {
  test('has the commands', () => {
    expect(lines.length).toBeGreaterThanOrEqual(10)
  })

  for (const line of lines) {
    test(line.replace(/\s+# .*$/, ''), () => {
      if (line.includes('# needs a service')) {
        const [, command] = /npx ajsc (\w+)/.exec(line)!
        const help = ajsc([command!, '--help']).stdout
        for (const flag of line.match(/--[a-z-]+/g)!) expect(help).toContain(flag)
        return
      }
      const r = sh(line)
      expect(r.stderr).not.toMatch(/error [A-Z]/)
      expect(r.code).toBe(0)
      if (line.includes('--json')) expect(JSON.parse(r.stdout).ok).toBe(true)
    })
  }

  test('the hello command prints what the README says; the Node version matches engines', () => {
    const r = ajsc(['run', 'examples/hello.ajs', '--args', '{"name":"World"}'])
    expect(readme).toContain('`{ "greeting": "Hello, World!", "length": 13 }`, indented')
    expect(r.stdout).toBe(`${JSON.stringify({ greeting: 'Hello, World!', length: 13 }, null, 2)}\n`)
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string
    expect(readme).toContain(`Node ${engines.replace('>=', '')}+`)
  })

  test('every command and flag the README names exists in --help', () => {
    const top = ajsc(['--help']).stdout
    for (const command of ['run', 'build', 'check', 'eval', 'repl', 'init']) expect(top).toContain(command)
    for (const [, command, rest] of block.matchAll(/npx ajsc (\w+)([^\n#]*)/g)) {
      const help = ajsc([command!, '--help']).stdout
      for (const flag of rest!.match(/--[a-z-]+/g) ?? []) expect(help).toContain(flag)
    }
  }, 60_000) // one process per command: seconds on a loaded machine
})

describe('examples: run as examples/README.md says (npx bun examples/<name>/main.ts)', () => {
  const examplesReadme = readFileSync(join(ROOT, 'examples/README.md'), 'utf8')
  test('the README gives that command', () => {
    expect(examplesReadme).toContain('npx bun examples/<name>/main.ts')
  })
  const names = readdirSync(join(ROOT, 'examples'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)
  for (const name of names) {
    test(name, () => {
      // process.execPath is the Bun that `npx bun` resolves to in this checkout.
      const r = spawnSync(process.execPath, [`examples/${name}/main.ts`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      expect(r.stdout.trim().length).toBeGreaterThan(0)
    }, 60_000)
  }
})
