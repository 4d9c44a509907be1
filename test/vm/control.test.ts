/** Control ops: seq, scope, if, loops, break/continue/labels, switch, return, throw, Error. */
import { describe, expect, test } from 'bun:test'
import {
  arr, assign, bin, brk, code, cont, const_, ex, id, if_, inc, let_, lit, mcall, mem, obj, prog, progArgs, ret, run,
  set, upd, value, while_,
} from './ast.ts'

const push = (list: string, v: any) => ex(mcall(id(list), 'push', v))
const lt = (a: any, b: any) => bin('<', a, b)

describe('seq and scope', () => {
  test('blocks have their own lexical scope', async () => {
    const ast = prog([
      let_({ x: lit('outer') }),
      { op: 'scope', steps: [let_({ x: lit('inner') }), set('seen', id('x'))] },
      { op: 'seq', steps: [let_({ x: lit('seq') })] },
      ret(arr(id('x'), id('seen'))),
    ])
    expect(await value(ast)).toEqual(['outer', 'inner'])
  })
  test('a block can assign an outer variable', async () => {
    const ast = prog([let_({ x: lit(1) }), { op: 'scope', steps: [ex(assign(id('x'), lit(2)))] }, ret(id('x'))])
    expect(await value(ast)).toBe(2)
  })
  test('program without return yields null', async () => {
    expect(await value(prog([let_({ x: lit(1) })]))).toBe(null)
    expect(await value(prog([ret()]))).toBe(null)
  })
})

describe('if', () => {
  test('then / else / no else', async () => {
    const ast = progArgs(['n'], [
      if_(bin('>', id('n'), lit(0)), [ret(lit('pos'))], [if_(bin('<', id('n'), lit(0)), [ret(lit('neg'))])]),
      ret(lit('zero')),
    ])
    expect(await value(ast, { n: 5 })).toBe('pos')
    expect(await value(ast, { n: -5 })).toBe('neg')
    expect(await value(ast, { n: 0 })).toBe('zero')
  })
  test('truthiness is JavaScript\'s', async () => {
    const ast = progArgs(['v'], [if_(id('v'), [ret(lit(true))]), ret(lit(false))])
    for (const [v, want] of [[0, false], ['', false], [null, false], ['0', true], [[], true], [{}, true], [NaN, false]] as const) {
      expect(await value(ast, { v })).toBe(want)
    }
  })
})

describe('while and doWhile', () => {
  test('while counts', async () => {
    const ast = prog([let_({ i: lit(0), s: lit(0) }), while_(lt(id('i'), lit(5)), [ex(assign(id('s'), id('i'), '+=')), inc('i')]), ret(id('s'))])
    expect(await value(ast)).toBe(10)
  })
  test('doWhile runs the body at least once', async () => {
    const ast = prog([let_({ n: lit(0) }), { op: 'doWhile', condition: lit(false), body: [inc('n')] }, ret(id('n'))])
    expect(await value(ast)).toBe(1)
  })
  test('doWhile with continue still checks the condition', async () => {
    const ast = prog([
      let_({ n: lit(0) }),
      { op: 'doWhile', condition: lt(id('n'), lit(3)), body: [inc('n'), cont(), ex(assign(id('n'), lit(100)))] },
      ret(id('n')),
    ])
    expect(await value(ast)).toBe(3)
  })
  test('let inside a loop body is fresh each iteration; const works on every iteration', async () => {
    const ast = prog([
      let_({ i: lit(0), out: arr() }),
      while_(lt(id('i'), lit(3)), [const_('c', bin('*', id('i'), lit(2))), push('out', id('c')), inc('i')]),
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([0, 2, 4])
  })
})

describe('for', () => {
  test('classic loop with init scoped to the loop', async () => {
    const ast = prog([
      let_({ i: lit('outer'), out: arr() }),
      { op: 'for', init: [let_({ i: lit(0) })], condition: lt(id('i'), lit(3)), update: upd('++', id('i')), body: [push('out', id('i'))] },
      ret(arr(id('i'), id('out'))),
    ])
    expect(await value(ast)).toEqual(['outer', [0, 1, 2]])
  })
  test('no condition: runs until break', async () => {
    const ast = prog([
      let_({ n: lit(0) }),
      { op: 'for', body: [inc('n'), if_(bin('===', id('n'), lit(4)), [brk()])] },
      ret(id('n')),
    ])
    expect(await value(ast)).toBe(4)
  })
  test('continue runs the update', async () => {
    const ast = prog([
      let_({ out: arr() }),
      {
        op: 'for', init: [let_({ i: lit(0) })], condition: lt(id('i'), lit(6)), update: upd('++', id('i')),
        body: [if_(bin('%', id('i'), lit(2)), [cont()]), push('out', id('i'))],
      },
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([0, 2, 4])
  })
})

describe('forOf and forIn', () => {
  test('forOf over arrays and strings, with const target', async () => {
    const ast = progArgs(['xs'], [
      let_({ out: arr() }),
      { op: 'forOf', kind: 'const', target: 'x', iterable: id('xs'), body: [push('out', bin('*', id('x'), lit(2)))] },
      { op: 'forOf', kind: 'const', target: 'ch', iterable: lit('ab'), body: [push('out', id('ch'))] },
      ret(id('out')),
    ])
    expect(await value(ast, { xs: [1, 2] })).toEqual([2, 4, 'a', 'b'])
  })
  test('forOf with a destructuring target', async () => {
    const ast = progArgs(['pairs'], [
      let_({ s: lit(0) }),
      {
        op: 'forOf', kind: 'const', iterable: id('pairs'),
        target: { $pattern: 'array', elements: ['a', 'b'] },
        body: [ex(assign(id('s'), bin('*', id('a'), id('b')), '+='))],
      },
      ret(id('s')),
    ])
    expect(await value(ast, { pairs: [[1, 2], [3, 4]] })).toBe(14)
  })
  test('forOf without kind assigns an existing binding or member (for (x of xs))', async () => {
    const ast = prog([
      let_({ x: lit(0), o: obj({}) }),
      { op: 'forOf', target: 'x', iterable: lit([1, 2, 3]), body: [] },
      { op: 'forOf', target: { $pattern: 'target', target: mem(id('o'), 'last') }, iterable: lit(['a', 'b']), body: [] },
      ret(arr(id('x'), id('o'))),
    ])
    expect(await value(ast)).toEqual([3, { last: 'b' }])
    expect(await code(prog([{ op: 'forOf', target: 'nope', iterable: lit([1]), body: [] }]))).toBe('UNKNOWN_IDENTIFIER')
  })
  test('forOf over a non-iterable is a TYPE_ERROR', async () => {
    expect(await code(prog([{ op: 'forOf', kind: 'const', target: 'x', iterable: lit(5), body: [] }]))).toBe('TYPE_ERROR')
  })
  test('forIn iterates own keys; array indices as strings; null gives nothing', async () => {
    const ast = progArgs(['o'], [
      let_({ out: arr() }),
      { op: 'forIn', kind: 'const', target: 'k', object: id('o'), body: [push('out', id('k'))] },
      { op: 'forIn', kind: 'const', target: 'k', object: lit(['x', 'y']), body: [push('out', id('k'))] },
      { op: 'forIn', kind: 'const', target: 'k', object: lit(null), body: [push('out', id('k'))] },
      ret(id('out')),
    ])
    expect(await value(ast, { o: { a: 1, b: 2 } })).toEqual(['a', 'b', '0', '1'])
  })
})

describe('break, continue and labels', () => {
  test('break leaves only the innermost loop', async () => {
    const ast = prog([
      let_({ out: arr() }),
      { op: 'forOf', kind: 'const', target: 'i', iterable: lit([1, 2]), body: [
        { op: 'forOf', kind: 'const', target: 'j', iterable: lit([1, 2, 3]), body: [if_(bin('===', id('j'), lit(2)), [brk()]), push('out', arr(id('i'), id('j')))] },
      ] },
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([[1, 1], [2, 1]])
  })
  test('labelled break leaves the outer loop', async () => {
    const ast = prog([
      let_({ out: arr() }),
      { op: 'forOf', label: 'outer', kind: 'const', target: 'i', iterable: lit([1, 2, 3]), body: [
        { op: 'forOf', kind: 'const', target: 'j', iterable: lit([1, 2, 3]), body: [
          if_(bin('===', bin('*', id('i'), id('j')), lit(4)), [brk('outer')]),
          push('out', bin('*', id('i'), id('j'))),
        ] },
      ] },
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([1, 2, 3, 2])
  })
  test('labelled continue goes on with the outer loop', async () => {
    const ast = prog([
      let_({ out: arr() }),
      while_(lit(true), [brk()], 'unused'),
      { op: 'forOf', label: 'rows', kind: 'const', target: 'i', iterable: lit([1, 2, 3]), body: [
        { op: 'forOf', label: 'cols', kind: 'const', target: 'j', iterable: lit([1, 2, 3]), body: [
          if_(bin('>', id('j'), id('i')), [cont('rows')]),
          push('out', arr(id('i'), id('j'))),
        ] },
        push('out', lit('never')),
      ] },
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([[1, 1], [2, 1], [2, 2], [3, 1], [3, 2], [3, 3], 'never'])
  })
  test('labelled break out of a while through a switch', async () => {
    const ast = prog([
      let_({ n: lit(0) }),
      while_(lit(true), [
        inc('n'),
        { op: 'switch', discriminant: id('n'), cases: [{ test: lit(3), body: [brk('loop')] }, { body: [brk()] }] },
      ], 'loop'),
      ret(id('n')),
    ])
    expect(await value(ast)).toBe(3)
  })
  test('continue inside a switch continues the enclosing loop', async () => {
    const ast = prog([
      let_({ out: arr() }),
      { op: 'forOf', kind: 'const', target: 'x', iterable: lit([1, 2, 3]), body: [
        { op: 'switch', discriminant: id('x'), cases: [{ test: lit(2), body: [cont()] }] },
        push('out', id('x')),
      ] },
      ret(id('out')),
    ])
    expect(await value(ast)).toEqual([1, 3])
  })
})

describe('return in loops', () => {
  test('return from inside nested loops leaves the program', async () => {
    const ast = prog([
      { op: 'forOf', kind: 'const', target: 'i', iterable: lit([1, 2, 3]), body: [
        { op: 'while', condition: lit(true), body: [if_(bin('===', id('i'), lit(2)), [ret(bin('*', id('i'), lit(100)))]), brk()] },
      ] },
      ret(lit('done')),
    ])
    expect(await value(ast)).toBe(200)
  })
  test('return inside a helper loop returns from the helper only', async () => {
    const ast = prog([ret(arr(call1('first', lit([5, 7, 8])), lit('after')))], {
      functions: {
        first: { params: ['xs'], steps: [
          { op: 'forOf', kind: 'const', target: 'x', iterable: id('xs'), body: [if_(bin('===', bin('%', id('x'), lit(2)), lit(0)), [ret(id('x'))])] },
          ret(lit(-1)),
        ] },
      },
    })
    expect(await value(ast)).toEqual([8, 'after'])
  })
})

const call1 = (callee: string, ...args: any[]) => ({ $expr: 'call', callee, args })

describe('switch', () => {
  const sw = (cases: any[]) => progArgs(['x'], [let_({ out: arr() }), { op: 'switch', discriminant: id('x'), cases }, ret(id('out'))])
  test('matches with strict equality and falls through until break', async () => {
    const ast = sw([
      { test: lit(1), body: [push('out', lit('one'))] },
      { test: lit(2), body: [push('out', lit('two'))] },
      { test: lit(3), body: [push('out', lit('three')), brk()] },
      { test: lit(4), body: [push('out', lit('four'))] },
    ])
    expect(await value(ast, { x: 1 })).toEqual(['one', 'two', 'three'])
    expect(await value(ast, { x: 3 })).toEqual(['three'])
    expect(await value(ast, { x: '1' })).toEqual([])
  })
  test('default in the middle: used when nothing matches, and falls through', async () => {
    const ast = sw([
      { test: lit('a'), body: [push('out', lit('A')), brk()] },
      { body: [push('out', lit('default'))] },
      { test: lit('b'), body: [push('out', lit('B'))] },
    ])
    expect(await value(ast, { x: 'a' })).toEqual(['A'])
    expect(await value(ast, { x: 'b' })).toEqual(['B'])
    expect(await value(ast, { x: 'z' })).toEqual(['default', 'B'])
  })
  test('case tests are evaluated in order only until one matches', async () => {
    const ast = progArgs(['x'], [
      let_({ n: lit(0) }),
      { op: 'switch', discriminant: id('x'), cases: [
        { test: bin('+', lit(0), lit(1)), body: [brk()] },
        { test: upd('++', id('n'), true), body: [] },
      ] },
      ret(id('n')),
    ])
    expect(await value(ast, { x: 1 })).toBe(0)
    expect(await value(ast, { x: 9 })).toBe(1)
  })
  test('return inside a case', async () => {
    const ast = progArgs(['x'], [{ op: 'switch', discriminant: id('x'), cases: [{ test: lit(1), body: [ret(lit('r'))] }] }, ret(lit('no'))])
    expect(await value(ast, { x: 1 })).toBe('r')
  })
})

describe('throw and Error', () => {
  test('an uncaught throw ends the run with THROWN and the value', async () => {
    const r = await run(prog([{ op: 'throw', value: obj({ message: lit('bad'), n: lit(1) }) }]))
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.message).toBe('bad')
    expect(r.error?.value).toEqual({ message: 'bad', n: 1 })
    expect(r.result).toBe(null)
  })
  test('throw of a string', async () => {
    const r = await run(prog([{ op: 'throw', value: 'just text' }]))
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.message).toBe('just text')
    expect(r.error?.value).toBe('just text')
  })
  test('Error step throws { name, message, data }', async () => {
    const r = await run(prog([{ op: 'Error', message: 'nope', name: 'ValidationError', data: { field: 'x' } }]))
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.message).toBe('nope')
    expect(r.error?.value).toEqual({ name: 'ValidationError', message: 'nope', data: { field: 'x' } })
  })
  test('Error step default name', async () => {
    const r = await run(prog([{ op: 'Error', message: mem(obj({ m: lit('x') }), 'm') }]))
    expect(r.error?.value).toEqual({ name: 'Error', message: 'x' })
  })
  test('location of the failing step is reported', async () => {
    const r = await run(prog([let_({ x: lit(1) }), { op: 'throw', value: 'x', loc: [3, 4] }], { file: 'agent.ajs' }))
    expect(r.error?.location).toBe('agent.ajs:3:5')
    expect(r.error?.line).toBe(3)
    expect(r.error?.column).toBe(5) // 1-based, like location
    expect(r.error?.file).toBe('agent.ajs')
    expect(r.error?.op).toBe('throw')
  })
})

describe('expr step and result bindings', () => {
  test('result assigns an existing binding, or declares a function-scope variable', async () => {
    const ast = prog([
      let_({ a: lit(0) }),
      ex(lit(5), 'a'),
      { op: 'scope', steps: [ex(lit(6), 'b')] },
      ret(arr(id('a'), id('b'))),
    ])
    expect(await value(ast)).toEqual([5, 6])
  })
  test('result naming a const is refused', async () => {
    expect(await code(prog([const_('c', 1), ex(lit(2), 'c')]))).toBe('CONST_ASSIGN')
  })
  test('atom step result', async () => {
    expect(await value(prog([{ op: 'len', value: lit([1, 2, 3]), result: 'n' }, ret(id('n'))]))).toBe(3)
  })
  test('unknown op is refused with a suggestion', async () => {
    const r = await run(prog([{ op: 'lenn', value: 1 }]))
    expect(r.error?.code).toBe('UNKNOWN_ATOM')
    expect(r.error?.message).toContain('"len"')
  })
})
