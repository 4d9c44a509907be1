/**
 * Copy-and-check for plain JSON data crossing into or out of a store.
 *
 * Stores hold data written by untrusted code and read back later, maybe by
 * another run; so values are copied on the way in (the writer keeps no alias)
 * and on the way out (the reader cannot mutate the stored copy). The copy
 * accepts only JSON data: null, booleans, finite numbers, strings, arrays and
 * objects whose prototype is Object.prototype or null, with data properties
 * only (getters are refused, never invoked). Cycles, depth and size are bounded.
 */

/** Limits for one copy. */
export interface JsonLimits {
  maxDepth: number
  /** Approximate JSON text length of the value. */
  maxBytes: number
}

/** Why a value was refused; `path` is a JSON pointer into the value. */
export class JsonValueError extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`${reason} at '${path || '/'}'`)
    this.name = 'JsonValueError'
  }
}

interface Walk {
  limits: JsonLimits
  bytes: number
  stack: Set<object>
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`
}

function charge(w: Walk, n: number, path: string): void {
  w.bytes += n
  if (w.bytes > w.limits.maxBytes) throw new JsonValueError(path, `value is larger than ${w.limits.maxBytes} bytes`)
}

function copy(w: Walk, value: unknown, path: string, depth: number): unknown {
  switch (typeof value) {
    case 'string': charge(w, value.length + 2, path); return value
    case 'boolean': charge(w, 5, path); return value
    case 'number':
      if (!Number.isFinite(value)) throw new JsonValueError(path, `${value} is not JSON`)
      charge(w, 8, path)
      return value
    case 'object': break
    default: throw new JsonValueError(path, `a ${typeof value} is not JSON data`)
  }
  if (value === null) { charge(w, 4, path); return null }
  if (depth >= w.limits.maxDepth) throw new JsonValueError(path, `nested deeper than ${w.limits.maxDepth}`)
  if (w.stack.has(value)) throw new JsonValueError(path, 'the value contains a cycle')
  w.stack.add(value)
  try {
    charge(w, 2, path)
    if (Array.isArray(value)) {
      const out: unknown[] = new Array(value.length)
      for (let i = 0; i < value.length; i++) {
        const item = value[i]
        out[i] = item === undefined ? null : copy(w, item, pointer(path, i), depth + 1)
        charge(w, 1, path)
      }
      return out
    }
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      throw new JsonValueError(path, 'only plain objects are JSON data (no class instances, Maps, Dates)')
    }
    const entries: Array<[string, unknown]> = []
    for (const key of Object.keys(value)) {
      const desc = Object.getOwnPropertyDescriptor(value, key)!
      if (!('value' in desc)) throw new JsonValueError(pointer(path, key), 'accessor properties are not JSON data')
      if (desc.value === undefined) continue
      charge(w, key.length + 4, path)
      entries.push([key, copy(w, desc.value, pointer(path, key), depth + 1)])
    }
    // fromEntries defines properties, so a '__proto__' key stays an own data property.
    return Object.fromEntries(entries)
  } finally {
    w.stack.delete(value)
  }
}

/** Deep-copy `value` as plain JSON data; returns the copy and its approximate size. */
export function copyJson(value: unknown, limits: JsonLimits): { value: unknown; bytes: number } {
  if (value === undefined) throw new JsonValueError('', 'undefined is not JSON data')
  const w: Walk = { limits, bytes: 0, stack: new Set() }
  const out = copy(w, value, '', 0)
  return { value: out, bytes: w.bytes }
}

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}
