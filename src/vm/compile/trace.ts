/** Trace wrapper, applied only when a program is compiled for a traced run. */
import type { Loc } from '../../ast/types.ts'
import { fromUnits } from '../fuel.ts'
import { isPromise, type Frame } from '../runtime.ts'
import type { CStep } from './context.ts'
import type { TraceEntry } from '../result.ts'

/** Entries kept per run; later steps run untraced. */
export const MAX_TRACE = 100_000

export function wrapTrace(run: CStep, op: string, loc: Loc | undefined, file: string | undefined, staticCost = 0): CStep {
  const location = loc ? `${file ?? '<ajs>'}:${loc[0]}:${loc[1] + 1}` : undefined
  return (f: Frame) => {
    const rt = f.rt
    const trace = rt.trace
    if (!trace || trace.length >= MAX_TRACE) return run(f)
    // The step's static cost was charged with its block, before it started.
    // Entries are in start order and carry the meter at the start, so a loop's
    // entry (before its body's) never shows more fuel than the entries after it.
    const before = rt.fuelUsedUnits
    const entry: TraceEntry = { op, fuel: 0, fuelTotal: fromUnits(before), ms: 0 }
    if (location) entry.location = location
    trace.push(entry)
    const t0 = performance.now()
    const done = () => {
      entry.fuel = fromUnits(rt.fuelUsedUnits - before + staticCost)
      entry.ms = Math.round((performance.now() - t0) * 1000) / 1000
    }
    const fail = (e: unknown) => {
      done()
      entry.error = (e as { code?: string }).code ?? String(e)
      throw e
    }
    try {
      const r = run(f)
      if (isPromise(r)) return r.then((c) => { done(); return c }, fail)
      done()
      return r
    } catch (e) {
      return fail(e)
    }
  }
}
