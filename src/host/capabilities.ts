/**
 * The capabilities a host grants from its configuration (CLI flags, the
 * server's tenant config): a store, network access for named hosts only,
 * an OpenAI-compatible model. One builder, so `ajsc run` and `ajsc serve`
 * give the same program the same I/O for the same settings.
 */
import { createFetchCapability, createMemoryStore } from '../capabilities/index.ts'
import { createBatteryLLM } from '../batteries/index.ts'

export interface HostCapabilityConfig {
  /** The store (default: a new in-memory one; `false`: none). */
  store?: unknown
  /** Hosts the program may fetch from; with none (and no private hosts) there is no `fetch` capability. */
  fetch?: { allowedHosts?: readonly string[]; allowPrivateHosts?: readonly string[] }
  /** An OpenAI-compatible endpoint; without it there is no `llm` capability. */
  llm?: { baseUrl: string; model?: string; apiKey?: string; timeoutMs?: number }
}

export function hostCapabilities(config: HostCapabilityConfig = {}): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {}
  if (config.store !== false) capabilities['store'] = config.store ?? createMemoryStore()
  const allowed = config.fetch?.allowedHosts ?? []
  const priv = config.fetch?.allowPrivateHosts ?? []
  if (allowed.length > 0 || priv.length > 0) {
    capabilities['fetch'] = createFetchCapability({ allowedHosts: [...allowed], allowPrivateHosts: [...priv] })
  }
  const llm = config.llm
  if (llm) {
    capabilities['llm'] = createBatteryLLM({
      baseUrl: llm.baseUrl,
      model: llm.model ?? 'default',
      ...(llm.timeoutMs !== undefined ? { timeoutMs: llm.timeoutMs } : {}),
      ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
    })
  }
  return capabilities
}
