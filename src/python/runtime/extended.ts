/**
 * The `extended` profile's runtime: functions as values (user functions, builtins, bound methods),
 * the builtins beyond the contract's list, iterators and attribute reads. None of it reaches the
 * host or the object model: a function value is a number naming one of the program's own helpers
 * (the program's `$call` dispatcher calls it), a builtin or a method of a value.
 */
import { PyGen } from './generators.ts'
import { makeNamedTuple, namedTupleAttr } from './namedtuple.ts'
import { PyPartial, partialCall } from './partial.ts'
import { PyTime, timeArith, timeAttr } from './datetime.ts'
import { PyDecimal, decimalDivmod, decimalPowMod } from './decimal.ts'
import { contextAttr } from './decimal-context.ts'
import { PyNamedTupleType, PyNumeric, exceptionClass, moduleClassType, shortTypeName } from './values.ts'
import { PyDict, PyException, PyFloat, PyIter, PyOpaque, PyType, T, isTuple, mkFloat, mkInt, tuple, typeByName, typeName, typeOf } from './values.ts'
import { PyRaise, raise, typeError, valueError, exceptionMessage } from './errors.ts'
import { iterate, len, repr, str, truth, hashKey, setHookedFieldReader } from './core.ts'
import { convert, format } from './format.ts'
import { callMethod, METHOD_NAMES } from './methods.ts'
import { STR_METHODS } from './str-methods.ts'
import { mod, power } from './ops.ts'
import { intOf, isFloatValue, isIntValue, isNumber, numArith, unsupported } from './numbers.ts'
import { PyFraction } from './fractions.ts'
import { unhashableCheck } from './collections.ts'
import * as B from './builtins.ts'
import type { PyRun } from './fuel.ts'
import { PyClass, PyInstance } from './values.ts'
import { PySlice, makeSlice } from './items.ts'
import { MISSING, callGuest, guestBinop, guestHash, guestIndex, guestIterObject, guestMethod, hashMethod } from './dunders.ts'
import { PyMethod, PyNativeInit, classGetAttr, nativeInit, removeAttr, storeAttr } from './classes.ts'
import { OBJECT_DELATTR, OBJECT_GETATTRIBUTE, OBJECT_SETATTR, PyNativeSetattr, hooked, nativeSetattr, readWithHook } from './attr-hooks.ts'
import { collectionAttr, moduleFunction } from './modules.ts'
import { liveIterator } from './live-iter.ts'
import { reAttr } from './re.ts'
import { numberHash } from './set-order.ts'
import { PyGetter } from './operator.ts'

/** A `def` or `lambda` of the program as a value: the helper `fid` with its defaults and enclosing variables. */
export class PyFunction extends PyOpaque {
  readonly typeName = 'function'
  constructor(readonly fid: number, readonly name: string, readonly params: readonly string[], readonly defaults: readonly unknown[], readonly captured: readonly unknown[]) {
    super()
  }
  override repr(): string {
    return `<function ${this.name}>`
  }
}

/** A builtin function as a value (`map(str, xs)`, `key=len`). */
export class PyBuiltin extends PyOpaque {
  readonly typeName = 'builtin_function_or_method'
  constructor(readonly name: string) {
    super()
  }
  override repr(): string {
    // A module's function is named without its module (`<built-in function sqrt>`), as CPython's.
    return MODULE_CLASSES.has(this.name) ? `<class '${this.name}'>` : `<built-in function ${this.name.slice(this.name.lastIndexOf('.') + 1)}>`
  }
  /** The type object when this is a module class (what `isinstance` checks against). */
  get classType(): PyType | undefined {
    return moduleClassType(this.name)
  }
}

/** Module members that are classes in CPython (their repr is `<class 'collections.Counter'>`). */
const MODULE_CLASSES = new Set(['decimal.Decimal', 'collections.Counter', 'collections.OrderedDict', 'collections.deque', 'collections.defaultdict', 'datetime.date', 'datetime.datetime', 'datetime.timedelta', 'datetime.time', 'datetime.timezone'])

/** `d.get`, `s.upper`, ...: a method bound to its receiver. */
export class PyBound extends PyOpaque {
  readonly typeName = 'builtin_function_or_method'
  constructor(readonly self: unknown, readonly name: string) {
    super()
  }
  override repr(): string {
    return `<built-in method ${this.name} of ${typeName(this.self)} object>`
  }
}

/** `str.upper`, `dict.get`: a method of a builtin type, called with its receiver first. */
export class PyUnbound extends PyOpaque {
  readonly typeName = 'method_descriptor'
  constructor(readonly type: PyType, readonly name: string) {
    super()
  }
  override repr(): string {
    return `<method '${this.name}' of '${this.type.name}' objects>`
  }
}

/** The values of a function's parameters and enclosing variables, bound as CPython binds a call. */
export function bindCall(f: PyFunction, args: readonly unknown[], kw: PyDict | null): unknown[] {
  if (f.params.some((p) => p[0] === '*' || p[0] === ':')) return bindStars(f, args, kw)
  const { params, name } = f
  const n = params.length
  if (args.length > n) {
    const required = f.defaults.filter((d, i) => i < n && d === undefined).length
    const takes = required === n ? `${n}` : `from ${required} to ${n}`
    typeError(`${name}() takes ${takes} positional argument${n === 1 && required === n ? '' : 's'} but ${args.length} ${args.length === 1 ? 'was' : 'were'} given`)
  }
  const slots: unknown[] = new Array(n)
  for (let i = 0; i < args.length; i++) slots[i] = args[i]
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      const i = params.indexOf(k as string)
      if (i < 0) typeError(`${name}() got an unexpected keyword argument '${String(k)}'`)
      if (i < args.length || slots[i] !== undefined) typeError(`${name}() got multiple values for argument '${String(k)}'`)
      slots[i] = v
    }
  }
  const missing: string[] = []
  for (let i = 0; i < n; i++) {
    if (slots[i] !== undefined) continue
    if (f.defaults[i] !== undefined) slots[i] = f.defaults[i]
    else missing.push(`'${params[i]}'`)
  }
  if (missing.length) {
    const text = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`
    typeError(`${name}() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${text}`)
  }
  for (const c of f.captured) slots.push(c)
  return slots
}

/**
 * bindCall for a def with `*args` ('*args'), `**kwargs` ('**kwargs') or keyword-only (':name')
 * parameters: extra positional arguments go to the tuple, extra keywords to the dict, CPython's
 * TypeErrors otherwise.
 */
function bindStars(f: PyFunction, args: readonly unknown[], kw: PyDict | null): unknown[] {
  const { name } = f
  const kinds = f.params.map((p) => (p.startsWith('**') ? 'kwstar' : p[0] === '*' ? 'star' : p[0] === ':' ? 'kwonly' : 'plain'))
  const names = f.params.map((p, i) => p.slice(kinds[i] === 'kwstar' ? 2 : kinds[i] === 'plain' ? 0 : 1))
  const slots: unknown[] = new Array(names.length)
  const positional = kinds.flatMap((k, i) => (k === 'plain' ? [i] : []))
  const star = kinds.indexOf('star'), kwstar = kinds.indexOf('kwstar')
  const given = Math.min(args.length, positional.length)
  for (let j = 0; j < given; j++) slots[positional[j]!] = args[j]
  if (args.length > positional.length) {
    if (star < 0) {
      const n = positional.length
      const required = positional.filter((i) => f.defaults[i] === undefined).length
      const takes = required === n ? `${n}` : `from ${required} to ${n}`
      // CPython also counts the keyword-only arguments the call gave.
      const k = kw ? [...kw.map.values()].filter(([key]) => names.some((nm, j) => nm === key && kinds[j] === 'kwonly')).length : 0
      const also = k ? ` positional argument${args.length !== 1 ? 's' : ''} (and ${k} keyword-only argument${k !== 1 ? 's' : ''})` : ''
      typeError(`${name}() takes ${takes} positional argument${n === 1 && required === n ? '' : 's'} but ${args.length}${also} ${args.length === 1 && !k ? 'was' : 'were'} given`)
    }
  }
  if (star >= 0) slots[star] = tuple(args.slice(positional.length))
  const extra = kwstar >= 0 ? new PyDict() : null
  if (kw) {
    for (const [h, [k, v]] of kw.map) {
      const i = names.findIndex((nm, j) => nm === k && (kinds[j] === 'plain' || kinds[j] === 'kwonly'))
      if (i < 0) {
        if (!extra) typeError(`${name}() got an unexpected keyword argument '${String(k)}'`)
        extra!.map.set(h, [k, v])
        continue
      }
      if (slots[i] !== undefined) typeError(`${name}() got multiple values for argument '${String(k)}'`)
      slots[i] = v
    }
  }
  if (kwstar >= 0) slots[kwstar] = extra
  const missing = (kind: 'plain' | 'kwonly'): string[] => {
    const out: string[] = []
    for (let i = 0; i < names.length; i++) {
      if (kinds[i] !== kind || slots[i] !== undefined) continue
      if (f.defaults[i] !== undefined) slots[i] = f.defaults[i]
      else out.push(`'${names[i]}'`)
    }
    return out
  }
  for (const [kind, what] of [['plain', 'positional'], ['kwonly', 'keyword-only']] as const) {
    const m = missing(kind)
    if (m.length) {
      const text = m.length === 1 ? m[0] : `${m.slice(0, -1).join(', ')} and ${m[m.length - 1]}`
      typeError(`${name}() missing ${m.length} required ${what} argument${m.length > 1 ? 's' : ''}: ${text}`)
    }
  }
  for (const c of f.captured) slots.push(c)
  return slots
}

function noKw(name: string, kw: PyDict | null): void {
  if (kw && kw.size) typeError(`${name}() takes no keyword arguments`)
}

function one(name: string, a: readonly unknown[]): unknown {
  if (a.length !== 1) typeError(`${name}() takes exactly one argument (${a.length} given)`)
  return a[0]
}

/** Call a type object: a conversion or an exception class. */
function callType(rt: PyRun, t: PyType, a: unknown[], kw: PyDict | null): unknown {
  if (t.isSubclassOf(typeByName('BaseException')!)) {
    noKw(t.name, kw)
    const c = exceptionClass(t, a)
    return new PyException(c, a, exceptionMessage(c, a, str, repr))
  }
  if (t.name !== 'dict') noKw(t.name, kw)
  switch (t.name) {
    case 'int': return B.int(rt, ...(a as [unknown, unknown]))
    case 'float': return B.float(...(a as [unknown]))
    case 'str': return B.strOf(rt, ...(a as [unknown]))
    case 'bool': return B.bool(...(a as [unknown]))
    case 'list': return B.list(rt, ...(a as [unknown]))
    case 'tuple': return B.tupleOf(rt, ...(a as [unknown]))
    case 'set': return B.set(rt, ...(a as [unknown]))
    case 'frozenset': return B.frozenset(rt, ...(a as [unknown]))
    case 'dict': return B.dict(rt, a[0], kw)
    case 'slice': return makeSlice(a)
  }
  return typeError(`cannot create '${t.name}' instances`)
}

/** Builtins callable as values (no `key=`: pass a lambda to the builtin's own call for that). */
const NATIVE: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  len: (_rt, a) => len(one('len', a)),
  abs: (rt, a) => B.abs(rt, one('abs', a)),
  repr: (_rt, a) => repr(one('repr', a)),
  ascii: (_rt, a) => convert(one('ascii', a), 'a'),
  round: (rt, a) => B.round(a[0], a[1], rt),
  sum: (rt, a) => B.sum(rt, a[0], a[1]),
  sorted: (rt, a) => B.sorted(rt, iterate(a[0], rt).slice(), null, false),
  min: (rt, a) => B.minmax(rt, 'min', a.length === 1 ? iterate(a[0], rt) : a, null, false, null),
  max: (rt, a) => B.minmax(rt, 'max', a.length === 1 ? iterate(a[0], rt) : a, null, false, null),
  any: (rt, a) => anyAll(rt, one('any', a), true),
  all: (rt, a) => anyAll(rt, one('all', a), false),
  chr: (_rt, a) => chr(one('chr', a)),
  ord: (_rt, a) => ord(one('ord', a)),
  hex: (rt, a) => radix(rt, one('hex', a), '#x'),
  oct: (rt, a) => radix(rt, one('oct', a), '#o'),
  bin: (rt, a) => radix(rt, one('bin', a), '#b'),
  hash: (_rt, a) => hash(one('hash', a)),
  divmod: (rt, a) => divmod(rt, a[0], a[1]),
  pow: (rt, a) => pow3(rt, a[0], a[1], a[2]),
  isinstance: (_rt, a) => B.isinstance(a[0], a[1]),
  reversed: (rt, a) => B.reversed(rt, one('reversed', a)),
  enumerate: (rt, a) => B.enumerate(rt, a[0], a[1]),
  zip: (rt, a) => B.zip(rt, a),
  range: (_rt, a) => B.range(a[0], a[1], a[2]),
  iter: (rt, a) => iter(rt, one('iter', a)),
  next: (_rt, a) => next(a[0], a.length > 1, a[1]),
  type: (_rt, a) => typeOf(one('type', a)),
  print: (rt, a, kw) => print(rt, a, kw),
}

/** The `__call__` of a guest object (what calling it runs), or undefined. */
const callable = (x: PyInstance): PyFunction | undefined => {
  const f = x.cls.lookup('__call__')
  return f instanceof PyFunction ? f : undefined
}

/** Call a value that is not one of the program's own functions. */
export function callNative(rt: PyRun, f: unknown, a: unknown[], kw: PyDict | null): unknown {
  if (f instanceof PyNativeInit) return nativeInit(f, a, kw)
  if (f instanceof PyNativeSetattr) return nativeSetattr(f, a, kw !== null && kw.size > 0, PLAIN_ATTRS)
  if (f instanceof PyBound) return callMethod(rt, f.self, f.name, a, kw)
  if (f instanceof PyUnbound) {
    if (a.length === 0 || typeName(a[0]) !== f.type.name) typeError(`descriptor '${f.name}' for '${f.type.name}' objects doesn't apply to a '${a.length ? typeName(a[0]) : 'NoneType'}' object`)
    return callMethod(rt, a[0], f.name, a.slice(1), kw)
  }
  if (f instanceof PyGetter) return f.call(rt, a, kw)
  if (f instanceof PyNamedTupleType) return makeNamedTuple(f, a, kw)
  if (f instanceof PyType) return callType(rt, f, a, kw)
  if (f instanceof PyBuiltin) {
    const impl = NATIVE[f.name] ?? moduleFunction(f.name)
    if (!impl) return typeError(`${f.name}() cannot be called through a value here; call it by name`)
    if (f.name !== 'print' && !f.name.includes('.')) noKw(f.name, kw)
    return impl(rt, a, kw)
  }
  return typeError(`'${typeName(f)}' object is not callable`)
}

export function anyAll(rt: PyRun, it: unknown, any: boolean): boolean {
  // An iterator (a generator) is read only until the answer is known, as in CPython.
  if (it instanceof PyIter) {
    for (let x = it.step(); x !== undefined; x = it.step()) if (truth(x) === any) return any
    return !any
  }
  for (const x of iterate(it, rt)) if (truth(x) === any) return any
  return !any
}

export function chr(i: unknown): string {
  if (!isIntValue(i)) typeError(`'${typeName(i)}' object cannot be interpreted as an integer`)
  const n = intOf(i)
  if (typeof n === 'bigint') return raise('OverflowError', 'Python int too large to convert to C int')
  if (n < 0 || n > 0x10ffff) valueError('chr() arg not in range(0x110000)')
  return String.fromCodePoint(n)
}

export function ord(s: unknown): number {
  if (typeof s !== 'string') return typeError(`ord() expected string of length 1, but ${typeName(s)} found`)
  const cps = [...s]
  if (cps.length !== 1) typeError(`ord() expected a character, but string of length ${cps.length} found`)
  return cps[0]!.codePointAt(0)!
}

export function radix(rt: PyRun, x: unknown, spec: string): string {
  if (!isIntValue(x)) { const g = guestIndex(x); if (g !== MISSING) x = g }
  if (!isIntValue(x)) typeError(`'${typeName(x)}' object cannot be interpreted as an integer`)
  return format(rt, intOf(x), spec)
}


/** hash(): CPython's for numbers; a stable hash of our own for str and tuples (CPython's varies per process). */
export function hash(x: unknown): unknown {
  // A guest `__hash__`'s int is hashed again as an int (hash(-1) is -2), as CPython does.
  if (x instanceof PyInstance) { const h = hashMethod(x); if (h) return hash(guestHash(x, h)) }
  unhashableCheck(x)
  if (typeof x === 'boolean') return x ? 1 : 0
  if (x === null || x === undefined) return 0x7ff0a5c3
  if (typeof x === 'number' || typeof x === 'bigint' || x instanceof PyFloat) {
    const h = numberHash(x)
    return h === undefined ? 0 : mkInt(h)
  }
  if (typeof x === 'string') {
    let h = 0x811c9dc5
    for (let i = 0; i < x.length; i++) h = Math.imul(h ^ x.charCodeAt(i), 0x01000193)
    return h
  }
  if (isTuple(x)) {
    let h = 0x345678
    for (const v of x) h = Math.imul(h ^ Number(BigInt.asIntN(32, BigInt(hash(v) as number))), 1000003)
    return h
  }
  if (x instanceof PyNumeric) return x.unary('hash')
  const k = hashKey(x)
  return typeof k === 'string' ? hash(k) : 0
}

export function divmod(rt: PyRun, a: unknown, b: unknown): unknown {
  if (a instanceof PyDecimal || b instanceof PyDecimal) { const r = decimalDivmod(rt, a, b); if (r) return r }
  // CPython names divmod in its message (the // and % messages differ).
  if ((b === 0 || b === 0n || b === false || (b instanceof PyFloat && b.v === 0)) && isNumber(a)) {
    raise('ZeroDivisionError', isIntValue(a) && isIntValue(b) ? 'integer division or modulo by zero' : 'float divmod()')
  }
  // A guest operand answers by __divmod__ / __rdivmod__ only (CPython does not fall back to // and %).
  if (a instanceof PyInstance || b instanceof PyInstance) return guestBinop('divmod', a, b) ?? unsupported('divmod()', a, b)
  let q = numArith(rt, '//', a, b)
  if (q === undefined && a instanceof PyTime && b instanceof PyTime) q = timeArith('//', a, b)
  // No type's divmod answers: CPython names divmod() (not //).
  return q !== undefined ? tuple([q, mod(rt, a, b)]) : unsupported('divmod()', a, b)
}

/** pow(base, exp[, mod]). */
export function pow3(rt: PyRun, a: unknown, b: unknown, m?: unknown): unknown {
  if (m === undefined || m === null) return power(rt, a, b)
  if (a instanceof PyDecimal || b instanceof PyDecimal || m instanceof PyDecimal) {
    const r = decimalPowMod(rt, a, b, m)
    if (r !== undefined) return r
  }
  if (!isIntValue(a) || !isIntValue(b) || !isIntValue(m)) {
    // CPython asks each operand's type in turn: a Fraction base has a two-argument __pow__, float refuses
    // any modulus, and otherwise no type takes three arguments.
    if (a instanceof PyFraction) typeError('Fraction.__pow__() takes 2 positional arguments but 3 were given')
    if (a instanceof PyInstance || b instanceof PyInstance || isFloatValue(a) || isFloatValue(b) || isFloatValue(m)) typeError('pow() 3rd argument not allowed unless all arguments are integers')
    typeError(`unsupported operand type(s) for ** or pow(): '${typeName(a)}', '${typeName(b)}', '${typeName(m)}'`)
  }
  let base = BigInt(intOf(a)), exp = BigInt(intOf(b))
  const md = BigInt(intOf(m))
  if (md === 0n) valueError('pow() 3rd argument cannot be 0')
  const am = md < 0n ? -md : md
  if (exp < 0n) {
    base = modInverse(((base % am) + am) % am, am)
    exp = -exp
  }
  rt.charge(Math.max(1, exp.toString(2).length) * 100)
  let r = 1n % am
  base = ((base % am) + am) % am
  while (exp > 0n) {
    if (exp & 1n) r = (r * base) % am
    base = (base * base) % am
    exp >>= 1n
  }
  if (md < 0n && r !== 0n) r -= am
  return mkInt(r)
}

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [a, m, 1n, 0n]
  while (r1 !== 0n) {
    const q = r0 / r1
    ;[r0, r1] = [r1, r0 - q * r1]
    ;[s0, s1] = [s1, s0 - q * s1]
  }
  if (r0 !== 1n) valueError('base is not invertible for the given modulus')
  return ((s0 % m) + m) % m
}

export function iter(rt: PyRun, x: unknown): unknown {
  if (x instanceof PyIter) return x
  // An object's own iterator (`__iter__` returning self with a `__next__`) is handed back as it is.
  if (x instanceof PyInstance) { const it = guestIterObject(x); if (it !== undefined) return it }
  const live = liveIterator(x, rt)
  if (live) return live
  const items = iterate(x, rt)
  return new PyIter(items, Array.isArray(x) ? (isTuple(x) ? 'tuple_iterator' : 'list_iterator') : typeof x === 'string' ? 'str_ascii_iterator' : `${typeName(x)}_iterator`)
}

export function next(it: unknown, hasDefault: boolean, dflt: unknown): unknown {
  if (!(it instanceof PyIter)) {
    // A guest iterator's `__next__` raises its own StopIteration.
    const f = guestMethod(it, '__next__')
    if (f === undefined) return typeError(`'${typeName(it)}' object is not an iterator`)
    try {
      return callGuest(it as PyInstance, f, '__next__', [])
    } catch (e) {
      const x = (e as { value?: unknown } | null)?.value
      if (hasDefault && x instanceof PyException && x.type.isSubclassOf(typeByName('StopIteration')!)) return dflt
      throw e
    }
  }
  const v = it.step()
  if (v !== undefined) return v
  if (hasDefault) return dflt
  // StopIteration carries what a generator returned (`return 5`: StopIteration(5)).
  const ret = it instanceof PyGen ? it.takeReturn() : null
  throw new PyRaise(new PyException(typeByName('StopIteration')!, ret === null ? [] : [ret], ret === null ? '' : str(ret)), '')
}

export function print(rt: PyRun, a: unknown[], kw: PyDict | null): null {
  ;(rt as unknown as { log?: (level: string, values: unknown[]) => void }).log?.('log', [printLine(rt, a, kw)])
  return null
}

/** The line `print(*a, **kw)` writes, without its final newline (a host function may take it: lower-external.ts). */
export function printLine(rt: PyRun, a: unknown[], kw: PyDict | null): string {
  let sep = ' ', end = '\n'
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      if (k === 'sep' && v !== null) { if (typeof v !== 'string') typeError(`sep must be None or a string, not ${typeName(v)}`); sep = v as string }
      else if (k === 'end' && v !== null) { if (typeof v !== 'string') typeError(`end must be None or a string, not ${typeName(v)}`); end = v as string }
      else if (k !== 'sep' && k !== 'end' && k !== 'flush') typeError(`'${String(k)}' is an invalid keyword argument for print()`)
    }
  }
  const text = rt.chargeString(a.map(str).join(sep) + end)
  return text.endsWith('\n') ? text.slice(0, -1) : text
}

/** `obj.name` read as a value: exception args, a type's or function's name, a bound method. */
export function getAttr(x: unknown, name: string): unknown {
  // Only `with x:` reads `x.__enter__` (the program cannot name it): CPython's BEFORE_WITH looks both methods up on the class first.
  if (name === '__enter__' && (x instanceof PyInstance || x instanceof PyException)) {
    const cls = x instanceof PyInstance ? x.cls : x.type
    const has = (m: string): boolean => cls instanceof PyClass && cls.lookup(m) !== undefined
    if (!has('__enter__')) typeError(`'${typeName(x)}' object does not support the context manager protocol`)
    if (!has('__exit__')) typeError(`'${typeName(x)}' object does not support the context manager protocol (missed __exit__ method)`)
  }
  return (x instanceof PyInstance || x instanceof PyException) && hooked(x) ? readWithHook(x, name, () => plainGetAttr(x, name)) : plainGetAttr(x, name)
}

// Dataclasses' generated methods read fields as `self.name` (runtime/core.ts cannot import this module).
setHookedFieldReader((x) => (hooked(x) ? (f) => getAttr(x, f) : undefined))

function plainGetAttr(x: unknown, name: string): unknown {
  if (typeof x === 'object' && x !== null) {
    let g = x instanceof PySlice ? x.attr(name) : classGetAttr(x, name)
    if (g === undefined) g = reAttr(x, name)
    if (g === undefined) g = namedTupleAttr(x, name)
    if (g === undefined) g = timeAttr(x, name)
    if (g === undefined && x instanceof PyNumeric) g = x.attr(name)
    if (g === undefined) g = contextAttr(x, name)
    if (g === undefined) g = collectionAttr(x, name)
    if (g !== undefined) return g
  }
  if (name === '__name__') {
    if (x instanceof PyType) return shortTypeName(x.name)
    if (x instanceof PyFunction) return x.name.slice(x.name.lastIndexOf('.') + 1)
    // A module's function or class is named without its module (`math.sqrt.__name__` is 'sqrt').
    if (x instanceof PyBuiltin) return x.name.slice(x.name.lastIndexOf('.') + 1)
  } else if (isNumber(x) && (name === 'real' || name === 'imag' || (isIntValue(x) && (name === 'numerator' || name === 'denominator')))) {
    // An int's (a bool's: as an int) and a float's parts, as the numbers tower gives them.
    if (name === 'imag') return isFloatValue(x) ? mkFloat(0) : 0
    if (name === 'denominator') return 1
    return isFloatValue(x) ? x : mkInt(intOf(x))
  } else if (x instanceof PyException) {
    if (name === 'args') return tuple([...x.args])
    if (name === 'value' && x.type.isSubclassOf(typeByName('StopIteration')!)) return x.args.length ? x.args[0] : null
    // An OSError not made with (errno, strerror, ...) has them all None.
    if (OS_ERROR_ATTRS.has(name) && x.type.isSubclassOf(typeByName('OSError')!)) return null
  } else if (typeof x === 'string' ? Object.prototype.hasOwnProperty.call(STR_METHODS, name) : METHOD_NAMES.has(name) && hasMethod(x, name)) {
    return new PyBound(x, name)
  }
  if (x === T.object && name === '__setattr__') return OBJECT_SETATTR
  if (x === T.object && name === '__delattr__') return OBJECT_DELATTR
  if (x === T.object && name === '__getattribute__') return OBJECT_GETATTRIBUTE
  if (x instanceof PyType && (x.name === 'str' ? Object.prototype.hasOwnProperty.call(STR_METHODS, name) : TYPE_METHODS[x.name]?.has(name))) return new PyUnbound(x, name)
  if (x instanceof PyType) return raise('AttributeError', `type object '${x.name}' has no attribute '${name}'`)
  return raise('AttributeError', `'${typeName(x)}' object has no attribute '${name}'`)
}

/** What `object.__setattr__`, `object.__delattr__` and `object.__getattribute__` do: the plain store, delete and read, without hooks. */
const PLAIN_ATTRS = { __setattr__: storeAttr, __delattr__: removeAttr, __getattribute__: plainGetAttr }

const OS_ERROR_ATTRS: ReadonlySet<string> = new Set(['errno', 'strerror', 'filename', 'filename2'])

const TYPE_METHODS: Record<string, ReadonlySet<string>> = {
  list: new Set(['append', 'extend', 'insert', 'pop', 'remove', 'index', 'count', 'sort', 'reverse', 'copy', 'clear']),
  tuple: new Set(['index', 'count']),
  dict: new Set(['get', 'keys', 'values', 'items', 'pop', 'popitem', 'setdefault', 'update', 'copy', 'clear']),
  set: new Set(['add', 'remove', 'discard', 'pop', 'union', 'intersection', 'difference', 'symmetric_difference', 'issubset', 'issuperset', 'isdisjoint', 'update', 'intersection_update', 'difference_update', 'symmetric_difference_update', 'copy', 'clear']),
  int: new Set(['bit_length']),
  float: new Set(['is_integer']),
}

function hasMethod(x: unknown, name: string): boolean {
  return TYPE_METHODS[typeName(x)]?.has(name) ?? false
}

/** The runtime entries of the extended profile (`py$<name>`). */
export const EXTENDED_RUNTIME: Record<string, (rt: PyRun, a: any[]) => unknown> = {
  fn: (_rt, a) => new PyFunction(a[0], a[1], a[2], a[3], a[4]),
  builtin: (_rt, a) => new PyBuiltin(a[0]),
  fid: (_rt, a) => (a[0] instanceof PyFunction ? a[0].fid : a[0] instanceof PyMethod ? a[0].func.fid : a[0] instanceof PyClass ? -2 : a[0] instanceof PyPartial ? -3 : a[0] instanceof PyInstance ? callable(a[0])?.fid ?? -1 : -1),
  partialcall: (_rt, a) => partialCall(a[0], a[1], a[2]),
  bindcall: (_rt, a) => (a[0] instanceof PyMethod ? bindCall(a[0].func, [a[0].self, ...a[1]], a[2]) : a[0] instanceof PyInstance ? bindCall(callable(a[0])!, [a[0], ...a[1]], a[2]) : bindCall(a[0], a[1], a[2])),
  callnative: (rt, a) => callNative(rt, a[0], a[1], a[2]),
  slicemk: (_rt, a) => makeSlice(a),
  frozenset: (rt, a) => B.frozenset(rt, a[0]),
  getattr: (_rt, a) => getAttr(a[0], a[1]),
  first: (_rt, a) => a[0],
  last: (_rt, a) => a[a.length - 1],
  any: (rt, a) => anyAll(rt, a[0], true),
  all: (rt, a) => anyAll(rt, a[0], false),
  repr: (_rt, a) => repr(a[0]),
  ascii: (_rt, a) => convert(a[0], 'a'),
  chr: (_rt, a) => chr(a[0]),
  ord: (_rt, a) => ord(a[0]),
  hex: (rt, a) => radix(rt, a[0], '#x'),
  oct: (rt, a) => radix(rt, a[0], '#o'),
  bin: (rt, a) => radix(rt, a[0], '#b'),
  hash: (_rt, a) => hash(a[0]),
  divmod: (rt, a) => divmod(rt, a[0], a[1]),
  pow3: (rt, a) => pow3(rt, a[0], a[1], a[2]),
  iterb: (rt, a) => iter(rt, a[0]),
  next: (_rt, a) => next(a[0], a[1], a[2]),
  typeof: (_rt, a) => typeOf(a[0]),
  print: (rt, a) => print(rt, a[0], a[1]),
  printline: (rt, a) => printLine(rt, a[0], a[1]),
  /** A generator expression or map/filter result: the items, as a one-shot iterator. */
  gen: (_rt, a) => new PyIter(a[0], a[1]),
  /** filter: the items whose flag is true. */
  filterby: (_rt, a) => new PyIter((a[0] as unknown[]).filter((_x, i) => truth((a[1] as unknown[])[i])), 'filter'),
}

export { T }

/**
 * JSON text to Python values, as `json.loads` reads it: `2.0` stays a float and big ints are exact
 * (JSON data handed over as JS objects cannot tell `2.0` from `2`).
 */
export function loadsExact(rt: PyRun, text: string, parseFloat?: (text: string) => unknown, parseInt?: (text: string) => unknown): unknown {
  let i = 0
  const ws = () => { while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++ }
  // json.JSONDecodeError (a ValueError), with CPython's message, line and column.
  const fail = (msg: string, at = i): never => {
    const line = text.slice(0, at).split('\n').length
    const col = line > 1 ? at - text.lastIndexOf('\n', at - 1) : at + 1
    return raise('JSONDecodeError', `${msg}: line ${line} column ${col} (char ${at})`)
  }
  const value = (depth: number): unknown => {
    if (depth > 1000) raise('RecursionError', 'maximum recursion depth exceeded while decoding a JSON document')
    const c = text[i]
    if (c === '{') {
      i++
      const d = new PyDict()
      ws()
      if (text[i] === '}') { i++; return d }
      for (;;) {
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes')
        const k = string()
        ws()
        if (text[i] !== ':') fail("Expecting ':' delimiter")
        i++
        ws()
        const v = value(depth + 1)
        rt.chargeSlots(2)
        d.map.set(hashKey(k), [k, v])
        ws()
        if (text[i] === '}') { i++; return d }
        if (text[i] !== ',') fail("Expecting ',' delimiter")
        i++
        ws()
      }
    }
    if (c === '[') {
      i++
      const out: unknown[] = []
      ws()
      if (text[i] === ']') { i++; return out }
      for (;;) {
        out.push(value(depth + 1))
        rt.chargeSlots(1)
        ws()
        if (text[i] === ']') { i++; return out }
        if (text[i] !== ',') fail("Expecting ',' delimiter")
        i++
        ws()
      }
    }
    if (c === '"') return string()
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (m && m[0]) {
      i += m[0].length
      if (m[1] || m[2]) return parseFloat ? parseFloat(m[0]) : mkFloatExact(Number(m[0]))
      return parseInt ? parseInt(m[0]) : mkInt(m[0].length < 16 ? Number(m[0]) : BigInt(m[0]))
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null], ['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity]] as const) {
      if (text.startsWith(word, i)) { i += word.length; return typeof v === 'number' ? mkFloatExact(v) : v }
    }
    return fail('Expecting value')
  }
  const string = (): string => {
    const start = i
    let escaped = false
    i++
    for (;;) {
      if (i >= text.length) fail('Unterminated string starting at', start)
      const ch = text.charCodeAt(i)
      if (ch === 34) break
      if (ch < 0x20) fail('Invalid control character at')
      if (ch === 92) {
        escaped = true
        const e = text[i + 1]
        if (e === undefined) fail('Unterminated string starting at', start)
        if (e === 'u') { if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('Invalid \\uXXXX escape', i + 1); i += 6; continue }
        if (!'"\\/bfnrt'.includes(e!)) fail('Invalid \\escape', i)
        i += 2
        continue
      }
      i++
    }
    i++
    // Without escapes the text between the quotes is the string itself.
    return rt.chargeString(escaped ? JSON.parse(text.slice(start, i)) as string : text.slice(start + 1, i - 1))
  }
  ws()
  const v = value(0)
  ws()
  if (i < text.length) fail('Extra data')
  return v
}

const mkFloatExact = (v: number): unknown => (Number.isInteger(v) ? new PyFloat(v) : v)
