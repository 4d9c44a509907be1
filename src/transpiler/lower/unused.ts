/**
 * Expressions whose value the program never reads as a value: an expression statement's, the parts of
 * it whose value it drops (each expression of a sequence, the right of `&&`/`||`/`??`, both branches
 * of `?:`), a `for` update's, the body of a `forEach` callback, and a Map kept in a variable or chained
 * (lower/maps.ts lowerMap). `m.set(k, v)` gives the Map, and `m = new Map()` / `d = new Date()` give
 * the Map or Date, which AJS never hands on as a value: in any other place they are refused
 * (AJS2045, AJS2042), as the variable itself is.
 *
 * A node is marked by its span in the source, on the transpile's context: a WeakSet of the nodes made
 * V8 give each fresh node an identity hash, ~5% of lowering a 260-line agent. Nodes of one span are one
 * text, whose value is the same: a wrapper and what it wraps (`a?.b()`'s chain and call, a statement
 * without its `;` and its expression, `await` around a call a rewrite made at the call's place), or a
 * rewrite's copy of a helper and the helper (the same place in the same statement).
 */
import type { Node } from 'acorn'
import type { LowerContext } from '../context.ts'

const span = (node: Node, ctx: LowerContext): number => node.start * (ctx.source.length + 1) + node.end

/** `node`'s value is dropped (and so are those of the parts of it whose value would be its own). */
export function discard(node: Node, ctx: LowerContext): void {
  (ctx.unusedSpans ??= new Set()).add(span(node, ctx))
  const n = node as any
  if (n.type === 'SequenceExpression') for (const e of n.expressions) discard(e, ctx)
  else if (n.type === 'LogicalExpression') discard(n.right, ctx)
  else if (n.type === 'ConditionalExpression') { discard(n.consequent, ctx); discard(n.alternate, ctx) }
}

/** `node` is kept as a Map (a declaration, an assignment, a chained method): its value is not read as a value. */
export const keep = (node: Node, ctx: LowerContext): void => { (ctx.unusedSpans ??= new Set()).add(span(node, ctx)) }

export const isUnused = (node: Node, ctx: LowerContext): boolean => ctx.unusedSpans?.has(span(node, ctx)) ?? false

/**
 * `node`'s value is only tested for truth (the expression body of a `filter`, `some`, `every` or `find*`
 * callback), and so are the parts of it whose value would be its own: there `s.add(x)`, which gives the Set,
 * always an object, is `(s.add(x), true)` (lower/set-vars.ts), as in `xs.filter((x) => !seen.has(x) && seen.add(x))`.
 */
export function markTested(node: Node, ctx: LowerContext): void {
  (ctx.testedSpans ??= new Set()).add(span(node, ctx))
  const n = node as any
  if (n.type === 'SequenceExpression') markTested(n.expressions[n.expressions.length - 1], ctx)
  else if (n.type === 'LogicalExpression') { markTested(n.left, ctx); markTested(n.right, ctx) }
  else if (n.type === 'ConditionalExpression') { markTested(n.consequent, ctx); markTested(n.alternate, ctx) }
  else if (n.type === 'ParenthesizedExpression') markTested(n.expression, ctx)
}

export const isTested = (node: Node, ctx: LowerContext): boolean => ctx.testedSpans?.has(span(node, ctx)) ?? false
