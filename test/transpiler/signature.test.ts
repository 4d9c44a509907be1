/**
 * Signatures and input schemas: types from defaults and JSDoc, required vs
 * optional, nested destructuring, JSDoc warnings.
 */
import { expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'

test('types inferred from defaults; no default means required', () => {
  const { signature, ast } = transpile('function f({ a, i = 3, x = 0.5, s = "s", b = true, xs = [1, 2.5], ys = [], o = { k: 1 }, n: { deep = -2 } = {} }) { return {} }')
  expect(signature.params.map((p) => [p.name, p.type, p.required, p.default])).toEqual([
    ['a', 'any', true, undefined], ['i', 'integer', false, 3], ['x', 'number', false, 0.5], ['s', 'string', false, 's'],
    ['b', 'boolean', false, true], ['xs', 'number[]', false, [1, 2.5]], ['ys', 'array', false, []], ['o', 'object', false, { k: 1 }],
    ['n', 'object', false, {}],
  ])
  expect((ast.inputSchema as { properties: Record<string, unknown> }).properties.n).toEqual({
    type: 'object', properties: { deep: { type: 'integer', default: -2 } }, default: {},
  })
  expect((ast.inputSchema as { required: string[] }).required).toEqual(['a'])
})

test('JSDoc types, optional markers, descriptions and dotted paths', () => {
  const src = `/**
 * Books a trip.
 * @param {object} input
 * @param {string} input.city - destination
 * @param {Array<string>} [input.tags] tags to match
 * @param {integer|null} input.days
 */
function book({ city, tags, days }) { return {} }`
  const { signature, ast, warnings } = transpile(src)
  expect(warnings).toEqual([])
  expect(ast.description).toBe('Books a trip.')
  expect(signature.params).toEqual([
    { name: 'city', required: true, type: 'string', schema: { type: 'string', description: 'destination' }, description: 'destination' },
    { name: 'tags', required: false, type: 'string[]', schema: { type: 'array', items: { type: 'string' }, description: 'tags to match' }, description: 'tags to match' },
    { name: 'days', required: true, type: 'integer|null', schema: { type: ['integer', 'null'] } },
  ])
})

test('JSDoc warnings: unknown type, unknown parameter', () => {
  const src = '/**\n * @param {Widget} w\n * @param {string} nope\n */\nfunction f({ w }) { return {} }'
  const { warnings } = transpile(src)
  expect(warnings.map((w) => [w.code, w.line])).toEqual([['AJS4001', 2], ['AJS4002', 3]])
})

test('named parameters', () => {
  const { signature, ast } = transpile('function f(a, b = "x") { return {} }')
  expect(signature.kind).toBe('named')
  expect(ast.inputSchema).toEqual({ type: 'object', properties: { a: {}, b: { type: 'string', default: 'x' } }, required: ['a'] })
})

test('a null default does not narrow the type (issue 11): `{ a = null }` takes any value', async () => {
  const { signature, ast } = transpile('function f({ a = null, o = { k: null } }) { return { a, o } }')
  expect(signature.params.map((p) => [p.name, p.type, p.required, p.default])).toEqual([['a', 'any', false, null], ['o', 'object', false, { k: null }]])
  expect((ast.inputSchema as { properties: Record<string, unknown> }).properties.a).toEqual({ default: null })
  const { AgentVM } = await import('../../src/index.ts')
  const vm = new AgentVM()
  for (const a of ['v', 3, null, { x: 1 }]) expect((await vm.run(ast, { a })).result).toEqual({ a, o: { k: null } })
  expect((await vm.run(ast, { o: { k: 'set' } })).result).toEqual({ a: null, o: { k: 'set' } })
})
