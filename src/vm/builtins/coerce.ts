/**
 * Guarded conversion of guest objects to primitives.
 *
 * Native ToPrimitive on an array runs Array.prototype.join over every nested
 * array. On a shared structure (`a = [a, a]` forty times) that is 2^40 steps
 * inside ONE native call, which neither fuel nor the deadline can interrupt:
 * the host hangs. So wherever the VM lets a guest object reach a native
 * coercion (operators, template literals, computed keys, builtin arguments)
 * it converts the object here first, walking with fuel, a deadline check and
 * the string-size ceiling. Primitives never come here (callers test
 * `typeof v === 'object'` first), so the common path costs one type check.
 */
import type { Run } from '../runtime.ts'
import { type VmError, vmError } from '../errors.ts'
import { SLOT_COST } from '../fuel.ts'
import { isRegex } from './regex-hook.ts'

/** Limits when no run is at hand (computed keys): keys are short in practice. */
const KEY_MAX_ELEMENTS = 100_000
const KEY_MAX_CHARS = 1_000_000
/**
 * How deep an array may nest to become a string: as deep as JSON.stringify's (MAX_JSON_DEPTH). At 10,000 the
 * recursive walk sometimes ran out of host stack first (a STACK_OVERFLOW where the guard's RANGE_ERROR belongs:
 * CI at 48afeb8, in one of a few full runs of the security suite).
 */
const MAX_NESTING = 5_000

/** `String(o)` for a non-array object, as JS would compute it for guest data. */
export function objectText(o: object): string {
  if (isRegex(o)) return o.toString()
  const proto = Object.getPrototypeOf(o)
  // A guest object's own `toString` is data, never callable: JS then fails to convert it.
  if (proto === null || Object.hasOwn(o, 'toString')) {
    throw vmError('TYPE_ERROR', 'Cannot convert object to primitive value')
  }
  return '[object Object]'
}

/** `a.join(sep)` with JS semantics (null/undefined as '', cycles as ''), bounded. */
export function joinGuest(rt: Run | undefined, a: unknown[], sep: string, numberText?: (n: number) => string): string {
  // Arrays of primitives (the usual case) cannot blow up: native join, same fuel.
  if (rt && a.length <= 10_000 && !numberText) {
    let flat = true
    let chars = a.length * sep.length
    for (let i = 0; i < a.length; i++) {
      const x = a[i]
      if (x !== null && typeof x === 'object') { flat = false; break }
      chars += typeof x === 'string' ? x.length : 24
    }
    if (flat) {
      if (chars > rt.maxStringLength) rt.heapLimit(chars * 2)
      rt.charge(a.length * SLOT_COST)
      // Up to 4 items are concatenated: V8's join costs ~60 ns before its first item (its cycle check
      // cannot be needed here), and a rope is flattened once with whatever it joins later.
      if (a.length > 4) return a.join(sep)
      let s = ''
      for (let i = 0; i < a.length; i++) s += (i ? sep : '') + (a[i] ?? '')
      return s
    }
  }
  let visited = 0
  let chars = 0
  const maxChars = rt ? rt.maxStringLength : KEY_MAX_CHARS
  const active = new Set<unknown[]>()
  const walk = (arr: unknown[], separator: string): string => {
    if (active.has(arr)) return ''
    if (active.size >= MAX_NESTING) throw vmError('RANGE_ERROR', `An array nests deeper than ${MAX_NESTING} levels to convert to a string`)
    active.add(arr)
    const parts: string[] = []
    const n = arr.length
    for (let i = 0; i < n; i++) {
      if (rt) {
        rt.charge(SLOT_COST)
        rt.tick()
      } else if (++visited > KEY_MAX_ELEMENTS) {
        throw vmError('RANGE_ERROR', 'An array is too large to convert to a primitive value here')
      }
      const x = arr[i]
      let s: string
      if (x === null || x === undefined) s = ''
      else if (Array.isArray(x)) s = walk(x, ',')
      else {
        s = typeof x === 'object' ? objectText(x) : numberText && typeof x === 'number' ? numberText(x) : String(x)
        chars += s.length
      }
      if (i > 0) chars += separator.length
      if (chars > maxChars) {
        if (rt) rt.heapLimit(chars * 2)
        throw vmError('RANGE_ERROR', 'An array is too large to convert to a primitive value here')
      }
      parts.push(s)
    }
    active.delete(arr)
    return parts.join(separator)
  }
  return walk(a, sep)
}

/** ToPrimitive for guest values: objects become their string form, bounded. */
export function toPrim(rt: Run | undefined, v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  return Array.isArray(v) ? joinGuest(rt, v, ',') : objectText(v)
}

/** `String(v)` for any guest value, bounded. */
export function guestString(rt: Run | undefined, v: unknown): string {
  return typeof v === 'object' && v !== null ? (toPrim(rt, v) as string) : String(v)
}

/**
 * Stands in for an argument that cannot be converted (`{ toString: 1 }`): the native method throws
 * JS's TypeError if, and only if, it reads that argument ('ab'.trim(o) and [].includes(1, o) do not).
 * The natives only convert it, never keep it: it is never a guest value.
 */
const UNCONVERTIBLE = Object.freeze({ toString() { throw new TypeError('Cannot convert object to primitive value') } })

/** toPrim of a builtin's argument, its TypeError left for when (and if) the builtin reads it. */
export function argPrim(rt: Run, x: object): unknown {
  try {
    return toPrim(rt, x)
  } catch (e) {
    if ((e as VmError).code === 'TYPE_ERROR') return UNCONVERTIBLE
    throw e
  }
}

/** Arguments of a builtin that coerces them: objects converted here first. */
export function primArgs(rt: Run, args: unknown[]): unknown[] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (typeof a === 'object' && a !== null && !isRegex(a)) {
      const copy = args.slice()
      for (let j = i; j < copy.length; j++) {
        const x = copy[j]
        if (typeof x === 'object' && x !== null && !isRegex(x)) copy[j] = argPrim(rt, x)
      }
      return copy
    }
  }
  return args
}
