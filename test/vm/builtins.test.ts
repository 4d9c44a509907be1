/** Expression builtins: namespaces (Math, JSON, Object, Array, Number, String, Date, Set) and instance methods. */
import { describe, expect, test } from 'bun:test'
import { arr, call, code, evalExpr, id, lit, mcall, mem, obj, prog, ret, value } from './ast.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const ns = (name: string, method: string, ...args: any[]) => mcall(id(name), method, ...args.map((a) => (a && a.$expr ? a : lit(a))))
const m = (target: unknown, method: string, ...args: unknown[]) => mcall(lit(target), method, ...args.map((a) => lit(a)))

describe('Math', () => {
  test('functions and constants', async () => {
    expect(await evalExpr(arr(ns('Math', 'abs', -2), ns('Math', 'floor', 1.7), ns('Math', 'ceil', 1.2), ns('Math', 'round', 2.5),
      ns('Math', 'min', 3, 1, 2), ns('Math', 'pow', 2, 8), ns('Math', 'sqrt', 81), ns('Math', 'trunc', -1.5), ns('Math', 'sign', -3),
      ns('Math', 'hypot', 3, 4), ns('Math', 'log2', 8), mem(id('Math'), 'PI'), mem(id('Math'), 'E')))).toEqual([2, 1, 2, 3, 1, 256, 9, -1, -1, 5, 3, Math.PI, Math.E])
  })
})

describe('Object, Array, Number, String', () => {
  test('Object statics', async () => {
    const o = obj({ a: lit(1), b: lit(2) })
    expect(await evalExpr(arr(ns('Object', 'keys', o), ns('Object', 'values', o), ns('Object', 'entries', o)))).toEqual([['a', 'b'], [1, 2], [['a', 1], ['b', 2]]])
    expect(await evalExpr(ns('Object', 'fromEntries', lit([['x', 1], ['y', 2]])))).toEqual({ x: 1, y: 2 })
    expect(await evalExpr(ns('Object', 'assign', obj({ a: lit(1) }), obj({ b: lit(2) }), lit(null)))).toEqual({ a: 1, b: 2 })
    expect(await evalExpr(arr(ns('Object', 'hasOwn', o, 'a'), ns('Object', 'hasOwn', o, 'toString')))).toEqual([true, false])
    expect(await code(prog([ret(ns('Object', 'fromEntries', lit([['__proto__', 1]])))]))).toBe('FORBIDDEN_NAME')
  })
  test('Object.freeze makes guest data read-only', async () => {
    const ast = prog([{ op: 'varsLet', vars: { o: ns('Object', 'freeze', obj({ a: lit(1) })) } }, { op: 'expr', value: { $expr: 'assign', op: '=', target: mem(id('o'), 'a'), value: lit(2) } }])
    expect(await code(ast)).toBe('TYPE_ERROR')
  })
  test('Array statics', async () => {
    expect(await evalExpr(arr(ns('Array', 'isArray', lit([])), ns('Array', 'isArray', 'x'), ns('Array', 'from', 'ab'), ns('Array', 'of', 1, 2)))).toEqual([true, false, ['a', 'b'], [1, 2]])
    expect(await evalExpr(ns('Array', 'from', obj({ length: lit(2) })))).toEqual([undefined, undefined])
  })
  test('Number statics and constants', async () => {
    expect(await evalExpr(arr(ns('Number', 'isInteger', 2), ns('Number', 'isInteger', 2.5), ns('Number', 'parseFloat', '1.5x'), ns('Number', 'parseInt', '11', 2),
      ns('Number', 'isNaN', 'x'), mem(id('Number'), 'MAX_SAFE_INTEGER')))).toEqual([true, false, 1.5, 3, false, Number.MAX_SAFE_INTEGER])
  })
  test('String statics', async () => {
    expect(await evalExpr(arr(ns('String', 'fromCharCode', 72, 105), ns('String', 'fromCodePoint', 128512)))).toEqual(['Hi', '😀'])
  })
})

describe('JSON and Date', () => {
  test('JSON.stringify with indent', async () => {
    expect(await evalExpr(ns('JSON', 'stringify', obj({ a: lit([1]) }), lit(null), lit(1)))).toBe('{\n "a": [\n  1\n ]\n}')
  })
  test('JSON.stringify writes what native JSON does, with pinned fuel', async () => {
    // Escapes, -0, NaN, undefined, integer keys first, nesting, a shared object, indented, toJSON, a regex, a key to escape.
    const src = `function f({ n }) { const v = { a: [1, 'x', [true, null, n], { b: -0 }], c: { d: 'q"\\n\\ud800', f: NaN }, e: undefined, 2: [] }
      return [JSON.stringify(v), JSON.stringify([v, v, undefined]), JSON.stringify({ v }, null, 2), JSON.stringify({ toJSON: 1, r: /x/, 'k"': 1 })] }`
    const r = await new AgentVM().run(transpile(src).ast, { n: 3 }, { fuel: 1e6 })
    const v = { a: [1, 'x', [true, null, 3], { b: -0 }], c: { d: 'q"\n\ud800', f: NaN }, e: undefined, 2: [] }
    expect(r.result).toEqual([JSON.stringify(v), JSON.stringify([v, v, undefined]), JSON.stringify({ v }, null, 2), '{"toJSON":1,"r":{},"k\\"":1}'])
    expect(r.fuelUsed).toBe(0.40753) // size walk, scans and text charged (a faster writer must keep this)
  })
  test('Date helpers are plain data over milliseconds; the clock is injectable', async () => {
    expect(await evalExpr(ns('Date', 'toISOString', 0))).toBe('1970-01-01T00:00:00.000Z')
    expect(await evalExpr(ns('Date', 'parse', '1970-01-02T00:00:00.000Z'))).toBe(86_400_000)
    expect(await evalExpr(ns('Date', 'UTC', 2000, 0, 1))).toBe(946_684_800_000)
    expect(await evalExpr(ns('Date', 'now'), {}, { now: () => 5 })).toBe(5)
    expect(await code(prog([ret(ns('Date', 'toISOString', lit(NaN)))]))).not.toBe('OK')
  })
})

describe('Set helpers over arrays', () => {
  test('union, intersection, difference, has, add, delete, size, from, isSubsetOf', async () => {
    expect(await evalExpr(arr(
      ns('Set', 'from', lit([1, 1, 2])), ns('Set', 'union', lit([1, 2]), lit([2, 3])), ns('Set', 'intersection', lit([1, 2, 3]), lit([2, 3, 4])),
      ns('Set', 'difference', lit([1, 2, 3]), lit([2])), ns('Set', 'has', lit([1]), 1), ns('Set', 'add', lit([1]), 2), ns('Set', 'add', lit([1]), 1),
      ns('Set', 'delete', lit([1, 2]), 1), ns('Set', 'size', lit([1, 1, 3])), ns('Set', 'isSubsetOf', lit([1]), lit([1, 2])),
    ))).toEqual([[1, 2], [1, 2, 3], [2, 3], [1, 3], true, [1, 2], [1], [2], 2, true])
    expect(await code(prog([ret(ns('Set', 'union', 'x', lit([])))]))).toBe('TYPE_ERROR')
  })
})

describe('string methods', () => {
  test('allowlisted methods', async () => {
    expect(await evalExpr(arr(m('abc', 'at', -1), m('abc', 'charAt', 1), m('abc', 'charCodeAt', 0), m('abc', 'includes', 'b'),
      m('abc', 'startsWith', 'ab'), m('abc', 'endsWith', 'bc'), m('abcb', 'indexOf', 'b'), m('abcb', 'lastIndexOf', 'b'),
      m('ab', 'padStart', 4, '*'), m('ab', 'padEnd', 3), m('ab', 'repeat', 2), m('abcdef', 'slice', 1, 3), m('abcdef', 'substring', 4),
      m('AbC', 'toLowerCase'), m('AbC', 'toUpperCase'), m(' x ', 'trimStart'), m(' x ', 'trimEnd'), m('a-b-c', 'replaceAll', '-', '+'),
      m('a', 'concat', 'b', 1), m('a', 'localeCompare', 'b'), m('x', 'toString')))).toEqual(
      ['c', 'b', 97, true, true, true, 1, 3, '**ab', 'ab ', 'abab', 'bc', 'ef', 'abc', 'ABC', 'x ', ' x', 'a+b+c', 'ab1', -1, 'x'])
  })
  test('search and matchAll with guarded regexes', async () => {
    expect(await evalExpr(mcall(lit('a1b2'), 'matchAll', { $expr: 'regex', pattern: '\\d', flags: 'g' }))).toEqual([['1'], ['2']])
    expect(await evalExpr(mcall(lit('abc'), 'search', { $expr: 'regex', pattern: 'c', flags: '' }))).toBe(2)
    expect(await code(prog([ret(mcall(lit('a'), 'matchAll', { $expr: 'regex', pattern: 'a', flags: '' }))]))).toBe('TYPE_ERROR')
  })
  test('a replacement that is not a string is converted, as in JavaScript', async () => {
    const cases: Array<[string, string, unknown]> = [['%d items', '%d', 5], ['a-b', '-', null], ['x', 'x', true], ['aa', 'a', 1.5]]
    for (const [s, p, r] of cases) {
      expect(await evalExpr(arr(m(s, 'replace', p, r), m(s, 'replaceAll', p, r)))).toEqual([s.replace(p, String(r)), s.replaceAll(p, String(r))])
    }
    expect(await evalExpr(mcall(lit('a1b2'), 'replace', { $expr: 'regex', pattern: '\\d', flags: 'g' }, lit(0)))).toBe('a0b0')
    expect(await evalExpr(mcall(lit('ab'), 'replace', lit('a'), id('undefined')))).toBe('undefinedb')
  })
  test('a replacement callback written as a function expression is refused when compiled (an arrow works: test/transpiler/replace-callback.test.ts)', () => {
    let err: any
    try { transpile("function f({ s }) { return s.replaceAll('a', function (m) { return m }) }") } catch (e) { err = e }
    expect(err?.code).toBe('AJS2031')
  })
})

describe('array methods', () => {
  test('allowlisted methods', async () => {
    expect(await evalExpr(arr(m([1, 2, 3], 'at', -1), m([1, 2], 'concat', [3], 4), m([1, 2, 3], 'includes', 2), m([1, 2, 1], 'indexOf', 1),
      m([1, 2, 1], 'lastIndexOf', 1), m([1, 2], 'join', '-'), m([1, 2, 3], 'slice', 1), m([3, 1, 2], 'toSorted'), m([1, [2, [3]]], 'flat'),
      m([1, [2, [3]]], 'flat', 2), m([1, 2], 'toReversed'), m([1, 2, 3], 'with', 0, 9), m(['a', 'b'], 'keys'), m(['a'], 'entries'),
      m([10, 9, 1], 'sort'), m([1, 2], 'toString')))).toEqual(
      [3, [1, 2, 3, 4], true, 0, 2, '1-2', [2, 3], [1, 2, 3], [1, 2, [3]], [1, 2, 3], [2, 1], [9, 2, 3], [0, 1], [[0, 'a']], [1, 10, 9], '1,2'])
  })
  test('join agrees with JavaScript for short and long arrays of every primitive (short ones are concatenated)', async () => {
    const items = [null, undefined, 0, -0, 1.5, NaN, true, false, '', 'a', 'bé', 1e21]
    const cases: unknown[][] = [[]]
    for (let n = 1; n <= 6; n++) for (let i = 0; i + n <= items.length; i++) cases.push(items.slice(i, i + n))
    for (const xs of cases) {
      for (const sep of [undefined, '', ', ']) {
        const el = (x: unknown) => x === undefined || Number.isNaN(x) ? id(String(x)) : Object.is(x, -0) ? { $expr: 'unary', op: '-', argument: lit(0) } : lit(x)
        const a = { $expr: 'array', elements: xs.map(el) }
        expect(await evalExpr(sep === undefined ? mcall(a, 'join') : mcall(a, 'join', lit(sep)))).toBe(xs.join(sep))
      }
    }
  })
  test('mutating methods change the guest array', async () => {
    const ast = prog([
      { op: 'varsLet', vars: { a: lit([1, 2, 3]) } },
      { op: 'expr', value: arr(mcall(id('a'), 'pop'), mcall(id('a'), 'shift'), mcall(id('a'), 'unshift', lit(0)), mcall(id('a'), 'push', lit(5), lit(6))), result: 'r' },
      { op: 'expr', value: mcall(id('a'), 'splice', lit(1), lit(1)), result: 's' },
      { op: 'expr', value: mcall(id('a'), 'reverse') },
      { op: 'expr', value: mcall(mcall(id('a'), 'fill', lit(7), lit(0), lit(1)), 'slice') },
      ret(arr(id('r'), id('s'), id('a'))),
    ])
    expect(await value(ast)).toEqual([[3, 1, 2, 4], [2], [7, 5, 0]])
  })
  test('every array method the VM runs with a callback takes an arrow in source (one list: CALLBACK_METHOD_NAMES)', async () => {
    const { ast } = transpile('function f({ xs }) { return [xs.toSorted((a, b) => b - a), xs] }')
    expect((await new AgentVM().run(ast, { xs: [2, 3, 1] })).result).toEqual([[3, 2, 1], [2, 3, 1]])
  })
  test('Array.from with a mapper is Array.from(x).map(mapper), as in JavaScript', async () => {
    const cases = ["Array.from({ length: 3 }, (_, i) => i * 2)", "Array.from('ab', (c) => c.toUpperCase())", "Array.from([1, 2], (v, i) => v + i)", "Array.from([], (v) => v)"]
    for (const ex of cases) {
      const { ast } = transpile(`function f() { return ${ex} }`)
      // eslint-disable-next-line no-new-func -- the reference: the same expression in JavaScript
      expect([ex, (await new AgentVM().run(ast)).result]).toEqual([ex, new Function(`return ${ex}`)()])
    }
    // A third parameter (the array, which Array.from's mapper never gets) or a thisArg is not this form.
    for (const ex of ['Array.from([1], (v, i, a) => a)', 'Array.from([1], (v) => v, null)']) {
      expect(() => transpile(`function f() { return ${ex} }`)).toThrow(/only allowed as callbacks/)
    }
    // A variable named Array is not the namespace.
    expect(() => transpile('function f({ Array }) { return Array.from([1], (v) => v) }')).toThrow(/only allowed as callbacks/)
  })
  test('a callback passed to a name Object.prototype has is METHOD_NOT_ALLOWED when compiled, not a host TypeError', async () => {
    const lambda = { $expr: 'lambda', params: ['x'], body: id('x') }
    for (const method of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
      expect([method, await code(prog([ret(mcall(lit([1]), method, lambda))]))]).toEqual([method, 'METHOD_NOT_ALLOWED'])
    }
  })
  test('hasOwnProperty of strings and arrays is JavaScript\'s (indices and length), forbidden names never', async () => {
    const { ast } = transpile(`function f() {
      const a = [1, 2]
      return [a.hasOwnProperty(0), a.hasOwnProperty('1'), a.hasOwnProperty(2), a.hasOwnProperty('length'), a.hasOwnProperty('map'),
        'ab'.hasOwnProperty(1), 'ab'.hasOwnProperty('length'), 'ab'.hasOwnProperty(2), a.hasOwnProperty([0]), { k: 1 }.hasOwnProperty('k')]
    }`)
    const r = await new AgentVM().run(ast)
    const a = [1, 2]
    expect(r.result).toEqual([a.hasOwnProperty(0), a.hasOwnProperty('1'), a.hasOwnProperty(2), a.hasOwnProperty('length'), a.hasOwnProperty('map'),
      'ab'.hasOwnProperty(1), 'ab'.hasOwnProperty('length'), 'ab'.hasOwnProperty(2), a.hasOwnProperty(String([0])), true])
    expect(await evalExpr(m([1], 'hasOwnProperty', '__proto__'))).toBe(false)
  })
  test('number and boolean methods', async () => {
    expect(await evalExpr(arr(m(255, 'toString', 16), m(1.005, 'toPrecision', 2), m(12345, 'toExponential', 1), m(true, 'toString')))).toEqual(['ff', '1.0', '1.2e+4', 'true'])
    expect(await code(prog([ret(m(1, 'toFixed', 200))]))).toBe('RANGE_ERROR')
  })
  test('global functions: isNaN coerces like JS, Number.isNaN does not', async () => {
    expect(await evalExpr(arr(call('isNaN', lit('x')), ns('Number', 'isNaN', 'x')))).toEqual([true, false])
  })
})
