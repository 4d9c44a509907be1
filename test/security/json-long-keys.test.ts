/**
 * JSON.parse internalizes every object key, and V8 hashes a text over 16,383 characters (MAX_KEY_CHARS) by
 * its length alone: keys of one such length are each compared with the others when their objects are built.
 * Before, 1,900 keys of 16,500 characters ran 5.2 s past a 1 s timeoutMs on 2,949 fuel. Such a key is now
 * refused before the parse (json.ts checkKeys), as a property key is; values of any length, and keys up to
 * the limit, parse as before.
 */
import { describe, expect, test } from 'bun:test'
import { runBody, vm } from './helpers.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'
import { draws, longKey } from './json-parse-helpers.ts'

/** A guest expression for the text made of `parts`: a string is itself, [n, piece] is `piece` repeated n times. */
const text = (...parts: Array<string | [number, string]>) => parts.map((x) => (typeof x === 'string' ? JSON.stringify(x) : `${JSON.stringify(x[1])}.repeat(${x[0]})`)).join(' + ')
const parse = (...parts: Array<string | [number, string]>) =>
  runBody(`const v = JSON.parse(${text(...parts)})\nreturn Array.isArray(v) ? v.length : typeof v === 'object' && v !== null ? Object.keys(v).map((k) => k.length) : v`, { fuel: 5_000 })

const refused = async (at: number, chars: number, ...parts: Array<string | [number, string]>) => {
  const r = await parse(...parts)
  expect(r.error?.code ?? `result ${JSON.stringify(r.result)}`).toBe('RANGE_ERROR')
  expect(r.error?.message).toContain(`at most ${MAX_KEY_CHARS} characters (the one at position ${at} has ${chars})`)
}
const parsed = async (result: unknown, ...parts: Array<string | [number, string]>) => {
  const r = await parse(...parts)
  expect(r.error).toBeUndefined()
  expect(r.result).toEqual(result)
}

describe('JSON.parse refuses an object key over 16,383 characters before it parses', () => {
  test('the many-keys attack ends at its first key, paid only for the text', async () => {
    const r = await runBody(`const p = 'a'.repeat(16494)\nconst parts = []\nfor (let i = 0; i < 300; i++) parts.push('"' + p + String(100000 + i) + '":1')\nreturn JSON.parse('{' + parts.join(',') + '}')`, { fuel: 1_000 })
    expect(r.error?.code).toBe('RANGE_ERROR')
    expect(r.error?.message).toContain('(the one at position 1 has 16500)')
    // 4.95M characters built three times and parsed (0.00001 each, and 0.0001 per 8 for the parse), 466 fuel
    // in all: the parse, which before took seconds, ended before its native call.
    expect(r.fuelUsed).toBeLessThan(470)
  })
  test('one key, whitespace before its colon, nested, after escaped quotes and backslashes', async () => {
    await refused(1, MAX_KEY_CHARS + 1, '{"', [MAX_KEY_CHARS + 1, 'a'], '":1}')
    await refused(1, 20000, '{"', [20000, 'a'], '" \n\t : 1}')
    await refused(12, 20000, '[1, {"a": [{"', [20000, 'a'], '": 2}]}]')
    await refused(15, 20000, '{"a\\\\": "b\\"", "', [20000, 'a'], '": 1}')
    // Quotes inside the key (escaped: \") break no run of the text.
    await refused(1, 20000, '{"', [5000, 'ab\\"c'], '": 1}')
    await refused(1, 18000, '{"', [6000, 'ab\\"'], '": 1}')
    await parsed([15000], '{"', [5000, 'ab\\"'], '": 1}')
  })
  test('a key counts its characters, an escape as one', async () => {
    // 3,000 \u0041 escapes (18,000 characters of text) are a key of 3,000.
    await parsed([3000], '{"', [3000, '\\u0041'], '": 1}')
    await refused(1, MAX_KEY_CHARS + 1, '{"', [MAX_KEY_CHARS + 1, '\\n'], '": 1}')
    await parsed([MAX_KEY_CHARS], '{"', [MAX_KEY_CHARS, '\\n'], '": 1}')
  })
  test('keys up to the limit and values of any length parse as before', async () => {
    await parsed([MAX_KEY_CHARS, 1], '{"', [MAX_KEY_CHARS, 'a'], '":1, "b": 2}')
    await parsed([1, 1], '{"a": "', [100000, 'a'], '", "b": "', [100000, 'a'], '"}')
    // A value that holds escaped quotes and colons, and ends with an escaped backslash, before a short key.
    await parsed([1, 1], '{"a": "', [5000, 'x\\": '], '\\\\", "b": 1}')
    // A long run outside strings (numbers), before a string that starts with a colon, and keys.
    await parsed([1, 1], '{"a": [', [10000, '1,'], '":"], "b": 1}')
    await parsed([1, MAX_KEY_CHARS], '{"a": [', [10000, '1,'], '"x"], "', [MAX_KEY_CHARS, 'b'], '": 1}')
    await parsed(10001, '[', [10000, '"abc",'], '1]')
  })
})

/** Deterministic texts mixing short and long keys and values, escapes and long runs of numbers. */
function randomTexts(count: number): string[] {
  const rnd = draws(7)
  const pieces = ['a', 'b', '"', '\\', 'A', ':', ',', '\n', ' ']
  const str = (): string => {
    const n = [0, 3, 40, 5000, MAX_KEY_CHARS - 2, MAX_KEY_CHARS, MAX_KEY_CHARS + 1, 17000][rnd(8)]!
    let s = ''
    while (s.length < n) s += pieces[rnd(pieces.length)]!.repeat(1 + rnd(200))
    // The text of s: escapes as JSON.stringify writes them, and some A as \u0041.
    return JSON.stringify(s.slice(0, n)).slice(1, -1).replace(/A/g, () => (rnd(2) ? 'A' : '\\u0041'))
  }
  const value = (depth: number): string => {
    const r = depth === 0 ? 3 + rnd(2) : rnd(depth > 2 ? 3 : 5)
    if (r === 0) return `"${str()}"`
    if (r === 1) return Array.from({ length: rnd(3) ? 1 : 3000 }, () => rnd(1000)).join(',').replace(/^/, '[').replace(/$/, ']')
    if (r === 2) return String(rnd(100))
    if (r === 3) return `[${Array.from({ length: 1 + rnd(3) }, () => value(depth + 1)).join(', ')}]`
    // Keys distinct in each object (of a repeated key the parse keeps the last value, the reference would miss the first).
    const keys = new Map(Array.from({ length: 1 + rnd(3) }, () => { const k = str(); return [JSON.parse(`"${k}"`) as string, k] }))
    return `{${[...keys.values()].map((k) => `"${k}" ${rnd(2) ? '' : ' \n'}: ${value(depth + 1)}`).join(',')}}`
  }
  return Array.from({ length: count }, () => value(0))
}

test('refused exactly when the value JavaScript parses has a key over 16,383 characters (random texts)', async () => {
  let refusedCount = 0
  for (const t of randomTexts(150)) {
    const expected = longKey(JSON.parse(t))
    const r = await vm.run('function main(text) { const v = JSON.parse(text)\nreturn 1 }', { text: t }, { fuel: 5_000 })
    expect(r.error?.code ?? 'parsed').toBe(expected ? 'RANGE_ERROR' : 'parsed')
    if (expected) refusedCount++
  }
  // Both outcomes are exercised.
  expect(refusedCount).toBeGreaterThan(10)
  expect(refusedCount).toBeLessThan(140)
})
