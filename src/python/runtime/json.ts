/**
 * Crossing the boundary: JSON data in (the wrapper's arguments) and out (the
 * block's dict), the way `json.loads` / `json.dumps` see it.
 */
import { PyDeque, PyDict, PyDictView, PyFloat, PyRange, PySet, isTuple, mkFloat, shortTypeName, typeName } from './values.ts'
import { raise, typeError } from './errors.ts'
import { hashKey, lt } from './core.ts'
import { floatRepr } from './float-text.ts'
import type { PyRun } from './fuel.ts'
import { loadsExact } from './extended.ts'
import { decimalText } from './numbers.ts'

/** JSON data to Python values: objects become dicts, arrays lists, whole numbers ints. */
export function fromJson(rt: PyRun, v: unknown): unknown {
  if (v === undefined) return null
  if (typeof v === 'number') return Number.isInteger(v) ? (Number.isSafeInteger(v) ? v : BigInt(v)) : v
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    rt.chargeSlots(v.length)
    return v.map((x) => fromJson(rt, x))
  }
  const d = new PyDict()
  const keys = Object.keys(v)
  rt.chargeSlots(keys.length * 2)
  for (const k of keys) d.map.set(hashKey(k), [k, fromJson(rt, (v as Record<string, unknown>)[k])])
  return d
}

/** Bind the wrapper's parameters from the run's args: `_block(initial=..., **pipeline_input)`. */
export function bindArgs(rt: PyRun, args: unknown, params: readonly string[], defaults: number): unknown[] {
  let given = (args ?? {}) as Record<string, unknown>
  // `$json`: JSON text of an object whose members are more arguments, read exactly (`2.0` a float).
  let exact: PyDict | null = null
  if (typeof given.$json === 'string') {
    const parsed = loadsExact(rt, given.$json)
    if (!(parsed instanceof PyDict)) typeError('the JSON input must be an object')
    exact = parsed as PyDict
    const { $json: _text, ...rest } = given
    given = rest
    for (const [k] of exact.map.values()) given[k as string] = null
  }
  const names = new Set(params)
  for (const k of Object.keys(given)) {
    if (!names.has(k)) typeError(`_block() got an unexpected keyword argument '${k}'`)
  }
  const required = params.length - defaults
  const missing = params.filter((p, i) => i < required && !Object.prototype.hasOwnProperty.call(given, p))
  if (missing.length) {
    const list = missing.map((m) => `'${m}'`)
    const text = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`
    typeError(`_block() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${text}`)
  }
  return params.map((p) => {
    if (!Object.prototype.hasOwnProperty.call(given, p)) return undefined
    const e = exact?.map.get(hashKey(p))
    return e ? e[1] : fromJson(rt, given[p])
  })
}

export function keyText(k: unknown): string {
  if (typeof k === 'string') return k
  if (typeof k === 'boolean') return k ? 'true' : 'false'
  if (k === null || k === undefined) return 'null'
  if (typeof k === 'number') return Number.isInteger(k) ? String(k) : jsonFloat(k)
  if (typeof k === 'bigint') return decimalText(k)
  if (k instanceof PyFloat) return jsonFloat(k.v)
  // CPython names the type in full here (`decimal.Decimal`), unlike its 'Object of type Decimal'.
  return typeError(`keys must be str, int, float, bool or None, not ${typeName(k)}`)
}

export function jsonFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return 'Infinity'
  if (v === -Infinity) return '-Infinity'
  return floatRepr(v)
}

function notSerializable(v: unknown): never {
  return typeError(`Object of type ${shortTypeName(typeName(v))} is not JSON serializable`)
}

/** The value as JSON data for the host (insertion order kept; exact ints only). */
export function toData(rt: PyRun, v: unknown, depth = 0): unknown {
  if (depth > 1000) raise('RecursionError', 'maximum recursion depth exceeded while encoding a JSON object')
  switch (typeof v) {
    case 'string': case 'boolean': return v
    case 'number': return v
    case 'undefined': return null
    case 'bigint': return raise('OverflowError', `int ${v} is too large to cross as exact JSON data (beyond 2**53); return str(n) instead`)
  }
  if (v === null) return null
  if (v instanceof PyFloat) return v.v
  if (v instanceof PyDeque) return notSerializable(v)
  if (Array.isArray(v)) {
    rt.chargeSlots(v.length)
    return v.map((x) => toData(rt, x, depth + 1))
  }
  if (v instanceof PyDict) {
    const out: Record<string, unknown> = {}
    rt.chargeSlots(v.size)
    for (const [k, x] of v.map.values()) {
      const key = keyText(k)
      const val = toData(rt, x, depth + 1)
      if (key === '__proto__') Object.defineProperty(out, key, { value: val, enumerable: true, writable: true, configurable: true })
      else out[key] = val
    }
    return out
  }
  return notSerializable(v)
}

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' }

function jsonString(s: string): string {
  return '"' + s.replace(/["\\\x00-\x1f\u007f-\uffff]/g, (c) => ESCAPES[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '"'
}

/** json.dumps(v, sort_keys=True), byte for byte. */
export function dumps(rt: PyRun, v: unknown, depth = 0): string {
  if (depth > 1000) raise('RecursionError', 'maximum recursion depth exceeded while encoding a JSON object')
  switch (typeof v) {
    case 'string': return jsonString(v)
    case 'boolean': return v ? 'true' : 'false'
    case 'number': return Number.isInteger(v) ? String(v) : jsonFloat(v)
    case 'bigint': return decimalText(v)
    case 'undefined': return 'null'
  }
  if (v === null) return 'null'
  if (v instanceof PyFloat) return jsonFloat(v.v)
  if (v instanceof PyDeque) return notSerializable(v)
  if (Array.isArray(v)) {
    rt.chargeSlots(v.length)
    return '[' + v.map((x) => dumps(rt, x, depth + 1)).join(', ') + ']'
  }
  if (v instanceof PyDict) {
    const entries = [...v.map.values()]
    rt.chargeSlots(entries.length)
    entries.sort((a, b) => (lt(a[0], b[0]) ? -1 : lt(b[0], a[0]) ? 1 : 0))
    return '{' + entries.map(([k, x]) => `${jsonString(keyText(k))}: ${dumps(rt, x, depth + 1)}`).join(', ') + '}'
  }
  if (v instanceof PySet || v instanceof PyRange || v instanceof PyDictView || isTuple(v)) return notSerializable(v)
  return notSerializable(v)
}

/** The contract: a block returns a dict. */
export function checkResult(v: unknown): PyDict {
  if (!(v instanceof PyDict)) typeError(`a code block must return a dict, not ${typeName(v)}`)
  return v as PyDict
}

export { mkFloat }
