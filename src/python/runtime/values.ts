/**
 * How Python values live on the VM. Chosen so the common cases are plain JS
 * values the VM already moves around cheaply:
 *
 * - `int`: a JS number when it is a safe integer, a `bigint` beyond (always
 *   normalised: a bigint is never within the safe range);
 * - `float`: a JS number that is not an integer (NaN and infinities included),
 *   or a `PyFloat` box for integral floats (`3.0`, `-0.0`), so `3` and `3.0`
 *   stay different types without boxing most float arithmetic;
 * - `bool`: a JS boolean; `None`: `null`; `str`: a JS string (indexed by code point);
 * - `list`: a JS array; `tuple`: a frozen JS array;
 * - `dict`, `set`, `range`, dict views, exceptions and type objects: the classes below.
 */
import { PULL, PULL_DONE, type PullSource } from '../../vm/runtime.ts'
import { SetTable } from './set-order.ts'

/** An integral float (`3.0`, `-0.0`, `1e300`): boxed so it does not read as an int. */
export class PyFloat {
  constructor(readonly v: number) {}
}

/** A float from a JS number: integral values are boxed. */
export const mkFloat = (v: number): unknown => (Number.isInteger(v) ? new PyFloat(v) : v)

/** An int from a bigint or a number known to be an integer (normalised). */
export function mkInt(v: bigint | number): number | bigint {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : BigInt(v)
  return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** A Python type object (`int`, `str`, `ValueError`, ...), usable with isinstance and except. */
export class PyType {
  /** Further bases of a class with several (decimal.DivisionByZero is also a ZeroDivisionError). */
  also?: readonly PyType[]
  /** The module a class of a module is shown with (`<class 'decimal.InvalidOperation'>`). */
  module?: string
  constructor(readonly name: string, readonly base: PyType | null) {}
  isSubclassOf(other: PyType): boolean {
    for (let t: PyType | null = this; t; t = t.base) {
      if (t === other) return true
      if (t.also?.some((b) => b.isSubclassOf(other))) return true
    }
    return false
  }
}

const types = new Map<string, PyType>()
function defType(name: string, base?: string): PyType {
  const t = new PyType(name, base ? types.get(base)! : null)
  types.set(name, t)
  return t
}
export const T = {
  object: defType('object'),
  int: defType('int', 'object'),
  bool: defType('bool', 'int'),
  float: defType('float', 'object'),
  str: defType('str', 'object'),
  list: defType('list', 'object'),
  tuple: defType('tuple', 'object'),
  dict: defType('dict', 'object'),
  set: defType('set', 'object'),
  frozenset: defType('frozenset', 'object'),
  range: defType('range', 'object'),
  NoneType: defType('NoneType', 'object'),
  type: defType('type', 'object'),
  Counter: defType('Counter', 'dict'),
  defaultdict: defType('defaultdict', 'dict'),
  OrderedDict: defType('OrderedDict', 'dict'),
  deque: defType('collections.deque', 'object'),
  // datetime's classes: `datetime` derives from `date`, as in CPython (isinstance(now, date) is True).
  // Named by their module, as CPython's C types are in messages (`type(d).__name__` is 'date').
  date: defType('datetime.date', 'object'),
  datetime: defType('datetime.datetime', 'datetime.date'),
  timedelta: defType('datetime.timedelta', 'object'),
  time: defType('datetime.time', 'object'),
  timezone: defType('datetime.timezone', 'object'),
  Fraction: defType('Fraction', 'object'),
  // decimal.Decimal: named by its module, as CPython's C type is in messages (`type(d).__name__` is 'Decimal').
  Decimal: defType('decimal.Decimal', 'object'),
  // What `x[a:b]` hands a guest `__getitem__` (runtime/items.ts PySlice).
  slice: defType('slice', 'object'),
}

/** The type objects behind the module classes the program holds as values (`collections.Counter`, ...). */
const MODULE_CLASS_TYPES: ReadonlyMap<string, PyType> = new Map([
  ['collections.Counter', T.Counter], ['collections.defaultdict', T.defaultdict], ['collections.OrderedDict', T.OrderedDict],
  ['collections.deque', T.deque], ['datetime.date', T.date], ['datetime.datetime', T.datetime], ['datetime.timedelta', T.timedelta], ['datetime.time', T.time], ['datetime.timezone', T.timezone],
  ['range', T.range], ['type', T.type], ['fractions.Fraction', T.Fraction], ['decimal.Decimal', T.Decimal],
])

/** The program's comparison helper (lower-class.ts makes it; the runtime calls it back to order instances). */
export const CMP_HELPER = 'cmp$dispatch'

/** The program's function dispatcher (lower.ts makes it): how the runtime calls a function value back (Run.callHelper). */
export const DISPATCH_HELPER = 'call$dispatch'

/** What the runtime may ask of the run that made a guest class (Run.callHelper). */
export interface GuestCalls {
  callHelper(name: string, args: unknown[]): unknown
  helperWaits(name: string): boolean
}

/** The type object of a module class value (`isinstance(x, deque)`), else undefined. */
export const moduleClassType = (name: string): PyType | undefined => MODULE_CLASS_TYPES.get(name)

/** The exception classes a block can raise and catch, child after parent. */
export const EXCEPTION_TREE: ReadonlyArray<readonly [string, string | null]> = [
  ['BaseException', null], ['Exception', 'BaseException'],
  ['ArithmeticError', 'Exception'], ['ZeroDivisionError', 'ArithmeticError'], ['OverflowError', 'ArithmeticError'],
  ['LookupError', 'Exception'], ['KeyError', 'LookupError'], ['IndexError', 'LookupError'],
  ['ValueError', 'Exception'], ['UnicodeError', 'ValueError'], ['TypeError', 'Exception'],
  ['NameError', 'Exception'], ['UnboundLocalError', 'NameError'], ['AttributeError', 'Exception'],
  ['RuntimeError', 'Exception'], ['RecursionError', 'RuntimeError'], ['NotImplementedError', 'RuntimeError'],
  ['AssertionError', 'Exception'], ['StopIteration', 'Exception'], ['MemoryError', 'Exception'],
]
for (const [name, base] of EXCEPTION_TREE) defType(name, base ?? 'object')
// json's own exception class: reached as json.JSONDecodeError, not a builtin name.
defType('JSONDecodeError', 'ValueError')
// statistics' own exception class (a ValueError), reached as statistics.StatisticsError.
defType('StatisticsError', 'ValueError')
// re's own exception class (an Exception, named `error` as in CPython), reached as re.error.
defType('error', 'Exception')
// decimal's signals, reached as decimal.InvalidOperation, ...: CPython's hierarchy, several bases included.
for (const [name, base, ...also] of [
  ['DecimalException', 'ArithmeticError'], ['Clamped', 'DecimalException'], ['InvalidOperation', 'DecimalException'],
  ['ConversionSyntax', 'InvalidOperation'], ['DivisionImpossible', 'InvalidOperation'], ['DivisionUndefined', 'InvalidOperation', 'ZeroDivisionError'],
  ['InvalidContext', 'InvalidOperation'], ['DivisionByZero', 'DecimalException', 'ZeroDivisionError'], ['Inexact', 'DecimalException'],
  ['Rounded', 'DecimalException'], ['Subnormal', 'DecimalException'], ['Overflow', 'Inexact', 'Rounded'],
  ['Underflow', 'Inexact', 'Rounded', 'Subnormal'], ['FloatOperation', 'DecimalException', 'TypeError'],
] as const) {
  const t = defType(name, base)
  t.module = 'decimal'
  if (also.length) t.also = also.map((n) => types.get(n)!)
}

/**
 * The builtin exception classes of the extended profile beyond the contract's, child after parent:
 * what `close()` raises in a generator, and the ones model-written code raises and catches
 * (`ConnectionError`, `TimeoutError`, `FileNotFoundError`, ...). `IOError` and `EnvironmentError`
 * are `OSError` itself, as in CPython.
 */
export const EXTENDED_EXCEPTION_TREE: ReadonlyArray<readonly [string, string]> = [
  ['GeneratorExit', 'BaseException'], ['OSError', 'Exception'], ['ConnectionError', 'OSError'],
  ['BrokenPipeError', 'ConnectionError'], ['ConnectionAbortedError', 'ConnectionError'],
  ['ConnectionRefusedError', 'ConnectionError'], ['ConnectionResetError', 'ConnectionError'],
  ['FileExistsError', 'OSError'], ['FileNotFoundError', 'OSError'], ['InterruptedError', 'OSError'],
  ['IsADirectoryError', 'OSError'], ['NotADirectoryError', 'OSError'], ['PermissionError', 'OSError'],
  ['ProcessLookupError', 'OSError'], ['TimeoutError', 'OSError'], ['BlockingIOError', 'OSError'],
  ['ChildProcessError', 'OSError'], ['EOFError', 'Exception'],
  ['FloatingPointError', 'ArithmeticError'], ['BufferError', 'Exception'], ['Warning', 'Exception'],
  ['UserWarning', 'Warning'], ['DeprecationWarning', 'Warning'], ['RuntimeWarning', 'Warning'],
]
for (const [name, base] of EXTENDED_EXCEPTION_TREE) defType(name, base)
export const EXCEPTION_ALIASES: Readonly<Record<string, string>> = { IOError: 'OSError', EnvironmentError: 'OSError' }
for (const [alias, name] of Object.entries(EXCEPTION_ALIASES)) types.set(alias, types.get(name)!)

/** The subclass CPython's `OSError(errno, strerror, ...)` makes for its errno (Linux's numbers, as CPython's reference runs). */
const ERRNO_CLASSES: Readonly<Record<number, string>> = {
  1: 'PermissionError', 2: 'FileNotFoundError', 3: 'ProcessLookupError', 4: 'InterruptedError', 10: 'ChildProcessError',
  11: 'BlockingIOError', 13: 'PermissionError', 17: 'FileExistsError', 20: 'NotADirectoryError', 21: 'IsADirectoryError',
  32: 'BrokenPipeError', 103: 'ConnectionAbortedError', 104: 'ConnectionResetError', 108: 'BrokenPipeError',
  110: 'TimeoutError', 111: 'ConnectionRefusedError', 114: 'BlockingIOError', 115: 'BlockingIOError',
}

/** The class an exception made by calling `t` with `args` has: t, but `OSError(2, ...)` is a FileNotFoundError. */
export function exceptionClass(t: PyType, args: readonly unknown[]): PyType {
  if (args.length < 2 || args.length > 5 || typeof args[0] !== 'number' || t !== types.get('OSError')) return t
  const sub = ERRNO_CLASSES[args[0]]
  return sub === undefined ? t : types.get(sub)!
}

/** A type object by name (builtin types and exception classes). */
export const typeByName = (name: string): PyType | undefined => types.get(name)

/** A raised Python exception: its class and arguments. `message` is `str(e)`, kept for the host's error record. */
export class PyException {
  readonly pyType: string
  message: string
  /** Attributes a user exception class's `__init__` set (`self.code = ...`). */
  attrs?: Map<string, unknown>
  constructor(readonly type: PyType, public args: readonly unknown[], message: string) {
    this.pyType = type.name
    this.message = message
    if (args.length >= 2 && args.length <= 5 && type.isSubclassOf(types.get('OSError')!)) this.osError(args)
  }

  /** CPython's OSError made with `(errno, strerror[, filename[, winerror[, filename2]]])`: those attributes, and args keep the first two. */
  private osError(args: readonly unknown[]): void {
    const at = (i: number) => (args.length > i ? args[i] : null)
    this.attrs = new Map([['errno', args[0]], ['strerror', args[1]], ['filename', at(2)], ['filename2', at(4)]])
    if (args.length > 2) this.args = Object.freeze(args.slice(0, 2))
  }
}

/** `range(start, stop, step)` over safe integers. */
export class PyRange {
  constructor(readonly start: number, readonly stop: number, readonly step: number) {}
  get length(): number {
    const { start, stop, step } = this
    if (step > 0) return start < stop ? Math.floor((stop - start - 1) / step) + 1 : 0
    return start > stop ? Math.floor((start - stop - 1) / -step) + 1 : 0
  }
  at(i: number): number {
    return this.start + i * this.step
  }
}

/** A dict: insertion-ordered entries keyed by Python equality (see `hashKey`). */
export class PyDict {
  readonly map = new Map<unknown, [unknown, unknown]>()
  /** The type name (`Counter`, `defaultdict`, `OrderedDict` subclass it). */
  get pyName(): string {
    return 'dict'
  }
  /** `d[key]` of a missing key (Counter: 0, defaultdict: a new default); undefined: KeyError. */
  missing?(key: unknown): unknown
  /** The repr of a subclass, given the repr of values (a plain dict's is built by core.repr). */
  reprOf?(r: (v: unknown) => string): string
  get size(): number {
    return this.map.size
  }
}

/** A set: members keyed by Python equality; the first inserted equal member is kept. */
export class PySet {
  /** Iterates in CPython's order for sets of numbers (set-order.ts). */
  readonly map: Map<unknown, unknown> = new SetTable()
  get size(): number {
    return this.map.size
  }
}

/**
 * `frozenset`: a set made once and never changed (no mutating method; `|=` makes a new one), so it is
 * hashable (core.ts hashKey: a dict key, a set member). Every read of a set reads it too.
 */
export class PyFrozenSet extends PySet {
  /** Its key in a dict or set, computed at the first use (its members never change). */
  key?: string
}

/** `d.keys()`, `d.values()`, `d.items()`: live views of a dict. */
export class PyDictView {
  constructor(readonly dict: PyDict, readonly kind: 'keys' | 'values' | 'items') {}
}

/**
 * Values of the extended profile that have no literal form (functions, bound methods, iterators):
 * each names its Python type and its repr.
 */
export abstract class PyOpaque {
  abstract readonly typeName: string
  repr(): string {
    return `<${this.typeName} object>`
  }
}

/**
 * A number type of a module (`fractions.Fraction`). Operators, comparisons, hashing, truth, `str`
 * and the numeric builtins reach it through these methods (numbers.ts, core.ts, builtins.ts), after
 * the int and float paths, which stay as they are.
 */
export abstract class PyNumeric extends PyOpaque {
  /** `self op other` (`other op self` when reflected); undefined when other is not a number it takes. */
  abstract binop(rt: unknown, op: string, other: unknown, reflected: boolean): unknown
  /** -1, 0 or 1 against another number (NaN: unordered); undefined when other is not a number. `ordering`: for `<` and the rest, not `==`. */
  abstract compareTo(other: unknown, ordering?: boolean): number | undefined
  /** The dict key it shares with the int or float it equals. */
  abstract hashKey(): unknown
  abstract truth(): boolean
  abstract str(): string
  /** `-x +x abs(x) int(x) float(x) round(x[, nd]) hash(x) math.trunc/floor/ceil(x)`: 'neg' 'pos' 'abs' 'int' 'float' 'round' 'hash' 'trunc' 'floor' 'ceil'; `rt` (the run) where the caller has it. */
  abstract unary(op: string, nd?: unknown, rt?: unknown): unknown
  /** `x.name(...)`; undefined when it has no such method. */
  abstract method(rt: unknown, name: string, args: unknown[], kw: PyDict | null): unknown
  /** `x.name`; undefined when it has no such attribute. */
  abstract attr(name: string): unknown
  /** `format(x, spec)` with a non-empty spec; undefined when the type takes none (object.__format__). */
  format?(rt: unknown, spec: string): string
}

/**
 * A one-shot iterator over items (`iter(x)`, `map`, `filter`): one item per `step()`. A `for` loop
 * pulls its items one at a time (`PULL`), so a loop left by `break` leaves the rest. A generator
 * (runtime/generators.ts) is one whose items are made by the program as they are asked for.
 */
export class PyIter extends PyOpaque implements PullSource {
  i = 0
  constructor(readonly items: readonly unknown[], readonly typeName: string) {
    super()
  }
  /** Whether the items are made as they are asked for (a generator), not held already. */
  get lazy(): boolean { return false }
  /** The next item, or undefined when there is none (what `next()` turns into StopIteration). */
  step(): unknown {
    return this.i < this.items.length ? this.items[this.i++] : undefined
  }
  /** The items not consumed yet; consumes them. */
  rest(): unknown[] {
    const out = this.items.slice(this.i)
    this.i = this.items.length
    return out
  }
  [PULL](): unknown {
    const v = this.step()
    return v === undefined ? PULL_DONE : v
  }
}

/** `collections.deque`: a list underneath (indexing, len, iteration, list methods) with a bound and both ends. */
export class PyDeque extends Array<unknown> {
  maxlen: number | null = null
  static override get [Symbol.species](): ArrayConstructor { return Array }
}

/** A class made by `collections.namedtuple`: a tuple type with named fields (and defaults for the last ones). */
export class PyNamedTupleType extends PyType {
  constructor(name: string, readonly fields: readonly string[], readonly defaults: readonly unknown[]) {
    super(name, T.tuple)
  }
}

/** An instance of a namedtuple class: a tuple (frozen array) that knows its class. */
export class PyNamedTuple extends Array<unknown> {
  ntype!: PyNamedTupleType
  static override get [Symbol.species](): ArrayConstructor { return Array }
}

export const isTuple = (x: unknown): x is readonly unknown[] => Array.isArray(x) && Object.isFrozen(x)
export const isList = (x: unknown): x is unknown[] => Array.isArray(x) && !Object.isFrozen(x)
export const tuple = (items: unknown[]): readonly unknown[] => Object.freeze(items)
export const EMPTY_TUPLE: readonly unknown[] = Object.freeze([])

/**
 * A guest `class` (extended profile): its name, one base (a guest class, an exception class or
 * `object`) and its attributes (class attributes and methods, the latter as function values).
 * A guest object, never a host one: it has no `__dict__`, `__class__` or metaclass to reach.
 */
let classSerial = 0

export class PyClass extends PyType {
  readonly attrs = new Map<string, unknown>()
  /** `@dataclass`: the fields in order (the bases' first) and their defaults (`undefined`: none; a PyType: a default_factory). */
  dataclass: { fields: string[]; defaults: unknown[] } | null = null
  /** How many `@property` methods the class itself holds (attribute reads look for them first). */
  props = 0
  /** How many of `__getattribute__`, `__getattr__`, `__setattr__` and `__delattr__` the class itself defines (attr-hooks.ts; attribute reads and writes then take the general path). */
  hooks = 0
  /** `@dataclass(order=True)`: instances order by their fields, as tuples. */
  order = false
  /**
   * The run that made the class, to call its comparison methods back when the runtime orders its
   * instances (`sorted`, `min`, tuples holding them): the program's `cmp$dispatch` helper.
   */
  calls: GuestCalls | null = null
  readonly serial = ++classSerial
  constructor(name: string, base: PyType, readonly qualname: string) {
    super(name, base)
  }
  /** An attribute of the class or of a guest class it derives from. */
  lookup(name: string): unknown {
    for (let t: PyType | null = this; t instanceof PyClass; t = t.base) {
      const v = t.attrs.get(name)
      if (v !== undefined) return v
    }
    return undefined
  }
}

let serial = 0

/** An instance of a guest class: its attributes by name. */
export class PyInstance extends PyOpaque {
  readonly attrs = new Map<string, unknown>()
  /** Identity for hashing (instances without `__eq__` hash by identity, as in CPython). */
  readonly serial = ++serial
  constructor(readonly cls: PyClass) {
    super()
  }
  get typeName(): string {
    return this.cls.name
  }
  override repr(): string {
    return `<${this.cls.qualname} object>`
  }
}

/** The Python type name of a value, for messages (`'int'`, `'NoneType'`, ...). */
export function typeName(x: unknown): string {
  switch (typeof x) {
    case 'number': return Number.isInteger(x) ? 'int' : 'float'
    case 'bigint': return 'int'
    case 'string': return 'str'
    case 'boolean': return 'bool'
    case 'undefined': return 'NoneType'
    case 'object':
      if (x === null) return 'NoneType'
      if (x instanceof PyDeque) return 'collections.deque'
      if (x instanceof PyNamedTuple) return x.ntype.name
      if (Array.isArray(x)) return Object.isFrozen(x) ? 'tuple' : 'list'
      if (x instanceof PyFloat) return 'float'
      if (x instanceof PyDict) return x.pyName
      if (x instanceof PySet) return x instanceof PyFrozenSet ? 'frozenset' : 'set'
      if (x instanceof PyRange) return 'range'
      if (x instanceof PyDictView) return `dict_${x.kind}`
      if (x instanceof PyType) return 'type'
      if (x instanceof PyException) return x.type.name
      if (x instanceof PyOpaque) return x.typeName
  }
  return 'object'
}

/**
 * Whether a and b are one class held two ways: a type object (`type(x)`) and the module constructor
 * that stands for it (`Decimal`, `deque`, `date`), so `type(x) is Decimal` holds as in CPython.
 */
export function sameClass(a: unknown, b: unknown): boolean {
  if (a instanceof PyType) return b instanceof PyOpaque && (b as { classType?: PyType }).classType === a
  return b instanceof PyType && a instanceof PyOpaque && (a as { classType?: PyType }).classType === b
}

/** A type's `__name__`: a C type named by its module in messages (`decimal.Decimal`, `datetime.date`) is `Decimal`, `date`. */
export const shortTypeName = (name: string): string => (name.startsWith('decimal.') ? name.slice(8) : name.startsWith('datetime.') ? name.slice(9) : name === 'collections.deque' ? 'deque' : name)

/** The type object of a value. */
export function typeOf(x: unknown): PyType {
  if (x instanceof PyDict) return types.get(x.pyName)!
  if (x instanceof PyInstance) return x.cls
  if (x instanceof PyNamedTuple) return x.ntype
  if (x instanceof PyException) return x.type
  const name = typeName(x)
  return typeByName(name) ?? otherType(name)
}

/** The type of a value with no type object of its own (`generator`, `list_iterator`, `map`, ...): named, derived from object. */
const others = new Map<string, PyType>()
function otherType(name: string): PyType {
  if (name === 'object') return T.object
  let t = others.get(name)
  if (!t) others.set(name, (t = new PyType(name, T.object)))
  return t
}
