/**
 * Calls: helpers, atoms and global functions (`call`), methods and
 * namespace statics (`methodCall`), and `new Error(msg)`.
 *
 * Calls are ordinary expression nodes wherever they appear; the VM keeps JS
 * evaluation order and short-circuiting, so nothing is hoisted here. Arrow
 * functions are accepted only as arguments of the array callback methods.
 */

import type { CallExpression, Expression, Identifier, NewExpression, Node, ObjectExpression, SpreadElement } from 'acorn'
import type { Expr, Json, SpreadExpr } from '../../ast/types.ts'
import type { LowerContext } from '../context.ts'
import { CALLBACK_METHODS, CORE_ATOM_NAMES, GLOBAL_FUNCTIONS } from '../globals.ts'
import { ERROR_CONSTRUCTOR_NAMES, VALUE_FUNCTION_NAMES } from '../../ast/globals.ts'
import { didYouMean } from '../suggest.ts'
import { lowerElement, lowerObjectOf } from './expressions.ts'
import { lowerLambda } from './functions.ts'
import { resolveCallee } from './names.ts'
import { isPromiseStatic, promiseAllOf } from './promise-all.ts'
import { array, call, id, lambda, lit, methodCall } from '../../ast/build.ts'
import { isNewSet, lowerIterable, lowerSetItems, lowerSetRead } from './sets.ts'
import { isGlobalName, isMap, lowerMapCall, mapEntries, refuseMapValue } from './maps.ts'
import { lowerSetCall, refuseSetValue, setMembers } from './set-vars.ts'
import { intlClass, lowerIntlFormat } from './intl.ts'
import { keptFormatCallback } from './intl-vars.ts'
import { lowerRandomUUID } from './random-uuid.ts'
import { lowerGroupBy } from './group-by.ts'
import { arrayLength, arrayOfArguments, filled, lowerFilledCall } from './arrays.ts'
import { dateText, isDate, lowerDateCall, lowerNumberArgs, refuseDateValue } from './dates.ts'
import { discard, markTested } from './unused.ts'
import { checkNamedCallback, lowerHelperArgs } from './helper-collections.ts'

function lowerArgs(args: Array<Expression | SpreadElement>, ctx: LowerContext): Array<Expr | SpreadExpr> {
  const out: Array<Expr | SpreadExpr> = []
  for (const a of args) out.push(lowerElement(a, ctx))
  return out
}

/** The array methods that only test their callback's value for truth. */
const TESTS: ReadonlySet<string> = new Set(['filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex'])

/** Arguments of an array callback method: arrows in place become lambdas. */
function lowerCallbackArgs(method: string, args: Array<Expression | SpreadElement>, ctx: LowerContext): Array<Expr | SpreadExpr> {
  const out: Array<Expr | SpreadExpr> = []
  for (const a of args) {
    if (a.type === 'ArrowFunctionExpression') {
      if (method === 'forEach') discard(a.body, ctx) // its value is dropped (lower/unused.ts): `xs.forEach((x) => m.set(x, 1))`
      else if (TESTS.has(method) && a.body.type !== 'BlockStatement') markTested(a.body, ctx) // its value is only tested: `xs.filter((x) => !seen.has(x) && seen.add(x))`
      out.push(lowerLambda(a, ctx))
    } else if (a.type === 'FunctionExpression') ctx.fail('CALLBACK', a, { name: method })
    else if (a.type === 'Identifier' && ctx.scope.lookup(a.name) === undefined &&
      (ctx.helpers.has(a.name) || ctx.atoms.has(a.name) || GLOBAL_FUNCTIONS.has(a.name))) {
      out.push(namedCallback(a, method, ctx))
    } else out.push(keptFormatCallback(a, ctx) ?? lowerElement(a, ctx))
  }
  return out
}

/** The global functions a callback may name (`xs.filter(Boolean)`, `xs.map(Number)`): each reads only the arguments a callback gets. */
const CALLBACK_GLOBALS: ReadonlySet<string> = new Set(VALUE_FUNCTION_NAMES)

/**
 * A function named as a callback, `xs.filter(Boolean)`, `xs.map(format)` (a helper), `xs.reduce(sum, 0)`: the
 * arrow that calls it with every argument the method passes (`(v, i, a) => format(v, i, a)`), which is what
 * JavaScript does with it (`xs.map(parseInt)` passes the index as the radix there too). Atoms take one object,
 * not a callback's arguments, and an async helper would give promises: those, and the other globals, stay refused.
 */
function namedCallback(a: Identifier, method: string, ctx: LowerContext): Expr {
  const name = a.name
  const helper = ctx.helpers.has(name)
  if (!(helper ? !ctx.asyncHelpers.has(name) : !ctx.atoms.has(name) && CALLBACK_GLOBALS.has(name))) return ctx.fail('CALLBACK', a, { name: method })
  if (helper) { ctx.calledHelpers.add(name); checkNamedCallback(name, a, ctx) }
  const params = Array.from({ length: callbackArity(method) }, (_, i) => `arg$${i}`)
  const args = params.map((p) => id(p))
  const rest = helper ? ctx.restHelpers.get(name) : undefined
  return lambda(params, call(name, rest === undefined ? args : packRest(args, rest), ctx.loc(a)))
}

/** How many arguments a callback method passes its callback (JavaScript's: `map` the value, index and array). */
export function callbackArity(method: string): number {
  return method === 'sort' || method === 'toSorted' ? 2 : method === 'reduce' || method === 'reduceRight' || method === 'replace' || method === 'replaceAll' ? 4 : 3
}

/** The arguments of a call of a helper whose parameter `rest` is a rest parameter: those from there on as one array. */
function restArguments(name: string, args: CallExpression['arguments'], rest: number, ctx: LowerContext): Array<Expr | SpreadExpr> {
  const fixed = args.slice(0, rest)
  const spread = fixed.find((a) => a.type === 'SpreadElement')
  if (spread) ctx.fail('REST_SPREAD', spread, { name })
  return packRest(lowerHelperArgs(name, args, ctx), rest)
}

/** `f(a, b, c)` for `function f(x, ...r)`: `f(a, [b, c])`; missing arguments before the rest are undefined, as in JavaScript. */
function packRest(args: Array<Expr | SpreadExpr>, rest: number): Array<Expr | SpreadExpr> {
  const fixed = args.slice(0, rest)
  while (fixed.length < rest) fixed.push(id('undefined'))
  return [...fixed, array(args.slice(rest))]
}

/** Check a literal argument object against a known atom's fields. */
function checkAtomArgs(name: string, node: CallExpression, ctx: LowerContext): void {
  const info = ctx.atoms.get(name)
  if (!info) return
  const args = node.arguments
  const fields = info.fields
  const listed = fields ? [...fields.keys()].join(', ') : 'field: value'
  if (args.length > 1) ctx.fail('ATOM_ARGS', node, { name, detail: 'takes one object argument', fields: listed })
  if (!fields) return
  const arg = args[0]
  if (arg === undefined) {
    const missing = [...fields].find(([, f]) => !f.optional)
    if (missing) ctx.fail('ATOM_ARGS', node, { name, detail: `needs the field \`${missing[0]}\``, fields: listed })
    return
  }
  if (arg.type !== 'ObjectExpression') return
  const obj = arg as ObjectExpression
  const seen = new Set<string>()
  for (const p of obj.properties) {
    if (p.type !== 'Property' || p.computed) return // spread or computed: cannot check statically
    const key = p.key.type === 'Identifier' ? p.key.name : String((p.key as { value: unknown }).value)
    if (!fields.has(key)) {
      const hint = didYouMean(key, fields.keys())
      ctx.fail('ATOM_ARGS', p, { name, detail: `has no field \`${key}\`${hint ? ` (${hint.trim()})` : ''}`, fields: listed })
    }
    seen.add(key)
  }
  for (const [field, f] of fields) {
    if (!f.optional && !seen.has(field)) ctx.fail('ATOM_ARGS', node, { name, detail: `needs the field \`${field}\``, fields: listed })
  }
}

/**
 * `storeProcedure({ ast: helper })` with `helper` a helper of this source
 * (not a variable): the helper becomes a procedure AST, embedded as a
 * literal, so a sub-agent needs no second file. Other forms: undefined.
 */
function storeProcedureArgs(node: CallExpression, ctx: LowerContext): Array<Expr | SpreadExpr> | undefined {
  const arg = node.arguments[0]
  if (node.arguments.length !== 1 || arg?.type !== 'ObjectExpression' || !ctx.procedureOf) return undefined
  const index = arg.properties.findIndex((p) => p.type === 'Property' && !p.computed && p.kind === 'init' &&
    (p.key.type === 'Identifier' ? p.key.name : (p.key as { value?: unknown }).value) === 'ast')
  const prop = arg.properties[index] as { value: Expression } | undefined
  if (!prop || prop.value.type !== 'Identifier') return undefined
  const name = (prop.value as Identifier).name
  if (ctx.scope.lookup(name) !== undefined) return undefined
  if (ctx.functionNames.has(name) && !ctx.helpers.has(name)) {
    ctx.fail('UNSUPPORTED', prop.value, { name: 'Storing the entry function (or a helper that stores itself) as a procedure' })
  }
  if (!ctx.helpers.has(name)) return undefined
  ctx.calledHelpers.add(name)
  const rest = lowerElement({ ...arg, properties: arg.properties.filter((_, i) => i !== index) }, ctx) as { properties: unknown[] }
  const literal = { key: 'ast', value: lit(ctx.procedureOf(name, prop.value) as unknown as Json) }
  rest.properties.splice(index, 0, literal)
  return [rest as unknown as Expr]
}

export function lowerCall(node: CallExpression, ctx: LowerContext): Expr {
  if (node.optional) ctx.fail('OPTIONAL_CALL', node)
  // Statement-level Promise.all never reaches here (promise-all.ts): this one is nested in an expression.
  if (isPromiseStatic(node, ctx)) {
    promiseAllOf(node, ctx) // refuses the other Promise methods
    ctx.fail('PROMISE_ALL_PLACE', node)
  }
  const callee = node.callee
  // `Array()`, `Array(a, b)`: the array of the arguments, as `new Array(...)` (one argument is a length: lower/arrays.ts).
  const listed = callee.type === 'Identifier' && callee.name === 'Array' && ctx.scope.lookup('Array') === undefined ? arrayOfArguments(node, ctx) : undefined
  if (listed) return listed
  if (callee.type === 'Identifier') {
    const kind = resolveCallee(callee, ctx, node.arguments)
    if (kind === 'helper') {
      ctx.calledHelpers.add(callee.name)
      // A function written at a call of a helper that function-arguments.ts could not copy: say why, at it.
      const given = node.arguments.find((a) => a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression')
      if (given) ctx.fail('FUNCTION_ARGUMENT_UNUSABLE', given, { name: callee.name })
      if (ctx.asyncHelpers.has(callee.name) && !ctx.awaited.has(node)) ctx.fail('UNAWAITED_CALL', node, { name: callee.name })
    }
    if (callee.name === 'storeProcedure' && kind === 'atom') {
      const args = storeProcedureArgs(node, ctx)
      if (args) return call(callee.name, args, ctx.loc(node))
    }
    if (kind === 'atom') {
      checkAtomArgs(callee.name, node, ctx)
      if (!CORE_ATOM_NAMES.has(callee.name)) ctx.customAtoms.add(callee.name)
    }
    if (kind === 'global' && node.arguments.some((a) => isDate(a, ctx))) return call(callee.name, dateArgs(callee.name, node, ctx), ctx.loc(node))
    const rest = kind === 'helper' ? ctx.restHelpers.get(callee.name) : undefined
    if (rest !== undefined) return call(callee.name, restArguments(callee.name, node.arguments, rest, ctx), ctx.loc(node))
    return call(callee.name, kind === 'helper' ? lowerHelperArgs(callee.name, node.arguments, ctx) : lowerArgs(node.arguments, ctx), ctx.loc(node))
  }
  if (callee.type === 'Super') return ctx.fail('META', callee, { name: 'super' })
  if (callee.type !== 'MemberExpression') return ctx.fail('COMPUTED_CALL', node)
  let method: string
  if (!callee.computed && callee.property.type === 'Identifier') method = callee.property.name
  else if (callee.computed && callee.property.type === 'Literal' && typeof callee.property.value === 'string') method = callee.property.value
  else return ctx.fail('COMPUTED_CALL', callee.property)
  ctx.checkName(method, callee.property)
  if (isDate(callee.object, ctx)) return lowerDateCall(node, method, ctx)
  if (isMap(callee.object, ctx)) return lowerMapCall(node, method, ctx)
  const setCall = lowerSetCall(node, method, ctx)
  if (setCall) return setCall
  const formatted = lowerIntlFormat(node, method, ctx) ?? lowerRandomUUID(node, method, ctx)
  if (formatted) return formatted
  const holes = lowerFilledCall(node, method, ctx)
  if (holes) return holes
  if (method === 'groupBy' && isNamespace(callee.object, 'Object', ctx)) return lowerGroupBy(node, ctx)
  const setRead = lowerSetRead(callee, ctx, node.arguments)
  if (setRead) { setRead.loc = ctx.loc(node); return setRead }
  // `Array.from(new Set(xs))`: the Set's items are already the array, a kept Set's a copy of them; `Array.from(m)`, `Object.fromEntries(m)`: a Map's entries.
  const only = node.arguments.length === 1 ? node.arguments[0]! : undefined
  if (only && method === 'from' && isNamespace(callee.object, 'Array', ctx) && isNewSet(only, ctx)) return lowerSetItems(only, ctx)
  const members = only && method === 'from' && isNamespace(callee.object, 'Array', ctx) ? setMembers(only, ctx) : undefined
  if (members) return members
  const length = only && method === 'from' && isNamespace(callee.object, 'Array', ctx) ? arrayLength(only, ctx) : undefined
  if (length) return filled(length, undefined, ctx, node)
  if (only && only.type !== 'SpreadElement' && isMap(only, ctx) && ((method === 'from' && isNamespace(callee.object, 'Array', ctx)) || (method === 'fromEntries' && isNamespace(callee.object, 'Object', ctx)))) {
    const out = methodCall(lowerObjectOf(callee.object, ctx), method, [mapEntries(only, ctx)])
    out.loc = ctx.loc(node)
    return out
  }
  const mapped = arrayFromMapped(node, method, ctx)
  if (mapped) return mapped
  if (method === 'replace' || method === 'replaceAll') {
    // AJS callbacks take at most four parameters: JavaScript's first four arguments (the match, groups, offset, text).
    const fn = node.arguments.find((a) => a.type === 'ArrowFunctionExpression' && a.params.length > 4)
    if (fn) ctx.fail('REPLACE_CALLBACK_PARAMS', fn, { name: method })
  }
  const object = lowerObjectOf(callee.object, ctx)
  const math = callee.object.type === 'Identifier' && callee.object.name === 'Math' && ctx.scope.lookup('Math') === undefined
  const args = CALLBACK_METHODS.has(method) ? lowerCallbackArgs(method, node.arguments, ctx) : math ? lowerNumberArgs(node.arguments, ctx) : lowerArgs(node.arguments, ctx)
  const out: Expr = methodCall(object, method, args)
  out.loc = ctx.loc(node)
  if (callee.optional) out.optional = true
  return out
}

const isNamespace = (node: Node, name: string, ctx: LowerContext): boolean => node.type === 'Identifier' && (node as Identifier).name === name && ctx.scope.lookup(name) === undefined

/** The global functions that read a Date as its time value; `String(d)` reads its text. */
const NUMBER_READERS: ReadonlySet<string> = new Set(['Number', 'isNaN', 'isFinite'])

/** Arguments of a global function call given a Date (lower/dates.ts): where the function reads a number or text, the Date's. */
function dateArgs(name: string, node: CallExpression, ctx: LowerContext): Array<Expr | SpreadExpr> {
  if (NUMBER_READERS.has(name)) return lowerNumberArgs(node.arguments, ctx)
  if (name === 'String' && node.arguments.length === 1) return [dateText(node.arguments[0]!, ctx)]
  return lowerArgs(node.arguments, ctx)
}

/**
 * `Array.from(x, (v, i) => ...)` is `Array.from(x).map((v, i) => ...)`: the mapper sees each value and
 * its index, in order, as `map`'s callback does (it gets no third argument, so at most two parameters).
 */
function arrayFromMapped(node: CallExpression, method: string, ctx: LowerContext): Expr | undefined {
  const callee = node.callee as { object: Expression }
  const [source, mapper] = node.arguments
  if (method !== 'from' || callee.object.type !== 'Identifier' || callee.object.name !== 'Array' || ctx.scope.lookup('Array') !== undefined) return undefined
  if (node.arguments.length !== 2 || source!.type === 'SpreadElement' || mapper!.type !== 'ArrowFunctionExpression' || mapper.params.length > 2) return undefined
  const loc = ctx.loc(node)
  const from: Expr = methodCall(lowerObjectOf(callee.object, ctx), 'from', [lowerIterable(source as Expression, ctx)])
  from.loc = loc
  const out: Expr = methodCall(from, 'map', [lowerLambda(mapper, ctx)])
  out.loc = loc
  return out
}

const ERROR_CONSTRUCTORS: ReadonlySet<string> = new Set(ERROR_CONSTRUCTOR_NAMES)

/** `new Error(msg)` is the global `Error(msg)`, `new RegExp(p, f)` is `RegExp(p, f)` (same results in JS); every other `new` is refused. */
export function lowerNew(node: NewExpression, ctx: LowerContext): Expr {
  const callee = node.callee
  const name = callee.type === 'Identifier' ? (callee as Identifier).name : 'expression'
  if (!(ERROR_CONSTRUCTORS.has(name) || name === 'RegExp') || ctx.scope.lookup(name) !== undefined) {
    if (name === 'Date' && isGlobalName(name, ctx)) return refuseDateValue(node, ctx)
    if (name === 'Map' && isGlobalName(name, ctx)) return refuseMapValue(node, ctx)
    if (name === 'Set' && isGlobalName(name, ctx)) return refuseSetValue(node, ctx)
    const intl = intlClass(callee, ctx)
    if (intl !== undefined) return ctx.fail('INTL_FORMAT', node, { name: intl })
    if (name === 'Array') return arrayOfArguments(node, ctx) ?? ctx.fail('NEW_ARRAY', node, { name: 'new Array(...)' })
    if (name === 'Set' || name === 'Map' || name === 'WeakMap' || name === 'WeakSet') return ctx.fail('NEW_COLLECTION', node, { name })
    return ctx.fail('NEW', node, { name })
  }
  return call(name, lowerArgs(node.arguments, ctx), ctx.loc(node))
}
