/**
 * A text over 64 characters searched for in another (`indexOf`, `includes`, `lastIndexOf`, `split`,
 * `replace`, `replaceAll`) is found in linear time and its length paid (builtins/text-search.ts).
 * Before, the engine searched: in a text of 200,000 'a', a pattern of 10,000 'a', a 'b' and 10,000
 * 'a' (or, for V8's lastIndexOf, 20,000 'a' and a 'b') cost ~2·10^9 character comparisons a call,
 * about a second, paid as 200,000 reads: three calls ran far past a 1 s limit.
 */
import { describe, expect, test } from 'bun:test'
import { runBody } from './helpers.ts'

const SETUP = "const s = 'a'.repeat(200000)\nconst t = 'a'.repeat(10000) + 'b' + 'a'.repeat(10000)\nconst u = 'a'.repeat(20000) + 'b'\nconst v = 'b'.repeat(64)\nlet x = null\n"

/** Each form (the pattern t or u, of 20,001 characters) and its result: no match in any of them. */
const FORMS: Record<string, unknown> = {
  'x = s.indexOf(t)': -1, 'x = s.indexOf(u, 5)': -1, 'x = s.includes(t)': false, 'x = s.includes(u, 100)': false,
  'x = s.lastIndexOf(t)': -1, 'x = s.lastIndexOf(u)': -1, 'x = s.lastIndexOf(u, 150000)': -1,
  'x = s.split(t).length': 1, 'x = s.split(u, 3).length': 1,
  'x = s.replace(t, "x").length': 200000, 'x = s.replaceAll(u, "x").length': 200000, 'x = s.replace(t, "$&$&").length': 200000,
}

describe('a long pattern is searched for in linear time, its length paid', () => {
  for (const [form, result] of Object.entries(FORMS)) {
    test(form, async () => {
      const run = (f: string) => runBody(`${SETUP}for (let i = 0; i < 3; i++) { ${f} }\nreturn x`, { fuel: 1e6, timeoutMs: 1_000 })
      const long = await run(form)
      expect(long.error?.code ?? `result ${JSON.stringify(long.result)}`).toBe(`result ${JSON.stringify(result)}`)
      // Against the same search for v, 64 characters (the engine's search, as before): each of the three calls
      // pays the pattern's 20,001 characters (its table), and replace the text's 200,000 it reads.
      const short = await run(form.replace(/\b[tu]\b/, 'v'))
      expect(short.result).toEqual(result)
      const paid = 20_001 + (form.includes('replace') ? 200_000 : 0)
      expect(long.fuelUsed - short.fuelUsed).toBeCloseTo(3 * paid * 0.00001, 6)
    }, 30_000)
  }
})

/** Texts over a two-letter alphabet, so that long patterns match, overlap and almost match. */
function texts(seed: number): { s: string; ts: string[] } {
  let x = seed
  const rnd = (n: number) => { x = (x * 1103515245 + 12345) & 0x7fffffff; return x % n }
  const word = (n: number) => Array.from({ length: n }, () => 'ab'[rnd(4) === 0 ? 1 : 0]).join('')
  const s = word(600 + rnd(400))
  const ts = [s.slice(0, 65), s.slice(100, 200), s.slice(-70), s.slice(37, 137), 'a'.repeat(65), 'a'.repeat(80) + 'b', word(66), s.slice(5, 5 + 65) + 'ab', s, s + 'a']
  return { s, ts }
}

describe('a long pattern gives JavaScript\'s results', () => {
  for (let seed = 1; seed <= 6; seed++) {
    test(`texts of seed ${seed}`, async () => {
      const { s, ts } = texts(seed)
      const positions = [undefined, 0, 3, 100, 299.7, -5, 1e9, NaN, '12']
      const expected = ts.map((t) => [
        ...positions.map((p) => s.indexOf(t, p as number)), ...positions.map((p) => s.includes(t, p as number)),
        ...positions.map((p) => s.lastIndexOf(t, p as number)), s.split(t), s.split(t, 1), s.split(t, 0), s.split(t, 2),
        s.replace(t, '<$&>'), s.replaceAll(t, '-'), s.replaceAll(t, '[$`]').length, s.replace(t, ''), (t + s + t).split(t),
      ])
      const body = `const s = ${JSON.stringify(s)}\nconst ts = ${JSON.stringify(ts)}\nconst ps = [undefined, 0, 3, 100, 299.7, -5, 1e9, NaN, '12']
return ts.map((t) => [
  ...ps.map((p) => s.indexOf(t, p)), ...ps.map((p) => s.includes(t, p)),
  ...ps.map((p) => s.lastIndexOf(t, p)), s.split(t), s.split(t, 1), s.split(t, 0), s.split(t, 2),
  s.replace(t, '<$&>'), s.replaceAll(t, '-'), s.replaceAll(t, '[$\`]').length, s.replace(t, ''), (t + s + t).split(t),
])`
      const r = await runBody(body, { fuel: 1e5 })
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual(JSON.parse(JSON.stringify(expected)))
    })
  }

  test('a short pattern is searched by the engine and paid as before', async () => {
    const s = 'ab'.repeat(1000), t = 'ba'.repeat(32)
    const body = "const s = 'ab'.repeat(1000)\nconst t = 'ba'.repeat(32)\nreturn [s.indexOf(t), s.lastIndexOf(t), s.includes(t), s.split(t).length, s.replace(t, '').length]"
    const r = await runBody(body)
    expect(r.result).toEqual([s.indexOf(t), s.lastIndexOf(t), s.includes(t), s.split(t).length, s.replace(t, '').length])
    // As at f4abec5: the text's 2,000 characters read at 0.00001 by each search, nothing for the pattern.
    expect(r.fuelUsed).toBeCloseTo(0.4312, 6)
  })
})
