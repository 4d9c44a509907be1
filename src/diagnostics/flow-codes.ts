/**
 * Stable codes of flow documents (ajs-lang/flows): the rules a document can
 * break (`FlowProblem.rule`, reported by `validate*`, `parse*` and
 * `ajsc flow validate`) and the errors a flow run can end with
 * (`RunResult.error.code`). Tests match on these names, never on prose.
 * SavedFlow rule names are the Flow Specification v1's own.
 */

export interface FlowRuleSpec {
  /** Which document format reports it (`both` for shape rules). */
  format: 'saved-flow' | 'blocks' | 'both'
  meaning: string
}

export const FLOW_RULES = {
  ParseError: { format: 'both', meaning: 'The text is not JSON.' },
  MissingField: { format: 'both', meaning: 'A required field is absent (a node without `data` is one).' },
  WrongType: { format: 'both', meaning: 'A field has the wrong JSON type.' },
  InvalidFlowId: { format: 'saved-flow', meaning: 'The flow id is not 1-64 characters of `[A-Za-z0-9-]`.' },
  UnsupportedSpecVersion: { format: 'saved-flow', meaning: '`spec_version` is not "1".' },
  MultipleEntryNodes: { format: 'saved-flow', meaning: 'More than one `entry` node.' },
  DuplicateNodeId: { format: 'saved-flow', meaning: 'Two nodes share an id.' },
  InvalidVendorNamespace: { format: 'saved-flow', meaning: 'A node type is neither a core type nor `vendor:name` with a valid vendor.' },
  DuplicateEdgeId: { format: 'saved-flow', meaning: 'Two edges share an id.' },
  DanglingEdgeSource: { format: 'saved-flow', meaning: 'An edge starts at a node that does not exist.' },
  DanglingEdgeTarget: { format: 'saved-flow', meaning: 'An edge ends at a node that does not exist.' },
  InvalidNodeData: { format: 'saved-flow', meaning: 'A reachable core node lacks what running it needs (a prompt without `prompt`, a branch without `condition`, …), or vendor data uses a reserved step key (compile time).' },
  InvalidCondition: { format: 'saved-flow', meaning: 'A branch condition parses as an expression but uses names the run does not have (compile time).' },
  UnmatchedBranchHandle: { format: 'saved-flow', meaning: 'An edge leaving a `branch` node that no decision can follow: no `source_handle`, or a handle the condition never decides (a yes/no question or a comparison decides "true"/"false", not "yes"/"no") (compile time).' },
  UnsupportedNodeType: { format: 'saved-flow', meaning: 'With `semantics: "reference"`, a reachable node that is not `entry` or `prompt` (compile time).' },
  InvalidSchedule: { format: 'saved-flow', meaning: 'An enabled flow in a store whose entry cannot be scheduled (no entry, an interval that is not positive, a cron that is not six valid fields).' },
  UnknownStep: { format: 'blocks', meaning: 'A step reference names no block.' },
  BlockWithoutStep: { format: 'blocks', meaning: 'A block is never referenced by the steps tree.' },
  DuplicateStepId: { format: 'blocks', meaning: 'A block is referenced twice, or a container id repeats or shadows a block id.' },
  InvalidStepId: { format: 'blocks', meaning: 'A block or container id that is empty or `__proto__`/`constructor`/`prototype`.' },
  EmptyContainer: { format: 'blocks', meaning: 'An `h`, `v` or `loop` container has no children.' },
  NestedTooDeep: { format: 'blocks', meaning: 'Containers nest more than 400 levels deep.' },
  UnknownContainerType: { format: 'blocks', meaning: 'A container `type` other than `h`, `v`, `loop`.' },
  MissingArrayField: { format: 'blocks', meaning: 'A loop without `arrayField` (or `array_field`).' },
  UnknownProcessorType: { format: 'blocks', meaning: 'A `processor_type` other than `llm`, `code`, `passthrough`.' },
  MissingPrompt: { format: 'blocks', meaning: 'An `llm` block without a prompt.' },
  MissingCodeBody: { format: 'blocks', meaning: 'A `code` block without a Python body in `content`.' },
  MissingOutputSchema: { format: 'blocks', meaning: 'An `llm` block without output fields (its output is a dict of them).' },
  InvalidFieldName: { format: 'blocks', meaning: 'A schema field name is not an identifier (it becomes a parameter or a dict key).' },
  DuplicateFieldName: { format: 'blocks', meaning: 'Two fields of one schema share a name.' },
  ReservedFieldName: { format: 'blocks', meaning: 'A code block input field named `initial` (the wrapper\'s first parameter).' },
  UnknownFieldType: { format: 'blocks', meaning: 'A field `type` this runtime cannot check.' },
  UnknownTemplateVariable: { format: 'blocks', meaning: 'A `{{name}}` in a prompt that the declared input (or global input) schema does not have.' },
  InvalidCode: { format: 'blocks', meaning: 'The Python body of a code block does not compile (compile time).' },
  BlockInputMismatch: { format: 'blocks', meaning: 'A code block whose `input_schema` fields are not the keys it will receive, when those are known before the run: the global input for the first step, an `llm` block\'s output fields, a `v` container\'s ids, a loop\'s list (compile time).' },
} as const satisfies Record<string, FlowRuleSpec>

export type FlowRule = keyof typeof FLOW_RULES

/** Errors a flow run ends with (`RunResult.error.code`), with the fix. */
export const FLOW_RUN_CODES = {
  FLOW_INVALID: { message: 'The flow document is invalid', hint: 'Run `ajsc flow validate <file>` (or validateSavedFlow / validateBlockFlow) and fix every problem.' },
  FLOW_NO_ENTRY: { message: 'The flow has no entry node, so there is nothing to run', hint: 'Add a node with node_type "entry" and an edge from it to the first step.' },
  FLOW_UNKNOWN_NODE_TYPE: { message: 'No atom implements this custom node type', hint: "Register it: runFlow(flow, input, { atoms: [defineAtom('vendor:name', …)] }) (CLI: ajsc flow run --atoms ./atoms.mjs, a module exporting them)." },
  FLOW_VISIT_BUDGET: { message: 'The flow visited more nodes than its budget (a cycle that never exits?)', hint: 'Give the cycle a branch that leaves it, or raise the `maxVisits` option (default 100).' },
  FLOW_LLM_OUTPUT: { message: 'The model did not answer with the required JSON, even after one corrective retry', hint: 'Simplify the output_schema, describe the fields, or use a model that supports structured output.' },
  FLOW_TEMPLATE: { message: 'A {{variable}} of the prompt is not in the block\'s input', hint: 'Produce that field in the previous block, or use {{initial.name}} for the flow\'s global input.' },
  FLOW_LOOP_INPUT: { message: 'A loop\'s input has no array in its arrayField', hint: 'Make the block before the loop output a dict whose arrayField is a list.' },
  FLOW_BLOCK_INPUT: { message: 'A code block received input that does not match its input_schema', hint: 'Make the previous block output exactly the fields of this block\'s input_schema (they are passed as keyword arguments).' },
} as const satisfies Record<string, { message: string; hint: string }>

export type FlowRunCode = keyof typeof FLOW_RUN_CODES
