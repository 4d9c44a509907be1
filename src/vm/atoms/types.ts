/** The shape of atoms: the VM's table of callable operations. */
import type { FieldSpec } from '../../ast/nodes.ts'

export type JsonSchema = Record<string, unknown>

/** What calling an atom does besides computing its result. */
export type AtomEffects = 'pure' | 'io'

/** What an atom implementation receives besides its input. */
export interface AtomContext {
  /** The op name being run. */
  op: string
  /** Host-provided I/O (fetch, store, llm, agent, console, ...). */
  capabilities: Record<string, any>
  /** Read-only request context (auth, permissions, request id, callbacks): host data, typed loosely as the seed's atoms read it (`ctx.context?.permissions?.includes(...)`). */
  context: Readonly<Record<string, any>>
  /** Aborted on run timeout, host abort, atom timeout, or failure of a sibling parallel branch. */
  signal: AbortSignal
  /** Fuel left in the run, in fuel units. */
  readonly fuelLeft: number
  /** Charge extra fuel (e.g. proportional to work done). */
  charge(fuel: number): void
  /** Add a warning to the run result. */
  warn(message: string): void
  /** Nondeterminism goes through the run's choke point. */
  random(): number
  now(): number
  uuid(): string
}

export type AtomFn<I = any, O = any> = (input: I, ctx: AtomContext) => O | Promise<O>
export type CostSpec<I = any> = number | ((input: I, ctx: AtomContext) => number)

export interface AtomDef<I = any, O = any> {
  op: string
  /** Field kinds for step decoding (custom atoms: every input property is a `value`). */
  fields: Record<string, FieldSpec>
  inputSchema?: JsonSchema
  outputSchema?: JsonSchema
  /** Cost in fuel, fixed or computed from the input. */
  cost: CostSpec<I>
  /** Per-call time limit in ms (0 or undefined: only the run's deadline applies). */
  timeoutMs?: number
  docs?: string
  fn: AtomFn<I, O>
  /** Never returns a Promise: lets the compiler keep callers synchronous. */
  sync?: boolean
  /** Core implementation returning fresh guest-safe data: output is not copied through the membrane. */
  trusted?: boolean
  /** Callable as `name({ ... })` inside expressions (default true). */
  expression?: boolean
  /** Is an I/O atom (capability errors are reported as CAPABILITY_ERROR). */
  io?: boolean
  /**
   * `'pure'`: the result depends only on the input and nothing outside the run
   * changes; `'io'`: reaches outside the run (a capability, a shared store, the
   * log, randomness), so replaying or caching a call is not the same as making
   * it. Core atoms are tagged (see EFFECTFUL_CORE_OPS); defineAtom's default is 'io'.
   */
  effects?: AtomEffects
  /**
   * A call must be approved before it runs (code mode): `true`, or decided per
   * call from the input. Hosts read it (ajs-lang/codemode withApprovals, the
   * workflow engine's durable approval pauses); the VM itself ignores it.
   */
  requiresApproval?: boolean | ((input: I) => boolean)
}

export type AtomTable = ReadonlyMap<string, AtomDef>
