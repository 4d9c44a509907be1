/**
 * ajs-lang/flowlang: typed-port block graphs (FlowLang), authored as JSON,
 * `.flow` text or sandboxed AJS scripts, validated against one catalog,
 * and run as a live model ⇄ MCP tools pipeline with Safe Mode and a guarded
 * `flow_repair` tool. Re-exports only. See docs/flowlang.md.
 */
export { BLOCKS, BLOCK_TYPES, PORT_TYPES, NEGOTIATION_SWITCHES, portAccepts, blockSpec, type BlockSpec, type BlockType, type BlockRole, type OptionSpec, type PortType } from './catalog.ts'
export { serializeFlowGraph, toPlainGraph, type FlowGraph, type FlowNode, type FlowEdge, type FlowProblem } from './graph.ts'
export { FLOW_GRAPH_JSON_SCHEMA } from './shape.ts'
export { validateFlowGraph, type FlowValidation } from './validate.ts'
export { parseFlowText, type FlowTextOptions, type FlowTextResult } from './text.ts'
export { runFlowScript, SCRIPT_DEFAULTS, type FlowScriptOptions } from './script.ts'
export { loadFlowSource, flowSourceKind, type LoadFlowOptions, type FlowSourceKind } from './sources.ts'
export { FLOW_CODES, type FlowCodeName } from '../diagnostics/flowlang-codes.ts'
export { compileFlow, flowVm, type CompiledFlow, type FlowRunState, type TurnOptions } from './runtime/pipeline.ts'
export { compileTurnProgram } from './runtime/program.ts'
export { FLOW_ATOMS, type FlowCapabilities } from './runtime/atoms.ts'
export { flowlangLibrary } from './runtime/library.ts'
export { McpRouter } from './runtime/router.ts'
export { parseXmlToolCalls } from './runtime/codecs.ts'
export {
  TURN_DEFAULTS, type ChatMessage, type FlowEvent, type FlowHost, type McpServerSpec, type NeutralToolUse, type NeutralToolResult,
  type TurnLimits, type TurnResult, type McpCapability, type ModelCapability, type FlowToolInfo, type TraceEntry, type ApprovalRequest, type ToolChannel,
} from './runtime/types.ts'
export { FlowSession, baselineGraph, type FlowInput, type FlowSessionOptions, type SessionTurn } from './session.ts'
export { applyFlowRepair, type FlowRepairPatch, type FlowRepairResult } from './repair.ts'
export { createFlowToolsServer, callFlowTool, FLOW_TOOLS, type FlowToolsOptions } from './tools-server.ts'
