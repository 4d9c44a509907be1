/**
 * A text used as a property key is hashed and compared whole by the engine: over 64 characters it is
 * paid per character first (sizes.ts chargeKey), and over 16,383 characters (MAX_KEY_CHARS) it is refused;
 * in the Set helpers such a text stands in the native Set as a token (text-tokens.ts).
 * V8 hashes a longer text by its length alone, so keys of one length share one bucket and each
 * new one is compared with every other: before, 1,000 keys of 100,000 characters (1,000 fuel to
 * build) ran 10 to 18 s in Node, whatever the run's timeoutMs; a key read in a loop was unpaid.
 */
import { describe, expect, test } from 'bun:test'
import { runBody } from './helpers.ts'
import { MAX_KEY_CHARS } from '../../src/vm/builtins/sizes.ts'

/** Every guest operation that takes `s` as a property key, in a loop: how many times an iteration uses it (a read and a write are two). */
const USES: Record<string, number> = {
  'x = o[s]': 1, 'o[s] = i': 1, 'x = s in o': 1, 'x = s in a': 1, 'delete o[s]': 1, 'o[s] = 1; delete o[s]': 2, 'o[s] += 1': 2, 'o[s]++': 2,
  'x = { [s]: i }': 1, 'const { [s]: y } = o; x = y': 1, 'x = o.hasOwnProperty(s)': 1, 'x = a.hasOwnProperty(s)': 1, 'x = Object.hasOwn(o, s)': 1,
  'x = Object.fromEntries([[s, i]])': 1, 'x = [o][0][s]': 1,
}
const FORMS = Object.keys(USES)

const loop = (len: number, form: string, n: number) =>
  `const s = '1'.padStart(${len}, '0')\nconst o = { b: 1 }\nconst a = [1]\nlet x = 0\nfor (let i = 0; i < ${n}; i++) { ${form} }\nreturn 1`

describe('a long text used as a property key is paid per character before it is hashed', () => {
  for (const form of FORMS) {
    test(form, async () => {
      const fuel = async (len: number) => {
        const r = await runBody(loop(len, form, 100), { fuel: 1_000 })
        expect(r.error).toBeUndefined()
        return r.fuelUsed
      }
      // 100 iterations' keys of 65 characters at 0.00001 each, plus the one character more built by padStart.
      const uses = 100 * USES[form]!
      expect(await fuel(65) - await fuel(64)).toBeCloseTo(uses * 65 * 0.00001 + 0.00001, 6)
      // The longest key a property may have costs its length each time (16,383 characters: 0.16383); against
      // one of 10,000 characters (a source of the same length), 6,383 characters more per iteration and once built.
      expect(await fuel(MAX_KEY_CHARS) - await fuel(10_000)).toBeCloseTo((uses + 1) * (MAX_KEY_CHARS - 10_000) * 0.00001, 6)
    })
  }
})

describe('a text over 16,383 characters is never a property key', () => {
  for (const form of FORMS) {
    test(form, async () => {
      const r = await runBody(loop(MAX_KEY_CHARS + 1, form, 20), { fuel: 1_000 })
      expect(r.error?.code ?? `result ${JSON.stringify(r.result)}`).toBe('RANGE_ERROR')
      expect(r.error?.message).toContain(`at most ${MAX_KEY_CHARS} characters`)
    })
  }

  test('many keys of one length (the attack: quadratic in V8) stop at the first', async () => {
    const body = "const p = 'a'.repeat(100000)\nconst o = {}\nfor (let i = 0; i < 1000; i++) { o[p + (100000 + i)] = 1 }\nreturn Object.keys(o).length"
    const r = await runBody(body, { fuel: 2_000, timeoutMs: 1_000 })
    expect(r.error?.code ?? `result ${JSON.stringify(r.result)}`).toBe('RANGE_ERROR')
    expect(r.fuelUsed).toBeLessThan(5)
  })

  test('number keys and short text keys are as before: unpaid, and the forbidden names still refused', async () => {
    const r = await runBody("const o = { a: 1 }\nconst a = [5, 6]\nconst k = 'x'.repeat(64)\no[k] = 2\nreturn [o['a'], a[1], a['1'], 'a' in o, k in o, o[k], delete o[k], k in o]", { fuel: 1 })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual([1, 6, 6, true, true, 2, true, false])
    for (const bad of ['x = o[k]', 'o[k] = 1', 'x = k in o', 'delete o[k]']) {
      for (const name of ['__proto__', 'constructor', 'prototype']) {
        const f = await runBody(`const o = {}\nconst k = '${name.slice(0, 3)}' + '${name.slice(3)}'\nlet x = 0\n${bad}\nreturn x`)
        expect(f.error?.code).toBe('FORBIDDEN_NAME')
      }
    }
  })
})

describe('a text over 16,383 characters never enters a native Set (V8 hashes it by its length alone)', () => {
  // 300 texts of 20,000 characters, one length, one start of 19,995 characters, and each again: in one native
  // Set V8 compares each with those before it (1,000 texts of 100,000 characters: 9 s for one Set.from in Node).
  const SETUP = "const p = 'a'.repeat(19995)\nconst xs = []\nfor (let i = 0; i < 300; i++) xs.push(p + (10000 + i))\nconst ys = xs.concat(xs.map((x) => x.slice(0, 19999) + x.slice(19999)))\n"
  const FORMS: Record<string, unknown> = {
    'Set.from(ys).length': 300, 'Set.size(ys)': 300, 'Set.union(ys, [p + 99999]).length': 301, 'Set.union(xs.slice(0, 150), ys).length': 300,
    'Set.intersection(ys, xs.slice(10)).length': 290, 'Set.difference(ys, xs.slice(1)).length': 1, 'Set.add(ys, p + 10005).length': 300,
    'Set.add(xs, p + 20000).length': 301, 'Set.delete(ys, p + 10005).length': 299, 'Set.isSubsetOf(ys, xs)': true, 'Set.isSubsetOf(ys, xs.slice(1))': false,
    'Set.from(ys)[7] === p + 10007': true, 'Set.has(ys, p + 10299)': true,
  }
  for (const [form, result] of Object.entries(FORMS)) {
    test(form, async () => {
      const NativeSet = globalThis.Set
      let longest = 0
      // Every native Set the helpers make, watched: the longest text put in one.
      globalThis.Set = class extends NativeSet<unknown> {
        constructor(items?: Iterable<unknown> | null) {
          super(items)
          for (const x of items ?? []) if (typeof x === 'string') longest = Math.max(longest, x.length)
        }
      } as SetConstructor
      try {
        const r = await runBody(`${SETUP}return ${form}`, { fuel: 2_000 })
        expect(r.error?.code ?? r.result).toEqual(result)
      } finally {
        globalThis.Set = NativeSet
      }
      expect(longest).toBeLessThanOrEqual(MAX_KEY_CHARS)
    })
  }

  test('long texts are told apart and found as JavaScript\'s Sets do', async () => {
    const a = 'x'.repeat(MAX_KEY_CHARS + 1), b = 'x'.repeat(MAX_KEY_CHARS) + 'y', c = 'y' + 'x'.repeat(MAX_KEY_CHARS + 5)
    const items = [a, b, 1, a, c, 'a', b, NaN, 0, -0, c + '', NaN]
    const r = await runBody(`const a = 'x'.repeat(${MAX_KEY_CHARS + 1}), b = 'x'.repeat(${MAX_KEY_CHARS}) + 'y', c = 'y' + 'x'.repeat(${MAX_KEY_CHARS + 5})
const items = [a, b, 1, a, c, 'a', b, NaN, 0, -0, c + '', NaN]
return [Set.from(items), Set.size(items), Set.union([b], items), Set.intersection(items, [c, 1, a]), Set.difference(items, [b, 'a']), Set.delete(items, a), Set.add(items, b + 'z'), Set.isSubsetOf([c, a], items), Set.has(items, c)]`, { fuel: 100 })
    const S = (xs: unknown[]) => [...new Set(xs)]
    expect(r.result).toEqual([S(items), new Set(items).size, S([b, ...items]), S(items).filter((x) => ([c, 1, a] as unknown[]).includes(x)),
      S(items).filter((x) => x !== b && x !== 'a'), S(items).filter((x) => x !== a), [...S(items), b + 'z'], true, true])
  })
})
