/**
 * ajs-lang/flows: flow documents as first-class inputs of the toolchain —
 * the Flow Specification v1 (SavedFlow JSON) and Block flows (the Block
 * Runtime Contract) — parsed, validated with located problems, round-tripped
 * without loss, compiled to ajs/1 and run on the AgentVM. Re-exports only.
 * See docs/flows.md.
 */
export { FlowError, formatProblems, type FlowProblem } from './problems.ts'
export { detectFlowFormat, type FlowFormat } from './detect.ts'
export { parseSavedFlow, serializeSavedFlow, type ParseFlowOptions } from './saved-flow/parse.ts'
export { validateSavedFlow } from './saved-flow/validate.ts'
export { walkBfs } from './saved-flow/walk.ts'
export { compileSavedFlow, CONDITION_VARS, type CompileSavedFlowOptions } from './saved-flow/compile.ts'
export {
  FLOW_ID, VENDOR_NAMESPACE, CORE_NODE_TYPES, SCHEDULE_TYPES,
  type SavedFlow, type FlowNode, type FlowEdge, type FlowDefinition,
} from './saved-flow/model.ts'
export { parseBlockFlow, serializeBlockFlow } from './blocks/parse.ts'
export { validateBlockFlow } from './blocks/validate.ts'
export { compileBlockFlow, type CompileBlockFlowOptions } from './blocks/compile.ts'
export {
  PROCESSOR_TYPES, CONTAINER_TYPES,
  type BlockFlow, type Block, type BlockField, type SchemaNode, type Container, type StepNode,
} from './blocks/model.ts'
export { checkFlow, compileFlow, runFlow, type FlowCheck, type CompileFlowOptions, type CompiledFlow, type FlowRunOptions, type FlowRunResult } from './run.ts'
export { flowAtoms } from './runtime/atoms.ts'
export type { FlowEvent, TokenUsage } from './runtime/events.ts'
export { FLOW_RULES, FLOW_RUN_CODES, type FlowRule, type FlowRunCode } from '../diagnostics/flow-codes.ts'
export * from './schedule/index.ts'
