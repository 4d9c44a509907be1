/**
 * `Object.groupBy(items, (item, i) => key)` (ES2024): AJS has callbacks only in array methods, so it is
 * lowered to `Object.groupByKeys(items, items.map((item, i) => key))`, the VM grouping the items by the
 * keys the callback gave, in order (src/vm/builtins/globals.ts). `items` is read twice there, so it must
 * be a variable or a property of one (reading it again changes nothing), and the callback an arrow
 * written in place; anything else is AJS2048 with the rewrite.
 */
import type { ArrowFunctionExpression, CallExpression, Expression } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { methodCall } from '../../ast/build.ts'
import { isPlainRead, lowerExpr } from './expressions.ts'
import { lowerLambda } from './functions.ts'
import { staticCall } from './statics.ts'

export function lowerGroupBy(node: CallExpression, ctx: LowerContext): Expr {
  const [items, fn] = node.arguments
  if (node.arguments.length !== 2 || items!.type === 'SpreadElement' || fn!.type !== 'ArrowFunctionExpression') return ctx.fail('GROUP_BY', node)
  if (!isPlainRead(items!)) return ctx.fail('GROUP_BY', items!)
  const keys = methodCall(lowerExpr(items as Expression, ctx), 'map', [lowerLambda(fn as ArrowFunctionExpression, ctx)])
  return staticCall('Object', 'groupByKeys', [lowerExpr(items as Expression, ctx), keys], ctx, node)
}
