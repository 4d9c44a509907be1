/**
 * Shared plumbing of the builder methods: the `Kit` (wrapping states as
 * builders), error location, nested bodies and argument checks.
 */
import type { AjsProgram, Step } from '../ast/types.ts'
import { BuilderError } from './errors.ts'
import { resolveCondition, resolveValue, type VarMap } from './resolve.ts'
import { addNames, type State } from './state.ts'
import type { Expr, Value } from '../ast/types.ts'

/** How methods reach the proxy layer without importing it. */
export interface Kit {
  wrap(st: State): unknown
  unwrap(v: unknown): State | undefined
  /** The AST of a builder passed as a value (then embedded as data). */
  astOf(v: unknown): AjsProgram | undefined
  build(st: State): AjsProgram
}

/** Run `fn`; a BuilderError without a location gets the location of the step being added. */
export function at<T>(st: State, op: string, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof BuilderError && e.path === undefined) {
      throw new BuilderError(e.code, e.detail, { path: st.nextPath, op, cause: e.cause })
    }
    throw e
  }
}

export const argError = (detail: string) => new BuilderError('BUILDER_ARGS', detail)

export const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** Refuse option keys a method does not know (typos must not be silently ignored). */
export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw argError(`${what}: unknown option \`${k}\` (allowed: ${allowed.join(', ')})`)
  }
}

export const isBody = (v: unknown, kit: Kit): boolean => typeof v === 'function' || kit.unwrap(v) !== undefined

export interface BodyResult {
  steps: Step[]
  /** The body's final state (its names are the scope at its end). */
  state: State
}

/**
 * Build a nested step list: `fn` receives a builder whose scope is the
 * parent's plus `extra`; it must return a builder. Errors inside are
 * re-located under `/steps/<i><field>` of the parent.
 */
export function buildBody(st: State, kit: Kit, fn: unknown, extra: readonly string[], field: string, op: string): BodyResult {
  const prefix = `${st.nextPath}${field}`
  let out: unknown = fn
  if (typeof fn === 'function') {
    try {
      out = fn(kit.wrap(st.child(extra)))
    } catch (e) {
      if (e instanceof BuilderError) throw e.within(prefix)
      throw e
    }
  }
  const res = kit.unwrap(out)
  if (!res) {
    throw new BuilderError('BUILDER_ARGS', `the \`${field.slice(1)}\` body must be a callback returning a builder, e.g. (b) => b.return(1)`, { path: prefix, op })
  }
  return { steps: [...res.steps], state: res }
}

/** Function-scoped names declared inside bodies stay visible after them (as in the VM). */
export function hoist(st: State, bodies: readonly BodyResult[]): State {
  const names = bodies.flatMap((b) => b.state.fnNames)
  if (names.length === 0) return st
  return st.with({ names: addNames(st.names, names), fnNames: addNames(st.fnNames, names) })
}

export const value = (st: State, kit: Kit, v: unknown): Value => resolveValue(v, st.scope(kit.astOf))
export const condition = (st: State, kit: Kit, v: unknown, vars?: VarMap, extra: readonly string[] = []): Expr =>
  resolveCondition(v, extra.length ? { ...st.scope(kit.astOf), names: addNames(st.names, extra) } : st.scope(kit.astOf), vars)
