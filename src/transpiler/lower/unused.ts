/**
 * Expressions whose value the program never reads as a value: an expression statement's, the parts of
 * it whose value it drops (each expression of a sequence, the right of `&&`/`||`/`??`, both branches
 * of `?:`), a `for` update's, the body of a `forEach` callback, and a Map kept in a variable or chained
 * (lower/maps.ts lowerMap). `m.set(k, v)` gives the Map, and `m = new Map()` / `d = new Date()` give
 * the Map or Date, which AJS never hands on as a value: in any other place they are refused
 * (AJS2045, AJS2042), as the variable itself is. Acorn's nodes are made per parse, so a WeakSet of them
 * holds nothing from one transpile to the next.
 */
import type { Node } from 'acorn'

const unused = new WeakSet<Node>()

/** `node`'s value is dropped (and so are those of the parts of it whose value would be its own). */
export function discard(node: Node): void {
  unused.add(node)
  const n = node as any
  if (n.type === 'SequenceExpression') for (const e of n.expressions) discard(e)
  else if (n.type === 'LogicalExpression') discard(n.right)
  else if (n.type === 'ConditionalExpression') { discard(n.consequent); discard(n.alternate) }
}

/** `node` is kept as a Map (a declaration, an assignment, a chained method): its value is not read as a value. */
export const keep = (node: Node): void => { unused.add(node) }

export const isUnused = (node: Node): boolean => unused.has(node)

const tested = new WeakSet<Node>()

/**
 * `node`'s value is only tested for truth (the expression body of a `filter`, `some`, `every` or `find*`
 * callback), and so are the parts of it whose value would be its own: there `s.add(x)`, which gives the Set,
 * always an object, is `(s.add(x), true)` (lower/set-vars.ts), as in `xs.filter((x) => !seen.has(x) && seen.add(x))`.
 */
export function markTested(node: Node): void {
  tested.add(node)
  const n = node as any
  if (n.type === 'SequenceExpression') markTested(n.expressions[n.expressions.length - 1])
  else if (n.type === 'LogicalExpression') { markTested(n.left); markTested(n.right) }
  else if (n.type === 'ConditionalExpression') { markTested(n.consequent); markTested(n.alternate) }
  else if (n.type === 'ParenthesizedExpression') markTested(n.expression)
}

export const isTested = (node: Node): boolean => tested.has(node)
