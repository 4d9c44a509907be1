/**
 * The table the VM calls: every runtime entry the Python frontend emits, by
 * name (`py$...`: `$` cannot appear in a Python name, so a guest's own
 * functions never collide). Pass it as `new AgentVM(atoms, { functions })`.
 */
import type { GuestFunction } from '../../vm/compile/compiler.ts'
import { PyDeque, PyDict, PyIter, PyNumeric, PyOpaque, exceptionClass, sameClass, PyException, PyFloat, PyRange, PyType, T, isTuple, mkFloat, mkInt, tuple, typeByName, typeName } from './values.ts'
import { PyRaise, exceptionMessage, raise, typeError, valueError } from './errors.ts'
import { contextMethod } from './decimal.ts'
import { contains, eq, ge, gt, hashKey, iterate, le, len, lt, repr, str, toArray, truth } from './core.ts'
import { guestIter } from './dunders.ts'
import { PyInstance } from './values.ts'
import { liveIterator } from './live-iter.ts'
import { BINARY, add, floordiv, iadd, imul, inplace, isub, mod, mul, power, sub, truediv } from './ops.ts'
import { invert, negate, positive, intOf, isIntValue } from './numbers.ts'
import { delItem, delSlice, getItem, getSlice, setItem, setSlice } from './items.ts'
import { convert, format } from './format.ts'
import { callMethod, dictGet, listAppend } from './methods.ts'
import { dictFromPairs, dictSet, dictUpdate, setFrom } from './collections.ts'
import * as B from './builtins.ts'
import { bindArgs, checkResult, dumps, fromJson, toData } from './json.ts'
import type { PyRun } from './fuel.ts'
import { EXTENDED_RUNTIME } from './extended.ts'
import { ATTR_RUNTIME } from './attrs.ts'
import { GENERATOR_RUNTIME } from './generators.ts'
import { CLASS_RUNTIME, unwrapTexts } from './classes.ts'
import { MODULE_RUNTIME, PyOrderedDict, collectionMethod } from './modules.ts'
import { FUSABLE, compileOp, ex } from './fused.ts'
import { FAST_COMPILE, FAST_RUNTIME } from './fastpath.ts'
import { reMethod } from './re.ts'
import { timeMethod } from './datetime.ts'
import { constantSet } from './set-order.ts'

type Fn = (rt: PyRun, a: any[]) => unknown

/** The items of a value being unpacked (`a, b = x`), with CPython's message for a non-iterable. */
function unpackItems(rt: PyRun, x: unknown): unknown[] {
  try {
    return iterate(x, rt)
  } catch (e) {
    if (e instanceof PyRaise && e.message.endsWith('object is not iterable')) typeError(`cannot unpack non-iterable ${typeName(x)} object`)
    throw e
  }
}

function unpack(rt: PyRun, x: unknown, n: number): unknown[] {
  const items = Array.isArray(x) ? x : unpackItems(rt, x)
  if (items.length !== n) {
    if (items.length > n) valueError(`too many values to unpack (expected ${n})`)
    valueError(`not enough values to unpack (expected ${n}, got ${items.length})`)
  }
  return items
}

function unpackStar(rt: PyRun, x: unknown, before: number, after: number): unknown[] {
  const items = unpackItems(rt, x)
  if (items.length < before + after) valueError(`not enough values to unpack (expected at least ${before + after}, got ${items.length})`)
  rt.chargeSlots(items.length)
  return [...items.slice(0, before), items.slice(before, items.length - after), ...items.slice(items.length - after)]
}

/** A raised value: an exception instance, or a class instantiated without arguments. */
function raiseValue(x: unknown): PyException {
  if (x instanceof PyException) return x
  if (x instanceof PyType && x.isSubclassOf(typeByName('BaseException')!)) return new PyException(x, [], '')
  return typeError('exceptions must derive from BaseException')
}

/** What a guest `except` sees: Python exceptions as they are; VM errors mapped to the nearest Python class. */
function caught(e: unknown): PyException {
  if (e instanceof PyException) return e
  const err = e as { code?: string; message?: string }
  const code = err?.code
  const type = code === 'STACK_OVERFLOW' ? 'RecursionError' : code === 'TYPE_ERROR' ? 'TypeError' : code === 'RANGE_ERROR' ? 'ValueError' : 'RuntimeError'
  const message = code === 'STACK_OVERFLOW' ? 'maximum recursion depth exceeded' : String(err?.message ?? e)
  return new PyException(typeByName(type)!, [message], message)
}

function makeException(name: string, args: unknown[]): PyException {
  const type = exceptionClass(typeByName(name)!, args)
  return new PyException(type, args, exceptionMessage(type, args, str, repr))
}

function index(x: unknown): number {
  if (!isIntValue(x)) typeError(`'${typeName(x)}' object cannot be interpreted as an integer`)
  const i = intOf(x)
  if (typeof i === 'bigint') raise('OverflowError', 'Python int too large to convert to C ssize_t')
  return i as number
}

const raw: Record<string, Fn> = {
  // operators
  add: (rt, a) => add(rt, a[0], a[1]),
  sub: (rt, a) => sub(rt, a[0], a[1]),
  mul: (rt, a) => mul(rt, a[0], a[1]),
  div: (rt, a) => truediv(rt, a[0], a[1]),
  fdiv: (rt, a) => floordiv(rt, a[0], a[1]),
  mod: (rt, a) => mod(rt, a[0], a[1]),
  pow: (rt, a) => power(rt, a[0], a[1]),
  // `x op= y` for the operators whose in-place form is the plain one unless x is a list, set or dict.
  iadd: (rt, a) => iadd(rt, a[0], a[1]),
  isub: (rt, a) => isub(rt, a[0], a[1]),
  imul: (rt, a) => imul(rt, a[0], a[1]),
  band: (rt, a) => BINARY['&']!(rt, a[0], a[1]),
  bor: (rt, a) => BINARY['|']!(rt, a[0], a[1]),
  bxor: (rt, a) => BINARY['^']!(rt, a[0], a[1]),
  lshift: (rt, a) => BINARY['<<']!(rt, a[0], a[1]),
  rshift: (rt, a) => BINARY['>>']!(rt, a[0], a[1]),
  matmul: (rt, a) => BINARY['@']!(rt, a[0], a[1]),
  iop: (rt, a) => inplace(rt, a[0], a[1], a[2]),
  neg: (rt, a) => negate(rt, a[0]),
  pos: (rt, a) => positive(a[0], rt),
  inv: (_rt, a) => invert(a[0]),
  eq: (_rt, a) => eq(a[0], a[1]),
  ne: (_rt, a) => !eq(a[0], a[1]),
  lt: (_rt, a) => (typeof a[0] === 'number' && typeof a[1] === 'number' ? a[0] < a[1] : lt(a[0], a[1])),
  le: (_rt, a) => (typeof a[0] === 'number' && typeof a[1] === 'number' ? a[0] <= a[1] : le(a[0], a[1])),
  gt: (_rt, a) => (typeof a[0] === 'number' && typeof a[1] === 'number' ? a[0] > a[1] : gt(a[0], a[1])),
  ge: (_rt, a) => (typeof a[0] === 'number' && typeof a[1] === 'number' ? a[0] >= a[1] : ge(a[0], a[1])),
  in: (rt, a) => contains(rt, a[1], a[0]),
  notin: (rt, a) => !contains(rt, a[1], a[0]),
  is: (_rt, a) => a[0] === a[1] || (a[0] == null && a[1] == null) || (typeof a[0] === 'object' && sameClass(a[0], a[1])),
  isnot: (_rt, a) => !(a[0] === a[1] || (a[0] == null && a[1] == null) || (typeof a[0] === 'object' && sameClass(a[0], a[1]))),
  chk: (_rt, a) => (a[0] === undefined ? raise('UnboundLocalError', `cannot access local variable '${a[1]}' where it is not associated with a value`) : a[0]),
  // A variable of an enclosing function (a free variable): CPython's NameError.
  chkfree: (_rt, a) => (a[0] === undefined ? raise('NameError', `cannot access free variable '${a[1]}' where it is not associated with a value in enclosing scope`) : a[0]),
  truth: (_rt, a) => truth(a[0]),
  not: (_rt, a) => !truth(a[0]),
  // literals and displays
  float: (_rt, a) => mkFloat(a[0]),
  bigint: (_rt, a) => mkInt(BigInt(a[0])),
  tuple: (_rt, a) => tuple(a[0]),
  dict: (rt, a) => dictFromPairs(rt, a[0]),
  dictmerge: (rt, a) => { const d = new PyDict(); for (const part of a[0]) dictUpdate(rt, d, Array.isArray(part) ? dictFromPairs(rt, part) : part); return d },
  set: (rt, a) => setFrom(rt, a[0]),
  setconst: (rt, a) => { const s = setFrom(rt, a[0]); constantSet(s.map); return s },
  type: (_rt, a) => typeByName(a[0]),
  spread: (rt, a) => toArray(a[0], rt),
  // subscripts
  getitem: (rt, a) => getItem(rt, a[0], a[1]),
  setitem: (rt, a) => { setItem(rt, a[1], a[2], a[0]); return null },
  delitem: (_rt, a) => { delItem(a[0], a[1]); return null },
  getslice: (rt, a) => getSlice(rt, a[0], a[1], a[2], a[3]),
  setslice: (rt, a) => { setSlice(rt, a[1], a[2], a[3], a[4], a[0]); return null },
  delslice: (_rt, a) => { delSlice(a[0], a[1], a[2], a[3]); return null },
  // iteration
  // A `for` loop's items: an iterator (a generator) is pulled one item at a time by the loop itself.
  iter: (rt, a) => (a[0] instanceof PyIter ? a[0] : a[0] instanceof PyInstance ? guestIter(a[0]) ?? iterate(a[0], rt) : liveIterator(a[0], rt) ?? iterate(a[0], rt)),
  items: (rt, a) => toArray(a[0], rt),
  unpack: (rt, a) => unpack(rt, a[0], a[1]),
  unpackstar: (rt, a) => unpackStar(rt, a[0], a[1], a[2]),
  index: (_rt, a) => index(a[0]),
  // strings
  // (An f-string's spec is text; format(value, spec)'s is whatever the program passes.)
  fmt: (rt, a) => (typeof a[1] === 'string' ? format(rt, a[2] ? convert(a[0], a[2]) : a[0], a[1]) : typeError(`format() argument 2 must be str, not ${typeName(a[1])}`)),
  concat: (rt, a) => rt.chargeString((a[0] as string[]).join('')),
  // methods
  mget: (rt, a) => dictGet(rt, a[0], a[1], a[2]),
  mappend: (rt, a) => listAppend(rt, a[0], a[1]),
  m: (rt, a) => {
    const o = a[0]
    if (o instanceof PyDict && o.missing !== undefined || o instanceof PyOrderedDict) {
      const r = collectionMethod(rt, o as PyDict, a[1], a[2], a[3])
      if (r !== undefined) return r
    }
    if (o instanceof PyOpaque) {
      let r = reMethod(rt, o, a[1], a[2], a[3])
      if (r === undefined) r = timeMethod(o, a[1], a[2], a[3])
      if (r === undefined && o instanceof PyNumeric) r = o.method(rt, a[1], a[2], a[3])
      if (r === undefined) r = contextMethod(rt, o, a[1], a[2], a[3])
      if (r !== undefined) return r
    }
    return callMethod(rt, o, a[1], a[2], a[3])
  },
  fromkeys: (rt, a) => { const d = new PyDict(); for (const k of iterate(a[0], rt)) dictSet(d, k, a[1]); return d },
  sortkeyed: (rt, a) => {
    if (!Array.isArray(a[0]) || Object.isFrozen(a[0]) || a[0] instanceof PyDeque) raise('AttributeError', `'${typeName(a[0])}' object has no attribute 'sort'`)
    const l = a[0] as unknown[]; const s = B.sortItems(rt, l, a[1], truth(a[2])); for (let i = 0; i < s.length; i++) l[i] = s[i]; return null },
  // builtins
  len: (_rt, a) => len(a[0]),
  abs: (rt, a) => B.abs(rt, a[0]),
  bool: (_rt, a) => B.bool(...(a as [unknown])),
  dictb: (rt, a) => B.dict(rt, a[0], a[1]),
  enumerate: (rt, a) => B.enumerate(rt, a[0], a[1]),
  floatb: (_rt, a) => B.float(...(a as [unknown])),
  intb: (rt, a) => B.int(rt, ...(a as [unknown, unknown])),
  isinstance: (_rt, a) => B.isinstance(a[0], a[1]),
  list: (rt, a) => B.list(rt, ...(a as [unknown])),
  minmax: (rt, a) => B.minmax(rt, a[0], a[1], a[2], a[3], a[4]),
  range: (_rt, a) => B.range(a[0], a[1], a[2]),
  reversed: (rt, a) => B.reversed(rt, a[0]),
  round: (rt, a) => B.round(a[0], a[1], rt),
  setb: (rt, a) => B.set(rt, ...(a as [unknown])),
  sorted: (rt, a) => B.sorted(rt, a[0], a[1], a[2]),
  strb: (rt, a) => B.strOf(rt, ...(a as [unknown])),
  sum: (rt, a) => B.sum(rt, a[0], a[1]),
  tupleb: (rt, a) => B.tupleOf(rt, ...(a as [unknown])),
  zip: (rt, a) => B.zip(rt, a),
  zipstrict: (rt, a) => B.zip(rt, a.slice(1), truth(a[0])),
  // exceptions
  exc: (_rt, a) => makeException(a[0], a[1]),
  raise: (_rt, a) => raiseValue(a[0]),
  caught: (_rt, a) => caught(a[0]),
  match: (_rt, a) => { const e = a[0] as PyException; return B.isinstance(e, a[1]) },
  fail: (_rt, a) => { throw new PyRaise(a[0] as PyException, (a[0] as PyException).message) },
  // the wrapper
  bind: (rt, a) => bindArgs(rt, a[0], a[1], a[2]),
  result: (rt, a) => toData(rt, checkResult(a[0])),
  dumps: (rt, a) => dumps(rt, checkResult(a[0])),
  // a host function's call (lower-external.ts): its input out as JSON data, its result in as Python values
  data: (rt, a) => toData(rt, a[0]),
  fromdata: (rt, a) => fromJson(rt, a[0]),
  // the extended profile (functions as values, more builtins)
  ...EXTENDED_RUNTIME,
  ...GENERATOR_RUNTIME,
  ...CLASS_RUNTIME,
  ...ATTR_RUNTIME,
  ...FAST_RUNTIME,
  ...MODULE_RUNTIME,
  ex,
}
// Conversions of values holding guest objects whose __repr__/__str__ the program called first (runtime/classes.ts).
for (const name of ['strb', 'repr', 'fmt', 'print', 'printline', 'mod', 'm']) raw[`tx${name}`] = unwrapTexts(raw[name]!)

// Hot entries (attribute reads and writes with a constant name, ...): compiled at their call sites (runtime/fastpath.ts).
for (const [name, compile] of Object.entries(FAST_COMPILE)) { const plain = raw[name]!; Object.assign(plain, { compile: (args: Parameters<typeof compile>[0]) => compile(args, plain) }) }
// A fusable operation called alone (`py$gt(d, best)`) is compiled at its call site like a fused one: no argument array.
for (const op of Object.keys(FUSABLE)) Object.assign(raw[op]!, { compile: (args: Parameters<typeof compileOp>[1]) => compileOp(op, args) })

/** The Python runtime, keyed by the names compiled programs call (`py$add`, ...). */
export const PYTHON_FUNCTIONS: Readonly<Record<string, GuestFunction>> = Object.freeze(
  Object.fromEntries(Object.entries(raw).map(([k, fn]) => [`py$${k}`, fn as unknown as GuestFunction])),
)

export const RUNTIME_NAMES: ReadonlySet<string> = new Set(Object.keys(raw))

export { PyFloat, PyRange, T, isTuple }
