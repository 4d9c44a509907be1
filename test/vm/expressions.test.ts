/** Every `$expr` kind, built by hand, with exact results. */
import { describe, expect, test } from 'bun:test'
import {
  evalU, arr, assign, bin, call, code, cond, evalExpr, ex, id, idx, lam, let_, lit, logic, mcall, mem, obj, objP, prog,
  progArgs, re, ret, run, seqx, spread, tpl, un, upd, value,
} from './ast.ts'

describe('literal', () => {
  test('scalars', async () => {
    expect(await evalExpr(lit(42))).toBe(42)
    expect(await evalExpr(lit('s'))).toBe('s')
    expect(await evalExpr(lit(true))).toBe(true)
    expect(await evalExpr(lit(null))).toBe(null)
  })
  test('JSON data is copied fresh on every evaluation', async () => {
    const ast = prog([
      let_({ a: lit([1, 2]), b: lit([1, 2]) }),
      ex(mcall(id('a'), 'push', lit(3))),
      ret(arr(id('a'), id('b'))),
    ])
    expect(await value(ast)).toEqual([[1, 2, 3], [1, 2]])
  })
  test('a literal may hold data with a $expr key', async () => {
    expect(await evalExpr(lit({ $expr: 'ident', name: 'x' }))).toEqual({ $expr: 'ident', name: 'x' })
  })
})

describe('ident', () => {
  test('reads a variable', async () => {
    expect(await value(progArgs(['x'], [ret(id('x'))]), { x: 7 })).toBe(7)
  })
  test('globals undefined, NaN, Infinity', async () => {
    expect(await evalExpr(arr(id('undefined'), id('NaN'), id('Infinity')))).toEqual([undefined, NaN, Infinity] as any)
    expect(await evalExpr(un('typeof', id('undefined')))).toBe('undefined')
    expect(await evalExpr(call('isNaN', id('NaN')))).toBe(true)
  })
  test('unknown identifier is a compile error naming it, with a suggestion', async () => {
    const r = await run(progArgs(['count'], [ret(id('coun'))]))
    expect(r.error?.code).toBe('UNKNOWN_IDENTIFIER')
    expect(r.error?.message).toContain('coun')
    expect(r.error?.message).toContain('did you mean "count"')
  })
})

describe('member', () => {
  test('static, computed, nested', async () => {
    const args = { o: { a: { b: [10, 20, 30] } }, k: 'a', i: 2 }
    expect(await value(progArgs(['o'], [ret(mem(mem(id('o'), 'a'), 'b'))]), args)).toEqual([10, 20, 30])
    expect(await value(progArgs(['o', 'k', 'i'], [ret(idx(mem(idx(id('o'), id('k')), 'b'), id('i')))]), args)).toBe(30)
  })
  test('is null-safe (deliberate difference from JS)', async () => {
    expect(await evalU(mem(lit(null), 'x'))).toBe(undefined)
    expect(await value(progArgs(['o'], [ret(mem(mem(id('o'), 'a'), 'b'))]), { o: {} })).toBe(null)
  })
  test('optional chaining short-circuits', async () => {
    expect(await evalU(mem(lit(null), 'x', { optional: true }))).toBe(undefined)
    expect(await value(progArgs(['o'], [ret(mem(id('o'), 'x', { optional: true }))]), { o: { x: 3 } })).toBe(3)
    expect(await evalU({ $expr: 'methodCall', object: lit(null), method: 'trim', args: [], optional: true })).toBe(undefined)
    // the chain short-circuits: a.b?.c.d with a.b null does not fail
    expect(await evalU(mem(mem(lit(null), 'c', { optional: true }), 'd'))).toBe(undefined)
  })
  test('string length and index', async () => {
    expect(await evalExpr(mem(lit('abc'), 'length'))).toBe(3)
    expect(await evalExpr(idx(lit('abc'), lit(1)))).toBe('b')
    expect(await evalExpr(mem(arr(lit(1), lit(2)), 'length'))).toBe(2)
  })
  test('methods read as properties are undefined (functions never become values)', async () => {
    expect(await evalU(mem(lit('abc'), 'trim'))).toBe(undefined)
    expect(await evalU(mem(obj({}), 'toString'))).toBe(undefined)
    expect(await evalU(mem(arr(), 'map'))).toBe(undefined)
  })
})

describe('binary', () => {
  const cases: Array<[string, unknown, unknown, unknown]> = [
    ['+', 2, 3, 5], ['+', 'a', 1, 'a1'], ['-', 5, 7, -2], ['*', 4, 2.5, 10], ['/', 7, 2, 3.5], ['%', 7, 3, 1],
    ['%', -7, 3, -1], ['**', 2, 10, 1024], ['===', 1, 1, true], ['!==', 1, '1', true], ['<', 1, 2, true],
    ['>', 1, 2, false], ['<=', 2, 2, true], ['>=', 1, 2, false], ['<', 'a', 'b', true], ['&', 6, 3, 2],
    ['|', 6, 3, 7], ['^', 6, 3, 5], ['<<', 1, 4, 16], ['>>', -16, 2, -4], ['>>>', -1, 28, 15],
  ]
  for (const [op, a, b, want] of cases) {
    test(`${JSON.stringify(a)} ${op} ${JSON.stringify(b)}`, async () => {
      expect(await evalExpr(bin(op, lit(a), lit(b)))).toBe(want as any)
      // also through variables (a different specialisation path)
      expect(await value(progArgs(['a', 'b'], [ret(bin(op, id('a'), id('b')))]), { a, b })).toBe(want as any)
    })
  }
  test('== and != never coerce, except null == undefined', async () => {
    expect(await evalExpr(bin('==', lit(1), lit('1')))).toBe(false)
    expect(await evalExpr(bin('==', lit(0), lit(false)))).toBe(false)
    expect(await evalExpr(bin('==', lit(null), id('undefined')))).toBe(true)
    expect(await evalExpr(bin('!=', lit(null), id('undefined')))).toBe(false)
    expect(await evalExpr(bin('!=', lit(1), lit('1')))).toBe(true)
    expect(await evalExpr(bin('==', lit('x'), lit('x')))).toBe(true)
  })
  test('in checks own keys and, as JS, what an object or array inherits', async () => {
    expect(await evalExpr(bin('in', lit('a'), obj({ a: lit(1) })))).toBe(true)
    expect(await evalExpr(bin('in', lit('toString'), obj({})))).toBe(true)
    expect(await evalExpr(bin('in', lit('toStrin'), obj({})))).toBe(false)
    expect(await evalExpr(bin('in', lit(0), arr(lit(9))))).toBe(true)
    expect(await code(prog([ret(bin('in', lit('a'), lit(1)))]))).toBe('TYPE_ERROR')
    expect(await code(prog([ret(bin('in', lit('constructor'), obj({})))]))).toBe('FORBIDDEN_NAME')
  })
  test('evaluation order is left to right', async () => {
    const ast = prog([
      let_({ log: arr() }),
      ret(bin('-', seqx(mcall(id('log'), 'push', lit('L')), lit(10)), seqx(mcall(id('log'), 'push', lit('R')), lit(3)))),
    ])
    const ast2 = prog([...ast.steps.slice(0, 1), ex(ast.steps[1].value), ret(id('log'))])
    expect(await value(ast)).toBe(7)
    expect(await value(ast2)).toEqual(['L', 'R'])
  })
})

describe('logical', () => {
  test('&&, ||, ?? values', async () => {
    expect(await evalExpr(logic('&&', lit(1), lit(2)))).toBe(2)
    expect(await evalExpr(logic('&&', lit(0), lit(2)))).toBe(0)
    expect(await evalExpr(logic('||', lit(''), lit('d')))).toBe('d')
    expect(await evalExpr(logic('||', lit('x'), lit('d')))).toBe('x')
    expect(await evalExpr(logic('??', lit(null), lit(5)))).toBe(5)
    expect(await evalExpr(logic('??', lit(0), lit(5)))).toBe(0)
  })
  test('short-circuit: the right side is not evaluated', async () => {
    const ast = (op: string, left: unknown) => prog([
      let_({ n: lit(0) }),
      ex(logic(op, lit(left), upd('++', id('n')))),
      ret(id('n')),
    ])
    expect(await value(ast('&&', false))).toBe(0)
    expect(await value(ast('&&', true))).toBe(1)
    expect(await value(ast('||', true))).toBe(0)
    expect(await value(ast('||', false))).toBe(1)
    expect(await value(ast('??', 1))).toBe(0)
    expect(await value(ast('??', null))).toBe(1)
  })
})

describe('unary', () => {
  test('operators', async () => {
    expect(await evalExpr(un('-', lit(3)))).toBe(-3)
    expect(await evalExpr(un('+', lit('4')))).toBe(4)
    expect(await evalExpr(un('!', lit(0)))).toBe(true)
    expect(await evalExpr(un('~', lit(5)))).toBe(-6)
    expect(await evalU(un('void', lit(5)))).toBe(undefined)
  })
  test('typeof', async () => {
    expect(await evalExpr(un('typeof', lit('s')))).toBe('string')
    expect(await evalExpr(un('typeof', lit(1)))).toBe('number')
    expect(await evalExpr(un('typeof', lit(null)))).toBe('object')
    expect(await evalExpr(un('typeof', arr()))).toBe('object')
    expect(await evalExpr(un('typeof', id('notDeclared')))).toBe('undefined')
  })
  test('delete removes an own property', async () => {
    const ast = prog([
      let_({ o: obj({ a: lit(1), b: lit(2) }) }),
      ex(un('delete', mem(id('o'), 'a')), 'r'),
      ret(arr(id('r'), id('o'))),
    ])
    expect(await value(ast)).toEqual([true, { b: 2 }])
    const computed = prog([let_({ o: obj({ a: lit(1) }) }), ex(un('delete', idx(id('o'), lit('a')))), ret(id('o'))])
    expect(await value(computed)).toEqual({})
  })
})

describe('conditional', () => {
  test('picks one branch and evaluates only it', async () => {
    const ast = (t: boolean) => prog([
      let_({ a: lit(0), b: lit(0) }),
      ex(cond(lit(t), upd('++', id('a')), upd('++', id('b'))), 'r'),
      ret(arr(id('a'), id('b'))),
    ])
    expect(await value(ast(true))).toEqual([1, 0])
    expect(await value(ast(false))).toEqual([0, 1])
  })
})

describe('array, object, spread', () => {
  test('array with spread of arrays and strings', async () => {
    const ast = progArgs(['xs'], [ret(arr(lit(0), spread(id('xs')), spread(lit('ab'))))])
    expect(await value(ast, { xs: [1, 2] })).toEqual([0, 1, 2, 'a', 'b'])
  })
  test('spreading a non-iterable is a TYPE_ERROR', async () => {
    expect(await code(prog([ret(arr(spread(lit(5))))]))).toBe('TYPE_ERROR')
    expect(await code(prog([ret(arr(spread(lit(null))))]))).toBe('TYPE_ERROR')
  })
  test('object: static, computed keys and spread, later wins', async () => {
    const ast = progArgs(['k', 'base'], [ret(objP(
      { key: 'a', value: lit(1) },
      spread(id('base')),
      { key: bin('+', id('k'), lit('!')), computed: true, value: lit(2) },
      { key: 'z', value: lit(3) },
    ))])
    expect(await value(ast, { k: 'x', base: { a: 9, b: 8 } })).toEqual({ a: 9, b: 8, 'x!': 2, z: 3 })
  })
  test('object spread of null/undefined/number is ignored', async () => {
    expect(await evalExpr(objP(spread(lit(null)), spread(lit(4)), { key: 'a', value: lit(1) }))).toEqual({ a: 1 })
  })
  test('spread in call arguments', async () => {
    expect(await value(progArgs(['xs'], [ret(mcall(id('Math'), 'max', spread(id('xs')), lit(0)))]), { xs: [3, 9, 4] })).toBe(9)
    expect(await value(progArgs(['xs'], [ret(call('parseInt', spread(id('xs'))))]), { xs: ['ff', 16] })).toBe(255)
  })
  test('a computed key "__proto__" is refused at run time', async () => {
    const ast = progArgs(['k'], [ret(objP({ key: id('k'), computed: true, value: lit(1) }))])
    expect(await code(ast, { k: '__proto__' })).toBe('FORBIDDEN_NAME')
  })
})

describe('template', () => {
  test('interpolates with String() conversion', async () => {
    const ast = progArgs(['n', 'who'], [ret(tpl(['Hi ', ', you have ', ' new', ''], id('who'), id('n'), lit(null)))])
    expect(await value(ast, { n: 3, who: 'Ada' })).toBe('Hi Ada, you have 3 newnull')
  })
  test('no expressions', async () => {
    expect(await evalExpr(tpl(['plain']))).toBe('plain')
  })
  test('arrays and objects convert like JS', async () => {
    expect(await evalExpr(tpl(['[', ']'], arr(lit(1), lit(2))))).toBe('[1,2]')
    expect(await evalExpr(tpl(['', ''], obj({ a: lit(1) })))).toBe('[object Object]')
  })
})

describe('call', () => {
  test('global functions', async () => {
    expect(await evalExpr(call('parseInt', lit('42px')))).toBe(42)
    expect(await evalExpr(call('parseFloat', lit('2.5e1')))).toBe(25)
    expect(await evalExpr(call('isFinite', lit('7')))).toBe(true)
    expect(await evalExpr(call('Number', lit('12')))).toBe(12)
    expect(await evalExpr(call('String', lit(12)))).toBe('12')
    expect(await evalExpr(call('Boolean', lit('')))).toBe(false)
    expect(await evalExpr(call('encodeURIComponent', lit('a b&c')))).toBe('a%20b%26c')
    expect(await evalExpr(call('decodeURIComponent', lit('a%20b')))).toBe('a b')
    expect(await evalExpr(call('Error', lit('boom')))).toEqual({ name: 'Error', message: 'boom' })
    expect(await evalExpr(call('TypeError', lit('t')))).toEqual({ name: 'TypeError', message: 't' })
  })
  test('atom called as an expression with one object argument', async () => {
    expect(await evalExpr(call('len', obj({ value: lit('abcd') })))).toBe(4)
    expect(await code(prog([ret(call('len', lit(1)))]))).toBe('ATOM_INPUT_INVALID')
  })
  test('unknown function', async () => {
    const r = await run(prog([ret(call('parseInteger', lit('1')))]))
    expect(r.error?.code).toBe('UNKNOWN_FUNCTION')
    expect(r.error?.message).toContain('parseInt')
  })
  test('helper takes precedence over atoms and globals', async () => {
    const ast = prog([ret(call('parseInt', lit('1')))], {
      functions: { parseInt: { params: ['s'], steps: [ret(lit('mine'))] } },
    })
    expect(await value(ast)).toBe('mine')
  })
})

describe('methodCall', () => {
  test('string, array and number methods', async () => {
    expect(await evalExpr(mcall(lit('  Hi  '), 'trim'))).toBe('Hi')
    expect(await evalExpr(mcall(lit('a,b'), 'split', lit(',')))).toEqual(['a', 'b'])
    expect(await evalExpr(mcall(arr(lit(3), lit(1), lit(2)), 'toSorted'))).toEqual([1, 2, 3])
    expect(await evalExpr(mcall(lit(3.14159), 'toFixed', lit(2)))).toBe('3.14')
  })
  test('namespace statics', async () => {
    expect(await evalExpr(mcall(id('Math'), 'max', lit(1), lit(5)))).toBe(5)
    expect(await evalExpr(mcall(id('Object'), 'keys', obj({ a: lit(1), b: lit(2) })))).toEqual(['a', 'b'])
  })
  test('methods outside the allowlist are refused', async () => {
    expect(await code(prog([ret(mcall(lit('s'), 'call'))]))).toBe('METHOD_NOT_ALLOWED')
    expect(await code(prog([ret(mcall(lit('s'), 'bind'))]))).toBe('METHOD_NOT_ALLOWED')
    expect(await code(prog([ret(mcall(id('Math'), 'constructorX'))]))).toBe('METHOD_NOT_ALLOWED')
    // a method of another type is a wrong type, not a forbidden method (issue 29): arrays have no toUpperCase
    expect(await code(prog([ret(mcall(arr(), 'toUpperCase'))]))).toBe('TYPE_ERROR')
    const trim = await run(prog([ret(mcall(lit(3), 'trim'))]))
    expect(trim.error?.message).toBe('trim is a string method, but the value is a number (number.trim does not exist)')
    expect(trim.error?.hint).toContain('String(x).trim(')
  })
  test('calling a method on null is a TYPE_ERROR', async () => {
    expect(await code(prog([ret(mcall(lit(null), 'trim'))]))).toBe('TYPE_ERROR')
  })
  test('optional method call on a nullish target is undefined', async () => {
    const ast = progArgs(['s'], [ret({ $expr: 'methodCall', object: id('s'), method: 'trim', args: [], optional: true })])
    expect(await value(ast, { s: null })).toBe(null)
    expect(await value(ast, { s: ' x ' })).toBe('x')
  })
})

describe('lambda', () => {
  test('reads enclosing variables', async () => {
    const ast = progArgs(['xs', 'k'], [ret(mcall(id('xs'), 'map', lam(['x'], bin('*', id('x'), id('k')))))])
    expect(await value(ast, { xs: [1, 2, 3], k: 10 })).toEqual([10, 20, 30])
  })
  test('a lambda outside a method call is refused', async () => {
    const r = await run(prog([ret(lam(['x'], id('x')))]))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/0/value')
  })
})

describe('assign', () => {
  test('plain, compound and logical assignment', async () => {
    const ops: Array<[string, unknown, unknown, unknown]> = [
      ['=', 1, 2, 2], ['+=', 1, 2, 3], ['+=', 'a', 'b', 'ab'], ['-=', 5, 2, 3], ['*=', 3, 4, 12], ['/=', 9, 3, 3],
      ['%=', 9, 4, 1], ['**=', 3, 2, 9], ['&=', 6, 3, 2], ['|=', 6, 3, 7], ['^=', 6, 3, 5], ['<<=', 1, 3, 8],
      ['>>=', 16, 2, 4], ['>>>=', -1, 31, 1], ['&&=', 1, 5, 5], ['&&=', 0, 5, 0], ['||=', 0, 5, 5],
      ['||=', 2, 5, 2], ['??=', null, 5, 5], ['??=', 0, 5, 0],
    ]
    for (const [op, start, operand, want] of ops) {
      const ast = prog([let_({ x: lit(start) }), ex(assign(id('x'), lit(operand), op), 'r'), ret(arr(id('x'), id('r')))])
      expect(await value(ast)).toEqual([want, want])
    }
  })
  test('assignment to members, computed members and array growth', async () => {
    const ast = prog([
      let_({ o: obj({}), a: arr() }),
      ex(assign(mem(id('o'), 'x'), lit(1))),
      ex(assign(idx(id('o'), lit('y')), lit(2))),
      ex(assign(mem(id('o'), 'x'), lit(10), '+=')),
      ex(assign(idx(id('a'), lit(2)), lit('c'))),
      ret(arr(id('o'), id('a'))),
    ])
    expect(await value(ast)).toEqual([{ x: 11, y: 2 }, [undefined, undefined, 'c']])
  })
  test('logical assignment does not evaluate the value when not needed', async () => {
    const ast = prog([
      let_({ x: lit(1), n: lit(0) }),
      ex(assign(id('x'), upd('++', id('n')), '||=')),
      ret(id('n')),
    ])
    expect(await value(ast)).toBe(0)
  })
  test('destructuring assignment swaps', async () => {
    const ast = prog([
      let_({ a: lit(1), b: lit(2) }),
      ex(assign({ $pattern: 'array', elements: ['a', 'b'] }, arr(id('b'), id('a')))),
      ret(arr(id('a'), id('b'))),
    ])
    expect(await value(ast)).toEqual([2, 1])
  })
  test('assigning to a const or an undeclared name fails to compile', async () => {
    expect(await code(prog([{ op: 'constSet', key: 'c', value: 1 }, ex(assign(id('c'), lit(2)))]))).toBe('CONST_ASSIGN')
    expect(await code(prog([ex(assign(id('nope'), lit(2)))]))).toBe('UNKNOWN_IDENTIFIER')
  })
  test('assigning a property of a primitive is a TYPE_ERROR', async () => {
    expect(await code(prog([let_({ s: lit('x') }), ex(assign(mem(id('s'), 'a'), lit(1)))]))).toBe('TYPE_ERROR')
  })
})

describe('update', () => {
  test('prefix and postfix on identifiers and members', async () => {
    const ast = prog([
      let_({ i: lit(5), o: obj({ n: lit(1) }) }),
      ex(arr(upd('++', id('i')), upd('++', id('i'), true), upd('--', id('i')), upd('--', id('i'), true)), 'r'),
      ex(arr(upd('++', mem(id('o'), 'n')), upd('++', idx(id('o'), lit('n')), true)), 'm'),
      ret(arr(id('r'), id('i'), id('m'), id('o'))),
    ])
    expect(await value(ast)).toEqual([[5, 7, 7, 5], 5, [1, 3], { n: 3 }])
  })
})

describe('sequence', () => {
  test('evaluates all, yields the last', async () => {
    const ast = prog([let_({ n: lit(0) }), ret(arr(seqx(upd('++', id('n')), upd('++', id('n')), lit('last')), id('n')))])
    expect(await value(ast)).toEqual(['last', 2])
  })
})

describe('regex', () => {
  test('literal used with test, exec, match and replace', async () => {
    expect(await evalExpr(mcall(re('^a+b$', 'i'), 'test', lit('AAb')))).toBe(true)
    expect(await evalExpr(mcall(re('(\\d+)-(\\d+)'), 'exec', lit('x 12-34')))).toEqual(['12-34', '12', '34'])
    expect(await evalExpr(mcall(lit('a1b22'), 'match', re('\\d+', 'g')))).toEqual(['1', '22'])
    expect(await evalExpr(mcall(lit('a-b-c'), 'replace', re('-', 'g'), lit('+')))).toBe('a+b+c')
  })
  test('a regex returned from a run becomes its source text', async () => {
    expect(await evalExpr(re('ab+', 'g'))).toBe('/ab+/g')
  })
  test('unsafe patterns are refused', async () => {
    expect(await code(prog([ret(re('(x)\\1'))]))).toBe('REGEX_UNSAFE')
    expect(await code(prog([ret(re('(?<=a*)b'))]))).toBe('REGEX_UNSAFE')
  })
  test('exponential shapes run on the linear engine instead', async () => {
    const r = await run(prog([ret({ $expr: 'methodCall', object: re('(a+)+$'), method: 'test', args: [lit('a'.repeat(30) + '!')] })]))
    expect(r.result).toBe(false)
    const s = await run(prog([ret({ $expr: 'methodCall', object: re('(a|a)*'), method: 'exec', args: [lit('aab')] })]))
    expect(s.result).toEqual(['aa', 'a'])
  })
})

describe('spread outside a list', () => {
  test('is refused by validation', async () => {
    const r = await run(prog([ret(spread(arr()))]))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/0/value')
  })
})
