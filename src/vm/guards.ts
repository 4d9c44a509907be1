/**
 * The single property-access choke point. Every guest read, write, `in` and
 * `delete` goes through these functions, so no path can reach a prototype or
 * a host function.
 *
 * Guest data never contains functions (the membrane drops them), so a read
 * that yields a function can only have come from a prototype: it reads as
 * `undefined`. The three prototype-reaching names are refused outright.
 */
import { vmError } from './errors.ts'
import type { Run } from './runtime.ts'
import { SLOT_COST } from './fuel.ts'
import { guestString } from './builtins/coerce.ts'
import { FREE_TEXT_CHARS, chargeKey } from './builtins/sizes.ts'

export const isForbiddenKey = (k: string): boolean =>
  k === '__proto__' || k === 'constructor' || k === 'prototype'

export function forbidden(k: string): never {
  throw vmError('FORBIDDEN_NAME', `Forbidden property name "${k}"`)
}

/** Turn any guest key into a property key, refusing forbidden names; a long text is paid first (sizes.ts chargeKey). */
export function toKey(rt: Run, k: unknown): string | number {
  if (typeof k === 'number') return k
  // Objects as keys take the bounded conversion: native String() of a shared nested array is exponential.
  const s = typeof k === 'string' ? k : typeof k === 'object' && k !== null ? guestString(undefined, k) : String(k)
  if (s.length > FREE_TEXT_CHARS) chargeKey(rt, s)
  else if (isForbiddenKey(s)) forbidden(s)
  return s
}

/** `o[k]` for a static, already-checked name. */
export function getNamed(o: any, k: string): unknown {
  if (o === null || o === undefined) return undefined
  const v = o[k]
  return typeof v === 'function' ? undefined : v
}

/** `o[k]` for a computed key. */
export function getComputed(rt: Run, o: any, k: unknown): unknown {
  if (o === null || o === undefined) return undefined
  if (typeof k === 'number') {
    const v = o[k]
    return typeof v === 'function' ? undefined : v
  }
  const key = toKey(rt, k)
  const v = o[key]
  return typeof v === 'function' ? undefined : v
}

/**
 * The one rule for guest writes (issue 23, class 8): guest code writes,
 * deletes from and freezes only guest data — plain objects (Object.prototype
 * or null prototype) and arrays. Every other object a guest can hold (a
 * runtime library's values: a Python dict, range, float or iterator; regex
 * values) is read-only to it, whichever library made it, so no library has
 * to guard its own. setProp, deleteProp, Object.assign and Object.freeze
 * all ask this.
 */
export function isGuestData(o: object): boolean {
  const p = Object.getPrototypeOf(o)
  return p === Object.prototype || p === Array.prototype || p === null
}

/** A guest may change `o`: guest data that is not frozen. */
export const isWritable = (o: object): boolean => isGuestData(o) && !Object.isFrozen(o)

function writeTarget(o: any, k: string | number): void {
  if (o === null || typeof o !== 'object') {
    throw vmError('TYPE_ERROR', `Cannot set property "${String(k)}" of ${o === null ? 'null' : typeof o}`)
  }
  if (!isWritable(o)) throw vmError('TYPE_ERROR', `Cannot set property "${String(k)}" of a read-only object`)
}

/** `o[k] = v`; growing an array is charged per new slot. */
export function setProp(rt: Run, o: any, k: unknown, v: unknown): unknown {
  const key = toKey(rt, k)
  writeTarget(o, key)
  if (Array.isArray(o)) {
    if (key === 'length') {
      // JS converts the length first ('' and null are 0, '2' and [2] are 2), here bounded; the host sees only the number.
      const n = Number(typeof v === 'object' && v !== null ? guestString(rt, v) : v)
      if (!Number.isInteger(n) || n < 0) throw vmError('RANGE_ERROR', 'Invalid array length')
      if (n > o.length) rt.chargeSlots(n - o.length)
      o.length = n
      return v
    } else {
      const idx = typeof key === 'number' ? key : Number(key)
      if (Number.isInteger(idx) && idx >= o.length) rt.chargeSlots(idx - o.length + 1)
    }
  } else if (!Object.prototype.hasOwnProperty.call(o, key)) {
    rt.charge(SLOT_COST)
  }
  o[key] = v
  return v
}

/**
 * The names every object inherits in JS, and those an array adds: the engine's own methods of
 * Object.prototype and Array.prototype, read once. Only native functions count, so a name a
 * host library added (a polyfill, a polluting assignment) is never seen.
 */
const nativeNames = (p: object, more: string[] = []): Set<string> => new Set([...more, ...Object.getOwnPropertyNames(p).filter((k) => {
  const v = Object.getOwnPropertyDescriptor(p, k)!.value
  return typeof v === 'function' && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(v))
})])
// Read at the first `in` that needs them, not at import (~0.2 ms of a cold start).
let inherited: Set<string> | undefined
let arrayInherits: Set<string> | undefined
const inheritedOf = (array: boolean): Set<string> => {
  inherited ??= nativeNames(Object.prototype)
  return array ? (arrayInherits ??= nativeNames(Array.prototype, [...inherited])) : inherited
}

/**
 * `k in o`: an own property, or one JS's object or array inherits (`'toString' in {}` and
 * `'map' in []` are true in JS, so a `word in counts` test means the same for any word).
 * Only the answer is given: the inherited members stay unreadable.
 */
export function hasProp(rt: Run, o: unknown, k: unknown): boolean {
  if (o === null || typeof o !== 'object') {
    throw vmError('TYPE_ERROR', `Cannot use 'in' operator to search for "${String(k)}" in ${o === null ? 'null' : typeof o}`)
  }
  const key = toKey(rt, k)
  return Object.prototype.hasOwnProperty.call(o, key) || inheritedOf(Array.isArray(o)).has(key as string)
}

/** `delete o[k]` */
export function deleteProp(rt: Run, o: any, k: unknown): boolean {
  if (o === null || o === undefined) throw vmError('TYPE_ERROR', 'Cannot delete a property of null or undefined')
  if (typeof o !== 'object') return true
  const key = toKey(rt, k)
  if (!isWritable(o)) throw vmError('TYPE_ERROR', 'Cannot delete a property of a read-only object')
  return delete o[key]
}

const MAX_STRING_KEYS = 1_000_000

/** Own enumerable string keys, without forbidden names. */
export function ownKeys(o: unknown): string[] {
  if (o === null || o === undefined) return []
  if (typeof o === 'string') {
    // Object.keys of a 16M-character string allocates 16M strings before any caller can charge for them.
    if (o.length > MAX_STRING_KEYS) throw vmError('RANGE_ERROR', `Cannot list the keys of a string longer than ${MAX_STRING_KEYS} characters`)
    return Object.keys(o)
  }
  if (typeof o !== 'object') return []
  const keys = Object.keys(o)
  for (const k of keys) if (isForbiddenKey(k)) return keys.filter((x) => !isForbiddenKey(x))
  return keys
}
