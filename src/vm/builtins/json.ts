/** JSON parse/stringify with allocation charged and forbidden keys stripped. */
import type { Run } from '../runtime.ts'
import { VmError, vmError } from '../errors.ts'
import { isForbiddenKey } from '../guards.ts'
import { isRegex } from './regex-hook.ts'
import { guestString } from './coerce.ts'
import { chargeScan } from './sizes.ts'
import { parseCheckedKeys } from './json-keys.ts'

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

/**
 * Whether a parsed value has a forbidden own key anywhere. A walk of what JSON.parse built (a few
 * nanoseconds per object) instead of a scan of the text for the names and `\\u` escapes (which cost
 * a quarter of a small parse and stripped on any mention of the words, keys or not). Iterative:
 * parsed JSON may nest deeper than the stack.
 */
function hasForbiddenKey(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false
  const stack: object[] = [v]
  while (stack.length > 0) {
    const o = stack.pop()!
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const x = o[i]
        if (x !== null && typeof x === 'object') stack.push(x)
      }
      continue
    }
    // JSON.parse's objects are plain with own data properties only (a "__proto__" key included).
    for (const k in o) {
      if (isForbiddenKey(k)) return true
      const x = (o as Record<string, unknown>)[k]
      if (x !== null && typeof x === 'object') stack.push(x)
    }
  }
  return false
}

/** Heap bytes per character of JSON text, at most (`[]` is 2 characters for a ~32-byte array). */
const PARSED_BYTES_PER_CHAR = 16
const CONTAINER_BYTES = 32
const ITEM_BYTES = 16

/**
 * Heap the parsed value will take, estimated from the text before parsing:
 * containers, items and characters. Only text whose worst case could pass
 * `maxHeapBytes` is scanned.
 */
function checkParsedSize(rt: Run, text: string): void {
  if (text.length * PARSED_BYTES_PER_CHAR <= rt.maxHeapBytes) return
  let containers = 0
  let items = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 91 || c === 123) containers++ // [ {
    else if (c === 44) items++ // ,
  }
  const bytes = containers * CONTAINER_BYTES + (items + containers) * ITEM_BYTES + text.length * 2
  if (bytes > rt.maxHeapBytes) rt.heapLimit(bytes)
}

export function jsonParse(rt: Run, text: unknown): unknown {
  if (typeof text !== 'string') throw vmError('JSON_ERROR', 'JSON.parse expects a string')
  rt.chargeString(text)
  rt.chargeSlots(Math.ceil(text.length / 8))
  checkParsedSize(rt, text)
  let value: unknown
  try {
    value = parseCheckedKeys(text)
  } catch (e) {
    if (e instanceof VmError) throw e
    throw vmError('JSON_ERROR', (e as Error).message)
  }
  return hasForbiddenKey(value) ? strip(value) : value
}

/**
 * Size check before JSON.stringify. The native call cannot be interrupted, and
 * a shared nested structure (`a = [a, a]` forty times) is tiny in memory but
 * serialises to 2^40 nodes. This walk (as fast as the native call itself)
 * counts nodes and characters, indentation included, against the string
 * ceiling and checks the deadline, so the text is only built when it fits.
 * Cycles are left for the native call to report as a TypeError.
 */
function checkJsonSize(rt: Run, value: unknown, pad: number, keys: number): void {
  const walk = new JsonSizeWalk(rt, pad)
  walk.visit(value, 1)
  if (walk.chars > rt.maxStringLength) rt.heapLimit(walk.chars * 2)
  // A key list is looked up in every object: its length times theirs.
  chargeScan(rt, walk.objects * keys)
}

/** Below this depth the walk keeps no path: a cycle always goes deeper, and is caught there. */
const UNTRACKED_DEPTH = 32

class JsonSizeWalk {
  chars = 0
  objects = 0
  /** Objects on the current path below UNTRACKED_DEPTH (cycle detection). */
  private path: Set<object> | null = null
  private readonly max: number
  constructor(private readonly rt: Run, private readonly pad: number) {
    this.max = rt.maxStringLength
  }

  visit(v: unknown, depth: number): void {
    if (v === null || typeof v !== 'object') {
      this.chars += typeof v === 'string' ? v.length + 2 : 8
      return
    }
    const tracked = depth > UNTRACKED_DEPTH
    if (tracked) {
      const path = (this.path ??= new Set())
      if (path.has(v)) return
      if (depth > MAX_JSON_DEPTH) throw vmError('RANGE_ERROR', `The value nests deeper than ${MAX_JSON_DEPTH} levels to serialise`)
      path.add(v)
    }
    const indent = this.pad * depth
    this.chars += 2 + indent
    if (this.chars > this.max) this.rt.heapLimit(this.chars * 2)
    this.rt.tick()
    if (Array.isArray(v)) {
      chargeScan(this.rt, v.length)
      for (let i = 0; i < v.length; i++) { this.chars += 1 + indent; this.visit(v[i], depth + 1) }
    } else if (!isRegex(v)) {
      this.objects++
      for (const k in v) { this.chars += k.length + 4 + indent; this.visit((v as any)[k], depth + 1) }
    }
    if (tracked) this.path!.delete(v)
  }
}

const MAX_JSON_DEPTH = 5_000

/** `keys`: JSON.stringify's replacer when it is a list (the keys kept, in its order; a function never is a guest value). */
export function jsonStringify(rt: Run, value: unknown, indent?: unknown, keys?: unknown[]): string | undefined {
  const space = typeof indent === 'number' ? Math.min(10, Math.max(0, indent)) : typeof indent === 'string' ? indent.slice(0, 10) : undefined
  const n = keys ? keys.length : 0
  chargeScan(rt, n)
  if (value !== null && typeof value === 'object') checkJsonSize(rt, value, typeof space === 'number' ? space : space === undefined ? 0 : space.length, n)
  let out: string | undefined
  try {
    // Only a list's strings and numbers are read (an object in it is skipped, never converted), as the size walk assumes: it can only shorten the text.
    out = JSON.stringify(value, (keys as (string | number)[] | undefined) ?? null, space)
  } catch (e) {
    if (e instanceof VmError) throw e
    if (e instanceof RangeError) rt.heapLimit(rt.maxHeapBytes + 1)
    throw vmError('TYPE_ERROR', (e as Error).message)
  }
  return out === undefined ? undefined : rt.chargeString(out)
}

/** Text of a value for logs and templates: JSON when it can be, else its string form; bounded. */
export function jsonText(rt: Run, value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return jsonStringify(rt, value) ?? guestString(rt, value)
  } catch (e) {
    if (e instanceof VmError && e.fatal) throw e
    return guestString(rt, value)
  }
}

class PreviewFull extends Error {}

/** Short JSON text of a guest value for error messages: bounded, never throws. */
export function jsonPreview(value: unknown, maxChars = 200): string {
  let chars = 0
  try {
    return (JSON.stringify(value, (k, v) => {
      chars += k.length + (typeof v === 'string' ? v.length : 4)
      if (chars > maxChars * 4) throw new PreviewFull()
      return isRegex(v) ? v.toString() : v
    }) ?? 'undefined').slice(0, maxChars)
  } catch {
    return '(value too large to show)'
  }
}
