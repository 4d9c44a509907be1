/**
 * Variables that hold a Date (its time value, lower/dates.ts), a Map (its entries, lower/maps.ts) or a Set
 * (its members, lower/set-vars.ts): their declaration and their assignment, one path for the three kinds;
 * and the declaration of an Intl formatter (its arguments, lower/intl-vars.ts), never assigned.
 */
import type { Expression, Identifier, Node, VariableDeclarator } from 'acorn'
import type { Expr, Step } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { isDate, lowerDateAssignValue, lowerNewDate, refuseDateValue } from './dates.ts'
import { isMap, lowerMap, lowerMapAssignValue, refuseMapValue } from './maps.ts'
import { isSet, isSetVariable, lowerSet, lowerSetAssignValue, refuseSetValue } from './set-vars.ts'
import { varsObject } from './vars-object.ts'
import { formatterDeclaration } from './intl-vars.ts'
import { toValue } from './statements.ts'

/**
 * `let d = new Date(...)` / `const m = new Map(...)` / `const s = new Set(...)`: the step declaring it, or
 * undefined when `d` is no such declarator. A Date variable is a `let` even when declared `const` (a setter
 * assigns it the new time); a Map's or a Set's is changed in place, so it keeps its kind.
 */
export function typedDeclaration(d: VariableDeclarator, kind: 'let' | 'const', ctx: LowerContext, at: Node): Step | undefined {
  if (d.id.type !== 'Identifier' || !d.init) return undefined
  const formatter = formatterDeclaration(d, ctx)
  if (formatter) return formatter
  const name = d.id.name
  const date = isDate(d.init, ctx)
  const set = !date && isSet(d.init, ctx)
  if (!date && !set && !isMap(d.init, ctx)) return undefined
  const value = toValue(date ? lowerNewDate(d.init, ctx) : set ? lowerSet(d.init, ctx) : lowerMap(d.init, ctx))
  ctx.declare(name, date ? (kind === 'const' ? 'dateConst' : 'date') : set ? (kind === 'const' ? 'setConst' : 'set') : (kind === 'const' ? 'mapConst' : 'map'), d.id)
  if (!date && kind === 'const') return { op: 'constSet', key: name, value, loc: ctx.loc(d) }
  const vars = varsObject(ctx)
  vars[name] = value
  return { op: 'varsLet', vars, loc: ctx.loc(at) }
}

/**
 * `x = right` with `x` a Date, Map or Set variable: the value it is given (another Date, Map or Set;
 * anything else is refused), or undefined when `x` is no such variable. `asValue` is the assignment when
 * its own value is read (it would be the object): refused.
 */
export function typedAssignValue(left: Node, right: Expression, ctx: LowerContext, asValue?: Node): Expr | undefined {
  if (left.type !== 'Identifier') return undefined
  const target = left as Identifier
  if (isDate(target, ctx)) {
    if (asValue) refuseDateValue(asValue, ctx)
    return lowerDateAssignValue(target, right, ctx)
  }
  if (isSetVariable(target, ctx)) {
    if (asValue) refuseSetValue(asValue, ctx)
    return lowerSetAssignValue(target, right, ctx)
  }
  if (!isMap(target, ctx)) return undefined
  if (asValue) refuseMapValue(asValue, ctx)
  return lowerMapAssignValue(target, right, ctx)
}
