/**
 * The object protocol of the subset: truth, equality, ordering, hashing,
 * repr/str, iteration and length, over the value representation of values.ts.
 */
import { CMP_HELPER, DISPATCH_HELPER, PyNamedTuple, PyDeque, PyClass, PyDict, PyDictView, PyException, PyFloat, PyFrozenSet, PyInstance, PyIter, PyNumeric, PyOpaque, PyRange, PySet, PyType, isTuple, sameClass, tuple, typeName, type GuestCalls } from './values.ts'
import { raise, typeError } from './errors.ts'
import { floatRepr } from './float-text.ts'
import { PyTime, PyTz, timeCompare, timeEq, timeHash, timeStr } from './datetime.ts'
import { codePoints, compareStr, strRepr } from './text.ts'
import { decimalText, floatOf, intOf, isFloatValue, isNumber } from './numbers.ts'
import { work, type PyRun } from './fuel.ts'
import { MISSING, callGuest, guestContains, guestIter, guestLen, guestMethod, guestTruth, instanceKey } from './dunders.ts'
import { SignalCollection, signalEq } from './decimal-signals.ts'

/** bool(x). */
export function truth(x: unknown): boolean {
  switch (typeof x) {
    case 'boolean': return x
    case 'number': return x !== 0
    case 'string': return x.length > 0
    case 'bigint': return x !== 0n
    case 'undefined': return false
    case 'object':
      if (x === null) return false
      if (Array.isArray(x)) return x.length > 0
      if (x instanceof PyFloat) return x.v !== 0
      if (x instanceof PyDict || x instanceof PySet) return x.size > 0
      if (x instanceof PyRange) return x.length > 0
      if (x instanceof PyDictView) return x.dict.size > 0
      if (x instanceof PyNumeric) return x.truth()
      if (x instanceof PyInstance) return guestTruth(x)
      return true
  }
  return true
}

// --- hashing ---------------------------------------------------------------

const MARK = '\u0001'

/** The Map key of a hashable value: equal Python values (1, 1.0, True) give the same key. */
export function hashKey(x: unknown): unknown {
  switch (typeof x) {
    case 'string': return x.length > 0 && x.charCodeAt(0) === 1 ? MARK + 's' + x : x
    case 'number': return x
    case 'boolean': return x ? 1 : 0
    case 'bigint': return x
    case 'undefined': return null
    case 'object':
      if (x === null) return null
      if (x instanceof PyFloat) return Number.isSafeInteger(x.v) ? x.v : BigInt(x.v)
      if (isTuple(x)) return MARK + encodeTuple(x)
      // Members in a fixed order, so equal frozensets are one key whatever their insertion order.
      if (x instanceof PyFrozenSet) return (x.key ??= MARK + 'F' + Array.from(x.map.values(), encodePart).sort().join(','))
      if (x instanceof PyType) return MARK + 'T' + (x instanceof PyClass ? `${x.qualname}#${x.serial}` : x.name)
      if (x instanceof PyInstance) return instanceKey(x, eq)
      if (x instanceof PyTime) return MARK + 'D' + timeHash(x)
      // A timezone is equal to another of its offset, whatever the names.
      if (x instanceof PyTz) return MARK + 'Z' + x.offset
      if (x instanceof PyNumeric) return x.hashKey()
      // A module class held as its constructor (`{Decimal: ...}`) is the key of its type object.
      if (x instanceof PyOpaque) {
        const held = (x as { classType?: PyType }).classType
        if (held) return MARK + 'T' + held.name
      }
  }
  return typeError(`unhashable type: '${typeName(x)}'`)
}

/** The key of a set member to look up (`in`, `remove`, `discard`): a set stands for the frozenset of its members, as in CPython. */
export function memberKey(x: unknown): unknown {
  if (!(x instanceof PySet) || x instanceof PyFrozenSet) return hashKey(x)
  const f = new PyFrozenSet()
  for (const [h, v] of x.map) f.map.set(h, v)
  return hashKey(f)
}

function encodePart(x: unknown): string {
  const k = hashKey(x)
  switch (typeof k) {
    case 'string': return typeof x === 'string' ? JSON.stringify(x) : k
    case 'number': case 'bigint': return 'n' + String(k)
    case 'object': return 'N'
  }
  return String(k)
}

function encodeTuple(t: readonly unknown[]): string {
  let s = '('
  for (let i = 0; i < t.length; i++) s += (i ? ',' : '') + encodePart(t[i])
  return s + ')'
}

// --- equality and ordering ---------------------------------------------------

/** x == y. */
export function eq(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || a === a
  const ta = typeof a, tb = typeof b
  // A signal dict compared with '' (as with 0 or None, below) is CPython's ValueError.
  if (ta === 'string' || tb === 'string') return ta !== tb && (a instanceof SignalCollection || b instanceof SignalCollection) && signalEq(a, b)
  if (isNumber(a) && isNumber(b)) {
    if (isFloatValue(a) || isFloatValue(b)) {
      if (typeof a === 'bigint' || typeof b === 'bigint') {
        const f = isFloatValue(a) ? floatOf(a) : floatOf(b)
        const i = typeof a === 'bigint' ? a : b as bigint
        return Number.isInteger(f) && BigInt(f) === i
      }
      return floatOf(a) === floatOf(b)
    }
    const x = intOf(a), y = intOf(b)
    return typeof x === typeof y ? x === y : BigInt(x) === BigInt(y)
  }
  if (a instanceof PyNumeric) {
    // Fraction == Decimal: the first leaves it to the second (CPython's NotImplemented).
    const c = a.compareTo(b)
    if (c !== undefined || !(b instanceof PyNumeric)) return c === 0
  }
  if (b instanceof PyNumeric) return b.compareTo(a) === 0
  if (a instanceof SignalCollection || b instanceof SignalCollection) return signalEq(a, b)
  if (a === null || b === null || ta !== 'object' || tb !== 'object') return false
  if (a instanceof PyType || b instanceof PyType) return sameClass(a, b)
  const te = timeEq(a, b)
  if (te !== undefined) return te
  if (Array.isArray(a) && Array.isArray(b)) {
    if (Object.isFrozen(a) !== Object.isFrozen(b) || a.length !== b.length || (a instanceof PyDeque) !== (b instanceof PyDeque)) return false
    for (let i = 0; i < a.length; i++) if (!eq(a[i], b[i])) return false
    return true
  }
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.pyName === 'Counter' && b.pyName === 'Counter') return counterEq(a, b)
    if (a.size !== b.size) return false
    // Two OrderedDicts are equal only in the same order (with a plain dict, order does not count).
    if (a.pyName === 'OrderedDict' && b.pyName === 'OrderedDict') {
      const ka = [...a.map.keys()], kb = [...b.map.keys()]
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return false
    }
    for (const [k, entry] of a.map) {
      const other = b.map.get(k)
      if (!other || !eq(entry[1], other[1])) return false
    }
    return true
  }
  if (a instanceof PySet && b instanceof PySet) {
    if (a.size !== b.size) return false
    for (const k of a.map.keys()) if (!b.map.has(k)) return false
    return true
  }
  if (a instanceof PyRange && b instanceof PyRange) {
    const n = a.length
    if (n !== b.length) return false
    return n === 0 || (a.start === b.start && (n === 1 || a.step === b.step))
  }
  if (a instanceof PyDictView && b instanceof PyDictView) {
    if (a.kind === 'values' || b.kind === 'values') return false
    return eq(viewAsSet(a), viewAsSet(b))
  }
  if (a instanceof PyDictView && b instanceof PySet) return a.kind !== 'values' && eq(viewAsSet(a), b)
  if (b instanceof PyDictView && a instanceof PySet) return b.kind !== 'values' && eq(a, viewAsSet(b))
  if (a instanceof PyInstance || b instanceof PyInstance) return instanceEq(a, b)
  return false
}

/**
 * == of distinct objects one of which is a guest instance (the lowering calls a user `__eq__` itself;
 * here inside containers: `[a] == [b]`, `x in items`, `items.index(x)`): the program's comparison
 * helper is called back (Run.callHelper), as for ordering.
 */
function instanceEq(a: unknown, b: unknown): boolean {
  for (const x of [a, b]) {
    if (x instanceof PyInstance && x.cls.lookup('__eq__') !== undefined) {
      const calls = x.cls.calls
      if (calls && !calls.helperWaits(CMP_HELPER)) return truth(calls.callHelper(CMP_HELPER, ['==', a, b]))
      raise('NotImplementedError', `comparing ${x.cls.name} objects inside a container cannot call their __eq__ here (the program may wait for an atom in a function); compare the items with == one by one`)
    }
  }
  if (a instanceof PyInstance && b instanceof PyInstance && a.cls === b.cls && a.cls.dataclass) {
    // CPython's generated __eq__: (self.f, ...) == (other.f, ...), every field of both read first.
    const fields = a.cls.dataclass.fields
    const xs = fieldValues(a, fields), ys = fieldValues(b, fields)
    for (let i = 0; i < fields.length; i++) if (!eq(xs[i], ys[i])) return false
    return true
  }
  return false
}

/** Text the lowering computed by calling guest `__repr__`/`__str__` methods, for the conversion in progress. */
let TEXTS: Map<object, { r?: string; s?: string }> | null = null

/** Run `f` with the texts of guest objects at hand (see runtime/classes.ts). */
export function withTexts<R>(texts: Map<object, { r?: string; s?: string }>, f: () => R): R {
  const saved = TEXTS
  TEXTS = texts
  try {
    return f()
  } finally { TEXTS = saved }
}

function objectRepr(x: PyInstance | PyException, depth: number): string | undefined {
  const t = TEXTS?.get(x)?.r
  if (t !== undefined) return t
  if (x instanceof PyInstance && x.cls.dataclass) {
    const fields = x.cls.dataclass.fields
    const read = fieldReader(x)
    // Each field read through the class's hooks, then its repr, in turn (CPython's f-string).
    if (read) return `${x.cls.qualname}(${fields.map((f) => `${f}=${hookedFieldRepr(read(f), depth + 1)}`).join(', ')})`
    return `${x.cls.qualname}(${fields.map((f) => `${f}=${repr(x.attrs.get(f), depth + 1)}`).join(', ')})`
  }
  return undefined
}

/**
 * How a dataclass's fields are read when its class has attribute hooks: installed by runtime/extended.ts,
 * which holds the attribute lookup (and imports this module, so it cannot be imported here).
 */
let hookedReader: ((x: PyInstance) => ((field: string) => unknown) | undefined) | undefined
export function setHookedFieldReader(f: (x: PyInstance) => ((field: string) => unknown) | undefined): void {
  hookedReader = f
}

/** A reader of x's fields through its class's `__getattribute__`/`__getattr__`; undefined when it has none. */
export const fieldReader = (x: PyInstance): ((field: string) => unknown) | undefined => hookedReader?.(x)

/**
 * The values of a dataclass instance's fields as CPython's generated `__eq__`/order methods read them
 * (`self.name`, in field order): through the class's hooks when it has one, else straight from it.
 */
export function fieldValues(x: PyInstance, fields: readonly string[]): unknown[] {
  const read = fieldReader(x)
  return read ? fields.map(read) : fields.map((f) => x.attrs.get(f))
}

/**
 * The repr of a value a `__getattribute__` hook returned: the program computed the texts of the guest
 * objects it could reach beforehand (runtime/classes.ts pending), but not of one the hook made, whose
 * own `__repr__` is called here, back through the run.
 */
function hookedFieldRepr(v: unknown, depth: number): string {
  if (v instanceof PyInstance && TEXTS?.get(v)?.r === undefined) {
    const f = guestMethod(v, '__repr__')
    if (f !== undefined) {
      const r = callGuest(v, f, '__repr__', [])
      return typeof r === 'string' ? r : typeError(`__repr__ returned non-string (type ${typeName(r)})`)
    }
  }
  return repr(v, depth)
}

/** Counter == Counter (3.10+): a missing element counts as zero. */
function counterEq(a: PyDict, b: PyDict): boolean {
  for (const [k, [, v]] of a.map) if (!eq(v, b.map.get(k)?.[1] ?? 0)) return false
  for (const [k, [, v]] of b.map) if (!a.map.has(k) && !eq(v, 0)) return false
  return true
}

export function viewAsSet(v: PyDictView): PySet {
  const s = new PySet()
  for (const x of iterate(v)) s.map.set(hashKey(x), x)
  return s
}

function orderError(op: string, a: unknown, b: unknown): never {
  return typeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`)
}

/** Three-way comparison for < <= > >=; throws TypeError for unordered types. NaN compares as unordered (returns NaN). */
export function compare(a: unknown, b: unknown, op: string, native = false): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN
  if (typeof a === 'string' && typeof b === 'string') return compareStr(a, b)
  if (isNumber(a) && isNumber(b)) {
    if (isFloatValue(a) || isFloatValue(b)) {
      if (typeof a === 'bigint' || typeof b === 'bigint') {
        const fa = isFloatValue(a) ? floatOf(a) : null, fb = isFloatValue(b) ? floatOf(b) : null
        const f = (fa ?? fb)!
        if (Number.isNaN(f)) return NaN
        if (!Number.isFinite(f)) return (fa !== null ? f > 0 : f < 0) ? 1 : -1
        const x = fa !== null ? BigInt(Math.floor(f)) : a as bigint
        const y = fb !== null ? BigInt(Math.floor(f)) : b as bigint
        if (x !== y) return x < y ? -1 : 1
        const frac = f - Math.floor(f)
        if (frac === 0) return 0
        return fa !== null ? 1 : -1
      }
      const x = floatOf(a), y = floatOf(b)
      return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN
    }
    const x = intOf(a), y = intOf(b)
    return x < y ? -1 : x > y ? 1 : 0
  }
  if (Array.isArray(a) && Array.isArray(b) && Object.isFrozen(a) === Object.isFrozen(b) && (a instanceof PyDeque) === (b instanceof PyDeque)) {
    const n = Math.min(a.length, b.length)
    for (let i = 0; i < n; i++) {
      if (!eq(a[i], b[i])) return compare(a[i], b[i], op, native)
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
  }
  if ((a instanceof PySet || a instanceof PyDictView) && (b instanceof PySet || b instanceof PyDictView)) {
    return setCompare(a instanceof PySet ? a : viewAsSet(a), b instanceof PySet ? b : viewAsSet(b), op)
  }
  const tc = timeCompare(a, b, op)
  if (tc !== undefined) return tc
  if (a instanceof PyNumeric) { const c = a.compareTo(b, true); if (c !== undefined) return c }
  if (b instanceof PyNumeric) { const c = b.compareTo(a, true); if (c !== undefined) return -c }
  if (a instanceof PyInstance && b instanceof PyInstance) {
    // `@dataclass(order=True)`: the fields as tuples, same class only (CPython's generated methods).
    if (a.cls === b.cls && a.cls.order) return compare(tuple(fieldValues(a, a.cls.dataclass!.fields)), tuple(fieldValues(b, a.cls.dataclass!.fields)), op, native)
  }
  if (!native) {
    const viaCmp = cmpKeyOrder(a, b, op)
    if (viaCmp !== undefined) return viaCmp
    for (const x of [a, b]) {
      if (x instanceof PyInstance && x.cls.calls && ORDER_DUNDERS.some((d) => x.cls.lookup(d) !== undefined)) return guestOrder(x.cls.calls, x.cls.name, a, b, op)
    }
  }
  return orderError(op, a, b)
}

const ORDER_DUNDERS = ['__lt__', '__le__', '__gt__', '__ge__']

/**
 * The instance attribute holding `mycmp` in functools.ts's `cmp_to_key` prelude (one class for every
 * cmp_to_key, as CPython's functools.KeyWrapper; each key holds its own mycmp), and the end of that
 * class's qualname (the prelude's helper name holds a `$`, which no name of a program can).
 */
const CMP_KEY_ATTR = '_cmp_to_key_mycmp'
const CMP_KEY_CLASS = 'functools$cmp_to_key.<locals>.KeyWrapper'

/**
 * Two cmp_to_key keys: the left one's `mycmp(a.obj, b.obj)` compared with 0, as its `__lt__` ...
 * would (a result that is no number is that comparison's TypeError), calling the program once per
 * comparison instead of twice (the method, then mycmp). Undefined: not such a pair (the methods run).
 */
function cmpKeyOrder(a: unknown, b: unknown, op: string): number | undefined {
  if (!(a instanceof PyInstance) || !(b instanceof PyInstance) || a.cls !== b.cls || !a.cls.qualname.endsWith(CMP_KEY_CLASS)) return undefined
  const f = a.attrs.get(CMP_KEY_ATTR), calls = a.cls.calls
  if (f === undefined || !calls || calls.helperWaits(DISPATCH_HELPER)) return undefined
  const r = calls.callHelper(DISPATCH_HELPER, [f, [a.attrs.get('obj'), b.attrs.get('obj')], null])
  return compare(r, 0, op)
}

/**
 * Order guest instances by their own `__lt__`/... (sorted, min/max, list.sort, tuples holding them):
 * the program's comparison helper is called back (Run.callHelper) and tries `a.__op__(b)`, then the
 * reflection, as the `<` operator does. The result reads as a three-way number for `op` only.
 */
function guestOrder(calls: GuestCalls, cls: string, a: unknown, b: unknown, op: string): number {
  if (calls.helperWaits(CMP_HELPER)) {
    raise('NotImplementedError', `ordering ${cls} objects here cannot call their comparison methods (the program may wait for an atom in a function); pass key=, e.g. sorted(items, key=lambda o: o.priority)`)
  }
  const r = truth(calls.callHelper(CMP_HELPER, [op, a, b]))
  return op === '<' || op === '<=' ? (r ? -1 : 1) : (r ? 1 : -1)
}


/** Sets order by inclusion: the caller reads the result through the operator. */
function setCompare(a: PySet, b: PySet, op: string): number {
  const sub = [...a.map.keys()].every((k) => b.map.has(k))
  const sup = [...b.map.keys()].every((k) => a.map.has(k))
  if (sub && sup) return 0
  if (op === '<' || op === '<=') return sub ? -1 : NaN
  return sup ? 1 : NaN
}

export const lt = (a: unknown, b: unknown): boolean => compare(a, b, '<') < 0
export const le = (a: unknown, b: unknown): boolean => compare(a, b, '<=') <= 0
export const gt = (a: unknown, b: unknown): boolean => compare(a, b, '>') > 0
export const ge = (a: unknown, b: unknown): boolean => compare(a, b, '>=') >= 0

// --- repr and str --------------------------------------------------------------

export function repr(x: unknown, depth = 0): string {
  switch (typeof x) {
    case 'string': return strRepr(x)
    case 'number': return Number.isInteger(x) ? String(x) : floatRepr(x)
    case 'bigint': return decimalText(x)
    case 'boolean': return x ? 'True' : 'False'
    case 'undefined': return 'None'
  }
  if (x === null) return 'None'
  if (depth > 200) raise('RecursionError', 'maximum recursion depth exceeded while getting the repr of an object')
  if (x instanceof PyFloat) return floatRepr(x.v)
  if (x instanceof PyNamedTuple) return `${x.ntype.name}(${x.ntype.fields.map((f, i) => `${f}=${repr(x[i], depth + 1)}`).join(', ')})`
  if (x instanceof PyDeque) return `deque([${x.map((v) => repr(v, depth + 1)).join(', ')}]${x.maxlen === null ? '' : `, maxlen=${x.maxlen}`})`
  if (Array.isArray(x)) {
    const inner = x.map((v) => repr(v, depth + 1)).join(', ')
    if (Object.isFrozen(x)) return x.length === 1 ? `(${inner},)` : `(${inner})`
    return `[${inner}]`
  }
  if (x instanceof PyDict) {
    if (x.reprOf !== undefined) return x.reprOf((v) => repr(v, depth + 1))
    const parts: string[] = []
    for (const [k, v] of x.map.values()) parts.push(`${repr(k, depth + 1)}: ${repr(v, depth + 1)}`)
    return `{${parts.join(', ')}}`
  }
  if (x instanceof PySet) {
    const frozen = x instanceof PyFrozenSet
    if (x.size === 0) return frozen ? 'frozenset()' : 'set()'
    const members = `{${[...x.map.values()].map((v) => repr(v, depth + 1)).join(', ')}}`
    return frozen ? `frozenset(${members})` : members
  }
  if (x instanceof PyRange) return x.step === 1 ? `range(${x.start}, ${x.stop})` : `range(${x.start}, ${x.stop}, ${x.step})`
  if (x instanceof PyDictView) return `dict_${x.kind}(${repr(iterate(x), depth + 1)})`
  if (x instanceof PyType) return `<class '${x.module ? `${x.module}.` : ''}${x.name}'>`
  if (x instanceof PyInstance || (x instanceof PyException && x.type instanceof PyClass)) {
    const t = objectRepr(x, depth)
    if (t !== undefined) return t
  }
  if (x instanceof PyException) return `${x.type.name}(${x.args.map((a) => repr(a, depth + 1)).join(', ')})`
  if (x instanceof PyOpaque) return x.repr()
  return '<object>'
}

export function str(x: unknown): string {
  if (typeof x === 'string') return x
  if (TEXTS !== null && (x instanceof PyInstance || x instanceof PyException)) {
    const t = TEXTS.get(x)
    if (t?.s !== undefined) return t.s
    if (t?.r !== undefined) return t.r
  }
  if (x instanceof PyException) return x.message
  if (x instanceof PyTime) return timeStr(x)
  if (x instanceof PyTz) return x.label()
  if (x instanceof PyNumeric) return x.str()
  return repr(x)
}

// --- iteration and length ---------------------------------------------------------

/** The items of an iterable as a JS array (lists are returned as is: loops see appends, like Python). */
export function iterate(x: unknown, rt?: PyRun): unknown[] {
  if (Array.isArray(x)) return x as unknown[]
  if (typeof x === 'string') {
    const cps = codePoints(x)
    if (rt) rt.chargeSlots(cps.length)
    return cps
  }
  if (x instanceof PyDict) {
    if (rt) rt.chargeSlots(x.size)
    return Array.from(x.map.values(), (e) => e[0])
  }
  if (x instanceof PySet) {
    if (rt) rt.chargeSlots(x.size)
    return Array.from(x.map.values())
  }
  if (x instanceof PyRange) {
    const n = x.length
    if (rt) rt.chargeSlots(n)
    const out = new Array<number>(n)
    for (let i = 0; i < n; i++) out[i] = x.start + i * x.step
    return out
  }
  if (x instanceof PyDictView) {
    const d = x.dict
    if (rt) rt.chargeSlots(d.size)
    if (x.kind === 'keys') return Array.from(d.map.values(), (e) => e[0])
    if (x.kind === 'values') return Array.from(d.map.values(), (e) => e[1])
    return Array.from(d.map.values(), (e) => Object.freeze([e[0], e[1]]))
  }
  if (x instanceof PyIter) return x.rest()
  if (x instanceof SignalCollection) return x.members()
  if (x instanceof PyInstance) {
    const it = guestIter(x)
    if (it) { const items = it.rest(); if (rt) rt.chargeSlots(items.length); return items }
  }
  return typeError(`'${typeName(x)}' object is not iterable`)
}

/** A fresh JS array of the items (never the list itself). */
export function toArray(x: unknown, rt: PyRun): unknown[] {
  if (Array.isArray(x)) {
    rt.chargeSlots(x.length)
    return x.slice()
  }
  return iterate(x, rt)
}

export function len(x: unknown): number {
  if (typeof x === 'string') return strLenOf(x)
  if (Array.isArray(x)) return x.length
  if (x instanceof PyDict || x instanceof PySet) return x.size
  if (x instanceof PyRange) return x.length
  if (x instanceof PyDictView) return x.dict.size
  if (x instanceof SignalCollection) return x.members().length
  return guestLen(x) ?? typeError(`object of type '${typeName(x)}' has no len()`)
}

import { strLen as strLenOf } from './text.ts'

/** x in container. */
export function contains(rt: PyRun, container: unknown, x: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof x !== 'string') typeError(`'in <string>' requires string as left operand, not ${typeName(x)}`)
    work(rt, container.length)
    return container.includes(x as string)
  }
  if (Array.isArray(container)) {
    work(rt, container.length)
    for (let i = 0; i < container.length; i++) if (eq(container[i], x)) return true
    return false
  }
  if (container instanceof PyDict) return container.map.has(hashKey(x))
  if (container instanceof PySet) return container.map.has(memberKey(x))
  if (container instanceof SignalCollection) return container.holds(x)
  if (container instanceof PyRange) {
    if (!isNumber(x) || (isFloatValue(x) && !Number.isInteger(floatOf(x)))) return false
    const v = floatOf(x)
    const { start, stop, step } = container
    if (step > 0 ? v < start || v >= stop : v > start || v <= stop) return false
    return (v - start) % step === 0
  }
  if (container instanceof PyDictView) {
    if (container.kind === 'keys') return container.dict.map.has(hashKey(x))
    const items = iterate(container)
    work(rt, items.length)
    return items.some((v) => eq(v, x))
  }
  // An iterator is read up to the first equal item (the rest stays for the next reader), as in CPython.
  if (container instanceof PyIter) {
    for (let v = container.step(); v !== undefined; v = container.step()) if (eq(v, x)) return true
    return false
  }
  if (container instanceof PyInstance) {
    // `__contains__`, else the items of `__iter__` (or `__getitem__`), as CPython's `in`.
    const r = guestContains(container, x)
    if (r !== MISSING) return truth(r)
    const it = guestIter(container)
    if (it) { for (let v = it.step(); v !== undefined; v = it.step()) if (eq(v, x)) return true; return false }
  }
  return typeError(`argument of type '${typeName(container)}' is not iterable`)
}
