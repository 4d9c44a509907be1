/** Methods of list, dict and set, and the dispatch of `obj.method(...)` by the receiver's type. */
import { PyGen, generatorMethod } from './generators.ts'
import { PyNamedTuple, PyDeque, PyDict, PyDictView, PyFloat, PyFrozenSet, PySet, isTuple, mkInt, tuple, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { eq, hashKey, iterate, memberKey, repr } from './core.ts'
import { keyError } from './items.ts'
import { dictSet, dictUpdate, asSet, setOp, setFrom } from './collections.ts'
import { strMethod } from './str-methods.ts'
import { floatOf, intOf, isFloatValue, isIntValue, isNumber, ssizeArg } from './numbers.ts'
import { floatRatio } from './fractions.ts'
import { work, type PyRun } from './fuel.ts'
import { namedTupleMethod } from './namedtuple.ts'
import type { SetTable } from './set-order.ts'
import { PySignalDict } from './decimal-signals.ts'

type Method<T> = (rt: PyRun, self: T, args: unknown[], kw: PyDict | null) => unknown

function arity(name: string, args: unknown[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    typeError(min === max ? `${name}() takes exactly ${min === 0 ? 'no arguments' : `one argument`} (${args.length} given)` : `${name} expected at most ${max} argument${max === 1 ? '' : 's'}, got ${args.length}`)
  }
}

function seqIndex(rt: PyRun, self: readonly unknown[], args: unknown[]): number {
  const n = self.length
  let lo = args[1] === undefined ? 0 : Number(intOf(args[1])), hi = args[2] === undefined ? n : Number(intOf(args[2]))
  if (lo < 0) lo = Math.max(0, lo + n)
  if (hi < 0) hi = Math.max(0, hi + n)
  work(rt, n)
  for (let i = lo; i < Math.min(hi, n); i++) if (eq(self[i], args[0])) return i
  return valueError(isTuple(self) ? 'tuple.index(x): x not in tuple' : `${repr(args[0])} is not in list`)
}

const count = (rt: PyRun, self: readonly unknown[], x: unknown): number => {
  work(rt, self.length)
  let c = 0
  for (const v of self) if (eq(v, x)) c++
  return c
}

const LIST: Record<string, Method<unknown[]>> = {
  append: (rt, l, a) => { arity('list.append', a, 1, 1); rt.chargeSlots(1); l.push(a[0]); return null },
  extend: (rt, l, a) => { arity('list.extend', a, 1, 1); const items = iterate(a[0], rt); rt.chargeSlots(items.length); for (const x of items.slice()) l.push(x); return null },
  insert: (rt, l, a) => {
    arity('insert', a, 2, 2)
    let i = ssizeArg(a[0])
    if (i < 0) i = Math.max(0, i + l.length)
    rt.chargeSlots(1)
    l.splice(Math.min(i, l.length), 0, a[1])
    return null
  },
  pop: (_rt, l, a) => {
    arity('pop', a, 0, 1)
    if (l.length === 0) raise('IndexError', 'pop from empty list')
    const i0 = a.length ? ssizeArg(a[0]) : -1
    const i = i0 < 0 ? i0 + l.length : i0
    if (i < 0 || i >= l.length) raise('IndexError', 'pop index out of range')
    return l.splice(i, 1)[0]
  },
  remove: (rt, l, a) => {
    arity('list.remove', a, 1, 1)
    work(rt, l.length)
    for (let i = 0; i < l.length; i++) if (eq(l[i], a[0])) { l.splice(i, 1); return null }
    return valueError('list.remove(x): x not in list')
  },
  index: (rt, l, a) => seqIndex(rt, l, a),
  count: (rt, l, a) => { arity('list.count', a, 1, 1); return count(rt, l, a[0]) },
  reverse: (_rt, l) => { l.reverse(); return null },
  copy: (rt, l) => { rt.chargeSlots(l.length); return l.slice() },
  clear: (_rt, l) => { l.length = 0; return null },
}

const TUPLE: Record<string, Method<readonly unknown[]>> = {
  index: (rt, t, a) => seqIndex(rt, t, a),
  count: (rt, t, a) => count(rt, t, a[0]),
}

const DICT: Record<string, Method<PyDict>> = {
  get: (_rt, d, a) => { arity('get', a, 1, 2); const e = d.map.get(hashKey(a[0])); return e ? e[1] : (a[1] ?? null) },
  keys: (_rt, d) => new PyDictView(d, 'keys'),
  values: (_rt, d) => new PyDictView(d, 'values'),
  items: (_rt, d) => new PyDictView(d, 'items'),
  pop: (_rt, d, a) => {
    arity('pop', a, 1, 2)
    const h = hashKey(a[0])
    const e = d.map.get(h)
    if (e) { d.map.delete(h); return e[1] }
    if (a.length > 1) return a[1]
    throw keyError(a[0])
  },
  popitem: (_rt, d) => {
    if (d.size === 0) raise('KeyError', "'popitem(): dictionary is empty'")
    const last = [...d.map.keys()].pop()
    const e = d.map.get(last)!
    d.map.delete(last)
    return tuple([e[0], e[1]])
  },
  setdefault: (rt, d, a) => {
    arity('setdefault', a, 1, 2)
    const h = hashKey(a[0])
    const e = d.map.get(h)
    if (e) return e[1]
    rt.chargeSlots(2)
    d.map.set(h, [a[0], a[1] ?? null])
    return a[1] ?? null
  },
  update: (rt, d, a, kw) => {
    arity('update', a, 0, 1)
    if (a.length) dictUpdate(rt, d, a[0])
    if (kw) dictUpdate(rt, d, kw)
    return null
  },
  copy: (rt, d) => { const c = new PyDict(); dictUpdate(rt, c, d); return c },
  clear: (_rt, d) => { d.map.clear(); return null },
}

function otherSet(rt: PyRun, x: unknown): PySet {
  return asSet(x) ?? setFrom(rt, iterate(x, rt))
}

const SET: Record<string, Method<PySet>> = {
  add: (rt, s, a) => { arity('set.add', a, 1, 1); const h = hashKey(a[0]); if (!s.map.has(h)) { rt.chargeSlots(1); s.map.set(h, a[0]) } return null },
  remove: (_rt, s, a) => { if (!s.map.delete(memberKey(a[0]))) throw keyError(a[0]); return null },
  discard: (_rt, s, a) => { s.map.delete(memberKey(a[0])); return null },
  pop: (_rt, s) => {
    if (s.size === 0) raise('KeyError', "'pop from an empty set'")
    // CPython's pop takes the first member from where the last pop left off (set-order.ts).
    const h = (s.map as SetTable).popKey()
    const v = s.map.get(h)
    s.map.delete(h)
    return v
  },
  union: (rt, s, a) => a.reduce<PySet>((acc, x) => setOp(rt, '|', acc, otherSet(rt, x)), setOp(rt, '|', s, new PySet())),
  intersection: (rt, s, a) => a.reduce<PySet>((acc, x) => setOp(rt, '&', acc, otherSet(rt, x)), setOp(rt, '|', s, new PySet())),
  difference: (rt, s, a) => a.reduce<PySet>((acc, x) => setOp(rt, '-', acc, otherSet(rt, x)), setOp(rt, '|', s, new PySet())),
  symmetric_difference: (rt, s, a) => setOp(rt, '^', s, otherSet(rt, a[0])),
  issubset: (rt, s, a) => { const o = otherSet(rt, a[0]); return [...s.map.keys()].every((k) => o.map.has(k)) },
  issuperset: (rt, s, a) => { const o = otherSet(rt, a[0]); return [...o.map.keys()].every((k) => s.map.has(k)) },
  isdisjoint: (rt, s, a) => { const o = otherSet(rt, a[0]); return [...s.map.keys()].every((k) => !o.map.has(k)) },
  update: (rt, s, a) => { for (const x of a) for (const [h, v] of otherSet(rt, x).map) if (!s.map.has(h)) s.map.set(h, v); return null },
  intersection_update: (rt, s, a) => { replace(s, a.reduce<PySet>((acc, x) => setOp(rt, '&', acc, otherSet(rt, x)), s)); return null },
  difference_update: (rt, s, a) => { replace(s, a.reduce<PySet>((acc, x) => setOp(rt, '-', acc, otherSet(rt, x)), s)); return null },
  symmetric_difference_update: (rt, s, a) => { replace(s, setOp(rt, '^', s, otherSet(rt, a[0]))); return null },
  copy: (rt, s) => setOp(rt, '|', s, new PySet()),
  clear: (_rt, s) => { s.map.clear(); return null },
}

/** A frozenset's methods: the set's that do not change it (the others are CPython's AttributeError). */
const FROZENSET: Record<string, Method<PySet>> = {
  ...Object.fromEntries(['union', 'intersection', 'difference', 'symmetric_difference', 'issubset', 'issuperset', 'isdisjoint'].map((m) => [m, SET[m]!])),
  copy: (_rt, s) => s,
}

function replace(s: PySet, r: PySet): void {
  const entries = [...r.map]
  s.map.clear()
  for (const [h, v] of entries) s.map.set(h, v)
}

function pick<T>(table: Record<string, Method<T>>, name: string, type: string): Method<T> {
  const m = Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined
  if (!m) raise('AttributeError', `'${type}' object has no attribute '${name}'`)
  return m!
}

/** `obj.name(*args, **kw)`. */
export function callMethod(rt: PyRun, obj: unknown, name: string, args: unknown[], kw: PyDict | null): unknown {
  // `with x:` over a value that is not a context manager of the program.
  if (name === '__enter__' || name === '__exit__') typeError(`'${typeName(obj)}' object does not support the context manager protocol`)
  if (typeof obj === 'string') return strMethod(rt, obj, name, args, kw)
  if (obj instanceof PyNamedTuple) {
    const r = namedTupleMethod(obj, name, args, kw)
    if (r !== undefined) return r
  }
  if (obj instanceof PyDeque) {
    const r = dequeMethod(rt, obj, name, args, kw)
    if (r !== undefined) return r
  }
  if (Array.isArray(obj)) {
    if (Object.isFrozen(obj)) return pick(TUPLE, name, 'tuple')(rt, obj, args, kw)
    return pick(LIST, name, 'list')(rt, obj, args, kw)
  }
  if (obj instanceof PyDict) return pick(DICT, name, 'dict')(rt, obj, args, kw)
  if (obj instanceof PyFrozenSet) return pick(FROZENSET, name, 'frozenset')(rt, obj, args, kw)
  if (obj instanceof PySet) return pick(SET, name, 'set')(rt, obj, args, kw)
  if (isIntValue(obj) && name === 'bit_length') {
    const v = intOf(obj)
    return (v < 0 ? -BigInt(v) : BigInt(v)).toString(2).replace(/^0$/, '').length
  }
  if (obj instanceof PyGen) {
    const r = generatorMethod(obj, name, args, kw)
    if (r !== undefined) return r
  }
  // A float's (CPython 3.11's int has no is_integer); a float here is a non-whole number or a PyFloat.
  if (name === 'is_integer' && isFloatValue(obj)) { noArgs('float', name, args, kw); return Number.isInteger(floatOf(obj)) }
  if (name === 'as_integer_ratio' && isNumber(obj)) {
    noArgs(isIntValue(obj) ? 'int' : 'float', name, args, kw)
    if (isIntValue(obj)) return tuple([mkInt(intOf(obj)), 1])
    const r = floatRatio(floatOf(obj))
    return tuple([mkInt(r.n), mkInt(r.d)])
  }
  return raise('AttributeError', `'${typeName(obj)}' object has no attribute '${name}'`)
}

/** CPython's TypeError for an argument to a method of a number that takes none. */
function noArgs(owner: string, name: string, args: unknown[], kw: PyDict | null): void {
  if (kw?.size) typeError(`${owner}.${name}() takes no keyword arguments`)
  if (args.length) typeError(`${owner}.${name}() takes no arguments (${args.length} given)`)
}

/** The bound of a deque: the oldest items leave from the other end. */
function bound(d: PyDeque, fromLeft: boolean): void {
  if (d.maxlen === null) return
  while (d.length > d.maxlen) { if (fromLeft) d.shift(); else d.pop() }
}

const DEQUE_ONLY = ['appendleft', 'popleft', 'extendleft', 'rotate'] as const

/** deque's own methods, and list methods that must keep the bound (undefined: the list method). */
function dequeMethod(rt: PyRun, d: PyDeque, name: string, a: unknown[], kw: PyDict | null): unknown {
  const one = () => { if (kw || a.length !== 1) typeError(`deque.${name}() takes exactly one argument (${a.length} given)`) }
  switch (name) {
    case 'append': one(); rt.chargeSlots(1); d.push(a[0]); bound(d, true); return null
    case 'appendleft': one(); rt.chargeSlots(1); d.unshift(a[0]); bound(d, false); return null
    case 'extend': { one(); const xs = iterate(a[0], rt); rt.chargeSlots(xs.length); for (const x of xs) d.push(x); bound(d, true); return null }
    case 'extendleft': { one(); const xs = iterate(a[0], rt); rt.chargeSlots(xs.length); for (const x of xs) d.unshift(x); bound(d, false); return null }
    case 'popleft': if (a.length || kw) typeError(`deque.popleft() takes no arguments (${a.length} given)`); if (!d.length) raise('IndexError', 'pop from an empty deque'); return d.shift()
    case 'pop': if (a.length || kw) typeError(`deque.pop() takes no arguments (${a.length} given)`); if (!d.length) raise('IndexError', 'pop from an empty deque'); return d.pop()
    case 'rotate': {
      if (kw || a.length > 1) typeError(`rotate expected at most 1 argument, got ${a.length}`)
      if (a.length && !isIntValue(a[0])) typeError(`'${typeName(a[0])}' object cannot be interpreted as an integer`)
      const n = d.length, k = a.length ? Number(intOf(a[0])) : 1
      if (n > 1) { const s = ((k % n) + n) % n; const moved = d.splice(n - s, s); d.unshift(...moved) }
      return null
    }
    case 'insert': if (d.maxlen !== null && d.length >= d.maxlen) raise('IndexError', 'deque already at its maximum size'); return undefined
    case 'copy': { const c = new PyDeque(); c.maxlen = d.maxlen; c.push(...d); return c }
    case 'sort': return raise('AttributeError', "'collections.deque' object has no attribute 'sort'")
  }
  return undefined
}

/** Every method name the runtime knows, for compile-time checks and suggestions. */
export const METHOD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(LIST), ...Object.keys(TUPLE), ...Object.keys(DICT), ...Object.keys(SET), 'bit_length', 'is_integer', ...DEQUE_ONLY, '_asdict', '_replace',
])

export { dictSet }

/** `d.get(k, default)` without the method table when d is a plain dict (`py$mget`, also fused). */
export function dictGet(rt: PyRun, d: unknown, k: unknown, dflt: unknown): unknown {
  if (d instanceof PyDict && d.missing === undefined) { const e = d.map.get(hashKey(k)); return e === undefined ? dflt : e[1] }
  if (d instanceof PySignalDict) return d.method('get', [k, dflt], null)
  return callMethod(rt, d, 'get', [k, dflt], null)
}

/** `xs.append(v)` without the method table when xs is a list (`py$mappend`, also fused). */
export function listAppend(rt: PyRun, l: unknown, v: unknown): null {
  if (Array.isArray(l) && !Object.isFrozen(l) && !(l instanceof PyDeque && l.maxlen !== null)) { rt.chargeSlots(1); l.push(v); return null }
  return callMethod(rt, l, 'append', [v], null) as null
}
