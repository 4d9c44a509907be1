/**
 * `ajs-lang/vm/procedures`: the body of the storeProcedure atom, which checks, validates and stores
 * an AST from guest code (atoms/part-hook.ts). Without it the atom is listed as ever and a call of
 * it is refused with FEATURE_MISSING naming this import; running a `proc_` token, releasing and
 * expiring procedures and the stores themselves stay in `ajs-lang/vm`. The VM hands it its own error
 * constructor, validator and membrane (ProcedureKit): a separate browser script builds none of its own.
 */
import { registerAtomPart } from '../atoms/part-hook.ts'
import type { ProcedureKit, StoreProcedure } from '../atoms/procedure-atoms.ts'
import { DEFAULT_MAX_AST_SIZE, DEFAULT_PROCEDURE_TTL, MAX_PROCEDURE_TTL, PROCEDURE_TOKEN_PREFIX } from '../procedures.ts'

/** A numeric option of storeProcedure: absent = the default; otherwise a finite number in [min, max]. */
function option(vmError: ProcedureKit[0], v: unknown, name: string, fallback: number, min: number, max: number): number {
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'number' || !Number.isFinite(v)) throw vmError('TYPE_ERROR', `storeProcedure.${name} must be a finite number, got ${typeof v === 'number' ? v : typeof v}`, { op: 'storeProcedure' })
  if (v < min || v > max) throw vmError('RANGE_ERROR', `storeProcedure.${name} must be between ${min} and ${max}, got ${v}`, { op: 'storeProcedure' })
  return v
}

const storeProcedure: StoreProcedure = async ({ ast, ttl, maxSize }, ctx, [vmError, runOf, copyOut, validateAst, toRunnable]) => {
  const rt = runOf(ctx)
  // Options are checked before anything is copied: NaN or a string must never disable a limit.
  const limit = option(vmError, maxSize, 'maxSize', DEFAULT_MAX_AST_SIZE, 1, DEFAULT_MAX_AST_SIZE * 10)
  const ttlMs = option(vmError, ttl, 'ttl', DEFAULT_PROCEDURE_TTL, 1, MAX_PROCEDURE_TTL)
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
  // The tenant the run acts for ('' when the host gave none) owns it: only that tenant may release it.
  await rt.config.host.procedures.set(token, { ast: plain, createdAt: now, expiresAt: now + ttlMs, owner: rt.config.options.tenant ?? '' })
  return token
}

registerAtomPart('storeProcedure', storeProcedure)

export {}
