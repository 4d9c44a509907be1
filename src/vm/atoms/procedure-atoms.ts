/** Procedure atoms: store, release and expire ASTs under `proc_` tokens. */
import { vmError } from '../errors.ts'
import type { AtomContext, AtomDef } from './types.ts'
import { atomPart } from './part-hook.ts'
import { coreAtom, runOf } from './define.ts'
import type { Run } from '../runtime.ts'
import { copyOut } from '../membrane.ts'
import { validateAst } from '../../ast/validate.ts'
import { toRunnable } from '../dialect.ts'

/**
 * What the storeProcedure part works with: the VM's own functions, handed over at each call, so the
 * part (a separate browser script, maybe) builds no error class or validator of its own.
 */
const KIT = [vmError, runOf, copyOut, validateAst, toRunnable] as const
export type ProcedureKit = typeof KIT

/** The storeProcedure atom's body (parts/procedures.ts). */
export type StoreProcedure = (input: Record<string, unknown>, ctx: AtomContext, kit: ProcedureKit) => Promise<string>

/** The tenant a run acts for ('' when the host gave none). */
const tenantOf = (rt: Run): string => rt.config.options.tenant ?? ''

export const PROCEDURE_ATOMS: AtomDef[] = [
  // Validating and storing an AST from guest code is an opt-in part, ajs-lang/vm/procedures (parts/procedures.ts).
  coreAtom('storeProcedure', async (input, ctx) => atomPart<StoreProcedure>('storeProcedure', 'procedures')(input, ctx, KIT), { trusted: true }),
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
