/** Security rules: no prototype reach, forbidden names everywhere, the membrane, no host exceptions. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import {
  arr, assign, call, code, ex, id, idx, let_, lit, mcall, mem, obj, objP, prog, progArgs, ret, run, value,
} from './ast.ts'

describe('prototype reach', () => {
  test('a bare `constructor` identifier cannot reach Object.prototype', async () => {
    const r = await run(prog([ret(id('constructor'))]))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/0/value/name')
    expect(r.result).toBe(null)
  })
  for (const name of ['__proto__', 'prototype', 'constructor']) {
    test(`identifier ${name} is refused (also as a declaration, param, result and varSet key)`, async () => {
      expect(await code(prog([ret(id(name))]))).toBe('AST_INVALID')
      expect(await code(prog([let_({ [name]: lit(1) })]))).toBe('AST_INVALID')
      expect(await code(prog([{ op: 'varSet', key: name, value: 1 }]))).toBe('AST_INVALID')
      expect(await code(prog([{ op: 'expr', value: 1, result: name }]))).toBe('AST_INVALID')
      expect(await code(prog([], { params: name }))).toBe('AST_INVALID')
      expect(await code(prog([], { functions: { [name]: { params: [], steps: [] } } }))).toBe('AST_INVALID')
    })
    test(`property ${name} is refused statically and dynamically`, async () => {
      expect(await code(prog([ret(mem(obj({}), name))]))).toBe('AST_INVALID')
      expect(await code(progArgs(['k'], [ret(idx(obj({}), id('k')))]), { k: name })).toBe('FORBIDDEN_NAME')
      expect(await code(progArgs(['k'], [let_({ o: obj({}) }), ex(assign(idx(id('o'), id('k')), obj({ polluted: lit(true) })))]), { k: name })).toBe('FORBIDDEN_NAME')
      expect(await code(progArgs(['k'], [ret(idx(lit('str'), id('k')))]), { k: name })).toBe('FORBIDDEN_NAME')
      expect(await code(progArgs(['k'], [ret(idx(arr(), id('k')))]), { k: name })).toBe('FORBIDDEN_NAME')
    })
  }
  test('dynamic keys are refused on the allowed paths too: delete, in, hasOwnProperty', async () => {
    expect(await code(progArgs(['k'], [ret({ $expr: 'unary', op: 'delete', argument: idx(obj({}), id('k')) })]), { k: '__proto__' })).toBe('FORBIDDEN_NAME')
    expect(await value(progArgs(['k'], [ret(mcall(obj({}), 'hasOwnProperty', id('k')))]), { k: '__proto__' })).toBe(false)
    expect(await value(progArgs(['k'], [ret(mcall(id('Object'), 'hasOwn', obj({}), id('k')))]), { k: 'constructor' })).toBe(false)
  })
  test('inherited methods read as properties are undefined', async () => {
    for (const k of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'call', 'apply', 'bind']) {
      expect(await value(progArgs(['k'], [ret(arr(idx(obj({}), id('k')), idx(lit('s'), id('k')), idx(arr(), id('k'))))]), { k })).toEqual([undefined, undefined, undefined])
    }
  })
  test('no pollution after hostile attempts', async () => {
    await run(progArgs(['k'], [let_({ o: obj({}) }), ex(assign(mem(idx(id('o'), id('k')), 'polluted'), lit(1)))]), { k: '__proto__' })
    await run(prog([{ op: 'jsonParse', text: '{"__proto__":{"polluted":1}}', result: 'x' }, { op: 'merge', objects: [obj({}), id('x')] }]))
    await run(prog([ret(objP({ $expr: 'spread', argument: mcall(id('JSON'), 'parse', lit('{"__proto__":{"polluted":1}}')) }))]))
    expect(({} as any).polluted).toBeUndefined()
    expect((Object.prototype as any).polluted).toBeUndefined()
  })
  test('namespaces are data: Math.constructor / JSON.parse as values are refused or undefined', async () => {
    expect(await code(prog([ret(mem(id('Math'), 'constructor'))]))).toBe('AST_INVALID')
    expect(await value(prog([ret(arr(mem(id('JSON'), 'parse'), mem(id('Math'), 'max'), mem(id('Math'), 'PI')))]))).toEqual([undefined, undefined, Math.PI])
  })
  test('namespace objects cannot be mutated by the guest', async () => {
    expect(await code(prog([ex(assign(mem(id('Math'), 'PI'), lit(3)))]))).toBe('TYPE_ERROR')
    expect(await value(prog([ret(mem(id('Math'), 'PI'))]))).toBe(Math.PI)
  })
  test('no host globals are reachable', async () => {
    for (const name of ['globalThis', 'process', 'require', 'eval', 'Function', 'fetch', 'setTimeout', 'Bun', 'window', 'this']) {
      expect(await code(prog([ret(id(name))]))).not.toBe('OK')
    }
    expect(await code(prog([ret(call('eval', lit('1')))]))).toBe('UNKNOWN_FUNCTION')
    expect(await code(prog([ret(call('Function', lit('return 1')))]))).toBe('UNKNOWN_FUNCTION')
  })
  test('string methods cannot be used to reach functions', async () => {
    for (const m of ['constructor', '__proto__']) expect(await code(prog([ret(mcall(lit('s'), m))]))).toBe('AST_INVALID')
    for (const m of ['call', 'apply', 'bind', 'constructor2', 'toSource', '__lookupGetter__']) {
      expect(await code(prog([ret(mcall(lit('s'), m))]))).toBe('METHOD_NOT_ALLOWED')
    }
  })
})

describe('host args and results', () => {
  test('host args are never mutated (deep)', async () => {
    const args = { user: { name: 'ada', tags: ['a'] }, n: 1 }
    const snapshot = structuredClone(args)
    const ast = progArgs(['user', 'n'], [
      ex(assign(mem(id('user'), 'name'), lit('eve'))),
      ex(mcall(mem(id('user'), 'tags'), 'push', lit('b'))),
      ex(assign(id('n'), lit(2))),
      { op: 'push', list: mem(id('user'), 'tags'), item: 'c' },
      ex({ $expr: 'unary', op: 'delete', argument: mem(id('user'), 'name') }),
      ret(id('user')),
    ])
    const r = await run(ast, args)
    expect(r.result).toEqual({ tags: ['a', 'b', 'c'] })
    expect(args).toEqual(snapshot)
  })
  test('frozen host args are fine (they are copied)', async () => {
    const args = Object.freeze({ xs: Object.freeze([1, 2]) })
    expect(await value(progArgs(['xs'], [ex(mcall(id('xs'), 'push', lit(3))), ret(id('xs'))]), args)).toEqual([1, 2, 3])
  })
  test('results are plain data: fresh objects with Object.prototype, no functions', async () => {
    const r = await run(progArgs(['o'], [ret(obj({ o: id('o'), a: arr(lit(1)) }))]), { o: { x: 1 } })
    expect(r.result).toEqual({ o: { x: 1 }, a: [1] })
    expect(JSON.parse(JSON.stringify(r.result))).toEqual(r.result)
  })
  test('frozen values in the result are copied out (regexes as their text), never written in place', async () => {
    const frozen = { $expr: 'methodCall', object: id('Object'), method: 'freeze', args: [arr(obj({ a: lit(1) }), { $expr: 'regex', pattern: 'a+', flags: 'g' })] }
    const r = await run(prog([ret(obj({ xs: frozen, top: frozen }))]))
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ xs: [{ a: 1 }, '/a+/g'], top: [{ a: 1 }, '/a+/g'] })
    expect(await value(prog([ret(frozen)]))).toEqual([{ a: 1 }, '/a+/g'])
  })
  test('the result does not alias the args', async () => {
    const args = { o: { x: 1 } }
    const r = await run(progArgs(['o'], [ret(id('o'))]), args)
    expect(r.result).toEqual({ x: 1 })
    expect(r.result).not.toBe(args.o)
  })
  test('functions and symbols in args are dropped, getters read once; cycles refused', async () => {
    const r = await run(prog([ret(id('input'))], { params: 'input' }), { f: () => 1, sym: Symbol('s'), a: 1 })
    expect(r.result).toEqual({ a: 1 })
    const cyc: any = { a: 1 }
    cyc.me = cyc
    expect(await code(prog([]), cyc)).toBe('VALUE_NOT_DATA')
  })
  test('only own keys of args are copied: inherited ones, or a polluted Object.prototype, add none', async () => {
    const echo = prog([ret(id('input'))], { params: 'input' })
    const inherited = Object.assign(Object.create({ secret: 1 }), { a: 1 })
    const nullProto = Object.assign(Object.create(null), { b: 2 })
    expect(await value(echo, { inherited, nullProto })).toEqual({ inherited: { a: 1 }, nullProto: { b: 2 } })
    ;(Object.prototype as any).polluted = 1
    try {
      const r = await run(echo, { a: { b: 1 } })
      expect(Object.keys(r.result as object)).toEqual(['a'])
      expect(Object.keys((r.result as any).a)).toEqual(['b'])
    } finally {
      delete (Object.prototype as any).polluted
    }
  })
  test('args with __proto__ keys (from JSON) lose them', async () => {
    const args = JSON.parse('{"__proto__":{"admin":true},"name":"x"}')
    expect(await value(prog([ret(id('input'))], { params: 'input' }), args)).toEqual({ name: 'x' })
  })
  test('inputSchema is checked against args before running', async () => {
    const ast = prog([ret(id('n'))], {
      params: { $pattern: 'object', properties: [{ key: 'n', value: 'n' }] },
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    })
    expect(await value(ast, { n: 2 })).toBe(2)
    const r = await run(ast, { n: 'two' })
    expect(r.error?.code).toBe('ARGS_INVALID')
    expect(r.fuelUsed).toBe(0)
  })
})

describe('errors never escape as host exceptions', () => {
  const machine = new AgentVM({
    hostThrows: defineAtom('hostThrows', s.object({}), s.any, () => { throw new TypeError('host bug') }),
    hostRejects: defineAtom('hostRejects', s.object({}), s.any, async () => { throw 'a string' }),
    badOutput: defineAtom('badOutput', s.object({}), s.number, () => 'not a number' as any),
  })
  const cases: Array<[string, unknown, unknown]> = [
    ['not an object', 42, {}],
    ['null', null, {}],
    ['an array', [], {}],
    ['a string without a transpiler', 'let x = 1', {}],
    ['unknown version', { ajs: 2, op: 'seq', steps: [] }, {}],
    ['no version (the seed dialect) reading an arg it is not given', { op: 'seq', steps: [{ op: 'return', value: { $expr: 'ident', name: 'missing' } }] }, {}],
    ['host atom throws', prog([{ op: 'hostThrows' }]), {}],
    ['host atom rejects with a string', prog([{ op: 'hostRejects' }]), {}],
    ['atom output does not match its schema', prog([{ op: 'badOutput' }]), {}],
    ['args are a BigInt', prog([]), 10n],
  ]
  for (const [name, ast, args] of cases) {
    test(`${name}: resolves with an error`, async () => {
      const r = await machine.run(ast, args)
      expect(r.error).toBeDefined()
      expect(r.error?.name).toBe('AgentError')
      expect(typeof r.error?.code).toBe('string')
      expect(typeof r.error?.message).toBe('string')
      expect(r.result).toBe(null)
    })
  }
  test('codes of those failures', async () => {
    expect((await machine.run(42)).error?.code).toBe('AST_INVALID')
    expect((await machine.run('let x = 1')).error?.code).toBe('SOURCE_NOT_SUPPORTED')
    expect((await machine.run({ ajs: 2, op: 'seq', steps: [] })).error?.code).toBe('AST_VERSION')
    expect((await machine.run(prog([{ op: 'hostThrows' }]))).error?.code).toBe('ATOM_ERROR')
    expect((await machine.run(prog([{ op: 'badOutput' }]))).error?.code).toBe('ATOM_OUTPUT_INVALID')
  })
})
