/**
 * Binding and assignment patterns: ESTree patterns -> AJS `Pattern`.
 *
 * Binding patterns declare names progressively, in source order, so a
 * default that refers to a name bound later in the same pattern is a TDZ
 * error (as in JavaScript). Assignment patterns check that every target is
 * an assignable variable or a property.
 */

import type { ArrayPattern, Identifier, Node, ObjectPattern, Pattern as EsPattern } from 'acorn'
import type { Expr, Pattern } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import type { BindingKind } from '../scope.ts'
import { lowerExpr, lowerMember, propertyKey } from './expressions.ts'
import { checkAssignable } from './names.ts'

/** Names bound by a pattern, in order (for pre-declaration). */
export function collectNames(node: EsPattern | null, out: Array<{ name: string; node: Node }>): void {
  if (!node) return
  switch (node.type) {
    case 'Identifier': out.push({ name: node.name, node }); break
    case 'ObjectPattern':
      for (const p of node.properties) collectNames(p.type === 'RestElement' ? p.argument : p.value, out)
      break
    case 'ArrayPattern': for (const el of node.elements) collectNames(el, out); break
    case 'RestElement': collectNames(node.argument, out); break
    case 'AssignmentPattern': collectNames(node.left, out); break
    default: break
  }
}

/** Mark the names of `pattern` as declared-later in the current scope (a plain name without a list). */
export function predeclarePattern(ctx: LowerContext, pattern: EsPattern | null, kind: BindingKind = 'tdz'): void {
  if (pattern?.type === 'Identifier') return ctx.declare(pattern.name, kind, pattern)
  const names: Array<{ name: string; node: Node }> = []
  collectNames(pattern, names)
  for (const { name, node } of names) ctx.declare(name, kind, node)
}

/** Mark the names of `patterns` as declared-later in the current scope. */
export function predeclarePatterns(ctx: LowerContext, patterns: Array<EsPattern | null>, kind: BindingKind = 'tdz'): void {
  for (const p of patterns) predeclarePattern(ctx, p, kind)
}

/**
 * Object and array patterns have the same structure whether they declare or
 * assign: `sub` lowers each element, `restTarget` checks/declares the name of
 * an object rest (in source order, after the properties before it).
 */
function lowerStructure(
  node: ObjectPattern | ArrayPattern, ctx: LowerContext,
  sub: (n: EsPattern) => Pattern, restTarget: (id: Identifier) => void,
): Pattern {
  if (node.type === 'ArrayPattern') {
    const elements: Array<Pattern | null> = []
    let rest: Pattern | undefined
    for (const el of node.elements) {
      if (el && el.type === 'RestElement') rest = sub(el.argument)
      else elements.push(el ? sub(el) : null)
    }
    return rest === undefined ? { $pattern: 'array', elements } : { $pattern: 'array', elements, rest }
  }
  const properties: Array<{ key: string | Expr; computed?: boolean; value: Pattern }> = []
  let rest: string | undefined
  for (const p of node.properties) {
    if (p.type === 'RestElement') {
      if (p.argument.type !== 'Identifier') ctx.fail('SEQUENCE_PATTERN', p)
      restTarget(p.argument as Identifier)
      rest = (p.argument as Identifier).name
      continue
    }
    const key = propertyKey(p, ctx)
    const prop: { key: string | Expr; computed?: boolean; value: Pattern } = { key, value: sub(p.value as EsPattern) }
    if (p.computed && typeof key !== 'string') prop.computed = true
    properties.push(prop)
  }
  return rest === undefined ? { $pattern: 'object', properties } : { $pattern: 'object', properties, rest }
}

/** A declaration pattern (`let`, `const`, parameters, catch, for-of targets). */
export function lowerBinding(node: EsPattern, ctx: LowerContext, kind: BindingKind): Pattern {
  switch (node.type) {
    case 'Identifier':
      ctx.declare(node.name, kind, node)
      return node.name
    case 'AssignmentPattern': {
      // The default is evaluated before the target is bound.
      const dflt = lowerExpr(node.right, ctx)
      return { $pattern: 'default', target: lowerBinding(node.left, ctx, kind), default: dflt }
    }
    case 'ObjectPattern':
    case 'ArrayPattern':
      return lowerStructure(node, ctx, (n) => lowerBinding(n, ctx, kind), (id) => { ctx.declare(id.name, kind, id) })
    default:
      return ctx.fail('SEQUENCE_PATTERN', node)
  }
}

/** An assignment target pattern (`[a, b] = [b, a]`, `({ x: o.x } = v)`, for-of without declaration). */
export function lowerAssignTarget(node: EsPattern, ctx: LowerContext): Pattern {
  switch (node.type) {
    case 'Identifier':
      checkAssignable(node, ctx)
      return node.name
    case 'MemberExpression':
      return { $pattern: 'target', target: lowerMember(node, ctx) }
    case 'AssignmentPattern':
      return { $pattern: 'default', target: lowerAssignTarget(node.left, ctx), default: lowerExpr(node.right, ctx) }
    case 'ObjectPattern':
    case 'ArrayPattern':
      return lowerStructure(node, ctx, (n) => lowerAssignTarget(n, ctx), (id) => checkAssignable(id, ctx))
    default:
      return ctx.fail('SEQUENCE_PATTERN', node)
  }
}
