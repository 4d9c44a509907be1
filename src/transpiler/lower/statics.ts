/**
 * What the lowerings of JavaScript's objects into plain data share (lower/dates.ts, maps.ts, sets.ts,
 * intl.ts, group-by.ts, arrays.ts): a call of a namespace static located at the source it stands for,
 * the refusal of such a value where JavaScript would hand the object on, and the checks of assigning a
 * variable that holds one.
 */
import type { Identifier, Node } from 'acorn'
import type { Expr, SpreadExpr } from '../../ast/types.ts'
import type { CodeName } from '../../diagnostics/codes.ts'
import type { LowerContext } from '../context.ts'
import type { BindingKind } from '../scope.ts'
import { id, methodCall } from '../../ast/build.ts'

/** `Namespace.method(...args)`, located at `at`. */
export function staticCall(namespace: string, method: string, args: Array<Expr | SpreadExpr>, ctx: LowerContext, at: Node): Expr {
  const out = methodCall(id(namespace), method, args)
  out.loc = ctx.loc(at)
  return out
}

/** The refusal `code` of `node` used as a value, naming it as written (`short` when the text is long). */
export function refuseAsValue(code: CodeName, node: Node, ctx: LowerContext, short: string): never {
  const text = ctx.source.slice(node.start, node.end)
  return ctx.fail(code, node, { name: text.length > 40 ? short : text })
}

/** A variable of kind `constKind` is not reassigned, nor one bound outside a `Promise.all` callback from inside it. */
export function checkReassign(target: Identifier, constKind: BindingKind, ctx: LowerContext): void {
  const name = target.name
  if (ctx.scope.lookup(name) === constKind) ctx.fail('CONST_ASSIGN', target, { name })
  if (ctx.scope.boundOutsideIsolation(name)) ctx.fail('PARALLEL_ASSIGN', target, { name })
}
