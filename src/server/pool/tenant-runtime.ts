/**
 * A tenant's VM in a thread of the server (a pool worker's runs, a workflow
 * thread's budgetRun sub-runs): its batteries, the server's custom and MCP
 * atoms it may call, the budget atoms when the deployment has budget tokens,
 * and its capabilities (agent memory and procedures through the host bridge,
 * its fetch hosts and LLM endpoint from the serve config). Made once per
 * tenant per thread.
 */
import { AgentVM } from '../../full-vm.ts'
import { batteryAtoms } from '../../batteries/index.ts'
import { budgetAtoms } from '../../codemode/budget-atoms.ts'
import type { PlanPolicy } from '../../codemode/policy.ts'
import { assembleVM } from '../../host/assemble.ts'
import { hostCapabilities } from '../../host/capabilities.ts'
import type { AtomDef } from '../../vm/atoms/types.ts'
import type { ProcedureStore } from '../../vm/procedures.ts'
import { atomsOfTenant } from '../atoms.ts'
import { mcpProxyAtoms } from '../mcp.ts'
import type { BridgeClient, BridgeMethod } from './bridge.ts'
import type { WorkerData, WorkerTenant } from './task.ts'

export interface TenantRuntime {
  vm: AgentVM
  capabilities: Record<string, unknown>
  context: Record<string, unknown>
  plan?: PlanPolicy
}

/** The tenants' runtimes of one thread, made on first use. */
export function tenantRuntimes(data: WorkerData, bridge: BridgeClient): (tenantId: string, custom: readonly AtomDef[]) => TenantRuntime {
  const runtimes = new Map<string, TenantRuntime>()
  return (tenantId, custom) => {
    let rt = runtimes.get(tenantId)
    if (rt) return rt
    const tenant: WorkerTenant = data.tenants[tenantId] ?? { context: {}, capabilities: {} }
    const call = (method: BridgeMethod) => (...args: unknown[]) => bridge.call(tenantId, method, args)
    const procedures: ProcedureStore = {
      get: call('procedures.get') as ProcedureStore['get'],
      set: call('procedures.set') as ProcedureStore['set'],
      delete: call('procedures.delete') as ProcedureStore['delete'],
      clearExpired: call('procedures.clearExpired') as ProcedureStore['clearExpired'],
    }
    const { fetch, llm } = tenant.capabilities
    const apiKey = llm?.apiKeyEnv ? data.secrets[llm.apiKeyEnv] : undefined
    const capabilities = hostCapabilities({
      store: {
        get: call('store.get'), set: call('store.set'), delete: call('store.delete'), has: call('store.has'),
        query: call('store.query'), vectorSearch: call('store.vectorSearch'), addVector: call('store.addVector'),
      },
      ...(fetch ? { fetch: { allowedHosts: fetch.allowedHosts, allowPrivateHosts: fetch.allowPrivateHosts ?? [] } } : {}),
      ...(llm ? { llm: { baseUrl: llm.baseUrl, model: llm.model ?? 'default', ...(apiKey ? { apiKey } : {}) } } : {}),
    })
    // As in `ajsc run --atoms`: a custom atom named like a battery replaces it. The full entry's VM
    // loads the runtime libraries a program declares (Python, flows) on first use.
    // MCP tools: proxies whose calls the host makes (it holds the one connection to each server).
    const mcp = mcpProxyAtoms(data.mcpTools ?? [], (op, input) => bridge.call(tenantId, 'mcp.call', [op, input]))
    // Budget tokens (config budgetTokens): every tenant's runs may mint and settle them.
    const base = data.budget ? [...batteryAtoms, ...budgetAtoms] : batteryAtoms
    const vm = assembleVM<AgentVM>({ VM: AgentVM, baseAtoms: base, atoms: atomsOfTenant([...custom, ...mcp], tenant.atoms), procedures })
    rt = { vm, capabilities, context: tenant.context, ...(tenant.plan ? { plan: tenant.plan } : {}) }
    runtimes.set(tenantId, rt)
    return rt
  }
}
