/**
 * Date.parse (and new Date(text), builtins/date-parse.ts) reads a long text once, as its callers charge
 * it. Before, both of its anchored expressions ran on the whole text and backtracked over a long fraction
 * of a second, zone name or word character by character: 262 ms for one call on 30M characters in V8
 * (one read takes 16 ms), 150-200 ms in JavaScriptCore, each paid as one read. Now a text over 64
 * characters is cut first, each character given to one expression that cannot backtrack over it.
 */
import { describe, expect, test } from 'bun:test'
import { parseDate } from '../../src/vm/builtins/date-parse.ts'
import { runBody } from './helpers.ts'

/** The characters parseDate hands to regular expressions (every exec and test goes through RegExp.prototype.exec). */
function charsMatched(text: string): number {
  const exec = RegExp.prototype.exec
  let chars = 0
  RegExp.prototype.exec = function (this: RegExp, s: string) { chars += String(s).length; return exec.call(this, s) }
  try { parseDate(text) } finally { RegExp.prototype.exec = exec }
  return chars
}

const N = 1_000_000
const LONG: Record<string, string> = {
  'a fraction of a million digits, then not a zone': '2026-01-01T10:00:00.' + '1'.repeat(N) + 'x',
  'a fraction of a million digits and a zone': '2026-01-01T10:00:00.' + '1'.repeat(N) + '+01:00',
  'an unclosed zone name of a million characters': 'Nov 27, 2026 (' + 'a'.repeat(N),
  'a zone name of a million characters': 'Fri, 27 Nov 2026 12:00:00 GMT+0100 (' + 'a'.repeat(N) + ')',
  'a word of a million letters': 'A' + 'a'.repeat(N),
  'a million digits': '1'.repeat(N),
}

describe('Date.parse reads a long text once', () => {
  for (const [name, text] of Object.entries(LONG)) {
    test(name, () => {
      // Each character at most once, and a few hundred for the head, the ends and the cut text.
      expect(charsMatched(text)).toBeLessThanOrEqual(text.length + 200)
    })
  }

  test('a long text reads as its short form: only three digits of a fraction count, a zone name none', async () => {
    const pairs = [
      ['2026-01-01T10:00:00.' + '1'.repeat(100), '2026-01-01T10:00:00.111'], ['2026-01-01T10:00:00.' + '987'.repeat(40) + 'Z', '2026-01-01T10:00:00.987Z'],
      ['2026-01-01 10:00:00.' + '5'.repeat(70) + '-02:30', '2026-01-01 10:00:00.555-02:30'], ['2026T10:00:00.' + '4'.repeat(70), '2026T10:00:00.444'],
      ['2026-01-01T10:00:00.' + '1'.repeat(70) + 'x', '2026-01-01T10:00:00.1x'], ['2026-01-01T10:00:00.' + '1'.repeat(70) + '+01:0', '2026-01-01T10:00:00.1+01:0'],
      ['Fri, 27 Nov 2026 12:00:00 GMT+0100 (' + 'Central European Standard Time '.repeat(3) + ')', 'Fri, 27 Nov 2026 12:00:00 GMT+0100 (CET)'],
      ['November 27, 2026 10:30 (' + 'a'.repeat(80) + ')', 'November 27, 2026 10:30 (a)'], ['Nov 27, 2026 (' + 'a'.repeat(80), 'Nov 27, 2026 (a'],
      ['Nov 27, 2026 (' + 'a'.repeat(80) + ') (b)', 'Nov 27, 2026 (a) (b)'], ['Nov 27, 2026 (' + 'a'.repeat(80) + '(b)', 'Nov 27, 2026 (a(b)'],
      ['x'.repeat(60) + 'Nov 27, 2026 (a)', 'xNov 27, 2026 (a)'], ['Novembre 27, 2026' + ' '.repeat(60), 'Novembre 27, 2026 '],
    ]
    const r = await runBody(`return ${JSON.stringify(pairs)}.map(([a, b]) => [Date.parse(a), Date.parse(b)])`, { fuel: 100 })
    const got = r.result as number[][]
    for (const [a, b] of got) expect(a).toEqual(b)
    expect(got.map(([a]) => a)).toEqual([1767261600111, 1767261600987, 1767270600555, 1767261600444, NaN, NaN, 1795777200000, 1795775400000, NaN, NaN, NaN, NaN, NaN])
  })

  test('a huge budget: Date.parse of long texts in a loop meets the deadline, paid one read a call', async () => {
    const body = "const s = '2026-01-01T10:00:00.' + '1'.repeat(3e6) + 'x'\nlet n = 0\nfor (let i = 0; i < 10; i++) { if (Number.isNaN(Date.parse(s))) n++ }\nreturn n"
    const r = await runBody(body, { fuel: 1e6, timeoutMs: 5_000 })
    expect(r.result).toBe(10)
    // 3,000,021 characters read ten times at 0.00001 each (300 fuel), and about 90 to build them.
    expect(r.fuelUsed).toBeGreaterThan(10 * 3_000_021 * 0.00001)
    expect(r.fuelUsed).toBeLessThan(10 * 3_000_021 * 0.00001 + 100)
  })
})
