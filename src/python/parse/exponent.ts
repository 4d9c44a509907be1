/**
 * `1.e-3`, `2.E+5`: a float with a trailing point and a signed exponent. @lezer/python reads `1.e`
 * as an attribute access and splits the literal at the sign (`1.e - 3`, with the wrong precedence
 * around it). The parser hands lezer a copy of the source where each such literal is written
 * `1e-03` (the point dropped, a zero after the sign: the same length, so every position and every
 * slice of the original source stays right; the literal's value is read from the original, which
 * JavaScript's Number reads as Python does).
 */
import type { Tree } from '@lezer/common'

/** The offsets of the `.` of each such literal in the tree. */
export function signedExponentPoints(tree: Tree, src: string): number[] {
  const out: number[] = []
  tree.iterate({
    enter: (ref) => {
      if (ref.name !== 'MemberExpression') return undefined
      const num = ref.node.firstChild, dot = num?.nextSibling, prop = dot?.nextSibling
      if (!num || !dot || !prop || num.name !== 'Number' || dot.name !== '.' || prop.name !== 'PropertyName') return undefined
      if (num.to !== dot.from || dot.to !== prop.from || !/^\d[\d_]*$/.test(src.slice(num.from, num.to))) return undefined
      if (/^[eE]$/.test(src.slice(prop.from, prop.to)) && /^[+-]\d/.test(src.slice(prop.to, prop.to + 2))) out.push(dot.from)
      return undefined
    },
  })
  return out
}

/** `src` with each literal at these points rewritten `1e-03`. */
export function patchSignedExponents(src: string, points: number[]): string {
  let out = ''
  let pos = 0
  for (const at of points) {
    out += src.slice(pos, at) + src[at + 1] + src[at + 2] + '0'
    pos = at + 3
  }
  return out + src.slice(pos)
}
