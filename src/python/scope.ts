/**
 * Names, as Python resolves them. Every `def` and every comprehension is a
 * function scope; its locals are the names it assigns. A nested function
 * reads the variables of enclosing functions at call time, so each function
 * receives the enclosing variables it (or anything it calls) reads as hidden
 * trailing arguments (`name$<scope id>`): late binding, exactly. Lambdas are
 * compiled in place (their parameters shadow), since they cannot assign.
 */
import type { Expr, Loc, Stmt, StmtOf } from './ir.ts'

export interface DefInfo {
  name: string
  /** The VM helper name. */
  helper: string
  params: StmtOf<'def'>['params']
  scope: FnScope
  /** Default values are evaluated at the `def` into these locals of the defining scope. */
  defaultHolders: Array<string | null>
  node: StmtOf<'def'>
}

export class FnScope {
  readonly locals = new Set<string>()
  readonly defs = new Map<string, DefInfo>()
  /** Enclosing variables read here or by callees: hidden name -> [python name, owner]. */
  readonly free = new Map<string, [string, FnScope]>()
  /** Functions (defs and comprehensions) this scope calls. */
  readonly calls = new Set<FnScope>()
  /** Assignment counts per name (a def name must not be rebound). */
  readonly assigned = new Map<string, number>()
  /** Names this function declares `nonlocal`: not its locals, the enclosing owner's (nonlocal.ts). */
  readonly nonlocals = new Map<string, Loc>()
  /** Names an `import` statement of this function binds (imports are compile-time bindings: classes.ts). */
  readonly imported = new Set<string>()
  /**
   * Locals some nested function declares `nonlocal`: held in a one-item array (a cell) that every
   * function reading or assigning them shares. The other locals are plain VM variables.
   */
  readonly cells = new Set<string>()
  constructor(readonly id: number, readonly kind: 'block' | 'def' | 'comp', readonly parent: FnScope | null) {}

  /** The scope that owns `name` as a local, searching outward. */
  owner(name: string): FnScope | undefined {
    for (let s: FnScope | null = this; s; s = s.parent) if (s.locals.has(name)) return s
    return undefined
  }

  findDef(name: string): DefInfo | undefined {
    const o = this.owner(name)
    return o?.defs.get(name)
  }
}

/** A valid VM name for a Python name (Python names never contain `$`, so mangled names cannot collide). */
export function mangle(name: string): string {
  if (name.includes('$')) return name
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name !== 'constructor' && name !== 'prototype' && name !== 'undefined' && name !== 'NaN' && name !== 'Infinity') return name
  return '$' + [...name].map((c) => (/[A-Za-z0-9_]/.test(c) ? c : `$${c.codePointAt(0)!.toString(16)}`)).join('')
}

export const hiddenName = (name: string, owner: FnScope): string => `${mangle(name)}$${owner.id}`

/** Targets bound by an assignment target expression. */
export function targetNames(t: Expr, out: string[] = []): string[] {
  if (t.k === 'name') out.push(t.id)
  else if (t.k === 'tuple' || t.k === 'list') for (const e of t.elts) targetNames(e.k === 'star' ? e.e : e, out)
  return out
}

export interface Analysis {
  block: FnScope
  scopes: FnScope[]
  /** The scope of each def / comprehension node. */
  scopeOf: Map<object, FnScope>
  defOf: Map<object, DefInfo>
  helperNames: Set<string>
  /** Lambda parameters a comprehension inside the lambda reads: passed to it like enclosing variables. */
  lambdaParamsOf: Map<FnScope, Set<string>>
}
