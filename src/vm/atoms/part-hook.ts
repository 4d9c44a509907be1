/**
 * Atoms whose implementation is an opt-in part (issue 28: `ajs-lang/vm` holds what every program
 * needs): the atom stays in every VM's table (same input, cost, tool definition), and its body
 * calls the implementation the part registered when imported (src/vm/parts/hash.ts, procedures.ts),
 * or refuses the call with FEATURE_MISSING naming the import. The full entry, `ajsc`, the server
 * and the Python and flow entries import every part. Registered process-wide under a registered
 * symbol: a part may be bundled apart from the VM (a second browser script).
 */
import { vmError, type VmError } from '../errors.ts'
import { processSlot } from '../process-slot.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each part's own signature, checked where it is registered and called
type Impl = (...args: any[]) => any

const impls = processSlot<Record<string, Impl | undefined>>('vm.atom-parts', () => ({}))

/** Called by a part when it is imported. */
export function registerAtomPart(op: string, impl: Impl): void {
  impls[op] = impl
}

/** The implementation of atom `op`, or the refusal naming the import (`ajs-lang/vm/<part>`) that supplies it. */
export function atomPart<F extends Impl>(op: string, part: string): F {
  const impl = impls[op]
  if (impl) return impl as F
  throw partMissing(part, `The program calls the ${op} atom, and this VM was built without it`, op, op)
}

/** The refusal of what needs opt-in part `ajs-lang/vm/<part>` on a VM without it: FEATURE_MISSING, the hint naming the import. */
export function partMissing(part: string, message: string, what: string, op?: string): VmError {
  return vmError('FEATURE_MISSING', message, {
    ...(op === undefined ? {} : { op }),
    hint: `Import 'ajs-lang/vm/${part}' once (browser: dist/browser/vm-${part}.min.js) to run ${what} on this VM; ajs-lang's full entry, ajsc and the server include it.`,
  })
}
