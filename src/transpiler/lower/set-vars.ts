/**
 * Sets kept in a variable. AJS values are plain data, so a Set is lowered to the array of its members in
 * insertion order, kept in a variable the program reaches only through the `Set` statics of the maps part
 * (src/vm/builtins/set-vars.ts), as a Map is its entries (lower/maps.ts): `const s = new Set(xs)` is
 * `Set.create(xs)`, `s.has(x)` is `Set.contains(s, x)`, `s.add(x)` is `Set.insert(s, x)` (it changes the
 * members in place and gives the Set back, so `s.add(a).add(b)` chains), `s.delete(x)` is
 * `Set.remove(s, x)`, `s.size` is `Set.count(s)`. Where JavaScript reads a Set's members the program gets a
 * fresh array of them: `[...s]`, `Array.from(s)`, `s.values()`, `s.keys()`, `s.entries()`, `new Set(s)`;
 * `for...of` and `s.forEach` walk them live, as JavaScript's iterator (`Set.walk`).
 *
 * Anywhere JavaScript would hand the Set object on (returned, passed, stored, compared, `typeof`) it is
 * refused (AJS2055) with the rewrite `[...s]`. A `new Set(xs)` read at once (lower/sets.ts) needs no part.
 */
import type { CallExpression, Expression, Identifier, MemberExpression, Node } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { at, id, lit } from '../../ast/build.ts'
import { didYouMean } from '../suggest.ts'
import { checkReassign, forEachOfWalk, refuseAsValue, staticCall } from './statics.ts'
import { lowerExpr } from './expressions.ts'
import { isTested, isUnused, keep } from './unused.ts'
import { isNewSet, lowerIterable } from './sets.ts'
import { isMap, lowerMap } from './maps.ts'
import { SET_MERGES as MERGES } from '../set-methods.ts'

/** JavaScript's Set methods AJS has, each the `Set` static it lowers to (`forEach` and `size` apart). */
const METHODS: Readonly<Record<string, string>> = { has: 'contains', add: 'insert', delete: 'remove', clear: 'clear', keys: 'values', values: 'values', entries: 'entries' }
/** JavaScript's methods of two Sets (ES2025) that compare them: they lower to `Set.relate` (those giving a new Set, set-methods.ts, to `Set.merge`). */
const RELATIONS: ReadonlySet<string> = new Set(['isSubsetOf', 'isSupersetOf', 'isDisjointFrom'])
const NAMES: ReadonlySet<string> = new Set([...Object.keys(METHODS), 'forEach', ...MERGES, ...RELATIONS])

/** Whether `node` is a variable declared holding a Set. */
export function isSetVariable(node: Node, ctx: LowerContext): node is Identifier {
  if (node.type !== 'Identifier') return false
  const kind = ctx.scope.lookup((node as Identifier).name)
  return kind === 'set' || kind === 'setConst'
}

/** Whether `node` is a Set to keep: `new Set(...)` of the global Set, a Set variable, or `s.add(...)` (`s.union(t)`, ...) of one. */
export function isSet(node: Node, ctx: LowerContext): boolean {
  if (isNewSet(node, ctx) || isSetVariable(node, ctx)) return true
  if (node.type !== 'CallExpression') return false
  const callee = (node as CallExpression).callee
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return false
  return (callee.property.name === 'add' || MERGES.has(callee.property.name)) && isSet(callee.object, ctx)
}

/** A Set as the members array the statics take: `new Set(items)` as `Set.create(items)`, a variable as itself, `s.add(...)` as its call. */
export function lowerSet(node: Node, ctx: LowerContext): Expr {
  if (node.type === 'Identifier') return id((node as Identifier).name)
  if (node.type === 'CallExpression') { keep(node, ctx); return lowerExpr(node as CallExpression, ctx) }
  // Only the first argument is read, as JavaScript's constructor reads it (a Set or a Map as a copy of its items).
  const [items, ...rest] = (node as CallExpression).arguments
  if (items?.type === 'SpreadElement') return ctx.fail('NEW_COLLECTION', items, { name: 'Set' })
  return staticCall('Set', 'create', [items ? lowerIterable(items, ctx) : id('undefined'), ...rest.map((a) => lowerExpr(a as Expression, ctx))], ctx, node)
}

/** A fresh array of a Set variable's members (or of `s.add(...)`'s): what `[...s]` and `Array.from(s)` read. */
export function setMembers(node: Node, ctx: LowerContext): Expr | undefined {
  if (!isSetVariable(node, ctx) && (node.type !== 'CallExpression' || !isSet(node, ctx))) return undefined
  return staticCall('Set', 'values', [lowerSet(node, ctx)], ctx, node)
}

/**
 * What `for...of` walks when it is a Set variable (or `s.add(...)` of one), `s.keys()`, `s.values()` or
 * `s.entries()`: `Set.walk(s)` or `Set.walk(s, 'entries')`, the members one at a time as JavaScript's
 * iterator reads them; undefined when `node` is none of these.
 */
export function setWalk(node: Expression, ctx: LowerContext): Expr | undefined {
  if (isSetVariable(node, ctx) || (node.type === 'CallExpression' && isSet(node, ctx))) return staticCall('Set', 'walk', [lowerSet(node, ctx)], ctx, node)
  if (node.type !== 'CallExpression' || node.optional || node.callee.type !== 'MemberExpression') return undefined
  const { object, property, computed, optional } = node.callee
  if (computed || optional || property.type !== 'Identifier' || !WALKS.has(property.name) || !isSet(object, ctx) || isNewSet(object, ctx)) return undefined
  // Any arguments are evaluated, after the Set, and ignored, as JavaScript's `values()` ignores them.
  const args = node.arguments.map((a) => lowerExpr(a as Expression, ctx))
  return staticCall('Set', 'walk', [lowerSet(object, ctx), lit(property.name === 'entries' ? 'entries' : 'values'), ...args], ctx, node)
}

const WALKS: ReadonlySet<string> = new Set(['keys', 'values', 'entries'])

/** `s.size` with `s` a Set to keep: `Set.count(s)`; undefined otherwise (and for `new Set(xs).size`, lower/sets.ts's). */
export function lowerSetSize(node: MemberExpression, ctx: LowerContext): Expr | undefined {
  if (node.computed || node.property.type !== 'Identifier' || node.property.name !== 'size' || isNewSet(node.object, ctx) || !isSet(node.object, ctx)) return undefined
  return staticCall('Set', 'count', [lowerSet(node.object, ctx)], ctx, node)
}

/**
 * `s.method(...)` with `s` a Set variable, `s.add(...)` of one, or `new Set(...)` (but `new Set(xs).has(x)`,
 * read at once by lower/sets.ts): the static it lowers to; undefined when the object is no such Set.
 */
export function lowerSetCall(node: CallExpression, method: string, ctx: LowerContext): Expr | undefined {
  const callee = node.callee as MemberExpression
  if (!isSet(callee.object, ctx) || (method === 'has' && isNewSet(callee.object, ctx))) return undefined
  if (method === 'forEach') return lowerSetForEach(node, ctx)
  if (MERGES.has(method) || RELATIONS.has(method)) return lowerSetPair(node, method, ctx)
  const name = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined
  if (!name) return ctx.fail('SET_METHOD', callee.property, { name: method, suggest: didYouMean(method, NAMES) })
  // `add` gives the Set: kept or chained (lowerSet), dropped (a statement), or tested (always true), never read as a value.
  const tested = method === 'add' && isTested(node, ctx) && !isUnused(node, ctx)
  if (method === 'add' && !isUnused(node, ctx) && !tested) refuseSetValue(node, ctx)
  const call = staticCall('Set', name, [lowerSet(callee.object, ctx), ...node.arguments.map((a) => lowerExpr(a as Expression, ctx))], ctx, node)
  return tested ? at({ $expr: 'sequence', expressions: [call, lit(true)] } as Expr, ctx.loc(node)) : call
}

/**
 * `s.forEach((value, key) => ...)`: the members walked as `for...of` walks them, each given as value and key as
 * JavaScript does (`Set.walk(s, 'entries')`, statics.ts forEachOfWalk, as a Map's forEach). The Set itself as a
 * third parameter would be a Set value: refused, as a callback not written in place is (AJS2031).
 */
function lowerSetForEach(node: CallExpression, ctx: LowerContext): Expr {
  const callee = node.callee as MemberExpression
  const [fn, ...rest] = node.arguments
  if (fn?.type !== 'ArrowFunctionExpression' || rest.length > 0) return ctx.fail('CALLBACK', fn ?? callee.property, { name: 'forEach' })
  if (fn.params.length > 2) refuseSetValue(fn.params[2]!, ctx)
  return forEachOfWalk(fn, staticCall('Set', 'walk', [lowerSet(callee.object, ctx), lit('entries')], ctx, node), ctx, node)
}

/**
 * `a.union(b)` and the other methods of two Sets: `Set.merge(a, b, 'union')` (a new Set: kept, chained or
 * read as `[...a.union(b)]`, never a value) or `Set.relate(a, b, 'isSubsetOf')`. `b` is a Set, or a Map (its
 * keys), as JavaScript takes any object with `size`, `has` and `keys`; an array is JavaScript's TypeError,
 * refused here (AJS2057).
 */
function lowerSetPair(node: CallExpression, method: string, ctx: LowerContext): Expr {
  const callee = node.callee as MemberExpression
  const other = node.arguments[0]
  if (!other || other.type === 'SpreadElement' || !(isSet(other, ctx) || isMap(other, ctx))) return ctx.fail('SET_ARGUMENT', other ?? callee.property, { name: method })
  if (MERGES.has(method) && !isUnused(node, ctx)) refuseSetValue(node, ctx)
  const a = lowerSet(callee.object, ctx)
  const b = isSet(other, ctx) ? lowerSet(other, ctx) : staticCall('Map', 'keys', [lowerMap(other, ctx)], ctx, other)
  return staticCall('Set', MERGES.has(method) ? 'merge' : 'relate', [a, b, lit(method), ...node.arguments.slice(1).map((x) => lowerExpr(x as Expression, ctx))], ctx, node)
}

/** The refusal of a Set used as a value, naming it as written. */
export function refuseSetValue(node: Node, ctx: LowerContext): never {
  return refuseAsValue('SET_VALUE', node, ctx, 's')
}

/** `s = <Set>` for a Set variable `s`: the new members; anything else refused. */
export function lowerSetAssignValue(target: Identifier, right: Expression, ctx: LowerContext): Expr {
  checkReassign(target, 'setConst', ctx)
  if (!isSet(right, ctx)) refuseSetValue(target, ctx)
  return lowerSet(right, ctx)
}
