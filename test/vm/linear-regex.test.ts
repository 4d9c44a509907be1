/**
 * The linear-time regex engine against the host's RegExp: random patterns
 * and inputs (fast-check, fixed seed) must give the same match and groups,
 * and every regex operation on the linear path must equal the native one.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { LinearRegex } from '../../src/vm/builtins/linear-regex.ts'
import { GuardedRegex } from '../../src/vm/builtins/regex.ts'
import {
  stringReplace, regexExec, regexMatch, regexMatchAll, regexReplace, regexSearch, regexSplit, regexTest,
} from '../../src/vm/builtins/regex-ops.ts'

const atom = fc.oneof(
  fc.constantFrom('a', 'b', 'A', '1', ' ', '.', '\\d', '\\w', '\\s', '\\W', '[ab]', '[^a]', '[a-c1]', '\\b', '^', '$', 'x'),
)
const nullable = (p: string) =>
  new RegExp(`^(?:${p})$`).test('') || [...'a b\nA1 x'.matchAll(new RegExp(`(?:${p})`, 'g'))].some((m) => m[0] === '')
const quant = fc.constantFrom('', '', '', '*', '+', '?', '*?', '+?', '??', '{1,2}', '{2}', '{0,}')

const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
  term: fc.oneof(
    { maxDepth: 3, depthIdentifier: 're' },
    { weight: 4, arbitrary: atom },
    { weight: 1, arbitrary: tie('alt').map((x) => `(${x})`) },
    { weight: 1, arbitrary: tie('alt').map((x) => `(?:${x})`) },
  ),
  // A quantifier on something that can match the empty string is left out: JavaScript's
  // empty-iteration rules are the one place the engines may differ (see linear-regex.ts).
  piece: fc.tuple(tie('term'), quant).map(([t, q]) => (q === '' || /^[$^]$|^\\b$/.test(t as string) || nullable(t as string) ? (t as string) : `${t}${q}`)),
  seq: fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('')),
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|')),
})).alt as fc.Arbitrary<string>

const input = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '1', ' ', '\n', 'x'), maxLength: 14 })
const flags = fc.constantFrom('', 'i', 'm', 's', 'im')

const linearMatch = (p: string, f: string, s: string) => {
  const m = new LinearRegex(p, f).exec(s, 0, false, () => {})
  return m ? [m.index, ...m.captures] : null
}
const nativeMatch = (p: string, f: string, s: string) => {
  const m = new RegExp(p, f).exec(s)
  return m ? [m.index, ...m] : null
}

describe('linear regex engine', () => {
  test('agrees with RegExp on random patterns and inputs', () => {
    fc.assert(
      fc.property(pattern, flags, input, (p, f, s) => {
        expect(linearMatch(p, f, s)).toEqual(nativeMatch(p, f, s))
      }),
      { numRuns: 3000, seed: 20261122 },
    )
  }, 60_000)

  test('named groups', () => {
    const m = new LinearRegex('(?<y>\\d{4})-(?<m>\\d\\d)', '').exec('on 2024-05-01', 0, false, () => {})
    expect(m?.groups).toEqual({ y: '2024', m: '05' })
  })

  test('sticky matching only at the start position', () => {
    const re = new LinearRegex('b', '')
    expect(re.exec('ab', 0, true, () => {})).toBeNull()
    expect(re.exec('ab', 1, true, () => {})?.index).toBe(1)
  })

  test('exponential shapes are linear: (a+)+b on 200,000 characters', () => {
    let steps = 0
    const m = new LinearRegex('(a+)+b', '').exec('a'.repeat(200_000), 0, false, (t) => { steps += t })
    expect(m).toBeNull()
    expect(steps).toBeLessThan(200_001 * 10) // bounded by input × program size
  })

  test('positions skipped by the first-character table are metered as the walk would meter them', () => {
    // (a|b)c: a start makes two threads (a, b); on 'z's none starts, so every position is skipped,
    // each charged its two threads, as walking the program there charged them.
    for (const n of [0, 1, 7, 100]) {
      let total = 0
      expect(new LinearRegex('(a|b)c', '').exec('z'.repeat(n), 0, false, (t) => { total += t })).toBeNull()
      expect(total).toBe(2 * n + 2)
    }
    let withMatch = 0
    expect(new LinearRegex('(a|b)c', '').exec('zzbc', 0, false, (t) => { withMatch += t })?.index).toBe(2)
    // Two skipped positions; then at 2 the start's two threads; at 3 the survivor (c) and a new
    // start's two; at 4 the match thread and a new start's two.
    expect(withMatch).toBe(2 + 2 + 2 + 3 + 3)
  })

  test('refuses what it cannot do', () => {
    for (const p of ['(a)\\1', '(?=a)a', '(?!a)b', '(?<=a+)b', '(?<=(a))b']) expect(() => new LinearRegex(p, '')).toThrow()
    expect(() => new LinearRegex('a', 'u')).toThrow()
  })
})

describe('regex operations on the linear path equal the native ones', () => {
  const both = (p: string, f: string) => [new GuardedRegex(p, f), new GuardedRegex(p, f, true)] as const
  // A run with no limits in the way: these tests compare results only.
  const rt = { charge() {}, tick() {}, checkTime: () => false, chargeSlots() {}, chargeString: (x: string) => x, maxHeapBytes: 2 ** 40, maxStringLength: 2 ** 39, heapLimit() { throw new Error('heap') } } as any
  test('exec, test, search, match, matchAll, replace, split', () => {
    fc.assert(
      fc.property(pattern, fc.constantFrom('', 'g', 'i', 'gm', 'gi'), input, fc.constantFrom('-', '[$&]', '$1|', '$`', "$'", '$$', '$9'), (p, f, s, r) => {
        const [native, linear] = both(p, f)
        expect(regexExec(rt, linear, s)).toEqual(regexExec(rt, native, s))
        expect(regexTest(rt, linear, s)).toBe(regexTest(rt, native, s))
        expect(regexSearch(rt, linear, s)).toBe(regexSearch(rt, native, s))
        expect(regexMatch(rt, linear, s)).toEqual(regexMatch(rt, native, s))
        if (f.includes('g')) {
          expect(regexMatchAll(rt, linear, s)).toEqual(regexMatchAll(rt, native, s))
          expect(regexReplace(rt, linear, s, r, true)).toBe(regexReplace(rt, native, s, r, true))
        }
        expect(regexReplace(rt, linear, s, r, false)).toBe(regexReplace(rt, native, s, r, false))
        // ... and both equal JavaScript's own (the streaming replace expands `$` patterns itself).
        expect(regexReplace(rt, native, s, r, false)).toBe(s.replace(new RegExp(p, f), r))
        if (f.includes('g')) expect(regexReplace(rt, native, s, r, true)).toBe(s.replaceAll(new RegExp(p, f), r))
        const jsExec = new RegExp(p, f).exec(s)
        const ours = regexExec(rt, native, s) as any
        expect(ours === null ? null : [[...ours], ours.index, ours.input, ours.groups]).toEqual(jsExec === null ? null : [[...jsExec], jsExec.index, jsExec.input, jsExec.groups === undefined ? undefined : { ...jsExec.groups }])
        expect(regexSplit(rt, linear, s)).toEqual(regexSplit(rt, native, s))
        expect(regexSplit(rt, linear, s, 2)).toEqual(regexSplit(rt, native, s, 2))
      }),
      { numRuns: 1500, seed: 42 },
    )
  }, 60_000)
})

describe('string-pattern replace expands `$` patterns exactly as JavaScript', () => {
  const rt = { charge() {}, tick() {}, checkTime: () => false, chargeSlots() {}, chargeString: (x: string) => x, maxHeapBytes: 2 ** 40, maxStringLength: 2 ** 39, heapLimit() { throw new Error('heap') } } as any
  test('replace and replaceAll with $$, $&, $`, $\', $1, $<x> and plain text', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '$', '&', '`', "'", '1', '<', '>', 'x'), maxLength: 12 })
    fc.assert(fc.property(text, fc.string({ unit: fc.constantFrom('a', 'b', ''), maxLength: 2 }), text, (s, p, r) => {
      expect(stringReplace(rt, s, p, r, false)).toBe(s.replace(p, r))
      expect(stringReplace(rt, s, p, r, true)).toBe(s.replaceAll(p, r))
    }), { numRuns: 3000, seed: 5 })
  })
})

