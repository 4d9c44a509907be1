/**
 * `new Intl.NumberFormat(locales, options).format(x)` and `new Intl.DateTimeFormat(locales, options).format(d)`,
 * written in place, as models write them to format money and dates. AJS has no Intl objects (its values
 * are plain data), but a formatter made and used at once is a function of its arguments:
 * `Number(x).toLocaleString(locales, options)` (what ECMA-402 defines it as) and the Dates part's
 * `Date.intlFormat(d, locales, options)` (a Date, its time value, or now without an argument). The
 * formatter's arguments are evaluated after `x` there, so they must be ones whose order cannot show:
 * literals and variables. A formatter kept in a variable formats the same way (lower/intl-vars.ts); another
 * Intl class, or a formatter used any other way, is refused (AJS2047).
 */
import type { CallExpression, Expression, MemberExpression, NewExpression, Node, SpreadElement } from 'acorn'
import type { Expr, SpreadExpr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { call, id, methodCall } from '../../ast/build.ts'
import { lowerElement, lowerExpr } from './expressions.ts'
import { isDate, lowerTime } from './dates.ts'
import { staticCall } from './statics.ts'
import { lowerKeptFormat } from './intl-vars.ts'

/** The Intl classes AJS formats with, written in place. */
export const FORMATS: ReadonlySet<string> = new Set(['NumberFormat', 'DateTimeFormat'])

/** `Intl.X` of the global Intl: X, else undefined. */
export function intlClass(node: Node, ctx: LowerContext): string | undefined {
  if (node.type !== 'MemberExpression') return undefined
  const m = node as MemberExpression
  if (m.computed || m.object.type !== 'Identifier' || m.object.name !== 'Intl' || m.property.type !== 'Identifier') return undefined
  if (ctx.scope.lookup('Intl') !== undefined || ctx.helpers.has('Intl')) return undefined
  return m.property.name
}

/** A value whose evaluation cannot show its order: a literal, a variable, an array or object of them. */
function settled(n: Node): boolean {
  switch (n.type) {
    case 'Literal': case 'Identifier': return true
    case 'TemplateLiteral': return (n as unknown as { expressions: unknown[] }).expressions.length === 0
    case 'UnaryExpression': return settled((n as unknown as { argument: Node }).argument)
    case 'ArrayExpression': return (n as unknown as { elements: Array<Node | null> }).elements.every((e) => e !== null && settled(e))
    case 'ObjectExpression': return (n as unknown as { properties: Array<{ type: string; computed: boolean; value: Node }> }).properties.every((p) => p.type === 'Property' && !p.computed && settled(p.value))
    default: return false
  }
}

/** `new Intl.NumberFormat(...).format(x)` / `new Intl.DateTimeFormat(...).format(d)`, or `fmt.format(x)` of a kept formatter; undefined for any other call. */
export function lowerIntlFormat(node: CallExpression, method: string, ctx: LowerContext): Expr | undefined {
  const made = (node.callee as MemberExpression).object
  if (made.type === 'Identifier') return lowerKeptFormat(node, made, method, ctx)
  if (made.type !== 'NewExpression') return undefined
  const name = intlClass((made as NewExpression).callee, ctx)
  if (name === undefined) return undefined
  const args = (made as NewExpression).arguments
  if (method !== 'format' || !FORMATS.has(name) || args.length > 2 || !args.every((a) => a.type !== 'SpreadElement' && settled(a))) {
    return ctx.fail('INTL_FORMAT', node, { name })
  }
  return formatWith(name, args.map((a) => lowerElement(a as Expression | SpreadElement, ctx)), node, ctx)
}

/**
 * `format(x)` of a formatter of class `name` made with `formatArgs` (lowered; a kept formatter's are the spread
 * of its variable): the number's `toLocaleString`, or `Date.intlFormat` of the time (now without an argument).
 */
export function formatWith(name: string, formatArgs: Array<Expr | SpreadExpr>, node: CallExpression, ctx: LowerContext): Expr {
  if (node.arguments.length > 1 || node.arguments.some((a) => a.type === 'SpreadElement')) return ctx.fail('INTL_FORMAT', node, { name })
  const x = node.arguments[0] as Expression | undefined
  const value = x === undefined ? undefined : name !== 'NumberFormat' && isDate(x, ctx) ? lowerTime(x, ctx) : lowerExpr(x, ctx)
  return formatValue(name, value, formatArgs, ctx, node)
}

/** formatWith of the lowered `value` (a Date as its time), located at `at`. */
export function formatValue(name: string, value: Expr | undefined, formatArgs: Array<Expr | SpreadExpr>, ctx: LowerContext, at: Node): Expr {
  if (name === 'NumberFormat') {
    const out = methodCall(call('Number', value === undefined ? [] : [value], ctx.loc(at)), 'toLocaleString', formatArgs)
    out.loc = ctx.loc(at)
    return out
  }
  return staticCall('Date', 'intlFormat', [value ?? methodCall(id('Date'), 'time', []), ...formatArgs], ctx, at)
}
