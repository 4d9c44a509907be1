/**
 * Seed spellings in source (issue 11, points 2-3): `Error('msg')` as a
 * statement fails the run; chained comparisons are refused only where the
 * seed's condition grammar applies (builder conditions), never in programs.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, transpile, transpileExpression } from '../../src/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'

const vm = new AgentVM()

describe('Error("msg") as a statement', () => {
  test('lowers to the Error op at its location', () => {
    const { ast } = transpile('function f() {\n  Error("nope")\n}')
    expect(ast.steps).toEqual([{ op: 'Error', message: 'nope', loc: [2, 2] }])
  })

  test('ends the run with THROWN and the message; `try` catches it as { name, message }', async () => {
    const r = await vm.run(transpile('function f({ m }) { Error(m + "!") }').ast, { m: 'bad' })
    expect([r.error?.code, r.error?.message, r.error?.line]).toEqual(['THROWN', 'bad!', 1])
    const caught = await vm.run(transpile('function f() { try { Error() } catch (e) { return [e.name, e.message] } }').ast)
    expect(caught.result).toEqual(['Error', ''])
  })

  test('everything else stays JavaScript: a value, `new Error` statement, a shadowing binding, two arguments', async () => {
    const srcs: Array<[string, unknown]> = [
      ['function f() { const e = Error("x"); return e.message }', 'x'],
      ['function f() { new Error("x"); return 1 }', 1],
      ['function f() { TypeError("x"); return 2 }', 2],
      ['function f() { Error("x", { cause: 1 }); return 3 }', 3],
    ]
    for (const [src, expected] of srcs) expect((await vm.run(transpile(src).ast)).result).toEqual(expected)
  })
})

describe('chained comparisons', () => {
  test('programs evaluate them as JavaScript does', async () => {
    expect((await vm.run(transpile('function f() { return [1 < 2 < 3, 3 > 2 > 1, 1 === 1 === true] }').ast)).result).toEqual([true, false, true])
  })

  test('refuseChainedComparisons (builder conditions): AJS2035 with the rewrite; parentheses say it is meant', () => {
    let err: unknown
    try {
      transpileExpression('a > b >= c', { vars: ['a', 'b', 'c'], refuseChainedComparisons: true })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(TranspileError)
    expect((err as TranspileError).code).toBe('AJS2035')
    expect((err as TranspileError).hint).toBe('Write `a > b && b >= c`.')
    expect(transpileExpression('(a > b) >= c', { vars: ['a', 'b', 'c'], refuseChainedComparisons: true })).toMatchObject({ $expr: 'binary', op: '>=' })
    expect(transpileExpression('a > b && b > c', { vars: ['a', 'b', 'c'], refuseChainedComparisons: true })).toMatchObject({ $expr: 'logical' })
    expect(transpileExpression('a > b > c', { vars: ['a', 'b', 'c'] })).toMatchObject({ $expr: 'binary' })
  })
})
