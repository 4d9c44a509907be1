/**
 * Budget tokens inside a run: three atoms and the capability behind them.
 *
 * - `budgetToken({ fuel, timeoutMs?, quotas? })` mints a token from what the
 *   run has left and reserves it: the fuel is charged at once, and so are the
 *   calls its quotas grant (counted where the run's own `quotas` count them),
 *   so the parent cannot spend what it handed out. Every atom the run has a
 *   quota for is in the token (0 calls unless asked), so a child never gets
 *   more of an atom than its parent had left. The deadline is at most the run's own.
 * - `budgetRun({ agentId, input, token })` runs a procedure token or AST in
 *   this VM as a sub-run under a token (verified and spent as a server would:
 *   forged, expired, replayed and too deep tokens are refused), with its own
 *   meter, and returns `{ result, error?, fuelUsed, receipt }`.
 * - `budgetSettle({ receipt })` settles a token minted by this run with the
 *   signed receipt of the sub-run (from budgetRun, or the
 *   `x-ajs-budget-receipt` header of another `ajsc serve`): the unused part
 *   of the reservation (fuel, and calls per atom) comes back, so the parent is
 *   charged exactly what the child used. A token never settled stays charged in full.
 *
 * The host gives the capability (`capabilities.budget = budgetCapability(...)`)
 * per run; it holds the deployment's key and the run's nesting depth.
 */
import { VmError } from '../vm/errors.ts'
import { defineAtom, runOf } from '../vm/atoms/define.ts'
import type { AtomContext, AtomDef } from '../vm/atoms/types.ts'
import { fromUnits, toUnits } from '../vm/fuel.ts'
import type { RunResult } from '../vm/result.ts'
import type { Run } from '../vm/runtime.ts'
import { BudgetTokenError, type BudgetClaims, type BudgetTokens } from './budget-token.ts'

/** What budgetRun needs of the VM: AgentVM's `run`. */
export interface BudgetRunner {
  run(program: unknown, args?: Record<string, unknown>, options?: Record<string, unknown>): Promise<RunResult>
}

/** The per-run state behind the budget atoms. */
export interface BudgetCapability {
  readonly tokens: BudgetTokens
  /** Nesting depth of this run (0: a run no token paid for). */
  readonly depth: number
  /** Tokens this run minted and has not settled: id -> the fuel and calls per atom reserved. */
  readonly outstanding: Map<string, Reservation>
  /** Runs budgetRun's sub-runs; absent: budgetRun is refused. */
  readonly runner?: BudgetRunner
  /** Run options every sub-run gets (limits, maxHeapBytes, ...); fuel, timeoutMs, capabilities and context are set per sub-run. */
  readonly runOptions?: Record<string, unknown>
  /**
   * The longest budgetRun's sub-run may take (default: until its token's deadline). A host whose work is
   * bounded (a server's workflow step: the tenant's limits.timeoutMs) bounds its sub-runs alike, so that
   * the lease of the token they spend ends there (budget-workflow.ts).
   */
  readonly maxSubRunMs?: number
}

/** What an unsettled token holds back from the run that minted it. */
export interface Reservation {
  fuel: number
  quotas?: Record<string, number>
}

/** The capability of one run (a new one per run: it tracks the tokens the run minted). */
export function budgetCapability(tokens: BudgetTokens, options: { depth?: number; runner?: BudgetRunner; runOptions?: Record<string, unknown>; maxSubRunMs?: number } = {}): BudgetCapability {
  return {
    tokens, depth: options.depth ?? 0, outstanding: new Map(), ...(options.runner ? { runner: options.runner } : {}), ...(options.runOptions ? { runOptions: options.runOptions } : {}),
    ...(options.maxSubRunMs !== undefined ? { maxSubRunMs: options.maxSubRunMs } : {}),
  }
}

const HINT_CAPABILITY = 'Give the run a budget capability: capabilities.budget = budgetCapability(new BudgetTokens({ key })) (library), or set "budgetTokens" in the serve config.'

function capOf(ctx: AtomContext): BudgetCapability {
  const cap = ctx.capabilities.budget as BudgetCapability | undefined
  if (!cap || typeof cap !== 'object' || !cap.tokens) throw new VmError('CAPABILITY_MISSING', `${ctx.op}: budget tokens are not configured for this run`, { op: ctx.op, hint: HINT_CAPABILITY })
  return cap
}

/** A BudgetTokenError as the run's catchable error. */
export function asVmError(e: unknown, op: string): unknown {
  return e instanceof BudgetTokenError ? new VmError(e.code, e.message, { op, ...(e.hint ? { hint: e.hint } : {}) }) : e
}

const fuelField = { type: 'number', minimum: 0, description: 'Fuel the sub-run may use (reserved from this run now).' }
const quotasField = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, description: 'Calls per atom the sub-run may make.' }

/**
 * budgetToken's cost: 1, plus the reservation it charges itself. A function, so a program's plan
 * (analyzeProgram) counts its fuel as depending on the input: a `maxFuel` policy cannot be passed
 * by handing the work to sub-runs.
 */
const RESERVES = (): number => 1

export const budgetTokenAtom = defineAtom('budgetToken', {
  type: 'object', required: ['fuel'], additionalProperties: false,
  properties: { fuel: fuelField, timeoutMs: { type: 'number', exclusiveMinimum: 0, description: 'The sub-run\'s time limit (default: what this run has left).' }, quotas: quotasField },
}, { type: 'string' }, (input: { fuel: number; timeoutMs?: number; quotas?: Record<string, number> }, ctx) => {
  const cap = capOf(ctx)
  const rt = runOf(ctx)
  try {
    // What the run can still spend: its budget less what it used (an agentRun child's own lease is
    // smaller; charging leases the rest from its parent). Asking for more is a catchable error.
    const left = fromUnits(Math.max(0, rt.budget - rt.fuelUsedUnits))
    if (input.fuel > left) {
      throw new VmError('RANGE_ERROR', `budgetToken: ${input.fuel} fuel asked, ${left} left in this run`, { op: ctx.op, hint: 'Mint a token of at most what the run has left, or give the run more fuel.' })
    }
    const quotas = tokenQuotas(rt, input.quotas, ctx.op)
    const now = ctx.now()
    const exp = Math.min(rt.deadline, input.timeoutMs === undefined ? Infinity : now + input.timeoutMs)
    const { token, claims } = cap.tokens.mint({ fuel: input.fuel, exp: Number.isFinite(exp) ? exp : now + cap.tokens.maxTtlMs, depth: cap.depth + 1, ...(quotas ? { quotas } : {}) })
    reserve(ctx, cap, claims)
    return token
  } catch (e) {
    throw asVmError(e, ctx.op)
  }
}, { cost: RESERVES, timeoutMs: 0, sync: true, effects: 'io', docs: 'Mint a signed budget token from what this run has left (the fuel is reserved until budgetSettle). Pass it to budgetRun, or to another ajsc serve of the deployment (header x-ajs-budget).' })

export const budgetSettleAtom = defineAtom('budgetSettle', {
  type: 'object', required: ['receipt'], additionalProperties: false, properties: { receipt: { type: 'string', description: 'The sub-run\'s signed receipt.' } },
}, {
  type: 'object', required: ['id', 'fuel', 'used', 'returned'],
  properties: {
    id: { type: 'string' }, fuel: { type: 'number' }, used: { type: 'number' }, returned: { type: 'number', description: 'Fuel given back to this run.' },
    calls: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Calls the sub-run made of each atom the token carried a quota for (charged to this run; the rest given back).' },
  },
}, (input: { receipt: string }, ctx) => {
  const cap = capOf(ctx)
  try {
    const usage = cap.tokens.readReceipt(input.receipt)
    const reserved = cap.outstanding.get(usage.id)
    if (reserved === undefined) {
      throw new VmError('BUDGET_RECEIPT_INVALID', `budgetSettle: token ${usage.id} was not minted by this run, or is already settled`, { op: ctx.op, hint: 'Settle each token this run minted once, with its own receipt.' })
    }
    if (usage.fuel !== reserved.fuel) throw new VmError('BUDGET_RECEIPT_INVALID', `budgetSettle: the receipt grants ${usage.fuel} fuel; token ${usage.id} reserved ${reserved.fuel}`, { op: ctx.op })
    const calls = callsUsed(reserved, usage.calls, usage.id, ctx.op)
    cap.outstanding.delete(usage.id)
    const returned = refund(ctx, reserved.fuel - usage.used)
    const rt = runOf(ctx)
    for (const [op, n] of Object.entries(reserved.quotas ?? {})) rt.addCalls(op, calls![op]! - n)
    return { id: usage.id, fuel: usage.fuel, used: usage.used, returned, ...(calls ? { calls } : {}) }
  } catch (e) {
    throw asVmError(e, ctx.op)
  }
}, { cost: 1, timeoutMs: 0, sync: true, effects: 'io', docs: 'Settle a budget token this run minted with the sub-run\'s signed receipt: the fuel it did not use comes back to this run.' })

/** budgetRun's input. */
export interface SubRunInput { agentId: unknown; input?: Record<string, unknown>; token: string }

/** What budgetRun answers: the sub-run's result (or its error: reported, not thrown), the fuel it used, and the signed receipt to settle. */
export interface SubRunOutcome { result: unknown; error?: { code: string; message: string }; fuelUsed: number; receipt: string }

/** The capability's runner; CAPABILITY_MISSING when the host runs no local sub-runs. */
export function runnerOf(cap: BudgetCapability, op: string): BudgetRunner {
  if (!cap.runner) throw new VmError('CAPABILITY_MISSING', `${op}: this host runs no local sub-runs`, { op, hint: 'Give budgetCapability a runner (the AgentVM), or send the token to a server.' })
  return cap.runner
}

/**
 * The sub-run under a spent token, its receipt then kept with the spent id (a sub-run that threw, whose use is
 * unknown: the whole token) where the seen-set keeps receipts, so a repeat of the spend (a server's retry, a workflow's call after a crash) is
 * answered with it. Then a host that stopped this run meanwhile (an interrupt they share, a deadline) stops
 * it: the sub-run's value is not used (a workflow would journal it and go on past its step's time limit).
 */
export async function keptSubRun(ctx: AtomContext, cap: BudgetCapability, input: SubRunInput, claims: BudgetClaims): Promise<SubRunOutcome> {
  let out: SubRunOutcome | undefined
  try {
    out = await subRun(ctx, cap, input, claims)
  } finally {
    // Best effort: a seen-set that cannot keep it (a database error) must not lose the sub-run's answer; a
    // repeat of the spend is then refused as in flight until its lease ends (the token's deadline without one), then lost.
    await cap.tokens.answered(claims, out?.receipt ?? cap.tokens.receipt(claims, claims.fuel, claims.quotas)).catch(() => {})
  }
  runOf(ctx).checkTime()
  return out
}

/** budgetRun's work once the token is spent: the sub-run under its claims, with its own meter, and its receipt. */
async function subRun(ctx: AtomContext, cap: BudgetCapability, input: SubRunInput, claims: BudgetClaims): Promise<SubRunOutcome> {
  const runner = runnerOf(cap, ctx.op)
  const timeoutMs = Math.max(1, Math.min(claims.exp - ctx.now(), cap.maxSubRunMs ?? Infinity))
  const child = budgetCapability(cap.tokens, { depth: claims.depth, runner, ...(cap.runOptions ? { runOptions: cap.runOptions } : {}) })
  // The sub-run's own ledger: the calls it makes (its agentRun children's too) go into its receipt.
  const calls: Record<string, number> = {}
  const result = await runner.run(input.agentId, input.input ?? {}, {
    ...cap.runOptions, fuel: claims.fuel, timeoutMs, signal: ctx.signal,
    // The host's capabilities for sub-runs (runOptions), then the run's own (where a run passes its own, as a pool run does).
    capabilities: { ...(cap.runOptions?.['capabilities'] as Record<string, unknown> | undefined), ...ctx.capabilities, budget: child }, context: ctx.context,
    ...(claims.quotas ? { quotas: claims.quotas, quotaUsed: calls } : {}),
  })
  return { result: result.result ?? null, ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}), fuelUsed: result.fuelUsed, receipt: cap.tokens.receipt(claims, result.fuelUsed, calls) }
}

/** `reaches: 'subAgent'`: a program's plan (analyzeProgram) counts it as reaching a sub-agent, like agentRun. */
export const budgetRunAtom = Object.assign(defineAtom('budgetRun', {
  type: 'object', required: ['agentId', 'token'], additionalProperties: false,
  properties: {
    agentId: { description: 'A procedure token (proc_...) or an AST.' },
    input: { type: 'object', description: 'The sub-run\'s arguments.' },
    token: { type: 'string', description: 'A budget token (budgetToken).' },
  },
}, {
  type: 'object', required: ['result', 'fuelUsed', 'receipt'],
  properties: { result: {}, error: { type: 'object' }, fuelUsed: { type: 'number' }, receipt: { type: 'string' } },
}, async (input: SubRunInput, ctx) => {
  const cap = capOf(ctx)
  runnerOf(cap, ctx.op)
  let claims
  try {
    claims = await cap.tokens.spend(input.token)
  } catch (e) {
    throw asVmError(e, ctx.op)
  }
  return keptSubRun(ctx, cap, input, claims)
}, { cost: 1, timeoutMs: 0, effects: 'io', docs: 'Run a procedure token or AST here as a sub-run under a budget token: it gets the token\'s fuel, deadline and quotas. Returns { result, error?, fuelUsed, receipt }; settle with budgetSettle.' }), { reaches: 'subAgent' as const })

/** The budget atoms (give the run `capabilities.budget` too). */
export const budgetAtoms: AtomDef[] = [budgetTokenAtom, budgetSettleAtom, budgetRunAtom]

/** Their names: reserved for them (a host's own atom of one of these names is refused). */
export const BUDGET_ATOM_NAMES: ReadonlySet<string> = new Set(budgetAtoms.map((a) => a.op))

/** The reservation of a minted token: the run cannot spend its fuel nor its calls until the sub-run settles. */
export function reserve(ctx: AtomContext, cap: BudgetCapability, claims: BudgetClaims): void {
  ctx.charge(claims.fuel)
  const rt = runOf(ctx)
  for (const [op, n] of Object.entries(claims.quotas ?? {})) rt.addCalls(op, n)
  cap.outstanding.set(claims.id, { fuel: claims.fuel, ...(claims.quotas ? { quotas: claims.quotas } : {}) })
}

/**
 * The token's quotas: those asked, plus every atom the run has a quota for at 0 calls (a child never
 * gets more of an atom than its parent had left; without this a token without quotas would lift the
 * parent's). Refuses asking more than the run has left (BUDGET_QUOTA_EXCEEDED, catchable).
 */
function tokenQuotas(rt: Run, asked: Record<string, number> | undefined, op: string): Record<string, number> | undefined {
  const out: Record<string, number> = {}
  for (const atom of Object.keys(rt.config.quotas)) out[atom] = 0
  for (const [atom, n] of Object.entries(asked ?? {})) {
    const left = rt.callsLeft(atom)
    if (n > left) {
      throw new VmError('BUDGET_QUOTA_EXCEEDED', `${op}: ${n} calls of ${atom} asked, ${left} left in this run`, { op, hint: 'Give the token at most the calls the run has left under its quotas, or raise the run\'s quota for that atom (run option quotas).' })
    }
    out[atom] = n
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * The calls per atom a receipt reports for a reservation. Each must be an atom the token carried a
 * quota for, within it; a receipt that reports none (signed without them) is charged every call reserved.
 */
function callsUsed(reserved: Reservation, calls: Record<string, number> | undefined, id: string, op: string): Record<string, number> | undefined {
  if (!reserved.quotas) return undefined
  const out: Record<string, number> = {}
  for (const [atom, n] of Object.entries(reserved.quotas)) {
    const used = calls === undefined ? n : Object.prototype.hasOwnProperty.call(calls, atom) ? calls[atom]! : 0
    if (used > n) throw new VmError('BUDGET_RECEIPT_INVALID', `${op}: the receipt reports ${used} calls of ${atom}; token ${id} granted ${n}`, { op })
    out[atom] = used
  }
  for (const atom of Object.keys(calls ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(reserved.quotas, atom)) throw new VmError('BUDGET_RECEIPT_INVALID', `${op}: the receipt reports calls of ${atom}, for which token ${id} carried no quota`, { op })
  }
  return out
}

/**
 * Give `fuel` back to the run (the unused part of a settled reservation). The VM's atom context only
 * charges; the run's meter is reached as the VM's own atoms reach it (runOf). A sub-run of agentRun
 * holds a lease of its parent's fuel, to which the refund goes back when it ends.
 */
function refund(ctx: AtomContext, fuel: number): number {
  const units = toUnits(Math.max(0, fuel))
  if (units > 0) runOf(ctx).left += units
  return fromUnits(units)
}
