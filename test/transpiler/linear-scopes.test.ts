/**
 * The LinearScopeParser must accept and refuse exactly what acorn does:
 * every case is parsed by both, and the outcome (tree or error message and
 * position) must be identical.
 */
import { describe, expect, test } from 'bun:test'
import { Parser, type Options } from 'acorn'
import { LinearScopeParser } from '../../src/transpiler/linear-scopes.ts'

const SNIPPETS = [
  'let a = 1; let a = 2',
  'let a = 1; { let a = 2 }',
  'const a = 1; var a = 2',
  'var a = 1; let a = 2',
  'var a = 1; var a = 2',
  'function f() {} let f = 1',
  'let f = 1; function f() {}',
  'function f() {} function f() {}',
  '{ function f() {} function f() {} }',
  '{ function f() {} var f }',
  'try {} catch (e) { var e = 1 }',
  'try {} catch (e) { let e = 1 }',
  'try {} catch ([e]) { var e = 1 }',
  'function g(a) { let a = 1 }',
  'function g(a) { var a = 1 }',
  'for (let i = 0; i < 3; i++) { let i = 1 }',
  'for (let i = 0; i < 3; i++) { var i = 1 }',
  'switch (1) { case 1: let x = 1; break; case 2: let x = 2 }',
  'label: for (;;) { let x; { var x } }',
  'let { a, b: [c, ...d] } = {}; let c = 1',
  'class A {} let A = 1',
  'export let a = 1; export { a }',
  'export { missing }',
  'import { a } from "m"; let a = 1',
]

function outcome(ParserClass: typeof Parser, source: string, options: Options): unknown {
  try {
    return JSON.stringify(ParserClass.parse(source, options))
  } catch (e) {
    const err = e as SyntaxError & { pos?: number }
    return `${err.message} @${err.pos}`
  }
}

describe('LinearScopeParser', () => {
  for (const sourceType of ['script', 'module'] as const) {
    for (const snippet of SNIPPETS) {
      test(`${sourceType}: ${snippet}`, () => {
        const options: Options = { ecmaVersion: 'latest', sourceType }
        expect(outcome(LinearScopeParser, snippet, options)).toEqual(outcome(Parser, snippet, options))
      })
    }
  }

  test('its scopes keep names in Set-backed lists', () => {
    const ParserCtor = LinearScopeParser as unknown as new (o: Options, input: string) => { enterScope(flags: number): void; currentScope(): Record<string, unknown[]> }
    const parser = new ParserCtor({ ecmaVersion: 'latest' }, '')
    parser.enterScope(0)
    const scope = parser.currentScope()
    for (const list of [scope.var, scope.lexical, scope.functions]) {
      expect(Array.isArray(list)).toBe(true)
      expect(list!.constructor.name).toBe('NameList')
    }
  })

  test('a function with thousands of declarations parses, and a late duplicate is still caught', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `let v${i} = ${i}`)
    const ok = `function f() {\n${names.join('\n')}\n}`
    expect(outcome(LinearScopeParser, ok, { ecmaVersion: 'latest', sourceType: 'module' })).toEqual(outcome(Parser, ok, { ecmaVersion: 'latest', sourceType: 'module' }))
    const dup = `function f() {\n${names.join('\n')}\nlet v17 = 0\n}`
    const r = outcome(LinearScopeParser, dup, { ecmaVersion: 'latest', sourceType: 'module' })
    expect(r).toMatch(/^Identifier 'v17' has already been declared/)
    expect(r).toEqual(outcome(Parser, dup, { ecmaVersion: 'latest', sourceType: 'module' }))
  })
})
