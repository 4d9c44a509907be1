/**
 * Equivalence suite: each program is written as AJS source and with the
 * builder. The ASTs must be structurally identical (ignoring the
 * transpiler's `loc`/`file`) and both must run to the same result.
 */
import { describe, expect, test } from 'bun:test'
import { Agent, e } from '../../src/builder/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/full-vm.ts'
import { canon, fn } from './helpers.ts'

interface Case {
  name: string
  src: string
  build: () => { toJSON(): unknown }
  args?: Record<string, unknown>
  expected: unknown
}

const CASES: Case[] = [
  { name: 'return a literal', src: 'function f() { return 42 }', build: () => fn('f').return(42), expected: 42 },
  { name: 'return a string', src: `function f() { return 'hi' }`, build: () => fn('f').return('hi'), expected: 'hi' },
  { name: 'return a parameter', src: 'function f({ a }) { return a }', build: () => fn('f', 'a').return(e.ident('a')), args: { a: 7 }, expected: 7 },
  { name: 'arithmetic', src: 'function f({ a, b }) { return a * b + 1 }', build: () => fn('f', 'a', 'b').return(e.parse('a * b + 1')), args: { a: 3, b: 4 }, expected: 13 },
  { name: 'hand-built binary', src: 'function f({ a }) { return a + 1 }', build: () => fn('f', 'a').return(e.binary('+', e.ident('a'), 1)), args: { a: 1 }, expected: 2 },
  { name: 'let', src: 'function f() { let x = 1\n return x }', build: () => fn('f').let('x', 1).return(e.ident('x')), expected: 1 },
  { name: 'let two at once', src: 'function f() { let x = 1, y = x + 1\n return y }', build: () => fn('f').let({ x: 1, y: e.parse('x + 1') }).return(e.ident('y')), expected: 2 },
  { name: 'let without value', src: 'function f() { let x\n return x }', build: () => fn('f').let('x').return(e.ident('x')), expected: null },
  { name: 'const', src: 'function f({ a }) { const d = a * 2\n return d }', build: () => fn('f', 'a').const('d', e.parse('a * 2')).return(e.ident('d')), args: { a: 5 }, expected: 10 },
  { name: 'assignment', src: 'function f() { let x = 1\n x = x + 10\n return x }', build: () => fn('f').let('x', 1).set('x', e.parse('x + 10')).return(e.ident('x')), expected: 11 },
  { name: 'compound assignment', src: 'function f() { let x = 2\n x *= 5\n return x }', build: () => fn('f').let('x', 2).expr('x *= 5').return(e.ident('x')), expected: 10 },
  { name: 'update expression', src: 'function f() { let i = 0\n i++\n ++i\n return i }', build: () => fn('f').let('i', 0).expr('i++').expr('++i').return(e.ident('i')), expected: 2 },
  { name: 'if without else', src: 'function f({ a }) { if (a > 1) { return 1 }\n return 0 }', build: () => fn('f', 'a').if('a > 1', (b) => b.return(1)).return(0), args: { a: 2 }, expected: 1 },
  { name: 'if / else', src: `function f({ a }) { if (a > 1) { return 'big' } else { return 'small' } }`, build: () => fn('f', 'a').if('a > 1', (b) => b.return('big'), (b) => b.return('small')), args: { a: 0 }, expected: 'small' },
  { name: 'else if chain', src: `function f({ n }) { if (n < 0) { return 'neg' } else if (n === 0) { return 'zero' } else { return 'pos' } }`,
    build: () => fn('f', 'n').if('n < 0', (b) => b.return('neg'), (b) => b.if('n === 0', (c) => c.return('zero'), (c) => c.return('pos'))), args: { n: 0 }, expected: 'zero' },
  { name: 'if with e.* condition', src: 'function f({ a }) { if (!a) { return 1 }\n return 2 }', build: () => fn('f', 'a').if(e.not(e.ident('a')), (b) => b.return(1)).return(2), args: { a: false }, expected: 1 },
  { name: 'while', src: 'function f({ n }) { let i = 0, s = 0\n while (i < n) { s += i\n i++ }\n return s }',
    build: () => fn('f', 'n').let({ i: 0, s: 0 }).while('i < n', (b) => b.expr('s += i').expr('i++')).return(e.ident('s')), args: { n: 5 }, expected: 10 },
  { name: 'do...while', src: 'function f() { let i = 0\n do { i += 3 } while (i < 10)\n return i }',
    build: () => fn('f').let('i', 0).doWhile('i < 10', (b) => b.expr('i += 3')).return(e.ident('i')), expected: 12 },
  { name: 'for loop', src: 'function f({ n }) { let s = 0\n for (let i = 1; i <= n; i++) { s += i }\n return s }',
    build: () => fn('f', 'n').let('s', 0).for({ init: (b) => b.let('i', 1), condition: 'i <= n', update: 'i++', body: (b) => b.expr('s += i') }).return(e.ident('s')), args: { n: 4 }, expected: 10 },
  { name: 'Promise.all over a map is parallelMap', src: 'function f({ xs }) { return Promise.all(xs.map((x, i) => x * 10 + i)) }',
    build: () => fn('f', 'xs').parallelMap(e.ident('xs'), 'x', (b) => b.return(e.parse('x * 10 + i')), { index: 'i' }).as('all$1').return(e.ident('all$1')), args: { xs: [1, 2] }, expected: [10, 21] },
  { name: 'Promise.all over an array is parallel', src: 'function f({ a }) { const [x, y] = Promise.all([a + 1, a + 2])\n return y }',
    build: () => fn('f', 'a').parallel((b) => b.return(e.parse('a + 1')), (b) => b.return(e.parse('a + 2'))).as('all$1').destructure('const', { $pattern: 'array', elements: ['x', 'y'] }, e.ident('all$1')).return(e.ident('y')), args: { a: 1 }, expected: 3 },
  { name: 'for...of', src: 'function f({ xs }) { let s = 0\n for (const x of xs) { s += x }\n return s }',
    build: () => fn('f', 'xs').let('s', 0).forOf('x', 'xs', (b) => b.expr('s += x')).return(e.ident('s')), args: { xs: [1, 2, 3] }, expected: 6 },
  { name: 'for...of with let', src: 'function f({ xs }) { let out = []\n for (let x of xs) { x = x * 2\n out.push(x) }\n return out }',
    build: () => fn('f', 'xs').let('out', e.array()).forOf('x', 'xs', (b) => b.set('x', e.parse('x * 2')).expr('out.push(x)'), { kind: 'let' }).return(e.ident('out')), args: { xs: [1, 2] }, expected: [2, 4] },
  { name: 'for...of destructuring', src: 'function f({ pairs }) { let s = 0\n for (const [k, v] of pairs) { s += v }\n return s }',
    build: () => fn('f', 'pairs').let('s', 0).forOf({ $pattern: 'array', elements: ['k', 'v'] }, 'pairs', (b) => b.expr('s += v')).return(e.ident('s')), args: { pairs: [['a', 1], ['b', 2]] }, expected: 3 },
  { name: 'for...in', src: 'function f({ o }) { let ks = []\n for (const k in o) { ks.push(k) }\n return ks }',
    build: () => fn('f', 'o').let('ks', e.array()).forIn('k', 'o', (b) => b.expr('ks.push(k)')).return(e.ident('ks')), args: { o: { a: 1, b: 2 } }, expected: ['a', 'b'] },
  { name: 'break', src: 'function f() { let i = 0\n while (true) { i++\n if (i > 3) { break } }\n return i }',
    build: () => fn('f').let('i', 0).while('true', (b) => b.expr('i++').if('i > 3', (c) => c.break())).return(e.ident('i')), expected: 4 },
  { name: 'continue', src: 'function f({ xs }) { let s = 0\n for (const x of xs) { if (x % 2 === 0) { continue }\n s += x }\n return s }',
    build: () => fn('f', 'xs').let('s', 0).forOf('x', 'xs', (b) => b.if('x % 2 === 0', (c) => c.continue()).expr('s += x')).return(e.ident('s')), args: { xs: [1, 2, 3, 4, 5] }, expected: 9 },
  { name: 'labelled break', src: 'function f() { let n = 0\n outer: for (const a of [1, 2, 3]) { for (const b of [1, 2, 3]) { if (b === 2) { continue outer }\n if (a === 3) { break outer }\n n++ } }\n return n }',
    build: () => fn('f').let('n', 0).forOf('a', '[1, 2, 3]', (b) => b.forOf('b', '[1, 2, 3]', (c) => c.if('b === 2', (d) => d.continue('outer')).if('a === 3', (d) => d.break('outer')).expr('n++')), { label: 'outer' }).return(e.ident('n')), expected: 2 },
  { name: 'switch', src: `function f({ k }) { let r = ''\n switch (k) { case 1: r = 'one'\n break\n case 2: r = 'two'\n break\n default: r = 'many' }\n return r }`,
    build: () => fn('f', 'k').let('r', '').switch('k', [
      { test: '1', body: (b) => b.set('r', 'one').break() },
      { test: '2', body: (b) => b.set('r', 'two').break() },
      { body: (b) => b.set('r', 'many') },
    ]).return(e.ident('r')), args: { k: 2 }, expected: 'two' },
  { name: 'try / catch', src: `function f() { try { throw 'boom' } catch (err) { return 'caught ' + err } }`,
    build: () => fn('f').try({ try: (b) => b.throw('boom'), catchParam: 'err', catch: (b) => b.return(e.parse(`'caught ' + err`)) }), expected: 'caught boom' },
  { name: 'try / finally', src: 'function f() { let log = []\n try { log.push(1) } finally { log.push(2) }\n return log }',
    build: () => fn('f').let('log', e.array()).try({ try: (b) => b.expr('log.push(1)'), finally: (b) => b.expr('log.push(2)') }).return(e.ident('log')), expected: [1, 2] },
  { name: 'try / catch / finally', src: `function f() { let s = ''\n try { s += 'a'\n throw new Error('x') } catch (e) { s += e.message } finally { s += '!' }\n return s }`,
    build: () => fn('f').let('s', '').try({ try: (b) => b.expr(`s += 'a'`).throw(e.parse(`new Error('x')`)), catchParam: 'e', catch: (b) => b.expr('s += e.message'), finally: (b) => b.expr(`s += '!'`) }).return(e.ident('s')), expected: 'ax!' },
  // Without catchParam the builder binds the error as `error`, as the seed's builder does.
  { name: 'catch without catchParam is catch (error)', src: 'function f() { try { throw 1 } catch (error) { return error } }',
    build: () => fn('f').try({ try: (b) => b.throw(1), catch: (b) => b.return(e.ident('error')) }), expected: 1 },
  { name: 'block scope', src: 'function f() { let x = 1\n { let x = 2\n x++ }\n return x }',
    build: () => fn('f').let('x', 1).scope((b) => b.let('x', 2).expr('x++')).return(e.ident('x')), expected: 1 },
  { name: 'template literal', src: 'function f({ name }) { return `Hello, ${name}!` }', build: () => fn('f', 'name').return(e.parse('`Hello, ${name}!`')), args: { name: 'Ada' }, expected: 'Hello, Ada!' },
  { name: 'hand-built template', src: 'function f({ name }) { return `Hi ${name}` }', build: () => fn('f', 'name').return(e.template(['Hi ', ''], e.ident('name'))), args: { name: 'Bo' }, expected: 'Hi Bo' },
  { name: 'object literal', src: 'function f({ a }) { return { a, b: a + 1 } }', build: () => fn('f', 'a').return(e.parse('{ a, b: a + 1 }')), args: { a: 1 }, expected: { a: 1, b: 2 } },
  { name: 'hand-built object', src: `function f({ a }) { return { x: a, y: 'k' } }`, build: () => fn('f', 'a').return(e.object({ x: e.ident('a'), y: 'k' })), args: { a: 3 }, expected: { x: 3, y: 'k' } },
  { name: 'array + spread', src: 'function f({ xs }) { return [0, ...xs, 9] }', build: () => fn('f', 'xs').return(e.array(0, e.spread(e.ident('xs')), 9)), args: { xs: [1, 2] }, expected: [0, 1, 2, 9] },
  { name: 'member path', src: 'function f({ user }) { return user.address.city }', build: () => fn('f', 'user').return(e.path('user.address.city')), args: { user: { address: { city: 'Oslo' } } }, expected: 'Oslo' },
  { name: 'computed member', src: 'function f({ xs, i }) { return xs[i] }', build: () => fn('f', 'xs', 'i').return(e.member(e.ident('xs'), e.ident('i'))), args: { xs: [5, 6], i: 1 }, expected: 6 },
  { name: 'optional chaining', src: 'function f({ o }) { return o?.a?.b ?? 0 }', build: () => fn('f', 'o').return(e.parse('o?.a?.b ?? 0')), args: { o: null }, expected: 0 },
  { name: 'conditional', src: `function f({ n }) { return n > 0 ? 'pos' : 'other' }`, build: () => fn('f', 'n').return(e.cond(e.binary('>', e.ident('n'), 0), 'pos', 'other')), args: { n: 1 }, expected: 'pos' },
  { name: 'logical operators', src: 'function f({ a, b }) { return a && b || !a }', build: () => fn('f', 'a', 'b').return(e.logical('||', e.logical('&&', e.ident('a'), e.ident('b')), e.not(e.ident('a')))), args: { a: true, b: false }, expected: false },
  { name: 'method call', src: 'function f({ s }) { return s.trim().toUpperCase() }', build: () => fn('f', 's').return(e.method(e.method(e.ident('s'), 'trim'), 'toUpperCase')), args: { s: ' ab ' }, expected: 'AB' },
  { name: 'array callbacks', src: 'function f({ xs }) { return xs.filter(x => x > 1).map(x => x * 10) }', build: () => fn('f', 'xs').return(e.parse('xs.filter(x => x > 1).map(x => x * 10)')), args: { xs: [1, 2, 3] }, expected: [20, 30] },
  { name: 'global function', src: `function f({ s }) { return parseInt(s) + 1 }`, build: () => fn('f', 's').return(e.binary('+', e.call('parseInt', e.ident('s')), 1)), args: { s: '41' }, expected: 42 },
  { name: 'atom call in an expression', src: 'function f({ xs }) { const n = len({ value: xs })\n return n }',
    build: () => fn('f', 'xs').const('n', e.call('len', e.object({ value: e.ident('xs') }))).return(e.ident('n')), args: { xs: [1, 2, 3] }, expected: 3 },
  { name: 'Math namespace', src: 'function f({ a, b }) { return Math.max(a, b) }', build: () => fn('f', 'a', 'b').return(e.method(e.ident('Math'), 'max', e.ident('a'), e.ident('b'))), args: { a: 2, b: 9 }, expected: 9 },
  { name: 'destructuring declaration', src: 'function f({ o }) { const { a, b } = o\n return a + b }',
    build: () => fn('f', 'o').destructure('const', { $pattern: 'object', properties: [{ key: 'a', value: 'a' }, { key: 'b', value: 'b' }] }, e.ident('o')).return(e.parse('a + b')), args: { o: { a: 1, b: 2 } }, expected: 3 },
  { name: 'swap by destructuring assignment', src: 'function f() { let a = 1, b = 2;\n [a, b] = [b, a]\n return [a, b] }',
    build: () => fn('f').let({ a: 1, b: 2 }).destructure('assign', { $pattern: 'array', elements: ['a', 'b'] }, e.parse('[b, a]')).return(e.parse('[a, b]')), expected: [2, 1] },
  { name: 'throw an error value', src: `function f() { throw new Error('bad') }`, build: () => fn('f').throw(e.call('Error', 'bad')), expected: undefined },
  { name: 'parameter default', src: 'function f({ n = 3 }) { return n * 2 }',
    build: () => Agent.take({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }).meta({ name: 'f' }).return(e.parse('n * 2')), args: {}, expected: 6 },
  { name: 'JSDoc-typed parameter', src: '/** @param {string} name */\nfunction f({ name }) { return name.length }',
    build: () => Agent.take({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }).meta({ name: 'f' }).return(e.parse('name.length')), args: { name: 'abc' }, expected: 3 },
  { name: 'vars mapping in if', src: `function f({ error }) { if (error.message.includes('timeout')) { return 'retry' }\n return 'fail' }`,
    build: () => fn('f', 'error').if(`msg.includes('timeout')`, { msg: 'error.message' }, (b) => b.return('retry')).return('fail'), args: { error: { message: 'a timeout' } }, expected: 'retry' },
  { name: 'vars mapping in while', src: 'function f({ state }) { let n = 0\n while (n < state.limit) { n++ }\n return n }',
    build: () => fn('f', 'state').let('n', 0).while('n < max', { max: 'state.limit' }, (b) => b.expr('n++')).return(e.ident('n')), args: { state: { limit: 3 } }, expected: 3 },
]

describe('builder / transpiler equivalence', () => {
  const vm = new AgentVM()
  test('at least 40 programs', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40)
  })
  for (const c of CASES) {
    test(c.name, async () => {
      const fromSource = transpile(c.src).ast
      const fromBuilder = c.build().toJSON()
      expect(canon(fromBuilder)).toBe(canon(fromSource))
      const [a, b] = await Promise.all([vm.run(fromSource, c.args ?? {}), vm.run(fromBuilder, c.args ?? {})])
      expect(b.result).toEqual(a.result)
      expect(b.error?.code).toBe(a.error?.code)
      expect(b.fuelUsed).toBe(a.fuelUsed)
      if (c.expected !== undefined) expect(b.result).toEqual(c.expected)
      else expect(b.error).toBeDefined()
    })
  }
})
