/** Procedure atoms: store, release and expire ASTs under `proc_` tokens. */
import { vmError } from '../errors.ts'
import type { AtomDef } from './types.ts'
import { coreAtom, runOf } from './define.ts'
import { DEFAULT_MAX_AST_SIZE, DEFAULT_PROCEDURE_TTL, MAX_PROCEDURE_TTL, PROCEDURE_TOKEN_PREFIX } from '../procedures.ts'
import { copyOut } from '../membrane.ts'
import { validateAst } from '../../ast/validate.ts'
import { toRunnable } from '../dialect.ts'
import type { Run } from '../runtime.ts'

/** The tenant a run acts for ('' when the host gave none). */
const tenantOf = (rt: Run): string => rt.config.options.tenant ?? ''

/** A numeric option of storeProcedure: absent = the default; otherwise a finite number in [min, max]. */
function option(v: unknown, name: string, fallback: number, min: number, max: number): number {
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'number' || !Number.isFinite(v)) throw vmError('TYPE_ERROR', `storeProcedure.${name} must be a finite number, got ${typeof v === 'number' ? v : typeof v}`, { op: 'storeProcedure' })
  if (v < min || v > max) throw vmError('RANGE_ERROR', `storeProcedure.${name} must be between ${min} and ${max}, got ${v}`, { op: 'storeProcedure' })
  return v
}

export const PROCEDURE_ATOMS: AtomDef[] = [
  coreAtom('storeProcedure', async ({ ast, ttl, maxSize }, ctx) => {
    const rt = runOf(ctx)
    // Options are checked before anything is copied: NaN or a string must never disable a limit.
    const limit = option(maxSize, 'maxSize', DEFAULT_MAX_AST_SIZE, 1, DEFAULT_MAX_AST_SIZE * 10)
    const ttlMs = option(ttl, 'ttl', DEFAULT_PROCEDURE_TTL, 1, MAX_PROCEDURE_TTL)
    const plain = copyOut(ast)
    const text = JSON.stringify(plain) ?? ''
    const bytes = new TextEncoder().encode(text).length
    ctx.charge(bytes * 0.001)
    if (bytes > limit) throw vmError('PROCEDURE_TOO_LARGE', `Procedure AST is ${bytes} bytes, limit ${limit}`, { op: 'storeProcedure' })
    // A seed-dialect AST (no `ajs`) is stored as given and checked as the ajs/1 it runs as.
    const problems = validateAst(toRunnable(plain))
    if (problems.length > 0) {
      throw vmError('AST_INVALID', `storeProcedure: ${problems[0]!.path || '/'}: ${problems[0]!.message}`, { op: 'storeProcedure', details: problems.slice(0, 20) })
    }
    const now = ctx.now()
    const token = PROCEDURE_TOKEN_PREFIX + ctx.uuid()
    await rt.config.host.procedures.set(token, { ast: plain, createdAt: now, expiresAt: now + ttlMs, owner: tenantOf(rt) })
    return token
  }, { trusted: true }),
  coreAtom('releaseProcedure', async ({ token }, ctx) => {
    if (typeof token !== 'string') throw vmError('TYPE_ERROR', 'releaseProcedure.token must be a string', { op: 'releaseProcedure' })
    const rt = runOf(ctx)
    // Only the tenant that stored a procedure may release it.
    const entry = await rt.config.host.procedures.get(token)
    if (!entry || (entry.owner ?? '') !== tenantOf(rt)) return false
    return (await rt.config.host.procedures.delete(token)) === true
  }, { trusted: true }),
  coreAtom('clearExpiredProcedures', async (_input, ctx) => {
    const [removed, scanned] = await runOf(ctx).config.host.procedures.clearExpired(ctx.now())
    ctx.charge(scanned * 0.01)
    return removed
  }, { trusted: true }),
]
