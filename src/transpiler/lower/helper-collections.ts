/**
 * A Map or a Set passed to a helper (src/transpiler/collection-params.ts finds which parameters hold one:
 * those every call passes one for). A call passes the Map's entries or the Set's members as they are, the
 * array its variable holds (lowerMap, lowerSet: `new Set(xs)` written in the call is `Set.create(xs)`), and
 * the VM hands that array to the helper, shared: what the helper changes, the caller sees, as in JavaScript.
 * In the helper the parameter is a Map or Set variable (declareCollectionParams): its methods, `size`,
 * spread, `for...of`, passing it on; assigning it another Map or Set is the helper's own, as JavaScript's
 * parameter is; returning or storing it stays refused (AJS2045, AJS2055).
 *
 * Each call is checked by the lowering's own scopes: a Map or Set where the parameter holds none, or
 * something else where it holds one, is refused (AJS2075, AJS2076), naming the call that differs.
 */
import type { CallExpression, Expression, Identifier, Node, Pattern } from 'acorn'
import type { Expr, SpreadExpr } from '../../ast/types.ts'
import type { CollectionKind, NotCollection } from '../collection-params.ts'
import type { LowerContext } from '../context.ts'
import { lowerElement } from './expressions.ts'
import { isMap, lowerMap } from './maps.ts'
import { isSet, lowerSet } from './set-vars.ts'

/** In helper `name`, its parameters that hold a Map or Set, declared so (after lowerParams declared them plain). */
export function declareCollectionParams(name: string, params: readonly Pattern[], ctx: LowerContext): void {
  const kinds = ctx.collectionParams?.kinds.get(name)
  if (!kinds) return
  kinds.forEach((kind, i) => {
    const p = params[i]
    if (kind === undefined || p?.type !== 'Identifier') return
    ctx.declare(p.name, kind, p)
  })
}

/** The arguments of a call of helper `name` (no rest parameter): a Map or Set as its array where the parameter holds one; any other mismatch refused. */
export function lowerHelperArgs(name: string, args: CallExpression['arguments'], ctx: LowerContext): Array<Expr | SpreadExpr> {
  const info = ctx.collectionParams
  const kinds = info?.kinds.get(name)
  const out: Array<Expr | SpreadExpr> = []
  let spread = false
  args.forEach((a, i) => {
    spread ||= a.type === 'SpreadElement'
    const kind = spread ? undefined : kinds?.[i]
    if (a.type === 'SpreadElement' || kind === undefined) {
      if (!spread && a.type !== 'SpreadElement') checkNoCollection(name, a, i, ctx)
      out.push(lowerElement(a, ctx))
    } else if (kind === 'map' ? isMap(a, ctx) : isSet(a, ctx)) out.push(kind === 'map' ? lowerMap(a, ctx) : lowerSet(a, ctx))
    else if (info!.unchecked.has(a)) out.push(lowerElement(a, ctx))
    else mixed(name, i, kind, a, info!.first.get(name)![i]!, a, ctx)
  })
  return out
}

/** `xs.map(name)`: a helper named as a callback gets the method's values, so no parameter of it may hold a Map or Set (the scan refuses that first; this holds whatever it found). */
export function checkNamedCallback(name: string, at: Node, ctx: LowerContext): void {
  const info = ctx.collectionParams
  const i = info?.kinds.get(name)?.findIndex((k) => k !== undefined) ?? -1
  if (i >= 0) mixed(name, i, info!.kinds.get(name)![i]!, at, info!.first.get(name)![i]!, { at, why: 'use' }, ctx)
}

/** A Map or Set passed for parameter `i` of `name`, which holds none: refused, saying why (a plain refusal of the value when nothing is known). */
function checkNoCollection(name: string, a: Expression, i: number, ctx: LowerContext): void {
  // Only where some call passes this parameter a Map or Set (else a Map or Set here is the value refused as such).
  const why = ctx.collectionParams?.not.get(name)?.[i]
  if (!why || why.at === a) return
  const kind: CollectionKind | undefined = isMap(a, ctx) ? 'map' : isSet(a, ctx) ? 'set' : undefined
  if (!kind) return
  if (why.why === 'pattern') {
    const p = why.at as Pattern
    const what = p.type === 'RestElement' ? 'a rest parameter' : p.type === 'AssignmentPattern' && p.left.type === 'Identifier' ? 'given a default value' : 'a pattern'
    const param = p.type === 'RestElement' && p.argument.type === 'Identifier' ? p.argument.name : p.type === 'AssignmentPattern' && p.left.type === 'Identifier' ? p.left.name : kind === 'map' ? 'm' : 's'
    ctx.fail('COLLECTION_PARAM_PATTERN', a, { name, param, kind: title(kind), what })
  }
  mixed(name, i, kind, a, a, why, ctx)
}

const title = (kind: CollectionKind): string => (kind === 'map' ? 'Map' : 'Set')

/** The parameter `i` of `name` is given a `kind` at `given` and something else at (or for the reason of) `other`: refused at `at`. */
function mixed(name: string, i: number, kind: CollectionKind, at: Node, given: Node, other: Node | NotCollection, ctx: LowerContext): never {
  const lineOf = (n: Node): number => ctx.locator.position(n.start).line
  const where = (n: Node): string => (n === at ? 'here' : `at line ${lineOf(n)}`)
  const why: NotCollection = 'why' in other ? other : { at: other, why: 'other' }
  const text = ctx.source.slice(why.at.start, why.at.end)
  const shown = text.length > 40 ? '' : ` (\`${text}\`)`
  const otherText = why.why === 'use' ? `\`${name}\` is used without a call ${where(why.at)}, where it gets other values`
    : why.why === 'missing' ? `${where(why.at)} it gets no argument`
    : `${where(why.at)} it gets ${why.kind ? `a ${title(why.kind)}` : 'something else'}${why.at === at ? '' : shown}`
  const param = paramName(name, i, ctx)
  const arg = given.type === 'Identifier' ? (given as Identifier).name : kind === 'map' ? 'm' : 's'
  const extra = why.why === 'use' ? ` Where \`${name}\` is passed as a callback or stored it gets other values: call it by name there with a ${title(kind)}, or give that use a helper of its own.` : ''
  return ctx.fail('COLLECTION_PARAM_MIXED', at, {
    name, param, kind: title(kind), where: where(given), other: otherText,
    make: kind === 'map' ? 'new Map(entries)' : 'new Set(xs)', items: kind === 'map' ? 'entries' : 'members', arg, extra,
  })
}

/** The name of parameter `i` of helper `name` as written (or its position). */
function paramName(name: string, i: number, ctx: LowerContext): string {
  const p = ctx.collectionParams?.params.get(name)?.[i]
  const id = p?.type === 'AssignmentPattern' ? p.left : p?.type === 'RestElement' ? p.argument : p
  return id?.type === 'Identifier' ? id.name : `#${i + 1}`
}
