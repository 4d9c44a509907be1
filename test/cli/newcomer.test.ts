/**
 * Rough edges a newcomer met following README.md command by command and
 * typing the obvious next thing: each test here failed before its fix.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'
import { everyCommand } from './help-of.ts'

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

describe('ajsc eval and ajsc repl show what the program prints, and where it failed', () => {
  test('console.log of eval and of a repl entry reaches stderr, as in ajsc run (it was dropped)', () => {
    const run = ajsc(['run', '-'], { cwd: dir, input: 'function f() { console.log("from run"); return 1 }' })
    expect(run.stderr).toContain('from run')
    const ev = ajsc(['eval', 'console.log("hi", 1 + 1); console.warn("careful")'], { cwd: dir })
    expect(ev.code).toBe(0)
    expect(ev.stderr).toContain('hi 2\n')
    expect(ev.stderr).toContain('warning: careful\n')
    expect(ev.stdout).toBe('')
    const repl = ajsc(['repl'], { cwd: dir, input: 'console.log("in repl")\nlet x = 2\nx * 3\n', env: { AJSC_HISTORY: '' } })
    expect(repl.code).toBe(0)
    expect(repl.stderr).toContain('in repl\n')
    expect(repl.stdout).toBe('6\n')
  })

  test('eval and repl errors carry a code frame of the code as typed, as run and check do', () => {
    const syntax = ajsc(['eval', 'let x = ; 1'], { cwd: dir })
    expect(syntax.code).toBe(1)
    expect(syntax.stderr).toContain('<eval>:1:9: error AJS1001')
    expect(syntax.stderr).toContain('> 1 | let x = ; 1\n    |         ^')
    const thrown = ajsc(['eval', '-p', 'let n = 5\nif (n > 2) throw new Error("too big")\nn'], { cwd: dir })
    expect(thrown.stderr).toContain('<eval>:2:12: error THROWN: too big')
    expect(thrown.stderr).toContain('> 2 | if (n > 2) throw new Error("too big")\n    |            ^')
    const json = JSON.parse(ajsc(['eval', '-p', 'nope + 1', '--json'], { cwd: dir }).stdout)
    expect(json.diagnostics[0]).toMatchObject({ code: 'AJS3001', line: 1, column: 1, frame: '> 1 | nope + 1\n    | ^' })
    const repl = ajsc(['repl'], { cwd: dir, input: 'let a = 1\na + nope\n', env: { AJSC_HISTORY: '' } })
    expect(repl.stderr).toContain('<repl>:1:5: error AJS3001')
    expect(repl.stderr).toContain('> 1 | a + nope\n    |     ^')
  })
})

describe('flag values that name nothing are refused, not ignored or crashed on', () => {
  test('atoms --only with a name no atom has is a usage error with a suggestion (it printed nothing, exit 0)', () => {
    const typo = ajsc(['atoms', '--core', '--only', 'storeGte'], { cwd: dir })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('error CLI_USAGE: --only storeGte: no such atom (did you mean storeGet?)')
    const core = ajsc(['atoms', '--only', 'storeGet'], { cwd: dir })
    expect(core.code).toBe(2)
    expect(core.stderr).toContain('hint: Add --core: ajsc atoms --core --only storeGet')
    expect(ajsc(['atoms', '--core', '--only', 'storeGet'], { cwd: dir }).stdout).toContain('declare function storeGet(')
  })

  test('inspect: a missing report or --source file is CLI_NOT_FOUND as typed, not a crash with a stack', () => {
    const report = join(dir, 'trace.json')
    writeFileSync(report, ajsc(['run', 'hello.ajs', '--trace', '--json'], { cwd: dir }).stdout)
    const missing = ajsc(['inspect', 'nope.json'], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('nope.json: error CLI_NOT_FOUND: nope.json: no such file or directory\nhint: Check the path; it is resolved from the working directory.\n')
    const source = ajsc(['inspect', 'trace.json', '--source', 'nope.ajs'], { cwd: dir })
    expect(source.code).toBe(1)
    expect(source.stderr).toBe('nope.ajs: error CLI_NOT_FOUND: nope.ajs: no such file\nhint: Check the path; it is resolved from the working directory.\n')
  })
})

describe('a typo in a file name', () => {
  test('CLI_NOT_FOUND suggests the nearest path that exists, as typed (run, check, build)', () => {
    const run = ajsc(['run', 'helo.ajs'], { cwd: dir })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('helo.ajs: error CLI_NOT_FOUND')
    expect(run.stderr).toContain('hint: Did you mean hello.ajs?')
    const fromRoot = ajsc(['check', 'exmaples/hello.ajs', '--json'])
    expect(JSON.parse(fromRoot.stdout).diagnostics[0]).toMatchObject({ code: 'CLI_NOT_FOUND', file: 'exmaples/hello.ajs', hint: expect.stringContaining('Did you mean examples/hello.ajs?') })
    const args = ajsc(['run', 'hello.ajs', '--args', '@hello.ajz'], { cwd: dir })
    expect(args.stderr).toContain('Did you mean hello.ajs?')
    // Nothing near: the plain hint.
    expect(ajsc(['build', 'zzzzzzzz.ajs'], { cwd: dir }).stderr).toContain('hint: Check the path; it is resolved from the working directory.')
  })
})

describe('one flag for a program\'s arguments: -a/--args, inline, @file.json or - (stdin)', () => {
  test('workflow run --args - reads stdin, as run and eval do (it was "not valid JSON")', () => {
    writeFileSync(join(dir, 'wf.ajs'), 'export default { doubled: args.n * 2 }\n')
    const r = ajsc(['workflow', 'run', 'wf.ajs', '--args', '-', '--runs-dir', 'runs', '--json'], { cwd: dir, input: '{"n":3}' })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).result).toEqual({ doubled: 6 })
    expect(ajsc(['workflow', 'run', '--help']).stdout).toMatch(/or -\s+for\s+stdin/)
  })

  test('flow run takes -a/--args as well as its --input; both at once is a usage error', () => {
    const flow = join(dir, 'double.json')
    writeFileSync(flow, JSON.stringify({
      name: 'double',
      global_input_schema: { fields: [{ name: 'n', type: 'integer' }] },
      steps: { type: 'h', children: ['twice'] },
      blocks: { twice: { processor_type: 'code', content: 'return {"n": n * 2}', input_schema: { fields: [{ name: 'n' }] } } },
    }))
    const input = ajsc(['flow', 'run', 'double.json', '--input', '{"n":4}'], { cwd: dir })
    expect(input.code).toBe(0)
    const args = ajsc(['flow', 'run', 'double.json', '--args', '{"n":4}'], { cwd: dir })
    expect(args).toMatchObject({ code: 0, stdout: input.stdout })
    expect(ajsc(['flow', 'run', 'double.json', '-a', '-'], { cwd: dir, input: '{"n":4}' }).stdout).toBe(input.stdout)
    const both = ajsc(['flow', 'run', 'double.json', '--args', '{}', '--input', '{}'], { cwd: dir })
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('error CLI_USAGE: --args and --input are the same flag')
  })
})

describe('hints that name the program\'s own fields and the command that fits', () => {
  test('ARGS_INVALID names the fields the program declares, not a generic "name"', () => {
    writeFileSync(join(dir, 'area.ajs'), 'function area({ width, height }) { return { area: width * height } }\n')
    const r = ajsc(['run', 'area.ajs', '--args', '{"width":2}'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error ARGS_INVALID')
    expect(r.stderr).toContain(`hint: Pass the arguments the program declares with --args '{"width": ..., "height": ...}'`)
  })

  test('run of a directory says which commands take directories (the hint spoke of file permissions)', () => {
    const r = ajsc(['run', '.', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    const d = JSON.parse(r.stdout).diagnostics[0]
    expect(d).toMatchObject({ code: 'CLI_READ', message: '. is a directory' })
    expect(d.hint).toContain('ajsc check')
    expect(d.hint).not.toContain('permissions')
  })
})

describe('a malformed --llm URL is a usage error, not an internal one', () => {
  test.each([
    [['run', 'hello.ajs', '--llm', 'notaurl']],
    [['eval', '1', '--llm', 'localhost:1234/v1']],
    [['workflow', 'run', 'hello.ajs', '--llm', 'notaurl', '--runs-dir', 'runs']],
    [['flow', 'run', 'x.json', '--llm', 'ftp://host/v1']],
    [['flowlang', 'run', 'hello.ajs', '--prompt', 'hi', '--llm', 'notaurl']],
  ])('%p', (args) => {
    const r = ajsc([...args, '--json'], { cwd: dir })
    expect(r.code).toBe(2)
    const d = JSON.parse(r.stdout).diagnostics[0]
    expect(d.code).toBe('CLI_USAGE')
    expect(d.message).toContain('--llm must be an absolute http:// or https:// URL')
    expect(d.hint).toContain('--llm http://127.0.0.1:1234/v1')
  })
})

describe('capability errors speak in flags only', () => {
  test('the library\'s "(hint: ... allowedHosts ...)" is dropped from the message when the CLI hint names the flag', () => {
    writeFileSync(join(dir, 'get.ajs'), 'function get() { return httpFetch({ url: "https://example.com/x" }) }\n')
    const r = ajsc(['run', 'get.ajs', '--allow-fetch', 'other.com', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    const d = JSON.parse(r.stdout).diagnostics[0]
    expect(d.message).toContain('FETCH_HOST_DENIED')
    expect(d.message).not.toContain('(hint:')
    expect(d.hint).toContain('--allow-fetch')
  })

  test('without a flag for it, the capability\'s own hint is the hint (it was "See the cause; the host capability threw")', () => {
    writeFileSync(join(dir, 'down.ajs'), 'function g() { return httpFetch({ url: "http://127.0.0.1:9/x" }) }\n')
    const d = JSON.parse(ajsc(['run', 'down.ajs', '--allow-fetch', '127.0.0.1', '--allow-private', '127.0.0.1', '--json'], { cwd: dir }).stdout).diagnostics[0]
    expect(d.message).toContain('FETCH_NETWORK')
    expect(d.message).not.toContain('(hint:')
    expect(d.hint).toContain('check that the server is reachable')
  })
})

describe('README: which commands take --json', () => {
  test('every command takes --json except those the README names', async () => {
    const readme = await Bun.file(join(import.meta.dir, '../../README.md')).text()
    const named = /errors included \(all take it but the servers and prompts: (.*?);/s.exec(readme)?.[1]
    expect(named).toBeDefined()
    const without = new Set([...named!.matchAll(/`([a-z -]+)`/g)].map((m) => m[1]!))
    const commands = await everyCommand()
    expect(commands.size).toBeGreaterThan(20)
    for (const [name, help] of commands) expect([name, /^\s+--json\b/m.test(help)]).toEqual([name, !without.has(name)])
  })
})

describe('files named as typed', () => {
  test('serve and worker: a missing --config is named as typed, with a suggestion', () => {
    writeFileSync(join(dir, 'serve.json'), '{}')
    for (const command of ['serve', 'worker']) {
      const r = ajsc([command, '--config', 'serv.json', '--database', 'postgres://127.0.0.1:1/x'], { cwd: dir })
      expect(r.code).toBe(1)
      expect(r.stderr).toStartWith('serv.json: error CLI_NOT_FOUND: serv.json: no such file\nhint: Did you mean serve.json?')
    }
  })
})

describe('--timeout 0', () => {
  test('is a usage error (it stopped every run that took a moment with TIMEOUT)', () => {
    for (const args of [['run', 'hello.ajs'], ['eval', '1'], ['flow', 'run', 'double.json']]) {
      const r = ajsc([...args, '--timeout', '0'], { cwd: dir })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('error CLI_USAGE: --timeout must be more than 0 ms')
    }
    expect(ajsc(['run', 'hello.ajs', '--timeout', '5000'], { cwd: dir }).code).toBe(0)
  })
})

describe('check of an AST agrees with run', () => {
  test('an AST calling an atom ajsc has not is UNKNOWN_ATOM in check too (check said "no errors", run refused it)', () => {
    writeFileSync(join(dir, 'frob.json'), '{"ajs":1,"op":"seq","steps":[{"op":"storeGte","key":"a"}]}')
    const run = ajsc(['run', 'frob.json'], { cwd: dir })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('error UNKNOWN_ATOM')
    const check = ajsc(['check', 'frob.json', '--json'], { cwd: dir })
    expect(check.code).toBe(1)
    const d = JSON.parse(check.stdout).diagnostics[0]
    expect(d).toMatchObject({ code: 'UNKNOWN_ATOM', file: 'frob.json', message: expect.stringContaining('did you mean "storeGet"') })
    expect(d.hint).toContain('--atoms')
    // Named with --atoms, the atom is the host's business, as for a source.
    expect(ajsc(['check', 'frob.json', '--atoms', 'storeGte'], { cwd: dir }).code).toBe(0)
    // A built AST of a program that calls only what ajsc has passes.
    expect(ajsc(['build', 'hello.ajs', '--outfile', 'hello.json'], { cwd: dir }).code).toBe(0)
    expect(ajsc(['check', 'hello.json'], { cwd: dir }).code).toBe(0)
  })
})

describe('the docs\' command lines use flags the commands have', () => {
  test('every flag of every `ajsc ...` line in a code block of README.md and docs/ is in that command\'s --help', async () => {
    const flagsOf = (text: string) => new Set([...text.matchAll(/(--[a-z][a-z-]*|-[a-zA-Z])\b/g)].map((m) => m[1]!).concat('--help'))
    const flags = new Map([...await everyCommand()].map(([name, help]) => [name, flagsOf(help)]))
    const root = join(import.meta.dir, '../..')
    const docs = ['README.md', ...(await Array.fromAsync(new Bun.Glob('docs/*.md').scan(root)))]
    const wrong: string[] = []
    let lines = 0
    for (const doc of docs) {
      const text = await Bun.file(join(root, doc)).text()
      for (const block of text.matchAll(/```([a-z]*)\n([\s\S]*?)```/g)) {
        if (!['', 'sh', 'bash', 'shell', 'console'].includes(block[1]!)) continue
        // One command line: continuation lines joined, the comment and quoted values left out.
        for (const line of block[2]!.replace(/\\\n\s*/g, ' ').split('\n')) {
          const m = /^\s*(?:\$ )?(?:npx )?ajsc ([a-z-]+)(?: ([a-z-]+))?(.*)$/.exec(line.replace(/\s#.*$/, '').replace(/'[^']*'|"[^"]*"/g, 'X'))
          if (!m) continue
          const key = flags.has(`${m[1]} ${m[2]}`) ? `${m[1]} ${m[2]}` : m[1]!
          const known = flags.get(key)
          if (!known) { wrong.push(`${doc}: no command \`ajsc ${key}\`: ${line.trim()}`); continue }
          lines++
          const rest = key.includes(' ') ? m[3]! : ` ${m[2] ?? ''}${m[3]}`
          for (const f of rest.matchAll(/\s(--?[a-zA-Z][a-z-]*)/g)) if (!known.has(f[1]!)) wrong.push(`${doc}: \`ajsc ${key}\` has no ${f[1]}: ${line.trim()}`)
        }
      }
    }
    expect(lines).toBeGreaterThan(40)
    expect(wrong).toEqual([])
  })
})

describe('JSON a user wrote by hand: the syntax error is located, with a code frame', () => {
  const BROKEN = '{\n  "name": "Ada",\n  "tags": ["a", "b",],\n}\n'
  test('--args @file.json and --args - (stdin)', () => {
    writeFileSync(join(dir, 'args-broken.json'), BROKEN)
    const file = ajsc(['run', 'hello.ajs', '--args', '@args-broken.json'], { cwd: dir })
    expect(file.code).toBe(1)
    expect(file.stderr).toContain('args-broken.json:3:21: error CLI_BAD_JSON: args-broken.json is not valid JSON')
    expect(file.stderr).toContain('> 3 |   "tags": ["a", "b",],\n    |                     ^')
    const stdin = ajsc(['run', 'hello.ajs', '--args', '-', '--json'], { cwd: dir, input: BROKEN })
    expect(JSON.parse(stdin.stdout).diagnostics[0]).toMatchObject({ code: 'CLI_BAD_JSON', line: 3, column: 21 })
  })

  test('the --config of serve', () => {
    writeFileSync(join(dir, 'config-broken.json'), '{\n  "tenants": [\n    { "id": "a" }\n    { "id": "b" }\n  ]\n}\n')
    const r = ajsc(['serve', '--config', 'config-broken.json', '--port', '0'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('config-broken.json:4:5: error CLI_BAD_JSON')
    expect(r.stderr).toContain('> 4 |     { "id": "b" }')
  })

  test('an AST file, in check and in run', () => {
    writeFileSync(join(dir, 'ast-broken.json'), '{\n  "ajs": 1,\n  "op": "seq"\n  "steps": []\n}\n')
    for (const command of ['check', 'run']) {
      const r = ajsc([command, 'ast-broken.json'], { cwd: dir })
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('ast-broken.json:4:3: error AST_INVALID')
      expect(r.stderr).toContain('> 4 |   "steps": []')
    }
  })
})

describe('usage errors inside a command keep exit 2 and name the command', () => {
  test('workflow ls --status bogus: CLI_USAGE exits 2 (it exited 1), hint `ajsc workflow ls --help`', () => {
    const r = ajsc(['workflow', 'ls', '--status', 'bogus', '--runs-dir', 'runs', '--json'], { cwd: dir })
    expect(r.code).toBe(2)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ command: 'workflow ls', exitCode: 2, diagnostics: [{ code: 'CLI_USAGE', hint: 'Run `ajsc workflow ls --help` for the options.' }] })
  })
})

describe('AJS3002 for a function the source declares', () => {
  test('calling the entry: no --atoms suggestion (the function is in the file, not the host\'s)', () => {
    writeFileSync(join(dir, 'rec.ajs'), 'function r({ n }) {\n  return r({ n: n + 1 })\n}\n')
    const r = ajsc(['check', 'rec.ajs'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('rec.ajs:2:10: error AJS3002')
    expect(r.stderr).toContain('`r` is the entry or declared after it')
    expect(r.stderr).not.toContain('--atoms')
    // An unknown name still gets the flag.
    writeFileSync(join(dir, 'ext.ajs'), 'function f() { return weather({ city: "Faro" }) }\n')
    expect(ajsc(['check', 'ext.ajs'], { cwd: dir }).stderr).toContain('--atoms ./atoms.mjs')
  })
})

describe('a TypeScript file given to ajsc', () => {
  test('a syntax error in a .ts file says that AJS is JavaScript, with JSDoc for types', () => {
    writeFileSync(join(dir, 'typed.ts'), 'function f({ n }: { n: number }) {\n  return n * 2\n}\n')
    const r = ajsc(['run', 'typed.ts', '--args', '{"n":2}'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('typed.ts:1:17: error AJS1001')
    expect(r.stderr).toContain('AJS is JavaScript')
    expect(ajsc(['check', 'hello.ajs'], { cwd: dir }).stderr).not.toContain('AJS is JavaScript')
  })
})

describe('ajsc eval and repl take what a user types at a prompt', () => {
  test('top-level await works (the hint said to mark a function async that the user cannot see)', () => {
    const r = ajsc(['eval', '-p', 'let [a, b] = await Promise.all([storeGet({ key: "k" }), 2]); b * 21'], { cwd: dir })
    expect(r.stderr).toBe('')
    expect(r).toMatchObject({ code: 0, stdout: '42\n' })
    const repl = ajsc(['repl'], { cwd: dir, input: 'let xs = await Promise.all([1, 2])\nxs.length\n', env: { AJSC_HISTORY: '' } })
    expect(repl.stderr).toBe('')
    expect(repl.stdout).toBe('2\n')
  })

  test('eval -p of code that returns prints the returned value (it printed null)', () => {
    expect(ajsc(['eval', '-p', 'let n = 4\nif (n > 2) return n * 10\nn'], { cwd: dir }).stdout).toBe('40\n')
    expect(ajsc(['eval', '-p', 'let n = 1\nif (n > 2) return n * 10\nn'], { cwd: dir }).stdout).toBe('1\n')
    expect(JSON.parse(ajsc(['eval', '-p', 'return { a: 1 }', '--json'], { cwd: dir }).stdout).result).toEqual({ a: 1 })
  })

  test('eval -p after a declaration prints undefined, as node -p does (it printed null); the report keeps null', () => {
    expect(ajsc(['eval', '-p', 'let a = 1'], { cwd: dir }).stdout).toBe('undefined\n')
    expect(ajsc(['eval', '-p', 'undefined'], { cwd: dir }).stdout).toBe('undefined\n')
    expect(ajsc(['eval', '-p', 'null'], { cwd: dir }).stdout).toBe('null\n')
    expect(JSON.parse(ajsc(['eval', '-p', 'let a = 1', '--json'], { cwd: dir }).stdout).result).toBeNull()
  })
})

describe('a typo in the --atoms module path', () => {
  test('CLI_ATOMS_NOT_FOUND names the nearest module file, as typed', () => {
    writeFileSync(join(dir, 'atoms.mjs'), 'export const x = 1\n')
    const r = ajsc(['check', 'hello.ajs', '--atoms', './atom.mjs'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CLI_ATOMS_NOT_FOUND')
    expect(r.stderr).toContain('hint: Did you mean --atoms ./atoms.mjs?')
  })
})

describe('a proc_ token from another --procedures file', () => {
  test('PROCEDURE_NOT_FOUND names --procedures in its hint', () => {
    writeFileSync(join(dir, 'store.ajs'), 'function s() { return storeProcedure({ ast: { ajs: 1, op: "seq", steps: [{ op: "return", value: { $expr: "literal", value: 7 } }] } }) }\n')
    const token = JSON.parse(ajsc(['run', 'store.ajs', '--procedures', 'procs.json'], { cwd: dir }).stdout) as string
    expect(ajsc(['run', token, '--procedures', 'procs.json'], { cwd: dir }).stdout).toBe('7\n')
    const other = ajsc(['run', token, '--procedures', 'other.json'], { cwd: dir })
    expect(other.code).toBe(1)
    expect(other.stderr).toContain('error PROCEDURE_NOT_FOUND')
    expect(other.stderr).toContain('hint: A proc_ token lives in the --procedures file of the run that stored it')
  })
})

describe('docs/serve.md\'s `ajsc inspect trace.json .ajs/runs` where no workflow has run yet', () => {
  test('the missing .ajs/runs is explained (the default runs directory), not taken for a typo', () => {
    const run = ajsc(['run', 'hello.ajs', '--trace', '--json'], { cwd: dir })
    expect(run.code).toBe(0)
    writeFileSync(join(dir, 'trace.json'), run.stdout)
    const r = ajsc(['inspect', 'trace.json', '.ajs/runs', '--source', 'hello.ajs', '--json'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).diagnostics[0]).toMatchObject({
      code: 'CLI_NOT_FOUND', message: '.ajs/runs: no such file or directory',
      hint: '`ajsc workflow run <file>` keeps its runs in .ajs/runs, and none has run in this directory yet: run a workflow first, or leave .ajs/runs out.',
    })
    // Another missing path keeps the usual hint.
    expect(JSON.parse(ajsc(['inspect', 'no-such-runs', '--json'], { cwd: dir }).stdout).diagnostics[0].hint).toBe('Check the path; it is resolved from the working directory.')
  })
})
