/**
 * The runtime boundary's values, typed as their JSON: each type here is the
 * exact serde encoding of the matching Rust type of the workflow engine's
 * JavaScript runtime boundary (externally tagged enums, `#[serde(tag =
 * "type")]` for calls and requests, renamed fields, omitted `None`s). What
 * `poll()` returns can be sent over a JSON pipe as is, and what a host sends
 * back decodes with `decodeResolution`.
 */

/** `WorkflowBudgetSnapshot`: `total` is `null` when unlimited (serde `Option` → `null`). */
export interface BudgetSnapshot {
  total: number | null
  spent: number
}

/** `WorkflowRef` (untagged): a workflow name, or `{ "scriptPath": … }`. */
export type WorkflowRef = string | { scriptPath: string }

/** `WorkflowRuntimeCall` (`tag = "type"`): synchronous calls with no JavaScript-visible value. */
export type WorkflowCall =
  | { type: 'log'; values: unknown[] }
  | { type: 'phase'; name: string; options?: unknown }

/** `WorkflowRuntimeRequest` (`tag = "type"`): long-running requests the host resolves. */
export type WorkflowRequest =
  | { type: 'agent'; id: string; prompt: string; options?: unknown }
  | { type: 'workflow'; id: string; ref: WorkflowRef; args?: unknown }
  | { type: 'sleep'; id: string; durationMs: number }

export type WorkflowRequestKind = WorkflowRequest['type']

/** `WorkflowRuntimeRequestResolution` (externally tagged; `OkUndefined` is a unit variant). */
export type WorkflowResolution =
  | { Ok: unknown }
  | 'OkUndefined'
  | { OkWithBudget: { value: unknown; budget: BudgetSnapshot } }
  | { Err: { message: string; code?: string; transient?: boolean } }

/** `WorkflowModuleOutput`. */
export interface WorkflowOutput {
  result: unknown
  /** Ours (serde ignores it): the run ended with continueAsNew(args); start the next run of its chain with continueWorkflow. */
  continueAsNew?: { args: unknown }
}

/** `WorkflowRuntimePoll` (externally tagged; `Pending` is a unit variant). */
export type WorkflowPoll =
  | { Call: WorkflowCall }
  | { Request: WorkflowRequest }
  | { Complete: WorkflowOutput }
  | 'Pending'
