/**
 * What crosses the thread boundary: a run task (strings and small plain
 * data, so structured clone stays cheap) and the worker's start-up data.
 */
import type { TenantCapabilities } from '../config.ts'
import type { RunRequest } from '../stores/types.ts'

/** A run request (key: the SHA-256 of `astText` for stored procedures, other ASTs keyed by their text; exactly one of astText and source) as a pool thread receives it. */
export interface RunTask extends RunRequest {
  tenant: string
  maxAstNodes: number
  maxAstDepth: number
  /** When the host accepted the run (ms): the time limit counts from here, queueing included. */
  acceptedAt?: number
  /** Shared with the host: [0] is the interrupt flag (the host sets 1 to stop the run); set by the worker from its slot (run-protocol.ts). */
  interrupt?: Int32Array
  /** The run's maxHeapBytes (set by the pool from the worker's heap: src/server/pool/heap.ts). */
  maxHeapBytes?: number
  /** Replay/resume journal data for workflow steps (opaque to the pool). */
  extra?: Record<string, unknown>
  /** A run a budget token pays for: its nesting depth (the tokens it mints are one deeper) and the token's quotas. */
  budget?: { depth: number; quotas?: Record<string, number> }
}

/** Compiling a tenant's source in a pool thread (issue 23, class 2): never on the server's event loop. */
export interface CompileTask {
  source: string
  file: string
  /** The atoms the source may call (batteries are added by the worker). */
  atoms: string[]
  maxAstNodes: number
  maxAstDepth: number
}

/** Compiling a workflow module in a pool thread (POST /v1/workflows, and a step of a source this process has not compiled). */
export interface WorkflowCompileTask {
  source: string
  sourceName: string
  /** The custom atoms the module may call, by name (the worker uses its own definitions of them, for their fields). */
  atoms: string[]
  maxAstNodes: number
  maxAstDepth: number
}

/** A compiled workflow program (WorkflowProgram) as JSON text, or the refusal as the server would answer it. */
export type WorkflowCompileOutcome =
  | { programText: string }
  | { error: { code: string; message: string; agentError?: import('../../vm/errors.ts').AgentError } }

/** Checking a program against its tenant's plan policy before an async run or a workflow is accepted (the program as a run task names it). */
export type PlanTask = Pick<RunTask, 'tenant' | 'astText' | 'source' | 'key'> & {
  /** A workflow's program: its own atoms (agent, workflow, sleep, ...) are part of its plan. */
  workflow?: boolean
}

/** The plan check's verdict: nothing (the plan satisfies the policy, or the tenant has none) or the refusal (PLAN_REFUSED). */
export type PlanOutcome = { refused?: import('../../vm/errors.ts').AgentError }

/** A compiled, validated program as JSON text, or the refusal as the server would answer it. */
export type CompileOutcome =
  | { astText: string }
  | { error: { code: string; message: string; agentError?: import('../../vm/errors.ts').AgentError } }

export interface WorkerTenant {
  context: Record<string, unknown>
  capabilities: TenantCapabilities
  /** The custom atoms this tenant may call, by name (absent: all of them). */
  atoms?: string[]
  /** The tenant's plan policy (config `tenants[].plan`), checked before each run. */
  plan?: import('../../codemode/policy.ts').PlanPolicy
  /** The tenant's limits.timeoutMs: a workflow step's time, which bounds budgetRun's sub-runs in it (their tokens' lease). */
  timeoutMs: number
}

export interface WorkerData {
  /** The thread's control words shared with the main thread (run-protocol.ts); set per thread by run-threads.ts. */
  control?: SharedArrayBuffer
  /** BroadcastChannel name of the host bridge. */
  bridge: string
  tenants: Record<string, WorkerTenant>
  /** Environment values the tenants' capabilities name (LLM API keys), read by the host. */
  secrets: Record<string, string>
  /** Absolute paths of the host modules of custom atoms: each worker imports them itself (functions cannot cross threads). */
  atomModules: string[]
  /** The MCP servers' tools (the host is connected to the servers; workers proxy calls over the bridge). */
  mcpTools?: import('../mcp.ts').McpToolInfo[]
  /** Budget tokens (config budgetTokens, key from its keyEnv): runs get the budget atoms and capability. */
  budget?: { key: string; maxDepth: number; maxTtlMs: number; leaseGraceMs: number }
}
