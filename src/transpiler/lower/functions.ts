/**
 * Functions: helpers (top-level declarations other than the entry) and
 * lambdas (arrow callbacks of array methods).
 *
 * A helper starts from an empty scope: it sees its parameters, the other
 * helpers and the globals, never the entry's variables. A lambda reads the
 * enclosing scope.
 */

import type { ArrowFunctionExpression, BlockStatement, FunctionDeclaration, Pattern as EsPattern } from 'acorn'
import type { FunctionDef, LambdaExpr, Pattern } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { Scope } from '../scope.ts'
import { lowerExpr } from './expressions.ts'
import { lowerBinding, predeclarePatterns } from './patterns.ts'
import { lowerBlock } from './statements.ts'
import { lambda } from '../../ast/build.ts'
import type { LiftedFunction } from '../local-functions.ts'
import { declareCollectionParams } from './helper-collections.ts'

/**
 * Parameters, declared left to right (a default sees only earlier parameters). A helper's last may be a rest
 * parameter, `...rest` (a name): its calls pass what falls there as one array (lower/calls.ts restArguments).
 */
export function lowerParams(params: EsPattern[], ctx: LowerContext, helper = false): Pattern[] {
  const own = params.map((p, i) => {
    if (p.type !== 'RestElement') return p
    if (!helper || i !== params.length - 1 || p.argument.type !== 'Identifier') ctx.fail('REST_PARAM', p)
    return p.argument
  })
  predeclarePatterns(ctx, own)
  return own.map((p) => lowerBinding(p, ctx, 'param'))
}

/** The index of a function's rest parameter, or undefined. */
function restIndex(fn: FunctionDeclaration): number | undefined {
  return fn.params[fn.params.length - 1]?.type === 'RestElement' ? fn.params.length - 1 : undefined
}

/** The helpers with a rest parameter, by name, with its index. */
export function restHelpersOf(fns: readonly FunctionDeclaration[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const f of fns) {
    const i = restIndex(f)
    if (i !== undefined) out.set(f.id.name, i)
  }
  return out
}

/**
 * A helper; for a local function lifted to one (local-functions.ts), `lifted` is what it reads around it, its
 * first parameters: one that holds a Date, Map or Set where it is declared has that kind here too.
 */
export function lowerHelper(node: FunctionDeclaration, ctx: LowerContext, lifted?: LiftedFunction): FunctionDef {
  const saved = ctx.scope
  ctx.scope = new Scope(null)
  try {
    const params = lowerParams(node.params, ctx, true)
    declareCollectionParams(node.id.name, node.params, ctx)
    if (lifted) {
      for (const c of lifted.captures) {
        const kind = ctx.typedDeclarations.get(c.declared)
        if (kind) ctx.scope.vars.set(c.name, kind)
      }
      ctx.captures = { scope: ctx.scope, names: new Set(lifted.captures.map((c) => c.name)), fn: lifted.name }
    }
    const steps = ctx.inFunction(node.async, () => lowerBlock(node.body.body, ctx))
    return { params, steps, loc: ctx.loc(node) }
  } finally {
    ctx.scope = saved
    ctx.captures = null
  }
}

export function lowerLambda(node: ArrowFunctionExpression, ctx: LowerContext): LambdaExpr {
  if (node.async) ctx.fail('ASYNC', node)
  ctx.pushScope()
  try {
    const params = lowerParams(node.params, ctx)
    if (node.body.type === 'BlockStatement') return lambda(params, ctx.inFunction(false, () => lowerBlock((node.body as BlockStatement).body, ctx)))
    return lambda(params, lowerExpr(node.body, ctx))
  } finally {
    ctx.popScope()
  }
}
