/**
 * What crosses the thread boundary: a run task (strings and small plain
 * data, so structured clone stays cheap) and the worker's start-up data.
 */
import type { TenantCapabilities } from '../config.ts'

export interface RunTask {
  tenant: string
  /** Cache key of `astText` for stored procedures (its SHA-256); other ASTs are keyed by their text. */
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
  /**
   * Shared with the host: [0] is the interrupt flag (the host sets 1 to stop the run), [1] the
   * worker thread's OS thread id, written when the run starts (the host lowers the CPU priority
   * of a thread whose run takes long, so one tenant's loop cannot slow the others' runs).
   */
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
