/** try / catch / finally, including JavaScript's override rules for finally. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import { arr, bin, brk, cont, ex, id, if_, let_, lit, mcall, mem, obj, prog, ret, run, value, while_, call } from './ast.ts'

const push = (v: any) => ex(mcall(id('log'), 'push', v))
const throwV = (v: unknown) => ({ op: 'throw', value: v })
const tryStep = (t: any[], c?: any[], f?: any[], param: any = 'e') => {
  const step: any = { op: 'try', try: t }
  if (c) { step.catch = c; if (param !== null) step.catchParam = param }
  if (f) step.finally = f
  return step
}

describe('try/catch', () => {
  test('catch binds the thrown value', async () => {
    expect(await value(prog([tryStep([throwV(obj({ code: lit(7) }))], [ret(mem(id('e'), 'code'))])]))).toBe(7)
  })
  test('catch without a parameter', async () => {
    expect(await value(prog([tryStep([throwV('x')], [ret(lit('caught'))], undefined, null)]))).toBe('caught')
  })
  test('catch param may be a destructuring pattern', async () => {
    const p = { $pattern: 'object', properties: [{ key: 'message', value: 'm' }] }
    expect(await value(prog([tryStep([{ op: 'Error', message: 'boom' }], [ret(id('m'))], undefined, p)]))).toBe('boom')
  })
  test('VM errors are caught as { name, message, code }', async () => {
    const ast = prog([tryStep([ex(mcall(lit(null), 'trim'))], [ret(id('e'))])])
    const e = await value(ast)
    expect(e.name).toBe('TypeError')
    expect(e.code).toBe('TYPE_ERROR')
    expect(typeof e.message).toBe('string')
  })
  test('JSON errors are SyntaxError, range errors RangeError', async () => {
    const a = await value(prog([tryStep([ex(mcall(id('JSON'), 'parse', lit('{')))], [ret(mem(id('e'), 'name'))])]))
    expect(a).toBe('SyntaxError')
    const b = await value(prog([tryStep([ex(mcall(lit('x'), 'repeat', lit(-1)))], [ret(mem(id('e'), 'name'))])]))
    expect(b).toBe('RangeError')
  })
  test('catch variable is scoped to the catch block', async () => {
    const ast = prog([let_({ e: lit('outer') }), tryStep([throwV('inner')], [ex(id('e'), 'seen')]), ret(arr(id('e'), id('seen')))])
    expect(await value(ast)).toEqual(['outer', 'inner'])
  })
  test('an error thrown in catch propagates', async () => {
    const r = await run(prog([tryStep([throwV('a')], [throwV('b')])]))
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.value).toBe('b')
  })
  test('nested try: inner catch handles, outer does not run', async () => {
    const ast = prog([
      let_({ log: arr() }),
      tryStep([tryStep([throwV('x')], [push(lit('inner'))])], [push(lit('outer'))]),
      ret(id('log')),
    ])
    expect(await value(ast)).toEqual(['inner'])
  })
  test('rethrow reaches the outer catch', async () => {
    const ast = prog([tryStep([tryStep([throwV('x')], [throwV(bin('+', id('e'), lit('!')))])], [ret(id('e'))])])
    expect(await value(ast)).toBe('x!')
  })
})

describe('finally', () => {
  test('runs after normal completion and after a caught error', async () => {
    const ast = prog([
      let_({ log: arr() }),
      tryStep([push(lit('t1'))], undefined, [push(lit('f1'))]),
      tryStep([throwV('x'), push(lit('no'))], [push(lit('c2'))], [push(lit('f2'))]),
      ret(id('log')),
    ])
    expect(await value(ast)).toEqual(['t1', 'f1', 'c2', 'f2'])
  })
  test('runs when try returns; the try value is kept', async () => {
    const ast = prog([let_({ log: arr() }), tryStep([ret(lit('from try'))], undefined, [push(lit('fin'))])], {})
    expect(await value(ast)).toBe('from try')
  })
  test('finally mutating state after a return does not change the returned value', async () => {
    const ast = prog([let_({ x: lit(1) }), tryStep([ret(id('x'))], undefined, [ex({ $expr: 'assign', op: '=', target: id('x'), value: lit(2) })])])
    expect(await value(ast)).toBe(1)
  })
  test('return in finally overrides the try return', async () => {
    expect(await value(prog([tryStep([ret(lit('try'))], undefined, [ret(lit('finally'))])]))).toBe('finally')
  })
  test('return in finally overrides a thrown error (swallows it)', async () => {
    expect(await value(prog([tryStep([throwV('boom')], undefined, [ret(lit('recovered'))])]))).toBe('recovered')
  })
  test('throw in finally overrides the try return', async () => {
    const r = await run(prog([tryStep([ret(lit('try'))], undefined, [throwV('fin')])]))
    expect(r.error?.code).toBe('THROWN')
    expect(r.error?.value).toBe('fin')
  })
  test('throw in finally overrides the original error', async () => {
    const r = await run(prog([tryStep([throwV('first')], undefined, [throwV('second')])]))
    expect(r.error?.value).toBe('second')
  })
  test('uncaught error propagates after finally runs', async () => {
    const ast = prog([
      let_({ log: arr() }),
      tryStep([tryStep([throwV('x')], undefined, [push(lit('fin'))])], [push(id('e'))]),
      ret(id('log')),
    ])
    expect(await value(ast)).toEqual(['fin', 'x'])
  })
  test('error in catch still runs finally', async () => {
    const ast = prog([
      let_({ log: arr() }),
      tryStep([tryStep([throwV('a')], [throwV('b')], [push(lit('fin'))])], [push(id('e'))]),
      ret(id('log')),
    ])
    expect(await value(ast)).toEqual(['fin', 'b'])
  })
  test('break in finally overrides a return from try', async () => {
    const ast = prog([
      while_(lit(true), [tryStep([ret(lit('try'))], undefined, [brk()])]),
      ret(lit('after loop')),
    ])
    expect(await value(ast)).toBe('after loop')
  })
  test('break in try runs finally, then leaves the loop', async () => {
    const ast = prog([
      let_({ log: arr(), i: lit(0) }),
      while_(lit(true), [ex({ $expr: 'update', op: '++', prefix: false, argument: id('i') }), tryStep([if_(bin('>', id('i'), lit(1)), [brk()]), cont()], undefined, [push(id('i'))])]),
      ret(id('log')),
    ])
    expect(await value(ast)).toEqual([1, 2])
  })
  test('continue in finally overrides a throw', async () => {
    const ast = prog([
      let_({ n: lit(0) }),
      while_(bin('<', id('n'), lit(3)), [
        ex({ $expr: 'update', op: '++', prefix: false, argument: id('n') }),
        tryStep([throwV('x')], undefined, [cont()]),
      ]),
      ret(id('n')),
    ])
    expect(await value(ast)).toBe(3)
  })
  test('try in a helper: finally return overrides', async () => {
    const ast = prog([ret(call('f'))], { functions: { f: { params: [], steps: [tryStep([ret(lit(1))], undefined, [ret(lit(2))])] } } })
    expect(await value(ast)).toBe(2)
  })
})

describe('what try cannot catch', () => {
  test('FUEL_EXHAUSTED is not catchable and finally does not run', async () => {
    const ast = prog([
      let_({ log: arr() }),
      tryStep([while_(lit(true), [])], [ret(lit('caught'))], [push(lit('fin'))]),
    ])
    const r = await run(ast, {}, { fuel: 5 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBe(5)
  })
  test('TIMEOUT is not catchable', async () => {
    const r = await run(prog([tryStep([while_(lit(true), [])], [ret(lit('caught'))])]), {}, { fuel: 1e12, timeoutMs: 30 })
    expect(r.error?.code).toBe('TIMEOUT')
  })
  test('HEAP_LIMIT is not catchable', async () => {
    const r = await run(prog([tryStep([ex(mcall(lit('x'), 'repeat', lit(1e6)))], [ret(lit('caught'))])]), {}, { maxHeapBytes: 1000 })
    expect(r.error?.code).toBe('HEAP_LIMIT')
  })
  test('an atom error is catchable (ATOM_ERROR)', async () => {
    const failing = defineAtom('failing', s.object({}), s.any, () => { throw new Error('nope') })
    const machine = new AgentVM({ failing })
    const ast = prog([tryStep([{ op: 'failing' }], [ret(id('e'))])])
    const e = await value(ast, {}, undefined, machine)
    expect(e.code).toBe('ATOM_ERROR')
    expect(e.message).toContain('nope')
  })
})
