/** validateAst and the VM's refusal of invalid ASTs: located errors (JSON pointer + message). */
import { describe, expect, test } from 'bun:test'
import { validateAst } from '../../src/vm/index.ts'
import { id, lit, prog, ret, run } from './ast.ts'

const first = (ast: unknown) => validateAst(ast)[0]

describe('validateAst', () => {
  test('a valid program has no problems', () => {
    expect(validateAst(prog([ret(lit(1))]))).toEqual([])
  })
  test('root problems', () => {
    expect(first(42)).toMatchObject({ path: '', code: 'AST_INVALID' })
    expect(first({ op: 'seq', steps: [] })).toMatchObject({ path: '/ajs', code: 'AST_VERSION' })
    expect(first({ ajs: 2, op: 'seq', steps: [] })).toMatchObject({ path: '/ajs', code: 'AST_VERSION' })
    expect(first({ ajs: 1, op: 'if', steps: [] })).toMatchObject({ path: '/op' })
    expect(first({ ajs: 1, op: 'seq', steps: [], extra: 1 })).toMatchObject({ path: '/extra' })
    expect(first({ ajs: 1, op: 'seq' })).toMatchObject({ path: '/steps' })
  })
  const cases: Array<[string, any, string]> = [
    ['missing required field', prog([{ op: 'if', then: [] }]), '/steps/0/condition'],
    ['unknown field of a core op', prog([{ op: 'return', valu: 1 }]), '/steps/0/valu'],
    ['expr field given a literal', prog([{ op: 'if', condition: true, then: [] }]), '/steps/0/condition'],
    ['bad result name', prog([{ op: 'expr', value: 1, result: 'a b' }]), '/steps/0/result'],
    ['bad loc', prog([{ op: 'expr', value: 1, loc: [1] }]), '/steps/0/loc'],
    ['unknown expression kind', prog([ret({ $expr: 'lambada' })]), '/steps/0/value/$expr'],
    ['unknown binary operator', prog([ret({ $expr: 'binary', op: '<>', left: lit(1), right: lit(2) })]), '/steps/0/value/op'],
    ['nested bad node', prog([{ op: 'if', condition: lit(true), then: [{ op: 'while', condition: lit(1), body: [ret({ $expr: 'ident', name: '1x' })] }] }]), '/steps/0/then/0/body/0/value/name'],
    ['template quasis count', prog([ret({ $expr: 'template', quasis: ['a'], expressions: [lit(1)] })]), '/steps/0/value'],
    ['non-finite literal', prog([ret(lit(Infinity))]), '/steps/0/value/value'],
    ['forbidden key in a value template', prog([{ op: 'expr', value: { constructor: 1 } }]), '/steps/0/value/constructor'],
    ['bad pattern', prog([{ op: 'destructure', kind: 'let', pattern: { $pattern: 'tuple' }, value: 1 }]), '/steps/0/pattern/$pattern'],
    ['bad declKind', prog([{ op: 'destructure', kind: 'var', pattern: 'x', value: 1 }]), '/steps/0/kind'],
    ['branches not lists', prog([{ op: 'parallel', branches: [{}] }]), '/steps/0/branches/0'],
    ['switch case without body', prog([{ op: 'switch', discriminant: lit(1), cases: [{ test: lit(1) }] }]), '/steps/0/cases/0/body'],
    ['lambda with both body and steps', prog([ret({ $expr: 'methodCall', object: lit([]), method: 'map', args: [{ $expr: 'lambda', params: [], body: lit(1), steps: [] }] })]), '/steps/0/value/args/0/steps'],
    ['bad function', prog([], { functions: { f: { params: 'x', steps: [] } } }), '/functions/f/params'],
    ['bad regex flags', prog([ret({ $expr: 'regex', pattern: 'a', flags: 'q' })]), '/steps/0/value/flags'],
    ['update of a literal', prog([ret({ $expr: 'update', op: '++', prefix: true, argument: lit(1) })]), '/steps/0/value/argument'],
    ['invalid op name', prog([{ op: 'not-an-op' }]), '/steps/0/op'],
  ]
  for (const [name, ast, path] of cases) {
    test(`${name} → ${path}`, () => {
      const problems = validateAst(ast)
      expect(problems.length).toBeGreaterThan(0)
      expect(problems.map((p) => p.path)).toContain(path)
      for (const p of problems) expect(typeof p.message).toBe('string')
    })
  }
  test('JSON pointer escaping of ~ and /', () => {
    expect(first(prog([{ op: 'expr', value: { 'a/b': { constructor: 1 } } }]))?.path).toBe('/steps/0/value/a~1b/constructor')
  })
  test('every problem is reported, not only the first', () => {
    const problems = validateAst(prog([{ op: 'if', then: [] }, { op: 'return', valu: 1 }]))
    expect(problems.map((p) => p.path)).toEqual(['/steps/0/condition', '/steps/1/valu'])
  })
  test('atoms option restricts custom op names', () => {
    expect(validateAst(prog([{ op: 'custom' }]), { atoms: [] })[0]?.path).toBe('/steps/0/op')
    expect(validateAst(prog([{ op: 'custom' }]), { atoms: ['custom'] })).toEqual([])
    expect(validateAst(prog([{ op: 'custom', anything: id('x') }]))).toEqual([])
  })
})

describe('the VM refuses invalid ASTs before running', () => {
  test('an invalid AST is refused with a JSON-pointer error (error.path and error.details)', async () => {
    let ran = false
    const store = { get: async () => { ran = true; return 1 } }
    const ast = prog([{ op: 'storeGet', key: 'k' }, { op: 'if', condition: lit(true), then: [{ op: 'return', value: { $expr: 'binary', op: '<>', left: lit(1), right: lit(2) } }] }])
    const r = await run(ast, {}, { capabilities: { store } })
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.path).toBe('/steps/1/then/0/value/op')
    expect(r.error?.message).toContain('/steps/1/then/0/value/op')
    expect(r.error?.details).toEqual([{ path: '/steps/1/then/0/value/op', message: 'Unknown binary operator "<>"' }])
    expect(r.fuelUsed).toBe(0)
    expect(ran).toBe(false)
  })
  test('several problems are all in details', async () => {
    const r = await run(prog([{ op: 'if', then: [] }, { op: 'return', valu: 1 }]))
    expect(r.error?.details?.map((d) => d.path)).toEqual(['/steps/0/condition', '/steps/1/valu'])
  })
  test('an unknown format version is AST_VERSION', async () => {
    const r = await run({ ajs: 99, op: 'seq', steps: [] })
    expect(r.error?.code).toBe('AST_VERSION')
    expect(r.error?.path).toBe('/ajs')
  })
})
