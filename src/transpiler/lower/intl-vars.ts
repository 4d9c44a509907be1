/**
 * Intl formatters kept in a variable, as models keep one to format a list:
 * `const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })`, then
 * `items.map((i) => fmt.format(i.price))`. AJS has no Intl objects, so the variable holds the formatter's
 * arguments as plain data, `[locales, options]`, and `fmt.format(x)` is the in-place form with them spread
 * (lower/intl.ts formatWith). The constructor reads its options once, so a variable or other expression
 * for them is kept as a copy (`{ ...options }`): a later change to that object does not reach the formatter.
 *
 * `xs.map(fmt.format)` formats each item, as JavaScript's bound `format` does. The variable is a `const`, or a
 * `let` never reassigned; anywhere JavaScript would hand the formatter on (returned, passed, stored,
 * compared, `typeof`, reassigned) is refused (AJS2058) with the rewrite. A
 * local function that reads it gets it as a parameter of the same kind (lower/functions.ts), so formats too.
 */
import type { CallExpression, Expression, Identifier, MemberExpression, NewExpression, Node, VariableDeclarator } from 'acorn'
import type { Expr, Step } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { array, id, lambda, object, spread } from '../../ast/build.ts'
import { lowerExpr } from './expressions.ts'
import { FORMATS, formatValue, formatWith, intlClass } from './intl.ts'
import { toValue } from './statements.ts'

/** The Intl class of a formatter variable (`NumberFormat` / `DateTimeFormat`), else undefined. */
function formatterClass(node: Identifier, ctx: LowerContext): string | undefined {
  const kind = ctx.scope.lookup(node.name)
  return kind === 'numberFormat' ? 'NumberFormat' : kind === 'dateTimeFormat' ? 'DateTimeFormat' : undefined
}

/** `const fmt = new Intl.NumberFormat(...)` (or DateTimeFormat, or `let`): the step declaring it, or undefined for any other declarator. */
export function formatterDeclaration(d: VariableDeclarator, ctx: LowerContext): Step | undefined {
  if (d.id.type !== 'Identifier' || d.init?.type !== 'NewExpression') return undefined
  const made = d.init as NewExpression
  const name = intlClass(made.callee, ctx)
  if (name === undefined || !FORMATS.has(name)) return undefined
  if (made.arguments.length > 2 || made.arguments.some((a) => a.type === 'SpreadElement')) return ctx.fail('INTL_FORMAT', made, { name })
  const [locales, options] = made.arguments as Expression[]
  const args: Expr[] = []
  if (locales) args.push(lowerExpr(locales, ctx))
  if (options) args.push(options.type === 'ObjectExpression' ? lowerExpr(options, ctx) : object([spread(lowerExpr(options, ctx))]))
  // Never reassigned (names.ts refuses it), so a `let` is kept as a `const` is.
  ctx.declare(d.id.name, name === 'NumberFormat' ? 'numberFormat' : 'dateTimeFormat', d.id)
  return { op: 'constSet', key: d.id.name, value: toValue(array(args)), loc: ctx.loc(d) }
}

/** `fmt.format(x)` of a formatter variable; a formatter variable's other methods are refused (AJS2047); undefined when `made` is no formatter. */
export function lowerKeptFormat(node: CallExpression, made: Identifier, method: string, ctx: LowerContext): Expr | undefined {
  const name = formatterClass(made, ctx)
  if (name === undefined) return undefined
  if (method !== 'format') return ctx.fail('INTL_FORMAT', node, { name })
  return formatWith(name, [spread(id(made.name))], node, ctx)
}

/**
 * `fmt.format` as a callback, `prices.map(fmt.format)`: JavaScript's `format` is bound to its formatter, so
 * this formats each item (the index and array also passed are ignored): the arrow `(value) => fmt.format(value)`.
 * Undefined when `node` is no such member.
 */
export function keptFormatCallback(node: Node, ctx: LowerContext): Expr | undefined {
  if (node.type !== 'MemberExpression') return undefined
  const { object, property, computed, optional } = node as MemberExpression
  if (computed || optional || object.type !== 'Identifier' || property.type !== 'Identifier' || property.name !== 'format') return undefined
  const name = formatterClass(object, ctx)
  if (name === undefined) return undefined
  const value = ctx.temp('value')
  return lambda([value], formatValue(name, id(value), [spread(id(object.name))], ctx, node))
}

/** A formatter variable read as a value or assigned: AJS2058. */
export function refuseFormatter(node: Identifier, ctx: LowerContext): never {
  return ctx.fail('INTL_FORMATTER', node, { name: node.name })
}

/** Whether `kind` is a formatter variable's. */
export const isFormatterKind = (kind: string | undefined): boolean => kind === 'numberFormat' || kind === 'dateTimeFormat'
