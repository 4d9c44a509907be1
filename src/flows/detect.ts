/**
 * Which flow format a document is: a SavedFlow v1 has a `flow` (with
 * `nodes`/`edges`) or a `spec_version`; a Block flow has `steps` or `blocks`.
 */
export type FlowFormat = 'saved-flow' | 'blocks'

export function detectFlowFormat(value: unknown): FlowFormat | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  if (Object.hasOwn(value, 'blocks') || Object.hasOwn(value, 'steps')) return 'blocks'
  if (Object.hasOwn(value, 'flow') || Object.hasOwn(value, 'spec_version')) return 'saved-flow'
  return undefined
}
