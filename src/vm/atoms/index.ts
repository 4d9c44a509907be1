/** The core atom table. */
import type { AtomDef } from './types.ts'
import { LIBRARY_ATOMS } from './library.ts'
import { UTILITY_ATOMS } from './utility.ts'
import { IO_ATOMS } from './io.ts'
import { PROCEDURE_ATOMS } from './procedure-atoms.ts'

const all = [...LIBRARY_ATOMS, ...UTILITY_ATOMS, ...IO_ATOMS, ...PROCEDURE_ATOMS]

/** Every core atom implemented as a callable (control and state ops are compiled structurally). */
export const coreAtoms: Readonly<Record<string, AtomDef>> = Object.freeze(Object.fromEntries(all.map((a) => [a.op, a])))

export type { AtomDef, AtomContext, AtomTable, AtomFn, AtomEffects, JsonSchema } from './types.ts'
export { defineAtom, EFFECTFUL_CORE_OPS } from './define.ts'
