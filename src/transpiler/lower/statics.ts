/**
 * What the lowerings of JavaScript's objects into plain data share (lower/dates.ts, maps.ts, sets.ts,
 * set-vars.ts, intl.ts, group-by.ts, arrays.ts): a call of a namespace static located at the source it
 * stands for, the refusal of such a value where JavaScript would hand the object on, the checks of
 * assigning a variable that holds one, and the `forEach` of a Map or Set variable.
 */
import type { ArrowFunctionExpression, Identifier, Node } from 'acorn'
import type { Expr, LambdaExpr, Pattern, SpreadExpr, Step } from '../../ast/types.ts'
import type { CodeName } from '../../diagnostics/codes.ts'
import type { LowerContext } from '../context.ts'
import type { BindingKind } from '../scope.ts'
import { array, at, exprStep, id, lambda, lit, methodCall, step } from '../../ast/build.ts'
import { walk } from '../../ast/walk.ts'
import { discard } from './unused.ts'
import { lowerLambda } from './functions.ts'

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

/**
 * `x.forEach((value, key) => body)` of a Map or Set variable, where `pairs` walks its `[key, value]` pairs live
 * (`Map.walk(m)`, `Set.walk(s, 'entries')`): `[0].forEach(() => { for (let [key, value] of pairs) body })`, value
 * first as JavaScript passes it, the parameters the loop's (fresh each turn and assignable, as a call's are).
 * The outer call makes the loop an expression, whose value is undefined, as forEach's. A callback with a
 * `return` is called as written, `for (const e of pairs) [e].forEach(([key, value]) => body)`, its `return`
 * leaving that call. `fn`'s third parameter (the object itself) is the caller's to refuse.
 */
export function forEachOfWalk(fn: ArrowFunctionExpression, pairs: Expr, ctx: LowerContext, at_: Node): Expr {
  const loc = ctx.loc(at_)
  discard(fn.body, ctx) // its value is dropped, as an array forEach's
  const callback = lowerLambda(fn, ctx)
  const [value, key] = callback.params
  const pair = { $pattern: 'array', elements: [key ?? null, value ?? null] } as Pattern
  let loop: Step
  if (!hasReturn(callback)) loop = step('forOf', { kind: 'let', target: pair, iterable: pairs, body: callback.steps ?? [exprStep(callback.body!, loc)] })
  else {
    const entry = ctx.temp('entry')
    callback.params = [pair]
    loop = step('forOf', { kind: 'const', target: entry, iterable: pairs, body: [exprStep(at(methodCall(array([id(entry)]), 'forEach', [callback]), loc), loc)] })
  }
  return at(methodCall(array([lit(0)]), 'forEach', [lambda([], [at(loop, loc)])]), loc)
}

/** Whether a callback's body has a `return` of its own (not one of a callback inside it). */
function hasReturn(callback: LambdaExpr): boolean {
  let found = false
  walk(callback.steps ?? [], { step: (s) => { found ||= s.op === 'return' }, expr: (e) => e.$expr !== 'lambda' })
  return found
}
