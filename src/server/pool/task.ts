/**
 * What crosses the thread boundary: a run task (strings and small plain
 * data, so structured clone stays cheap) and the worker's start-up data.
 */
import type { TenantCapabilities } from '../config.ts'

export interface RunTask {
  tenant: string
  /** Cache key of `astText` (its SHA-256): a worker parses and compiles a program once. */
  key?: string
  /** The program as JSON text (exactly one of astText and source). */
  astText?: string
  source?: string
  args: unknown
  fuel: number
  timeoutMs: number
  trace: boolean
  maxAstNodes: number
  maxAstDepth: number
  /** When the host accepted the run (ms): the time limit counts from here, queueing included. */
  acceptedAt?: number
  /** Set to 1 by the host to stop the run (client gone, deadline passed). */
  interrupt?: Int32Array
  /** Replay/resume journal data for workflow steps (opaque to the pool). */
  extra?: Record<string, unknown>
}

export interface WorkerTenant {
  context: Record<string, unknown>
  capabilities: TenantCapabilities
}

export interface WorkerData {
  /** BroadcastChannel name of the host bridge. */
  bridge: string
  tenants: Record<string, WorkerTenant>
  /** Environment values the tenants' capabilities name (LLM API keys), read by the host. */
  secrets: Record<string, string>
}
