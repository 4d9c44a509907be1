/**
 * Subscripts: `x[i]`, `x[a:b:c]`, `x[i] = v`, `del x[i]` on str (by code
 * point), list, tuple, dict and range, with Python's negative indexes and
 * slice rules.
 */
import { PyDeque, PyDict, PyOpaque, PyRange, isTuple, tuple, typeName } from './values.ts'
import { reItem } from './re.ts'
import { raise, typeError } from './errors.ts'
import { hashKey, iterate, repr } from './core.ts'
import { MISSING, guestDelItem, guestIndex, guestItem, guestSetItem } from './dunders.ts'
import { PySignalDict, deleteSignal } from './decimal-signals.ts'
import { codePoints, hasAstral } from './text.ts'
import { fitsSsize, intOf, isIntValue } from './numbers.ts'
import type { PyRun } from './fuel.ts'

/** An index operand as a JS number (bool counts as int; floats are refused like CPython). */
export function indexOf(x: unknown, what: string): number {
  if (typeof x === 'number' && Number.isInteger(x)) return x
  if (typeof x === 'boolean') return x ? 1 : 0
  if (typeof x === 'bigint') {
    // Beyond an index-sized int CPython cannot even try (a range computes with any int); else beyond any
    // length, reported as out of range by the caller.
    if (what !== 'range' && !fitsSsize(x)) raise('IndexError', "cannot fit 'int' into an index-sized integer")
    return Number(x)
  }
  const g = guestIndex(x)
  if (g !== MISSING) return indexOf(g, what)
  // CPython 3.11's str words it apart (and quotes the type).
  return typeError(what === 'string' ? `string indices must be integers, not '${typeName(x)}'` : `${what} indices must be integers or slices, not ${typeName(x)}`)
}

/** A deque's index (CPython's deque takes no slice, and words its errors as a sequence's). */
function dequeIndex(q: PyDeque, k: unknown): number {
  if (!isIntValue(k) && guestIndex(k) === MISSING) typeError(`sequence index must be integer, not '${typeName(k)}'`)
  return normalize(indexOf(k, 'deque'), q.length, 'deque')
}

function normalize(i: number, n: number, what: string): number {
  const j = i < 0 ? i + n : i
  if (j < 0 || j >= n) raise('IndexError', `${what} index out of range`)
  return j
}

/** `slice(start, stop, step)`: what `x[a:b]` hands an object's `__getitem__`; indexing a sequence with it slices. */
export class PySlice extends PyOpaque {
  readonly typeName = 'slice'
  constructor(readonly start: unknown, readonly stop: unknown, readonly step: unknown) {
    super()
  }
  override repr(): string {
    return `slice(${repr(this.start)}, ${repr(this.stop)}, ${repr(this.step)})`
  }
  /** `s.start`, `s.stop`, `s.step`; undefined for another name. */
  attr(name: string): unknown {
    return name === 'start' ? this.start : name === 'stop' ? this.stop : name === 'step' ? this.step : undefined
  }
}

/** `slice(stop)`, `slice(start, stop[, step])`. */
export function makeSlice(a: readonly unknown[]): PySlice {
  if (a.length < 1 || a.length > 3) typeError(a.length ? `slice expected at most 3 arguments, got ${a.length}` : 'slice expected at least 1 argument, got 0')
  return a.length === 1 ? new PySlice(null, a[0], null) : new PySlice(a[0], a[1], a.length > 2 ? a[2] : null)
}

export function getItem(rt: PyRun, x: unknown, k: unknown): unknown {
  if (Array.isArray(x)) {
    if (typeof k === 'number') {
      const i = k < 0 ? k + x.length : k
      if (i >= 0 && i < x.length && Number.isInteger(k)) return x[i]
    }
    if (x instanceof PyDeque) return x[dequeIndex(x, k)]
    if (k instanceof PySlice) return getSlice(rt, x, k.start, k.stop, k.step)
    const what = Object.isFrozen(x) ? 'tuple' : 'list'
    return x[normalize(indexOf(k, what), x.length, what)]
  }
  if (x instanceof PyDict) {
    const e = x.map.get(hashKey(k))
    if (e === undefined) {
      if (x.missing !== undefined) return x.missing(k)
      throw keyError(k)
    }
    return e[1]
  }
  if (x instanceof PyOpaque) {
    if (x instanceof PySignalDict) return x.has(k)
    const r = reItem(x, k)
    if (r !== undefined) return r
  }
  if (typeof x === 'string') {
    if (k instanceof PySlice) return getSlice(rt, x, k.start, k.stop, k.step)
    const i = indexOf(k, 'string')
    if (!hasAstral(x)) return x[normalize(i, x.length, 'string')]
    const cps = codePoints(x)
    rt.chargeSlots(cps.length)
    return cps[normalize(i, cps.length, 'string')]
  }
  if (x instanceof PyRange) return k instanceof PySlice ? getSlice(rt, x, k.start, k.stop, k.step) : x.at(normalize(indexOf(k, 'range'), x.length, 'range object'))
  const r = guestItem(x, k)
  return r !== MISSING ? r : typeError(`'${typeName(x)}' object is not subscriptable`)
}

import { PyRaise } from './errors.ts'
import { PyException, typeByName } from './values.ts'
function keyError(k: unknown): PyRaise {
  const msg = repr(k)
  return new PyRaise(new PyException(typeByName('KeyError')!, [k], msg), msg)
}
export { keyError }

export function setItem(rt: PyRun, x: unknown, k: unknown, v: unknown): void {
  if (Array.isArray(x)) {
    if (Object.isFrozen(x)) typeError("'tuple' object does not support item assignment")
    if (x instanceof PyDeque) { x[dequeIndex(x, k)] = v; return }
    // `xs[s] = v` with a slice object (a guest `__setitem__` handing its key on): as `xs[a:b:c] = v`.
    if (k instanceof PySlice) return setSlice(rt, x, k.start, k.stop, k.step, v)
    x[normalize(indexOf(k, 'list'), x.length, 'list assignment')] = v
    return
  }
  if (x instanceof PyDict) {
    const h = hashKey(k)
    const e = x.map.get(h)
    if (e) e[1] = v
    else { rt.chargeSlots(2); x.map.set(h, [k, v]) }
    return
  }
  if (x instanceof PySignalDict) return x.set(k, v)
  if (guestSetItem(x, k, v) === MISSING) typeError(`'${typeName(x)}' object does not support item assignment`)
}

export function delItem(x: unknown, k: unknown): void {
  if (Array.isArray(x)) {
    if (Object.isFrozen(x)) typeError("'tuple' object doesn't support item deletion")
    if (x instanceof PyDeque) { x.splice(dequeIndex(x, k), 1); return }
    if (k instanceof PySlice) return delSlice(x, k.start, k.stop, k.step)
    x.splice(normalize(indexOf(k, 'list'), x.length, 'list assignment'), 1)
    return
  }
  if (x instanceof PyDict) {
    if (!x.map.delete(hashKey(k))) throw keyError(k)
    return
  }
  if (x instanceof PySignalDict) deleteSignal()
  if (guestDelItem(x, k) === MISSING) typeError(`'${typeName(x)}' object doesn't support item deletion`)
}

function sliceIndex(v: unknown): number | null {
  if (v === null || v === undefined) return null
  if (isIntValue(v)) {
    const i = intOf(v)
    return typeof i === 'bigint' ? (i < 0n ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER) : i
  }
  const g = guestIndex(v)
  return g !== MISSING ? sliceIndex(g) : typeError('slice indices must be integers or None or have an __index__ method')
}

/** The indices a slice selects in a sequence of length n (CPython's PySlice_AdjustIndices). */
export function sliceIndices(n: number, lo: unknown, hi: unknown, st: unknown): { start: number; step: number; count: number } {
  const s = sliceIndex(st)
  const step = s === null ? 1 : s
  if (step === 0) raise('ValueError', 'slice step cannot be zero')
  let start = sliceIndex(lo), stop = sliceIndex(hi)
  if (start === null) start = step < 0 ? n - 1 : 0
  else if (start < 0) { start += n; if (start < 0) start = step < 0 ? -1 : 0 } else if (start >= n) start = step < 0 ? n - 1 : n
  if (stop === null) stop = step < 0 ? -1 : n
  else if (stop < 0) { stop += n; if (stop < 0) stop = step < 0 ? -1 : 0 } else if (stop >= n) stop = step < 0 ? n - 1 : n
  let count = 0
  if (step < 0) { if (stop < start) count = Math.floor((start - stop - 1) / -step) + 1 } else if (start < stop) count = Math.floor((stop - start - 1) / step) + 1
  return { start, step, count }
}

export function getSlice(rt: PyRun, x: unknown, lo: unknown, hi: unknown, st: unknown): unknown {
  if (x instanceof PyDeque) noDequeSlice()
  if (typeof x === 'string') {
    const astral = hasAstral(x)
    const cps: ArrayLike<string> = astral ? codePoints(x) : x
    const { start, step, count } = sliceIndices(cps.length, lo, hi, st)
    if (step === 1 && !astral) return rt.chargeString(x.slice(start, start + count))
    let out = ''
    for (let i = 0, j = start; i < count; i++, j += step) out += cps[j]
    return rt.chargeString(out)
  }
  if (Array.isArray(x)) {
    const { start, step, count } = sliceIndices(x.length, lo, hi, st)
    rt.chargeSlots(count)
    const out = step === 1 ? x.slice(start, start + count) : Array.from({ length: count }, (_, i) => x[start + i * step])
    return Object.isFrozen(x) ? tuple(out) : out
  }
  if (x instanceof PyRange) {
    const { start, step, count } = sliceIndices(x.length, lo, hi, st)
    const first = x.at(start)
    return new PyRange(first, first + count * step * x.step, step * x.step)
  }
  // A guest `__getitem__` gets slice(lo, hi, step), as in CPython.
  const r = guestItem(x, new PySlice(lo ?? null, hi ?? null, st ?? null))
  return r !== MISSING ? r : typeError(`'${typeName(x)}' object is not subscriptable`)
}

/** The items a list slice is assigned: CPython's PySequence_Fast names the assignment when v is not iterable. */
function assignedItems(rt: PyRun, v: unknown): unknown[] {
  try {
    return iterate(v, rt).slice()
  } catch (e) {
    const x = (e as { value?: unknown } | null)?.value
    if (x instanceof PyException && x.type.name === 'TypeError' && x.message === `'${typeName(v)}' object is not iterable`) typeError('can only assign an iterable')
    throw e
  }
}

/** `x[lo:hi:st] = v`: a list takes v's items; a guest `__setitem__` gets slice(lo, hi, st) and v itself, as in CPython. */
export function setSlice(rt: PyRun, x: unknown, lo: unknown, hi: unknown, st: unknown, v: unknown): void {
  if (x instanceof PyDeque) noDequeSlice()
  if (!Array.isArray(x) || Object.isFrozen(x)) {
    if (guestSetItem(x, new PySlice(lo ?? null, hi ?? null, st ?? null), v) === MISSING) typeError(`'${typeName(x)}' object does not support item assignment`)
    return
  }
  const list = x as unknown[]
  const items = assignedItems(rt, v)
  const { start, step, count } = sliceIndices(list.length, lo, hi, st)
  rt.chargeSlots(items.length)
  if (st === null || st === undefined || step === 1) {
    list.splice(start, count, ...items)
    return
  }
  if (items.length !== count) raise('ValueError', `attempt to assign sequence of size ${items.length} to extended slice of size ${count}`)
  for (let i = 0; i < count; i++) list[start + i * step] = items[i]
}

/** `del x[lo:hi:st]`: a guest `__delitem__` gets slice(lo, hi, st), as in CPython. */
/** A deque takes no slice (CPython's TypeError; `list(q)[a:b]` or itertools.islice). */
const noDequeSlice = (): never => typeError("sequence index must be integer, not 'slice'")

export function delSlice(x: unknown, lo: unknown, hi: unknown, st: unknown): void {
  if (x instanceof PyDeque) noDequeSlice()
  if (!Array.isArray(x) || Object.isFrozen(x)) {
    // CPython 3.11 words this one "does not" (`del t[0]` of a tuple: "doesn't").
    if (guestDelItem(x, new PySlice(lo ?? null, hi ?? null, st ?? null)) === MISSING) typeError(`'${typeName(x)}' object does not support item deletion`)
    return
  }
  const list = x as unknown[]
  const { start, step, count } = sliceIndices(list.length, lo, hi, st)
  if (step === 1) { list.splice(start, count); return }
  const drop = new Set<number>()
  for (let i = 0; i < count; i++) drop.add(start + i * step)
  const keep = list.filter((_, i) => !drop.has(i))
  list.length = 0
  list.push(...keep)
}

export { isTuple }
