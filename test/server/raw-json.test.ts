/** rawMember and scanJson find exactly the text JSON.parse reads for a top-level key (property-checked); scanJson measures depth as jsonDepthOver does. */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { rawMember, scanJson, SeenValues } from '../../src/server/raw-json.ts'
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

test('scanJson with remembered values: the same result as a full scan, hit or miss, and only for the same owner', () => {
  const seen = new SeenValues(8, 4, 1 << 20)
  let hits = 0
  const find = seen.find.bind(seen)
  seen.find = (text, at, owner) => { const v = find(text, at, owner); if (v) hits++; return v }
  const asts = fc.oneof(fc.array(fc.jsonValue(), { minLength: 1 }), fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }))
  fc.assert(fc.property(fc.array(asts, { minLength: 1, maxLength: 4 }), fc.jsonValue(), fc.constantFrom(0, 1), fc.integer({ min: 0, max: 6 }), fc.boolean(), (values, args, indent, max, argsFirst) => {
    for (const owner of ['t1', 't2']) {
      // Each value three times (remembered when it comes again, found the third time), under depth limits around its own.
      for (const ast of [...values, ...values, ...values]) {
        const text = JSON.stringify(argsFirst ? { args, ast } : { ast, args }, null, indent)
        const { seen: found, ...got } = scanJson(text, max, 'ast', { values: seen, owner })
        expect(got).toEqual(scanJson(text, max, 'ast'))
        if (found) expect(found.text).toBe(got.member!)
      }
    }
  }), { numRuns: 300 })
  expect(hits).toBeGreaterThan(100)
  // A remembered value found at the member's place, and a changed one not.
  const owner = 'o'
  const v = JSON.stringify({ op: 'seq', name: 'a program of some length', steps: [[1], [2], [[3]]] })
  expect(seen.add(v, 5, owner)).toBeUndefined()
  expect(seen.add(v, 5, owner)?.text).toBe(v)
  expect(seen.find(`{"ast":${v}}`, 7, owner)?.text).toBe(v)
  expect(seen.find(`{"ast":${v}}`, 7, 'other')).toBeUndefined()
  expect(seen.find(`{"ast":${v.slice(0, -1)}`, 7, owner)).toBeUndefined()
  // A value is remembered when it comes again, and reported as seen from its third body on.
  const fresh = new SeenValues()
  const body = JSON.stringify({ ast: { op: 'seq', steps: Array.from({ length: 60 }, (_, i) => ({ op: 'const', value: i })) }, args: {} })
  expect(scanJson(body, 10, 'ast', { values: fresh, owner }).seen).toBeUndefined()
  expect(scanJson(body, 10, 'ast', { values: fresh, owner }).seen).toBeUndefined()
  expect(scanJson(body, 10, 'ast', { values: fresh, owner }).seen?.text).toBe(scanJson(body, 10, 'ast').member!)
  // Bounded: the oldest go.
  for (let i = 0; i < 10; i++) for (const _ of [1, 2]) seen.add(JSON.stringify({ i, pad: 'x'.repeat(60) }), 2, owner)
  expect(seen.find(`{"ast":${v}}`, 7, owner)).toBeUndefined()
})
