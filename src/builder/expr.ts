/**
 * Expression helpers: build `$expr` nodes by hand (`e.ident('x')`,
 * `e.binary('+', a, b)`) or from AJS source (`e.parse('a + b')`).
 *
 * There is no second parser: source text always goes through the
 * transpiler's `transpileExpression`. Because a source expression needs to
 * know which variables exist, `e.parse` returns a *deferred* node that the
 * builder resolves against its own scope at the step that uses it (errors
 * then point at that step). `e.compile(source, vars)` parses immediately.
 */
import type {
  BinaryOp, Expr, IdentExpr, Json, LiteralExpr, LogicalOp, MemberExpr, SpreadExpr, UnaryOp,
} from '../ast/types.ts'
import { FORBIDDEN_NAMES, IDENTIFIER } from '../ast/nodes.ts'
import * as b from '../ast/build.ts'
import { BuilderError } from './errors.ts'
import { parseSource, type VarMap } from './resolve.ts'

/** Phantom marker of the value type an expression stands for (type-level only). */
declare const TYPE: unique symbol
export type Typed<T> = { readonly [TYPE]?: T }

/** An expression node, optionally typed with the value it evaluates to. */
export type TypedExpr<T = unknown> = Expr & Typed<T>

/** Key of the deferred source carried by `e.parse` nodes. */
export const SOURCE: unique symbol = Symbol('ajs.builder.source')

/** A source expression resolved by the builder against the scope of the step that uses it. */
export interface SourceExpr<T = unknown> extends Typed<T> {
  readonly [SOURCE]: { readonly source: string; readonly vars?: VarMap }
}

/** Anything usable where an expression is expected. */
export type ExprLike<T = unknown> = TypedExpr<T> | SourceExpr<T>

export const isSourceExpr = (v: unknown): v is SourceExpr =>
  v !== null && typeof v === 'object' && SOURCE in (v as object)

export const isExprNode = (v: unknown): v is Expr =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { $expr?: unknown }).$expr === 'string'

/** A JSON value as an expression: primitives and data become `literal` nodes. */
export function toExpr(v: unknown): Expr {
  if (isExprNode(v)) return v
  if (isSourceExpr(v)) return v as unknown as Expr // resolved later by the builder
  if (v === undefined) return b.id('undefined')
  if (typeof v === 'number' && !Number.isFinite(v)) {
    if (Number.isNaN(v)) return b.id('NaN')
    const inf = b.id('Infinity')
    return v > 0 ? inf : b.unary('-', inf)
  }
  return b.lit(v as Json)
}

function checkName(name: string, what: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || FORBIDDEN_NAMES.has(name)) {
    throw new BuilderError('BUILDER_ARGS', `${what}: invalid name ${JSON.stringify(name)}`)
  }
  return name
}

const args = (xs: unknown[]): Array<Expr | SpreadExpr> => xs.map(toExpr)

/** `a.b.c` or `items.0.name` as member expressions (numeric segments become `[0]`). */
function path(p: string): Expr {
  if (typeof p !== 'string' || p.length === 0) throw new BuilderError('BUILDER_ARGS', 'e.path: expected a dotted path')
  const [head, ...rest] = p.split('.')
  let out: Expr = b.id(checkName(head!, 'e.path'))
  for (const seg of rest) {
    out = b.member(out, /^\d+$/.test(seg) ? Number(seg) : checkName(seg, 'e.path'))
  }
  return out
}

/** Expression helpers. Operands that are not expressions are taken as JSON literals. */
export const e = {
  /** Deferred AJS source expression, resolved in the scope of the step using it. `vars` maps names to paths/values. */
  parse<T = unknown>(source: string, vars?: VarMap): SourceExpr<T> {
    if (typeof source !== 'string') throw new BuilderError('BUILDER_ARGS', 'e.parse: source must be a string')
    return Object.freeze({ [SOURCE]: Object.freeze({ source, vars }) }) as SourceExpr<T>
  },
  /** Parse now, with the given variable names (or name -> path/value mapping). */
  compile(source: string, vars: readonly string[] | VarMap = [], atoms: readonly string[] = []): Expr {
    return Array.isArray(vars)
      ? parseSource(source, { names: vars as readonly string[], atoms })
      : parseSource(source, { names: [], atoms }, vars as VarMap)
  },
  /** A literal value; use it for data that contains a `$expr` key. */
  lit(value: Json): LiteralExpr { return b.lit(value) },
  /** Alias of `lit`, for data passed to atoms (wraps it so `$expr` keys inside stay data). */
  data(value: Json): LiteralExpr { return b.lit(value) },
  ident<T = unknown>(name: string): IdentExpr & Typed<T> { return b.id(checkName(name, 'e.ident')) },
  /** `a.b.c` (numeric segments index arrays). */
  path<T = unknown>(p: string): TypedExpr<T> { return path(p) },
  member(object: unknown, property: string | ExprLike, opts: { optional?: boolean } = {}): MemberExpr {
    return b.member(toExpr(object), typeof property === 'string' ? checkName(property, 'e.member') : toExpr(property), opts.optional)
  },
  binary(op: BinaryOp, left: unknown, right: unknown): Expr { return b.binary(op, toExpr(left), toExpr(right)) },
  logical(op: LogicalOp, left: unknown, right: unknown): Expr { return b.logical(op, toExpr(left), toExpr(right)) },
  unary(op: UnaryOp, argument: unknown): Expr { return b.unary(op, toExpr(argument)) },
  not(argument: unknown): Expr { return b.not(toExpr(argument)) },
  cond(test: unknown, consequent: unknown, alternate: unknown): Expr {
    return b.cond(toExpr(test), toExpr(consequent), toExpr(alternate))
  },
  array(...elements: unknown[]): Expr { return b.array(args(elements)) },
  /** Object literal expression; each value is an expression or a JSON literal. */
  object(props: Record<string, unknown>): Expr {
    return b.object(Object.keys(props).map((key) => ({ key: checkName(key, 'e.object'), value: toExpr(props[key]) })))
  },
  spread(argument: unknown): SpreadExpr { return b.spread(toExpr(argument)) },
  template(quasis: readonly string[], ...expressions: unknown[]): Expr {
    if (quasis.length !== expressions.length + 1) throw new BuilderError('BUILDER_ARGS', 'e.template: needs one more string than expressions')
    return b.template([...quasis], expressions.map(toExpr))
  },
  /** Helper, atom or global function call: `e.call('parseInt', e.ident('s'))`. */
  call(callee: string, ...callArgs: unknown[]): Expr { return b.call(checkName(callee, 'e.call'), args(callArgs)) },
  /** Method call: `e.method(e.ident('s'), 'trim')`. */
  method(object: unknown, method: string, ...callArgs: unknown[]): Expr {
    return b.methodCall(toExpr(object), checkName(method, 'e.method'), args(callArgs))
  },
}

export type ExprHelpers = typeof e
