/**
 * The tenant's plan policy (config `tenants[].plan`) applied before work is
 * accepted, for the requests that would otherwise be accepted first and
 * refused later: async runs (`POST /v1/runs?async=1`) and workflows
 * (`POST /v1/workflows`). A plan is static, so a program that exceeds the
 * policy is refused at once, 422 PLAN_REFUSED, as a sync run is, and never
 * gets a record. The check itself runs in a pool thread (the program is
 * guest data; the event loop only waits); sync runs are checked by the
 * worker that runs them (src/server/pool/worker.ts).
 */
import { HttpError } from './errors.ts'
import type { RunPool } from './pool/pool.ts'
import type { PlanTask } from './pool/task.ts'
import type { Tenants } from './tenants.ts'

/**
 * What a workflow program's own atoms (src/workflows/engine/atoms.ts) are for its plan: `agent` asks
 * the tenant's model (or a person), `workflow` starts a child workflow; the rest only read or record
 * the workflow's own state. Given to analyzeProgram with the tenant's atoms.
 */
interface PlanAtom { op: string; effects: 'pure' | 'io'; reaches?: 'model' | 'subAgent' }
export const WORKFLOW_PLAN_ATOMS: Readonly<Record<string, PlanAtom>> = Object.fromEntries(([
  { op: 'agent', effects: 'io', reaches: 'model' }, { op: 'workflow', effects: 'io', reaches: 'subAgent' },
  { op: 'sleep', effects: 'io' }, { op: 'signal', effects: 'io' }, { op: 'continueAsNew', effects: 'io' },
  ...['log', 'phase', 'expose', 'patched', 'upsertAttributes', 'budgetTotal', 'budgetSpent', 'budgetRemaining', 'workflowArgs', 'workflowTasks'].map((op) => ({ op, effects: 'pure' as const })),
] as PlanAtom[]).map((a) => [a.op, a]))

/** Throws the 422 PLAN_REFUSED HttpError when the program exceeds its tenant's plan policy; resolves otherwise. */
export type PlanGate = (program: PlanTask) => Promise<void>

export function planGate(pool: Pick<RunPool, 'checkPlan'>, tenants: Tenants): PlanGate {
  return async (program) => {
    const tenant = tenants.get(program.tenant)
    if (!tenant?.config.plan) return
    const out = await pool.checkPlan(program, tenant.config.limits.timeoutMs)
    if ('error' in out) throw new HttpError(out.error.code as HttpError['code'], out.error.message, out.error.agentError ? { agentError: out.error.agentError } : {})
    if ('refused' in out && out.refused) throw new HttpError('PROGRAM_REJECTED', out.refused.message, { agentError: out.refused })
  }
}
