/**
 * `Promise.all` lowers to the VM's `parallel` step:
 *
 *   const [a, b] = await Promise.all([f(), g()])           // branches: one per element
 *   const rs = await Promise.all(xs.map((x, i) => f(x)))   // items: one run per item
 *
 * with or without `await` (the VM waits for the step either way). The value
 * is the array of results in order; the first error ends the step and
 * cancels the rest, as the first rejection settles Promise.all.
 *
 * A `map` callback runs once per item on its own copy of the outer
 * variables, so it may read them but not assign them (AJS3011): in JS every
 * callback would see the others' writes in an order nobody controls.
 *
 * The call must be the whole value of a statement (`const r = ...`,
 * `r = ...`, `return ...`, or the statement itself): the step runs before
 * the statement that uses its value. Anywhere else it is AJS2036.
 */

import type { ArrayExpression, ArrowFunctionExpression, CallExpression, Expression, FunctionExpression, Node, Pattern as EsPattern } from 'acorn'
import type { Expr, Step } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { Scope } from '../scope.ts'
import { lowerExpr } from './expressions.ts'
import { lowerBinding, predeclarePatterns } from './patterns.ts'
import { lowerBlock, toValue } from './statements.ts'
import { call as makeCall, id } from '../../ast/build.ts'

type Callback = ArrowFunctionExpression | FunctionExpression

export const unwrap = (n: Node | null | undefined): Node | null | undefined => (n?.type === 'AwaitExpression' ? (n as { argument: Node } & Node).argument : n)

/** `Promise.all(...)` with the global `Promise` (not a variable of that name). */
export function isPromiseStatic(node: Node | null | undefined, ctx: LowerContext): boolean {
  if (node?.type !== 'CallExpression') return false
  const callee = (node as CallExpression).callee
  return callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'Promise' &&
    ctx.scope.lookup('Promise') === undefined && !ctx.helpers.has('Promise')
}

const methodName = (call: CallExpression): string => {
  const callee = call.callee as { computed: boolean; property: Node & { name?: string; value?: unknown } }
  return !callee.computed ? String(callee.property.name) : String(callee.property.value ?? 'method')
}

/** The `Promise.all(...)` call a statement value is (under an optional `await`), else undefined. */
export function promiseAllOf(value: Node | null | undefined, ctx: LowerContext): CallExpression | undefined {
  const call = unwrap(value) as CallExpression
  if (!isPromiseStatic(call, ctx)) return undefined
  if (methodName(call) !== 'all') return ctx.fail('PROMISE_METHOD', call, { name: methodName(call) })
  return call
}

/** Lower `Promise.all(...)` at statement level: the `parallel` step (value stored in `result` when given). */
export function lowerPromiseAll(call: CallExpression, ctx: LowerContext, result?: string): Step {
  const args = call.arguments
  if (args.length !== 1 || args[0]!.type === 'SpreadElement') {
    return ctx.fail('PROMISE_ALL_ARGS', call, { detail: 'one argument: an array of calls, or `items.map(...)`' })
  }
  const list = args[0] as Expression
  const step = list.type === 'ArrayExpression' ? branches(list, ctx) : items(list, ctx)
  step.loc = ctx.loc(call)
  if (result !== undefined) step.result = result
  return step
}

function branches(list: ArrayExpression, ctx: LowerContext): Step {
  const out: Step[][] = []
  for (const el of list.elements) {
    if (el === null) return ctx.fail('SPARSE_ARRAY', list)
    if (el.type === 'SpreadElement') return ctx.fail('PROMISE_ALL_ARGS', el, { detail: 'the elements written out: no spread `...` in its array' })
    const value = unwrap(el) as Expression
    ctx.awaited.add(value)
    out.push([{ op: 'return', value: toValue(lowerExpr(value, ctx)), loc: ctx.loc(el) }])
  }
  return { op: 'parallel', branches: out }
}

const isCallback = (n: Node | undefined): n is Callback => n?.type === 'ArrowFunctionExpression' || n?.type === 'FunctionExpression'

function items(list: Expression, ctx: LowerContext): Step {
  const callee = list.type === 'CallExpression' ? list.callee : undefined
  if (list.type !== 'CallExpression' || callee?.type !== 'MemberExpression' || callee.computed ||
    callee.property.type !== 'Identifier' || callee.property.name !== 'map' || callee.object.type === 'Super') {
    return ctx.fail('PROMISE_ALL_ARGS', list, { detail: 'an array written out `[f(), g()]` or `items.map((item) => f(item))`' })
  }
  const fn = list.arguments[0]
  if (list.arguments.length !== 1) return ctx.fail('PROMISE_ALL_ARGS', list, { detail: 'a `map` with one callback (no `thisArg`)' })
  const source = toValue(lowerExpr(callee.object, ctx))
  if (fn?.type === 'Identifier' && ctx.helpers.has(fn.name) && ctx.scope.lookup(fn.name) === undefined) return helperItems(fn.name, fn, source, ctx)
  if (!isCallback(fn)) return ctx.fail('PROMISE_ALL_ARGS', fn ?? list, { detail: 'a callback written in place: `items.map((item) => f(item))`' })
  return callbackItems(fn, source, ctx)
}

/** `xs.map(helper)`: JS calls `helper(item, index, xs)`; a helper of at most two parameters sees the same. */
function helperItems(name: string, at: Node, source: Step['items'], ctx: LowerContext): Step {
  ctx.calledHelpers.add(name)
  const item = ctx.temp('item'), index = ctx.temp('index')
  const call: Expr = makeCall(name, [id(item), id(index)], ctx.loc(at))
  return { op: 'parallel', items: source, as: item, index, steps: [{ op: 'return', value: call, loc: ctx.loc(at) }] }
}

function callbackItems(fn: Callback, source: Step['items'], ctx: LowerContext): Step {
  if (fn.generator) return ctx.fail('GENERATOR', fn)
  if (fn.params.length > 2) return ctx.fail('PROMISE_ALL_ARGS', fn.params[2]!, { detail: 'a callback of `(item, index)`: use the array by its name instead of a third parameter' })
  const saved = ctx.scope
  ctx.scope = new Scope(saved, true)
  try {
    const steps: Step[] = []
    const params = fn.params as EsPattern[]
    for (const p of params) if (p.type === 'RestElement') ctx.fail('REST_PARAM', p)
    predeclarePatterns(ctx, params)
    const names = params.map((p) => {
      if (p.type === 'Identifier') return lowerBinding(p, ctx, 'param') as string
      const name = ctx.temp('item')
      steps.push({ op: 'destructure', kind: 'let', pattern: lowerBinding(p, ctx, 'param'), value: id(name), loc: ctx.loc(p) })
      return name
    })
    const as = names[0] ?? ctx.temp('item')
    const block = fn.body.type === 'BlockStatement' ? fn.body : undefined
    if (block) steps.push(...ctx.inFunction(fn.async, () => lowerBlock(block.body, ctx)))
    else {
      const body = unwrap(fn.body) as Expression
      ctx.awaited.add(body)
      steps.push({ op: 'return', value: toValue(lowerExpr(body, ctx)), loc: ctx.loc(fn.body) })
    }
    const step: Step = { op: 'parallel', items: source, as, steps }
    if (names[1] !== undefined) step.index = names[1]
    return step
  } finally {
    ctx.scope = saved
  }
}
