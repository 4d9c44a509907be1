/**
 * Roots in the seed's dialect (no `ajs` marker): the VM's side. The
 * migration itself (`migrateAst`, seed-dialect.ts) is an opt-in module that
 * registers itself here when imported, so `ajs-lang/vm` stays small; the
 * full entry (`ajs-lang`) and `ajsc` always import it. Without it a seed
 * root is refused with `AST_VERSION` and the way to run it.
 */
import type { AjsProgram } from '../ast/types.ts'
import { VmError, toVmError, vmError } from './errors.ts'
import { processSlot } from './process-slot.ts'

export interface MigrationChange {
  /** JSON pointer into the input AST ('' is the root). */
  path: string
  /** What was rewritten: `version`, `return.schema`, `ident`, `varGet`, `varsExport`. */
  construct: string
  message: string
}

export interface Migration {
  ast: AjsProgram
  changes: MigrationChange[]
  /** Names the program reads only from its args (a run without one of them is refused). */
  argNames: string[]
}

type Migrate = (ast: unknown) => Migration
type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

/** True when `ast` is a root in the seed's dialect (an object without the `ajs` marker). */
export const isSeedDialect = (ast: unknown): ast is Obj => isObj(ast) && ast.ajs === undefined

/** Process-wide, under a registered symbol: the dialect module may be bundled apart from the VM. */
const slot = processSlot<{ migrate?: Migrate }>('vm.seed-dialect', () => ({}))

/** Called by seed-dialect.ts when it is imported. */
export function registerDialect(migrate: Migrate): void {
  slot.migrate = migrate
}

const normalized = new WeakMap<object, Migration | VmError>()

/** The ajs/1 form the VM runs for a seed-dialect root (cached per AST object, refusals too); any other value as is. */
export function toRunnable(ast: unknown): unknown {
  if (!isSeedDialect(ast)) return ast
  const migrate = slot.migrate
  if (!migrate) {
    throw vmError('AST_VERSION', 'Missing format marker "ajs": 1 (an AST in the seed\'s dialect?)', {
      path: '/ajs',
      hint: "Import 'ajs-lang/dialect/seed' once to run seed-dialect ASTs on this VM (ajs-lang's full entry and ajsc do), or convert it: ajsc migrate <file>.",
    })
  }
  let m = normalized.get(ast)
  if (!m) {
    try {
      m = migrate(ast)
      normalized.set(m.ast, m)
    } catch (e) {
      m = toVmError(e)
    }
    normalized.set(ast, m)
  }
  if (m instanceof VmError) throw m
  return m.ast
}

/** A seed-dialect program refuses args that lack a name it reads only from its args (today's UNKNOWN_IDENTIFIER). */
export function checkDialectArgs(program: object, args: unknown): void {
  const m = normalized.get(program)
  if (!m || m instanceof VmError || m.argNames.length === 0) return
  for (const name of m.argNames) {
    if (!isObj(args) || !Object.hasOwn(args, name)) {
      throw vmError('UNKNOWN_IDENTIFIER', `Unknown identifier "${name}"`, { hint: 'In the seed dialect a name no variable declares is read from the run\'s args: pass it, or declare the variable.' })
    }
  }
}
