/**
 * The membrane between host and guest. Host values (args, capability
 * results, atom outputs) enter as fresh plain data: no functions, getters,
 * prototypes, cycles or forbidden keys, and within a size cap. Guest values
 * leave the same way, so the host never holds a guest object and host inputs
 * are never mutated.
 */
import { vmError } from './errors.ts'
import { isForbiddenKey } from './guards.ts'
import type { Run } from './runtime.ts'
import { GuardedRegex } from './builtins/regex.ts'

export interface CopyLimits {
  /** Maximum number of values (nodes) copied. */
  maxNodes: number
  /** Maximum total string characters copied. */
  maxChars: number
  maxDepth: number
}

export const DEFAULT_COPY_LIMITS: CopyLimits = { maxNodes: 1_000_000, maxChars: 50_000_000, maxDepth: 500 }

/**
 * Deep-copy host data into guest-safe plain data. Throws VALUE_NOT_DATA /
 * VALUE_TOO_LARGE. Own enumerable properties are read once (a host getter
 * runs once, its value is copied); functions and symbols are dropped; Dates
 * become ISO strings; Maps, Sets, typed arrays and promises are refused.
 * Cycle tracking starts below a shallow depth: typical small args pay nothing.
 */
export function copyIn(value: unknown, limits: CopyLimits = DEFAULT_COPY_LIMITS, what = 'value'): unknown {
  let nodes = 0
  let chars = 0
  let active: Set<object> | null = null
  const visit = (v: unknown, depth: number): unknown => {
    if (++nodes > limits.maxNodes) throw vmError('VALUE_TOO_LARGE', `The ${what} has more than ${limits.maxNodes} values`)
    switch (typeof v) {
      case 'string':
        if ((chars += v.length) > limits.maxChars) throw vmError('VALUE_TOO_LARGE', `The ${what} has more than ${limits.maxChars} characters`)
        return v
      case 'number': case 'boolean': case 'undefined':
        return v
      case 'bigint':
        throw vmError('VALUE_NOT_DATA', `The ${what} contains a BigInt`)
      case 'function': case 'symbol':
        return undefined
    }
    if (v === null) return null
    if (depth > limits.maxDepth) throw vmError('VALUE_TOO_LARGE', `The ${what} nests deeper than ${limits.maxDepth}`)
    const obj = v as object
    const tracked = depth >= SHALLOW
    if (tracked) {
      active ??= new Set()
      if (active.has(obj)) throw vmError('VALUE_NOT_DATA', `The ${what} contains a cycle`)
      active.add(obj)
    }
    try {
      if (Array.isArray(obj)) {
        const n = obj.length
        if (n > limits.maxNodes) throw vmError('VALUE_TOO_LARGE', `The ${what} has an array of ${n} items`)
        const out = new Array(n)
        for (let i = 0; i < n; i++) out[i] = visit(obj[i], depth + 1)
        return out
      }
      const proto = Object.getPrototypeOf(obj)
      if (proto !== Object.prototype && proto !== null) {
        if (obj instanceof GuardedRegex) return obj
        if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString()
        if (ArrayBuffer.isView(obj) || obj instanceof Map || obj instanceof Set || obj instanceof Promise || obj instanceof WeakMap) {
          throw vmError('VALUE_NOT_DATA', `The ${what} contains a ${Object.prototype.toString.call(obj).slice(8, -1)}`)
        }
      }
      const out: Record<string, unknown> = {}
      const keys = Object.keys(obj)
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        if (isForbiddenKey(key)) continue
        const raw = (obj as Record<string, unknown>)[key]
        const cv = visit(raw, depth + 1)
        if (cv !== undefined || raw === undefined) out[key] = cv
      }
      return out
    } finally {
      if (tracked) active!.delete(obj)
    }
  }
  try {
    return visit(value, 0)
  } catch (e) {
    if (e instanceof Error && 'code' in e) throw e
    throw vmError('VALUE_NOT_DATA', `The ${what} could not be read as data: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** Objects and arrays a value leaving the guest may hold, counting shared ones once per path (as JSON would). */
export const MAX_OUT_NODES = 1_000_000

function tooManyNodes(): never {
  throw vmError('VALUE_TOO_LARGE', `The value holds more than ${MAX_OUT_NODES} objects and arrays (shared ones count once per path)`)
}

/** Below this depth no cycle tracking is needed: a cycle always reaches it. */
const SHALLOW = 8

/**
 * Hand a finished run's result to the host. The guest is gone by then, so its
 * objects are not copied again: one walk replaces regexes by their source
 * text and refuses cycles (results must serialize as JSON).
 */
export function exportResult(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value
  let active: Set<object> | null = null
  let nodes = 0
  const visit = (v: any, depth: number): unknown => {
    if (v instanceof GuardedRegex) return v.toString()
    if (depth > 10_000) throw vmError('VALUE_TOO_LARGE', 'The result nests too deeply')
    // A shared nested structure (a = [a, a] forty times) is small but has 2^40 paths: count visits.
    if (++nodes > MAX_OUT_NODES) tooManyNodes()
    const tracked = depth >= SHALLOW
    if (tracked) {
      active ??= new Set()
      if (active.has(v)) throw vmError('VALUE_NOT_DATA', 'The result contains a cycle')
      active.add(v)
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i]
        if (x !== null && typeof x === 'object') v[i] = visit(x, depth + 1)
      }
    } else if (Object.isFrozen(v)) {
      if (tracked) active!.delete(v)
      return copyOut(v)
    } else {
      const keys = Object.keys(v)
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!
        const x = v[k]
        if (x !== null && typeof x === 'object') v[k] = visit(x, depth + 1)
      }
    }
    if (tracked) active!.delete(v)
    return v
  }
  return visit(value, 0)
}

/** Copy a guest value out to the host (regexes become their source text). */
export function copyOut(value: unknown): unknown {
  let nodes = 0
  const visit = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'function' ? undefined : v
    if (v instanceof GuardedRegex) return v.toString()
    if (depth > 10_000) throw vmError('VALUE_TOO_LARGE', 'The result nests too deeply')
    if (++nodes > MAX_OUT_NODES) tooManyNodes()
    if (Array.isArray(v)) return v.map((x) => visit(x, depth + 1))
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) if (!isForbiddenKey(k)) out[k] = visit((v as any)[k], depth + 1)
    return out
  }
  return visit(value, 0)
}

/** Fresh copy of a JSON literal from the AST, charged as allocation. */
export function deepCopyLiteral(rt: Run, v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    rt.chargeSlots(v.length)
    return v.map((x) => deepCopyLiteral(rt, x))
  }
  const out: Record<string, unknown> = {}
  const keys = Object.keys(v)
  rt.chargeSlots(keys.length)
  for (const k of keys) if (!isForbiddenKey(k)) out[k] = deepCopyLiteral(rt, (v as any)[k])
  return out
}
