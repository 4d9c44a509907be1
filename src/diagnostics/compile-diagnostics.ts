/**
 * Compile warnings that travel with an AST to the runs of it.
 *
 * `transpile` (and so `ajs`, and `vm.run(source)` through the full entry's
 * source compiler) records the warnings of the AST it returns here, keyed by
 * the AST object: the AST's JSON stays exactly the format (nothing is added
 * to it), and a VM that runs that very object reports them in
 * `RunResult.diagnostics` — so `==` without coercion (AJS4003) is as visible
 * from the library and the server as from `ajsc run`. An AST parsed from
 * JSON carries none: its warnings were the compiling machine's to report.
 * This module has no frontend code, so the runtime-only VM may import it.
 */
import type { Diagnostic } from './diagnostic.ts'

/** A compile warning as a run reports it. `column` is 1-based, like `location` and the CLI's JSON. */
export interface CompileDiagnostic {
  severity: 'warning'
  /** Stable code, e.g. `AJS4003`. */
  code: string
  message: string
  hint?: string
  file?: string
  line?: number
  column?: number
  /** `file:line:col`, 1-based. */
  location?: string
}

const registry = new WeakMap<object, readonly CompileDiagnostic[]>()

/** The warnings of a transpiler pass as run diagnostics. */
export function toCompileDiagnostics(warnings: readonly Diagnostic[]): CompileDiagnostic[] {
  return warnings.map((w) => ({
    severity: 'warning', code: w.code, message: w.message, ...(w.hint ? { hint: w.hint } : {}),
    file: w.file, line: w.line, column: w.column + 1, location: `${w.file}:${w.line}:${w.column + 1}`,
  }))
}

/** Remember the compile warnings of `ast` (nothing when there are none). */
export function recordCompileDiagnostics(ast: object, warnings: readonly Diagnostic[]): void {
  if (warnings.length > 0) registry.set(ast, Object.freeze(toCompileDiagnostics(warnings)))
}

/** The compile warnings recorded for this AST object, as fresh plain objects (undefined: none). */
export function compileDiagnosticsOf(ast: unknown): CompileDiagnostic[] | undefined {
  if (typeof ast !== 'object' || ast === null) return undefined
  const found = registry.get(ast)
  return found?.map((d) => ({ ...d }))
}
