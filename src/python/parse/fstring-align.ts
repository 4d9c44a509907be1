/**
 * `f"{x:=10.2f}"`: a format spec that starts with `=` (sign-aware padding). @lezer/python
 * reads `:=` in a replacement field as the walrus operator and marks the field an error,
 * while CPython 3.11 ends the expression at the first `:` outside brackets. This finds
 * each such `=` so that the parser can hand lezer a copy of the source with that one
 * character replaced by `>` (same length, so every position and every slice of the
 * original source stays right; the spec's text is read from the original).
 * A walrus inside brackets (`f"{(y:=5)}"`) is not touched.
 */
import type { SyntaxNode, Tree } from '@lezer/common'

/**
 * The offsets (into the source) of the `=` right after a field's spec `:`, in every f-string of the
 * tree, nested ones included (each f-string scans its own fields; a nested one is a string literal
 * to its enclosing field, skipped there).
 */
export function specAlignEquals(tree: Tree, src: string): number[] {
  const out = new Set<number>()
  tree.iterate({
    enter: (ref) => {
      if (ref.name === 'FormatString') scanFString(src, ref.node, out)
    },
  })
  return [...out].sort((a, b) => a - b)
}

/** `src` with each offset's character replaced by `>`. */
export function patchAt(src: string, offsets: number[]): string {
  let out = ''
  let pos = 0
  for (const at of offsets) { out += src.slice(pos, at) + '>'; pos = at + 1 }
  return out + src.slice(pos)
}

function scanFString(src: string, n: SyntaxNode, out: Set<number>): void {
  const m = /^[a-zA-Z]*('''|"""|'|")/.exec(src.slice(n.from, n.to))
  if (!m) return
  const end = n.to - m[1]!.length
  let i = n.from + m[0].length
  while (i < end) {
    if (src[i] === '{' && src[i + 1] === '{') i += 2
    else if (src[i] === '{') i = field(src, i + 1, end, out)
    else i++
  }
}

/** Scans one replacement field from just after its `{`; returns the offset after its `}`. */
function field(src: string, i: number, end: number, out: Set<number>): number {
  let depth = 0
  while (i < end) {
    const c = src[i]!
    if (c === "'" || c === '"') { i = skipString(src, i, end); continue }
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']') depth--
    else if (c === '}') { if (depth === 0) return i + 1; depth-- }
    else if (depth === 0 && c === ':') {
      if (src[i + 1] === '=') out.add(i + 1)
      return spec(src, i + 1, end, out)
    }
    i++
  }
  return i
}

/** Scans a format spec (which may hold nested fields) up to and past its field's `}`. */
function spec(src: string, i: number, end: number, out: Set<number>): number {
  while (i < end) {
    if (src[i] === '{') i = field(src, i + 1, end, out)
    else if (src[i] === '}') return i + 1
    else i++
  }
  return i
}

function skipString(src: string, i: number, end: number): number {
  const q = src.startsWith(src[i]!.repeat(3), i) ? src[i]!.repeat(3) : src[i]!
  i += q.length
  while (i < end && !src.startsWith(q, i)) i += src[i] === '\\' ? 2 : 1
  return i + q.length
}
