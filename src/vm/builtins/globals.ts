/**
 * Global values, global functions and namespace statics the guest can use.
 * Namespaces (Math, JSON, Object, ...) are plain frozen data objects holding
 * only constants; their functions are bound at compile time from NAMESPACES,
 * so no host function is ever a guest value.
 */
import type { Run } from '../runtime.ts'
import type { GlobalFunctionName, GlobalNamespaceName, GlobalValueName } from '../../ast/globals.ts'
import { vmError } from '../errors.ts'
import { ownKeys, toKey, isForbiddenKey, isGuestData, isWritable, setProp } from '../guards.ts'
import { FREE_TEXT_CHARS, chargeEntries, chargeKey, chargeProps, chargeScan, chargeText, chargeTextArgs, chargeTextMatches, mapBounded, nativeOp } from './sizes.ts'
import { jsonParse, jsonStringify, jsonText } from './json.ts'
import { SET_HELPERS } from './sets.ts'
import { guestString, primArgs, toPrim } from './coerce.ts'
import { parseDate } from './date-parse.ts'
import { structuredCloneGuest } from './clone.ts'
import { isRegex, regexSupport } from './regex-hook.ts'

export type Builtin = (rt: Run, args: any[]) => unknown

const num = (f: (...xs: number[]) => number): Builtin => (_rt, a) => f(...(a as number[]))

const freezeData = (o: Record<string, unknown>) => Object.freeze(Object.assign(Object.create(null), o))

const MATH_CONSTANTS = { PI: Math.PI, E: Math.E, LN2: Math.LN2, LN10: Math.LN10, LOG2E: Math.LOG2E, LOG10E: Math.LOG10E, SQRT2: Math.SQRT2, SQRT1_2: Math.SQRT1_2 }
const NUMBER_CONSTANTS = {
  MAX_SAFE_INTEGER: Number.MAX_SAFE_INTEGER, MIN_SAFE_INTEGER: Number.MIN_SAFE_INTEGER, EPSILON: Number.EPSILON,
  MAX_VALUE: Number.MAX_VALUE, MIN_VALUE: Number.MIN_VALUE, POSITIVE_INFINITY: Infinity, NEGATIVE_INFINITY: -Infinity, NaN: NaN,
}

const MATH: Record<string, Builtin> = {
  random: (rt) => rt.random(),
  max: (_rt, a) => Math.max(...(a as number[])),
  min: (_rt, a) => Math.min(...(a as number[])),
  hypot: (_rt, a) => Math.hypot(...(a as number[])),
}
for (const name of ['abs', 'ceil', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'exp', 'expm1', 'log', 'log2', 'log10', 'log1p',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'fround', 'clz32'] as const) {
  const fn = Math[name] as (x: number) => number
  MATH[name] = (rt, a) => { const x = a[0]; return fn(typeof x === 'number' ? x : mathArg(rt, x)) }
}
MATH.pow = num((x, y) => Math.pow(x, y))
MATH.atan2 = num((y, x) => Math.atan2(y, x))
MATH.imul = num((x, y) => Math.imul(x, y))

/** A one-argument Math function's argument that is not a number: an object converted guarded, a long text paid first. */
function mathArg(rt: Run, x: unknown): any {
  const p = typeof x === 'object' && x !== null ? toPrim(rt, x) : x
  if (typeof p === 'string' && p.length > FREE_TEXT_CHARS) chargeText(rt, p)
  return p
}

function assertObject(v: unknown, what: string): asserts v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') throw vmError('TYPE_ERROR', `${what} expects an object`)
}

const OBJECT: Record<string, Builtin> = {
  keys: (rt, [o]) => { const k = keysOf(rt, o); rt.chargeSlots(k.length); return k },
  values: (rt, [o]) => { const k = keysOf(rt, o); rt.chargeSlots(k.length); return k.map((x) => (o as any)[x]) },
  entries: (rt, [o]) => { const k = keysOf(rt, o); chargeEntries(rt, k.length); return k.map((x) => [x, (o as any)[x]]) },
  // No rest parameter (no array built per call): `Object.assign({}, a, { b })` is common in agents.
  assign: (rt, args) => {
    const target = args[0]
    assertObject(target, 'Object.assign')
    if (!isWritable(target)) throw vmError('TYPE_ERROR', 'Cannot assign to a read-only object')
    const isArray = Array.isArray(target)
    for (let i = 1; i < args.length; i++) {
      const src = args[i] as any
      if (src === null || src === undefined) continue
      const keys = keysOf(rt, src)
      rt.chargeSlots(keys.length)
      // Into an array, every write takes the guarded path: `{ length: 2e8 }` is charged and size-checked like `a.length = 2e8`.
      if (isArray) for (const k of keys) setProp(rt, target, k, src[k])
      else for (const k of keys) target[k] = src[k]
    }
    return target
  },
  fromEntries: (rt, [entries]) => {
    if (!Array.isArray(entries)) throw vmError('TYPE_ERROR', 'Object.fromEntries expects an array of [key, value] pairs')
    const out: Record<string, unknown> = {}
    rt.chargeSlots(entries.length)
    for (const e of entries) {
      if (!Array.isArray(e)) throw vmError('TYPE_ERROR', 'Object.fromEntries expects [key, value] pairs')
      out[toKey(rt, e[0]) as string] = e[1]
    }
    return out
  },
  // `Object.groupBy(items, fn)` is lowered to this with the keys the callback gave (`items.map(fn)`): each key's items, in order.
  groupByKeys: (rt, [items, keys]) => {
    if (!Array.isArray(items) || !Array.isArray(keys)) throw vmError('TYPE_ERROR', 'Object.groupBy expects an array')
    const out: Record<string, unknown[]> = {}
    rt.chargeSlots(items.length * 2)
    for (let i = 0; i < items.length; i++) {
      const k = toKey(rt, keys[i]) as string
      ;(Object.hasOwn(out, k) ? out[k]! : (out[k] = [])).push(items[i])
    }
    return out
  },
  hasOwn: (rt, [o, k]) => {
    if (o === null || o === undefined) throw vmError('TYPE_ERROR', 'Object.hasOwn expects an object')
    const key = guestString(rt, k)
    if (key.length > FREE_TEXT_CHARS) chargeKey(rt, key)
    return !isForbiddenKey(key) && Object.hasOwn(o, key)
  },
  freeze: (_rt, [o]) => {
    if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return o
    if (!isGuestData(o)) throw vmError('TYPE_ERROR', 'Cannot freeze a read-only object')
    return Object.freeze(o)
  },
  isFrozen: (_rt, [o]) => o === null || typeof o !== 'object' || Object.isFrozen(o),
  // SameValue: the one comparison that tells -0 from 0 and finds NaN equal to itself.
  is: (rt, [a, b]) => { chargeTextMatches(rt, [b], a); return Object.is(a, b) },
}

/** JS's ToObject refusal: Object.keys(null), Array.from(undefined), ... are TypeErrors. */
function notNullish(v: unknown): void {
  if (v == null) throw vmError('TYPE_ERROR', `Cannot convert ${v} to object`)
}

/** Own keys, with a string's index keys paid for (and size-checked) before they are made. */
function keysOf(rt: Run, o: unknown): string[] {
  notNullish(o)
  if (typeof o === 'string') chargeProps(rt, o.length)
  else if (Array.isArray(o)) chargeScan(rt, o.length)
  return ownKeys(o)
}

function toArray(rt: Run, v: unknown): unknown[] {
  if (Array.isArray(v)) { rt.chargeSlots(v.length); return v.slice() }
  if (typeof v === 'string') { rt.chargeSlots(v.length); return [...v] }
  if (v !== null && typeof v === 'object') {
    // JS's ToLength of the length, whatever its type: cut, at least 0 ({ length: 1.5 } has one item, { length: -1 } none).
    const len = (v as any).length
    const n = Math.max(0, Math.trunc(Number(toPrim(rt, len))) || 0)
    rt.chargeSlots(n)
    return Array.from({ length: n }, (_, i) => (v as any)[i])
  }
  return []
}

const ARRAY: Record<string, Builtin> = {
  isArray: (_rt, [v]) => Array.isArray(v),
  // Its mapper is never a guest value (`Array.from(x, (v, i) => ...)` compiles to Array.from(x).map(...)).
  from: (rt, [v, f]) => {
    notNullish(v)
    if (f !== undefined) throw vmError('TYPE_ERROR', 'The second argument of Array.from must be a function')
    return toArray(rt, v)
  },
  of: (rt, a) => { rt.chargeSlots(a.length); return a.slice() },
  // `new Array(n).fill(v)`, `[...Array(n)]`, `Array(n).keys()` lower to this (transpiler lower/arrays.ts): n
  // copies of v, paid before they are made; JavaScript's RangeError for a bad length. A "length" that is no
  // number is the one item (`new Array('3')` is `['3']`): filled, `[v]`; read as it is, `[n]`.
  filled: (rt, a) => {
    const [n, v] = a
    if (typeof n !== 'number') { rt.chargeSlots(1); return [a.length > 1 ? v : n] }
    if (!Number.isInteger(n) || n < 0 || n > 4294967295) throw vmError('RANGE_ERROR', 'Invalid array length')
    rt.chargeSlots(n)
    return new Array(n).fill(v)
  },
}

const NUMBER: Record<string, Builtin> = {
  isInteger: (_rt, [v]) => Number.isInteger(v),
  isFinite: (_rt, [v]) => Number.isFinite(v),
  isNaN: (_rt, [v]) => Number.isNaN(v),
  isSafeInteger: (_rt, [v]) => Number.isSafeInteger(v),
  parseFloat: (_rt, [v]) => Number.parseFloat(String(v)),
  parseInt: (_rt, [v, r]) => Number.parseInt(String(v), r as number | undefined),
}

const STRING: Record<string, Builtin> = {
  fromCharCode: (rt, a) => rt.chargeString(String.fromCharCode(...(a as number[]))),
  fromCodePoint: (rt, a) => rt.chargeString(nativeOp('RANGE_ERROR', () => String.fromCodePoint(...(a as number[])))),
}

const DATE: Record<string, Builtin> = {
  now: (rt) => rt.now(),
  parse: (rt, [s]) => { const text = String(s); chargeScan(rt, text.length); return parseDate(text) },
  UTC: (_rt, a) => Date.UTC(...(a as [number, number])),
  /** ISO 8601 text of a millisecond timestamp (plain-data stand-in for `new Date(ms).toISOString()`). */
  toISOString: (_rt, [ms]) => {
    const d = new Date(ms as number)
    if (Number.isNaN(d.getTime())) throw vmError('RANGE_ERROR', 'Invalid time value')
    return d.toISOString()
  },
}

const JSON_NS: Record<string, Builtin> = {
  // Its text is converted first, as in JS (JSON.parse(1) is 1); the jsonParse atom wants a string.
  parse: (rt, [text]) => jsonParse(rt, guestString(rt, text)),
  stringify: (rt, [value, replacer, indent]) => jsonStringify(rt, value, indent, Array.isArray(replacer) ? replacer : undefined),
}

const CONSOLE: Record<string, Builtin> = {
  // Values are turned into text here, bounded (a shared nested array would make the native JSON.stringify exponential).
  log: (rt, a) => { rt.log('log', a.map((v) => jsonText(rt, v))); return undefined },
  info: (rt, a) => { rt.log('info', a.map((v) => jsonText(rt, v))); return undefined },
  warn: (rt, a) => { rt.log('warn', a.map((v) => jsonText(rt, v))); return undefined },
  error: (rt, a) => { rt.log('error', a.map((v) => jsonText(rt, v))); return undefined },
}

/** Namespace statics, bound at compile time when the namespace name is not shadowed (one per name of ast/globals.ts). */
export const NAMESPACES: Record<string, Record<string, Builtin>> = {
  Math: MATH,
  JSON: JSON_NS,
  Object: OBJECT,
  Array: ARRAY,
  Number: NUMBER,
  String: STRING,
  Date: DATE,
  Set: SET_HELPERS,
  // Its statics are the maps part's (part-statics.ts): what a Map variable's methods lower to.
  Map: {},
  console: CONSOLE,
} satisfies Record<GlobalNamespaceName, Record<string, Builtin>>

/** btoa/atob: a TYPE_ERROR without the argument or for a character they cannot take (a DOMException in JavaScript). */
function base64(fn: (t: string) => string, grows: number): Builtin {
  return (rt, a) => {
    if (a.length === 0) throw vmError('TYPE_ERROR', '1 argument required')
    const t = String(a[0])
    if (t.length * grows > rt.maxStringLength) rt.heapLimit(t.length * 3)
    return rt.chargeString(nativeOp('TYPE_ERROR', () => fn(t)))
  }
}

/** Builtins that take their arguments as they are (`coercing` leaves them alone). */
const AS_IS = new Set<Builtin>()
const asIs = (fn: Builtin): Builtin => (AS_IS.add(fn), fn)
/** Builtins that convert their arguments to numbers natively: a long text is paid first (`coercing`). */
const TO_NUMBER = new Set<Builtin>()
const toNumber = (fn: Builtin): Builtin => (TO_NUMBER.add(fn), fn)

function makeError(name: string): Builtin {
  return asIs((rt, [message, options]) => {
    const err: Record<string, unknown> = { name, message: message === undefined ? '' : guestString(rt, message) }
    if (options && typeof options === 'object' && 'cause' in options) err.cause = (options as any).cause
    rt.chargeSlots(2)
    return err
  })
}

/** Global functions callable with `call` (one per name of ast/globals.ts). */
export const GLOBAL_FUNCTIONS: Record<string, Builtin> = {
  parseInt: toNumber((_rt, [v, r]) => Number.parseInt(String(v), r as number | undefined)),
  parseFloat: toNumber((_rt, [v]) => Number.parseFloat(String(v))),
  isNaN: toNumber((_rt, [v]) => Number.isNaN(Number(v))),
  isFinite: toNumber((_rt, [v]) => Number.isFinite(Number(v))),
  Number: toNumber((_rt, a) => (a.length === 0 ? 0 : Number(a[0]))),
  String: (rt, a) => (a.length === 0 ? '' : rt.chargeString(String(a[0]))),
  Boolean: asIs((_rt, [v]) => Boolean(v)),
  Error: makeError('Error'),
  TypeError: makeError('TypeError'),
  RangeError: makeError('RangeError'),
  SyntaxError: makeError('SyntaxError'),
  // Up to 9 characters per UTF-16 unit: built in bounded pieces, never over the limit.
  encodeURIComponent: (rt, [v]) => rt.chargeString(nativeOp('TYPE_ERROR', () => mapBounded(rt, String(v), 9, encodeURIComponent), 'URI malformed')),
  decodeURIComponent: (rt, [v]) => rt.chargeString(nativeOp('TYPE_ERROR', () => decodeURIComponent(String(v)), 'URI malformed')),
  encodeURI: (rt, [v]) => rt.chargeString(nativeOp('TYPE_ERROR', () => mapBounded(rt, String(v), 9, encodeURI), 'URI malformed')),
  decodeURI: (rt, [v]) => rt.chargeString(nativeOp('TYPE_ERROR', () => decodeURI(String(v)), 'URI malformed')),
  // Base64 of a text of Latin-1 characters (4 for every 3, checked before it is built), and back.
  btoa: base64((t) => btoa(t), 4 / 3),
  atob: base64((t) => atob(t), 1),
  structuredClone: asIs((rt, a) => structuredCloneGuest(rt, a)),
  // `new RegExp(p, flags)`: made by the regex part (regex-construct.ts), or FEATURE_MISSING without it.
  RegExp: asIs((rt, [p, f]) => regexSupport().construct(rt, isRegex(p) ? p : p === undefined ? '' : guestString(rt, p), f === undefined ? f : guestString(rt, f))),
} satisfies Record<GlobalFunctionName, Builtin>

/**
 * Builtins whose native counterparts coerce their arguments get them through
 * the guarded ToPrimitive first (builtins/coerce.ts): `Math.max(dag)` or
 * `parseInt(dag)` would otherwise run an exponential native join.
 */
function coercing(table: Record<string, Builtin>, except: readonly string[] = [], toNumbers: readonly string[] | 'all' = []): void {
  for (const k of Object.keys(table)) {
    const fn = table[k]!
    if (except.includes(k) || AS_IS.has(fn)) continue
    // Those that convert their arguments to numbers natively (`Number(t)`, `parseFloat(t)`, `Math.max(t)`) pay a long text first.
    table[k] = toNumbers === 'all' || toNumbers.includes(k) || TO_NUMBER.has(fn)
      ? (rt, a) => { const p = primArgs(rt, a); chargeTextArgs(rt, p); return fn(rt, p) }
      : (rt, a) => fn(rt, primArgs(rt, a))
  }
}
coercing(MATH, ['random', 'abs', 'ceil', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'exp', 'expm1', 'log', 'log2', 'log10', 'log1p',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'fround', 'clz32'], 'all')
coercing(NUMBER, ['isInteger', 'isFinite', 'isNaN', 'isSafeInteger'], 'all')
coercing(STRING, [], 'all')
coercing(DATE, ['now'], ['UTC', 'toISOString'])
coercing(GLOBAL_FUNCTIONS)

/** Identifiers that are values: constants and the namespaces (as data holding their constants), as named in ast/globals.ts. */
export const GLOBAL_VALUES: Record<string, unknown> = {
  undefined: undefined,
  NaN: NaN,
  Infinity: Infinity,
  Math: freezeData(MATH_CONSTANTS),
  Number: freezeData(NUMBER_CONSTANTS),
  JSON: freezeData({}),
  Object: freezeData({}),
  Array: freezeData({}),
  String: freezeData({}),
  Date: freezeData({}),
  Set: freezeData({}),
  Map: freezeData({}),
  console: freezeData({}),
} satisfies Record<GlobalValueName | GlobalNamespaceName, unknown>
