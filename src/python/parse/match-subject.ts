/**
 * `match a, b:` (a subject that is an unparenthesized tuple) is Python but not @lezer/python: the
 * parser is given `match (a, b):` instead, and the offsets of what follows each inserted parenthesis
 * are mapped back to the source as written, so every location stays the author's. Only a line that
 * @lezer/python itself reads as the start of a match statement is changed (not one inside a string).
 */
import { pythonParser } from '../parser.ts'
import type { Tree } from '@lezer/common'

export interface Patched {
  text: string
  /** An offset of `text` as an offset of the source. */
  unpatch: (offset: number) => number
}

/** The source with each `match` subject that has a top-level comma put in parentheses. */
export function parenthesizeMatchSubjects(src: string): Patched {
  const inserted: number[] = []
  const lines = src.split('\n')
  let tree: Tree | undefined
  const statementAt = (offset: number): boolean => {
    tree ??= pythonParser().parse(src)
    const n = tree.resolveInner(offset, 1)
    return n.name === 'match' && n.parent?.name === 'MatchStatement'
  }
  let at = 0
  for (let i = 0; i < lines.length; at += lines[i]!.length + 1, i++) {
    const m = /^([ \t]*)match[ \t]+(?=\S)/.exec(lines[i]!)
    if (!m) continue
    const subject = topLevel(lines[i]!, m[0].length)
    if (!subject || !subject.comma || !nextIsCase(lines, i, m[1]!.length) || !statementAt(at + m[1]!.length)) continue
    inserted.push(at + m[0].length, at + subject.colon)
  }
  if (inserted.length === 0) return { text: src, unpatch: (o) => o }
  let text = ''
  let from = 0
  inserted.forEach((o, k) => {
    text += src.slice(from, o) + (k % 2 === 0 ? '(' : ')')
    from = o
  })
  text += src.slice(from)
  return {
    text,
    unpatch: (offset) => {
      let shift = 0
      for (let k = 0; k < inserted.length; k++) if (offset > inserted[k]! + k) shift++
      return offset - shift
    },
  }
}

/** Where the header's `:` is and whether a comma stands outside brackets and strings before it. */
function topLevel(line: string, start: number): { colon: number; comma: boolean } | undefined {
  let depth = 0, quote = '', comma = false
  for (let i = start; i < line.length; i++) {
    const c = line[i]!
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = ''
      continue
    }
    if (c === '"' || c === "'") quote = c
    else if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') depth--
    else if (c === ',' && depth === 0) comma = true
    else if (c === '#') return undefined
    else if (c === ':' && depth === 0) return /^[ \t]*(#.*)?$/.test(line.slice(i + 1)) ? { colon: i, comma } : undefined
  }
  return undefined
}

/** Whether the next line with code is a `case` indented past the `match`. */
function nextIsCase(lines: string[], i: number, indent: number): boolean {
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j]!
    if (/^[ \t]*(#.*)?$/.test(l)) continue
    const m = /^([ \t]*)case\b/.exec(l)
    return m !== null && m[1]!.length > indent
  }
  return false
}
