/**
 * Turning builder arguments into wire values.
 *
 * - `parseSource`: AJS source -> Expr through the transpiler's
 *   `transpileExpression` (the one parser), then the `vars` mapping is
 *   applied by substituting each mapped identifier with its path/value
 *   expression. The walk follows `EXPR_KINDS` child fields, respects lambda
 *   parameters that shadow a mapped name, and drops `loc` (positions inside
 *   a condition string would mislead runtime error locations).
 * - `resolveValue`: a builder argument (JSON, `$expr` nodes, deferred
 *   `e.parse` nodes, nested builders) -> a value field, resolving deferred
 *   sources against the scope of the step.
 */
import type { Expr, Pattern, Value } from '../ast/types.ts'
import { exprChildren } from '../ast/walk.ts'
import { transpileExpression } from '../transpiler/index.ts'
import { BuilderError } from './errors.ts'
import { SOURCE, isSourceExpr, toExpr, type SourceExpr } from './expr.ts'
import { node as make } from '../ast/build.ts'

/** `{ name: 'path.to.value' | JSON | Expr }`: what each name in an expression stands for. */
export type VarMap = Readonly<Record<string, unknown>>

/** What a step can see: the variables in scope and the custom atom names. */
export interface ParseScope {
  names: readonly string[]
  atoms: readonly string[]
  /** Turns a nested builder into its AST (set by the builder). */
  astOf?: (v: unknown) => object | undefined
}

type Subst = ReadonlyMap<string, Expr>

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Names bound by a pattern (lambda parameters shadow mapped names). */
function patternNames(p: Pattern | null | undefined, out: Set<string>): void {
  if (p === null || p === undefined) return
  if (typeof p === 'string') { out.add(p); return }
  switch (p.$pattern) {
    case 'object': for (const q of p.properties) patternNames(q.value, out); if (p.rest) out.add(p.rest); return
    case 'array': for (const q of p.elements) patternNames(q, out); patternNames(p.rest, out); return
    case 'default': patternNames(p.target, out); return
    default: return
  }
}

/** Copy of any AST fragment with mapped identifiers substituted and `loc` dropped. */
function walk(v: unknown, map: Subst): unknown {
  if (Array.isArray(v)) return v.map((x) => walk(x, map))
  if (!isObj(v)) return v
  if (typeof v.$expr === 'string') return walkExpr(v as unknown as Expr, map)
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v)) if (k !== 'loc') out[k] = walk(v[k], map)
  return out
}

function walkExpr(node: Expr, map: Subst): Expr {
  if (node.$expr === 'ident' && map.has(node.name)) return map.get(node.name)!
  let inner = map
  if (node.$expr === 'lambda' && map.size > 0) {
    const bound = new Set<string>()
    for (const p of node.params) patternNames(p, bound)
    if ([...bound].some((n) => map.has(n))) inner = new Map([...map].filter(([k]) => !bound.has(k)))
  }
  const children = exprChildren(node.$expr)
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(node)) {
    if (k === 'loc') continue
    const child = (node as unknown as Record<string, unknown>)[k]
    // Child fields per the vocabulary table (a lambda's params and steps too: patterns may hold defaults).
    out[k] = children.includes(k) ? walk(child, inner) : child
  }
  return out as unknown as Expr
}

function parseError(source: string, e: unknown): BuilderError {
  let msg = e instanceof Error ? e.message.split('\n')[0] : String(e)
  const hint = (e as { hint?: unknown })?.hint
  if (typeof hint === 'string' && hint.length > 0 && !msg!.includes(hint)) msg += ` (${hint})`
  return new BuilderError('BUILDER_PARSE', `cannot compile ${JSON.stringify(source)}: ${msg}`, { cause: e })
}

/** The expression a mapped name stands for: a string is a path/expression, anything else a value. */
function mappedExpr(value: unknown, scope: ParseScope): Expr {
  if (typeof value === 'string') return parseSource(value, scope)
  return resolveExpr(value, scope)
}

/** Parse AJS expression source in a scope, then apply the `vars` mapping. */
export function parseSource(source: string, scope: ParseScope, vars?: VarMap): Expr {
  if (typeof source !== 'string') throw new BuilderError('BUILDER_ARGS', `expected an expression source string, got ${typeof source}`)
  const mapped = vars ? Object.keys(vars) : []
  let parsed: Expr
  try {
    parsed = transpileExpression(source, { vars: [...scope.names, ...mapped], atoms: scope.atoms, refuseChainedComparisons: true })
  } catch (e) {
    throw parseError(source, e)
  }
  const map = new Map<string, Expr>()
  for (const name of mapped) map.set(name, mappedExpr(vars![name], scope))
  return walkExpr(parsed, map)
}

function resolveSource(v: SourceExpr, scope: ParseScope): Expr {
  const { source, vars } = v[SOURCE]
  return parseSource(source, scope, vars)
}

/** Resolve anything expression-like (deferred sources, nodes with deferred parts, JSON literals). */
export function resolveExpr(v: unknown, scope: ParseScope): Expr {
  if (isSourceExpr(v)) return resolveSource(v, scope)
  if (isObj(v) && typeof v.$expr === 'string') return resolveDeep(v, scope) as Expr
  const ast = scope.astOf?.(v)
  if (ast) return make('literal', { value: ast as never })
  return toExpr(v)
}

/** An expression field: source text is parsed (with `vars`), anything else resolved. */
export function resolveCondition(v: unknown, scope: ParseScope, vars?: VarMap): Expr {
  if (typeof v === 'string') return parseSource(v, scope, vars)
  if (vars && Object.keys(vars).length > 0) {
    throw new BuilderError('BUILDER_ARGS', 'a `vars` mapping applies to a condition given as source text')
  }
  return resolveExpr(v, scope)
}

/** Deep copy resolving deferred sources anywhere (also inside hand-built `$expr` nodes). */
function resolveDeep(v: unknown, scope: ParseScope): unknown {
  if (isSourceExpr(v)) return resolveSource(v, scope)
  if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return toExpr(v)
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
      throw new BuilderError('BUILDER_ARGS', `a ${typeof v} is not a value (values are JSON data or expressions)`)
    }
    return v
  }
  if (Array.isArray(v)) return v.map((x) => resolveDeep(x, scope))
  const ast = scope.astOf?.(v)
  if (ast) return make('literal', { value: ast as never })
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) {
    throw new BuilderError('BUILDER_ARGS', `a ${proto?.constructor?.name ?? 'class instance'} is not a value (values are JSON data or expressions)`)
  }
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k]
    // Data objects drop undefined properties as JSON does; inside `$expr` nodes keep structure.
    if (x === undefined && !('$expr' in v)) continue
    out[k] = resolveDeep(x, scope)
  }
  return out
}

/**
 * A value field. Strings are strings; primitive literal nodes travel as plain
 * JSON (as the transpiler emits them), so both front ends give the same AST.
 */
export function resolveValue(v: unknown, scope: ParseScope): Value {
  const out = resolveDeep(v, scope) as Value
  if (isObj(out) && out.$expr === 'literal') {
    const lit = (out as { value: unknown }).value
    if (lit === null || typeof lit !== 'object') return lit as Value
  }
  return out
}
