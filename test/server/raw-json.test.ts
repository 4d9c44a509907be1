/** rawMember finds exactly the text JSON.parse reads for a top-level key (property-checked). */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { rawMember } from '../../src/server/raw-json.ts'

test('the raw text of a member parses to the member JSON.parse gives, for any object and spacing', () => {
  fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(0, 1, '\t'), fc.string(), (obj, indent, probe) => {
    const text = JSON.stringify(obj, null, indent)
    for (const key of [...Object.keys(obj), probe]) {
      const raw = rawMember(text, key)
      if (Object.hasOwn(obj, key)) expect(JSON.parse(raw!)).toEqual(JSON.parse(JSON.stringify(obj[key])))
      else expect(raw).toBeUndefined()
    }
  }), { numRuns: 300 })
})

test('escaped keys, strings with braces and quotes, duplicate keys (the last wins)', () => {
  expect(rawMember('{"\\u0061st": {"a":"}\\"{"}, "x": 1}', 'ast')).toBe('{"a":"}\\"{"}')
  expect(rawMember('{"ast": 1, "ast": [2, {"b": "]"}]}', 'ast')).toBe('[2, {"b": "]"}]')
  expect(rawMember(' { "a" : true , "b":null } ', 'b')).toBe('null')
  expect(rawMember('[1]', 'a')).toBeUndefined()
})
