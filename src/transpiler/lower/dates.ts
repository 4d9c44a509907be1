/**
 * Dates. AJS values are plain data, so a Date is lowered to its time value (milliseconds since 1970,
 * UTC): `new Date(...)` to `Date.time(...)`, a method call `d.getMonth()` to `Date.getMonth(d)`, a
 * setter `d.setDate(n)` to `d = Date.setDate(d, n)` (the value JavaScript's setter returns, the new
 * time). That is exact wherever JavaScript reads a Date only through its methods or as a number, so
 * a Date is accepted there and refused, located and with the rewrite, everywhere else:
 *
 * - kept in a `let` / `const` variable (`const now = new Date()`), or written in place;
 * - the object of a Date method call (`new Date(s).toISOString()`, `d.getFullYear()`);
 * - an operand of arithmetic and of `<`, `>`, `<=`, `>=` (`new Date(b) - new Date(a)`), of unary
 *   `+` / `-`, and of `Number(d)`, `isNaN(d)`, `isFinite(d)` and the `Math` functions (all read
 *   its time value);
 * - text where JavaScript converts it to text: `d + ' UTC'`, `${d}`, `String(d)` (its toString).
 *
 * Passed to a function, stored in an object or array, returned, compared with `===`: refused
 * (AJS2042, AJS2044), since there it would be a number where JavaScript has an object.
 */
import type { BinaryExpression, CallExpression, Expression, Identifier, MemberExpression, NewExpression, Node, SpreadElement } from 'acorn'
import type { BinaryOp, Expr, SpreadExpr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { DATE_METHODS } from '../../ast/globals.ts'
import { COMPARISON_OPERATORS, OPERATORS, ORDERING_OPERATORS } from '../../ast/nodes.ts'
import { assign, binary, id } from '../../ast/build.ts'
import { didYouMean } from '../suggest.ts'
import { checkReassign, refuseAsValue, staticCall } from './statics.ts'
import { lowerElement, lowerExpr } from './expressions.ts'
import { isGlobalName } from './maps.ts'

const ORDERING: ReadonlySet<string> = new Set(ORDERING_OPERATORS)
/** The equality operators: a Date is an object there, equal only to itself. */
const IDENTITY: ReadonlySet<string> = new Set(COMPARISON_OPERATORS.filter((op) => !ORDERING.has(op)))
/** The operators that read a Date as its time value (ToNumber, or ToPrimitive with the number hint): all binary ones but those, `+` and `in`. */
const NUMERIC: ReadonlySet<string> = new Set(OPERATORS.binary.filter((op) => !IDENTITY.has(op) && op !== '+' && op !== 'in'))

/** Whether `node` is a Date here: `new Date(...)` of the global Date, or a variable declared holding one. */
export function isDate(node: Node, ctx: LowerContext): boolean {
  if (node.type === 'NewExpression') {
    const callee = (node as NewExpression).callee
    return callee.type === 'Identifier' && callee.name === 'Date' && isGlobalName('Date', ctx)
  }
  if (node.type !== 'Identifier' || ctx.dateVars === 0) return false
  const kind = ctx.scope.lookup((node as Identifier).name)
  return kind === 'date' || kind === 'dateConst'
}

/** A Date's time value: `new Date(...)` as `Date.time(...)` (a Date among its arguments read as its time, as JavaScript reads it), a Date variable as itself. */
export function lowerTime(node: Node, ctx: LowerContext): Expr {
  if (node.type === 'Identifier') return id((node as Identifier).name)
  return staticCall('Date', 'time', (node as NewExpression).arguments.map((a) => (isDate(a, ctx) ? lowerTime(a, ctx) : lowerElement(a, ctx))), ctx, node)
}

/** A Date where JavaScript would convert it to text (`d + ''`, `${d}`, `String(d)`): its toString. */
export function dateText(node: Node, ctx: LowerContext): Expr {
  return staticCall('Date', 'toString', [lowerTime(node, ctx)], ctx, node)
}

/**
 * The Date a variable is given (`const e = <Date>`, `e = <Date>`): its time value. Another Date variable
 * is refused: in JavaScript both names would hold one object, and a setter called through one would
 * change the other, where AJS holds two times. `new Date(d)` is a copy in both.
 */
export function lowerNewDate(node: Node, ctx: LowerContext): Expr {
  if (node.type === 'Identifier') refuseDateValue(node, ctx)
  return lowerTime(node, ctx)
}

/** The refusal of a Date used as a value, naming it as written. */
export function refuseDateValue(node: Node, ctx: LowerContext): never {
  return refuseAsValue('DATE_VALUE', node, ctx, 'the Date')
}

/** `d.m(...)` with `d` a Date: the static `Date.m(d, ...)`; a setter of a variable assigns it the new time. */
export function lowerDateCall(node: CallExpression, method: string, ctx: LowerContext): Expr {
  const callee = node.callee as MemberExpression
  const kind = DATE_METHODS.get(method)
  if (kind === undefined) return ctx.fail('DATE_METHOD', callee.property, { name: method, suggest: didYouMean(method, DATE_METHODS.keys()) })
  const time = lowerTime(callee.object, ctx)
  const args = node.arguments.map((a) => lowerElement(a, ctx))
  if (kind === 'time' && args.length === 0) return time
  const call = staticCall('Date', method, [time, ...args], ctx, node)
  if (kind !== 'set' || callee.object.type !== 'Identifier') return call
  const name = (callee.object as Identifier).name
  if (ctx.scope.boundOutsideIsolation(name)) ctx.fail('PARALLEL_ASSIGN', callee.object, { name })
  // A local function's Date from around it is a copy of its time: setting it would not set the caller's.
  const captures = ctx.captures
  if (captures?.names.has(name) && ctx.scope.bindingScope(name) === captures.scope) ctx.fail('LOCAL_FUNCTION_ASSIGNS', callee.object, { name: captures.fn, target: name })
  return assign(id(name), call, '=')
}

/** A binary operator with a Date operand: its time value where JavaScript reads a number, its text for `+`. */
export function lowerDateBinary(node: BinaryExpression, ctx: LowerContext): Expr {
  const op = node.operator
  const left = node.left as Expression
  const side = (n: Expression): Expr => (!isDate(n, ctx) ? lowerExpr(n, ctx) : op === '+' ? dateText(n, ctx) : lowerTime(n, ctx))
  if (NUMERIC.has(op) || op === '+') return binary(op as BinaryOp, side(left), side(node.right))
  if (IDENTITY.has(op)) {
    const text = (n: Node) => ctx.source.slice(n.start, n.end)
    const time = (n: Node) => (isDate(n, ctx) ? `${text(n)}.getTime()` : text(n))
    ctx.fail('DATE_EQUALITY', node, { text: text(node), rewrite: `${time(left)} ${op.length === 2 ? op + '=' : op} ${time(node.right)}` })
  }
  return refuseDateValue(isDate(left, ctx) ? left : node.right, ctx)
}

/** `d = <Date>` for a Date variable `d` (a statement or an expression): the new time value; anything else refused. */
export function lowerDateAssignValue(target: Identifier, right: Expression, ctx: LowerContext): Expr {
  checkReassign(target, 'dateConst', ctx)
  if (!isDate(right, ctx)) refuseDateValue(target, ctx)
  return lowerNewDate(right, ctx)
}


/** An argument of a function that reads it as a number (`Number(d)`, `isNaN(d)`, `Math.max(a, b)`): a Date's time value. */
export function lowerNumberArgs(args: ReadonlyArray<Expression | SpreadElement>, ctx: LowerContext): Array<Expr | SpreadExpr> {
  return args.map((a) => (isDate(a, ctx) ? lowerTime(a, ctx) : lowerElement(a, ctx)))
}
