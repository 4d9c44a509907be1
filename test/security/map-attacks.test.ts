/**
 * Attacks on the Map statics (src/vm/builtins/maps.ts), from AJS source and from ASTs written by hand
 * (which may call `Map.*` with any arguments and hand any array to them): the host index never does
 * unpaid or quadratic work, never answers for a wrong key, and a bad entries array is a guest error.
 */
import { describe, expect, test } from 'bun:test'
import { runBody, watchingMaps } from './helpers.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'

describe('a text over 16,383 characters never keys a native Map (V8 hashes it by its length alone)', () => {
  // 300 keys of 20,000 characters, one length, one start of 19,995: in one native Map V8 would compare each with
  // those before it (1,000 keys of 100,000 characters: one Map.from ran 25 s in Node, a set loop ran past its timeoutMs).
  const SETUP = "const p = 'a'.repeat(19995)\nconst ks = []\nfor (let i = 0; i < 300; i++) ks.push(p + (10000 + i))\n"
  const FORMS: Record<string, unknown> = {
    'const m = new Map(ks.map((k, i) => [k, i]))\nreturn [m.size, m.get(p + 10007), m.has(p + 99999), m.get(ks[299])]': [300, 7, false, 299],
    'const m = new Map()\nfor (const k of ks) m.set(k, k.length)\nm.set(ks[3], -1)\nreturn [m.size, m.get(ks[3]), m.get(p + 10004)]': [300, -1, 20_000],
    'const m = new Map(ks.map((k, i) => [k, i]))\nm.delete(ks[0])\nreturn [m.size, m.get(ks[0]), m.get(ks[1]), m.has(p + 10299)]': [299, undefined, 1, true],
    'const m = new Map(ks.concat(ks).map((k, i) => [k, i]))\nreturn [m.size, m.get(ks[5])]': [300, 305],
  }
  for (const [body, result] of Object.entries(FORMS)) {
    test(body.split('\n')[0]!, async () => {
      const r = await watchingMaps(SETUP + body)
      expect(r.out).toEqual(result)
      expect(r.longest).toBeLessThanOrEqual(MAX_KEY_CHARS)
    })
  }

  test('long keys are told apart and found as JavaScript\'s Map does', async () => {
    const keys = `const a = 'x'.repeat(${MAX_KEY_CHARS + 1}), b = 'x'.repeat(${MAX_KEY_CHARS}) + 'y', c = 'y' + 'x'.repeat(${MAX_KEY_CHARS + 5}), d = 'x'.repeat(${2 * MAX_KEY_CHARS}) + 'x'.repeat(${MAX_KEY_CHARS})`
    const source = `${keys}
const m = new Map([[a, 1], [b, 2], [c, 3], [a, 4], [NaN, 5], [-0, 6], [d, 7]])
m.set(b.slice(0, ${MAX_KEY_CHARS}) + 'y', 8)
m.set(c + 'z', 9)
return [[...m.values()], m.get(a), m.get('x'.repeat(${MAX_KEY_CHARS + 1})), m.get(c.slice(1) + 'y'), m.get(d), m.get('x'.repeat(${3 * MAX_KEY_CHARS})), m.get(0), m.get(NaN), m.has(c + 'z'), m.has(a + 'x')]`
    const native = new Function(source) as () => unknown
    const r = await watchingMaps(source, 100)
    expect(r.out).toEqual(native())
    expect(r.longest).toBeLessThanOrEqual(MAX_KEY_CHARS)
  })

  test('looking up long keys the Map never had keeps nothing of them', async () => {
    const setup = `const p = 'q'.repeat(${2 * MAX_KEY_CHARS})\nconst m = new Map([[p + 'a', 1]])\n`
    const misses = (n: number) => watchingMaps(`${setup}let n = 0\nfor (let i = 0; i < ${n}; i++) if (m.has('z' + i + p) || m.get(p + i) !== undefined) n++\nreturn [n, m.get(p + 'a')]`)
    const [few, many] = [await misses(10), await misses(200)]
    expect([few.out, many.out]).toEqual([[0, 1], [0, 1]])
    expect(many.sets).toBe(few.sets)
  })
})

describe('a Map lookup pays for hashing its key, as a property key does', () => {
  for (const form of ['m.get(k)', 'm.has(k)', 'm.delete(k)', 'm.set(k, 1)']) {
    test(form, async () => {
      const fuel = async (len: number) => {
        const r = await runBody(`const k = 'k'.padStart(${len}, '0')\nconst m = new Map([['a', 1]])\nfor (let i = 0; i < 100; i++) ${form}\nreturn m.size`, { fuel: 1_000 })
        expect(r.error).toBeUndefined()
        return r.fuelUsed
      }
      // 100 lookups of a key of 65 characters at 0.00001 each, plus the one character more built by padStart.
      expect(await fuel(65) - await fuel(64)).toBeCloseTo(100 * 65 * 0.00001 + 0.00001, 6)
    })
  }
})

test('a frozen array handed to the statics that change a Map is the guest\'s TYPE_ERROR; reading it works', async () => {
  for (const call of ['Map.set(m, 3, 4)', 'Map.delete(m, 1)', 'Map.clear(m)']) {
    const r = await runBody(`const m = Object.freeze(Map.from([[1, 2]]))\nreturn ${call}`)
    expect({ call, code: r.error?.code, message: r.error?.message }).toEqual({ call, code: 'TYPE_ERROR', message: 'A Map method would change a read-only array' })
  }
  const r = await runBody('const m = Object.freeze(Map.from([[1, 2]]))\nreturn [Map.get(m, 1), Map.has(m, 2), Map.size(m), Map.entries(m)]')
  expect(r.result).toEqual([2, false, 1, [[1, 2]]])
})

describe('an array that is not a Map, handed to the statics by an AST written by hand, is the guest\'s TYPE_ERROR', () => {
  const ARRAYS = ['[null]', '[[1, 2], 7]', "['ab']", '(() => { const a = []; a.length = 2; return a })()', '(() => { const a = [[1, 2]]; a[3] = [3, 4]; return a })()']
  const CALLS = ['Map.get(m, 1)', 'Map.get(m, undefined)', 'Map.has(m, 3)', 'Map.set(m, 9, 9)', 'Map.delete(m, 3)', 'Map.keys(m)', 'Map.values(m)', 'Map.entries(m)']
  for (const a of ARRAYS) {
    test(a, async () => {
      for (const call of CALLS) {
        // A helper makes the array (a hole cannot be written in place); each call on a fresh one.
        const body = `const m = ${a.startsWith('(') ? a.replace(/^\(\(\) => \{ (.*) \}\)\(\)$/, '[0].map(() => { $1 })[0]') : a}\nreturn ${call}`
        const r = await runBody(body)
        expect({ call, code: r.error?.code, message: r.error?.message }).toEqual({ call, code: 'TYPE_ERROR', message: 'A Map method was called on something that is not a Map' })
      }
    })
  }
})
