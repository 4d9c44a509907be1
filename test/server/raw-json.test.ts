/** rawMember and scanJson find exactly the text JSON.parse reads for a top-level key (property-checked); scanJson measures depth as jsonDepthOver does. */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { rawMember, scanJson } from '../../src/server/raw-json.ts'
import { jsonDepthOver } from '../../src/server/app.ts'

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

test('scanJson: the depth a walk of the parsed value gives, and the raw text of an object or array member', () => {
  fc.assert(fc.property(fc.dictionary(fc.constantFrom('ast', 'args', 'a\\"st', 'x'), fc.jsonValue()), fc.constantFrom(0, 1, '\t'), fc.integer({ min: 0, max: 6 }), (obj, indent, max) => {
    const text = JSON.stringify(obj, null, indent)
    const scan = scanJson(text, max, 'ast')
    expect(scan.tooDeep).toBe(jsonDepthOver(obj, max))
    const v = (obj as Record<string, unknown>)['ast']
    if (Object.hasOwn(obj, 'ast') && v !== null && typeof v === 'object') {
      expect(JSON.parse(scan.member!)).toEqual(JSON.parse(JSON.stringify(v)))
      expect(text.slice(scan.start, scan.end)).toBe(scan.member!)
      // The body with the member's value replaced parses to the body with an empty object there.
      expect(JSON.parse(text.slice(0, scan.start) + '{}' + text.slice(scan.end))).toEqual({ ...JSON.parse(text), ast: {} })
    } else expect(scan.member).toBeUndefined()
  }), { numRuns: 300 })
  expect(scanJson('{"\\u0061st": {"a":"}\\\\"}, "x": [[["\\""]]]}', 3, 'ast')).toEqual({ tooDeep: true, member: '{"a":"}\\\\"}', start: 13, end: 24 })
  expect(scanJson('[[1]]', 2, 'ast')).toEqual({ tooDeep: false, member: undefined, start: -1, end: -1 })
  expect(scanJson('[[1]]', 1, 'ast')).toEqual({ tooDeep: true, member: undefined, start: -1, end: -1 })
  expect(scanJson('"s"', 0, 'ast')).toEqual({ tooDeep: false, member: undefined, start: -1, end: -1 })
})
