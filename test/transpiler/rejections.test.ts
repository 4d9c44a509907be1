/**
 * The rejection suite: every construct AJS refuses, with its stable code,
 * its position (line 1-based, column 0-based) and a hint with a rewrite.
 *
 * Snippets are placed on line 2 of `function agent({ x, xs }) { ... }`;
 * `at` is the text the error must point at (column = 2 + its offset).
 */
import { describe, expect, test } from 'bun:test'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { ajs, transpile, transpileExpression } from '../../src/transpiler/index.ts'

interface Case { name: string; code: string; snippet: string; at: string; hint: string }

const wrap = (snippet: string): string => `function helper(v) { return v }\nfunction agent({ x, xs }) {\n  ${snippet}\n  return {}\n}\n`
const LINE = 3
const INDENT = 2

const CASES: Case[] = [
  { name: 'class declaration', code: 'AJS2001', snippet: 'class A {}', at: 'class A', hint: 'plain objects' },
  { name: 'class expression', code: 'AJS2001', snippet: 'let A = class {}', at: 'class {}', hint: 'plain objects' },
  { name: 'new', code: 'AJS2002', snippet: 'let d = new Foo()', at: 'new Foo', hint: 'new Error(msg)' },
  { name: 'a Date as a value', code: 'AJS2042', snippet: 'let d = [new Date()]', at: 'new Date', hint: '.toISOString()' },
  { name: 'new Map', code: 'AJS2034', snippet: 'let d = new WeakMap()', at: 'new WeakMap', hint: 'use a Map or a Set' },
  { name: 'a Map as a value', code: 'AJS2045', snippet: 'let d = [new Map()]', at: 'new Map', hint: '[...' },
  { name: 'new Array(n)', code: 'AJS2041', snippet: 'let d = new Array(3)', at: 'new Array', hint: 'new Array(n).fill(0)' },
  { name: 'Array(n)', code: 'AJS2041', snippet: 'let d = Array(3).fill(0, 1)', at: 'Array(3)', hint: 'Array.from({ length: n }, () => 0)' },
  { name: 'this', code: 'AJS2003', snippet: 'let t = this.x', at: 'this', hint: 'parameter' },
  { name: 'async arrow callback', code: 'AJS2004', snippet: 'let r = xs.map(async (v) => v)', at: 'async', hint: 'Remove `async`' },
  { name: 'await outside an async function', code: 'AJS2005', snippet: 'let r = await x', at: 'await', hint: 'Mark the function `async`' },
  { name: 'for await outside an async function', code: 'AJS2005', snippet: 'for await (const v of xs) {}', at: 'await', hint: 'Mark the function `async`' },
  { name: 'Promise.all inside an expression', code: 'AJS2036', snippet: 'let r = [Promise.all([helper(1)])]', at: 'Promise.all', hint: 'own statement' },
  { name: 'Promise.all of a variable', code: 'AJS2037', snippet: 'let r = Promise.all(xs)', at: 'xs)', hint: 'items.map((item)' },
  { name: 'Promise.all with a spread', code: 'AJS2037', snippet: 'let r = Promise.all([...xs])', at: '...xs', hint: 'items.map((item)' },
  { name: 'Promise.all callback with the array parameter', code: 'AJS2037', snippet: 'let r = Promise.all(xs.map((v, i, all) => v))', at: 'all) =>', hint: 'items.map((item)' },
  { name: 'Promise.race', code: 'AJS2038', snippet: 'let r = Promise.race([helper(1)])', at: 'Promise.race', hint: 'Promise.all' },
  { name: 'Promise as a value', code: 'AJS3001', snippet: 'let p = Promise', at: 'Promise', hint: 'Promise.all' },
  { name: 'Promise.all callback assigns an outer variable', code: 'AJS3011', snippet: 'let n = 0; let r = Promise.all(xs.map((v) => { n += v; return v }))', at: 'n += v', hint: 'Return the value' },
  { name: 'yield', code: 'AJS2006', snippet: 'let y = yield', at: 'yield', hint: 'array' },
  { name: 'eval', code: 'AJS2007', snippet: "let r = eval('1')", at: 'eval', hint: 'JSON.parse' },
  { name: 'Function', code: 'AJS2008', snippet: "let F = Function('return 1')", at: 'Function', hint: 'helper function' },
  { name: 'dynamic import', code: 'AJS2009', snippet: "let m = import('x')", at: 'import', hint: 'same source' },
  { name: 'with', code: 'AJS2010', snippet: 'with (x) {}', at: 'with', hint: 'obj.a' },
  { name: 'getter', code: 'AJS2011', snippet: 'let o = { get a() { return 1 } }', at: 'get a', hint: 'plain property' },
  { name: 'setter', code: 'AJS2011', snippet: 'let o = { set a(v) {} }', at: 'set a', hint: 'plain property' },
  { name: '__proto__ member', code: 'AJS2012', snippet: 'let p = x.__proto__', at: '__proto__', hint: 'Rename' },
  { name: 'constructor member', code: 'AJS2012', snippet: 'let c = x.constructor', at: 'constructor', hint: 'Rename' },
  { name: 'prototype computed', code: 'AJS2012', snippet: "let q = x['prototype']", at: "'prototype'", hint: 'Rename' },
  { name: '__proto__ key', code: 'AJS2012', snippet: 'let o = { __proto__: null }', at: '__proto__', hint: 'Rename' },
  { name: 'constructor binding', code: 'AJS2012', snippet: 'let constructor = 1', at: 'constructor', hint: 'Rename' },
  { name: 'prototype method call', code: 'AJS2012', snippet: 'let r = x.constructor()', at: 'constructor', hint: 'Rename' },
  { name: 'forbidden destructuring key', code: 'AJS2012', snippet: 'let { __proto__: p } = x', at: '__proto__', hint: 'Rename' },
  { name: 'closure in a reassigned variable', code: 'AJS2013', snippet: 'let f = () => 1; f = null', at: '() => 1', hint: 'array method that takes a callback' },
  { name: 'closure returned', code: 'AJS2013', snippet: 'return () => 1', at: '() => 1', hint: 'helper function' },
  { name: 'closure to non-array method', code: 'AJS2013', snippet: "let s = 'a'.padStart(3, () => 'b')", at: "() => 'b'", hint: 'Array.from(x, (v, i) => ...)' },
  { name: 'replacement callback of five parameters', code: 'AJS2049', snippet: "let s = 'a'.replace('a', (m, a, b, c, d) => 'b')", at: "(m, a, b, c, d)", hint: 'm.groups' },
  { name: 'closure in object', code: 'AJS2013', snippet: 'let o = { f: (v) => v }', at: '(v) => v', hint: 'helper function' },
  // One inside a local function is lifted too (local-functions-nested.test.ts); one declared twice is not (the second is the one its name means).
  { name: 'function declared twice inside a local function', code: 'AJS2014', snippet: 'function outer() { function inner() {} function inner() {} }', at: 'function inner', hint: 'top level' },
  { name: 'local function as a value', code: 'AJS2050', snippet: 'function f() { return x }; let o = { f }', at: 'f }', hint: 'xs.map(f)' },
  { name: 'var', code: 'AJS2015', snippet: 'var a = 1', at: 'var', hint: 'let a' },
  { name: 'var in for', code: 'AJS2015', snippet: 'for (var i = 0; i < 1; i++) {}', at: 'var', hint: 'let i' },
  { name: 'sparse array', code: 'AJS2016', snippet: 'let a = [1, , 2]', at: '[1, , 2]', hint: 'undefined' },
  { name: 'arguments', code: 'AJS2017', snippet: 'let n = arguments.length', at: 'arguments', hint: 'Name the parameters' },
  { name: 'labelled block', code: 'AJS2018', snippet: 'lbl: { }', at: 'lbl', hint: 'loop' },
  { name: 'labelled if', code: 'AJS2018', snippet: 'lbl: if (x) {}', at: 'lbl', hint: 'loop' },
  { name: 'instanceof', code: 'AJS2019', snippet: 'let r = xs instanceof Object', at: 'xs instanceof', hint: 'Array.isArray' },
  { name: 'instanceof of a call', code: 'AJS2019', snippet: 'let r = helper(1) instanceof Error', at: 'helper(1) instanceof', hint: 'store a call' },
  { name: 'tagged template', code: 'AJS2020', snippet: 'let r = String.raw`a`', at: 'String.raw`', hint: 'template literal `` `...${x}` ``' },
  { name: 'debugger', code: 'AJS2021', snippet: 'debugger', at: 'debugger', hint: 'consoleLog' },
  { name: 'function expression', code: 'AJS2022', snippet: 'let o = { g: function () {} }', at: 'function ()', hint: 'arrow' },
  { name: 'object method', code: 'AJS2023', snippet: 'let o = { m() { return 1 } }', at: 'm()', hint: 'function m' },
  { name: 'optional call', code: 'AJS2024', snippet: 'let r = x.f?.()', at: 'x.f?.()', hint: 'a?.b()' },
  { name: 'computed method call', code: 'AJS2025', snippet: 'let r = x[x.k]()', at: 'x.k]', hint: 'obj.method()' },
  { name: 'call of a call', code: 'AJS2025', snippet: 'let r = helper(1)(2)', at: 'helper(1)(2)', hint: 'helper(x)' },
  { name: 'delete of non-property', code: 'AJS2026', snippet: 'let r = delete 1', at: 'delete', hint: 'delete obj.key' },
  { name: 'bigint', code: 'AJS2027', snippet: 'let b = 10n', at: '10n', hint: 'number' },
  { name: 'parenthesized chain', code: 'AJS2028', snippet: 'let r = (x?.a).b', at: 'x?.a', hint: 'a?.b.c' },
  { name: 'new.target', code: 'AJS2029', snippet: 'let t = new.target', at: 'new.target', hint: 'parameter' },
  { name: 'function callback', code: 'AJS2031', snippet: 'let r = xs.map(function (v) { return v })', at: 'function (v)', hint: 'xs.map(x =>' },
  { name: 'atom as callback', code: 'AJS2031', snippet: 'let r = xs.map(httpFetch)', at: 'httpFetch)', hint: 'xs.map(x =>' },
  { name: 'rest element in object pattern', code: 'AJS2032', snippet: 'let o = {}; ({ ...o.a } = x)', at: '...o.a', hint: '{ a, b }' },
  { name: 'undeclared read', code: 'AJS3001', snippet: 'let r = y + 1', at: 'y + 1', hint: 'let y' },
  { name: 'misspelled variable', code: 'AJS3001', snippet: 'let total = 1; let r = totl', at: 'totl', hint: 'Did you mean `total`?' },
  { name: 'host global', code: 'AJS3001', snippet: 'let p = process.env', at: 'process', hint: 'run arguments' },
  { name: 'undeclared assignment', code: 'AJS3001', snippet: 'y = 1', at: 'y = 1', hint: 'let y' },
  // Without an atom table a one-object call is a late-bound atom (test/transpiler/late-atoms.test.ts); two arguments cannot be.
  { name: 'unknown function', code: 'AJS3002', snippet: "let r = htpFetch({ url: 'u' }, 2)", at: 'htpFetch', hint: 'Did you mean `httpFetch`?' },
  { name: 'unknown helper', code: 'AJS3002', snippet: 'let r = helpr(1)', at: 'helpr', hint: 'Did you mean `helper`?' },
  { name: 'const assignment', code: 'AJS3003', snippet: 'const c = 1; c = 2', at: 'c = 2', hint: 'let c' },
  { name: 'const compound assignment', code: 'AJS3003', snippet: 'const c = 1; c += 2', at: 'c += 2', hint: 'let c' },
  { name: 'const update', code: 'AJS3003', snippet: 'const c = 1; c++', at: 'c++', hint: 'let c' },
  { name: 'const for-of reassignment', code: 'AJS3003', snippet: 'for (const v of xs) { v = 1 }', at: 'v = 1', hint: 'let v' },
  { name: 'const destructuring assignment', code: 'AJS3003', snippet: 'const c = 1; [c] = xs', at: 'c] = xs', hint: 'let c' },
  { name: 'variable called', code: 'AJS3004', snippet: "let len = 1; let r = len({ value: 'a' })", at: 'len({', hint: 'Rename' },
  { name: 'assign to undefined', code: 'AJS3005', snippet: 'undefined = 1', at: 'undefined = 1', hint: 'let' },
  { name: 'assign to namespace', code: 'AJS3005', snippet: 'Math = 1', at: 'Math = 1', hint: 'let' },
  { name: 'assign to helper', code: 'AJS3005', snippet: 'helper = 1', at: 'helper = 1', hint: 'let' },
  { name: 'helper as value', code: 'AJS3006', snippet: 'let g = helper', at: 'helper', hint: 'helper(...)' },
  { name: 'use before declaration', code: 'AJS3007', snippet: 'let r = z; let z = 1', at: 'z; let', hint: 'Move the declaration' },
  { name: 'self-reference in initializer', code: 'AJS3007', snippet: 'let n = n + 1', at: 'n + 1', hint: 'Move the declaration' },
  { name: 'for-of iterable in dead zone', code: 'AJS3007', snippet: 'let v = [1]; for (const v of v) {}', at: 'v) {}', hint: 'Move the declaration' },
  { name: 'name from another case', code: 'AJS3007', snippet: 'switch (x) { case 1: let q = 1; break; case 2: q = 2 }', at: 'q = 2', hint: 'braces' },
  { name: 'atom unknown field', code: 'AJS3008', snippet: "let r = llmPredict({ promt: 'x' })", at: "promt: 'x'", hint: 'llmPredict({ prompt' },
  { name: 'atom missing field', code: 'AJS3008', snippet: 'let r = httpFetch({})', at: 'httpFetch({})', hint: 'httpFetch({ url' },
  { name: 'atom two arguments', code: 'AJS3008', snippet: "let r = httpFetch('a', 'b')", at: 'httpFetch(', hint: 'one object' },
  { name: 'namespace as value', code: 'AJS3009', snippet: 'let m = Math', at: 'Math', hint: 'Math.max' },
  { name: 'syntax error', code: 'AJS1001', snippet: 'let = ;', at: 'let = ;', hint: 'syntax' },
]

function catchError(fn: () => unknown): TranspileError {
  try {
    fn()
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error('expected a TranspileError')
}

describe('rejected constructs (code, line, column, hint)', () => {
  for (const c of CASES) {
    test(`${c.code} ${c.name}`, () => {
      const offset = c.snippet.indexOf(c.at)
      expect(offset).toBeGreaterThanOrEqual(0)
      const err = catchError(() => transpile(wrap(c.snippet), { filename: 'agent.ajs' }))
      expect({ code: err.code, line: err.line, column: err.column }).toEqual({ code: c.code, line: LINE, column: INDENT + offset })
      expect(err.hint).toContain(c.hint)
      expect(err.file).toBe('agent.ajs')
    })
  }
})

interface TopCase { name: string; code: string; source: string; line: number; column: number; hint: string }

const TOP: TopCase[] = [
  { name: 'no function', code: 'AJS1002', source: '// nothing\n', line: 1, column: 0, hint: 'function agent' },
  { name: 'top-level statement', code: 'AJS1003', source: 'console.log(1)\nfunction f() { return {} }', line: 1, column: 0, hint: 'function body' },
  { name: 'top-level var', code: 'AJS2015', source: 'var x = 1\nfunction f() { return {} }', line: 1, column: 0, hint: 'let x' },
  { name: 'entry with array param', code: 'AJS1004', source: 'function f([a, b]) { return {} }', line: 1, column: 11, hint: 'function f({' },
  { name: 'rest param of a callback', code: 'AJS1005', source: 'function h(xs) { return xs.map((...v) => v) }\nfunction f() { return {} }', line: 1, column: 32, hint: 'array' },
  { name: 'async helper returned by a function that is not async', code: 'AJS2039', source: 'async function h() { return 1 }\nfunction f() { return h() }', line: 2, column: 22, hint: 'await h(' },
  { name: 'async helper called without await', code: 'AJS2039', source: 'async function h() { return 1 }\nasync function f() { return { v: h() } }', line: 2, column: 33, hint: 'await h(' },
  { name: 'generator', code: 'AJS2006', source: 'function* f() { return {} }', line: 1, column: 0, hint: 'array' },
  { name: 'import', code: 'AJS2009', source: "import x from 'y'\nfunction f() { return {} }", line: 1, column: 0, hint: 'same source' },
  { name: 'export', code: 'AJS2009', source: 'export function f() { return {} }', line: 1, column: 0, hint: 'same source' },
  { name: 'top-level class', code: 'AJS2001', source: 'class A {}\nfunction f() { return {} }', line: 1, column: 0, hint: 'plain objects' },
]

describe('rejected program shapes', () => {
  for (const c of TOP) {
    test(`${c.code} ${c.name}`, () => {
      const err = catchError(() => transpile(c.source))
      expect({ code: err.code, line: err.line, column: err.column }).toEqual({ code: c.code, line: c.line, column: c.column })
      expect(err.hint).toContain(c.hint)
    })
  }

  test('AJS1006 trailing text after an expression', () => {
    const err = catchError(() => transpileExpression('a b', { vars: ['a', 'b'] }))
    expect({ code: err.code, line: err.line, column: err.column }).toEqual({ code: 'AJS1006', line: 1, column: 2 })
    expect(err.hint).toContain('one expression')
  })

  test('AJS1007 interpolation in the ajs tag', () => {
    const n = 1
    const err = catchError(() => ajs`function f() {
  return { n: ${n} }
}`)
    expect({ code: err.code, line: err.line, column: err.column }).toEqual({ code: 'AJS1007', line: 2, column: 14 })
    expect(err.hint).toContain('run arguments')
  })
})

describe('error text', () => {
  test('toString has the header, a code frame and the hint', () => {
    const err = catchError(() => transpile('function f({ x }) {\n  let y = new Foo(x)\n  return { y }\n}', { filename: 'a.ajs' }))
    expect(err.toString()).toBe(
      [
        'a.ajs:2:11: error AJS2002: `new Foo` is not supported',
        '  1 | function f({ x }) {',
        '> 2 |   let y = new Foo(x)',
        '    |           ^',
        '  3 |   return { y }',
        '  4 | }',
        'hint: Call a function that returns plain data instead; the accepted forms are `new Error(msg)` (and the other error types), `new RegExp(pattern, flags)`, `new Date(...)`, `new Map(...)`, `new Set(xs)` read at once and `new Array(n).fill(v)`.',
      ].join('\n'),
    )
    expect(err.frame).toContain('>')
    expect(err.message).toBe('`new Foo` is not supported')
  })

  test('errors are thrown as TranspileError instances with code names', () => {
    const err = catchError(() => transpile('function f() { this.x = 1 }'))
    expect(err).toBeInstanceOf(Error)
    expect(err.codeName).toBe('THIS')
    expect(err.name).toBe('TranspileError')
  })
})
