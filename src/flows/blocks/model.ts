/**
 * The Block flow document (our serialization of the Block Runtime Contract;
 * see docs/flows.md), declared once: key orders for serialization, the
 * processor and container types, and the TypeScript view.
 *
 * ```json
 * { "name": "…", "global_input_schema": { "fields": [...] },
 *   "steps": { "type": "h", "children": ["a", { "type": "v", "children": ["b", "c"] }] },
 *   "blocks": { "a": { "processor_type": "llm", "prompt": "…", "output_schema": { "fields": [...] } }, … } }
 * ```
 */

export const PROCESSOR_TYPES = ['llm', 'code', 'passthrough'] as const
export type ProcessorType = (typeof PROCESSOR_TYPES)[number]
export const CONTAINER_TYPES = ['h', 'v', 'loop'] as const
export type ContainerType = (typeof CONTAINER_TYPES)[number]

/** Field and step names: identifiers (they become Python parameters and dict keys). */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export interface BlockField {
  name: string
  type?: string
  description?: string
  required?: boolean
  [unknownKey: string]: unknown
}

export interface SchemaNode {
  fields: BlockField[]
  [unknownKey: string]: unknown
}

export interface Container {
  type: ContainerType
  id?: string
  /** Loops only: the input key holding the list (`array_field` is read as this). */
  arrayField?: string
  children: StepNode[]
  [unknownKey: string]: unknown
}

/** A step reference (a block id) or a container. */
export type StepNode = string | Container

export interface Block {
  processor_type: ProcessorType
  name?: string
  description?: string
  model?: string
  /** `llm`: the prompt template. */
  prompt?: string
  /** `code`: the Python function body. */
  content?: string
  input_schema?: SchemaNode
  output_schema?: SchemaNode
  config?: Record<string, unknown>
  [unknownKey: string]: unknown
}

export interface BlockFlow {
  name?: string
  description?: string
  global_input_schema?: SchemaNode
  /** The root step; a list is a sequence (an `h` container). */
  steps: StepNode | StepNode[]
  blocks: Record<string, Block>
  [unknownKey: string]: unknown
}

/** Serialization key order per object kind; unknown keys follow in their own order. */
export const KEY_ORDER = {
  flow: ['name', 'description', 'global_input_schema', 'steps', 'blocks'],
  container: ['type', 'id', 'arrayField', 'children'],
  block: ['processor_type', 'name', 'description', 'model', 'prompt', 'content', 'input_schema', 'output_schema', 'config'],
  schema: ['fields'],
  field: ['name', 'type', 'description', 'required'],
} as const
