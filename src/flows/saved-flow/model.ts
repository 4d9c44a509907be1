/**
 * The SavedFlow v1 document model (Flow Specification v1, §1–§5), declared
 * once: every object's fields in wire order with their type, whether they
 * are required and their default. Shape validation, defaults and the key
 * order of `serializeSavedFlow` are all derived from `SHAPES`.
 */

/** The field types a SavedFlow uses. */
export type FieldType = 'string' | 'boolean' | 'object' | 'position' | 'nullableString' | 'nodes' | 'edges' | 'flow'

export interface FieldRule {
  type: FieldType
  required: boolean
  /** Applied when the field is absent (spec defaults). */
  default?: () => unknown
}

export type ShapeName = 'savedFlow' | 'definition' | 'node' | 'edge'

export const SHAPES: Record<ShapeName, Record<string, FieldRule>> = {
  savedFlow: {
    spec_version: { type: 'string', required: false, default: () => '1' },
    id: { type: 'string', required: true },
    name: { type: 'string', required: true },
    created_at: { type: 'string', required: true },
    updated_at: { type: 'string', required: true },
    enabled: { type: 'boolean', required: false, default: () => false },
    flow: { type: 'flow', required: true },
  },
  definition: {
    nodes: { type: 'nodes', required: true },
    edges: { type: 'edges', required: true },
  },
  node: {
    id: { type: 'string', required: true },
    node_type: { type: 'string', required: true },
    data: { type: 'object', required: true },
    position: { type: 'position', required: false, default: () => [0, 0] },
  },
  edge: {
    id: { type: 'string', required: true },
    source: { type: 'string', required: true },
    target: { type: 'string', required: true },
    source_handle: { type: 'nullableString', required: false, default: () => null },
    target_handle: { type: 'nullableString', required: false, default: () => null },
  },
}

/** The spec versions this importer reads. */
export const SUPPORTED_SPEC_VERSIONS: readonly string[] = ['1']

/** §1.1: safe as a file name in the fs store. */
export const FLOW_ID = /^[A-Za-z0-9-]{1,64}$/
/** §5.2: the part of a custom node type before its first colon. */
export const VENDOR_NAMESPACE = /^[a-z][a-z0-9_-]{0,31}$/
/** §5.1: the closed set of core node types. */
export const CORE_NODE_TYPES = ['entry', 'prompt', 'branch', 'branch_tool'] as const
export type CoreNodeType = (typeof CORE_NODE_TYPES)[number]
/** §5.1: how an entry node schedules its flow. */
export const SCHEDULE_TYPES = ['manual', 'minutes', 'hours', 'cron'] as const

export interface FlowNode {
  id: string
  node_type: string
  data: Record<string, unknown>
  position: [number, number]
  [unknownKey: string]: unknown
}

export interface FlowEdge {
  id: string
  source: string
  target: string
  source_handle: string | null
  target_handle: string | null
  [unknownKey: string]: unknown
}

export interface FlowDefinition {
  nodes: FlowNode[]
  edges: FlowEdge[]
  [unknownKey: string]: unknown
}

/** A parsed SavedFlow: defaults applied, unknown keys kept. */
export interface SavedFlow {
  spec_version: string
  id: string
  name: string
  created_at: string
  updated_at: string
  enabled: boolean
  flow: FlowDefinition
  [unknownKey: string]: unknown
}

export const isCoreNodeType = (t: string): t is CoreNodeType => (CORE_NODE_TYPES as readonly string[]).includes(t)
