/**
 * Bare arrays of long documents (a JSON array whose items are long strings with escaped quotes, or records of them)
 * are parsed at once when the colons show every object key short (json-keys.ts shortKeys), not read string by string
 * for a key over 16,383 characters. The guards are the same on this shape as on any text: fuel charged by size
 * before any work, the forbidden keys stripped, the same nesting limits, the engine's own error for invalid JSON, a
 * long key refused with the same message. Values are compared with JavaScript's JSON.parse of the same text.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { vm } from './helpers.ts'
import { parseCheckedKeys, shortKeys } from '../../src/vm/builtins/json-keys.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'
import { draws, longKey, parsedDuring, parsedTexts } from './json-parse-helpers.ts'

/** A document of `lines` lines with quoted words, commas, newlines and (`colons`) a colon every third line. */
const doc = (id: number, lines = 900, colons = false) =>
  `lorem ipsum${colons ? ':' : ''} dolor, "quoted" text ${id}\nlorem ipsum dolor, "quoted" text\nlorem ipsum dolor, "quoted" text\n`.repeat(lines / 3) + `end ${id}`
const docs = (n: number, colons = false) => Array.from({ length: n }, (_, i) => doc(i, 900, colons))

afterEach(() => { expect(JSON.parse('1')).toBe(1) })

/** Fuel of a guest JSON.parse of three documents (the run included), measured before shortKeys (at 868b7a2). */
const FUEL_3_DOCS = 2.28305

const run = (source: string, text: string, fuel = 10_000, args: Record<string, unknown> = {}) =>
  vm.run(source, { text, ...args }, { fuel, maxHeapBytes: 1e9 })
const guestParse = (text: string, fuel?: number) => run('function main(text) { return JSON.parse(text) }', text, fuel)

/** The engine's error message for `text`, or '' when it parses. */
const nativeError = (text: string): string => {
  try { JSON.parse(text) } catch (e) { return (e as Error).message }
  return ''
}

describe('parsed at once when every key is short, value as JavaScript\'s', () => {
  const shapes: Record<string, string> = {
    compact: JSON.stringify(docs(3)),
    pretty: JSON.stringify(docs(3), null, 2),
    python: JSON.stringify(docs(3)).replaceAll('","', '", "'),
    'colons in the documents': JSON.stringify(docs(4, true)),
    'in a record': JSON.stringify({ results: docs(3, true), total: 3 }),
    'records of documents': JSON.stringify(docs(3).map((body, id) => ({ id, body }))),
    'nested and mixed': JSON.stringify([[doc(1)], 1, 'x', null, { a: doc(2), b: [doc(3), true] }, []]),
  }
  for (const [name, text] of Object.entries(shapes)) {
    test(name, async () => {
      let value: unknown
      // Before checkKeys when colons are fewer than one per 256 characters, else at the first long string read as before.
      expect(shortKeys(text, name.includes('colons') || name.includes('record') ? 6 : 8)).toBe(true)
      const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
      expect(seen).toEqual([text])
      expect(value).toEqual(JSON.parse(text))
      const r = await guestParse(text)
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual(JSON.parse(text))
    })
  }
  test('colons denser than one per 64 characters, or an escaped quote in a key: read string by string as before', () => {
    // JSON in strings (every colon after an escaped quote); a key with an escaped quote in it before documents in
    // records (each document then parsed alone, and the rest with placeholders).
    const inner = JSON.stringify(JSON.stringify(Array.from({ length: 900 }, (_, k) => ({ city: 'Paris' + k, note: 'say "hi"' }))))
    for (const text of [`[${inner},${inner}]`, `[{"a\\"b":1},{"body":${JSON.stringify(doc(1))}},{"body":${JSON.stringify(doc(2))}}]`]) {
      let value: unknown
      expect(shortKeys(text, 6)).toBe(false)
      const seen = parsedTexts(() => { value = parseCheckedKeys(text) })
      expect(value).toEqual(JSON.parse(text))
      expect(seen.length).toBeGreaterThan(1)
    }
    // Records whose keys are closer than 256 characters: not scanned before the parse (checkKeys crosses them faster).
    const records = JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ id: i, title: 'a title of the thing number ' + i + ' with more words'.repeat(15), body: 'text' })))
    expect(shortKeys(records, 8)).toBe(false)
    expect(shortKeys(records, 6)).toBe(true)
  })
})

/** Deterministic texts: documents, keys short and over the limit (escapes, backslash runs, colons and quotes in them), whitespace before colons. */
function randomTexts(count: number): string[] {
  const rnd = draws(7)
  const pieces = ['lorem ', ':', '"', '\\', ',', '\n', ': "', '\\"', '{"k":1}', 'é']
  const str = (n: number): string => {
    let s = ''
    while (s.length < n) s += pieces[rnd(pieces.length)]!.repeat(1 + rnd(3))
    return JSON.stringify(s.slice(0, n))
  }
  const long = () => [MAX_KEY_CHARS - 1, MAX_KEY_CHARS, MAX_KEY_CHARS + 1, 20_000][rnd(4)]!
  const ws = () => ['', '', ' ', '\n\t '][rnd(4)]!
  const value = (depth: number): string => {
    const r = depth > 3 ? rnd(2) : rnd(5)
    if (r === 0) return str(rnd(3) ? 5 + rnd(50) : 20_000 + rnd(30_000))
    if (r === 1) return String(rnd(1000))
    if (r === 2) return `[${Array.from({ length: 1 + rnd(4) }, () => value(depth + 1)).join(',' + ws())}]`
    const keys = new Map(Array.from({ length: 1 + rnd(3) }, () => { const k = rnd(6) ? str(1 + rnd(20)) : str(long()); return [JSON.parse(k) as string, k] }))
    return `{${[...keys.values()].map((k) => `${k}${ws()}:${ws()}${value(depth + 1)}`).join(',')}}`
  }
  return Array.from({ length: count }, () => value(0))
}

test('random texts: shortKeys says so only when no key is over 16,383 characters; the parse refuses exactly those', () => {
  let clear = 0, long = 0
  for (const t of randomTexts(400)) {
    const expected = JSON.parse(t)
    const refuse = longKey(expected)
    if (shortKeys(t, 6) || shortKeys(t, 8)) {
      clear++
      expect(refuse).toBe(false)
    }
    if (refuse) {
      long++
      expect(() => parseCheckedKeys(t)).toThrow('an object key may be at most')
    } else {
      expect(parseCheckedKeys(t)).toEqual(expected)
    }
  }
  // Both outcomes are exercised.
  expect(clear).toBeGreaterThan(40)
  expect(long).toBeGreaterThan(40)
})

describe('a key over 16,383 characters among documents is refused as before', () => {
  const key = (n: number, unit = 'a') => JSON.stringify(unit.repeat(n))
  const items = docs(2).map((d) => JSON.stringify(d))
  const refused = (text: string, at: number, chars: number) => {
    expect(() => parseCheckedKeys(text)).toThrow(`at most ${MAX_KEY_CHARS} characters (the one at position ${at} has ${chars})`)
  }
  test('plain, escaped, with whitespace before its colon, nested; one at the limit parses', async () => {
    const head = `[${items[0]},`
    refused(`${head}{${key(MAX_KEY_CHARS + 1)}:1},${items[1]}]`, head.length + 1, MAX_KEY_CHARS + 1)
    refused(`${head}{${key(MAX_KEY_CHARS + 1, '"')} \n\t: 1},${items[1]}]`, head.length + 1, MAX_KEY_CHARS + 1)
    refused(`${head}[{"b":[{${key(20000, '\\')}:2}]}],${items[1]}]`, head.length + 8, 20000)
    // A colon right after a string's opening quote, far from the quote before it: not a key, read as before.
    refused(`${head}":x",{${key(MAX_KEY_CHARS + 1)}:1}]`, head.length + 6, MAX_KEY_CHARS + 1)
    const atLimit = `${head}{${key(MAX_KEY_CHARS)}:1},${items[1]}]`
    expect(parseCheckedKeys(atLimit)).toEqual(JSON.parse(atLimit))
    const r = await guestParse(`${head}{${key(MAX_KEY_CHARS + 1)}:1},${items[1]}]`)
    expect(r.error?.code).toBe('RANGE_ERROR')
  })
})

describe('the guards on a bare array of documents', () => {
  test('forbidden keys inside the items are stripped, nothing is polluted', async () => {
    const text = `[${JSON.stringify(doc(1))},{"__proto__":{"polluted":1},"constructor":{"prototype":2},"a":[{"prototype":3,"b":${JSON.stringify(doc(2))}}],"\\u005f_proto__":4},${JSON.stringify(doc(3))}]`
    const r = await guestParse(text)
    expect(r.error).toBeUndefined()
    const native = JSON.parse(text)
    expect(r.result).toEqual([native[0], { a: [{ b: native[1].a[0].b }] }, native[2]])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test('nesting: parsed as deep as JavaScript parses, then the same limits as any value', async () => {
    const deep = (d: number) => `[${JSON.stringify(doc(1))},${'['.repeat(d)}1${']'.repeat(d)},${JSON.stringify(doc(2))}]`
    const ok = await guestParse(deep(3_000))
    expect(ok.error).toBeUndefined()
    expect(ok.result).toEqual(JSON.parse(deep(3_000)))
    // 20,000 levels parse (the guest reads the items), but neither serialise nor return; as a text without documents.
    for (const text of [deep(20_000), `[1,${'['.repeat(20_000)}1${']'.repeat(20_000)},2]`]) {
      const read = await run('function main(text) { const v = JSON.parse(text)\nreturn [v.length, v[0].length] }', text)
      expect(read.result).toEqual([3, JSON.parse(text)[0].length])
      const out = await guestParse(text)
      expect(out.error?.code).toBe('VALUE_TOO_LARGE')
      expect(out.error?.message).toContain('nests too deeply')
      const str = await run('function main(text) { return JSON.stringify(JSON.parse(text)).length }', text)
      expect(str.error?.code).toBe('RANGE_ERROR')
      expect(str.error?.message).toContain('deeper than 5000 levels')
    }
  })

  test('fuel: charged by the text\'s length before any work, whichever way it is read', async () => {
    const text = JSON.stringify(docs(3))
    // A text of records (read string by string) padded to the same length.
    const records = JSON.stringify(Array.from({ length: 1_500 }, (_, i) => ({ id: i, name: 'user' + i, note: 'say "hi"' })))
    expect(records.length).toBeLessThan(text.length)
    const same = records + ' '.repeat(text.length - records.length)
    const source = 'function main(text) { JSON.parse(text)\nreturn 1 }'
    const a = await run(source, text), b = await run(source, same)
    expect(a.error).toBeUndefined()
    expect(b.error).toBeUndefined()
    expect(a.fuelUsed).toBe(b.fuelUsed)
    expect(a.fuelUsed).toBe(FUEL_3_DOCS)
    // Short of it by a little: out of fuel before the engine sees the text.
    let r: Awaited<ReturnType<typeof run>> | undefined
    const seen = await parsedDuring(async () => { r = await run(source, text, a.fuelUsed - 0.001) })
    expect(r!.error?.code).toBe('FUEL_EXHAUSTED')
    expect(seen).toEqual([])
  })

  test('fuel runs out in the middle of an array of JSON documents: each item charged before its parse', async () => {
    const items = docs(5).map((body, id) => JSON.stringify({ id, body }))
    const text = JSON.stringify(items)
    const source = 'function main(text, stop) { const items = JSON.parse(text)\nlet n = 0\nfor (const it of items) { if (n === stop) return n\nJSON.parse(it)\nn++ }\nreturn n }'
    const full = await run(source, text, 10_000, { stop: -1 })
    expect(full.result).toBe(5)
    const two = await run(source, text, 10_000, { stop: 2 })
    expect(two.result).toBe(2)
    let r: Awaited<ReturnType<typeof run>> | undefined
    const seen = await parsedDuring(async () => { r = await run(source, text, two.fuelUsed, { stop: -1 }) })
    expect(r!.error?.code).toBe('FUEL_EXHAUSTED')
    // The array and its first two items were parsed; the third was charged for and never parsed.
    expect(seen).toEqual([text, items[0], items[1]])
  })

  test('invalid JSON in the Nth item fails with the engine\'s message, as native JSON.parse', async () => {
    const items = docs(4).map((d) => JSON.stringify(d))
    const breaks: Array<(item: string) => string> = [
      (it) => it.replace('\\n', '\n'), // a raw line break inside the string
      (it) => it.replace('\\n', '\\x'), // an escape JSON has not
      (it) => it + '"', // a quote too many: two strings without a comma
      (it) => it.slice(0, -1), // the string not closed before the comma
    ]
    for (let n = 0; n < items.length; n++) {
      for (const broken of breaks) {
        for (const join of [',', ', ', ',\n  ']) {
          const text = `[${items.map((it, k) => (k === n ? broken(it) : it)).join(join)}]`
          const message = nativeError(text)
          expect(message).not.toBe('')
          const r = await guestParse(text)
          expect(r.error?.code).toBe('JSON_ERROR')
          expect(r.error?.message).toBe(message)
        }
      }
    }
    // Cut inside the last item; a trailing comma.
    for (const text of [`[${items.join(',')}`.slice(0, -100), `[${items.join(',')},]`]) {
      const r = await guestParse(text)
      expect(r.error?.message).toBe(nativeError(text))
    }
  })
})
