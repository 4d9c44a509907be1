/**
 * ajs-lang/flows: flow documents as first-class inputs of the toolchain.
 * Re-exports only. See docs/flows.md.
 */
export { FlowError, formatProblems, type FlowProblem } from './problems.ts'
export { parseSavedFlow, serializeSavedFlow, type ParseFlowOptions } from './saved-flow/parse.ts'
export { validateSavedFlow } from './saved-flow/validate.ts'
export { walkBfs } from './saved-flow/walk.ts'
export {
  FLOW_ID, VENDOR_NAMESPACE, CORE_NODE_TYPES, SCHEDULE_TYPES,
  type SavedFlow, type FlowNode, type FlowEdge, type FlowDefinition,
} from './saved-flow/model.ts'
