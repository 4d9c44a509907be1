import { CORE_OPS } from '../../ast/nodes.ts'

/**
 * Ops compiled structurally that never wait by themselves (their children
 * may): the language ops of the vocabulary table (atoms carry their `doc`
 * inline) not marked `mayWait`.
 */
export const SYNC_STRUCTURAL_OPS: ReadonlySet<string> = new Set(
  Object.keys(CORE_OPS).filter((op) => !CORE_OPS[op]!.doc && !CORE_OPS[op]!.mayWait),
)

/** Ops that repeat their body (`loops` in the vocabulary table). */
export const LOOP_OPS: ReadonlySet<string> = new Set(Object.keys(CORE_OPS).filter((op) => CORE_OPS[op]!.loops))
