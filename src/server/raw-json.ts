/**
 * The text of one top-level member of a JSON object, without parsing the
 * rest: POST /v1/runs hands the `ast` to a worker as the very text the
 * client sent, so the event loop never serializes it again (the worker
 * parses it once and keeps it by that text). The input is already known to
 * be valid JSON (fastify parsed it); like JSON.parse, the last duplicate key wins.
 */

const QUOTE = 34
const BACKSLASH = 92

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9

/** Index just past the string that starts at `i` (a `"`). */
function skipString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i + 1
  }
  return -1
}

/** Index just past the value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === QUOTE) return skipString(text, i)
  if (c === 123 || c === 91) {
    let depth = 0
    while (i < text.length) {
      const d = text.charCodeAt(i)
      if (d === QUOTE) { i = skipString(text, i); if (i < 0) return -1; continue }
      if (d === 123 || d === 91) depth++
      else if (d === 125 || d === 93) { depth--; if (depth === 0) return i + 1 }
      i++
    }
    return -1
  }
  while (i < text.length) {
    const d = text.charCodeAt(i)
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) return i
    i++
  }
  return i
}

/** The raw text of `name`'s value in the JSON object `text`, or undefined (absent, or not an object). */
export function rawMember(text: string, name: string): string | undefined {
  let i = 0
  while (isSpace(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) !== 123) return undefined
  i++
  let found: string | undefined
  for (;;) {
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) === 125 || i >= text.length) return found
    if (text.charCodeAt(i) !== QUOTE) return undefined
    const keyEnd = skipString(text, i)
    if (keyEnd < 0) return undefined
    const rawKey = text.slice(i + 1, keyEnd - 1)
    const key = rawKey.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : rawKey
    i = keyEnd
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) !== 58) return undefined
    i++
    while (isSpace(text.charCodeAt(i))) i++
    const end = skipValue(text, i)
    if (end < 0) return undefined
    if (key === name) found = text.slice(i, end)
    i = end
    while (isSpace(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) === 44) i++
  }
}

/** What one pass over a request body found: see scanJson. */
export interface JsonScan {
  /** The body nests deeper than the limit (the root value at depth 0). */
  tooDeep: boolean
  /** The raw text of the asked top-level member, when its value is an object or an array (the last duplicate wins). */
  member: string | undefined
  /** Where that member's value starts and ends in the text (-1: not found). */
  start: number
  end: number
}

/**
 * One pass over a JSON text already known to be valid (fastify parsed it): whether it nests
 * deeper than `maxDepth` (as a walk of the parsed value would say, the root at depth 0), and the
 * text of the top-level member `name` if it holds an object or an array. Strings are skipped
 * with indexOf, so the pass costs little next to the parse.
 */
export function scanJson(text: string, maxDepth: number, name: string): JsonScan {
  let depth = 0
  let deepest = 0
  let rootObject = false
  let expectKey = false
  let key: string | undefined
  let valueStart = -1
  let member: string | undefined
  let start = -1
  let end = -1
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let j = i
      for (;;) {
        j = text.indexOf('"', j + 1)
        if (j < 0) return { tooDeep: deepest - 1 >= maxDepth, member, start, end }
        let k = j - 1
        while (text.charCodeAt(k) === BACKSLASH) k--
        if ((j - 1 - k) % 2 === 0) break
      }
      if (depth === 1 && rootObject && expectKey) {
        const raw = text.slice(i + 1, j)
        key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw
        expectKey = false
      }
      i = j
    } else if (c === 123 || c === 91) {
      if (depth === 0) { rootObject = c === 123; expectKey = rootObject }
      else if (depth === 1) valueStart = i
      depth++
      if (depth > deepest) deepest = depth
    } else if (c === 125 || c === 93) {
      depth--
      if (depth === 1 && valueStart >= 0) {
        if (rootObject && key === name) { start = valueStart; end = i + 1; member = text.slice(start, end) }
        valueStart = -1
      }
    } else if (c === 44 && depth === 1) expectKey = rootObject
  }
  return { tooDeep: deepest - 1 >= maxDepth, member, start, end }
}
