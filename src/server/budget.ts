/**
 * Budget tokens in `ajsc serve` (issue 25): the serve config's `budgetTokens`
 * (the deployment's HMAC key is read from the environment variable it names,
 * never from the file), the seen-set of spent tokens (in memory, or a table
 * in PostgreSQL mode so every process of the deployment refuses a replay),
 * and the `x-ajs-budget` header of `POST /v1/runs`: a sync run presented with
 * a token runs under min(the tenant's limits, the token) and is answered
 * with the signed receipt of what it used (`x-ajs-budget-receipt`), which
 * the parent settles.
 */
import type pg from 'pg'
import { BudgetTokenError, BudgetTokens, MemorySeenTokens, seenSetFull, type BudgetClaims, type SeenTokens, type SpentToken } from '../codemode/budget-token.ts'
import type { RunResult } from '../vm/result.ts'
import { HttpError } from './errors.ts'

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
}

export const DEFAULT_BUDGET_KEY_ENV = 'AJS_BUDGET_TOKEN_KEY'

/** The config's `budgetTokens` (`{}`: every default); throws TypeError(`path: problem`). */
export function parseBudgetTokensConfig(raw: unknown, path = 'config.budgetTokens'): BudgetTokensConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError(`${path}: must be an object: { keyEnv?, maxDepth?, maxTtlMs?, maxSeen? }`)
  const o = raw as Record<string, unknown>
  for (const k of Object.keys(o)) if (!['keyEnv', 'maxDepth', 'maxTtlMs', 'maxSeen'].includes(k)) throw new TypeError(`${path}.${k}: unknown key (expected one of: keyEnv, maxDepth, maxTtlMs, maxSeen)`)
  const whole = (k: string, min: number, fallback: number): number => {
    const v = o[k]
    if (v === undefined) return fallback
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new TypeError(`${path}.${k}: must be a whole number >= ${min}`)
    return v
  }
  if (o.keyEnv !== undefined && (typeof o.keyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.keyEnv))) throw new TypeError(`${path}.keyEnv: must be the name of an environment variable`)
  return { keyEnv: (o.keyEnv as string | undefined) ?? DEFAULT_BUDGET_KEY_ENV, maxDepth: whole('maxDepth', 1, 4), maxTtlMs: whole('maxTtlMs', 1, 3_600_000), maxSeen: whole('maxSeen', 1, 100_000) }
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

/** The host bridge's budget methods, answered from the host's seen-set (every thread's spends in one place). */
export function answerSeenTokens(seen: SeenTokens, method: string, args: unknown[]): unknown {
  const [id, arg] = args as [string, unknown]
  if (typeof id !== 'string') throw new TypeError('budget tokens: a token id is a string')
  if (method === 'budget.claim' && typeof arg === 'number') return seen.claim(id, arg)
  if (method === 'budget.answer' && typeof arg === 'string') return seen.answer?.(id, arg)
  if (method === 'budget.recall') return seen.recall?.(id)
  throw new TypeError(`budget tokens: bad bridge call ${method}`)
}

/** A thread's view of the host's seen-set, through the bridge (pool workers and workflow threads spend tokens here). */
export function bridgedSeenTokens(call: (method: 'budget.claim' | 'budget.answer' | 'budget.recall', args: unknown[]) => Promise<unknown>): SeenTokens {
  return {
    claim: (id, expiresAt) => call('budget.claim', [id, expiresAt]) as Promise<boolean>,
    answer: async (id, receipt) => { await call('budget.answer', [id, receipt]) },
    recall: (id) => call('budget.recall', [id]) as Promise<SpentToken | undefined>,
  }
}

/** Claims between two prunes of the PostgreSQL seen-set (and checks of its size). */
export const SEEN_PRUNE_EVERY = 256

/**
 * Spent token ids in PostgreSQL (ajs.budget_tokens_seen, created by the store's migrations): one row
 * per token until it expires, so a replay on any process of the deployment is refused, and a retry
 * after the first spend ended is answered with its receipt (columns `running` and `receipt`,
 * migration 7; a row from before it is neither, and its replay is refused). Bounded:
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

  async claim(id: string, expiresAt: number): Promise<boolean> {
    if (this.full || this.claims++ % SEEN_PRUNE_EVERY === 0) await this.prune()
    if (this.full) throw seenSetFull(this.max)
    const r = await this.pool.query('INSERT INTO ajs.budget_tokens_seen (id, expires_at, running) VALUES ($1, $2, true) ON CONFLICT (id) DO NOTHING', [id, expiresAt])
    return r.rowCount === 1
  }

  async answer(id: string, receipt: string): Promise<void> {
    await this.pool.query('UPDATE ajs.budget_tokens_seen SET running = false, receipt = $2 WHERE id = $1', [id, receipt])
  }

  async recall(id: string): Promise<SpentToken | undefined> {
    const row = (await this.pool.query('SELECT running, receipt FROM ajs.budget_tokens_seen WHERE id = $1 AND expires_at > $2', [id, this.now()])).rows[0]
    if (!row) return undefined
    return row.receipt !== null ? { state: 'answered', receipt: row.receipt } : row.running ? { state: 'running' } : { state: 'unknown' }
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

/**
 * The token of a request (the `x-ajs-budget` header), spent: 403/409/422 with the BUDGET_TOKEN_* code
 * when refused, 501 when this server takes none. A token whose first spend has ended is refused with
 * that spend's receipt in `answered` (BUDGET_TOKEN_ANSWERED): the caller sends it in the receipt header.
 */
export async function spendRequestToken(budget: BudgetTokens | undefined, header: unknown, answered?: (receipt: string) => void): Promise<BudgetClaims | undefined> {
  if (header === undefined) return undefined
  if (!budget) throw new HttpError('NOT_AVAILABLE', `This server accepts no budget tokens (header ${BUDGET_HEADER}); the operator enables them with "budgetTokens" in the serve config`)
  try {
    return await budget.spendOrRecall(Array.isArray(header) ? header[0] : header)
  } catch (e) {
    if (!(e instanceof BudgetTokenError)) throw e
    if (e.receipt !== undefined) answered?.(e.receipt)
    throw new HttpError(e.code as HttpError['code'], e.message)
  }
}

/**
 * Keep the receipt of a spend that has ended, for a retry of its token. A failure to keep it is not the
 * client's: it gets its answer, and a retry is refused as in flight until the token expires.
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
