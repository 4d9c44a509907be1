/** What `vm.run` resolves to. */
import type { AgentError } from './errors.ts'
import type { CompileDiagnostic } from '../diagnostics/compile-diagnostics.ts'

export type { CompileDiagnostic }

export interface TraceEntry {
  op: string
  /** `file:line:col` when the AST carries locations. */
  location?: string
  /** Fuel used by this step, including nested steps. */
  fuel: number
  /**
   * Fuel used by the run when the step started (entries are in start order, so
   * this never decreases along the trace). Blocks are charged on entry, so it
   * already includes the static cost of the step's whole block; the run's
   * total is `RunResult.fuelUsed`.
   */
  fuelTotal: number
  ms: number
  error?: string
  /** For `console.*` entries (op `console.log`, ...): the line the guest logged. */
  message?: string
}

export interface RunResult<T = unknown> {
  /** The program's return value as plain data (`null` when it returned nothing or failed). */
  result: T | null
  /** Set when the run failed; the run never rejects for guest errors. */
  error?: AgentError
  /** Fuel consumed, exact and deterministic. */
  fuelUsed: number
  trace?: TraceEntry[]
  /** Runtime warnings: what the program logged with `console.warn` (and the VM's own notices). */
  warnings?: string[]
  /**
   * Compile warnings of the program, when this VM compiled it from source (`vm.run(source)`) or
   * it is the very AST object `transpile`/`ajs` returned: e.g. AJS4003, `==` does not coerce.
   */
  diagnostics?: CompileDiagnostic[]
}
