/**
 * lineStarts (the table behind every diagnostic's line and column) finds
 * `\n` with indexOf and the rarer breaks by a scan: both paths must agree
 * with the definition, a line break being \r\n, \r, \n, U+2028 or U+2029.
 */
import { describe, expect, test } from 'bun:test'
import { lineStarts, SourceLocator } from '../../src/diagnostics/location.ts'

function byDefinition(source: string): number[] {
  const starts = [0]
  for (const m of source.matchAll(/\r\n?|\n|\u2028|\u2029/g)) starts.push(m.index + m[0].length)
  return starts
}

/** Every string of up to `n` pieces from `alphabet`. */
function* strings(alphabet: readonly string[], n: number, prefix = ''): Generator<string> {
  yield prefix
  if (n > 0) for (const a of alphabet) yield* strings(alphabet, n - 1, prefix + a)
}

describe('lineStarts', () => {
  test('agrees with the definition on every short mix of breaks and text', () => {
    let count = 0
    for (const s of strings(['x', '\n', '\r', '\r\n', '\u2028', '\u2029'], 5)) {
      expect(lineStarts(s)).toEqual(byDefinition(s))
      count++
    }
    expect(count).toBe(9331)
  })

  test('positions on a \\n-only and on a mixed source', () => {
    expect(new SourceLocator('ab\ncd\n\nef').position(8)).toEqual({ line: 4, column: 1 })
    expect(new SourceLocator('ab\r\ncd\rx\u2028ef').position(10)).toEqual({ line: 4, column: 1 })
  })
})
