/**
 * The one "did you mean" of the project (src/diagnostics/suggest.ts): which candidate it offers,
 * and that its work is bounded whatever the names are (they often come from a guest).
 */
import { describe, expect, test } from 'bun:test'
import { closest, SUGGEST_MAX_CHARS, SUGGEST_MAX_PAIRS, type SuggestBudget } from '../../src/diagnostics/suggest.ts'

/** The candidates, counting how many `closest` asked for. */
function counted(names: Iterable<string>): { seen: () => number; names: Iterable<string> } {
  let seen = 0
  return {
    seen: () => seen,
    names: (function* () {
      for (const n of names) {
        seen++
        yield n
      }
    })(),
  }
}

/** Optimal string alignment distance, the whole table: what the bounded version must agree with. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

describe('closest: which candidate', () => {
  test('a swap of two letters, a letter missing, a letter too many: one edit each', () => {
    expect(closest('fule', ['fuel', 'timeout'])).toBe('fuel')
    expect(closest('lenght', ['width', 'length'])).toBe('length')
    expect(closest('usr', ['user', 'items'])).toBe('user')
    expect(closest('itemss', ['items'])).toBe('items')
  })

  test('case is ignored, and the name itself is never offered', () => {
    expect(closest('TimeOut', ['fuel', 'timeout'])).toBe('timeout')
    expect(closest('fuel', ['fuel'])).toBeUndefined()
    expect(closest('fuel', ['fuel', 'fuels'])).toBe('fuels')
  })

  test('at most a third of the name away, from 1 to 3 edits; the nearest wins, the first on a tie', () => {
    expect(closest('ab', ['cd', 'xy'])).toBeUndefined() // two edits in a two-letter name is another name
    expect(closest('abc', ['abd', 'abe'])).toBe('abd')
    expect(closest('customerId', ['customerIdx', 'customer'])).toBe('customerIdx')
    expect(closest('abcdefghijklmnopqrstu', ['abcdefghijklmnopqXXXX'])).toBeUndefined() // 4 edits: over the cap of 3
    expect(closest('abcdefghijklmnopqrstu', ['abcdefghijklmnopqrXXX'])).toBe('abcdefghijklmnopqrXXX')
  })

  test('agrees with the full optimal-string-alignment table on random names (the length filter and the budget change no answer)', () => {
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n)
    const word = () => Array.from({ length: 1 + rand(9) }, () => 'abcd'[rand(4)]).join('')
    for (let k = 0; k < 2000; k++) {
      const name = word()
      const candidates = Array.from({ length: 1 + rand(6) }, word)
      const limit = Math.max(1, Math.min(3, Math.floor(name.length / 3)))
      let best: string | undefined
      let bestD = limit + 1
      for (const c of candidates) {
        if (c === name) continue
        const d = osa(name, c)
        if (d < bestD) {
          bestD = d
          best = c
        }
      }
      expect(closest(name, candidates)).toBe(best)
    }
  })
})

describe('closest: bounded work (the names may be a guest\'s)', () => {
  test(`a name over ${SUGGEST_MAX_CHARS} characters is compared with nothing`, () => {
    const c = counted(['a'.repeat(100_000), 'b'])
    expect(closest('a'.repeat(100_001), c.names)).toBeUndefined()
    expect(c.seen()).toBe(0)
  })

  test('candidates over the length are passed over', () => {
    expect(closest('abcdef', ['abcdefg'.padEnd(SUGGEST_MAX_CHARS + 1, 'x'), 'abcdeg'])).toBe('abcdeg')
  })

  test(`one call compares at most ${SUGGEST_MAX_PAIRS.toLocaleString('en')} letter pairs, whatever the number of candidates`, () => {
    const name = 'n'.repeat(SUGGEST_MAX_CHARS)
    const c = counted(Array.from({ length: 100_000 }, (_, i) => `${i}`.padStart(SUGGEST_MAX_CHARS, 'm')))
    expect(closest(name, c.names)).toBeUndefined()
    const perCandidate = (SUGGEST_MAX_CHARS + 1) ** 2
    expect(c.seen()).toBe(Math.floor(SUGGEST_MAX_PAIRS / perCandidate) + 1) // the one that no longer fits ends the search
  })

  test('a shared budget is spent across calls; once spent, no suggestion', () => {
    const budget: SuggestBudget = { left: 3 * 7 * 7 }
    expect(closest('abcdef', ['abcdeg'], { budget })).toBe('abcdeg')
    expect(budget.left).toBe(2 * 49)
    expect(closest('abcdef', ['abcdeg'], { budget })).toBe('abcdeg')
    expect(closest('abcdef', ['abcdeg'], { budget })).toBe('abcdeg')
    expect(closest('abcdef', ['abcdeg'], { budget })).toBeUndefined()
  })

  test('a candidate too much longer or shorter costs nothing', () => {
    const budget: SuggestBudget = { left: 1 }
    expect(closest('abc', ['abcdefgh', 'a'], { budget })).toBeUndefined()
    expect(budget.left).toBe(1)
  })
})
