/** JSON parse/stringify with allocation charged and forbidden keys stripped. */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { isForbiddenKey } from '../guards.ts'

function strip(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = strip(v[i])
    return v
  }
  for (const k of Object.keys(v)) {
    if (isForbiddenKey(k)) delete (v as any)[k]
    else (v as any)[k] = strip((v as any)[k])
  }
  return v
}

export function jsonParse(rt: Run, text: unknown): unknown {
  if (typeof text !== 'string') throw vmError('JSON_ERROR', 'JSON.parse expects a string')
  rt.chargeString(text)
  rt.chargeSlots(Math.ceil(text.length / 8))
  try {
    const value = JSON.parse(text)
    // Only text that mentions a forbidden name can produce a forbidden key.
    return /__proto__|constructor|prototype|\\u/.test(text) ? strip(value) : value
  } catch (e) {
    throw vmError('JSON_ERROR', (e as Error).message)
  }
}

export function jsonStringify(rt: Run, value: unknown, indent?: unknown): string | undefined {
  const space = typeof indent === 'number' ? Math.min(10, Math.max(0, indent)) : typeof indent === 'string' ? indent.slice(0, 10) : undefined
  let out: string | undefined
  try {
    out = JSON.stringify(value, null, space)
  } catch (e) {
    if (e instanceof RangeError) rt.heapLimit(rt.maxHeapBytes + 1)
    throw vmError('TYPE_ERROR', (e as Error).message)
  }
  return out === undefined ? undefined : rt.chargeString(out)
}
