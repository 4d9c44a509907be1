/**
 * Output shapes: what each accepted construct lowers to ("ajs/1").
 */
import { describe, expect, test } from 'bun:test'
import { ajs, transpile, transpileExpression } from '../../src/transpiler/index.ts'
import type { Step } from '../../src/ast/types.ts'

const id = (name: string) => ({ $expr: 'ident', name })
const lit = (value: unknown) => ({ $expr: 'literal', value })

/** Steps of the entry body, without `loc` (checked separately). */
function body(src: string): unknown[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip)
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) if (k !== 'loc') out[k] = strip(x)
      return out
    }
    return v
  }
  return strip(transpile(`function f({ a, b, xs, o }) {\n${src}\n}`).ast.steps) as unknown[]
}

const expr = (src: string, vars = ['a', 'b', 'xs', 'o']) => {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip)
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'loc').map(([k, x]) => [k, strip(x)]))
    return v
  }
  return strip(transpileExpression(src, { vars }))
}

describe('program root', () => {
  test('entry, helpers, params, schema, file', () => {
    const { ast, signature } = transpile('function double(n) { return n * 2 }\nfunction main({ x, label = "hi" }) { return { y: double(x), label } }', { filename: 'm.ajs' })
    expect(ast.ajs).toBe(1)
    expect(ast.op).toBe('seq')
    expect(ast.name).toBe('main')
    expect(ast.file).toBe('m.ajs')
    expect(ast.params as unknown).toEqual({
      $pattern: 'object',
      properties: [{ key: 'x', value: 'x' }, { key: 'label', value: { $pattern: 'default', target: 'label', default: lit('hi') } }],
    })
    expect(Object.keys(ast.functions!)).toEqual(['double'])
    expect(ast.functions!.double!.params).toEqual(['n'])
    expect(ast.inputSchema).toEqual({
      type: 'object',
      properties: { x: {}, label: { type: 'string', default: 'hi' } },
      required: ['x'],
    })
    expect(signature.kind).toBe('object')
    expect(ast.steps[0]!.loc).toEqual([2, 37])
  })

  test('no filename: no file field; ajs tag and ajs(string) give the same AST', () => {
    const a = ajs`function f({ x }) { return { x } }`
    const b = ajs('function f({ x }) { return { x } }')
    expect(a).toEqual(b)
    expect('file' in a).toBe(false)
  })

  test('named entry parameters bind args fields', () => {
    const { ast, signature } = transpile('function f(a, b = 2) { return { a, b } }')
    expect(ast.params as unknown).toEqual({
      $pattern: 'object',
      properties: [{ key: 'a', value: 'a' }, { key: 'b', value: { $pattern: 'default', target: 'b', default: lit(2) } }],
    })
    expect(signature.kind).toBe('named')
  })

  test('no parameters', () => {
    const { ast } = transpile('function f() { return {} }')
    expect(ast.params).toBeUndefined()
    expect(ast.inputSchema).toEqual({ type: 'object', properties: {} })
  })
})

describe('declarations and assignment', () => {
  test('let with several declarators is one varsLet, const is constSet', () => {
    expect(body('let x = 1, y = x, z\nconst k = "s"')).toEqual([
      { op: 'varsLet', vars: { x: 1, y: id('x'), z: id('undefined') } },
      { op: 'constSet', key: 'k', value: 's' },
    ])
  })
  test('objects stay expressions (fresh each evaluation)', () => {
    expect(body('let x = { p: 1 }')).toEqual([{ op: 'varsLet', vars: { x: { $expr: 'object', properties: [{ key: 'p', value: lit(1) }] } } }])
  })
  test('destructuring declarations', () => {
    expect(body('const { p, q: [r = 1, ...s], ...t } = o')).toEqual([{
      op: 'destructure', kind: 'const', value: id('o'),
      pattern: {
        $pattern: 'object',
        properties: [
          { key: 'p', value: 'p' },
          { key: 'q', value: { $pattern: 'array', elements: [{ $pattern: 'default', target: 'r', default: lit(1) }], rest: 's' } },
        ],
        rest: 't',
      },
    }])
  })
  test('assignments', () => {
    expect(body('let x = 0\nx = a\nx += 2\no.p = 1\nxs[0] = x\n;[x, o.q] = xs\nx ??= 3\nx++')).toEqual([
      { op: 'varsLet', vars: { x: 0 } },
      { op: 'varSet', key: 'x', value: id('a') },
      { op: 'expr', value: { $expr: 'assign', op: '+=', target: id('x'), value: lit(2) } },
      { op: 'expr', value: { $expr: 'assign', op: '=', target: { $expr: 'member', object: id('o'), property: 'p' }, value: lit(1) } },
      { op: 'expr', value: { $expr: 'assign', op: '=', target: { $expr: 'member', object: id('xs'), property: lit(0), computed: true }, value: id('x') } },
      { op: 'destructure', kind: 'assign', pattern: { $pattern: 'array', elements: ['x', { $pattern: 'target', target: { $expr: 'member', object: id('o'), property: 'q' } }] }, value: id('xs') },
      { op: 'expr', value: { $expr: 'assign', op: '??=', target: id('x'), value: lit(3) } },
      { op: 'expr', value: { $expr: 'update', op: '++', prefix: false, argument: id('x') } },
    ])
  })
})

describe('control flow', () => {
  test('if / else if / else', () => {
    expect(body('if (a) { return 1 } else if (b) return 2\nelse { return 3 }')).toEqual([{
      op: 'if', condition: id('a'), then: [{ op: 'return', value: 1 }],
      else: [{ op: 'if', condition: id('b'), then: [{ op: 'return', value: 2 }], else: [{ op: 'return', value: 3 }] }],
    }])
  })
  test('loops with labels, break and continue', () => {
    const steps = body('outer: for (let i = 0; i < 3; i++) { while (a) { continue outer } do { break } while (b) }')
    expect(steps).toEqual([{
      op: 'for', label: 'outer',
      init: [{ op: 'varsLet', vars: { i: 0 } }],
      condition: { $expr: 'binary', op: '<', left: id('i'), right: lit(3) },
      update: { $expr: 'update', op: '++', prefix: false, argument: id('i') },
      body: [
        { op: 'while', condition: id('a'), body: [{ op: 'continue', label: 'outer' }] },
        { op: 'doWhile', body: [{ op: 'break' }], condition: id('b') },
      ],
    }])
  })
  test('for...of and for...in', () => {
    expect(body('for (const [k, v] of xs) {}\nlet key\nfor (key in o) {}')).toEqual([
      { op: 'forOf', target: { $pattern: 'array', elements: ['k', 'v'] }, kind: 'const', iterable: id('xs'), body: [] },
      { op: 'varsLet', vars: { key: id('undefined') } },
      { op: 'forIn', target: 'key', object: id('o'), body: [] },
    ])
  })
  test('switch', () => {
    expect(body("switch (a) { case 1: return 'one'\ncase 2: { let t = 2; break }\ndefault: return 'many' }")).toEqual([{
      op: 'switch', discriminant: id('a'), cases: [
        { test: lit(1), body: [{ op: 'return', value: 'one' }] },
        { test: lit(2), body: [{ op: 'scope', steps: [{ op: 'varsLet', vars: { t: 2 } }, { op: 'break' }] }] },
        { body: [{ op: 'return', value: 'many' }] },
      ],
    }])
  })
  test('try / catch / finally, throw new Error', () => {
    expect(body("try { throw new Error('x') } catch (e) { return e.message } finally { a = 1 }")).toEqual([{
      op: 'try',
      try: [{ op: 'throw', value: { $expr: 'call', callee: 'Error', args: [lit('x')] } }],
      catchParam: 'e',
      catch: [{ op: 'return', value: { $expr: 'member', object: id('e'), property: 'message' } }],
      finally: [{ op: 'varSet', key: 'a', value: 1 }],
    }])
  })
  test('every step carries loc', () => {
    const { ast } = transpile('function f({ a }) {\n  if (a) {\n    return 1\n  }\n  return 2\n}')
    expect(ast.steps.map((s: Step) => s.loc)).toEqual([[2, 2], [5, 2]])
    expect((ast.steps[0]!.then as Step[])[0]!.loc).toEqual([3, 4])
  })
})

describe('expressions', () => {
  test('operators', () => {
    expect(expr('a + b * 2')).toEqual({ $expr: 'binary', op: '+', left: id('a'), right: { $expr: 'binary', op: '*', left: id('b'), right: lit(2) } })
    expect(expr('!a || (b ?? 1)')).toEqual({ $expr: 'logical', op: '||', left: { $expr: 'unary', op: '!', argument: id('a') }, right: { $expr: 'logical', op: '??', left: id('b'), right: lit(1) } })
    expect(expr('a ? -1 : typeof b')).toEqual({ $expr: 'conditional', test: id('a'), consequent: lit(-1), alternate: { $expr: 'unary', op: 'typeof', argument: id('b') } })
    expect(expr('(a, b)')).toEqual({ $expr: 'sequence', expressions: [id('a'), id('b')] })
    expect(expr("'k' in o")).toEqual({ $expr: 'binary', op: 'in', left: lit('k'), right: id('o') })
    expect(expr('-0')).toEqual({ $expr: 'unary', op: '-', argument: lit(0) })
    expect(expr('1e999')).toEqual(id('Infinity'))
  })
  test('members, optional chaining, templates, regex', () => {
    expect(expr('o?.p.q')).toEqual({ $expr: 'member', object: { $expr: 'member', object: id('o'), property: 'p', optional: true }, property: 'q' })
    expect(expr('`x${a}y`')).toEqual({ $expr: 'template', quasis: ['x', 'y'], expressions: [id('a')] })
    expect(expr('/a+b/gi')).toEqual({ $expr: 'regex', pattern: 'a+b', flags: 'gi' })
  })
  test('literals: arrays, objects, spread, computed keys, shorthand', () => {
    expect(expr('[1, ...xs]')).toEqual({ $expr: 'array', elements: [lit(1), { $expr: 'spread', argument: id('xs') }] })
    expect(expr('({ a, [b]: 1, 2: 3, ...o })')).toEqual({
      $expr: 'object',
      properties: [
        { key: 'a', value: id('a') },
        { key: id('b'), computed: true, value: lit(1) },
        { key: '2', value: lit(3) },
        { $expr: 'spread', argument: id('o') },
      ],
    })
  })
  test('calls: atoms, globals, methods, namespaces, lambdas', () => {
    expect(expr("httpFetch({ url: a })")).toEqual({ $expr: 'call', callee: 'httpFetch', args: [{ $expr: 'object', properties: [{ key: 'url', value: id('a') }] }] })
    expect(expr('parseInt(a, 10)')).toEqual({ $expr: 'call', callee: 'parseInt', args: [id('a'), lit(10)] })
    expect(expr('Math.max(a, b)')).toEqual({ $expr: 'methodCall', object: id('Math'), method: 'max', args: [id('a'), id('b')] })
    expect(expr('o?.s.trim()')).toEqual({ $expr: 'methodCall', object: { $expr: 'member', object: id('o'), property: 's', optional: true }, method: 'trim', args: [] })
    expect(expr('xs.map((x, i) => x * i)')).toEqual({
      $expr: 'methodCall', object: id('xs'), method: 'map',
      args: [{ $expr: 'lambda', params: ['x', 'i'], body: { $expr: 'binary', op: '*', left: id('x'), right: id('i') } }],
    })
    expect(expr('xs.reduce((s, { v = 0 }) => { return s + v }, 0)')).toEqual({
      $expr: 'methodCall', object: id('xs'), method: 'reduce',
      args: [{
        $expr: 'lambda',
        params: ['s', { $pattern: 'object', properties: [{ key: 'v', value: { $pattern: 'default', target: 'v', default: lit(0) } }] }],
        steps: [{ op: 'return', value: { $expr: 'binary', op: '+', left: id('s'), right: id('v') } }],
      }, lit(0)],
    })
  })
  test('custom atoms come from options.atoms', () => {
    // With a table (even empty) an unknown name is refused; without one it is late-bound (late-atoms.test.ts).
    expect(() => transpile('function f() { return { r: myAtom({ a: 1 }) } }', { atoms: [] })).toThrow('Unknown function `myAtom`')
    const { ast } = transpile('function f() { return { r: myAtom({ a: 1 }) } }', { atoms: ['myAtom'] })
    expect((ast.steps[0]!.value as { properties: Array<{ value: unknown }> }).properties[0]!.value).toMatchObject({ $expr: 'call', callee: 'myAtom' })
    expect(transpileExpression('other(1)', { atoms: { other: {} } })).toMatchObject({ $expr: 'call', callee: 'other' })
  })
  test('calls carry loc', () => {
    expect(transpileExpression('  Math.max(1, 2)').loc).toEqual([1, 2])
  })
  test('unknown options are rejected', () => {
    expect(() => transpile('function f() {}', { file: 'x' } as never)).toThrow('unknown option `file`')
  })
})

describe('warnings', () => {
  test('loose equality warns, except against null', () => {
    const { warnings } = transpile('function f({ a }) { let x = a == 1; let y = a == null; return { x, y } }')
    expect(warnings.map((w) => [w.code, w.line, w.column])).toEqual([['AJS4003', 1, 28]])
  })
})
