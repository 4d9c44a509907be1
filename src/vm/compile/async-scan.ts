/**
 * Which helper functions may suspend (call an atom that can wait, directly
 * or through other helpers), and which run loops without waiting. Helpers
 * that cannot suspend are called through plain synchronous closures.
 */
import type { AjsProgram } from '../../ast/types.ts'
import type { AtomTable } from '../atoms/types.ts'
import { LOOP_OPS, SYNC_STRUCTURAL_OPS } from './sync-ops.ts'

interface Facts { direct: boolean; loops: boolean; callees: Set<string> }

function scan(node: unknown, atoms: AtomTable, helpers: Set<string>, facts: Facts, depth = 0): void {
  if (node === null || typeof node !== 'object' || depth > 10_000) return
  if (Array.isArray(node)) {
    for (const x of node) scan(x, atoms, helpers, facts, depth + 1)
    return
  }
  const o = node as Record<string, unknown>
  // Steps carry `op`; expression nodes use `op` for their operator (`+`, `=`, `++`), which is no step.
  const step = typeof o.op === 'string' && o.$expr === undefined
  if (step && LOOP_OPS.has(o.op as string)) facts.loops = true
  if (step && !SYNC_STRUCTURAL_OPS.has(o.op as string)) {
    const atom = atoms.get(o.op as string)
    if (!atom || !atom.sync) facts.direct = true
  }
  if (o.$expr === 'call' && typeof o.callee === 'string') {
    if (helpers.has(o.callee)) facts.callees.add(o.callee)
    else {
      const atom = atoms.get(o.callee)
      if (atom && !atom.sync) facts.direct = true
    }
  }
  for (const k in o) scan(o[k], atoms, helpers, facts, depth + 1)
}

export interface HelperKinds {
  /** Helpers that may wait for an atom: every call of one may give a Promise. */
  async: Set<string>
  /**
   * Helpers that run a loop, directly or through other helpers, and wait for
   * nothing. Called where a Promise is welcome they get a variant whose loops
   * pause between time slices (so a host's AbortSignal reaches them); called
   * from a callback that must answer synchronously, the plain variant.
   */
  looping: Set<string>
}

/** The fixpoint over the call graph of "has the fact itself, or calls a helper that has it". */
function closure(facts: Map<string, Facts>, has: (f: Facts) => boolean): Set<string> {
  const result = new Set<string>()
  for (const [name, f] of facts) if (has(f)) result.add(name)
  let changed = true
  while (changed) {
    changed = false
    for (const [name, f] of facts) {
      if (result.has(name)) continue
      for (const c of f.callees) {
        if (result.has(c)) { result.add(name); changed = true; break }
      }
    }
  }
  return result
}

export function helperKinds(program: AjsProgram, atoms: AtomTable): HelperKinds {
  const defs = program.functions ?? {}
  const names = new Set(Object.keys(defs))
  const facts = new Map<string, Facts>()
  for (const name of names) {
    const f: Facts = { direct: false, loops: false, callees: new Set() }
    scan((defs as any)[name]?.steps, atoms, names, f)
    scan((defs as any)[name]?.params, atoms, names, f)
    facts.set(name, f)
  }
  const async = closure(facts, (f) => f.direct)
  const looping = closure(facts, (f) => f.loops)
  for (const name of async) looping.delete(name)
  return { async, looping }
}

/** Whether `node` (a callback) runs a loop itself or calls a looping helper: then it is worth pausing. */
export function runsLoops(node: unknown, atoms: AtomTable, helpers: Set<string>, looping: ReadonlySet<string>): boolean {
  const f: Facts = { direct: false, loops: false, callees: new Set() }
  scan(node, atoms, helpers, f)
  return f.loops || [...f.callees].some((c) => looping.has(c))
}
