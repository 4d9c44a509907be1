/** Helper functions, recursion, and lambdas as array-method callbacks. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import {
  arr, assign, bin, call, code, cond, ex, id, if_, lam, lamSteps, let_, lit, mcall, mem, obj, prog, progArgs, ret, run, value,
} from './ast.ts'

const fn = (params: any[], steps: any[]) => ({ params, steps })

describe('helper functions', () => {
  test('call with positional params', async () => {
    const ast = prog([ret(call('add', lit(2), lit(3)))], { functions: { add: fn(['a', 'b'], [ret(bin('+', id('a'), id('b')))]) } })
    expect(await value(ast)).toBe(5)
  })
  test('missing args are undefined; destructured params with defaults', async () => {
    const ast = prog([ret(arr(call('f'), call('g', obj({ x: lit(1) }))))], {
      functions: {
        f: fn(['a'], [ret(bin('===', id('a'), id('undefined')))]),
        g: fn([{ $pattern: 'object', properties: [{ key: 'x', value: 'x' }, { key: 'y', value: { $pattern: 'default', target: 'y', default: lit(10) } }] }], [ret(bin('+', id('x'), id('y')))]),
      },
    })
    expect(await value(ast)).toEqual([true, 11])
  })
  test('a helper without return yields undefined', async () => {
    const ast = prog([ret(arr(call('f')))], { functions: { f: fn([], [let_({ x: lit(1) })]) } })
    expect(await value(ast)).toEqual([undefined])
  })
  test('helpers do not see the caller\'s variables', async () => {
    const ast = prog([let_({ secret: lit(1) }), ret(call('f'))], { functions: { f: fn([], [ret(id('secret'))]) } })
    expect(await code(ast)).toBe('UNKNOWN_IDENTIFIER')
  })
  test('recursion: factorial and fibonacci', async () => {
    const functions = {
      fact: fn(['n'], [if_(bin('<=', id('n'), lit(1)), [ret(lit(1))]), ret(bin('*', id('n'), call('fact', bin('-', id('n'), lit(1)))))]),
      fib: fn(['n'], [ret(cond(bin('<', id('n'), lit(2)), id('n'), bin('+', call('fib', bin('-', id('n'), lit(1))), call('fib', bin('-', id('n'), lit(2))))))]),
    }
    expect(await value(prog([ret(arr(call('fact', lit(10)), call('fib', lit(15))))], { functions }))).toEqual([3628800, 610])
  })
  test('mutual recursion', async () => {
    const functions = {
      isEven: fn(['n'], [if_(bin('===', id('n'), lit(0)), [ret(lit(true))]), ret(call('isOdd', bin('-', id('n'), lit(1))))]),
      isOdd: fn(['n'], [if_(bin('===', id('n'), lit(0)), [ret(lit(false))]), ret(call('isEven', bin('-', id('n'), lit(1))))]),
    }
    expect(await value(prog([ret(arr(call('isEven', lit(10)), call('isOdd', lit(7))))], { functions }))).toEqual([true, true])
  })
  test('each call has its own frame (recursion does not clobber locals)', async () => {
    const functions = {
      sum: fn(['xs', 'i'], [
        if_(bin('>=', id('i'), mem(id('xs'), 'length')), [ret(lit(0))]),
        let_({ here: { $expr: 'member', object: id('xs'), property: id('i'), computed: true } }),
        let_({ rest: call('sum', id('xs'), bin('+', id('i'), lit(1))) }),
        ret(bin('+', id('here'), id('rest'))),
      ]),
    }
    expect(await value(prog([ret(call('sum', lit([1, 2, 3, 4]), lit(0)))], { functions }))).toBe(10)
  })
  test('unbounded recursion ends with STACK_OVERFLOW (catchable)', async () => {
    const functions = { f: fn(['n'], [ret(call('f', bin('+', id('n'), lit(1))))]) }
    const r = await run(prog([ret(call('f', lit(0)))], { functions }), {}, { fuel: 1e6 })
    expect(r.error?.code).toBe('STACK_OVERFLOW')
    const caught = prog([{ op: 'try', try: [ret(call('f', lit(0)))], catchParam: 'e', catch: [ret(mem(id('e'), 'code'))] }], { functions })
    expect(await value(caught, {}, { fuel: 1e6 })).toBe('STACK_OVERFLOW')
  })
  test('limits.maxCallDepth bounds recursion', async () => {
    const functions = { down: fn(['n'], [if_(bin('===', id('n'), lit(0)), [ret(lit('bottom'))]), ret(call('down', bin('-', id('n'), lit(1))))]) }
    const ast = prog([ret(call('down', lit(20)))], { functions })
    expect(await value(ast, {}, { limits: { maxCallDepth: 21 } })).toBe('bottom')
    expect(await code(ast, {}, { limits: { maxCallDepth: 20 } })).toBe('STACK_OVERFLOW')
  })
  test('a helper that calls an async atom', async () => {
    const slow = defineAtom('slow', s.object({ v: s.number }), s.number, async ({ v }) => v * 2)
    const machine = new AgentVM({ slow })
    const ast = prog([ret(bin('+', call('twice', lit(1)), call('twice', lit(10))))], {
      functions: { twice: fn(['x'], [ret(call('slow', obj({ v: id('x') })))]) },
    })
    expect(await value(ast, {}, undefined, machine)).toBe(22)
  })
})

describe('lambdas in array methods', () => {
  const xs = { xs: [3, 1, 4, 1, 5, 9, 2, 6] }
  const on = (method: string, lambda: any, ...extra: any[]) => progArgs(['xs', 'k'], [ret(mcall(id('xs'), method, lambda, ...extra))])
  test('map with index and enclosing variable', async () => {
    expect(await value(on('map', lam(['x', 'i'], bin('+', bin('*', id('x'), id('k')), id('i')))), { ...xs, k: 10 }))
      .toEqual([30, 11, 42, 13, 54, 95, 26, 67])
  })
  test('filter, find, findIndex, findLast, findLastIndex, some, every', async () => {
    const even = lam(['x'], bin('===', bin('%', id('x'), lit(2)), lit(0)))
    expect(await value(on('filter', even), xs)).toEqual([4, 2, 6])
    expect(await value(on('find', even), xs)).toBe(4)
    expect(await value(on('findIndex', even), xs)).toBe(2)
    expect(await value(on('findLast', even), xs)).toBe(6)
    expect(await value(on('findLastIndex', even), xs)).toBe(7)
    expect(await value(on('some', even), xs)).toBe(true)
    expect(await value(on('every', even), xs)).toBe(false)
    expect(await value(on('find', lam(['x'], bin('>', id('x'), lit(100)))), xs)).toBe(null)
  })
  test('reduce and reduceRight, with and without initial value', async () => {
    const add = lam(['a', 'b'], bin('+', id('a'), id('b')))
    expect(await value(on('reduce', add, lit(100)), xs)).toBe(131)
    expect(await value(on('reduce', add), xs)).toBe(31)
    const cat = lam(['a', 'b'], bin('+', id('a'), { $expr: 'call', callee: 'String', args: [id('b')] }))
    expect(await value(on('reduceRight', cat, lit('')), { xs: [1, 2, 3] })).toBe('321')
    expect(await code(on('reduce', add), { xs: [] })).toBe('TYPE_ERROR')
  })
  test('forEach with a block body assigning an outer variable', async () => {
    const ast = progArgs(['xs'], [
      let_({ total: lit(0) }),
      ex(mcall(id('xs'), 'forEach', lamSteps(['x'], [ex(assign(id('total'), id('x'), '+='))]))),
      ret(id('total')),
    ])
    expect(await value(ast, xs)).toBe(31)
  })
  test('flatMap and sort/toSorted with comparators', async () => {
    expect(await value(on('flatMap', lam(['x'], arr(id('x'), id('x')))), { xs: [1, 2] })).toEqual([1, 1, 2, 2])
    expect(await value(on('toSorted', lam(['a', 'b'], bin('-', id('b'), id('a')))), xs)).toEqual([9, 6, 5, 4, 3, 2, 1, 1])
    const sorted = progArgs(['xs'], [ex(mcall(id('xs'), 'sort', lam(['a', 'b'], bin('-', id('a'), id('b'))))), ret(id('xs'))])
    expect(await value(sorted, xs)).toEqual([1, 1, 2, 3, 4, 5, 6, 9])
  })
  test('block-bodied lambda with return, locals and destructured params', async () => {
    const lambda = lamSteps([{ $pattern: 'object', properties: [{ key: 'n', value: 'n' }] }], [
      let_({ sq: bin('*', id('n'), id('n')) }),
      if_(bin('>', id('sq'), lit(10)), [ret(lit('big'))]),
      ret(id('sq')),
    ])
    expect(await value(on('map', lambda), { xs: [{ n: 2 }, { n: 5 }] })).toEqual([4, 'big'])
  })
  test('a return inside a lambda does not leave the enclosing program', async () => {
    const ast = progArgs(['xs'], [ex(mcall(id('xs'), 'map', lamSteps(['x'], [ret(id('x'))])), 'r'), ret(lit('program end'))])
    expect(await value(ast, xs)).toBe('program end')
  })
  test('nested lambdas see both parameters', async () => {
    const ast = progArgs(['xs'], [ret(mcall(id('xs'), 'map', lam(['a'], mcall(id('xs'), 'map', lam(['b'], bin('*', id('a'), id('b')))))))])
    expect(await value(ast, { xs: [1, 2] })).toEqual([[1, 2], [2, 4]])
  })
  test('lambda calling a helper and an async atom (callbacks run in order)', async () => {
    const order: number[] = []
    const rec = defineAtom('rec', s.object({ v: s.number }), s.number, async ({ v }) => { order.push(v); await new Promise((r) => setTimeout(r, 3 - v)); return v * 10 })
    const machine = new AgentVM({ rec })
    const ast = progArgs(['xs'], [ret(mcall(id('xs'), 'map', lam(['x'], call('rec', obj({ v: call('inc', id('x')) })))))], {
      functions: { inc: fn(['n'], [ret(bin('+', id('n'), lit(1)))]) },
    })
    expect(await value(ast, { xs: [0, 1, 2] }, undefined, machine)).toEqual([10, 20, 30])
    expect(order).toEqual([1, 2, 3])
  })
  test('sort comparators must be synchronous', async () => {
    const rec = defineAtom('rec2', s.object({}), s.number, async () => 0)
    const machine = new AgentVM({ rec2: rec })
    const ast = progArgs(['xs'], [ret(mcall(id('xs'), 'sort', lam(['a', 'b'], call('rec2', obj({})))))])
    expect(await code(ast, xs, undefined, machine)).toBe('AST_INVALID')
  })
  test('a callback method on a non-array is a TYPE_ERROR; unknown HOF refused', async () => {
    expect(await code(on('map', lam(['x'], id('x'))), { xs: 'abc' })).toBe('TYPE_ERROR')
    expect(await code(on('mapp', lam(['x'], id('x'))), xs)).toBe('METHOD_NOT_ALLOWED')
  })
  test('the callback must be the first argument', async () => {
    expect(await code(progArgs(['xs'], [ret(mcall(id('xs'), 'reduce', lit(0), lam(['a', 'b'], id('a'))))]), xs)).toBe('AST_INVALID')
  })
})
