/**
 * `ajsc run --args` with a key the entry does not declare (a misspelling
 * such as `nme` for `name`) ran with the default and said nothing: now a
 * warning CLI_ARGS_UNKNOWN_KEY on stderr and in --json's diagnostics, with
 * did-you-mean, leaving the result and the exit status alone; none for a
 * program that takes any key. `ajsc workflow run --args` the same, for a
 * module whose `export default function ({ ... })` is all that reads args.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'
import { declaredArgKeys, declaredWorkflowArgs } from '../../src/cli/args-keys.ts'
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

const WORKFLOW_SOURCES: Record<string, string> = {
  greet: 'export default function greet({ name = "World" }) { return name }',
  anonymous: 'export default function ({ name, count }) { return name }',
  global: 'export default `Hello, ${args.name}!`',
  // args read in a helper (the workflowArgs() atom there) or at the top level besides the call: any key may be read.
  helper: 'export default function ({ name }) { return name + suffix() }\nfunction suffix() { return args.suffix }',
  topLevel: 'log(args.debug)\nexport default function ({ name }) { return name }',
  rest: 'export default function ({ name, ...more }) { return more }',
  noParams: 'export default function () { return 1 }',
}

describe('workflow run: an --args key the default function does not declare', () => {
  const wf = (file: string, args: string, json = false) => ajsc(['workflow', 'run', file, '--args', args, '--runs-dir', 'runs', ...(json ? ['--json'] : [])], { cwd: dir })

  test('the same warning as run, before the run; result and exit status unchanged', () => {
    const r = wf('wf-greet.ajs', '{"nme":"x"}')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toBe('Hello, World!')
    expect(r.stderr).toContain('warning CLI_ARGS_UNKNOWN_KEY: --args key "nme" is not a parameter of `greet`, which ignores it (did you mean `name`?)')
    expect(r.stderr).toContain('hint: `greet` declares `name`.')
  })

  test('--json: among the diagnostics; none when a helper reads args too', () => {
    const report = JSON.parse(wf('wf-greet.ajs', '{"name":"Ada","zzz":1}', true).stdout)
    expect(report).toMatchObject({ ok: true, exitCode: 0, result: 'Hello, Ada!' })
    expect(report.diagnostics.map((d: { code: string; message: string }) => [d.code, d.message])).toEqual([
      ['CLI_ARGS_UNKNOWN_KEY', '--args key "zzz" is not a parameter of `greet`, which ignores it'],
    ])
    const helper = JSON.parse(wf('wf-helper.ajs', '{"name":"a","suffix":"b"}', true).stdout)
    expect([helper.result, helper.diagnostics]).toEqual(['ab', []])
  })

  test('the declared keys: the default function\'s pattern, unless args is read elsewhere', () => {
    const keys = (name: string) => declaredWorkflowArgs(compileWorkflow(WORKFLOW_SOURCES[name]!).ast)
    expect(keys('greet')).toEqual({ entry: '`greet`', keys: ['name'] })
    expect(keys('anonymous')).toEqual({ entry: 'the workflow\'s default function', keys: ['name', 'count'] })
    for (const open of ['global', 'helper', 'topLevel', 'rest', 'noParams']) expect([open, keys(open)]).toEqual([open, undefined])
  })
})
