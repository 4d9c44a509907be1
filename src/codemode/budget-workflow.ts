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
 * budgetRun is not offered: a local sub-run inside one journaled call would
 * not be journaled step by step (use a child workflow, or another server).
 * The state of each run (the tokens it minted) is kept per VM run. The
 * workflow threads of `ajsc serve` give every workflow these atoms when the
 * config has budgetTokens (src/server/pool/workflow-thread.ts).
 */
import { runOf } from '../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../vm/atoms/types.ts'
import type { Run } from '../vm/runtime.ts'
import { asVmError, budgetCapability, budgetSettleAtom, budgetTokenAtom, reserve, type BudgetCapability } from './budget-atoms.ts'
import type { BudgetTokens } from './budget-token.ts'

type Fn = (input: unknown, ctx: AtomContext) => unknown

/** The workflow's budgetToken and budgetSettle, minting and settling with `tokens` (give them as the workflow's atoms). */
export function workflowBudgetAtoms(tokens: BudgetTokens): AtomDef[] {
  const caps = new WeakMap<Run, BudgetCapability>()
  // The atoms read their capability from the context: one per VM run, made on its first call.
  const withBudget = (ctx: AtomContext): AtomContext => {
    const rt = runOf(ctx)
    let cap = caps.get(rt)
    if (!cap) caps.set(rt, (cap = budgetCapability(tokens)))
    return Object.create(ctx, { capabilities: { value: Object.freeze({ ...ctx.capabilities, budget: cap }) } }) as AtomContext
  }
  const mint = budgetTokenAtom.fn as Fn
  const settle = budgetSettleAtom.fn as Fn
  return [
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
}
