/**
 * Where hand-written JSON (an --args file, an AST, a config) stops being
 * JSON: JSON.parse says what but not where (Bun and Node 20 give no
 * position), so the flows' strict scanner finds the offset of the first
 * syntax error, for `file:line:col` and a code frame.
 */
import { locateJson } from '../diagnostics/json-locate.ts'
import { codeFrame } from '../diagnostics/format.ts'

export interface JsonSyntaxAt {
  /** 1-based. */
  line: number
  column: number
  frame: string
}

/** The position of the first syntax error of `text`, or undefined when the scanner finds none. */
export function jsonSyntaxAt(text: string): JsonSyntaxAt | undefined {
  const error = locateJson(text).syntaxError
  if (!error) return undefined
  const before = text.slice(0, error.offset)
  const line = before.split('\n').length
  const column = error.offset - (before.lastIndexOf('\n') + 1)
  return { line, column: column + 1, frame: codeFrame(text, line, column) }
}
