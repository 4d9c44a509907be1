/**
 * ajs-lang: the public API. Re-exports only.
 *
 * `ajs-lang/vm` holds the runtime alone (no parser); this entry adds the
 * transpiler, the capability kit and an AgentVM that accepts source text.
 */
export * from './vm/index.ts'
// tosijs-schema's `s` (defineAtom's schemas), with the schema part the full entry includes (ajs-lang/vm/schema exports it too).
export { s } from './vm/parts/schema.ts'
// The seed's AST dialect: importing it lets every VM of the process run seed ASTs.
export { migrateAst } from './vm/seed-dialect.ts'
export { AgentVM, loadKnownLibrary } from './full-vm.ts'
export { assembleVM, assembleHost, type HostOffer, type Host, type VmClass } from './host/assemble.ts'
export { transpile, ajs, transpileExpression, compileDiagnosticsOf, type CompileDiagnostic, type TranspileOptions, type TranspileResult, type Signature } from './transpiler/index.ts'
export { TranspileError, AjsError, isTranspileError, errors, type Diagnostic } from './diagnostics/index.ts'
export * from './capabilities/index.ts'
export { Agent, e, createBuilder, BuilderError, isBuilderError, isBuilder, type Builder, type AgentRoot, type CoreAtoms, type ExprLike, type Arg, type VarMap } from './builder/index.ts'
