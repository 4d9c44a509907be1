/**
 * Where hand-written JSON (an --args file, an AST, a config) stops being
 * JSON, or where a value it holds is wrong: JSON.parse says what but not
 * where (Bun and Node 20 give no position), so the flows' strict scanner
 * finds the offset of the first syntax error, or of a value by its JSON
 * pointer, for `file:line:col` and a code frame.
 */
import { locateJson } from '../diagnostics/json-locate.ts'
import { codeFrame } from '../diagnostics/format.ts'

export interface JsonSyntaxAt {
  /** 1-based. */
  line: number
  column: number
  frame: string
}

function at(text: string, offset: number): JsonSyntaxAt {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - (before.lastIndexOf('\n') + 1)
  return { line, column: column + 1, frame: codeFrame(text, line, column) }
}

/** The position of the first syntax error of `text`, or undefined when the scanner finds none. */
export function jsonSyntaxAt(text: string): JsonSyntaxAt | undefined {
  const error = locateJson(text).syntaxError
  return error ? at(text, error.offset) : undefined
}

/**
 * The position of the member at `pointer` (RFC 6901) in JSON `text`: its key
 * when it is an object's member (an unknown or misspelled key is the thing to
 * fix), else its value; a member that is not there falls back to its nearest
 * existing parent.
 */
export function jsonMemberAt(text: string, pointer: string): JsonSyntaxAt {
  const locations = locateJson(text)
  const value = locations.offsetOf(pointer)
  const parent = pointer.slice(0, pointer.lastIndexOf('/'))
  const key = pointer.slice(pointer.lastIndexOf('/') + 1).replaceAll('~1', '/').replaceAll('~0', '~')
  // Found and inside an object: its key is written just before the value (an array's items have none).
  if (pointer !== '' && value !== locations.offsetOf(parent) && text[locations.offsetOf(parent)] === '{') {
    const keyAt = text.lastIndexOf(JSON.stringify(key), value)
    if (keyAt > locations.offsetOf(parent)) return at(text, keyAt)
  }
  return at(text, value)
}
