/** Collection, text and JSON atoms, as steps and as expression calls. */
import { describe, expect, test } from 'bun:test'
import { arr, bin, call, code, ex, id, if_, let_, lit, mem, obj, prog, progArgs, re, ret, run, value } from './ast.ts'

const step = (op: string, fields: Record<string, unknown>) => ({ op, ...fields, result: 'out' })
const one = (op: string, fields: Record<string, unknown>, args: unknown = {}) =>
  value(progArgs(Object.keys(args as object), [step(op, fields), ret(id('out'))]), args)

describe('map / filter / find / reduce steps', () => {
  test('map: each iteration returns a value; index binding', async () => {
    expect(await one('map', { items: id('xs'), as: 'x', index: 'i', steps: [ret(bin('+', bin('*', id('x'), lit(10)), id('i')))] }, { xs: [1, 2, 3] }))
      .toEqual([10, 21, 32])
  })
  test('map: an iteration without return gives undefined', async () => {
    expect(await one('map', { items: [1, 2], as: 'x', steps: [if_(bin('>', id('x'), lit(1)), [ret(id('x'))])] })).toEqual([undefined, 2])
  })
  test('map over a string iterates characters', async () => {
    expect(await one('map', { items: 'ab', as: 'c', steps: [ret(bin('+', id('c'), id('c')))] })).toEqual(['aa', 'bb'])
  })
  test('map body can assign outer variables', async () => {
    const ast = prog([let_({ n: lit(0) }), { op: 'map', items: [1, 2, 3], as: 'x', steps: [ex({ $expr: 'assign', op: '+=', target: id('n'), value: id('x') })] }, ret(id('n'))])
    expect(await value(ast)).toBe(6)
  })
  test('filter and find with a condition expression', async () => {
    expect(await one('filter', { items: id('xs'), as: 'x', condition: bin('>', id('x'), lit(2)) }, { xs: [1, 5, 2, 7] })).toEqual([5, 7])
    expect(await one('find', { items: id('xs'), as: 'x', condition: bin('>', id('x'), lit(2)) }, { xs: [1, 5, 2, 7] })).toBe(5)
    expect(await one('find', { items: id('xs'), as: 'x', condition: bin('>', id('x'), lit(20)) }, { xs: [1, 5] })).toBe(null)
    expect(await one('filter', { items: id('xs'), as: 'x', index: 'i', condition: bin('===', bin('%', id('i'), lit(2)), lit(0)) }, { xs: ['a', 'b', 'c'] })).toEqual(['a', 'c'])
  })
  test('reduce: accumulator starts at initial, each iteration returns the next', async () => {
    expect(await one('reduce', { items: id('xs'), as: 'x', accumulator: 'acc', initial: 0, steps: [ret(bin('+', id('acc'), id('x')))] }, { xs: [1, 2, 3, 4] })).toBe(10)
    expect(await one('reduce', { items: [], as: 'x', accumulator: 'acc', initial: 'empty', steps: [ret(id('x'))] })).toBe('empty')
  })
  test('items must be an array or a string', async () => {
    expect(await code(prog([step('map', { items: 5, as: 'x', steps: [] })]))).toBe('TYPE_ERROR')
    expect(await code(prog([step('filter', { items: obj({}), as: 'x', condition: lit(true) })]))).toBe('TYPE_ERROR')
  })
  test('the item binding is scoped to the body', async () => {
    const ast = prog([let_({ x: lit('outer') }), step('map', { items: [1], as: 'x', steps: [ret(id('x'))] }), ret(arr(id('x'), id('out')))])
    expect(await value(ast)).toEqual(['outer', [1]])
  })
})

describe('push, len, split, join', () => {
  test('push appends and yields the new length', async () => {
    const ast = prog([let_({ a: lit([1]) }), step('push', { list: id('a'), item: lit(2) }), ret(arr(id('out'), id('a')))])
    expect(await value(ast)).toEqual([2, [1, 2]])
    expect(await code(prog([step('push', { list: 'str', item: 1 })]))).toBe('TYPE_ERROR')
  })
  test('len of arrays, strings, objects and others', async () => {
    expect(await one('len', { value: [1, 2, 3] })).toBe(3)
    expect(await one('len', { value: 'abcd' })).toBe(4)
    expect(await one('len', { value: { a: 1, b: 2 } })).toBe(2)
    expect(await one('len', { value: 42 })).toBe(0)
    expect(await one('len', { value: null })).toBe(0)
  })
  test('split by string and by regex', async () => {
    expect(await one('split', { value: 'a,b,,c', separator: ',' })).toEqual(['a', 'b', '', 'c'])
    expect(await one('split', { value: 'a1b22c', separator: re('\\d+') })).toEqual(['a', 'b', 'c'])
    expect(await code(prog([step('split', { value: 5, separator: ',' })]))).toBe('TYPE_ERROR')
  })
  test('join with default and explicit separator', async () => {
    expect(await one('join', { items: [1, 'a', null] })).toBe('1,a,')
    expect(await one('join', { items: ['x', 'y'], separator: ' - ' })).toBe('x - y')
    expect(await code(prog([step('join', { items: 'ab' })]))).toBe('TYPE_ERROR')
  })
})

describe('pick, omit, merge, keys', () => {
  test('pick copies only the given own keys', async () => {
    expect(await one('pick', { object: { a: 1, b: 2, c: 3 }, keys: ['a', 'c', 'zz'] })).toEqual({ a: 1, c: 3 })
    expect(await code(prog([step('pick', { object: { a: 1 }, keys: ['constructor'] })]))).toBe('FORBIDDEN_NAME')
  })
  test('omit drops keys', async () => {
    expect(await one('omit', { object: { a: 1, b: 2, c: 3 }, keys: ['b'] })).toEqual({ a: 1, c: 3 })
  })
  test('merge is shallow, later wins, null skipped', async () => {
    expect(await one('merge', { objects: [{ a: 1, n: { x: 1 } }, null, { a: 2, n: { y: 2 } }] })).toEqual({ a: 2, n: { y: 2 } })
    expect(await code(prog([step('merge', { objects: [1] })]))).toBe('TYPE_ERROR')
  })
  test('keys of objects and arrays', async () => {
    expect(await one('keys', { object: { b: 1, a: 2 } })).toEqual(['b', 'a'])
    expect(await one('keys', { object: ['x', 'y'] })).toEqual(['0', '1'])
    expect(await one('keys', { object: null })).toEqual([])
  })
  test('pick/omit need an object', async () => {
    expect(await code(prog([step('pick', { object: [1], keys: [] })]))).toBe('TYPE_ERROR')
    expect(await code(prog([step('omit', { object: 'x', keys: [] })]))).toBe('TYPE_ERROR')
  })
  test('results do not alias their inputs', async () => {
    const ast = prog([let_({ o: lit({ a: 1 }) }), step('merge', { objects: [id('o')] }), ex({ $expr: 'assign', op: '=', target: mem(id('out'), 'a'), value: lit(9) }), ret(id('o'))])
    expect(await value(ast)).toEqual({ a: 1 })
  })
})

describe('template and regexMatch', () => {
  test('template fills {{path}} placeholders', async () => {
    expect(await one('template', { template: 'Hi {{ user.name }}, {{n}} new {{missing}}!', vars: { user: { name: 'Ada' }, n: 3 } }))
      .toBe('Hi Ada, 3 new !')
    expect(await one('template', { template: '{{o}}', vars: { o: { a: 1 } } })).toBe('{"a":1}')
    expect(await one('template', { template: 'no vars' })).toBe('no vars')
  })
  test('template does not reach prototypes', async () => {
    expect(await code(prog([step('template', { template: '{{a.constructor}}', vars: { a: {} } })]))).toBe('FORBIDDEN_NAME')
    expect(await one('template', { template: '[{{a.toString}}]', vars: { a: {} } })).toBe('[]')
  })
  test('regexMatch returns the match array or null', async () => {
    expect(await one('regexMatch', { pattern: '(\\w+)@(\\w+)', value: 'mail ada@example now' })).toEqual(['ada@example', 'ada', 'example'])
    expect(await one('regexMatch', { pattern: 'x', value: 'abc' })).toBe(null)
    expect(await one('regexMatch', { pattern: 'ABC', value: 'xabc', flags: 'i' })).toEqual(['abc'])
    expect(await one('regexMatch', { pattern: re('b+'), value: 'abbbc' })).toEqual(['bbb'])
  })
  test('regexMatch is ReDoS-guarded, also for pattern strings and long inputs', async () => {
    // Exponential shapes run on the linear engine: a correct answer, not a hang.
    expect(await one('regexMatch', { pattern: '(a*)*b', value: 'aaaa' })).toBeNull()
    expect(await one('regexMatch', { pattern: '(a*)*b', value: 'aab' })).toEqual(['aab', 'aa']) // as JavaScript
    expect(await code(prog([step('regexMatch', { pattern: '(a)\\1', value: 'aa' })]))).toBe('REGEX_UNSAFE')
    expect(await code(prog([step('regexMatch', { pattern: 'a', value: 'a', flags: 'x' })]))).toBe('REGEX_UNSAFE')
    expect(await code(progArgs(['s'], [step('regexMatch', { pattern: 'a', value: id('s') })]), { s: 'b'.repeat(10_000_001) }, { fuel: 1e6 })).toBe('REGEX_UNSAFE')
  })
  test('string methods given a pattern string are guarded too', async () => {
    expect(await code(prog([ret({ $expr: 'methodCall', object: lit('aaa'), method: 'match', args: [lit('(a)\\1')] })]))).toBe('REGEX_UNSAFE')
    const r = await run(prog([ret({ $expr: 'methodCall', object: lit('aaa'), method: 'match', args: [lit('(a+)+')] })]))
    expect(r.result).toEqual(['aaa', 'aaa'])
  })
})

describe('jsonParse and jsonStringify', () => {
  test('round trip', async () => {
    expect(await one('jsonParse', { text: '{"a":[1,2,{"b":null}]}' })).toEqual({ a: [1, 2, { b: null }] })
    expect(await one('jsonStringify', { value: { a: [1, 'x'] } })).toBe('{"a":[1,"x"]}')
    expect(await one('jsonStringify', { value: { a: 1 }, indent: 2 })).toBe('{\n  "a": 1\n}')
  })
  test('invalid JSON is JSON_ERROR', async () => {
    expect(await code(prog([step('jsonParse', { text: '{bad' })]))).toBe('JSON_ERROR')
    expect(await code(prog([step('jsonParse', { text: 5 })]))).toBe('JSON_ERROR')
  })
  test('forbidden keys are stripped when parsing', async () => {
    const r = await one('jsonParse', { text: '{"__proto__":{"polluted":1},"constructor":1,"ok":{"prototype":2,"x":3}}' })
    expect(r).toEqual({ ok: { x: 3 } })
    expect(({} as any).polluted).toBe(undefined)
  })
  test('JSON.parse / JSON.stringify builtins behave the same', async () => {
    expect(await value(prog([ret({ $expr: 'methodCall', object: id('JSON'), method: 'stringify', args: [{ $expr: 'methodCall', object: id('JSON'), method: 'parse', args: [lit('[1,{"a":2}]')] }] })]))).toBe('[1,{"a":2}]')
  })
  test('stringify of undefined gives null as the step value', async () => {
    expect(await one('jsonStringify', { value: id('undefined') })).toBe(null)
  })
})

describe('collection atoms as expressions', () => {
  test('call(...) with one object argument', async () => {
    const ast = progArgs(['o'], [ret(arr(
      call('keys', obj({ object: id('o') })),
      call('pick', obj({ object: id('o'), keys: lit(['b']) })),
      call('join', obj({ items: lit(['a', 'b']), separator: lit('+') })),
    ))])
    expect(await value(ast, { o: { a: 1, b: 2 } })).toEqual([['a', 'b'], { b: 2 }, 'a+b'])
  })
  test('a missing required field of an atom step is refused by validation', async () => {
    const r = await run(prog([{ op: 'join' }]))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/0/items')
  })
  test('an unknown field of an atom step is refused', async () => {
    const r = await run(prog([{ op: 'len', value: [], extra: 1 }]))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/0/extra')
  })
})
