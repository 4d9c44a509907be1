/**
 * One typed node-builder kit for "ajs/1", typed from the vocabulary table:
 * `node(kind, fields)` and `step(op, fields)` take exactly the fields the
 * table declares for that kind or op (`ExprOf` / `StepOf`), and the short
 * makers below cover what the frontends emit most. Every frontend (the
 * transpiler, the builder, Python, flows) builds its nodes through this kit.
 *
 * The makers do no validation of their own (that is `validateAst`'s job):
 * they only make nodes of the right shape.
 */
import type {
  AjsProgram, ArrayExpr, AssignExpr, AssignOp, BinaryExpr, BinaryOp, CallExpr, ConditionalExpr, CoreOp, Expr,
  ExprKind, ExprOf, IdentExpr, Json, LambdaExpr, LiteralExpr, Loc, LogicalExpr, LogicalOp, MemberExpr, MethodCallExpr,
  ObjectExpr, Pattern, PropertyNode, SpreadExpr, Step, StepOf, TemplateExpr, UnaryExpr, UnaryOp,
} from './types.ts'

type Fields<T, D extends string> = Omit<T, D>

/**
 * `out` with the fields of `fields` added in their order. A copy loop, not a
 * spread: the transpiler makes a node per source expression, and an object
 * spread over the many field shapes takes JavaScriptCore's generic
 * copyDataProperties path (a sixth of a small program's lowering under Bun).
 * The fields are plain object literals, so for...in sees exactly their own keys.
 */
function withFields<T>(out: Record<string, unknown>, fields: object): T {
  for (const key in fields) out[key] = (fields as Record<string, unknown>)[key]
  return out as T
}

/** An expression node of `kind` with exactly its table fields. */
export function node<K extends ExprKind>(kind: K, fields: Fields<ExprOf<K>, '$expr'>): ExprOf<K> {
  return withFields({ $expr: kind }, fields)
}

/** A step of a core op with exactly its table fields (plus `result` / `loc`). */
export function step<K extends CoreOp>(op: K, fields: Fields<StepOf<K>, 'op'>): StepOf<K> & Step {
  return withFields({ op }, fields)
}

/** A step of a custom atom (any op name; its fields are values). */
export function atomStep(op: string, fields: Record<string, unknown>, result?: string): Step {
  return result === undefined ? { op, ...fields } : { op, ...fields, result }
}

/** `node` with a source location (the same node when `loc` is undefined). */
export function at<T extends { loc?: Loc }>(n: T, loc: Loc | undefined): T {
  if (loc) n.loc = loc
  return n
}

/** A program root around `steps`. */
export function program(steps: Step[], rest: Partial<Omit<AjsProgram, 'ajs' | 'op' | 'steps'>> = {}): AjsProgram {
  return { ajs: 1, op: 'seq', steps, ...rest }
}

// --- expressions --------------------------------------------------------------

export const lit = (value: Json): LiteralExpr => ({ $expr: 'literal', value })
export const id = (name: string): IdentExpr => ({ $expr: 'ident', name })
/** `undefined` (an identifier: JSON has no undefined literal). */
export const UNDEFINED: IdentExpr = Object.freeze(id('undefined')) as IdentExpr
/**
 * `object.property` for a string, `object[property]` for an expression or a
 * number (an index literal).
 */
export function member(object: Expr, property: string | number | Expr, optional?: boolean): MemberExpr {
  const out: MemberExpr = typeof property === 'string'
    ? { $expr: 'member', object, property }
    : { $expr: 'member', object, property: typeof property === 'number' ? lit(property) : property, computed: true }
  if (optional) out.optional = true
  return out
}
export const binary = (op: BinaryOp, left: Expr, right: Expr): BinaryExpr => ({ $expr: 'binary', op, left, right })
export const logical = (op: LogicalOp, left: Expr, right: Expr): LogicalExpr => ({ $expr: 'logical', op, left, right })
export const and = (left: Expr, right: Expr): LogicalExpr => logical('&&', left, right)
export const or = (left: Expr, right: Expr): LogicalExpr => logical('||', left, right)
export const unary = (op: UnaryOp, argument: Expr): UnaryExpr => ({ $expr: 'unary', op, argument })
export const not = (argument: Expr): UnaryExpr => unary('!', argument)
export const cond = (test: Expr, consequent: Expr, alternate: Expr): ConditionalExpr =>
  ({ $expr: 'conditional', test, consequent, alternate })
export const array = (elements: Array<Expr | SpreadExpr>): ArrayExpr => ({ $expr: 'array', elements })
export const spread = (argument: Expr): SpreadExpr => ({ $expr: 'spread', argument })
/** An object literal from `{ key: expr }` (static keys), or from property nodes and spreads. */
export function object(props: Record<string, Expr> | Array<PropertyNode | SpreadExpr>): ObjectExpr {
  const properties = Array.isArray(props) ? props : Object.keys(props).map((key) => ({ key, value: props[key]! }))
  return { $expr: 'object', properties }
}
export const template = (quasis: string[], expressions: Expr[]): TemplateExpr => ({ $expr: 'template', quasis, expressions })
export function call(callee: string, args: Array<Expr | SpreadExpr> = [], loc?: Loc): CallExpr {
  return at<CallExpr>({ $expr: 'call', callee, args }, loc)
}
/** A call of an atom with its one object argument `{ field: expr }`. */
export const callAtom = (callee: string, input: Record<string, Expr>): CallExpr => call(callee, [object(input)])
export function methodCall(object: Expr, method: string, args: Array<Expr | SpreadExpr | LambdaExpr> = [], optional?: boolean): MethodCallExpr {
  const out: MethodCallExpr = { $expr: 'methodCall', object, method, args }
  if (optional) out.optional = true
  return out
}
/** An arrow callback: an expression body, or a block of steps. */
export function lambda(params: Pattern[], body: Expr | Step[]): LambdaExpr {
  return Array.isArray(body) ? { $expr: 'lambda', params, steps: body } : { $expr: 'lambda', params, body }
}
/** `target op value`; a string target is a variable name. */
export function assign(target: string | AssignExpr['target'], value: Expr, op: AssignOp = '='): AssignExpr {
  return { $expr: 'assign', op, target: typeof target === 'string' ? id(target) : target, value }
}

// --- steps ----------------------------------------------------------------------

export const exprStep = (value: Expr, loc?: Loc): StepOf<'expr'> & Step => at(step('expr', { value }), loc)
export const ret = (value?: Expr, loc?: Loc): StepOf<'return'> & Step => at(step('return', value === undefined ? {} : { value }), loc)
export const varSet = (key: string, value: Expr, loc?: Loc): StepOf<'varSet'> & Step => at(step('varSet', { key, value }), loc)
export const varsLet = (vars: Record<string, Expr>, loc?: Loc): StepOf<'varsLet'> & Step => at(step('varsLet', { vars }), loc)
export function if_(condition: Expr, then: Step[], otherwise?: Step[]): StepOf<'if'> & Step {
  return step('if', otherwise ? { condition, then, else: otherwise } : { condition, then })
}
