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

/** Twenty declarations first, so every scope the snippet declares in is past the small-scope limit. */
const MANY = Array.from({ length: 20 }, (_, i) => `let p${i} = ${i}`).join('; ')
const LARGE_SNIPPETS = [
  ...SNIPPETS.filter((s) => !/^(export|import)/.test(s)).map((s) => `${MANY}; ${s}`),
  `function g(a) { ${MANY}; let a = 1 }`,
  `function g(a) { ${MANY}; { ${MANY}; var a = 1 } }`,
  `function g() { ${MANY}; { ${MANY}; var p3 = 1 } }`,
  `try {} catch (e) { ${MANY}; var e = 1 }`,
  `try {} catch (e) { ${MANY}; let e = 1 }`,
  `{ ${MANY}; function f() {} function f() {} }`,
  `${MANY}; let p19 = 0`,
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
    for (const snippet of [...SNIPPETS, ...LARGE_SNIPPETS]) {
      test(`${sourceType}: ${snippet}`, () => {
        const options: Options = { ecmaVersion: 'latest', sourceType }
        expect(outcome(LinearScopeParser, snippet, options)).toEqual(outcome(Parser, snippet, options))
      })
    }
  }

  test('a small scope keeps plain arrays; one past the limit gets Set-backed lists', () => {
    type Scope = Record<string, unknown[]>
    const ParserCtor = LinearScopeParser as unknown as new (o: Options, input: string) => {
      enterScope(flags: number): void
      currentScope(): Scope
      declareName(name: string, bindingType: number, pos: number): void
    }
    const parser = new ParserCtor({ ecmaVersion: 'latest' }, '')
    parser.enterScope(0)
    const kinds = (scope: Scope) => [scope.var, scope.lexical, scope.functions].map((l) => l!.constructor.name)
    for (let i = 0; i < 3; i++) parser.declareName(`a${i}`, 2, 0)
    expect(kinds(parser.currentScope())).toEqual(['Array', 'Array', 'Array'])
    for (let i = 3; i < 40; i++) parser.declareName(`a${i}`, 2, 0)
    expect(kinds(parser.currentScope())).toEqual(['NameList', 'NameList', 'NameList'])
    expect(parser.currentScope().lexical).toEqual(Array.from({ length: 40 }, (_, i) => `a${i}`))
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
