/**
 * Budget tokens: a run hands a sub-run (a local agent or procedure, or a run
 * on another `ajsc serve` of the same deployment) part of its own budget as a
 * signed token: the fuel, the deadline, per-atom call quotas and the nesting
 * depth. The child runs under at most that; the parent is charged exactly
 * what the child used, through a receipt signed with the same key.
 *
 * `ajsb1.<claims>.<mac>` and `ajsr1.<usage>.<mac>`: base64url JSON and an
 * HMAC-SHA256 over the prefix and the claims, with a key per deployment (the
 * servers that accept each other's tokens share it). Changing any claim (a
 * larger `fuel`: an inflated token) breaks the MAC. A token is spent once: a
 * verifier claims its id in a seen-set until it expires (BUDGET_TOKEN_REPLAYED
 * after). A server also keeps the receipt of the spend with the id, so a
 * client that lost its answer retries safely: the retry is answered with the
 * first receipt (BUDGET_TOKEN_ANSWERED), never a second run (spendOrRecall).
 * The claim holds a lease: the spend's time limit plus a grace, past which
 * its run has certainly ended. A retry after the lease of a spend that kept
 * no receipt (its server died mid-run) is answered BUDGET_TOKEN_LOST with a
 * receipt charging the whole grant, at once rather than at the token's
 * expiry, and still nothing runs twice.
 * Host code only (node:crypto): never part of the VM bundle.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { SERVER_CODES, type ServerCode } from '../diagnostics/server-codes.ts'

/** What a budget token grants. */
export interface BudgetClaims {
  /** Unique id (replay protection, settlement). */
  id: string
  /** Fuel the child may use. */
  fuel: number
  /** Deadline, ms since the epoch: the child stops by then; the token is refused after. */
  exp: number
  /** Nesting depth of the run that spends the token (a top-level run's child: 1). */
  depth: number
  /** Calls per atom the child may make (its `quotas` run option). */
  quotas?: Record<string, number>
}

/** What the child used, signed by whoever ran it. */
export interface BudgetUsage {
  id: string
  /** The fuel the token granted. */
  fuel: number
  /** The fuel the child used (at most `fuel`). */
  used: number
  /** Calls the child made of each atom the token's quotas named (each at most its quota); absent when the token carried no quotas. */
  calls?: Record<string, number>
}

export const BUDGET_CODES = ['BUDGET_TOKEN_INVALID', 'BUDGET_TOKEN_EXPIRED', 'BUDGET_TOKEN_REPLAYED', 'BUDGET_TOKEN_ANSWERED', 'BUDGET_TOKEN_IN_FLIGHT', 'BUDGET_TOKEN_LOST', 'BUDGET_TOKEN_DEPTH', 'BUDGET_RECEIPT_INVALID', 'BUDGET_QUOTA_EXCEEDED'] as const satisfies readonly ServerCode[]
export type BudgetCode = (typeof BUDGET_CODES)[number]

/** A refused token or receipt; `code` is one of the stable BUDGET_* codes of the diagnostics catalog (docs/errors.md), whose hint it carries unless given one. */
export class BudgetTokenError extends Error {
  override name = 'BudgetTokenError'
  readonly hint: string
  /** BUDGET_TOKEN_ANSWERED and BUDGET_TOKEN_LOST: the receipt of the token's first spend, to settle. */
  readonly receipt?: string
  /** BUDGET_TOKEN_IN_FLIGHT: when (ms since the epoch) a retry gets an answer: the first spend has ended or is known lost by then. */
  readonly retryAt?: number
  constructor(readonly code: BudgetCode, message: string, hint?: string, receipt?: string, retryAt?: number) {
    super(message)
    this.hint = hint ?? SERVER_CODES[code].hint
    if (receipt !== undefined) this.receipt = receipt
    if (retryAt !== undefined) this.retryAt = retryAt
  }
}

/**
 * What a seen-set knows of a token id it holds: its spend still runs (its lease ends at `until`, ms
 * since the epoch; absent: at the token's expiry), it ended with this receipt, its run was lost (the
 * lease passed without a receipt: `receipt` charges the whole grant; `decided`: the `abandon` call
 * that answered reached that verdict, once per token however many retries and processes ask), or it
 * was recorded without a receipt (by a seen-set from before receipts were kept).
 */
export type SpentToken = { state: 'running'; until?: number } | { state: 'answered'; receipt: string } | { state: 'lost'; receipt: string; decided?: true } | { state: 'unknown' }

/** Token ids already spent, each kept until its token expires (a replay after that is refused as expired). */
export interface SeenTokens {
  /**
   * True when `id` was not seen before (and is now recorded until `expiresAt`, running, its lease ending
   * at `runningUntil`, default `expiresAt`); false for a replay.
   */
  claim(id: string, expiresAt: number, runningUntil?: number): Promise<boolean> | boolean
  /** Keep the receipt of the spend of `id` (claimed here), which has ended: a retry is answered with it (not once the spend was found lost). Optional: without it every replay is refused. */
  answer?(id: string, receipt: string): Promise<void> | void
  /** What is known of `id`, which `claim` found spent (undefined: expired or dropped since). */
  recall?(id: string): Promise<SpentToken | undefined> | SpentToken | undefined
  /**
   * The spend of `id` is running past its lease (`now` >= its `until`): its run is lost. Keep `receipt`
   * (the whole grant) as its answer, unless it was answered meanwhile; what is known of `id` then.
   * Optional: without it a spend is in flight until its token expires.
   */
  abandon?(id: string, receipt: string, now: number): Promise<SpentToken | undefined> | SpentToken | undefined
  /**
   * The spend of `id` (claimed here) is starting its run only now: its lease ends at `runningUntil`
   * unless it already ends later. What is known of `id` then: `lost` when a retry found the lease
   * passed before this (the run must not start). Optional: without it the lease is the claim's.
   */
  renew?(id: string, runningUntil: number): Promise<SpentToken | undefined> | SpentToken | undefined
}

/**
 * In memory, bounded: expired ids are dropped; when `max` unexpired ids are held, new tokens are refused
 * (fail closed). An entry holds its expiry and, while the spend runs, its lease's end, then its receipt
 * in the same field (a few hundred bytes; at most 4,096 characters, the longest text verify reads), so
 * memory is bounded by `max` too. Two fields, as before leases: one more would cost 16 to 32 bytes a
 * token (bench/budget-seen-memory.ts); `lost` is added to the few entries found lost.
 */
export class MemorySeenTokens implements SeenTokens {
  private readonly ids = new Map<string, { exp: number; held: number | string; lost?: true }>()
  constructor(private readonly max = 100_000, private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.ids.size
  }

  claim(id: string, expiresAt: number, runningUntil = expiresAt): boolean {
    const now = this.now()
    const seen = this.ids.get(id)
    if (seen !== undefined && seen.exp > now) return false
    if (this.ids.size >= this.max) {
      for (const [k, e] of this.ids) if (e.exp <= now) this.ids.delete(k)
      if (this.ids.size >= this.max) throw seenSetFull(this.max)
    }
    this.ids.set(id, { exp: expiresAt, held: runningUntil })
    return true
  }

  answer(id: string, receipt: string): void {
    const seen = this.ids.get(id)
    if (seen && !seen.lost) seen.held = receipt
  }

  recall(id: string): SpentToken | undefined {
    const seen = this.ids.get(id)
    if (!seen || seen.exp <= this.now()) return undefined
    if (typeof seen.held === 'number') return { state: 'running', until: seen.held }
    return { state: seen.lost ? 'lost' : 'answered', receipt: seen.held }
  }

  abandon(id: string, receipt: string, now: number): SpentToken | undefined {
    const seen = this.ids.get(id)
    if (!seen || typeof seen.held !== 'number' || seen.held > now) return this.recall(id)
    Object.assign(seen, { held: receipt, lost: true })
    return { state: 'lost', receipt, decided: true }
  }

  renew(id: string, runningUntil: number): SpentToken | undefined {
    const seen = this.ids.get(id)
    if (seen && typeof seen.held === 'number' && runningUntil > seen.held) seen.held = runningUntil
    return this.recall(id)
  }
}

/** A seen-set holding `max` unexpired tokens refuses new ones: fail closed, since a replay could not be told apart. */
export const seenSetFull = (max: number) =>
  new BudgetTokenError('BUDGET_TOKEN_REPLAYED', `The budget token seen-set is full (${max} unexpired tokens); the token cannot be checked for replay`, 'Retry once older tokens expire; mint tokens with shorter deadlines.')

export interface BudgetTokenOptions {
  /** The deployment's HMAC key (at least 32 bytes; a string is taken as UTF-8). */
  key: string | Uint8Array
  /** Deepest nesting a token may carry (default 4). */
  maxDepth?: number
  /** Longest a token may live (default 1 hour): its `exp` is at most this far ahead when minted and when verified. */
  maxTtlMs?: number
  /** Spent token ids (default: in memory, 100,000). */
  seen?: SeenTokens
  now?: () => number
}

/** Added to a spend's time limit for its lease (ms): the host stopping the run and keeping its receipt, and clock skew between servers. */
export const DEFAULT_LEASE_GRACE_MS = 5_000

const TOKEN = 'ajsb1'
const RECEIPT = 'ajsr1'
const MIN_KEY_BYTES = 32
const MAX_TEXT = 4096

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0
const isCounts = (v: unknown) => isObj(v) && Object.values(v).every((n) => Number.isInteger(n) && isCount(n))

/** Mints, verifies and settles budget tokens with one deployment key. */
export class BudgetTokens {
  readonly maxDepth: number
  readonly maxTtlMs: number
  private readonly key: Buffer
  private readonly seen: SeenTokens
  readonly now: () => number

  constructor(options: BudgetTokenOptions) {
    this.key = Buffer.from(typeof options.key === 'string' ? Buffer.from(options.key, 'utf8') : options.key)
    if (this.key.length < MIN_KEY_BYTES) throw new TypeError(`budget tokens: the key must be at least ${MIN_KEY_BYTES} bytes (got ${this.key.length}); generate one with \`openssl rand -base64 48\``)
    this.maxDepth = options.maxDepth ?? 4
    this.maxTtlMs = options.maxTtlMs ?? 3_600_000
    if (!Number.isInteger(this.maxDepth) || this.maxDepth < 1) throw new TypeError('budget tokens: maxDepth must be a whole number >= 1')
    if (!(this.maxTtlMs > 0)) throw new TypeError('budget tokens: maxTtlMs must be > 0')
    this.seen = options.seen ?? new MemorySeenTokens()
    this.now = options.now ?? Date.now
  }

  private mac(prefix: string, body: string): string {
    return createHmac('sha256', this.key).update(prefix).update('.').update(body).digest('base64url')
  }

  private sign(prefix: string, value: unknown): string {
    const body = b64(JSON.stringify(value))
    return `${prefix}.${body}.${this.mac(prefix, body)}`
  }

  /** The JSON of a signed text, or null when it is not one of ours (format or MAC). */
  private open(prefix: string, text: unknown): Record<string, unknown> | null {
    if (typeof text !== 'string' || text.length > MAX_TEXT) return null
    const parts = text.split('.')
    if (parts.length !== 3 || parts[0] !== prefix) return null
    const want = Buffer.from(this.mac(prefix, parts[1]!))
    const got = Buffer.from(parts[2]!)
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null
    try {
      const v = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'))
      return isObj(v) ? v : null
    } catch {
      return null
    }
  }

  /** A token granting `claims` (without `id`: a fresh one). Refuses a depth past `maxDepth` and a deadline past `maxTtlMs`. */
  mint(claims: Omit<BudgetClaims, 'id'> & { id?: string }): { token: string; claims: BudgetClaims } {
    if (!isCount(claims.fuel)) throw new TypeError('budget tokens: fuel must be a number >= 0')
    if (claims.depth > this.maxDepth) throw depthError(claims.depth, this.maxDepth)
    const exp = Math.min(claims.exp, this.now() + this.maxTtlMs)
    const c: BudgetClaims = { id: claims.id ?? `bt_${randomBytes(16).toString('base64url')}`, fuel: claims.fuel, exp, depth: claims.depth }
    if (claims.quotas && Object.keys(claims.quotas).length > 0) c.quotas = { ...claims.quotas }
    const token = this.sign(TOKEN, c)
    // verify() reads no longer text: a token naming too many atoms would be refused by its child.
    if (token.length > MAX_TEXT) throw new TypeError(`budget tokens: the token would be ${token.length} characters (at most ${MAX_TEXT}); give it quotas for fewer atoms`)
    return { token, claims: c }
  }

  /**
   * The claims of a token this deployment signed, valid or not (expired, too deep): a workflow's replay
   * reads the tokens it journaled. Throws BUDGET_TOKEN_INVALID for a forged or changed one.
   */
  read(token: unknown): BudgetClaims {
    const v = this.open(TOKEN, token)
    if (!v || typeof v.id !== 'string' || !isCount(v.fuel) || typeof v.exp !== 'number' || !Number.isInteger(v.depth) || (v.quotas !== undefined && !isCounts(v.quotas))) {
      throw new BudgetTokenError('BUDGET_TOKEN_INVALID', 'The budget token is not valid: it was not signed with this deployment\'s key, or it was changed after it was minted')
    }
    return v as unknown as BudgetClaims
  }

  /** The claims of a token this deployment signed, still valid; throws BudgetTokenError (INVALID, EXPIRED, DEPTH). Does not spend it. */
  verify(token: unknown): BudgetClaims {
    const claims = this.read(token)
    const now = this.now()
    if (claims.exp <= now) throw new BudgetTokenError('BUDGET_TOKEN_EXPIRED', `The budget token expired ${now - claims.exp} ms ago`)
    if (claims.exp > now + this.maxTtlMs) throw new BudgetTokenError('BUDGET_TOKEN_INVALID', 'The budget token lives longer than this deployment allows', 'Mint tokens with a shorter deadline.')
    if (claims.depth > this.maxDepth) throw depthError(claims.depth, this.maxDepth)
    return claims
  }

  /** Verify a token and spend it (once): BUDGET_TOKEN_REPLAYED when it was presented before. */
  async spend(token: unknown): Promise<BudgetClaims> {
    const claims = this.verify(token)
    if (!(await this.seen.claim(claims.id, claims.exp))) throw replayed(claims.id)
    return claims
  }

  /**
   * Spend a token as a server does, where a client may retry a call whose answer it lost: the first
   * time as `spend`, the spender then keeps its receipt with `answered`. A token presented again
   * after its spend ended is refused with that receipt (BUDGET_TOKEN_ANSWERED, `error.receipt`), so
   * the retry settles exactly what the first spend used and nothing runs twice; while the first
   * spend runs, BUDGET_TOKEN_IN_FLIGHT (`error.retryAt`: when a retry gets an answer); when its
   * receipt was not kept, BUDGET_TOKEN_REPLAYED.
   *
   * `leaseMs`: the longest the spend can run here (its time limit, plus a grace for the host to stop
   * it and keep its receipt). Past it a spend without a receipt is known lost (its process died): a
   * retry is refused with BUDGET_TOKEN_LOST and a receipt of the whole grant, what a run whose use is
   * unknown is charged. Not run again: the lost run may have used its fuel and made its calls, which
   * a second run under the same grant would repeat. Without `leaseMs` the lease ends at the token's
   * expiry (a retry is then refused as expired). `lost` is called when this retry reached that verdict
   * (once per token, however many retries on however many processes find it lost).
   */
  async spendOrRecall(token: unknown, options: { leaseMs?: number; lost?: (claims: BudgetClaims) => void } = {}): Promise<BudgetClaims> {
    const claims = this.verify(token)
    const now = this.now()
    const until = options.leaseMs === undefined ? claims.exp : Math.min(claims.exp, now + Math.max(0, options.leaseMs))
    if (await this.seen.claim(claims.id, claims.exp, until)) return claims
    let known = this.seen.recall ? await this.seen.recall(claims.id) : undefined
    if (known?.state === 'running' && known.until !== undefined && known.until <= now && this.seen.abandon) {
      known = await this.seen.abandon(claims.id, this.receipt(claims, claims.fuel, claims.quotas), now)
    }
    if (known?.state === 'answered') {
      throw new BudgetTokenError('BUDGET_TOKEN_ANSWERED', `The budget token ${claims.id} was spent by a run that has ended; this answer carries that run's receipt, not its result`, undefined, known.receipt)
    }
    if (known?.state === 'lost') {
      if (known.decided) options.lost?.(claims)
      throw new BudgetTokenError('BUDGET_TOKEN_LOST', `The budget token ${claims.id} was spent by a run that was lost (its server stopped before it ended); this answer carries a receipt of the whole grant`, undefined, known.receipt)
    }
    if (known?.state === 'running') {
      // A lease is a promise only where a lost spend can be told (abandon); else the spend may run until the token expires.
      const at = this.seen.abandon ? Math.min(claims.exp, known.until ?? claims.exp) : claims.exp
      const when = new Date(at).toISOString()
      const message = at < claims.exp
        ? `The budget token ${claims.id} is being spent by a run that has not ended; retry at ${when} or later: by then that run has ended or is known lost`
        : `The budget token ${claims.id} is being spent by a run that has not ended; retry after it ends, by the token's deadline ${when} at the latest`
      throw new BudgetTokenError('BUDGET_TOKEN_IN_FLIGHT', message, undefined, undefined, at)
    }
    throw replayed(claims.id)
  }

  /**
   * The run of a spend (spendOrRecall) starts only now (it waited to be admitted): its lease is renewed
   * to end `leaseMs` from now (at the token's deadline at the latest), so the wait cannot make it look
   * lost. Throws BUDGET_TOKEN_LOST (with the receipt of the whole grant a retry was given) when a retry
   * found the lease passed first: that verdict stands, and the run must not start.
   */
  async renew(claims: BudgetClaims, leaseMs: number): Promise<void> {
    const known = await this.seen.renew?.(claims.id, Math.min(claims.exp, this.now() + Math.max(0, leaseMs)))
    if (known?.state === 'lost') {
      throw new BudgetTokenError('BUDGET_TOKEN_LOST', `The budget token ${claims.id} was found lost before its run started (its lease ended while the run waited to be admitted); the run was not started, and this answer carries the receipt of the whole grant its retry was given`, undefined, known.receipt)
    }
  }

  /** Keep the receipt of a spend (spendOrRecall) that has ended: a retry of its token is answered with it. */
  async answered(claims: Pick<BudgetClaims, 'id'>, receipt: string): Promise<void> {
    await this.seen.answer?.(claims.id, receipt)
  }

  /**
   * The receipt of a child run that spent `claims` and used `used` fuel and made `calls` (each capped
   * at the grant). A token with quotas gets the calls of each atom they name (one not in `calls`: 0).
   */
  receipt(claims: Pick<BudgetClaims, 'id' | 'fuel' | 'quotas'>, used: number, calls: Readonly<Record<string, number>> = {}): string {
    const usage: BudgetUsage = { id: claims.id, fuel: claims.fuel, used: Math.min(claims.fuel, Math.max(0, used)) }
    if (claims.quotas) {
      usage.calls = {}
      for (const [op, quota] of Object.entries(claims.quotas)) {
        const n = Object.prototype.hasOwnProperty.call(calls, op) ? Number(calls[op]) || 0 : 0
        usage.calls[op] = Math.min(quota, Math.max(0, Math.floor(n)))
      }
    }
    return this.sign(RECEIPT, usage)
  }

  /** The usage a receipt signs; throws BUDGET_RECEIPT_INVALID when it is forged, changed, or uses more than it was granted. */
  readReceipt(receipt: unknown): BudgetUsage {
    const v = this.open(RECEIPT, receipt)
    if (!v || typeof v.id !== 'string' || !isCount(v.fuel) || !isCount(v.used) || (v.used as number) > (v.fuel as number) || (v.calls !== undefined && !isCounts(v.calls))) {
      throw new BudgetTokenError('BUDGET_RECEIPT_INVALID', 'The budget receipt is not valid: it was not signed with this deployment\'s key, or it was changed')
    }
    return v as unknown as BudgetUsage
  }
}

const replayed = (id: string) => new BudgetTokenError('BUDGET_TOKEN_REPLAYED', `The budget token ${id} was already spent`)

const depthError = (depth: number, max: number) =>
  new BudgetTokenError('BUDGET_TOKEN_DEPTH', `Budget tokens nest ${depth} deep; this deployment allows ${max}`)
