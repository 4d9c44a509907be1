/** The one node kit (src/ast/build.ts) and the one walker (src/ast/walk.ts), both driven by the table. */
import { describe, expect, test } from 'bun:test'
import * as b from '../../src/ast/build.ts'
import { exprChildren, exprsOf, stepChildren, walk } from '../../src/ast/walk.ts'
import { CORE_OPS, EXPR_KINDS, type ExprSpec } from '../../src/ast/nodes.ts'
import { validateAst } from '../../src/ast/validate.ts'
import type { Expr, Step } from '../../src/ast/types.ts'
import { transpile } from '../../src/transpiler/index.ts'

describe('the node kit', () => {
  test('every maker gives a node validateAst accepts', () => {
    const x = b.id('x')
    const exprs: Expr[] = [
      b.lit({ a: [1] }), x, b.member(x, 'y'), b.member(x, 0), b.member(x, b.id('k'), true),
      b.binary('+', x, b.lit(1)), b.and(x, x), b.or(x, x), b.not(x), b.unary('-', x), b.cond(x, x, x),
      b.array([x, b.spread(x)]), b.object({ a: x }), b.object([{ key: 'a', value: x }, b.spread(x)]),
      b.template(['a', 'b'], [x]), b.call('f', [x, b.spread(x)]), b.callAtom('httpFetch', { url: b.lit('u') }),
      b.methodCall(x, 'map', [b.lambda(['v'], b.id('v'))]), b.methodCall(x, 'map', [b.lambda(['v'], [b.ret(b.id('v'))])], true),
      b.assign('x', b.lit(1)), b.assign(b.member(x, 'y'), b.lit(1), '+='), b.node('update', { op: '++', prefix: true, argument: x }),
      b.node('sequence', { expressions: [x, x] }), b.node('regex', { pattern: 'a+', flags: 'g' }),
    ]
    const steps: Step[] = [
      b.varsLet({ x: b.lit(0) }), b.varSet('x', b.lit(1), [1, 0]), b.exprStep(x), b.if_(x, [b.ret()], [b.ret(x)]),
      b.step('while', { condition: x, body: [b.step('break', {})] }), b.atomStep('myAtom', { a: x }, 'r'),
      ...exprs.map((e) => b.exprStep(e)),
    ]
    expect(validateAst(b.program(steps))).toEqual([])
    expect(b.varSet('x', x, [3, 4]).loc).toEqual([3, 4])
    expect(b.call('f').args).toEqual([])
  })
})

describe('the walker', () => {
  test('child fields come from the table', () => {
    for (const [kind, spec] of Object.entries(EXPR_KINDS as Record<string, ExprSpec>)) {
      for (const k of exprChildren(kind)) expect(Object.keys(spec.fields)).toContain(k)
    }
    expect(exprChildren('binary')).toEqual(['left', 'right'])
    expect(exprChildren('literal')).toEqual([])
    expect(stepChildren({ op: 'if' })).toEqual(['condition', 'then', 'else'])
    expect(stepChildren({ op: 'myAtom', a: 1, b: 2, result: 'r' })).toEqual(['a', 'b'])
    for (const op of Object.keys(CORE_OPS)) for (const k of stepChildren({ op })) expect(Object.keys(CORE_OPS[op]!.fields)).toContain(k)
  })
  test('visits every expression of a real program, with its JSON pointer path', () => {
    const { ast } = transpile(`function f({ xs, k }) {
      let o = { a: 1, [k]: xs.map((x) => x * 2), ...xs }
      for (const [i, v] of xs.entries()) { if (v > 1) o.a += i }
      try { throw new Error('e') } catch ({ message = 'm' }) { return message }
      return \`\${o.a}\`
    }`)
    const seen: string[] = []
    walk(ast, { expr: (e, path) => { seen.push(e.$expr); expect(path.length).toBeGreaterThan(0) } })
    for (const k of ['object', 'methodCall', 'lambda', 'binary', 'spread', 'assign', 'template', 'ident', 'literal']) expect(seen).toContain(k)
    // the default of the catch pattern is reached through the pattern
    expect(exprsOf(ast).some((e) => e.$expr === 'literal' && e.value === 'm')).toBe(true)
  })
  test('literal data and value templates are data, not nodes', () => {
    const ast = b.program([
      b.exprStep(b.lit({ $expr: 'call', callee: 'hidden', args: [] })),
      { op: 'expr', value: { op: 'notAStep', inner: { $expr: 'ident', name: 'y' } } },
    ])
    const steps: string[] = [], exprs: string[] = []
    walk(ast, { step: (s) => void steps.push(s.op), expr: (e) => void exprs.push(e.$expr === 'ident' ? e.name : e.$expr) })
    expect(steps).toEqual(['expr', 'expr'])
    expect(exprs).toEqual(['literal', 'y'])
  })
  test('a visitor returning false skips the children', () => {
    const seen: string[] = []
    walk(b.binary('+', b.id('a'), b.binary('*', b.id('b'), b.id('c'))), { expr: (e) => { seen.push(e.$expr === 'ident' ? e.name : e.$expr); return !(e.$expr === 'binary' && e.op === '*') } })
    expect(seen).toEqual(['binary', 'a', 'binary'])
  })
})
