/**
 * Budget tokens in `ajsc serve` (issue 25): the serve config's `budgetTokens`
 * (the deployment's HMAC key is read from the environment variable it names,
 * never from the file), the seen-set of spent tokens (in memory, or a table
 * in PostgreSQL mode so every process of the deployment refuses a replay),
 * and the `x-ajs-budget` header of `POST /v1/runs`: a sync run presented with
 * a token runs under min(the tenant's limits, the token) and is answered
 * with the signed receipt of what it used (`x-ajs-budget-receipt`), which
 * the parent settles. The spend's lease is the run's time limit plus
 * `leaseGraceMs`: a retry after it, of a spend with no receipt (its server
 * died), is answered BUDGET_TOKEN_LOST.
 */
import type pg from 'pg'
import { BudgetTokenError, BudgetTokens, DEFAULT_LEASE_GRACE_MS, MemorySeenTokens, seenSetFull, type BudgetClaims, type SeenTokens, type SpentToken } from '../codemode/budget-token.ts'
import type { RunResult } from '../vm/result.ts'
import { HttpError } from './errors.ts'
import { unknownKeyMessage } from '../host/unknown-key.ts'

/** The header a child run's budget token comes in, and the one its receipt goes back in. */
export const BUDGET_HEADER = 'x-ajs-budget'
export const RECEIPT_HEADER = 'x-ajs-budget-receipt'

export interface BudgetTokensConfig {
  /** The environment variable holding the deployment's key (at least 32 bytes). Default AJS_BUDGET_TOKEN_KEY. */
  keyEnv: string
  /** Deepest nesting of budget tokens (default 4). */
  maxDepth: number
  /** Longest a token may live, ms (default 3,600,000). */
  maxTtlMs: number
  /** Unexpired spent tokens held (in memory, or in PostgreSQL mode in ajs.budget_tokens_seen) before new ones are refused (default 100,000). */
  maxSeen: number
  /**
   * Added to a run's time limit for the lease of the token it spends, ms (default 5,000): past the lease
   * a run with no receipt is known lost. It covers the pool stopping a run that overran (twice its
   * grace, 1 s), admission and keeping the receipt in the store, and the clock skew between servers.
   */
  leaseGraceMs: number
}

export const DEFAULT_BUDGET_KEY_ENV = 'AJS_BUDGET_TOKEN_KEY'

/** The config's `budgetTokens` (`{}`: every default); throws TypeError(`path: problem`). */
export function parseBudgetTokensConfig(raw: unknown, path = 'config.budgetTokens'): BudgetTokensConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError(`${path}: must be an object: { keyEnv?, maxDepth?, maxTtlMs?, maxSeen?, leaseGraceMs? }`)
  const o = raw as Record<string, unknown>
  const keys = ['keyEnv', 'maxDepth', 'maxTtlMs', 'maxSeen', 'leaseGraceMs']
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new TypeError(`${path}.${k}: ${unknownKeyMessage(k, keys)}`)
  const whole = (k: string, min: number, fallback: number): number => {
    const v = o[k]
    if (v === undefined) return fallback
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new TypeError(`${path}.${k}: must be a whole number >= ${min}`)
    return v
  }
  if (o.keyEnv !== undefined && (typeof o.keyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.keyEnv))) throw new TypeError(`${path}.keyEnv: must be the name of an environment variable`)
  return { keyEnv: (o.keyEnv as string | undefined) ?? DEFAULT_BUDGET_KEY_ENV, maxDepth: whole('maxDepth', 1, 4), maxTtlMs: whole('maxTtlMs', 1, 3_600_000), maxSeen: whole('maxSeen', 1, 100_000), leaseGraceMs: whole('leaseGraceMs', 0, DEFAULT_LEASE_GRACE_MS) }
}

/** The deployment's key from the environment; throws naming the config key when it is missing or short. */
export function budgetKeyOf(config: BudgetTokensConfig, env: Readonly<Record<string, string | undefined>>): string {
  const key = env[config.keyEnv]
  if (!key || Buffer.byteLength(key) < 32) {
    throw new TypeError(`config.budgetTokens.keyEnv: the environment variable ${config.keyEnv} must hold the deployment's budget token key, at least 32 bytes (${key ? `it has ${Buffer.byteLength(key)}` : 'it is not set'}); e.g. export ${config.keyEnv}=$(openssl rand -base64 48), the same on every server of the deployment`)
  }
  return key
}

/** The host's BudgetTokens: verifies tokens presented to it and signs receipts. */
export function serverBudgetTokens(config: BudgetTokensConfig, key: string, seen?: SeenTokens): BudgetTokens {
  return new BudgetTokens({ key, maxDepth: config.maxDepth, maxTtlMs: config.maxTtlMs, seen: seen ?? new MemorySeenTokens(config.maxSeen) })
}

/**
 * The host bridge's budget methods, answered from the host's seen-set (every thread's spends in one
 * place). `lost` is called when an abandon reached the verdict that a spend's run was lost.
 */
export async function answerSeenTokens(seen: SeenTokens, method: string, args: unknown[], lost?: () => void): Promise<unknown> {
  // claim: id, expiresAt, runningUntil?; answer: id, receipt; recall: id; abandon: id, receipt, now.
  const [id, arg, time] = args as [string, unknown, unknown]
  if (typeof id !== 'string') throw new TypeError('budget tokens: a token id is a string')
  if (method === 'budget.claim' && typeof arg === 'number' && (time === undefined || typeof time === 'number')) return seen.claim(id, arg, time)
  if (method === 'budget.answer' && typeof arg === 'string') return seen.answer?.(id, arg)
  if (method === 'budget.recall') return seen.recall?.(id)
  if (method === 'budget.abandon' && typeof arg === 'string' && typeof time === 'number') {
    const known = await seen.abandon?.(id, arg, time)
    if (known?.state === 'lost' && known.decided) lost?.()
    return known
  }
  throw new TypeError(`budget tokens: bad bridge call ${method}`)
}

/** A thread's view of the host's seen-set, through the bridge (pool workers and workflow threads spend tokens here). */
export function bridgedSeenTokens(call: (method: 'budget.claim' | 'budget.answer' | 'budget.recall' | 'budget.abandon', args: unknown[]) => Promise<unknown>): SeenTokens {
  return {
    claim: (id, expiresAt, runningUntil) => call('budget.claim', runningUntil === undefined ? [id, expiresAt] : [id, expiresAt, runningUntil]) as Promise<boolean>,
    answer: async (id, receipt) => { await call('budget.answer', [id, receipt]) },
    recall: (id) => call('budget.recall', [id]) as Promise<SpentToken | undefined>,
    abandon: (id, receipt, now) => call('budget.abandon', [id, receipt, now]) as Promise<SpentToken | undefined>,
  }
}

/** Claims between two prunes of the PostgreSQL seen-set (and checks of its size). */
export const SEEN_PRUNE_EVERY = 256

/**
 * Spent token ids in PostgreSQL (ajs.budget_tokens_seen, created by the store's migrations): one row
 * per token until it expires, so a replay on any process of the deployment is refused, and a retry
 * after the first spend ended is answered with its receipt (columns `running` and `receipt`,
 * migration 7; a row from before it is neither, and its replay is refused). A running spend's lease
 * ends at `running_until` (migration 8; NULL in rows from before it: at the token's expiry); a retry
 * past it finds the run lost and marks the row so (`lost`, with a receipt of the whole grant), in one
 * UPDATE, so every process answers every later retry alike, and a receipt kept late by a run that was
 * not dead after all does not replace it (the first answer given stands; migration 9 makes a lost row
 * final in the database, against the UPDATEs of processes from before it). The lease is renewed when
 * the run starts (`renew`), after its admission, which may wait on the database. Bounded:
 * expired rows are deleted on the first claim and every SEEN_PRUNE_EVERY claims after, and when
 * `max` unexpired rows are held (counted at each prune) new tokens are refused (fail closed, as in
 * memory) and every claim prunes again until there is room. Between prunes a process may add up to
 * SEEN_PRUNE_EVERY rows, so the table holds at most `max` + SEEN_PRUNE_EVERY per process.
 */
export class PgSeenTokens implements SeenTokens {
  private claims = 0
  private full = false
  private readonly max: number
  private readonly now: () => number
  constructor(private readonly pool: pg.Pool, options: { max?: number; now?: () => number } = {}) {
    this.max = options.max ?? 100_000
    this.now = options.now ?? Date.now
  }

  async claim(id: string, expiresAt: number, runningUntil = expiresAt): Promise<boolean> {
    if (this.full || this.claims++ % SEEN_PRUNE_EVERY === 0) await this.prune()
    if (this.full) throw seenSetFull(this.max)
    const r = await this.pool.query('INSERT INTO ajs.budget_tokens_seen (id, expires_at, running, running_until) VALUES ($1, $2, true, $3) ON CONFLICT (id) DO NOTHING', [id, expiresAt, runningUntil])
    return r.rowCount === 1
  }

  async answer(id: string, receipt: string): Promise<void> {
    await this.pool.query('UPDATE ajs.budget_tokens_seen SET running = false, receipt = $2 WHERE id = $1 AND NOT lost', [id, receipt])
  }

  async recall(id: string): Promise<SpentToken | undefined> {
    const row = (await this.pool.query('SELECT running, running_until, receipt, lost FROM ajs.budget_tokens_seen WHERE id = $1 AND expires_at > $2', [id, this.now()])).rows[0]
    return row ? spentOf(row) : undefined
  }

  async abandon(id: string, receipt: string, now: number): Promise<SpentToken | undefined> {
    const r = await this.pool.query('UPDATE ajs.budget_tokens_seen SET running = false, receipt = $2, lost = true WHERE id = $1 AND running AND receipt IS NULL AND running_until <= $3', [id, receipt, now])
    // The row lock orders concurrent abandons (and renewals): one of them, on one process, decides.
    return r.rowCount === 1 ? { state: 'lost', receipt, decided: true } : this.recall(id)
  }

  async renew(id: string, runningUntil: number): Promise<SpentToken | undefined> {
    const r = await this.pool.query('UPDATE ajs.budget_tokens_seen SET running_until = GREATEST(running_until, $2) WHERE id = $1 AND running AND receipt IS NULL RETURNING running_until', [id, runningUntil])
    return r.rowCount === 1 ? { state: 'running', until: Number(r.rows[0].running_until) } : this.recall(id)
  }

  /** Delete the expired rows and count the rest. A replay of an expired token is refused as expired before it gets here. */
  async prune(): Promise<number> {
    const now = this.now()
    await this.pool.query('DELETE FROM ajs.budget_tokens_seen WHERE expires_at <= $1', [now])
    const held = Number((await this.pool.query('SELECT count(*) AS n FROM ajs.budget_tokens_seen')).rows[0].n)
    this.full = held >= this.max
    return held
  }
}

/** A row of ajs.budget_tokens_seen as a SpentToken (bigint columns come back as text). */
const spentOf = (row: { running: boolean; running_until: string | null; receipt: string | null; lost: boolean }): SpentToken => {
  if (row.receipt !== null) return { state: row.lost ? 'lost' : 'answered', receipt: row.receipt }
  if (!row.running) return { state: 'unknown' }
  return row.running_until === null ? { state: 'running' } : { state: 'running', until: Number(row.running_until) }
}

/**
 * The token of a request (the `x-ajs-budget` header), spent with a lease of `leaseMs` (the run's time
 * limit and the grace): 403/409/422 with the BUDGET_TOKEN_* code when refused (IN_FLIGHT with
 * Retry-After: when its lease ends), 501 when this server takes none. A token whose first spend has
 * ended, or was lost, is refused with that spend's receipt in `answered` (BUDGET_TOKEN_ANSWERED,
 * BUDGET_TOKEN_LOST): the caller sends it in the receipt header. `lost`: this request reached the
 * verdict that the token's run was lost (once per token).
 */
export async function spendRequestToken(budget: BudgetTokens | undefined, header: unknown, answered?: (receipt: string) => void, leaseMs?: number, lost?: () => void): Promise<BudgetClaims | undefined> {
  if (header === undefined) return undefined
  if (!budget) throw new HttpError('NOT_AVAILABLE', `This server accepts no budget tokens (header ${BUDGET_HEADER}); the operator enables them with "budgetTokens" in the serve config`)
  try {
    return await budget.spendOrRecall(Array.isArray(header) ? header[0] : header, { ...(leaseMs === undefined ? {} : { leaseMs }), ...(lost ? { lost } : {}) })
  } catch (e) {
    throw e instanceof BudgetTokenError ? httpErrorOf(budget, e, answered) : e
  }
}

/**
 * Renew the lease of a request's spend (made at `spentAt`) as its run starts: to end the time limit the
 * run was admitted with (which counts from here) and `graceMs` from now. Only when the admission took
 * more than a tenth of the grace (undefined: nothing to do): the grace covers that much, and a renewal
 * is a write to the store (in PostgreSQL about a tenth of a budget run: bench/budget-renew-pg.ts). 409 BUDGET_TOKEN_LOST,
 * with the receipt a retry was given in `answered`, when the lease had already passed: the run is not
 * started. A store that cannot be reached is not the client's failure: the run starts under the
 * claim's lease (`log`).
 */
export function renewRequestLease(budget: BudgetTokens, claims: BudgetClaims, spentAt: number, timeoutMs: number, graceMs: number, answered: (receipt: string) => void, log?: (e: unknown) => void): Promise<void> | undefined {
  if (budget.now() - spentAt <= graceMs / 10) return undefined
  return budget.renew(claims, timeoutMs + graceMs).catch((e) => {
    if (e instanceof BudgetTokenError) throw httpErrorOf(budget, e, answered)
    log?.(e)
  })
}

/** A BudgetTokenError as the server answers it: its code, Retry-After from `retryAt`, its receipt given to `answered`. */
function httpErrorOf(budget: BudgetTokens, e: BudgetTokenError, answered?: (receipt: string) => void): HttpError {
  if (e.receipt !== undefined) answered?.(e.receipt)
  const retryAfter = e.retryAt === undefined ? undefined : Math.max(1, Math.ceil((e.retryAt - budget.now()) / 1000))
  return new HttpError(e.code as HttpError['code'], e.message, retryAfter === undefined ? {} : { retryAfter })
}

/**
 * The lease of a run a token pays for: its time limit (what the request asks, at most the tenant's
 * limits.timeoutMs; spendOrRecall caps it at the token's deadline) plus `graceMs`. The pool stops a run
 * by its limit and terminates its thread a grace later (queueing in the pool counts: the limit runs from
 * the pool's acceptance, where the lease is renewed: renewRequestLease), so past the lease a run with no
 * receipt is one whose process died.
 */
export const runLeaseMs = (requestedMs: number | undefined, tenantMs: number, graceMs: number): number =>
  (typeof requestedMs === 'number' && requestedMs > 0 ? Math.min(requestedMs, tenantMs) : tenantMs) + graceMs

/**
 * Keep the receipt of a spend that has ended, for a retry of its token. A failure to keep it is not the
 * client's: it gets its answer, and a retry is refused as in flight until the spend's lease ends, then
 * answered BUDGET_TOKEN_LOST (charged in full, as a run whose use is unknown).
 */
export async function keepReceipt(budget: BudgetTokens, claims: BudgetClaims, receipt: string, log?: (e: unknown) => void): Promise<void> {
  try {
    await budget.answered(claims, receipt)
  } catch (e) {
    log?.(e)
  }
}

/**
 * The calls per atom a run a token paid for made (the pool thread counts them when the token has
 * quotas), taken off the result so they are not part of the answer. Absent: the run never started
 * (nothing used), or its worker was terminated (what it did is unknown: charged in full, like its fuel).
 */
export function takeBudgetCalls(result: RunResult, claims: BudgetClaims): Record<string, number> {
  const counted = (result as { budgetCalls?: Record<string, number> }).budgetCalls
  delete (result as { budgetCalls?: unknown }).budgetCalls
  if (counted) return counted
  return result.fuelUsed > 0 ? { ...claims.quotas } : {}
}

/** The run options of a run a token pays for: min(what the request asks, the token). */
export function underToken(options: { fuel?: number; timeoutMs?: number; trace?: boolean } | undefined, claims: BudgetClaims, now = Date.now()): { fuel: number; timeoutMs: number; trace?: boolean } {
  return {
    ...options,
    fuel: Math.min(options?.fuel ?? claims.fuel, claims.fuel),
    timeoutMs: Math.max(1, Math.min(options?.timeoutMs ?? Number.MAX_SAFE_INTEGER, claims.exp - now)),
  }
}
