/**
 * Offset -> line/column conversion.
 *
 * Lines are 1-based, columns 0-based (as acorn and the AST `loc`). The line
 * table is built lazily, once per source, only when a position is needed
 * (errors, or sources parsed without locations).
 */

export interface Position {
  line: number
  column: number
}

/** Start offsets of every line of `source`. */
export function lineStarts(source: string): number[] {
  const starts = [0]
  // Line breaks other than `\n` are rare: a source without them takes the indexOf path.
  if (source.indexOf('\r') === -1 && source.indexOf('\u2028') === -1 && source.indexOf('\u2029') === -1) {
    // The usual source: `\n` only, found by indexOf (no match objects, as a regex scan makes).
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1)
    return starts
  }
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 13 && source.charCodeAt(i + 1) === 10) i++ // \r\n is one break
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) starts.push(i + 1)
  }
  return starts
}

/** A reusable locator for one source: binary search over the lazily built line table. */
export class SourceLocator {
  private starts: number[] | undefined
  /** Line index of the last answer: lookups mostly walk forward through the source. */
  private lastLine = 0
  constructor(readonly source: string) {}

  position(offset: number): Position {
    const starts = (this.starts ??= lineStarts(this.source))
    const near = this.lastLine
    if (starts[near]! <= offset && !(starts[near + 1]! <= offset)) return { line: near + 1, column: offset - starts[near]! }
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    this.lastLine = lo
    return { line: lo + 1, column: offset - starts[lo]! }
  }

  /** The text of 1-based line `line`, without its line break. */
  lineText(line: number): string {
    const starts = (this.starts ??= lineStarts(this.source))
    const from = starts[line - 1]
    if (from === undefined) return ''
    const to = starts[line] ?? this.source.length + 1
    return this.source.slice(from, to).replace(/(\r\n?|\n|\u2028|\u2029)$/, '')
  }

  get lineCount(): number {
    return (this.starts ??= lineStarts(this.source)).length
  }
}

/** One-shot conversion (builds a line table; use SourceLocator for repeated lookups). */
export function positionOf(source: string, offset: number): Position {
  return new SourceLocator(source).position(offset)
}
