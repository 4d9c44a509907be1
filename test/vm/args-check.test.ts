/** The direct args check agrees with tosijs-schema on the shapes it takes, and defers on the rest. */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { validate } from 'tosijs-schema'
import { makeArgsCheck } from '../../src/vm/args-check.ts'

const keys = fc.constantFrom('a', 'b', 'c', 'user', 'n')

test('"object with these keys" schemas: same answer as tosijs-schema', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(keys, { maxLength: 4 }), fc.uniqueArray(keys, { maxLength: 4 }),
      fc.oneof(fc.dictionary(keys, fc.jsonValue(), { maxKeys: 5 }), fc.jsonValue()),
      (props, required, value) => {
        const schema = { type: 'object', properties: Object.fromEntries(props.map((k) => [k, k === 'n' ? { description: 'x' } : {}])), required }
        expect(makeArgsCheck(schema)(value)).toBe(validate(value as any, schema as any))
      },
    ),
    { numRuns: 2000, seed: 5 },
  )
})

test('richer schemas go to tosijs-schema', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
  const check = makeArgsCheck(schema)
  expect(check({ n: 1 })).toBe(true)
  expect(check({ n: 1.5 })).toBe(false)
  expect(check({ n: 'x' })).toBe(false)
})
