/**
 * Identifier resolution: reads, assignment targets and callees.
 *
 * Resolution order mirrors the VM's: local bindings, then helpers, atoms
 * and globals. Everything that cannot be resolved statically is an error
 * with a "did you mean" drawn from the names that are visible here.
 */

import type { Expression, Identifier, SpreadElement } from 'acorn'
import type { Expr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { GLOBAL_FUNCTIONS, GLOBAL_NAMESPACES, GLOBAL_VALUES, HOST_NAME_HINTS } from '../globals.ts'
import { didYouMean } from '../suggest.ts'
import { id } from '../../ast/build.ts'
import { refuseDateValue } from './dates.ts'
import { refuseMapValue } from './maps.ts'
import { refuseSetValue } from './set-vars.ts'
import { isFormatterKind, refuseFormatter } from './intl-vars.ts'

function tdz(node: Identifier, ctx: LowerContext, kind: string): never {
  const extra = kind === 'tdzCase' ? ', or wrap each `case` body in braces' : ''
  return ctx.fail('TDZ', node, { name: node.name, extra })
}

function unknownIdentifier(node: Identifier, ctx: LowerContext): never {
  const name = node.name
  if (name === 'eval') ctx.fail('EVAL', node)
  if (name === 'Function') ctx.fail('FUNCTION_CONSTRUCTOR', node)
  const host = HOST_NAME_HINTS[name]
  const suggest = host ?? didYouMean(name, [...ctx.scope.visible(), ...GLOBAL_VALUES, ...GLOBAL_NAMESPACES])
  return ctx.fail('UNKNOWN_IDENTIFIER', node, { name, suggest })
}

/**
 * An identifier in value position. `asObject` allows the global namespaces
 * (`Math`, `JSON`, ...) which only exist as the object of `.member`.
 */
export function lowerIdentifier(node: Identifier, ctx: LowerContext, asObject = false): Expr {
  const name = node.name
  if (name === 'arguments') ctx.fail('ARGUMENTS', node)
  ctx.checkName(name, node)
  const kind = ctx.scope.lookup(name)
  if (kind !== undefined) {
    if (kind === 'tdz' || kind === 'tdzCase') tdz(node, ctx, kind)
    // Passed to a local function that reads it (local-functions.ts): a Map, Set or formatter as itself, a Date as its time.
    if (ctx.captureArguments.has(node)) return id(name)
    if (kind === 'date' || kind === 'dateConst') refuseDateValue(node, ctx)
    if (kind === 'map' || kind === 'mapConst') refuseMapValue(node, ctx)
    if (kind === 'set' || kind === 'setConst') refuseSetValue(node, ctx)
    if (isFormatterKind(kind)) refuseFormatter(node, ctx)
    return id(name)
  }
  if (GLOBAL_VALUES.has(name)) return id(name)
  if (GLOBAL_NAMESPACES.has(name)) {
    if (asObject) return id(name)
    ctx.fail('NAMESPACE_VALUE', node, { name })
  }
  if (ctx.helpers.has(name) || ctx.atoms.has(name) || GLOBAL_FUNCTIONS.has(name)) ctx.fail('FUNCTION_VALUE', node, { name })
  return unknownIdentifier(node, ctx)
}

/** Check that a bare name may be assigned (declared with let, a parameter, not const). */
export function checkAssignable(node: Identifier, ctx: LowerContext): void {
  const name = node.name
  if (name === 'arguments') ctx.fail('ARGUMENTS', node)
  ctx.checkName(name, node)
  const kind = ctx.scope.lookup(name)
  if (kind === 'const') ctx.fail('CONST_ASSIGN', node, { name })
  if (kind === 'tdz' || kind === 'tdzCase') tdz(node, ctx, kind)
  // A Date variable takes only another Date (lower/dates.ts lowerDateAssignValue), never `+=`, `++` or a pattern.
  if (kind === 'date' || kind === 'dateConst') refuseDateValue(node, ctx)
  if (kind === 'map' || kind === 'mapConst') refuseMapValue(node, ctx)
  if (kind === 'set' || kind === 'setConst') refuseSetValue(node, ctx)
  if (isFormatterKind(kind)) refuseFormatter(node, ctx)
  if (kind !== undefined) {
    if (ctx.scope.boundOutsideIsolation(name)) ctx.fail('PARALLEL_ASSIGN', node, { name })
    return
  }
  if (GLOBAL_VALUES.has(name) || GLOBAL_NAMESPACES.has(name) || GLOBAL_FUNCTIONS.has(name) || ctx.helpers.has(name) || ctx.atoms.has(name)) {
    ctx.fail('INVALID_TARGET', node, { name })
  }
  unknownIdentifier(node, ctx)
}

export type CalleeKind = 'helper' | 'atom' | 'global'

/** Arguments an atom can take: none, or one value that is not a literal of another type. */
function atomShaped(args: ReadonlyArray<Expression | SpreadElement>): boolean {
  if (args.length === 0) return true
  if (args.length > 1) return false
  const t = args[0]!.type
  return t !== 'SpreadElement' && t !== 'Literal' && t !== 'ArrayExpression' && t !== 'TemplateLiteral' && t !== 'ArrowFunctionExpression'
}

/** Resolve the name of a plain call `name(...)`; `args` lets an unknown name be a late-bound atom. */
export function resolveCallee(node: Identifier, ctx: LowerContext, args: ReadonlyArray<Expression | SpreadElement> = []): CalleeKind {
  const name = node.name
  if (name === 'eval') ctx.fail('EVAL', node)
  if (name === 'Function') ctx.fail('FUNCTION_CONSTRUCTOR', node)
  ctx.checkName(name, node)
  if (ctx.scope.lookup(name) !== undefined) ctx.fail('NOT_A_FUNCTION', node, { name })
  if (ctx.helpers.has(name)) return 'helper'
  if (ctx.atoms.has(name)) return 'atom'
  if (GLOBAL_FUNCTIONS.has(name)) return 'global'
  // `Array(n)` is `new Array(n)`: n holes, which AJS cannot write.
  if (name === 'Array') ctx.fail('NEW_ARRAY', node, { name: 'Array(...)' })
  const host = HOST_NAME_HINTS[name]
  // Made only where it is shown: a scan of every helper and atom name, which every call of a
  // late-bound atom paid (calls x helpers in a large program), though only its first is warned.
  const suggest = (): string => host ?? didYouMean(name, [...ctx.helpers, ...ctx.atoms.keys(), ...GLOBAL_FUNCTIONS])
  if (ctx.lateBound && host === undefined && !ctx.functionNames.has(name) && !GLOBAL_NAMESPACES.has(name) && !GLOBAL_VALUES.has(name) && atomShaped(args)) {
    if (!ctx.customAtoms.has(name)) ctx.warn('LATE_BOUND_ATOM', node, { name, suggest: suggest() })
    return 'atom'
  }
  const order = ctx.functionNames.has(name) ? `\`${name}\` is the entry or declared after it, and the entry cannot be called: move \`${name}\` before the entry, or mark the entry with \`export default function\`. ` : ''
  return ctx.fail('UNKNOWN_FUNCTION', node, { name, suggest: suggest() || order })
}

