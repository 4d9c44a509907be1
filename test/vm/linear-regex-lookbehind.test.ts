/**
 * Lookbehind on the linear-time engine against the host's RegExp: random
 * patterns with bounded lookbehinds (positive and negative, nested, at any
 * place) and random inputs (fast-check, fixed seed) must give the same
 * matches and groups; refusals keep their code and a hint showing a rewrite.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { LinearRegex, MAX_LOOKBEHIND } from '../../src/vm/builtins/linear-regex.ts'
import { makeRegex } from '../../src/vm/builtins/regex.ts'
import { VmError } from '../../src/vm/errors.ts'
import { AgentVM } from '../../src/index.ts'

const atom = fc.constantFrom('a', 'b', 'A', '1', ' ', '.', '\\d', '\\w', '\\s', '[ab]', '[^a]', '\\b', '\\B', '^', '$')
// Bounded quantifiers only: a lookbehind body must have a bounded length.
const bounded = fc.constantFrom('', '', '?', '{1,2}', '{2}', '??', '{0,3}')
const zeroWidth = (t: string) => /^(\^|\$|\\b|\\B)$/.test(t) || t.startsWith('(?<')

const body: fc.Arbitrary<string> = fc.letrec((tie) => ({
  term: fc.oneof(
    { maxDepth: 2, depthIdentifier: 'lb' },
    { weight: 5, arbitrary: atom },
    { weight: 1, arbitrary: tie('alt').map((x) => `(?:${x})`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('=', '!'), tie('alt')).map(([k, x]) => `(?<${k}${x})`) },
  ),
  piece: fc.tuple(tie('term'), bounded).map(([t, q]) => (zeroWidth(t as string) ? (t as string) : `${t}${q}`)),
  seq: fc.array(tie('piece'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('')),
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|')),
})).alt as fc.Arbitrary<string>

const main = fc.constantFrom('a', 'b+', '\\w', '(\\w+)', '\\d*', '(a|b)', '.', '', ' ', '(?:ab)*?')
const pattern = fc.tuple(main, fc.constantFrom('=', '!'), body, main).map(([pre, k, b, post]) => `${pre}(?<${k}${b})${post}`)
const input = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '1', ' ', '\n'), maxLength: 12 })
const flags = fc.constantFrom('', 'i', 'm', 's')

/** Every match left to right, as the `g` iteration finds them (past empty matches). */
function allMatches(exec: (from: number) => unknown[] | null, n: number): unknown[] {
  const out: unknown[] = []
  for (let from = 0; from <= n;) {
    const m = exec(from) as (unknown[] & { 0: number; 1: string }) | null
    if (!m) break
    out.push(m)
    from = m[0] + Math.max(1, m[1].length)
  }
  return out
}

const linearAll = (p: string, f: string, s: string) => {
  const re = new LinearRegex(p, f)
  return allMatches((from) => {
    const m = re.exec(s, from, false, () => {})
    return m ? [m.index, ...m.captures] : null
  }, s.length)
}
const nativeAll = (p: string, f: string, s: string) => {
  const re = new RegExp(p, f + 'g')
  return allMatches((from) => {
    re.lastIndex = from
    const m = re.exec(s)
    return m ? [m.index, ...m] : null
  }, s.length)
}

function refusal(f: () => unknown): VmError {
  try { f() } catch (e) { if (e instanceof VmError) return e; throw e }
  throw new Error('not refused')
}

describe('lookbehind on the linear engine', () => {
  test('agrees with RegExp on random patterns and inputs', () => {
    fc.assert(
      fc.property(pattern, flags, input, (p, f, s) => {
        expect(linearAll(p, f, s)).toEqual(nativeAll(p, f, s))
      }),
      { seed: 27, numRuns: 1500 },
    )
  })

  test('everyday lookbehinds', () => {
    const cases: Array<[string, string]> = [
      ['(?<=\\$)\\d+(?:\\.\\d\\d)?', 'total $42.50, tax $3 and 7'],
      ['(?<![\\w.])\\d+', 'v1.2 has 3 parts'],
      ['(?<=[.!?])\\s+', 'Dr. Smith arrived. Was he late? No.'],
      ['(?<=^|,)\\s*(\\w+)', 'a, bb,ccc'],
      ['(?<=(?:Mr|Mrs|Dr)\\. )[A-Z]\\w*', 'Mr. Smith and Dr. Who'],
    ]
    for (const [p, s] of cases) expect(linearAll(p, '', s)).toEqual(nativeAll(p, '', s))
  })

  test('each check reads back at most the body width, and is metered', () => {
    const s = 'ab'.repeat(5_000) + '$9'
    let plain = 0, look = 0
    new LinearRegex('\\d', '').exec(s, 0, false, (t) => { plain += t })
    const m = new LinearRegex('(?<=\\$)\\d', '').exec(s, 0, false, (t) => { look += t })
    expect(m?.index).toBe(s.length - 1)
    // One more step per position (the one character read back), not a rescan of the text.
    expect(look).toBeGreaterThan(plain)
    expect(look).toBeLessThan(plain * 4)
  })

  test('unbounded, too long or capturing lookbehinds are refused with a rewrite', () => {
    const unbounded = refusal(() => makeRegex('(?<=\\w+:)\\d+'))
    expect(unbounded.code).toBe('REGEX_UNSAFE')
    expect(unbounded.message).toContain('(?<=\\w+:)')
    expect(unbounded.hint).toContain('(?<=\\w{1,50}:)')
    const long = refusal(() => makeRegex(`(?<=a{${MAX_LOOKBEHIND + 1}})b`))
    expect(long.message).toContain(`up to ${MAX_LOOKBEHIND + 1} characters`)
    const capturing = refusal(() => makeRegex('(?<=(\\w))x'))
    expect(capturing.hint).toContain('(?:...)')
    const backref = refusal(() => makeRegex('(\\w)\\1'))
    expect(backref.hint).toContain('compare the groups in code')
    // The same rules on the host engine's path (short inputs) as on the linear one.
    expect(refusal(() => new LinearRegex('(?<=\\w+:)\\d+', '')).hint).toBe(unbounded.hint)
  })

  test('a program: a bounded lookbehind runs, an unbounded one is refused at its line with the rewrite', async () => {
    const vm = new AgentVM()
    const ok = await vm.run(`function f(s) {\n  return s.replace(/(?<=\\w:)\\d+/g, '#')\n}`, { s: 'a:1 b2 c:34' })
    expect(ok.result).toBe('a:# b2 c:#')
    const bad = await vm.run(`function f(s) {\n  const n = s.length\n  return s.replace(/(?<=\\w+:)\\d+/g, '#')\n}`, { s: 'a:1' })
    expect(bad.error).toMatchObject({ code: 'REGEX_UNSAFE', line: 3 })
    expect(bad.error?.hint).toContain('(?<=\\w{1,50}:)')
  })
})
