/** Procedure atoms: store, release and expire ASTs under `proc_` tokens. */
import { vmError } from '../errors.ts'
import type { AtomDef } from './types.ts'
import { coreAtom, runOf } from './define.ts'
import { DEFAULT_MAX_AST_SIZE, DEFAULT_PROCEDURE_TTL, PROCEDURE_TOKEN_PREFIX } from '../procedures.ts'
import { copyOut } from '../membrane.ts'
import { validateAst } from '../../ast/validate.ts'

export const PROCEDURE_ATOMS: AtomDef[] = [
  coreAtom('storeProcedure', async ({ ast, ttl, maxSize }, ctx) => {
    const rt = runOf(ctx)
    const plain = copyOut(ast)
    const text = JSON.stringify(plain) ?? ''
    const limit = maxSize === undefined ? DEFAULT_MAX_AST_SIZE : Math.min(Number(maxSize), DEFAULT_MAX_AST_SIZE * 10)
    const bytes = new TextEncoder().encode(text).length
    ctx.charge(bytes * 0.001)
    if (bytes > limit) throw vmError('PROCEDURE_TOO_LARGE', `Procedure AST is ${bytes} bytes, limit ${limit}`, { op: 'storeProcedure' })
    const problems = validateAst(plain)
    if (problems.length > 0) {
      throw vmError('AST_INVALID', `storeProcedure: ${problems[0]!.path || '/'}: ${problems[0]!.message}`, { op: 'storeProcedure', details: problems.slice(0, 20) })
    }
    const now = ctx.now()
    const ttlMs = ttl === undefined ? DEFAULT_PROCEDURE_TTL : Number(ttl)
    if (!(ttlMs > 0)) throw vmError('RANGE_ERROR', 'storeProcedure.ttl must be a positive number of ms', { op: 'storeProcedure' })
    const token = PROCEDURE_TOKEN_PREFIX + ctx.uuid()
    await rt.config.host.procedures.set(token, { ast: plain, createdAt: now, expiresAt: now + ttlMs })
    return token
  }, { trusted: true }),
  coreAtom('releaseProcedure', async ({ token }, ctx) => {
    if (typeof token !== 'string') throw vmError('TYPE_ERROR', 'releaseProcedure.token must be a string', { op: 'releaseProcedure' })
    return (await runOf(ctx).config.host.procedures.delete(token)) === true
  }, { trusted: true }),
  coreAtom('clearExpiredProcedures', async (_input, ctx) => {
    const [removed, scanned] = await runOf(ctx).config.host.procedures.clearExpired(ctx.now())
    ctx.charge(scanned * 0.01)
    return removed
  }, { trusted: true }),
]
