/**
 * Stored procedures over HTTP: an AST (or source, compiled here) kept under
 * an unguessable `proc_` token for a TTL, visible only to the tenant that
 * stored it. Also the host side of the guest's own `storeProcedure` /
 * `agentRun` by token (through the bridge), so both paths share one store.
 */
import { randomBytes } from 'node:crypto'
import { transpile } from '../transpiler/index.ts'
import { BATTERY_ATOM_NAMES } from '../batteries/index.ts'
import { TranspileError } from '../diagnostics/index.ts'
import { validateAst } from '../ast/validate.ts'
import { PROCEDURE_TOKEN_PREFIX, type ProcedureStore } from '../vm/procedures.ts'
import type { AgentError } from '../vm/errors.ts'
import type { ServerLimits } from './config.ts'
import { HttpError } from './errors.ts'
import { astKey } from './runs.ts'
import { compileFuel, quotasOf, type Tenants } from './tenants.ts'
import type { CompileOutcome } from './pool/task.ts'
import type { StoreQuota } from './stores/quota.ts'
import type { ServerStores, StoredProcedure } from './stores/types.ts'

export interface ProcedureBody {
  ast?: unknown
  source?: string
  /** Time to live in ms (default and cap from the serve config). */
  ttl?: number
}

export const newProcedureToken = (): string => `${PROCEDURE_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`

/** A transpile error as the JSON error shape of the CLI (`ajsc run --json`): `column` 1-based, like `location`. */
export function transpileAgentError(e: TranspileError): AgentError & { frame: string } {
  return { name: 'AgentError', code: e.code, message: e.message, hint: e.hint, file: e.file, line: e.line, column: e.column + 1, location: `${e.file}:${e.line}:${e.column + 1}`, frame: e.frame }
}

/** The AST of a procedure body, validated against the server's limits (422 otherwise). */
export function programFromBody(body: { ast?: unknown; source?: string }, limits: ServerLimits, file = 'source.ajs', customAtoms: readonly string[] = []): unknown {
  if ((body.ast === undefined) === (body.source === undefined)) throw new HttpError('BAD_REQUEST', 'Send exactly one of "ast" or "source"')
  let ast = body.ast
  if (body.source !== undefined) {
    try {
      ast = transpile(body.source, { filename: file, atoms: [...BATTERY_ATOM_NAMES, ...customAtoms] }).ast
    } catch (e) {
      if (e instanceof TranspileError) throw new HttpError('PROGRAM_REJECTED', e.message, { agentError: transpileAgentError(e) })
      throw e
    }
  }
  const problems = validateAst(ast, { maxNodes: limits.maxAstNodes, maxDepth: limits.maxAstDepth })
  if (problems.length > 0) {
    const first = problems[0]!
    throw new HttpError('PROGRAM_REJECTED', undefined, {
      agentError: {
        name: 'AgentError', code: first.code ?? 'AST_INVALID', message: `${first.path || '/'}: ${first.message}`,
        hint: 'Validate the AST with `ajsc check` or validateAst() before sending it.',
        details: problems.slice(0, 20).map(({ path, message }) => ({ path, message })),
      },
    })
  }
  return ast
}

export class ProcedureService {
  constructor(
    private readonly stores: ServerStores,
    private readonly limits: ServerLimits,
    /** The custom atoms a tenant's source may call (the server's `atoms`, narrowed by the tenant's allowlist). */
    private readonly atomsOf: (tenant: string) => readonly string[] = () => [],
    private readonly now: () => number = Date.now,
    /** Admission of compiling a tenant's source (a slot and its fuel); absent: not metered (tests). */
    private readonly tenants?: Tenants,
    /**
     * Compiles a tenant's source off the event loop (the server's pool: RunPool.compile, issue 23
     * class 2), returning the program's JSON text; absent: compiled in this thread (library use, tests).
     */
    private readonly compile?: (tenant: string, source: string, file: string, atoms: readonly string[], timeoutMs: number) => Promise<CompileOutcome>,
  ) {}

  async store(tenant: string, body: ProcedureBody): Promise<{ token: string; expiresAt: number }> {
    const t = this.tenants?.get(tenant)
    // Compiling is guest work: it passes admission (a slot, and its fuel reserved) before it starts.
    const admission = body.source !== undefined && t ? await this.tenants!.admit(t, { fuel: compileFuel(body.source.length), exact: true }, 'compile') : undefined
    let astText: string
    try {
      if (body.source !== undefined && body.ast === undefined && this.compile) {
        // The main thread only routes: the compilation runs in a pool worker under the tenant's time limit.
        const timeoutMs = t?.config.limits.timeoutMs ?? 30_000
        const out = await this.compile(tenant, body.source, 'source.ajs', this.atomsOf(tenant), timeoutMs)
        if ('error' in out) throw new HttpError(out.error.code as HttpError['code'], out.error.message, out.error.agentError ? { agentError: out.error.agentError } : {})
        astText = out.astText
      } else {
        astText = JSON.stringify(programFromBody(body, this.limits, 'source.ajs', this.atomsOf(tenant)))
      }
    } finally {
      await admission?.settle(admission.fuel)
    }
    if (astText.length > this.limits.maxBodyBytes) throw new HttpError('BODY_TOO_LARGE', `The procedure is ${astText.length} bytes, the limit is ${this.limits.maxBodyBytes}`)
    const ttl = Math.min(body.ttl ?? this.limits.procedureTtlMs, this.limits.maxProcedureTtlMs)
    const createdAt = this.now()
    const p: StoredProcedure = { token: newProcedureToken(), tenant, astText, key: astKey(astText), createdAt, expiresAt: createdAt + ttl }
    await this.stores.procedures.put(p, this.quotaOf(tenant))
    return { token: p.token, expiresAt: p.expiresAt }
  }

  /** The tenant's procedure quota (limits.maxProcedures, limits.maxProcedureBytes). */
  private quotaOf(tenant: string): StoreQuota | undefined {
    const t = this.tenants?.get(tenant)
    return t ? quotasOf(t.config.limits).procedures : undefined
  }

  async get(tenant: string, token: string): Promise<StoredProcedure> {
    const p = await this.stores.procedures.get(tenant, token)
    if (!p) throw new HttpError('NOT_FOUND', `Unknown or expired procedure token "${token.slice(0, 48)}"`)
    return p
  }

  async delete(tenant: string, token: string): Promise<void> {
    if (!(await this.stores.procedures.delete(tenant, token))) throw new HttpError('NOT_FOUND', `Unknown or expired procedure token "${token.slice(0, 48)}"`)
  }

  /** The VM-facing store of one tenant (what the guest's storeProcedure and agentRun use, through the bridge). */
  vmStore(tenant: string): ProcedureStore {
    const repo = this.stores.procedures
    return {
      get: async (token) => {
        const p = await repo.get(tenant, token)
        return p ? { ast: JSON.parse(p.astText), createdAt: p.createdAt, expiresAt: p.expiresAt } : undefined
      },
      set: async (token, entry) => {
        const astText = JSON.stringify(entry.ast)
        // The guest's storeProcedure counts against the same quota as POST /v1/procedures.
        await repo.put({ token, tenant, astText, key: astKey(astText), createdAt: entry.createdAt, expiresAt: entry.expiresAt }, this.quotaOf(tenant))
      },
      delete: (token) => repo.delete(tenant, token),
      clearExpired: async (now) => [await repo.clearExpired(now), 0],
    }
  }
}
