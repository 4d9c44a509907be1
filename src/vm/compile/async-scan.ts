/**
 * Which helper functions may suspend (call an atom that can wait, directly
 * or through other helpers). Helpers that cannot are called through plain
 * synchronous closures. A fixpoint over the call graph.
 */
import type { AjsProgram } from '../../ast/types.ts'
import type { AtomTable } from '../atoms/types.ts'
import { SYNC_STRUCTURAL_OPS } from './sync-ops.ts'

interface Facts { direct: boolean; callees: Set<string> }

function scan(node: unknown, atoms: AtomTable, helpers: Set<string>, facts: Facts, depth = 0): void {
  if (node === null || typeof node !== 'object' || depth > 10_000) return
  if (Array.isArray(node)) {
    for (const x of node) scan(x, atoms, helpers, facts, depth + 1)
    return
  }
  const o = node as Record<string, unknown>
  if (typeof o.op === 'string' && !SYNC_STRUCTURAL_OPS.has(o.op)) {
    const atom = atoms.get(o.op)
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

export function computeAsyncHelpers(program: AjsProgram, atoms: AtomTable): Set<string> {
  const defs = program.functions ?? {}
  const names = new Set(Object.keys(defs))
  const facts = new Map<string, Facts>()
  for (const name of names) {
    const f: Facts = { direct: false, callees: new Set() }
    scan((defs as any)[name]?.steps, atoms, names, f)
    scan((defs as any)[name]?.params, atoms, names, f)
    facts.set(name, f)
  }
  const result = new Set<string>()
  for (const [name, f] of facts) if (f.direct) result.add(name)
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
