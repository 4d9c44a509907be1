/**
 * Which flow format a document is: a SavedFlow v1 has a `flow` (with
 * `nodes`/`edges`), a `spec_version`, or an `id` with timestamps; a Block
 * flow has `steps` or `blocks`.
 */
export type FlowFormat = 'saved-flow' | 'blocks'

export function detectFlowFormat(value: unknown): FlowFormat | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  if (Object.hasOwn(value, 'blocks') || Object.hasOwn(value, 'steps')) return 'blocks'
  if (Object.hasOwn(value, 'flow') || Object.hasOwn(value, 'spec_version')) return 'saved-flow'
  // A SavedFlow missing its graph still reads best as one: the user then hears what is missing.
  if (Object.hasOwn(value, 'id') && (Object.hasOwn(value, 'created_at') || Object.hasOwn(value, 'updated_at'))) return 'saved-flow'
  return undefined
}
