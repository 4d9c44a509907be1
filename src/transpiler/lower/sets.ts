/**
 * `new Set(xs)` where JavaScript only reads its items: AJS has no Set objects (its values are plain
 * data; the `Set.*` helpers work on arrays), but where a Set is built to be read at once, the array of
 * its items in insertion order (`Set.from(xs)`, SameValueZero, as a Set keeps them) is exact:
 *
 * - spread into an array or call arguments, `[...new Set(xs)]` (the usual dedupe), and
 *   `Array.from(new Set(xs))`, also with a mapper;
 * - iterated, `for (const x of new Set(xs))`;
 * - `new Set(xs).size` (the array's length) and `new Set(xs).has(x)` (`includes`, also SameValueZero).
 *
 * These need no part of the VM. A Set kept in a variable is lower/set-vars.ts's; one used any other way
 * (returned, passed, stored as `new Set(xs)`) is refused (AJS2034), with these forms in the hint.
 */
import type { Expression, Identifier, MemberExpression, NewExpression, Node, SpreadElement } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { member, methodCall } from '../../ast/build.ts'
import { lowerElement, lowerExpr } from './expressions.ts'
import { staticCall } from './statics.ts'
import { isGlobalName, isMap, mapEntries } from './maps.ts'
import { arrayLength, filled } from './arrays.ts'
import { lowerSetSize, setMembers } from './set-vars.ts'

/** Whether `node` is `new Set(...)` of the global Set. */
export function isNewSet(node: Node, ctx: LowerContext): node is NewExpression {
  if (node.type !== 'NewExpression') return false
  const callee = (node as NewExpression).callee
  return callee.type === 'Identifier' && callee.name === 'Set' && isGlobalName('Set', ctx)
}

/** `new Set(xs)` as the array of its items: `Set.from(xs)` (no argument, null or undefined: none; a text: its characters). */
export function lowerSetItems(node: NewExpression, ctx: LowerContext): Expr {
  return staticCall('Set', 'from', node.arguments.map((a) => lowerElement(a as Expression | SpreadElement, ctx)), ctx, node)
}

/** What is iterated or spread: a `new Set(xs)` as its items, a Set variable or a Map as a copy of its members or entries, `Array(n)` as n undefineds, anything else as it is. */
export function lowerIterable(node: Expression, ctx: LowerContext): Expr {
  if (isNewSet(node, ctx)) return lowerSetItems(node, ctx)
  if (isMap(node, ctx)) return mapEntries(node, ctx)
  const members = setMembers(node, ctx)
  if (members) return members
  // `[...Array(n)]`, `Array.from(new Array(n), fn)`: n undefineds, as the holes read (lower/arrays.ts).
  const n = arrayLength(node, ctx)
  return n ? filled(n, undefined, ctx, node) : lowerExpr(node, ctx)
}

/** `new Set(xs).size` and the object of `new Set(xs).has(x)`, or a kept Set's `s.size` (lower/set-vars.ts): undefined when `node` is no such read. */
export function lowerSetRead(node: MemberExpression, ctx: LowerContext, args?: readonly Node[]): Expr | undefined {
  if (args === undefined && !isNewSet(node.object, ctx)) return lowerSetSize(node, ctx)
  if (!isNewSet(node.object, ctx) || node.computed) return undefined
  const name = (node.property as Identifier).name
  if (args === undefined) return name === 'size' ? member(lowerSetItems(node.object, ctx), 'length') : undefined
  if (name !== 'has' || args.length !== 1 || args[0]!.type === 'SpreadElement') return undefined
  return methodCall(lowerSetItems(node.object, ctx), 'includes', [lowerExpr(args[0] as Expression, ctx)])
}
