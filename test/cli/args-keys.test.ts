/**
 * `ajsc run --args` with a key the entry does not declare (a misspelling
 * such as `nme` for `name`) ran with the default and said nothing: now a
 * warning CLI_ARGS_UNKNOWN_KEY on stderr and in --json's diagnostics, with
 * did-you-mean, leaving the result and the exit status alone; none for a
 * program that takes any key.
 */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'
import { declaredArgKeys } from '../../src/cli/args-keys.ts'
import { Agent, s, e } from '../../src/index.ts'

setDefaultTimeout(30_000)

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ajsc-args-keys-'))
  writeFileSync(join(dir, 'greet.ajs'), 'function greet({ name = "World" }) { return { greeting: `Hello, ${name}!` } }\n')
  writeFileSync(join(dir, 'rest.ajs'), 'function pick({ name, ...rest }) { return { name, others: rest } }\n')
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
