/**
 * The builder's immutable state and the atom registry it builds against.
 *
 * A `State` is never mutated: every builder call makes a new one, so any
 * builder value can be reused, branched and shared safely.
 */
import type { FieldSpec } from '../ast/nodes.ts'
import { CORE_OPS, FORBIDDEN_NAMES, IDENTIFIER } from '../ast/nodes.ts'
import type { Pattern, Step } from '../ast/types.ts'
import { BuilderError } from './errors.ts'
import type { ParseScope } from './resolve.ts'

/** What the builder knows about an atom: its fields (all `value` kind). */
export interface AtomEntry {
  op: string
  fields: Readonly<Record<string, FieldSpec>>
}

/** The atom table a builder family is derived from (core atoms, or a VM's atoms). */
export interface Registry {
  /** Atoms callable as builder methods. */
  atoms: ReadonlyMap<string, AtomEntry>
  /** Custom (non-core) atom names: known to the expression parser and to validation. */
  custom: readonly string[]
}

/** Root-only metadata (the program's schema, parameters and description). */
export interface RootMeta {
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  params?: Pattern
  name?: string
  description?: string
}

export class State {
  constructor(
    readonly reg: Registry,
    readonly steps: readonly Step[],
    /** Variables in scope for expressions (parameters, declarations, loop variables, results). */
    readonly names: readonly string[],
    /** Names declared in the function scope by `result`/`varSet`: visible after the enclosing body too. */
    readonly fnNames: readonly string[],
    /** Root metadata; `null` for a nested body (then `take`/`meta` are refused). */
    readonly root: RootMeta | null,
  ) {}

  static empty(reg: Registry, root: boolean): State {
    return new State(reg, [], [], [], root ? {} : null)
  }

  /** The index the next step will have, as a JSON pointer. */
  get nextPath(): string {
    return `/steps/${this.steps.length}`
  }

  scope(astOf?: (v: unknown) => object | undefined): ParseScope {
    return { names: this.names, atoms: this.reg.custom, astOf }
  }

  with(changes: { steps?: readonly Step[]; names?: readonly string[]; fnNames?: readonly string[]; root?: RootMeta | null }): State {
    return new State(
      this.reg,
      changes.steps ?? this.steps,
      changes.names ?? this.names,
      changes.fnNames ?? this.fnNames,
      changes.root === undefined ? this.root : changes.root,
    )
  }

  /** Append a step, bringing `declared` names into scope (`fnScoped`: also visible outside the body). */
  push(step: Step, declared: readonly string[] = [], fnScoped: readonly string[] = []): State {
    return this.with({
      steps: [...this.steps, step],
      names: addNames(this.names, [...declared, ...fnScoped]),
      fnNames: fnScoped.length ? addNames(this.fnNames, fnScoped) : this.fnNames,
    })
  }

  /** A nested body's starting state: same registry, these names in scope, no steps. */
  child(extra: readonly string[]): State {
    return new State(this.reg, [], addNames(this.names, extra), [], null)
  }
}

export function addNames(names: readonly string[], more: readonly string[]): readonly string[] {
  const fresh = more.filter((n) => !names.includes(n))
  return fresh.length ? [...names, ...new Set(fresh)] : names
}

export function checkName(name: unknown, what: string, path?: string, op?: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || FORBIDDEN_NAMES.has(name)) {
    throw new BuilderError('BUILDER_ARGS', `${what} must be a variable name, got ${JSON.stringify(name)?.slice(0, 40)}`, { path, op })
  }
  return name
}

/** Names bound by a binding pattern. */
export function namesOf(p: Pattern | null | undefined, out: string[] = []): string[] {
  if (p === null || p === undefined) return out
  if (typeof p === 'string') { out.push(p); return out }
  switch (p.$pattern) {
    case 'object': for (const q of p.properties) namesOf(q.value, out); if (p.rest) out.push(p.rest); break
    case 'array': for (const q of p.elements) namesOf(q, out); namesOf(p.rest, out); break
    case 'default': namesOf(p.target, out); break
    default: break
  }
  return out
}

const allValues = (fields: Record<string, FieldSpec>) => Object.values(fields).every((f) => f.kind === 'value')

/**
 * Core ops whose fields are all values are atom methods, except the
 * statements that have builder methods of their own (`return`, `throw`,
 * `expr`): `reserved` names those.
 */
export function coreAtomEntries(reserved: ReadonlySet<string>): Map<string, AtomEntry> {
  const out = new Map<string, AtomEntry>()
  for (const [op, spec] of Object.entries(CORE_OPS)) {
    if (allValues(spec.fields) && !reserved.has(op)) out.set(op, { op, fields: spec.fields })
  }
  return out
}

/** A registry from core atoms plus custom atom definitions (anything with `op` and `fields`). */
export function makeRegistry(reserved: ReadonlySet<string>, custom: Iterable<{ op: string; fields: Record<string, FieldSpec> }> = []): Registry {
  const atoms = coreAtomEntries(reserved)
  const names: string[] = []
  for (const def of custom) {
    const core = Object.prototype.hasOwnProperty.call(CORE_OPS, def.op) ? CORE_OPS[def.op] : undefined
    if (core && (!allValues(core.fields) || reserved.has(def.op) || core.fields === def.fields)) continue // statement, or the core atom itself
    atoms.set(def.op, { op: def.op, fields: def.fields })
    if (!core) names.push(def.op)
  }
  return { atoms, custom: names }
}
