/**
 * A long text read whole by a native conversion or comparison (ToNumber in `+s`, `s * 1`, `Math.abs(s)`,
 * `a.at(s)`; the ordering `s < t`, a default sort; `s === t` of one length, `a.includes(s)`, the Set
 * helpers) is paid per character before it is read (sizes.ts chargeText and its neighbours). Before, `while (true) n += +s` on a text of 30M characters did ~45 ms of unpaid
 * native work an iteration and ran 50 s past a 1 s deadline.
 *
 * Each form runs in a bounded loop of 20 iterations with a budget that pays for building the texts
 * (0.00001 a character) and little more: paid, the run ends FUEL_EXHAUSTED within a few iterations;
 * unpaid, the 20 iterations cost under one fuel and the run would return its result.
 */
import { describe, expect, test } from 'bun:test'
import { runBody } from './helpers.ts'

/** Two texts of 30M + 1 characters that differ only at their end, a number, an array. */
const SETUP = "const s = ' '.repeat(3e7) + '1'\nconst t = ' '.repeat(3e7) + '2'\nconst u = '1' + ' '.repeat(3e7)\nconst a = [1, 2, 3]\nlet n = 0\nlet x = 0\n"

const FORMS = [
  'n += +s', 'n += -s', 'n += ~s', 'n += s * 1', 'n += s - 0', 'n += 1 - s', 'n += s / 1', 'n += s % 7', 'n += s ** 1',
  'n += s | 0', 'n += s >> 0', 'n += s >>> 0', 'n += s & 1', 'n -= s', 'n *= s', 'x = s; x++', 'x = s; --x',
  'n += [s][0] - 0', 'n += 2 * [s][0]',
  'if (s < t) n++', 'if (s > 1) n++', 'if (s <= t) n++', 'if (s >= t) n++', 'x = s < t',
  'if (s === t) n++', 'if (s !== t) n++', 'x = s === t', 'x = s !== t', 'x = s == t', 'x = s != t',
  'x = [s][0] === t', 'x = s === [t][0]', 'x = [s][0] !== [t][0]', 'x = [s][0] == [t][0]',
  'switch (s) { case t: n++ }', 'x = s > t ? 1 : 2', 'if (s < t && n < 5) n++',
  'n += Math.abs(s)', 'n += Math.floor(s)', 'n += Math.max(s, 1)', 'n += Math.pow(s, 1)', 'n += Number(s)', 'n += parseFloat(s)',
  'n += parseInt(s)', 'n += Number.parseFloat(s)', 'n += Number.parseInt(s)', 'x = isNaN(s)', 'x = isFinite(s)',
  'x = a.at(s)', 'x = a.slice(s)', 'x = a.includes(1, s)', 'x = (1).toFixed(s)',
  "x = 'ab'.at(s)", "x = 'ab'.slice(s)", "x = 'ab'.indexOf('a', s)", 'x = String.fromCharCode(s)',
  'x = Date.UTC(s)', 'try { x = Date.toISOString(s) } catch (e) {}',
  "x = [t, 'a'].includes(s)", 'x = [t].indexOf(s)', 'x = [t].lastIndexOf(s)', 'x = Object.is(s, t)', 'x = [s, t].sort()', 'x = [t, s].toSorted()',
  'x = Set.has([t], s)', 'x = Set.from([s, t])', 'x = Set.union([s], [t])', 'x = s.trim()', 'x = s.trimStart()', 'x = u.trimEnd()',
]

describe('a long text converted to a number or compared is paid before it is read', () => {
  for (const form of FORMS) {
    test(form, async () => {
      const r = await runBody(`${SETUP}for (let i = 0; i < 20; i++) { ${form} }\nreturn n`, { fuel: 2_000, timeoutMs: 5_000 })
      expect(['FUEL_EXHAUSTED', 'TIMEOUT']).toContain(r.error?.code ?? `result ${JSON.stringify(r.result)}`)
      expect(r.fuelUsed).toBeLessThanOrEqual(2_000)
    }, 30_000)
  }

  test('a huge budget still meets the deadline', async () => {
    const r = await runBody(`${SETUP}for (let i = 0; i < 1e6; i++) { n += +s }\nreturn n`, { fuel: 1e12, timeoutMs: 500 })
    expect(r.error?.code).toBe('TIMEOUT')
  }, 30_000)

  test('short texts are converted and compared as in JS, unpaid', async () => {
    const body = "const s = ' 12 ', t = 'abc'\nreturn [+s, s * 2, s - 1, -s, s < t, s === ' 12 ', Math.abs(s), Number(s), parseInt(s), [1, 2, 3].at('1'), (1.5).toFixed('1')]"
    const r = await runBody(body, { fuel: 1 })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual([12, 24, 11, -12, true, true, 12, 12, 12, 2, '1.5'])
  })

  test('trimming a long text that has no white space at its ends is not charged its length', async () => {
    const r = await runBody("const s = '1'.repeat(3e6)\nlet n = 0\nfor (let i = 0; i < 10; i++) n += s.trim().length + s.trimStart().length + s.trimEnd().length\nreturn n", { fuel: 1_000 })
    // 30 fuel to build, 30 for each result (a string made: CHAR_COST); the scan's 30 more each would be 1,830.
    expect(r.error).toBeUndefined()
    expect(r.result).toBe(9e7)
    expect(r.fuelUsed).toBeLessThan(1_000)
  })

  test('a text of 65 characters is charged 0.00001 each, one of 64 nothing', async () => {
    const run = async (len: number) => (await runBody(`const s = '1'.padStart(${len}, '0')\nlet n = 0\nfor (let i = 0; i < 100; i++) n += +s\nreturn n`, { fuel: 100 })).fuelUsed
    const short = await run(64), long = await run(65)
    expect(long - short).toBeCloseTo(100 * 65 * 0.00001 + 65 * 0.00001 - 64 * 0.00001, 6)
  })
})
