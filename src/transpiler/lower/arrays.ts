/**
 * `new Array(n)` / `Array(n)`, an array of n holes, which AJS cannot hold (AJS2041), where JavaScript
 * fills or reads it at once, as models write it: `new Array(n).fill(v)` (also `.fill()`), `[...Array(n)]`,
 * `Array.from(new Array(n), fn)`, `[...Array(n).keys()]` and `Array(n).keys()`. Each is the static
 * `Array.filled(n, v)` (n copies of v, or undefined; JavaScript's RangeError for a bad length), so
 * JavaScript's result without a hole. `new Array()` and `new Array(a, b, ...)` are the array literal
 * of their arguments, as in JavaScript.
 */
import type { CallExpression, Expression, Identifier, NewExpression, Node, SpreadElement } from 'acorn'
import type { Expr, SpreadExpr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { array, id, methodCall } from '../../ast/build.ts'
import { lowerElement, lowerExpr } from './expressions.ts'
import { staticCall } from './statics.ts'

/** `new Array(n)` or `Array(n)` of the global Array with one argument: that argument; else undefined. */
export function arrayLength(node: Node, ctx: LowerContext): Expression | undefined {
  if (node.type !== 'NewExpression' && node.type !== 'CallExpression') return undefined
  const { callee, arguments: args } = node as NewExpression | CallExpression
  if (callee.type !== 'Identifier' || (callee as Identifier).name !== 'Array' || ctx.scope.lookup('Array') !== undefined) return undefined
  return args.length === 1 && args[0]!.type !== 'SpreadElement' ? args[0] as Expression : undefined
}

/** `Array.filled(n, fill)`: n copies of the fill value; without one, the array as its holes read (n undefineds). */
export function filled(n: Expression, fill: Expr | undefined, ctx: LowerContext, at: Node): Expr {
  return staticCall('Array', 'filled', [lowerExpr(n, ctx), ...(fill ? [fill] : [])], ctx, at)
}

/** `Array(n).fill(v)` and `Array(n).keys()`: undefined when the call is not one of them. */
export function lowerFilledCall(node: CallExpression, method: string, ctx: LowerContext): Expr | undefined {
  const n = arrayLength((node.callee as { object: Node }).object, ctx)
  if (n === undefined) return undefined
  const [v] = node.arguments
  if (method === 'fill' && node.arguments.length <= 1 && v?.type !== 'SpreadElement') return filled(n, v ? lowerExpr(v, ctx) : id('undefined'), ctx, node)
  if (method === 'keys' && node.arguments.length === 0) return methodCall(filled(n, undefined, ctx, node), 'keys', [])
  return undefined
}

/** `new Array()`, `new Array(a, b, ...)`: the array of the arguments (undefined for one argument, a length). */
export function arrayOfArguments(node: NewExpression | CallExpression, ctx: LowerContext): Expr | undefined {
  if (node.arguments.length === 1) return undefined
  return array(node.arguments.map((a): Expr | SpreadExpr => lowerElement(a, ctx)))
}
