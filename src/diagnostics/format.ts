/**
 * Pure text formatting of diagnostics: a code frame around a position and
 * the one-line `file:line:col: severity CODE: message` header.
 *
 * In text, columns are printed 1-based (the convention of editors and
 * compilers); structured fields stay 0-based like acorn and the AST `loc`.
 */

import { SourceLocator } from './location.ts'

export interface FrameOptions {
  /** Lines of context before and after the error line. */
  context?: number
}

/**
 * A code frame:
 * ```
 *   2 |   let x = 1
 * > 3 |   x = new Foo()
 *     |       ^
 * ```
 */
export function codeFrame(source: string | SourceLocator, line: number, column: number, options: FrameOptions = {}): string {
  const loc = typeof source === 'string' ? new SourceLocator(source) : source
  const context = options.context ?? 2
  const first = Math.max(1, line - context)
  const last = Math.min(loc.lineCount, line + context)
  const width = String(last).length
  const out: string[] = []
  for (let n = first; n <= last; n++) {
    const text = loc.lineText(n).replace(/\t/g, ' ')
    const gutter = String(n).padStart(width)
    out.push(`${n === line ? '>' : ' '} ${gutter} | ${text}`.trimEnd())
    if (n === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, column))}^`)
  }
  return out.join('\n')
}

/** `file:line:col: error CODE: message` (column printed 1-based). */
export function headerLine(file: string, line: number, column: number, severity: string, code: string, message: string): string {
  return `${file}:${line}:${column + 1}: ${severity} ${code}: ${message}`
}
