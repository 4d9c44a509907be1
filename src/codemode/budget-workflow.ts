/**
 * Budget tokens in a durable workflow (issue 25): `budgetToken` and
 * `budgetSettle` as custom atoms of the workflow, journaled by call site like
 * any other (src/workflows/engine/custom-atoms.ts), so that a replay neither
 * mints again nor spends again:
 *
 * - budgetToken's journaled value is the token. A replay hands it back
 *   without minting, and reserves its fuel and calls again from the run's
 *   meter, which the replay rebuilds from zero: the run holds the same
 *   reservation as before the crash, once.
 * - The child is another server, called by a custom atom of the host (its
 *   answer, receipt included, is journaled, so a replay does not call it
 *   again). A crash while that call runs repeats it with the same journaled
 *   token, which the server does not run again: once the first run has ended
 *   it answers with that run's receipt (BUDGET_TOKEN_ANSWERED), which the
 *   workflow settles; while it runs, BUDGET_TOKEN_IN_FLIGHT (retry later).
 * - budgetSettle's value is journaled too; a replay settles again from the
 *   same receipt (deterministic), giving the unused fuel back once.
 *
 * - budgetRun (offered when the host gives a runner: the VM that runs the
 *   sub-runs) is journaled too: its value ({ result, error?, fuelUsed,
 *   receipt }) is handed back on replay without running the child again,
 *   and the token counts as spent by the run from then on (a later call
 *   with it is BUDGET_TOKEN_REPLAYED even where the seen-set is new, as in
 *   a new process). The token is spent as a server spends it
 *   (spendOrRecall): a call repeated after a crash while the sub-run ran
 *   gets the first sub-run's receipt once it ended (reported as the
 *   child's error BUDGET_TOKEN_ANSWERED, with that receipt, to settle),
 *   BUDGET_TOKEN_IN_FLIGHT while it runs; where the seen-set died with the
 *   process, the child runs again (at least once, like any custom atom).
 *   With `maxSubRunMs` a sub-run takes at most that, and its spend's lease
 *   ends that plus `leaseGraceMs` after the spend: a repeat after it, of a
 *   sub-run whose process died with no receipt kept (the seen-set being
 *   shared, as a server's in PostgreSQL), gets BUDGET_TOKEN_LOST with a
 *   receipt of the whole grant to settle, rather than in flight until the
 *   token expires.
 *
 * The state of each run (the tokens it minted and spent) is kept per VM run.
 * The workflow threads of `ajsc serve` give every workflow the three when the
 * config has budgetTokens, budgetRun's runner being the tenant's VM
 * (src/server/pool/workflow-thread.ts).
 */
import { runOf } from '../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../vm/atoms/types.ts'
import type { Run } from '../vm/runtime.ts'
import { asVmError, budgetCapability, budgetRunAtom, budgetSettleAtom, budgetTokenAtom, keptSubRun, reserve, runnerOf, type BudgetCapability, type BudgetRunner, type SubRunInput, type SubRunOutcome } from './budget-atoms.ts'
import { BudgetTokenError, DEFAULT_LEASE_GRACE_MS, type BudgetTokens } from './budget-token.ts'

type Fn = (input: unknown, ctx: AtomContext) => unknown

export interface WorkflowBudgetOptions {
  /** Runs budgetRun's sub-runs (an AgentVM with the atoms they may call); absent: budgetRun is not offered. */
  runner?: BudgetRunner
  /** Run options every sub-run gets (limits, maxHeapBytes, ...). */
  runOptions?: Record<string, unknown>
  /** The longest a sub-run may take (default: until its token's deadline); its token's lease ends this plus `leaseGraceMs` after the spend. */
  maxSubRunMs?: number
  /** Added to `maxSubRunMs` for the lease: the time to stop the sub-run and keep its receipt, and clock skew (default 5,000). */
  leaseGraceMs?: number
}

/** One VM run's budget state: its capability, and the tokens its budgetRun calls spent (rebuilt by a replay). */
interface RunBudget { cap: BudgetCapability; spent: Set<string> }

/**
 * The workflow's budgetToken and budgetSettle, minting and settling with `tokens`, and with a `runner`
 * budgetRun (give them as the workflow's atoms).
 */
export function workflowBudgetAtoms(tokens: BudgetTokens, options: WorkflowBudgetOptions = {}): AtomDef[] {
  const runs = new WeakMap<Run, RunBudget>()
  const stateOf = (ctx: AtomContext): RunBudget => {
    const rt = runOf(ctx)
    let state = runs.get(rt)
    if (!state) runs.set(rt, (state = { cap: budgetCapability(tokens, options), spent: new Set() }))
    return state
  }
  // The atoms read their capability from the context: one per VM run, made on its first call.
  const withBudget = (ctx: AtomContext): AtomContext =>
    Object.create(ctx, { capabilities: { value: Object.freeze({ ...ctx.capabilities, budget: stateOf(ctx).cap }) } }) as AtomContext
  const mint = budgetTokenAtom.fn as Fn
  const settle = budgetSettleAtom.fn as Fn
  const atoms: AtomDef[] = [
    {
      ...budgetTokenAtom,
      fn: (input, ctx) => mint(input, withBudget(ctx)),
      replayed: (token: unknown, _input: unknown, ctx: AtomContext) => {
        const inner = withBudget(ctx)
        let claims
        try {
          claims = tokens.read(token) // a key changed since: BUDGET_TOKEN_INVALID
        } catch (e) {
          throw asVmError(e, ctx.op)
        }
        reserve(inner, inner.capabilities.budget as BudgetCapability, claims)
      },
    } as AtomDef,
    {
      ...budgetSettleAtom,
      fn: (input, ctx) => settle(input, withBudget(ctx)),
      replayed: (_value: unknown, input: unknown, ctx: AtomContext) => { settle(input, withBudget(ctx)) },
    } as AtomDef,
  ]
  if (options.runner) {
    const leaseMs = options.maxSubRunMs === undefined ? undefined : options.maxSubRunMs + (options.leaseGraceMs ?? DEFAULT_LEASE_GRACE_MS)
    atoms.push({
      ...budgetRunAtom,
      fn: (input: SubRunInput, ctx: AtomContext) => runSpending(tokens, stateOf(ctx), input, withBudget(ctx), leaseMs),
      // The journaled sub-run is not run again; its token stays spent by this run.
      replayed: (_value: unknown, input: SubRunInput, ctx: AtomContext) => {
        try {
          stateOf(ctx).spent.add(tokens.read(input.token).id)
        } catch (e) {
          throw asVmError(e, ctx.op)
        }
      },
    } as AtomDef)
  }
  return atoms
}

/** budgetRun in a workflow: spent once per run (the journal's word) and once per seen-set, a repeated call answered with the first receipt. */
async function runSpending(tokens: BudgetTokens, state: RunBudget, input: SubRunInput, ctx: AtomContext, leaseMs: number | undefined): Promise<SubRunOutcome> {
  const cap = state.cap
  runnerOf(cap, ctx.op)
  let claims
  try {
    claims = tokens.verify(input.token)
  } catch (e) {
    throw asVmError(e, ctx.op)
  }
  const id = claims.id
  if (state.spent.has(id)) throw asVmError(new BudgetTokenError('BUDGET_TOKEN_REPLAYED', `The budget token ${id} was already spent by this workflow`), ctx.op)
  state.spent.add(id)
  try {
    claims = await tokens.spendOrRecall(input.token, leaseMs === undefined ? {} : { leaseMs })
  } catch (e) {
    if (e instanceof BudgetTokenError && e.receipt !== undefined) {
      // Spent by this call before a crash, and that sub-run has ended (or was lost: the whole grant): its receipt, to settle what it used.
      return { result: null, error: { code: e.code, message: e.message }, fuelUsed: tokens.readReceipt(e.receipt).used, receipt: e.receipt }
    }
    state.spent.delete(id) // not spent by this call (in flight elsewhere, the seen-set full): a later call may try again
    throw asVmError(e, ctx.op)
  }
  // Stopped by the host meanwhile (the step's time limit): it throws, nothing is journaled, and a repeat of the call gets the kept receipt.
  return keptSubRun(ctx, cap, input, claims)
}
