/**
 * The @lezer/python tree as the parser reads it: a node's children, the
 * punctuation it skips, and the workaround for an empty `()` in a pattern,
 * which lezer marks as an error although Python accepts it.
 */
import type { SyntaxNode } from '@lezer/common'

export const kids = (n: SyntaxNode): SyntaxNode[] => {
  const out: SyntaxNode[] = []
  for (let c = n.firstChild; c; c = c.nextSibling) out.push(c)
  return out
}

export const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',', ':', ';', '.'])

/** @lezer/python marks an empty `()` in a pattern (`case Point():`, `case ():`) as an error inside a LiteralPattern. */
export function emptyPatternGroup(n: SyntaxNode): boolean {
  // ... or as an error holding the `)` right after `(` (`case int() | float():`).
  if (n.type.isError && n.parent?.name === 'PatternArgList' && n.prevSibling?.name === '(' && n.to - n.from === 1 && n.nextSibling === null && n.firstChild?.name === ')') return true
  // ... and the `}` of an empty mapping pattern (`case {}:`, any mapping).
  if (n.type.isError && n.parent?.name === 'MappingPattern' && n.prevSibling?.name === '{' && n.to - n.from === 1 && n.nextSibling === null && n.firstChild?.name === '}') return true
  const p = n.type.isError ? n.parent : n
  if (!p || p.name !== 'LiteralPattern') return false
  const only = p.firstChild
  return !!only && only.type.isError && only.from === only.to && only.nextSibling === null && (p.parent?.name === 'PatternArgList' || p.parent?.name === 'SequencePattern')
}

/** @lezer/python reads a float with a trailing point (`5.`) as an attribute access missing its name: that empty error. */
export const trailingPointFloat = (n: SyntaxNode): boolean =>
  n.type.isError && n.from === n.to && n.parent?.name === 'MemberExpression' && n.prevSibling?.name === '.' &&
  n.prevSibling.prevSibling?.name === 'Number' && n.prevSibling.prevSibling.to === n.prevSibling.from && n.nextSibling === null

/** @lezer/python marks the missing value of a bare `yield` (`yield`, `x = yield`) as an empty error node. */
export const bareYield = (n: SyntaxNode): boolean =>
  n.from === n.to && n.firstChild === null && n.prevSibling?.name === 'yield' && (n.parent?.name === 'YieldStatement' || n.parent?.name === 'YieldExpression')
