/**
 * ajs-lang/vm: the runtime alone (VM + AST validation, no parser). This is
 * what a remote VM or a browser needs.
 */
export { AgentVM, type AgentVMOptions, type SourceCompiler } from './agent-vm.ts'
export type { GuestFunction } from './compile/compiler.ts'
export type { RunOptions, RunLimits, LogEntry, LogLevel } from './limits.ts'
export { DEFAULTS as RUN_DEFAULTS } from './limits.ts'
export type { RunResult, TraceEntry } from './result.ts'
export { isAgentError, type AgentError } from './errors.ts'
export { coreAtoms, defineAtom, EFFECTFUL_CORE_OPS } from './atoms/index.ts'
export type { AtomDef, AtomContext, AtomFn, AtomEffects } from './atoms/types.ts'
export {
  PROCEDURE_TOKEN_PREFIX, DEFAULT_PROCEDURE_TTL, DEFAULT_MAX_AST_SIZE, MAX_PROCEDURE_TTL, MemoryProcedureStore, procedureStore,
  type ProcedureStore, type ProcedureEntry,
} from './procedures.ts'
export { ATOM_COSTS, NODE_COST, UNIT as FUEL_UNIT } from './fuel.ts'
export { getToolDefinitions, type ToolDefinition } from './tools.ts'
export { createAgent, AgentRunError } from './create-agent.ts'
export { defineLibrary, registerLibrary, registeredLibrary, isRuntimeLibrary, type RuntimeLibrary, type LibraryLoader } from './libraries.ts'
export { LIBRARIES, type LibraryName } from '../ast/libraries.ts'
export type { Migration, MigrationChange } from './dialect.ts'
export { validateAst, type AstProblem, type ValidateOptions } from '../ast/validate.ts'
export * from '../ast/types.ts'
