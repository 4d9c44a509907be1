/** `structuredClone(value)` of guest data. */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { isForbiddenKey } from '../guards.ts'
import { isRegex } from './regex-hook.ts'

/** As deep as JSON.stringify and join go (their walks are recursive too). */
const MAX_DEPTH = 5_000

/**
 * A deep copy, as JavaScript's: parts shared in the value are shared in the copy, a cycle is a cycle,
 * holes stay holes, and NaN, -0 and undefined are kept (a JSON round trip loses them). Each array item
 * and object key is charged as the copy is made, with a deadline tick per object; a regex is read-only
 * data, so the copy holds the same one.
 */
export function structuredCloneGuest(rt: Run, args: unknown[]): unknown {
  const [value, options] = args
  // JavaScript's argument checks: a value is required; options are an object (its `transfer` list names
  // nothing a guest holds can be transferred, so it must be empty).
  if (args.length === 0) throw vmError('TYPE_ERROR', 'structuredClone requires 1 argument')
  if (options !== undefined && options !== null) {
    const transfer = typeof options === 'object' ? (options as { transfer?: unknown }).transfer : 0
    if (transfer !== undefined && !(Array.isArray(transfer) && transfer.length === 0)) throw vmError('TYPE_ERROR', 'structuredClone options must be an object whose transfer list is empty')
  }
  const copies = new Map<object, unknown>()
  const copy = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object' || isRegex(v)) return v
    const done = copies.get(v)
    if (done !== undefined) return done
    if (depth > MAX_DEPTH) throw vmError('RANGE_ERROR', `The value nests deeper than ${MAX_DEPTH} levels to clone`)
    rt.tick()
    if (Array.isArray(v)) {
      rt.chargeSlots(v.length)
      const out: unknown[] = new Array(v.length)
      copies.set(v, out)
      for (let i = 0; i < v.length; i++) if (i in v) out[i] = copy(v[i], depth + 1)
      return out
    }
    const keys = Object.keys(v)
    rt.chargeSlots(keys.length)
    const out: Record<string, unknown> = {}
    copies.set(v, out)
    for (const k of keys) if (!isForbiddenKey(k)) out[k] = copy((v as Record<string, unknown>)[k], depth + 1)
    return out
  }
  return copy(value, 0)
}
