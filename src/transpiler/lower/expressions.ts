/**
 * Expressions: ESTree -> `$expr` nodes, one table entry per ESTree type.
 *
 * Each node is visited once; unknown node types fall through to a located
 * "not supported" error (better to crash than to silently mis-compile).
 * Calls live in `calls.ts`, lambdas in `functions.ts`.
 */

import type {
  ArrayExpression, AssignmentExpression, BinaryExpression, ConditionalExpression, Expression, Literal,
  Identifier, LogicalExpression, MemberExpression, Node, ObjectExpression, Pattern as EsPattern, PrivateIdentifier,
  Property, AssignmentProperty, SequenceExpression, SpreadElement, TemplateLiteral, UnaryExpression,
  UpdateExpression, Super,
} from 'acorn'
import type { AssignOp, BinaryOp, Expr, IdentExpr, MemberExpr, PropertyNode, SpreadExpr, UnaryOp } from '../../ast/types.ts'
import type { CodeName } from '../../diagnostics/codes.ts'
import type { LowerContext } from '../context.ts'
import { lowerCall, lowerNew } from './calls.ts'
import { checkAssignable, lowerIdentifier } from './names.ts'
import { lowerAssignTarget } from './patterns.ts'
import { lowerIterable, lowerSetRead } from './sets.ts'
import { lowerMapSize } from './maps.ts'
import { typedAssignValue } from './typed-vars.ts'
import { dateText, isDate, lowerDateBinary, lowerTime } from './dates.ts'
import { discard, isUnused } from './unused.ts'
import { COMPARISON_OPERATORS } from '../../ast/nodes.ts'
import { ERROR_VALUE_NAMES } from '../../ast/globals.ts'
// The kit's positional makers build each node as one literal (no fields object copied per node).
import { array, assign, binary, cond, id, lit, logical, member, node as make, object, spread, template, unary } from '../../ast/build.ts'

type AnyExpr = Expression | Super | PrivateIdentifier | EsPattern | SpreadElement
type Lower = (node: any, ctx: LowerContext) => Expr

const reject = (code: CodeName, name?: string): Lower => (node, ctx) => ctx.fail(code, node, { name })

/**
 * How deep expressions may nest: a 200,000-long `+`, `.b`, `?.` or `??` chain
 * is a located error here, as `vm.run` of the same source is AST_TOO_DEEP,
 * never a host stack overflow.
 */
export const MAX_EXPR_NESTING = 5_000

/** Lower any expression node. */
export function lowerExpr(node: AnyExpr, ctx: LowerContext): Expr {
  if (++ctx.exprDepth > MAX_EXPR_NESTING) {
    ctx.exprDepth--
    // An unsupported construct is reported as such at any depth.
    if (EXPR[node.type] === undefined) return ctx.fail('UNSUPPORTED', node, { name: node.type })
    return ctx.fail('TOO_DEEP', node, { name: `${MAX_EXPR_NESTING.toLocaleString('en')} levels of expressions` })
  }
  try {
    return lowerByType(node, ctx)
  } finally {
    ctx.exprDepth--
  }
}

/**
 * The kinds nearly every expression is, called directly (a call the engine
 * can inline); the rest through the EXPR table. One call per node of the
 * source, so the indirect call through the table showed in profiles.
 */
function lowerByType(node: AnyExpr, ctx: LowerContext): Expr {
  switch (node.type) {
    case 'Identifier': return lowerIdentifier(node, ctx)
    case 'Literal': return lowerLiteral(node, ctx)
    case 'MemberExpression': return lowerMember(node, ctx)
    case 'CallExpression': return lowerCall(node, ctx)
    case 'BinaryExpression': return lowerBinary(node, ctx)
    case 'LogicalExpression': return lowerLogical(node, ctx)
    case 'ObjectExpression': return lowerObject(node, ctx)
    case 'ArrayExpression': return lowerArray(node, ctx)
    case 'TemplateLiteral': return lowerTemplate(node, ctx)
    default: {
      const lower = EXPR[node.type]
      if (lower === undefined) return ctx.fail('UNSUPPORTED', node, { name: node.type })
      return lower(node, ctx)
    }
  }
}

/** Lower an element of an array literal or call arguments (spread allowed). */
export function lowerElement(node: Expression | SpreadElement, ctx: LowerContext): Expr | SpreadExpr {
  if (node.type === 'SpreadElement') return spread(lowerIterable(node.argument, ctx))
  return lowerExpr(node, ctx)
}

/** The object of a member access or method call: namespaces (`Math`) are allowed here. */
export function lowerObjectOf(node: Expression | Super, ctx: LowerContext): Expr {
  if (node.type === 'Identifier') return lowerIdentifier(node, ctx, true)
  if (node.type === 'Super') return ctx.fail('META', node, { name: 'super' })
  // `(a?.b).c`: the parentheses end the chain; JS would throw where AJS would not.
  if (node.type === 'ChainExpression') return ctx.fail('PAREN_CHAIN', node)
  return lowerExpr(node, ctx)
}

/** `a.b`, `a[i]`, `a?.b`. */
export function lowerMember(node: MemberExpression, ctx: LowerContext): MemberExpr {
  const size = lowerSetRead(node, ctx) ?? lowerMapSize(node, ctx)
  if (size) return size as MemberExpr
  const object = lowerObjectOf(node.object, ctx)
  let out: MemberExpr
  if (node.computed) {
    const prop = node.property as Expression
    if (prop.type === 'Literal' && typeof prop.value === 'string') ctx.checkName(prop.value, prop)
    out = member(object, lowerExpr(prop, ctx))
  } else {
    if (node.property.type !== 'Identifier') return ctx.fail('CLASS', node.property)
    ctx.checkName(node.property.name, node.property)
    out = member(object, node.property.name)
  }
  if (node.optional) out.optional = true
  return out
}

/** A static key (string) or a computed key expression of an object property or pattern property. */
export function propertyKey(p: Property | AssignmentProperty, ctx: LowerContext): string | Expr {
  const key = p.key
  if (!p.computed) {
    const name = key.type === 'Identifier' ? key.name : String((key as Literal).value)
    ctx.checkName(name, key)
    return name
  }
  if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) {
    const name = String(key.value)
    ctx.checkName(name, key)
    return name
  }
  return lowerExpr(key, ctx)
}

function lowerLiteral(node: Literal, ctx: LowerContext): Expr {
  if ('regex' in node && node.regex) return make('regex', { pattern: node.regex.pattern, flags: node.regex.flags })
  if ('bigint' in node && node.bigint !== undefined) return ctx.fail('BIGINT', node)
  const value = node.value
  // `1e999` is Infinity, which JSON cannot carry.
  if (typeof value === 'number' && !Number.isFinite(value)) return id('Infinity')
  return lit(value as string | number | boolean | null)
}

function lowerTemplate(node: TemplateLiteral, ctx: LowerContext): Expr {
  const quasis = node.quasis.map((q) => q.value.cooked ?? q.value.raw)
  const expressions = node.expressions.map((e) => (ctx.dateVars > 0 || e.type === 'NewExpression') && isDate(e, ctx) ? dateText(e, ctx) : lowerExpr(e, ctx))
  return template(quasis, expressions)
}

function lowerArray(node: ArrayExpression, ctx: LowerContext): Expr {
  const elements: Array<Expr | SpreadExpr> = []
  for (const el of node.elements) {
    if (el === null) ctx.fail('SPARSE_ARRAY', node)
    elements.push(lowerElement(el, ctx))
  }
  return array(elements)
}

function lowerObject(node: ObjectExpression, ctx: LowerContext): Expr {
  const properties: Array<PropertyNode | SpreadExpr> = []
  for (const p of node.properties) {
    if (p.type === 'SpreadElement') {
      properties.push(spread(lowerExpr(p.argument, ctx)))
      continue
    }
    if (p.kind !== 'init') ctx.fail('ACCESSOR', p, { name: p.key.type === 'Identifier' ? p.key.name : 'key' })
    if (p.method) ctx.fail('OBJECT_METHOD', p, { name: p.key.type === 'Identifier' ? p.key.name : 'helper' })
    const key = propertyKey(p, ctx)
    const value = p.shorthand && p.value.type === 'Identifier' ? lowerIdentifier(p.value, ctx) : lowerExpr(p.value, ctx)
    properties.push(p.computed && typeof key !== 'string' ? { key, computed: true, value } : { key, value })
  }
  return object(properties)
}

function lowerUnary(node: UnaryExpression, ctx: LowerContext): Expr {
  const op = node.operator as UnaryOp
  if (op === 'delete') {
    if (node.argument.type !== 'MemberExpression') ctx.fail('DELETE_TARGET', node)
    return unary(op, lowerMember(node.argument, ctx))
  }
  const arg = node.argument
  if ((op === '+' || op === '-' || op === '~') && isDate(arg, ctx)) return unary(op, lowerTime(arg, ctx))
  // Fold `-5` into a literal (but keep `-0`, which JSON cannot carry).
  if (op === '-' && arg.type === 'Literal' && typeof arg.value === 'number' && arg.value !== 0 && Number.isFinite(arg.value)) {
    return lit(-arg.value)
  }
  return unary(op, lowerExpr(arg, ctx))
}

const isNullish = (n: Node): boolean =>
  (n.type === 'Literal' && (n as Literal).value === null && !('regex' in n && (n as Literal).regex)) ||
  (n.type === 'Identifier' && (n as unknown as { name: string }).name === 'undefined')

const COMPARISONS: ReadonlySet<string> = new Set(COMPARISON_OPERATORS)

/** `a > b > c` (unparenthesized): the builder's condition strings refuse it, with the rewrite. */
function refuseChain(node: BinaryExpression, ctx: LowerContext): void {
  const left = node.left
  if (left.type !== 'BinaryExpression' || !COMPARISONS.has(left.operator) || left.start !== node.start) return
  const text = (n: { start: number; end: number }) => ctx.source.slice(n.start, n.end)
  ctx.fail('CHAINED_COMPARISON', node, {
    text: text(node), left: text(left), right: text(node.right),
    rewrite: `${text(left)} && ${text(left.right)} ${node.operator} ${text(node.right)}`,
  })
}

/**
 * `e instanceof Error` (or TypeError, RangeError, SyntaxError, ReferenceError): AJS errors are plain
 * objects, so it tests their shape, an object with a string message and a name (that name for the
 * subclasses), written out in AST nodes. The tested value is read more than once, so it must be a
 * variable or a property of one, never a call. Other classes have no instances in AJS.
 */
function lowerInstanceof(node: BinaryExpression, ctx: LowerContext): Expr {
  const right = node.right
  const name = right.type === 'Identifier' ? right.name : ''
  if (!(ERROR_VALUE_NAMES as readonly string[]).includes(name) || !isPlainRead(node.left)) return ctx.fail('INSTANCEOF', node)
  // Lowered once; each use is its own copy (an AST is a tree: no node appears twice).
  const tested = lowerExpr(node.left as Expression, ctx)
  const x = () => structuredClone(tested)
  const isText = (e: Expr) => binary('===', unary('typeof', e), lit('string'))
  const named = name === 'Error' ? isText(member(x(), 'name')) : binary('===', member(x(), 'name'), lit(name))
  const isObject = logical('&&', binary('===', unary('typeof', x()), lit('object')), binary('!==', x(), lit(null)))
  return logical('&&', logical('&&', isObject, isText(member(x(), 'message'))), named)
}

/** A variable, or a chain of plain property reads of one (`e`, `r.error`, `r.errors[0]`): reading it again changes nothing. */
export function isPlainRead(n: Node): boolean {
  if (n.type === 'Identifier') return true
  if (n.type !== 'MemberExpression') return false
  const m = n as MemberExpression
  return (!m.computed || m.property.type === 'Literal') && isPlainRead(m.object)
}

function lowerBinary(node: BinaryExpression, ctx: LowerContext): Expr {
  const op = node.operator
  if (op === 'instanceof') return lowerInstanceof(node, ctx)
  if (node.left.type === 'PrivateIdentifier') ctx.fail('CLASS', node.left)
  if (ctx.refuseChainedComparisons && COMPARISONS.has(op)) refuseChain(node, ctx)
  if ((op === '==' || op === '!=') && !isNullish(node.left) && !isNullish(node.right)) {
    ctx.warn('LOOSE_EQUALITY', node, { op, strict: op + '=' })
  }
  if (isDate(node.left, ctx) || isDate(node.right, ctx)) return lowerDateBinary(node, ctx)
  return binary(op as BinaryOp, lowerExpr(node.left as Expression, ctx), lowerExpr(node.right, ctx))
}

function lowerLogical(node: LogicalExpression, ctx: LowerContext): Expr {
  return logical(node.operator, lowerExpr(node.left, ctx), lowerExpr(node.right, ctx))
}

function lowerConditional(node: ConditionalExpression, ctx: LowerContext): Expr {
  return cond(lowerExpr(node.test, ctx), lowerExpr(node.consequent, ctx), lowerExpr(node.alternate, ctx))
}

/** A simple assignment target: a declared, assignable variable or a property. */
export function lowerSimpleTarget(node: Node, ctx: LowerContext): IdentExpr | MemberExpr {
  if (node.type === 'Identifier') {
    checkAssignable(node as never, ctx)
    return id((node as unknown as { name: string }).name)
  }
  if (node.type === 'MemberExpression') return lowerMember(node as MemberExpression, ctx)
  return ctx.fail('SEQUENCE_PATTERN', node)
}

function lowerAssign(node: AssignmentExpression, ctx: LowerContext): Expr {
  const op = node.operator as AssignOp
  const left = node.left
  // The value of `d = new Date(...)` or `m = new Map(...)` is the Date or Map: only where it is dropped (lower/unused.ts).
  const typed = op === '=' ? typedAssignValue(left, node.right, ctx, isUnused(node, ctx) ? undefined : node) : undefined
  if (typed) return assign(id((left as Identifier).name), typed, op)
  const target = left.type === 'ObjectPattern' || left.type === 'ArrayPattern'
    ? lowerAssignTarget(left, ctx) as Exclude<ReturnType<typeof lowerAssignTarget>, string>
    : lowerSimpleTarget(left, ctx)
  return assign(target, lowerExpr(node.right, ctx), op)
}

function lowerUpdate(node: UpdateExpression, ctx: LowerContext): Expr {
  return make('update', { op: node.operator, prefix: node.prefix, argument: lowerSimpleTarget(node.argument, ctx) })
}

function lowerSequence(node: SequenceExpression, ctx: LowerContext): Expr {
  // Each value but the last is dropped: `(s.add(x), true)`, `(m.set(k, v), m.size)` (lower/unused.ts).
  for (const e of node.expressions.slice(0, -1)) discard(e, ctx)
  return make('sequence', { expressions: node.expressions.map((e) => lowerExpr(e, ctx)) })
}

/** The dispatch table: ESTree expression type -> lowering. */
const EXPR: Record<string, Lower> = {
  Identifier: (n, ctx) => lowerIdentifier(n, ctx),
  Literal: lowerLiteral,
  TemplateLiteral: lowerTemplate,
  ArrayExpression: lowerArray,
  ObjectExpression: lowerObject,
  MemberExpression: lowerMember,
  ChainExpression: (n, ctx) => lowerExpr(n.expression, ctx),
  CallExpression: lowerCall,
  NewExpression: lowerNew,
  UnaryExpression: lowerUnary,
  BinaryExpression: lowerBinary,
  LogicalExpression: lowerLogical,
  ConditionalExpression: lowerConditional,
  AssignmentExpression: lowerAssign,
  UpdateExpression: lowerUpdate,
  SequenceExpression: lowerSequence,
  ParenthesizedExpression: (n, ctx) => lowerExpr(n.expression, ctx),
  ArrowFunctionExpression: (n, ctx) => ctx.fail(n.async ? 'ASYNC' : 'CLOSURE', n),
  FunctionExpression: (n, ctx) => ctx.fail(n.async ? 'ASYNC' : n.generator ? 'GENERATOR' : 'FUNCTION_EXPRESSION', n),
  ClassExpression: reject('CLASS'),
  ThisExpression: reject('THIS'),
  // The VM waits for every call, so `await e` is `e` (acorn accepts it only inside async functions).
  AwaitExpression: (n, ctx) => {
    // `await (c ? f() : g())` awaits whichever call runs (a dispatch of function-tables.ts is such a chain).
    for (let a: Node = n.argument; ; a = (a as ConditionalExpression).alternate) {
      ctx.awaited.add(a)
      if (a.type !== 'ConditionalExpression') break
      ctx.awaited.add((a as ConditionalExpression).consequent)
    }
    return lowerExpr(n.argument, ctx)
  },
  YieldExpression: reject('GENERATOR'),
  TaggedTemplateExpression: reject('TAGGED_TEMPLATE'),
  MetaProperty: (n, ctx) => ctx.fail('META', n, { name: `${n.meta.name}.${n.property.name}` }),
  Super: reject('META', 'super'),
  ImportExpression: reject('MODULE'),
  PrivateIdentifier: reject('CLASS'),
}
