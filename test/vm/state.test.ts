/** State ops (varSet, constSet, varsLet, varGet, varsImport, varsExport, destructure) and patterns. */
import { describe, expect, test } from 'bun:test'
import { arr, assign, bin, code, const_, ex, id, let_, lit, mem, obj, prog, progArgs, ret, run, set, value, mcall } from './ast.ts'

const P = {
  obj: (props: Array<[string, any]>, rest?: string) => ({ $pattern: 'object', properties: props.map(([key, v]) => ({ key, value: v })), ...(rest ? { rest } : {}) }),
  arr: (elements: any[], rest?: any) => ({ $pattern: 'array', elements, ...(rest !== undefined ? { rest } : {}) }),
  def: (target: any, d: any) => ({ $pattern: 'default', target, default: d }),
}
const destr = (kind: string, pattern: any, v: any) => ({ op: 'destructure', kind, pattern, value: v })

describe('varSet', () => {
  test('declares in the function scope when no binding exists', async () => {
    expect(await value(prog([{ op: 'scope', steps: [set('x', 5)] }, ret(id('x'))]))).toBe(5)
  })
  test('assigns the binding in scope (also from a nested block)', async () => {
    const ast = prog([let_({ x: lit(1) }), { op: 'scope', steps: [set('x', bin('+', id('x'), lit(1)))] }, ret(id('x'))])
    expect(await value(ast)).toBe(2)
  })
  test('a string value is always a string (one value encoding)', async () => {
    const ast = prog([let_({ name: lit('var') }), set('x', 'name'), ret(id('x'))])
    expect(await value(ast)).toBe('name')
  })
  test('value templates: $expr nodes nested in JSON objects/arrays are evaluated in place', async () => {
    const ast = progArgs(['n'], [set('x', { a: id('n'), list: [1, bin('+', id('n'), lit(1)), 'n'], deep: { s: 'plain' } }), ret(id('x'))])
    expect(await value(ast, { n: 10 })).toEqual({ a: 10, list: [1, 11, 'n'], deep: { s: 'plain' } })
  })
  test('result on varSet also receives the value', async () => {
    expect(await value(prog([{ op: 'varSet', key: 'a', value: 3, result: 'b' }, ret(arr(id('a'), id('b')))]))).toEqual([3, 3])
  })
  test('cannot assign a const', async () => {
    expect(await code(prog([const_('x', 1), set('x', 2)]))).toBe('CONST_ASSIGN')
  })
})

describe('constSet and varsLet', () => {
  test('constSet declares a block-scoped constant', async () => {
    const ast = prog([const_('x', 'outer'), { op: 'scope', steps: [const_('x', 'inner'), set('seen', id('x'))] }, ret(arr(id('x'), id('seen')))])
    expect(await value(ast)).toEqual(['outer', 'inner'])
  })
  test('varsLet declares in order; later ones see earlier ones', async () => {
    expect(await value(prog([let_({ a: lit(2), b: bin('*', id('a'), lit(3)) }), ret(id('b'))]))).toBe(6)
  })
  test('varsLet with no value expression is JSON data', async () => {
    expect(await value(prog([let_({ a: [1, { b: 'c' }] }), ret(id('a'))]))).toEqual([1, { b: 'c' }])
  })
})

describe('varGet, varsImport, varsExport', () => {
  test('varGet copies a variable into result', async () => {
    expect(await value(prog([let_({ a: lit(4) }), { op: 'varGet', key: 'a', result: 'b' }, ret(id('b'))]))).toBe(4)
  })
  test('varGet of an unknown variable', async () => {
    expect(await code(prog([{ op: 'varGet', key: 'nope', result: 'b' }]))).toBe('UNKNOWN_IDENTIFIER')
  })
  test('varsImport reads same-named fields of args; missing ones are undefined', async () => {
    const ast = prog([{ op: 'varsImport', keys: ['a', 'b'] }, ret(arr(id('a'), mem(id('b'), 'x', { optional: true }), bin('===', id('b'), id('undefined'))))])
    expect(await value(ast, { a: 1 })).toEqual([1, undefined, true])
  })
  test('varsImport variables are let (assignable)', async () => {
    expect(await value(prog([{ op: 'varsImport', keys: ['a'] }, set('a', bin('+', id('a'), lit(1))), ret(id('a'))]), { a: 1 })).toBe(2)
  })
  test('varsExport builds an object from variables', async () => {
    const ast = prog([let_({ a: lit(1), b: lit('two') }), { op: 'varsExport', keys: ['a', 'b'], result: 'o' }, ret(id('o'))])
    expect(await value(ast)).toEqual({ a: 1, b: 'two' })
  })
  test('varsExport of an unknown variable', async () => {
    expect(await code(prog([{ op: 'varsExport', keys: ['zz'], result: 'o' }]))).toBe('UNKNOWN_IDENTIFIER')
  })
})

describe('destructure and patterns', () => {
  test('object pattern with rename, default and rest', async () => {
    const ast = progArgs(['src'], [
      destr('const', P.obj([['a', 'x'], ['b', P.def('y', lit(9))]], 'others'), id('src')),
      ret(arr(id('x'), id('y'), id('others'))),
    ])
    expect(await value(ast, { src: { a: 1, c: 3, d: 4 } })).toEqual([1, 9, { c: 3, d: 4 }])
  })
  test('default applies only for undefined (not null)', async () => {
    const ast = progArgs(['src'], [destr('let', P.obj([['a', P.def('a', lit('d'))]]), id('src')), ret(id('a'))])
    expect(await value(ast, { src: {} })).toBe('d')
    expect(await value(ast, { src: { a: null } })).toBe(null)
    expect(await value(ast, { src: { a: 0 } })).toBe(0)
  })
  test('default expression is evaluated only when needed', async () => {
    const ast = progArgs(['src'], [
      let_({ n: lit(0) }),
      destr('let', P.obj([['a', P.def('a', { $expr: 'update', op: '++', prefix: true, argument: id('n') })]]), id('src')),
      ret(arr(id('a'), id('n'))),
    ])
    expect(await value(ast, { src: { a: 5 } })).toEqual([5, 0])
    expect(await value(ast, { src: {} })).toEqual([1, 1])
  })
  test('array pattern with holes, nested patterns and rest', async () => {
    const ast = progArgs(['xs'], [
      destr('const', P.arr([null, 'second', P.arr(['n1', 'n2'])], 'tail'), id('xs')),
      ret(arr(id('second'), id('n1'), id('n2'), id('tail'))),
    ])
    expect(await value(ast, { xs: [1, 2, [3, 4], 5, 6] })).toEqual([2, 3, 4, [5, 6]])
  })
  test('array pattern of a string', async () => {
    expect(await value(prog([destr('const', P.arr(['a', 'b']), lit('xy')), ret(arr(id('a'), id('b')))]))).toEqual(['x', 'y'])
  })
  test('computed keys in object patterns', async () => {
    const ast = progArgs(['k', 'o'], [
      destr('const', { $pattern: 'object', properties: [{ key: id('k'), computed: true, value: 'v' }] }, id('o')),
      ret(id('v')),
    ])
    expect(await value(ast, { k: 'b', o: { a: 1, b: 2 } })).toBe(2)
  })
  test('destructuring null or a non-iterable is a TYPE_ERROR', async () => {
    expect(await code(prog([destr('const', P.obj([['a', 'a']]), lit(null))]))).toBe('TYPE_ERROR')
    expect(await code(prog([destr('const', P.arr(['a']), lit(5))]))).toBe('TYPE_ERROR')
  })
  test('assign kind writes existing variables and member targets', async () => {
    const ast = prog([
      let_({ a: lit(0), o: obj({}) }),
      destr('assign', P.arr(['a', { $pattern: 'target', target: mem(id('o'), 'b') }, { $pattern: 'target', target: { $expr: 'member', object: id('o'), property: lit('c'), computed: true } }]), lit([1, 2, 3])),
      ret(arr(id('a'), id('o'))),
    ])
    expect(await value(ast)).toEqual([1, { b: 2, c: 3 }])
  })
  test('const from destructure cannot be reassigned', async () => {
    expect(await code(prog([destr('const', P.arr(['a']), lit([1])), set('a', 2)]))).toBe('CONST_ASSIGN')
  })
  test('a forbidden key in a pattern is refused', async () => {
    expect((await run(prog([destr('const', P.obj([['__proto__', 'p']]), obj({}))]))).error?.code).toBe('AST_INVALID')
    const dyn = progArgs(['k'], [destr('const', { $pattern: 'object', properties: [{ key: id('k'), computed: true, value: 'v' }] }, obj({}))])
    expect(await code(dyn, { k: 'constructor' })).toBe('FORBIDDEN_NAME')
  })
  test('target patterns are only valid in assignments', async () => {
    expect(await code(prog([destr('let', P.arr([{ $pattern: 'target', target: id('x') }]), lit([1]))]))).toBe('AST_INVALID')
  })
})

describe('program params', () => {
  test('params pattern binds args, with defaults', async () => {
    const ast = prog([ret(arr(id('a'), id('b')))], {
      params: { $pattern: 'object', properties: [{ key: 'a', value: 'a' }, { key: 'b', value: { $pattern: 'default', target: 'b', default: lit('dflt') } }] },
    })
    expect(await value(ast, { a: 1 })).toEqual([1, 'dflt'])
  })
  test('params as a single name binds the whole args object', async () => {
    expect(await value(prog([ret(mem(id('input'), 'x'))], { params: 'input' }), { x: 42 })).toBe(42)
  })
  test('args default to {}', async () => {
    expect(await value(prog([ret(id('input'))], { params: 'input' }), undefined)).toEqual({})
  })
  test('assignment to a param', async () => {
    expect(await value(progArgs(['n'], [ex(assign(id('n'), lit(1), '+=')), ret(id('n'))]), { n: 1 })).toBe(2)
  })
  test('arrays built by the guest from args are new arrays (host args not mutated)', async () => {
    const args = { xs: [1, 2] }
    await value(progArgs(['xs'], [ex(mcall(id('xs'), 'push', lit(3))), ret(id('xs'))]), args)
    expect(args).toEqual({ xs: [1, 2] })
  })
})
