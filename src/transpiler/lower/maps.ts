/**
 * Maps. AJS values are plain data, so a Map is lowered to the array of its `[key, value]` entries in
 * insertion order, kept in a variable the program reaches only through the `Map` statics
 * (src/vm/builtins/maps.ts): `new Map(items)` is `Map.from(items)`, `m.get(k)` is `Map.get(m, k)`,
 * `m.set(k, v)` is `Map.set(m, k, v)` (it changes the entries in place and gives the Map back, so
 * `m.set(a, 1).set(b, 2)` chains), `m.size` is `Map.size(m)`. Where JavaScript reads a Map's entries
 * at once, the program gets a fresh copy of them, as JavaScript's iterator makes fresh pairs: `[...m]`,
 * `Array.from(m)`, `Object.fromEntries(m)`, `new Map(m)`; `m.keys()`, `m.values()`, `m.entries()` are
 * arrays (AJS has no iterators). Where the program runs while they are read, `for...of` (also over
 * `m.keys()`, `m.values()`, `m.entries()`) and `m.forEach(...)`, it walks them live, as JavaScript's
 * iterator does (`Map.walk`, mapWalk).
 *
 * Anywhere JavaScript would hand the Map object on (returned, passed, stored, compared) it is refused
 * (AJS2045) with the rewrite; a method it has not is AJS2046.
 */
import type { CallExpression, Expression, Identifier, MemberExpression, NewExpression, Node } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { id, lit } from '../../ast/build.ts'
import { didYouMean } from '../suggest.ts'
import { checkReassign, forEachOfWalk, refuseAsValue, staticCall } from './statics.ts'
import { lowerElement, lowerExpr } from './expressions.ts'
import { isUnused, keep } from './unused.ts'

/** The Map methods AJS has, each a `Map` static of its name. */
const METHODS: ReadonlySet<string> = new Set(['get', 'set', 'has', 'delete', 'clear', 'keys', 'values', 'entries'])

/** Whether `name` is the global of that name here: no variable, parameter or helper function is called so. */
export const isGlobalName = (name: string, ctx: LowerContext): boolean => ctx.scope.lookup(name) === undefined && !ctx.helpers.has(name)

/** Whether `node` is a Map here: `new Map(...)` of the global Map, a variable declared holding one, or `m.set(...)` of one. */
export function isMap(node: Node, ctx: LowerContext): boolean {
  if (node.type === 'NewExpression') {
    const callee = (node as NewExpression).callee
    return callee.type === 'Identifier' && callee.name === 'Map' && isGlobalName('Map', ctx)
  }
  if (node.type === 'Identifier') {
    if (ctx.mapVars === 0) return false
    const kind = ctx.scope.lookup((node as Identifier).name)
    return kind === 'map' || kind === 'mapConst'
  }
  if (node.type !== 'CallExpression') return false
  const callee = (node as CallExpression).callee
  return callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && callee.property.name === 'set' && isMap(callee.object, ctx)
}

/** A Map as the entries array the statics take: `new Map(items)` as `Map.from(items)`, a variable as itself, `m.set(...)` as its call. */
export function lowerMap(node: Node, ctx: LowerContext): Expr {
  if (node.type === 'Identifier') return id((node as Identifier).name)
  if (node.type === 'CallExpression') { keep(node, ctx); return lowerExpr(node as CallExpression, ctx) }
  const [items] = (node as NewExpression).arguments
  const arg = items === undefined ? [] : [items.type !== 'SpreadElement' && isMap(items, ctx) ? mapEntries(items, ctx) : lowerElement(items, ctx)]
  return staticCall('Map', 'from', arg, ctx, node)
}

/** A fresh copy of a Map's entries: what `[...m]`, `Array.from(m)`, `Object.fromEntries(m)` and `for...of` read. */
export function mapEntries(node: Node, ctx: LowerContext): Expr {
  return staticCall('Map', 'entries', [lowerMap(node, ctx)], ctx, node)
}

/** `m.method(...)` with `m` a Map: the static `Map.method(m, ...)`. */
export function lowerMapCall(node: CallExpression, method: string, ctx: LowerContext): Expr {
  const callee = node.callee as MemberExpression
  if (method === 'forEach') return lowerMapForEach(node, ctx)
  if (!METHODS.has(method)) return ctx.fail('MAP_METHOD', callee.property, { name: method, suggest: didYouMean(method, METHODS) })
  // `set` gives the Map: kept or chained (lowerMap), or dropped (a statement), never read as a value.
  if (method === 'set' && !isUnused(node, ctx)) refuseMapValue(node, ctx)
  return staticCall('Map', method, [lowerMap(callee.object, ctx), ...node.arguments.map((a) => lowerElement(a, ctx))], ctx, node)
}

/**
 * What `for...of` walks when it is a Map's entries, `m.keys()`, `m.values()` or `m.entries()`: `Map.walk(m)`,
 * the entries one at a time as JavaScript's iterator reads them (src/vm/builtins/maps.ts: an entry set during
 * the loop is reached, one deleted before its turn is not); undefined when `node` is none of these.
 */
export function mapWalk(node: Expression, ctx: LowerContext): Expr | undefined {
  if (isMap(node, ctx)) return staticCall('Map', 'walk', [lowerMap(node, ctx)], ctx, node)
  if (node.type !== 'CallExpression' || node.optional || node.callee.type !== 'MemberExpression') return undefined
  const { object, property, computed, optional } = node.callee
  if (computed || optional || property.type !== 'Identifier' || !WALKS.has(property.name) || !isMap(object, ctx)) return undefined
  // Any arguments are evaluated, after the Map, and ignored, as JavaScript's `keys()` ignores them.
  return staticCall('Map', 'walk', [lowerMap(object, ctx), lit(property.name), ...node.arguments.map((a) => lowerElement(a, ctx))], ctx, node)
}

const WALKS: ReadonlySet<string> = new Set(['keys', 'values', 'entries'])

/** `m.forEach((value, key) => ...)`: the entries walked as `for...of` walks them (statics.ts forEachOfWalk). The Map itself as a third parameter would be a Map value (AJS2045); a callback not written in place is AJS2031. */
function lowerMapForEach(node: CallExpression, ctx: LowerContext): Expr {
  const callee = node.callee as MemberExpression
  const [fn, ...rest] = node.arguments
  if (fn?.type !== 'ArrowFunctionExpression' || rest.length > 0) return ctx.fail('CALLBACK', fn ?? callee.property, { name: 'forEach' })
  if (fn.params.length > 2) refuseMapValue(fn.params[2]!, ctx)
  return forEachOfWalk(fn, staticCall('Map', 'walk', [lowerMap(callee.object, ctx)], ctx, node), ctx, node)
}

/** `m.size`: `Map.size(m)`; undefined when `node` is not a read of a Map's size. */
export function lowerMapSize(node: MemberExpression, ctx: LowerContext): Expr | undefined {
  if (node.computed || node.property.type !== 'Identifier' || node.property.name !== 'size' || !isMap(node.object, ctx)) return undefined
  return staticCall('Map', 'size', [lowerMap(node.object, ctx)], ctx, node)
}

/** The refusal of a Map used as a value, naming it as written. */
export function refuseMapValue(node: Node, ctx: LowerContext): never {
  return refuseAsValue('MAP_VALUE', node, ctx, 'm')
}

/** `m = <Map>` for a Map variable `m`: the new entries; anything else refused. */
export function lowerMapAssignValue(target: Identifier, right: Expression, ctx: LowerContext): Expr {
  checkReassign(target, 'mapConst', ctx)
  if (!isMap(right, ctx)) refuseMapValue(target, ctx)
  return lowerMap(right, ctx)
}
