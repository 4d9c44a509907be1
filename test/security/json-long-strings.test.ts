/**
 * JSON.parse of texts whose long strings are full of escaped quotes (JSON in a string, documents with quoted
 * words). json-keys.ts guesses where such a string ends, proves it with JSON.parse of that one string, and
 * parses the rest with the string as a placeholder (KeyScan.parse). The values must be JavaScript's on every
 * text, placeholders and wrong guesses included, and a key over 16,383 characters is still refused before
 * any parse (json-long-keys.test.ts has the attacks).
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { vm } from './helpers.ts'
import { parseCheckedKeys } from '../../src/vm/builtins/json-keys.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'
import { draws, longKey, parsedTexts } from './json-parse-helpers.ts'

/** The guest's JSON.parse of `text`, its value returned. */
const guest = (text: string) => vm.run('function main(text) { return JSON.parse(text) }', { text }, { fuel: 10_000, maxHeapBytes: 1e9 })

const sameAsJs = async (text: string) => {
  const r = await guest(text)
  expect(r.error).toBeUndefined()
  expect(r.result).toEqual(JSON.parse(text))
}

/** JSON text of a string that holds JSON of `n` records (escaped quotes every few characters), ending in `tail`. */
const inner = (n: number, tail = '') => JSON.stringify(JSON.stringify(Array.from({ length: n }, (_, k) => ({ city: 'Paris' + k, note: k % 5 ? 'x' : 'say "hi"\\ \n' }))) + tail)
const prose = (n: number, end = 'the end.') => JSON.stringify('lorem ipsum, "quoted" text\n'.repeat(n) + end)

afterEach(() => { expect(JSON.parse('1')).toBe(1) })

describe('long strings with escaped quotes parse to JavaScript\'s values', () => {
  test('JSON in strings: several records, arrays and objects, at the top level', async () => {
    const records = (n: number) => `[${Array.from({ length: n }, (_, i) => `{"id":${i},"arguments":${inner(700 + i)}}`).join(',')}]`
    await sameAsJs(records(1))
    await sameAsJs(records(5))
    // Objects in strings end with }", arrays with ]"; a string as the whole text; pretty-printed with spaces and newlines.
    await sameAsJs(JSON.stringify({ a: JSON.stringify({ x: 'y"z'.repeat(9000) }), b: JSON.stringify({ x: 'q\\"'.repeat(9000) }) }))
    await sameAsJs(inner(900))
    await sameAsJs(JSON.stringify(JSON.parse(records(3)), null, 2))
  })
  test('documents: one, several, a short escaped string before, after and between', async () => {
    await sameAsJs(`{"id":1,"body":${prose(1000)}}`)
    await sameAsJs(`[{"a":"x\\"y"},${prose(1000)},{"b":"\\"\\""},${prose(900, 'x')},"\\\\",${prose(800, 'done]')}]`)
    await sameAsJs(`{"a":"x\\"y","b":${prose(2000)},"c":"z\\"","d":${prose(700, '')}}`)
  })
  test('backslash runs before quotes, unicode escapes, strings that end in a backslash', async () => {
    // \\" ends a string; \\\" does not; a string may end with \\ (the text \\\\").
    const s1 = JSON.stringify('a\\"b\\\\"c'.repeat(3000) + '\\')
    const s2 = JSON.stringify('\\'.repeat(20000) + '"' + '\\"'.repeat(5000))
    const s3 = '"' + '\\u0022x\\u005c\\"'.repeat(3000) + '\\u005C"'
    await sameAsJs(`[${s1},${s2},${s3},"\\\\",${s1}]`)
    await sameAsJs(`{"k":${s2},"k2":${s3},"k3":[${s1}]}`)
  })
  test('placeholders the text already holds, raw or escaped, keep their own values', async () => {
    const ph = ['"\\uffff0"', '"\\uFFFF1"', '"\uffff0"', '"\uffff"', '"\uffffx"', '"\uffff00"']
    for (const p of ph) {
      await sameAsJs(`[${p},${inner(800)},{"a":${p}},${inner(700)}]`)
      await sameAsJs(`{"x":${inner(800)},"y":${p}}`)
    }
  })
  test('the forbidden keys are stripped beside long strings, as before', async () => {
    const r = await guest(`{"__proto__":{"polluted":1},"constructor":2,"a":${inner(800)},"b":[{"__proto__":3}]}`)
    expect(r.error).toBeUndefined()
    expect(Object.keys(r.result as object)).toEqual(['a', 'b'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
  test('a text that does not parse fails with the engine\'s message', async () => {
    for (const t of [`[${inner(800)},]`, `{"a":${inner(800)} "b":1}`, `[${inner(800)}`, `[${prose(900)}, ${prose(900)}}`]) {
      let message = ''
      try { JSON.parse(t) } catch (e) { message = (e as Error).message }
      const r = await guest(t)
      expect(r.error?.code).toBe('JSON_ERROR')
      expect(r.error?.message).toBe(message)
    }
  })
})

describe('keys at the limit, with escapes, beside long strings', () => {
  const key = (n: number, unit: string) => `"${unit.repeat(n)}"`
  test('a key of 16,383 characters parses, one of 16,384 is refused, escaped or not', async () => {
    for (const unit of ['a', '\\"', '\\\\', '\\u0022']) {
      await sameAsJs(`[${inner(800)},{${key(MAX_KEY_CHARS, unit)}:1},${inner(800)}]`)
      const r = await guest(`[${inner(800)},{${key(MAX_KEY_CHARS + 1, unit)}:1},${inner(800)}]`)
      expect(r.error?.code).toBe('RANGE_ERROR')
      expect(r.error?.message).toContain(`(the one at position ${inner(800).length + 3} has ${MAX_KEY_CHARS + 1})`)
    }
  })
  test('a key of a few thousand escaped quotes that ends with a closer, before a long string, stays a key', async () => {
    await sameAsJs(`[{${JSON.stringify('a"'.repeat(1500) + '}')}:1,"b":2},${inner(800)}]`)
    await sameAsJs(`[{${JSON.stringify('a"'.repeat(1500) + ']')} :${inner(800)}}]`)
  })
  test('a long key full of escaped quotes after long values is refused, whitespace before its colon', async () => {
    const r = await guest(`{"a":${inner(800)},"b":${prose(900)},${inner(800)} \n: 1}`)
    expect(r.error?.code).toBe('RANGE_ERROR')
    expect(r.error?.message).toContain('an object key may be at most')
  })
})

describe('the string is parsed once, where its end was guessed right', () => {
  // Short keys denser than one per 64 characters: the text is not parsed at once on its colons (shortKeys), each long
  // string is read (json-doc-arrays.test.ts has the texts that are).
  const dense = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))
  test('JSON in strings and a document: each long string alone, then the rest with placeholders', () => {
    const text = `[{"id":1,"arguments":${inner(800)}},{"id":2,"arguments":${inner(900)}},{"body":${prose(900)}}]`
    let value: unknown
    const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
    expect(value).toEqual(JSON.parse(text))
    expect(seen.length).toBe(4)
    expect(seen.slice(0, 3).every((t) => t.length > MAX_KEY_CHARS && t.startsWith('"'))).toBe(true)
    expect(seen[3]).toBe('[{"id":1,"arguments":"\\uffff0"},{"id":2,"arguments":"\\uffff1"},{"body":"\\uffff2"}]')
  })
  test('documents in pretty-printed records: a key then whitespace bounds the one before', () => {
    const text = JSON.stringify([dense, ...[1, 2, 3].map((id) => ({ id, body: JSON.parse(prose(900, String(id))) }))], null, 2)
    let value: unknown
    const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
    expect(value).toEqual(JSON.parse(text))
    expect(seen.length).toBe(4)
    expect(seen.at(-1)).toContain('"body": "\\uffff2"')
  })
  test('documents in records: probes cross into the next one, and the key before it bounds the first', () => {
    const text = `[${JSON.stringify(dense)},{"id":1,"body":${prose(900, 'a')}},{"id":2,"body":${prose(900, 'b')}},{"id":3,"body":${prose(900, 'c')}}]`
    let value: unknown
    const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
    expect(value).toEqual(JSON.parse(text))
    expect(seen.at(-1)).toBe(`[${JSON.stringify(dense)},{"id":1,"body":"\\uffff0"},{"id":2,"body":"\\uffff1"},{"id":3,"body":"\\uffff2"}]`)
    expect(seen.length).toBe(4)
  })
  test('documents as the items of an array: no colon, so no key, and the text is parsed as it is', () => {
    const text = `[${prose(900, 'a')},${prose(900, 'b')},${prose(900, 'c')}]`
    let value: unknown
    const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
    expect(value).toEqual(JSON.parse(text))
    expect(seen).toEqual([text])
  })
  test('a wrong guess is paid once and the text parses as it is', () => {
    // A document, then JSON in a string in an array: probes cross from the first into the second, and no quote follows
    // a colon or a comma between them.
    const text = `{"a":${prose(900, 'a')}, "b": [${inner(800)}]}`
    let value: unknown
    const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
    expect(value).toEqual(JSON.parse(text))
    expect(seen.at(-1)).toBe(text)
    expect(seen.length).toBe(2)
  })
})

/** Deterministic texts of long strings (escaped quotes and backslashes, closers inside and at the end), short tokens and keys. */
function randomTexts(count: number): string[] {
  const rnd = draws(11)
  const pieces = ['a', '"', '\\', '}', ']', ':', ',', '\n', '{"k":1}', '\uffff']
  const str = (): string => {
    const n = [0, 5, 600, 5000, MAX_KEY_CHARS, MAX_KEY_CHARS + 1, 20000, 40000][rnd(8)]!
    let s = ''
    while (s.length < n) s += pieces[rnd(pieces.length)]!.repeat(1 + rnd(40))
    return JSON.stringify(s.slice(0, n) + ['', '}', ']', '"', '\\'][rnd(5)])
  }
  const value = (depth: number): string => {
    const r = depth === 0 ? 2 + rnd(2) : rnd(depth > 2 ? 2 : 4)
    if (r === 0) return str()
    if (r === 1) return String(rnd(100))
    if (r === 2) return `[${Array.from({ length: 1 + rnd(4) }, () => value(depth + 1)).join(rnd(2) ? ',' : ' ,\n')}]`
    const keys = new Map(Array.from({ length: 1 + rnd(3) }, () => { const k = rnd(4) ? `"k${rnd(1000)}"` : str(); return [JSON.parse(k) as string, k] }))
    return `{${[...keys.values()].map((k) => `${k}${rnd(2) ? '' : ' '}:${value(depth + 1)}`).join(',')}}`
  }
  return Array.from({ length: count }, () => value(0))
}

test('random texts: the value JavaScript parses, or a refusal exactly when it has a key over 16,383 characters', () => {
  let refused = 0, skeletons = 0
  for (const t of randomTexts(300)) {
    const expected = JSON.parse(t)
    let value: unknown, error: unknown
    const seen = parsedTexts(() => { try { value = parseCheckedKeys(t) } catch (e) { error = e } })
    if (longKey(expected)) {
      refused++
      expect((error as Error | undefined)?.message).toContain('an object key may be at most')
      // At most long strings were parsed, each alone: a text that starts with a quote is one string or an error
      // after it (no object, so no key, was built).
      expect(seen.every((s) => s.startsWith('"'))).toBe(true)
    } else {
      expect(error).toBeUndefined()
      expect(value).toEqual(expected)
      if (seen.some((s) => s.includes('"\\uffff0"'))) skeletons++
    }
  }
  // Both outcomes, and the placeholder parse, are exercised.
  expect(refused).toBeGreaterThan(20)
  expect(skeletons).toBeGreaterThan(20)
})
