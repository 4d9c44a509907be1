/**
 * Variables that hold a Date (its time value, lower/dates.ts) or a Map (its entries, lower/maps.ts): their
 * declaration and their assignment, one path for both kinds.
 */
import type { Expression, Identifier, Node, VariableDeclarator } from 'acorn'
import type { Expr, Step } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { isDate, lowerDateAssignValue, lowerNewDate, refuseDateValue } from './dates.ts'
import { isMap, lowerMap, lowerMapAssignValue, refuseMapValue } from './maps.ts'
import { varsObject } from './vars-object.ts'
import { toValue } from './statements.ts'

/**
 * `let d = new Date(...)` / `const m = new Map(...)`: the step declaring it, or undefined when `d` is no such
 * declarator. A Date variable is a `let` even when declared `const` (a setter assigns it the new time); a
 * Map's is changed in place, so it keeps its kind.
 */
export function typedDeclaration(d: VariableDeclarator, kind: 'let' | 'const', ctx: LowerContext, at: Node): Step | undefined {
  if (d.id.type !== 'Identifier' || !d.init) return undefined
  const name = d.id.name
  const date = isDate(d.init, ctx)
  if (!date && !isMap(d.init, ctx)) return undefined
  const value = toValue(date ? lowerNewDate(d.init, ctx) : lowerMap(d.init, ctx))
  ctx.declare(name, date ? (kind === 'const' ? 'dateConst' : 'date') : (kind === 'const' ? 'mapConst' : 'map'), d.id)
  if (date) ctx.dateVars++
  else ctx.mapVars++
  if (!date && kind === 'const') return { op: 'constSet', key: name, value, loc: ctx.loc(d) }
  const vars = varsObject(ctx)
  vars[name] = value
  return { op: 'varsLet', vars, loc: ctx.loc(at) }
}

/**
 * `x = right` with `x` a Date or Map variable: the value it is given (another Date or Map; anything else is
 * refused), or undefined when `x` is no such variable. `asValue` is the assignment when its own value is read
 * (it would be the object): refused.
 */
export function typedAssignValue(left: Node, right: Expression, ctx: LowerContext, asValue?: Node): Expr | undefined {
  if (left.type !== 'Identifier') return undefined
  const target = left as Identifier
  if (isDate(target, ctx)) {
    if (asValue) refuseDateValue(asValue, ctx)
    return lowerDateAssignValue(target, right, ctx)
  }
  if (!isMap(target, ctx)) return undefined
  if (asValue) refuseMapValue(asValue, ctx)
  return lowerMapAssignValue(target, right, ctx)
}
