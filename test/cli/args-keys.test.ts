/**
 * `ajsc run --args` with a key the entry does not declare (a misspelling
 * such as `nme` for `name`) ran with the default and said nothing: now a
 * warning CLI_ARGS_UNKNOWN_KEY on stderr and in --json's diagnostics, with
 * did-you-mean, leaving the result and the exit status alone; none for a
 * program that takes any key. `ajsc eval` and `ajsc workflow run` the same,
 * for a key their code (which takes args whole) does not read.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'
import { argKeysRead, declaredArgKeys } from '../../src/cli/args-keys.ts'
import { compileSource } from '../../src/cli/compile.ts'
import { compileWorkflow } from '../../src/workflows/frontend/module.ts'
import { Agent, s, e } from '../../src/index.ts'

setDefaultTimeout(30_000)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-args-keys-'))
  writeFileSync(join(dir, 'greet.ajs'), 'function greet({ name = "World" }) { return { greeting: `Hello, ${name}!` } }\n')
  writeFileSync(join(dir, 'rest.ajs'), 'function pick({ name, ...rest }) { return { name, others: rest } }\n')
  writeFileSync(join(dir, 'wf-greet.ajs'), 'export default function greet({ name = "World" }) {\n  return `Hello, ${name}!`\n}\n')
  writeFileSync(join(dir, 'wf-helper.ajs'), 'export default function ({ name }) {\n  return name + suffix()\n}\nfunction suffix() { return args.suffix ?? "" }\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('an --args key the entry does not declare', () => {
  test('a warning with the key and did-you-mean on stderr; the result and exit status are the run\'s', () => {
    const r = ajsc(['run', 'greet.ajs', '--args', '{"nme":"x"}'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ greeting: 'Hello, World!' })
    expect(r.stderr).toContain('warning CLI_ARGS_UNKNOWN_KEY: --args key "nme" is not a parameter of `greet`, which ignores it (did you mean `name`?)')
    expect(r.stderr).toContain('hint: `greet` declares `name`.')
  })

  test('--json: the warning is among the diagnostics, ok and exitCode unchanged', () => {
    const r = ajsc(['run', 'greet.ajs', '--args', '{"name":"Ada","nme":"x","zzz":1}', '--json'], { cwd: dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ ok: true, exitCode: 0, result: { greeting: 'Hello, Ada!' } })
    expect(report.diagnostics.map((d: { severity: string; code: string; message: string }) => [d.severity, d.code, d.message])).toEqual([
      ['warning', 'CLI_ARGS_UNKNOWN_KEY', '--args key "nme" is not a parameter of `greet`, which ignores it (did you mean `name`?)'],
      ['warning', 'CLI_ARGS_UNKNOWN_KEY', '--args key "zzz" is not a parameter of `greet`, which ignores it'],
    ])
    expect(r.stderr).toBe('')
  })

  test('declared keys only, and a program that takes any key: no warning', () => {
    expect(ajsc(['run', 'greet.ajs', '--args', '{"name":"Ada"}'], { cwd: dir }).stderr).toBe('')
    const rest = ajsc(['run', 'rest.ajs', '--args', '{"name":"Ada","age":3}'], { cwd: dir })
    expect([rest.code, rest.stderr]).toEqual([0, ''])
    expect(JSON.parse(rest.stdout)).toEqual({ name: 'Ada', others: { age: 3 } })
  })

  test('the declared keys: the inputSchema, unless it allows additional properties', () => {
    const ast = Agent.take(s.object({ a: s.number })).return(e.parse('{ a }')).toJSON()
    expect(declaredArgKeys(ast)).toEqual(['a'])
    expect(declaredArgKeys({ ...ast, inputSchema: { type: 'object', properties: { a: {} }, additionalProperties: true } })).toBeUndefined()
    expect(declaredArgKeys({ ...ast, inputSchema: { type: 'object', properties: { a: {} }, additionalProperties: { type: 'string' } } })).toBeUndefined()
    expect(declaredArgKeys({ ...ast, inputSchema: undefined, params: undefined })).toBeUndefined()
    // Without a schema, the parameter pattern; a rest element takes any key.
    const pattern = { $pattern: 'object', properties: [{ key: 'a', value: 'a' }] }
    type Params = NonNullable<typeof ast.params>
    expect(declaredArgKeys({ ...ast, inputSchema: undefined, params: pattern as unknown as Params })).toEqual(['a'])
    expect(declaredArgKeys({ ...ast, params: { ...pattern, rest: 'more' } as unknown as Params })).toBeUndefined()
  })
})

/** Compiled as `ajsc eval` compiles its code (the entry takes `args` whole), and as a workflow module. */
const evalAst = (code: string) => compileSource(`async function evaluate(args) { ${code}\n}\n`, '<eval>', [], 50).ast
const workflowAst = (source: string) => compileWorkflow(source).ast

describe('eval and workflow run: an --args key the code does not read', () => {
  const wf = (file: string, args: string, json = false) => ajsc(['workflow', 'run', file, '--args', args, '--runs-dir', 'runs', ...(json ? ['--json'] : [])], { cwd: dir })

  test('workflow run: the warning with did-you-mean, before the run; result and exit status unchanged', () => {
    const r = wf('wf-greet.ajs', '{"nme":"x"}')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toBe('Hello, World!')
    expect(r.stderr).toContain('warning CLI_ARGS_UNKNOWN_KEY: --args key "nme" is not read by the workflow, which ignores it (did you mean `name`?)')
    expect(r.stderr).toContain('hint: The workflow reads `name`.')
  })

  test('workflow run --json: among the diagnostics; the keys a helper reads count', () => {
    const report = JSON.parse(wf('wf-greet.ajs', '{"name":"Ada","zzz":1}', true).stdout)
    expect(report).toMatchObject({ ok: true, exitCode: 0, result: 'Hello, Ada!' })
    expect(report.diagnostics.map((d: { code: string; message: string }) => [d.code, d.message])).toEqual([
      ['CLI_ARGS_UNKNOWN_KEY', '--args key "zzz" is not read by the workflow, which ignores it'],
    ])
    const helper = JSON.parse(wf('wf-helper.ajs', '{"name":"a","suffix":"b"}', true).stdout)
    expect([helper.result, helper.diagnostics]).toEqual(['ab', []])
  })

  test('eval: the same warning (stderr, and --json), the value printed as before; none when the code takes args whole', () => {
    const r = ajsc(['eval', '-p', '`Hi ${args.name ?? "you"}`', '--args', '{"nmae":"Ada"}'], { cwd: dir })
    expect([r.code, r.stdout]).toEqual([0, '"Hi you"\n'])
    expect(r.stderr).toContain('warning CLI_ARGS_UNKNOWN_KEY: --args key "nmae" is not read by the code, which ignores it (did you mean `name`?)')
    const json = JSON.parse(ajsc(['eval', '-p', '1 + 1', '--args', '{"x":1}', '--json'], { cwd: dir }).stdout)
    expect([json.result, json.diagnostics]).toEqual([2, [{ severity: 'warning', code: 'CLI_ARGS_UNKNOWN_KEY', message: '--args key "x" is not read by the code, which ignores it', hint: 'The code reads no key of args: leave --args out, or read the key (`args.x`).' }]])
    const whole = ajsc(['eval', '-p', 'Object.keys(args)', '--args', '{"x":1}'], { cwd: dir })
    expect([JSON.parse(whole.stdout), whole.stderr]).toEqual([['x'], ''])
  })

  test('the keys read: static reads, destructuring, a function\'s pattern; undefined once args is taken whole', () => {
    expect(argKeysRead(evalAst('const { a, b: c } = args; const d = args.e + args["f"] + args?.g; return args.h.i'))).toEqual(['a', 'b', 'e', 'f', 'g', 'h'])
    expect(argKeysRead(evalAst('function f({ x, y = 1 }) { return x + y }\nreturn f(args)'))).toEqual(['x', 'y'])
    expect(argKeysRead(evalAst('return 1'))).toEqual([])
    for (const code of ['return args', 'const k = "a"; return args[k]', 'const { a, ...more } = args; return more', 'return Object.keys(args)', 'function f(o) { return o.a }\nreturn f(args)', 'return { ...args }', 'return "a" in args']) {
      expect([code, argKeysRead(evalAst(code))]).toEqual([code, undefined])
    }
    // Workflow modules: the default function's pattern (compiled as `return main(args)`), the top level, and helpers (the workflowArgs() atom there).
    expect(argKeysRead(workflowAst('export default function greet({ name = "World" }) { return name }'))).toEqual(['name'])
    expect(argKeysRead(workflowAst('log(args.debug)\nexport default function ({ name }) { return name + suffix() }\nfunction suffix() { return args.suffix }'))).toEqual(['debug', 'name', 'suffix'])
    expect(argKeysRead(workflowAst('export default `Hello, ${args.name}!`'))).toEqual(['name'])
    expect(argKeysRead(workflowAst('export default function ({ name, ...more }) { return more }'))).toBeUndefined()
    expect(argKeysRead(workflowAst('export default await workflow("child", args)'))).toBeUndefined()
  })
})
