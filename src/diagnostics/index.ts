/**
 * Diagnostics: the code registry, positions, formatting and error classes.
 * Re-exports only.
 */
export { CODES, CODES_BY_ID, fill, type CodeName, type CodeSpec, type Severity } from './codes.ts'
export { SourceLocator, lineStarts, positionOf, type Position } from './location.ts'
export { codeFrame, headerLine, type FrameOptions } from './format.ts'
export {
  AjsError, TranspileError, isTranspileError, errors, makeDiagnostic, transpileError, formatDiagnostic, type Diagnostic,
} from './diagnostic.ts'
export { FLOW_CODES, type FlowCodeName, type FlowCodeSpec } from './flowlang-codes.ts'
