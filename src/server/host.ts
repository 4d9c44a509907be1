/**
 * The host runtime shared by `ajsc serve` and `ajsc worker`: tenants,
 * stores, the worker-thread pool and the bridge through which guest runs
 * reach their tenant's stores. No HTTP here.
 */
import { answerSeenTokens, budgetKeyOf, serverBudgetTokens } from './budget.ts'
import { MemorySeenTokens, type BudgetTokens, type SeenTokens } from '../codemode/budget-token.ts'
import { randomUUID } from 'node:crypto'
import type { ServeConfig } from './config.ts'
import { NO_ATOMS, atomsOfTenant, type ServerAtoms } from './atoms.ts'
import { BridgeHost, type BridgeMethod } from './pool/bridge.ts'
import { RunPool, type PoolOptions } from './pool/pool.ts'
import type { WorkerData } from './pool/task.ts'
import { ProcedureService } from './procedures.ts'
import { createMemoryStores } from './stores/memory.ts'
import type { ServerStores } from './stores/types.ts'
import { Tenants, type UsageLedger } from './tenants.ts'

export interface HostOptions {
  config: ServeConfig
  pool?: PoolOptions
  stores?: ServerStores
  usage?: UsageLedger
  /** Environment for capability secrets (LLM API keys named by apiKeyEnv). Default process.env. */
  env?: Readonly<Record<string, string | undefined>>
  /** The config's custom atoms, loaded by loadServerAtoms (required when config.atoms is not empty). */
  atoms?: ServerAtoms
  /** Spent budget tokens (PostgreSQL mode: shared by the deployment's processes); default in memory. */
  seenTokens?: SeenTokens
}

export interface Host {
  config: ServeConfig
  atoms: ServerAtoms
  stores: ServerStores
  tenants: Tenants
  procedures: ProcedureService
  pool: RunPool
  /** Budget tokens of the deployment (config budgetTokens): verifies tokens presented to this server, signs receipts. */
  budget?: BudgetTokens
  /** Called with the tenant when a workflow thread's budgetRun reaches the verdict that a token's run was lost (the server counts it). */
  onBudgetTokenLost(listener: (tenant: string) => void): void
  close(): Promise<void>
}

export function createHost(options: HostOptions): Host {
  const { config } = options
  const atoms = options.atoms ?? NO_ATOMS
  // The workers import config.atoms; the host must have loaded the same modules (a broken one fails here, not in a run).
  if (config.atoms.some((m) => !atoms.modules.includes(m))) throw new Error('createHost: the config names atom modules that were not loaded; pass atoms: await loadServerAtoms(config)')
  const stores = options.stores ?? createMemoryStores()
  const tenants = new Tenants(config, options.usage)
  const allowed = new Map(config.tenants.map((t) => [t.id, atomsOfTenant(atoms.atoms, t.atoms).map((a) => a.op)]))
  // The pool is made below (it needs the bridge, which needs the procedures): compilation reaches it through this cell.
  let poolRef: RunPool | undefined
  const procedures = new ProcedureService(stores, config.limits, (tenant) => allowed.get(tenant) ?? [], Date.now, tenants,
    (_tenant, source, file, atomNames, timeoutMs) => poolRef!.compile({ source, file, atoms: [...atomNames], maxAstNodes: config.limits.maxAstNodes, maxAstDepth: config.limits.maxAstDepth }, timeoutMs))
  const env = options.env ?? process.env
  const secrets: Record<string, string> = {}
  for (const t of config.tenants) {
    const name = t.capabilities.llm?.apiKeyEnv
    if (name && env[name] !== undefined) secrets[name] = env[name]!
  }
  const budgetConfig = config.budgetTokens
  const budgetKey = budgetConfig ? budgetKeyOf(budgetConfig, env) : undefined
  // One seen-set for the process: the HTTP spends and every thread's (through the bridge).
  const seen = budgetConfig ? options.seenTokens ?? new MemorySeenTokens(budgetConfig.maxSeen) : undefined
  const bridgeName = `ajs-serve-${randomUUID()}`
  const workerData: WorkerData = {
    bridge: bridgeName,
    tenants: Object.fromEntries(config.tenants.map((t) => [t.id, { context: t.context, capabilities: t.capabilities, timeoutMs: t.limits.timeoutMs, ...(t.atoms ? { atoms: t.atoms } : {}), ...(t.plan ? { plan: t.plan } : {}) }])),
    secrets,
    atomModules: atoms.modules,
    ...(atoms.mcp ? { mcpTools: atoms.mcp.tools } : {}),
    ...(budgetConfig && budgetKey ? { budget: { key: budgetKey, maxDepth: budgetConfig.maxDepth, maxTtlMs: budgetConfig.maxTtlMs, leaseGraceMs: budgetConfig.leaseGraceMs } } : {}),
  }
  const lostListeners: Array<(tenant: string) => void> = []
  const bridge = new BridgeHost(bridgeName, (tenant, method: BridgeMethod, args) => {
    // Spent budget tokens are the deployment's, not a tenant's: the tenant a thread names (a workflow's) only labels a lost verdict.
    if (method.startsWith('budget.')) {
      if (!seen) throw new Error('this server accepts no budget tokens')
      return answerSeenTokens(seen, method, args, () => { for (const l of lostListeners) l(tenant) })
    }
    if (!tenants.get(tenant)) throw new Error(`unknown tenant ${tenant}`)
    if (method === 'mcp.call') {
      // The worker only offers a tenant the tools it may call; the host checks again.
      const [op, input] = args as [string, Record<string, unknown>]
      if (!atoms.mcp || !allowed.get(tenant)?.includes(op)) throw new Error(`tenant ${tenant} may not call ${op}`)
      return atoms.mcp.call(op, input)
    }
    const [area, op] = method.split('.') as ['store' | 'procedures', string]
    const target = area === 'store' ? stores.memory(tenant) : procedures.vmStore(tenant)
    return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[op]!(...args)
  })
  const pool = new RunPool(options.pool ?? {}, workerData)
  poolRef = pool
  tenants.setPoolSize(pool.size)
  return {
    config, atoms, stores, tenants, procedures, pool,
    ...(budgetConfig && budgetKey ? { budget: serverBudgetTokens(budgetConfig, budgetKey, seen) } : {}),
    onBudgetTokenLost: (listener) => { lostListeners.push(listener) },
    async close() {
      await pool.close()
      bridge.close()
      await atoms.mcp?.close()
      await stores.close()
    },
  }
}
