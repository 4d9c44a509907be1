/**
 * The VM's own schema check (args-check.ts) agrees with tosijs-schema, answer and first message,
 * on the schemas it takes, and defers on the rest to the schema part (registered here by
 * test/preload.ts; without it those are refused, test/package/vm-parts.test.ts).
 */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { validate } from 'tosijs-schema'
import { atomSchemaCheck, makeArgsCheck } from '../../src/vm/args-check.ts'

const keys = fc.constantFrom('a', 'b', 'c', 'user', 'n')

/** tosijs-schema's verdict as the check gives it: undefined, or the first problem as `args...: message`. */
function tosijs(value: unknown, schema: object): string | undefined {
  let first: string | undefined
  const ok = validate(value as any, schema as any, (path: string, message: string) => { first ??= `${path === 'root' ? 'args' : `args.${path}`}: ${message}` })
  return ok ? undefined : first
}

test('"object with these keys" schemas: same answer and message as tosijs-schema', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(keys, { maxLength: 4 }), fc.uniqueArray(keys, { maxLength: 4 }),
      fc.oneof(fc.dictionary(keys, fc.jsonValue(), { maxKeys: 5 }), fc.jsonValue(), fc.constant(undefined)),
      (props, required, value) => {
        const schema = { type: 'object', properties: Object.fromEntries(props.map((k) => [k, k === 'n' ? { description: 'x' } : {}])), required }
        expect(makeArgsCheck(schema)(value)).toBe(tosijs(value, schema))
      },
    ),
    { numRuns: 2000, seed: 5 },
  )
})

/** Schemas of the plain-data keywords the VM checks itself, nested. */
const TYPE = fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null')
const leafSchema = fc.record({ type: fc.oneof(TYPE, TYPE.map((t) => [t, 'null'])), default: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] })
const plainSchema: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
  schema: fc.oneof({ maxDepth: 3 }, leafSchema, fc.record({
    type: fc.oneof(TYPE, TYPE.map((t) => [t, 'null'])),
    properties: fc.dictionary(keys, tie('schema') as fc.Arbitrary<Record<string, unknown>>, { maxKeys: 3 }),
    required: fc.uniqueArray(keys, { maxLength: 3 }),
    items: tie('schema') as fc.Arbitrary<Record<string, unknown>>,
    additionalProperties: fc.boolean(),
  }, { requiredKeys: [] })),
})).schema
/** Values shaped like such schemas, and anything else (finite numbers: see the nested test for the rest). */
const plainValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ maxDepth: 3 }, fc.jsonValue({ maxDepth: 1 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(undefined),
    fc.dictionary(keys, tie('value'), { maxKeys: 4 }), fc.array(tie('value'), { maxLength: 4 })),
})).value

test('typed plain-data schemas (the types of defaults, s.object): same answer and message as tosijs-schema', () => {
  fc.assert(
    fc.property(plainSchema, plainValue, (schema, value) => {
      expect(atomSchemaCheck(schema, 'input', 'x')(value)).toBe(tosijs(value, schema))
    }),
    { numRuns: 5000, seed: 7 },
  )
})

test('nested problems: the path and message tosijs-schema gives', () => {
  const schema = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: ['integer', 'null'] }, c: { type: 'object', required: ['n'] } } } } }
  for (const value of [{ a: { b: 'x' } }, { a: { b: null, c: {} } }, { a: { c: { n: 1 } } }, { a: [] }, { a: { b: 1.5 } }, { a: { b: Infinity } }]) {
    expect(atomSchemaCheck(schema, 'input', 'x')(value)).toBe(tosijs(value, schema))
  }
  expect(atomSchemaCheck(schema, 'input', 'x')({ a: { b: 'x' } })).toBe('args.a.b: Expected integer')
  expect(atomSchemaCheck(schema, 'input', 'x')({ a: { c: {} } })).toBe('args.a.c: Missing n')
  const list = { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } }
  for (const value of [[{ a: 'x' }, { a: 1 }], [{}, null], ['x']]) expect(atomSchemaCheck(list, 'input', 'x')(value)).toBe(tosijs(value, list))
  expect(atomSchemaCheck(list, 'input', 'x')([{ a: 'x' }, { a: 1 }])).toBe('args.1.a: Expected string')
  const num = { type: 'object', properties: { x: { type: 'number' } } }
  for (const x of [Infinity, NaN, 1.5]) expect(atomSchemaCheck(num, 'input', 'x')({ x })).toBe(tosijs({ x }, num))
})

test('richer schemas go to tosijs-schema', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] }
  const check = makeArgsCheck(schema)
  expect(check({ n: 1 })).toBeUndefined()
  expect(check({ n: -1 })).toBe('args.n: Value < min')
  expect(check({ n: 1.5 })).toBe('args.n: Expected integer')
  expect(check({})).toBe('args: Missing n')
})
