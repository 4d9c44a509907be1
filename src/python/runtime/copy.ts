/**
 * `copy` (extended profile): `copy.copy(x)` and `copy.deepcopy(x, memo=None)` as CPython 3.11's copy
 * module gives them for the runtime's values. Lists, dicts and sets are rebuilt; tuples are rebuilt
 * only when an item's copy differs (else the tuple itself, as `_deepcopy_tuple`); Counter,
 * OrderedDict, defaultdict (its `default_factory` kept), deque (its `maxlen` kept) and named tuples
 * as their `__reduce__`/`__copy__` rebuild them; Decimal, Fraction, regex objects, functions and
 * classes are the same object (atomic, or a `__copy__` returning self); datetime values a new equal
 * one (their `__reduce__`). A guest instance uses its class's `__copy__` / `__deepcopy__(self, memo)`,
 * else a new instance of its class (no `__init__`) with its attributes, copied for deepcopy. The memo
 * is a Python dict from an object's identity number to its copy (CPython's `id()` keys), holding the
 * originals' keep-alive list under the memo's own, so shared references and cycles come out as
 * CPython's; a guest `__deepcopy__` receives it and may pass it on. Each container is charged its
 * items as `list()`/`dict()` are; nesting beyond MAX_DEPTH is CPython's RecursionError (no host
 * stack overflow).
 */
import { PyDeque, PyDict, PyException, PyFloat, PyFrozenSet, PyInstance, PyIter, PyDictView, PyNamedTuple, PyNumeric, PyRange, PySet, PyType, isList, isTuple, tuple, typeName } from './values.ts'
import { raise, typeError } from './errors.ts'
import { hashKey } from './core.ts'
import { dictSet, setFrom } from './collections.ts'
import { callGuest, guestMethod } from './dunders.ts'
import { PyTime } from './datetime.ts'
import { PyContext } from './decimal-context.ts'
import { SignalCollection } from './decimal-signals.ts'
import { PyCounter, PyDefaultDict, PyOrderedDict } from './modules.ts'
import type { PyRun } from './fuel.ts'

/** Nesting levels a deep copy follows (CPython's limit of 1000 frames, two per level, stops near 500; a guest `__deepcopy__` is also bounded by the VM's call depth). */
const MAX_DEPTH = 1000

/** Identity numbers for the memo's keys (CPython's `id(x)`): stable per object, never reused while it lives. */
const ids = new WeakMap<object, number>()
let nextId = 1
function idOf(x: object): number {
  let n = ids.get(x)
  if (n === undefined) ids.set(x, (n = nextId++))
  return n
}

/**
 * Whether x is its own copy: None, numbers, strings, booleans, types, ranges, Decimal/Fraction, and
 * the values that are functions (any object this module does not rebuild or refuse).
 */
function atomic(x: unknown): boolean {
  if (x === null || typeof x !== 'object') return true
  return x instanceof PyFloat || x instanceof PyType || x instanceof PyRange || x instanceof PyNumeric
}

/** Values CPython cannot copy (no reduce): its `TypeError`. */
function refuse(x: unknown): void {
  if (x instanceof PyIter || x instanceof PyDictView || x instanceof SignalCollection) typeError(`cannot pickle '${typeName(x)}' object`)
}

/** A new empty dict of x's class (a defaultdict keeps its factory). */
function emptyLike(d: PyDict): PyDict {
  if (d instanceof PyDefaultDict) return new PyDefaultDict(d.factory, d.calls)
  if (d instanceof PyCounter) return new PyCounter()
  if (d instanceof PyOrderedDict) return new PyOrderedDict()
  return new PyDict()
}

const newDeque = (d: PyDeque): PyDeque => { const y = new PyDeque(); y.maxlen = d.maxlen; return y }
const namedTuple = (x: PyNamedTuple, items: unknown[]): PyNamedTuple => {
  const y = new PyNamedTuple()
  for (const v of items) y.push(v)
  y.ntype = x.ntype
  return Object.freeze(y)
}
const cloneTime = (x: PyTime): PyTime => new PyTime(x.kind, x.d, x.s, x.u, x.tz)

/** `copy.copy(x)`. */
export function shallowCopy(rt: PyRun, x: unknown): unknown {
  if (atomic(x) || isTuple(x) && !(x instanceof PyNamedTuple)) return x
  refuse(x)
  if (x instanceof PyNamedTuple) { rt.chargeSlots(x.length + 1); return namedTuple(x, x) }
  if (x instanceof PyDeque) { rt.chargeSlots(x.length + 1); const y = newDeque(x); for (const v of x) y.push(v); return y }
  if (isList(x)) { rt.chargeSlots(x.length + 1); return x.slice() }
  if (x instanceof PyDict) {
    rt.chargeSlots(x.size + 1)
    const y = emptyLike(x)
    for (const [h, [k, v]] of x.map) y.map.set(h, [k, v])
    return y
  }
  // A frozenset is its own copy (CPython's _copy_immutable).
  if (x instanceof PyFrozenSet) return x
  if (x instanceof PySet) return setFrom(rt, [...x.map.values()])
  if (x instanceof PyTime) return cloneTime(x)
  if (x instanceof PyContext) return x.copy()
  if (x instanceof PyInstance) {
    const f = guestMethod(x, '__copy__')
    if (f) return callGuest(x, f, '__copy__', [])
    rt.chargeSlots(x.attrs.size + 1)
    const y = new PyInstance(x.cls)
    for (const [k, v] of x.attrs) y.attrs.set(k, v)
    return y
  }
  if (x instanceof PyException) {
    const y = new PyException(x.type, x.args, x.message)
    if (x.attrs) y.attrs = new Map(x.attrs)
    return y
  }
  return x
}

/** One `copy.deepcopy` call: the memo (a Python dict) and its keep-alive list. */
class Deep {
  private keep: unknown[] | null = null
  constructor(private readonly rt: PyRun, readonly memo: PyDict) {}

  private store(x: object, y: unknown): void {
    dictSet(this.memo, idOf(x), y)
    // CPython's _keep_alive: the originals, under the memo's own id.
    if (this.keep === null) {
      const k = hashKey(idOf(this.memo))
      const e = this.memo.map.get(k)
      if (e && isList(e[1])) this.keep = e[1]
      else { this.keep = []; dictSet(this.memo, idOf(this.memo), this.keep) }
    }
    this.keep.push(x)
  }

  copy(x: unknown, depth: number): unknown {
    if (atomic(x)) return x
    const obj = x as object
    const hit = this.memo.map.get(hashKey(idOf(obj)))
    if (hit) return hit[1]
    if (depth > MAX_DEPTH) raise('RecursionError', 'maximum recursion depth exceeded while calling a Python object')
    const y = this.build(obj, depth + 1)
    if (y !== x) this.store(obj, y)
    return y
  }

  /** The copy of x; containers enter the memo before their items are copied (cycles). */
  private build(x: object, d: number): unknown {
    const rt = this.rt
    refuse(x)
    if (x instanceof PyNamedTuple) { rt.chargeSlots(x.length + 1); return namedTuple(x, x.map((v) => this.copy(v, d))) }
    if (isTuple(x)) {
      rt.chargeSlots(x.length + 1)
      const items = x.map((v) => this.copy(v, d))
      // A cycle through the tuple already made its copy.
      const made = this.memo.map.get(hashKey(idOf(x)))
      if (made) return made[1]
      return items.every((v, i) => v === x[i]) ? x : tuple(items)
    }
    if (x instanceof PyDeque) {
      rt.chargeSlots(x.length + 1)
      const y = newDeque(x)
      this.store(x, y)
      for (const v of x) y.push(this.copy(v, d))
      return y
    }
    if (isList(x)) {
      rt.chargeSlots(x.length + 1)
      const y: unknown[] = []
      this.store(x, y)
      for (let i = 0; i < x.length; i++) y.push(this.copy(x[i], d))
      return y
    }
    if (x instanceof PyDict) {
      rt.chargeSlots(x.size + 1)
      const y = emptyLike(x)
      this.store(x, y)
      for (const [k, v] of [...x.map.values()]) dictSet(y, this.copy(k, d), this.copy(v, d))
      return y
    }
    if (x instanceof PySet) return setFrom(rt, [...x.map.values()].map((v) => this.copy(v, d)), x instanceof PyFrozenSet)
    if (x instanceof PyTime) return cloneTime(x)
    if (x instanceof PyContext) return x.copy()
    if (x instanceof PyInstance) {
      const f = guestMethod(x, '__deepcopy__')
      if (f) return callGuest(x, f, '__deepcopy__', [this.memo])
      rt.chargeSlots(x.attrs.size + 1)
      const y = new PyInstance(x.cls)
      this.store(x, y)
      for (const [k, v] of [...x.attrs]) y.attrs.set(k, this.copy(v, d))
      return y
    }
    if (x instanceof PyException) {
      const y = new PyException(x.type, tuple(x.args.map((v) => this.copy(v, d))), x.message)
      if (x.attrs) y.attrs = new Map([...x.attrs].map(([k, v]) => [k, this.copy(v, d)]))
      return y
    }
    return x
  }
}

/** Positional and keyword arguments by CPython's parameter names, with its messages. */
function params(name: string, names: string[], required: number, a: unknown[], kw: PyDict | null): unknown[] {
  if (a.length > names.length) {
    typeError(names.length === required
      ? `${name}() takes ${required} positional argument${required === 1 ? '' : 's'} but ${a.length} were given`
      : `${name}() takes from ${required} to ${names.length} positional arguments but ${a.length} were given`)
  }
  const out = a.slice()
  if (kw) for (const [k, v] of kw.map.values()) {
    const i = names.indexOf(k as string)
    if (i < 0) typeError(`${name}() got an unexpected keyword argument '${String(k)}'`)
    if (i < out.length && out[i] !== undefined) typeError(`${name}() got multiple values for argument '${String(k)}'`)
    out[i] = v
  }
  if (out[0] === undefined) typeError(`${name}() missing 1 required positional argument: 'x'`)
  return out
}

export const COPY_FUNCTIONS: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  copy: (rt, a, kw) => shallowCopy(rt, params('copy', ['x'], 1, a, kw)[0]),
  deepcopy: (rt, a, kw) => {
    const [x, memo] = params('deepcopy', ['x', 'memo', '_nil'], 1, a, kw)
    if (memo === undefined || memo === null) return new Deep(rt, new PyDict()).copy(x, 0)
    if (!(memo instanceof PyDict)) return raise('AttributeError', `'${typeName(memo)}' object has no attribute 'get'`)
    return new Deep(rt, memo).copy(x, 0)
  },
}
