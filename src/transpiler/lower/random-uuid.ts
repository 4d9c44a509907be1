/**
 * `crypto.randomUUID()`, what models write for an id: AJS's core atom `uuid()`, whose ids the run's seed
 * gives and a workflow replays. Only while `crypto` is no name of the program; arguments, which
 * JavaScript ignores, are evaluated first and dropped. A function of the program named `uuid` would be
 * called instead of the atom, so then it is refused (AJS2059).
 */
import type { CallExpression, Expression, MemberExpression } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { at, call } from '../../ast/build.ts'
import { lowerExpr } from './expressions.ts'

/** `crypto.randomUUID()` as `uuid()`; undefined for any other call. */
export function lowerRandomUUID(node: CallExpression, method: string, ctx: LowerContext): Expr | undefined {
  const object = (node.callee as MemberExpression).object
  if (method !== 'randomUUID' || object.type !== 'Identifier' || object.name !== 'crypto') return undefined
  if (ctx.scope.lookup('crypto') !== undefined || ctx.helpers.has('crypto')) return undefined
  if (ctx.helpers.has('uuid')) return ctx.fail('RANDOM_UUID', node)
  const uuid = call('uuid', [], ctx.loc(node))
  if (node.arguments.length === 0) return uuid
  const ignored = node.arguments.map((a) => lowerExpr(a as Expression, ctx))
  return at({ $expr: 'sequence', expressions: [...ignored, uuid] } as Expr, ctx.loc(node))
}
