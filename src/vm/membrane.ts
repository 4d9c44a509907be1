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
import { isRegex } from './builtins/regex-hook.ts'

export interface CopyLimits {
  /** Maximum number of values (nodes) copied. */
  maxNodes: number
  /** Maximum total string characters copied. */
  maxChars: number
  maxDepth: number
}

export const DEFAULT_COPY_LIMITS: CopyLimits = { maxNodes: 1_000_000, maxChars: 50_000_000, maxDepth: 500 }

/** Values an atom call copies in or out within its own cost; beyond that each costs SLOT_COST. */
export const FREE_COPY_NODES = 100

/**
 * Deep-copy host data into guest-safe plain data. Throws VALUE_NOT_DATA /
 * VALUE_TOO_LARGE. Own enumerable properties are read once (a host getter
 * runs once, its value is copied); functions and symbols are dropped; Dates
 * become ISO strings; Maps, Sets, typed arrays and promises are refused.
 * Cycle tracking starts below a shallow depth: typical small args pay nothing.
 */
export function copyIn(value: unknown, limits: CopyLimits = DEFAULT_COPY_LIMITS, what = 'value', rt?: Run): unknown {
  try {
    const copy = new HostCopy(limits, what)
    const out = copy.visit(value, 0)
    // What a host atom hands the guest is allocation like any other: one slot per value copied
    // beyond what the atom's own cost covers.
    if (rt && copy.count > FREE_COPY_NODES) rt.chargeSlots(copy.count - FREE_COPY_NODES)
    return out
  } catch (e) {
    if (e instanceof Error && 'code' in e) throw e
    throw vmError('VALUE_NOT_DATA', `The ${what} could not be read as data: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/** One copyIn walk: counters live on the instance (a closure per call cost more than the copy of small args). */
class HostCopy {
  private nodes = 0
  get count(): number { return this.nodes }
  private chars = 0
  private active: Set<object> | null = null
  constructor(private readonly limits: CopyLimits, private readonly what: string) {}

  visit(v: unknown, depth: number): unknown {
    if (++this.nodes > this.limits.maxNodes) throw vmError('VALUE_TOO_LARGE', `The ${this.what} has more than ${this.limits.maxNodes} values`)
    switch (typeof v) {
      case 'string':
        if ((this.chars += v.length) > this.limits.maxChars) throw vmError('VALUE_TOO_LARGE', `The ${this.what} has more than ${this.limits.maxChars} characters`)
        return v
      case 'number': case 'boolean': case 'undefined':
        return v
      case 'object':
        return v === null ? null : this.object(v, depth)
      case 'bigint':
        throw vmError('VALUE_NOT_DATA', `The ${this.what} contains a BigInt`)
    }
    return undefined // functions and symbols are dropped
  }

  private object(obj: object, depth: number): unknown {
    if (depth > this.limits.maxDepth) throw vmError('VALUE_TOO_LARGE', `The ${this.what} nests deeper than ${this.limits.maxDepth}`)
    if (depth < SHALLOW) return this.copy(obj, depth)
    const active = (this.active ??= new Set())
    if (active.has(obj)) throw vmError('VALUE_NOT_DATA', `The ${this.what} contains a cycle`)
    active.add(obj)
    const out = this.copy(obj, depth)
    active.delete(obj)
    return out
  }

  private copy(obj: object, depth: number): unknown {
    if (Array.isArray(obj)) {
      const n = obj.length
      if (n > this.limits.maxNodes) throw vmError('VALUE_TOO_LARGE', `The ${this.what} has an array of ${n} items`)
      const out = new Array(n)
      for (let i = 0; i < n; i++) out[i] = this.visit(obj[i], depth + 1)
      return out
    }
    const proto = Object.getPrototypeOf(obj)
    if (proto !== Object.prototype && proto !== null) {
      if (isRegex(obj)) return obj
      if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString()
      if (ArrayBuffer.isView(obj) || obj instanceof Map || obj instanceof Set || obj instanceof Promise || obj instanceof WeakMap) {
        throw vmError('VALUE_NOT_DATA', `The ${this.what} contains a ${Object.prototype.toString.call(obj).slice(8, -1)}`)
      }
    }
    const out: Record<string, unknown> = {}
    // A plain object is read by for-in, through V8's enum cache: Object.keys' array and keyed reads
    // made a fifth of a small copy. for-in lists inherited keys too, so only where there are none.
    if (proto === null || (proto === Object.prototype && !enumerableProto())) for (const key in obj) this.put(out, obj, key, depth)
    else for (const key of Object.keys(obj)) this.put(out, obj, key, depth)
    return out
  }

  private put(out: Record<string, unknown>, obj: object, key: string, depth: number): void {
    if (isForbiddenKey(key)) return
    const raw = (obj as Record<string, unknown>)[key]
    const cv = this.visit(raw, depth + 1)
    if (cv !== undefined || raw === undefined) out[key] = cv
  }
}

/** Whether Object.prototype has an enumerable key (someone polluted it): for-in would list it on every object. */
function enumerableProto(): boolean {
  for (const _ in Object.prototype) return true
  return false
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
  return exportNode(value, 0, { nodes: 0, active: null })
}

interface ExportWalk {
  nodes: number
  active: Set<object> | null
}

function exportNode(v: any, depth: number, walk: ExportWalk): unknown {
  if (depth > 10_000) throw vmError('VALUE_TOO_LARGE', 'The result nests too deeply')
  // A shared nested structure (a = [a, a] forty times) is small but has 2^40 paths: count visits.
  if (++walk.nodes > MAX_OUT_NODES) tooManyNodes()
  // A frozen value (a regex, data the guest froze, a namespace) cannot be written in place: copied, a regex as its text.
  if (Object.isFrozen(v)) return copyOut(v)
  const tracked = depth >= SHALLOW
  if (tracked) {
    const active = (walk.active ??= new Set())
    if (active.has(v)) throw vmError('VALUE_NOT_DATA', 'The result contains a cycle')
    active.add(v)
  }
  // Written back only when changed: most stores would be of the same value.
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i]
      if (x !== null && typeof x === 'object') {
        const y = exportNode(x, depth + 1, walk)
        if (y !== x) v[i] = y
      }
    }
  } else {
    // for-in, not Object.keys: it reuses the map's enum cache instead of allocating a key array.
    // Guest objects are plain data, so only own keys are enumerable.
    for (const k in v) {
      const x = v[k]
      if (x !== null && typeof x === 'object') {
        const y = exportNode(x, depth + 1, walk)
        if (y !== x) v[k] = y
      }
    }
  }
  if (tracked) walk.active!.delete(v)
  return v
}

/**
 * Copy a guest value out to the host (regexes become their source text).
 * With a run, the copy is charged to it as it goes (one slot per element or
 * property, a deadline tick per object): a custom atom's input or a stored
 * value is paid for by the guest that built it.
 */
export function copyOut(value: unknown, rt?: Run): unknown {
  let nodes = 0
  let slots = 0
  const charge = (n: number) => {
    if ((slots += n) > FREE_COPY_NODES) { rt!.chargeSlots(Math.min(n, slots - FREE_COPY_NODES)); rt!.tick() }
  }
  const visit = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'function' ? undefined : v
    if (isRegex(v)) return v.toString()
    if (depth > 10_000) throw vmError('VALUE_TOO_LARGE', 'The result nests too deeply')
    if (++nodes > MAX_OUT_NODES) tooManyNodes()
    if (Array.isArray(v)) {
      if (rt) charge(v.length)
      return v.map((x) => visit(x, depth + 1))
    }
    const keys = Object.keys(v)
    if (rt) charge(keys.length)
    const out: Record<string, unknown> = {}
    for (const k of keys) if (!isForbiddenKey(k)) out[k] = visit((v as any)[k], depth + 1)
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

/**
 * The size of a value as JSON text, in characters (escapes not counted),
 * counted until it passes `max` (then some number above `max`). Cycles and
 * shared parts count once per path, as JSON would write them.
 */
export function jsonSize(v: unknown, max: number, depth = 0): number {
  if (typeof v === 'string') return v.length + 2
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4
  if (v === null || typeof v !== 'object') return v === false ? 5 : 4
  if (isRegex(v)) return v.toString().length + 2
  if (depth > 10_000) throw vmError('VALUE_TOO_LARGE', 'The value nests too deeply')
  let size = 1
  const array = Array.isArray(v)
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k]
    if (!array && (x === undefined || typeof x === 'function')) continue
    if ((size += 1 + (array ? 0 : k.length + 3) + jsonSize(x, max, depth + 1)) > max) break
  }
  return size + (size === 1 ? 1 : 0)
}

/** The `membraneMaxBytes` run option: refuse data over the ceiling crossing into or out of the guest. */
export function checkMembrane(value: unknown, max: number, what: string): void {
  if (max !== Infinity && jsonSize(value, max) > max) throw vmError('VALUE_TOO_LARGE', `The ${what} is over membraneMaxBytes (${max})`)
}
