/**
 * The special methods of guest classes that language operations call (extended profile): `len`,
 * truth, iteration, `in`, subscripts, hashing, arithmetic with its reflected and in-place forms, and
 * the unary operators, with CPython 3.11's rules (NotImplemented, reflected operands, the TypeErrors
 * of a missing method or a result of the wrong type). Each operation reaches here only after its
 * builtin paths failed, so the int/float/str paths do not change. The method is called back through
 * the program's dispatcher (Run.callHelper): metered and depth-counted like any call. Nothing here
 * reads a dunder attribute on the guest's behalf beyond the class's own methods.
 */
import { DISPATCH_HELPER, PyClass, PyException, PyInstance, PyIter, PyOpaque, typeByName, typeName, type PyType } from './values.ts'
import { raise, typeError } from './errors.ts'
import { objectHash } from './set-order.ts'

/** The guest method `name` of x's class (a guest function), or undefined. */
export function guestMethod(x: unknown, name: string): PyOpaque | undefined {
  if (!(x instanceof PyInstance)) return undefined
  const m = x.cls.lookup(name)
  return m instanceof PyOpaque && m.typeName === 'function' ? m : undefined
}

/** Call x's method `f` (named `name`) with args, through the program's dispatcher. */
export function callGuest(x: PyInstance, f: PyOpaque, name: string, args: unknown[]): unknown {
  const calls = x.cls.calls
  if (!calls || calls.helperWaits(DISPATCH_HELPER)) {
    raise('NotImplementedError', `${x.cls.name}.${name}() cannot run here: the program may wait for an atom in a function, and a special method is called at once; call a method of your own instead (\`def ${name.replace(/_/g, '') || 'op'}(self, ...)\`)`)
  }
  return calls.callHelper(DISPATCH_HELPER, [f, [x, ...args], null])
}

/** Call x's method `name` when it has one; `MISSING` when not. */
export const MISSING: unique symbol = Symbol('missing')
export function callIf(x: unknown, name: string, args: unknown[]): unknown {
  const f = guestMethod(x, name)
  return f === undefined ? MISSING : callGuest(x as PyInstance, f, name, args)
}

/** Whether v is `NotImplemented` (runtime/classes.ts's singleton, by its type: no import cycle). */
const isNI = (v: unknown): boolean => v instanceof PyOpaque && v.typeName === 'NotImplementedType'

// --- len, truth ------------------------------------------------------------------------

/** An `__len__`/`__index__` result as CPython's PyNumber_AsSsize_t reads it. */
function asIndex(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v === 'bigint') return raise('OverflowError', 'cannot fit \'int\' into an index-sized integer')
  return typeError(`'${typeName(v)}' object cannot be interpreted as an integer`)
}

/** `len(x)` of a guest object; undefined when it has no `__len__`. */
export function guestLen(x: unknown): number | undefined {
  const r = callIf(x, '__len__', [])
  if (r === MISSING) return undefined
  const n = asIndex(r)
  if (n < 0) raise('ValueError', '__len__() should return >= 0')
  return n
}

/** `bool(x)` of a guest object: `__bool__`, else `__len__`, else True. */
export function guestTruth(x: PyInstance): boolean {
  const r = callIf(x, '__bool__', [])
  if (r !== MISSING) {
    if (typeof r !== 'boolean') typeError(`__bool__ should return bool, returned ${typeName(r)}`)
    return r as boolean
  }
  const n = guestLen(x)
  return n === undefined || n > 0
}

// --- iteration -------------------------------------------------------------------------

const STOP = typeByName('StopIteration')!
const INDEX_ERROR = typeByName('IndexError')!
const raised = (e: unknown): PyException | undefined => {
  const v = (e as { value?: unknown } | null)?.value
  return v instanceof PyException ? v : undefined
}

/**
 * An iterator made of a guest object's methods: `__next__` until StopIteration, or the old
 * sequence protocol, `__getitem__(0)`, `__getitem__(1)`, ... until IndexError.
 */
class PyGuestIter extends PyIter {
  private done = false
  private n = 0
  constructor(readonly obj: PyInstance, readonly f: PyOpaque, readonly by: '__next__' | '__getitem__') {
    super([], by === '__next__' ? obj.cls.name : 'iterator')
  }
  override get lazy(): boolean { return true }
  override step(): unknown {
    if (this.done) return undefined
    try {
      const v = callGuest(this.obj, this.f, this.by, this.by === '__next__' ? [] : [this.n++])
      // A None item is null; undefined is this class's "no more" (never a Python value).
      return v === undefined ? null : v
    } catch (e) {
      const x = raised(e)
      if (x !== undefined && x.type.isSubclassOf(this.by === '__next__' ? STOP : INDEX_ERROR)) {
        this.done = true
        return undefined
      }
      throw e
    }
  }
  override rest(): unknown[] {
    const out: unknown[] = []
    for (let v = this.step(); v !== undefined; v = this.step()) out.push(v)
    return out
  }
}

/** An iterator over a value that `iter(v)` returned: v itself when it is one. */
function asIterator(v: unknown): PyIter | undefined {
  if (v instanceof PyIter) return v
  const next = guestMethod(v, '__next__')
  return next ? new PyGuestIter(v as PyInstance, next, '__next__') : undefined
}

/**
 * `iter(x)` of a guest object as the program sees it: what its `__iter__` returned (an iterator, or an
 * object with `__next__`), or an iterator over its `__getitem__` sequence; undefined: not iterable.
 */
export function guestIterObject(x: unknown): unknown {
  if (!(x instanceof PyInstance)) return undefined
  const r = callIf(x, '__iter__', [])
  if (r !== MISSING) return r instanceof PyIter || guestMethod(r, '__next__') ? r : typeError(`iter() returned non-iterator of type '${typeName(r)}'`)
  const get = guestMethod(x, '__getitem__')
  return get ? new PyGuestIter(x, get, '__getitem__') : undefined
}

/** The iterator of a guest object, to read its items (undefined: not iterable). */
export function guestIter(x: unknown): PyIter | undefined {
  const r = guestIterObject(x)
  return r === undefined ? undefined : asIterator(r)
}

/** `item in x` of a guest object with `__contains__`; MISSING when it has none (iteration decides). */
export const guestContains = (x: unknown, item: unknown): unknown => callIf(x, '__contains__', [item])

// --- subscripts ---------------------------------------------------------------------------

/** `x[k]`, `x[k] = v`, `del x[k]` of a guest object; MISSING when it has no such method. */
export const guestItem = (x: unknown, k: unknown): unknown => callIf(x, '__getitem__', [k])
export const guestSetItem = (x: unknown, k: unknown, v: unknown): unknown => storeOrDelete(x, '__setitem__', [k, v])
export const guestDelItem = (x: unknown, k: unknown): unknown => storeOrDelete(x, '__delitem__', [k])

/** CPython's one slot for both: a class with only the other one is an AttributeError naming the missing method. */
function storeOrDelete(x: unknown, name: '__setitem__' | '__delitem__', args: unknown[]): unknown {
  const r = callIf(x, name, args)
  if (r === MISSING && guestMethod(x, name === '__setitem__' ? '__delitem__' : '__setitem__')) raise('AttributeError', name)
  return r
}

// --- hashing ---------------------------------------------------------------------------------

/**
 * The `__hash__` a guest class has: a function, null when the class is unhashable (it or a base
 * nearer than any `__hash__` defines `__eq__`, as CPython sets `__hash__ = None` then), undefined when
 * it hashes by identity.
 */
export function hashMethod(x: PyInstance): PyOpaque | null | undefined {
  for (let t: PyType | null = x.cls; t instanceof PyClass; t = t.base) {
    const h = t.attrs.get('__hash__')
    if (h !== undefined) return h instanceof PyOpaque && h.typeName === 'function' ? h : null
    if (t.attrs.has('__eq__') || t.dataclass) return null
  }
  return undefined
}

/**
 * The hash each object had when last hashed: what a set's table places it by (set-order.ts, for
 * CPython's slot order), as CPython keeps an entry's hash instead of calling `__hash__` again.
 */
const HASHES = new WeakMap<PyInstance, number | bigint>()
objectHash.of = (x) => {
  const h = HASHES.get(x)
  if (h !== undefined) return h
  const f = hashMethod(x)
  return f ? guestHash(x, f) : undefined
}

/** `hash(x)` by its `__hash__`: an int (hashed again as an int by the caller). */
export function guestHash(x: PyInstance, f: PyOpaque): number | bigint {
  const r = callGuest(x, f, '__hash__', [])
  if (typeof r === 'boolean') return r ? 1 : 0
  if ((typeof r === 'number' && Number.isInteger(r)) || typeof r === 'bigint') return r
  return typeError('__hash__ method should return an integer')
}

// --- operators ---------------------------------------------------------------------------------

const NAMES: Readonly<Record<string, string>> = {
  '+': 'add', '-': 'sub', '*': 'mul', '/': 'truediv', '//': 'floordiv', '%': 'mod', '**': 'pow',
  '&': 'and', '|': 'or', '^': 'xor', '<<': 'lshift', '>>': 'rshift', '@': 'matmul',
  // Not an operator: divmod(a, b) dispatches the same way (runtime/extended.ts); no in-place form.
  divmod: 'divmod',
}

/**
 * `a op b` when a or b is a guest object (CPython's binary_op1 over slot methods): `a.__op__(b)`,
 * then `b.__rop__(a)` when b is of another type; a subclass's own reflection goes first. undefined
 * when neither answers (the caller raises its TypeError).
 */
export function guestBinop(op: string, a: unknown, b: unknown): unknown {
  const name = NAMES[op]
  if (name === undefined) return undefined
  const own = `__${name}__`, ref = `__r${name}__`
  const f = guestMethod(a, own)
  const sameType = a instanceof PyInstance && b instanceof PyInstance && a.cls === b.cls
  let g = sameType ? undefined : guestMethod(b, ref)
  if (f !== undefined) {
    if (g !== undefined && b instanceof PyInstance && a instanceof PyInstance && b.cls.isSubclassOf(a.cls) && b.cls.lookup(ref) !== a.cls.lookup(ref)) {
      const r = callGuest(b, g, ref, [a])
      if (!isNI(r)) return r
      g = undefined
    }
    const r = callGuest(a as PyInstance, f, own, [b])
    if (!isNI(r)) return r
  }
  if (g !== undefined) {
    const r = callGuest(b as PyInstance, g, ref, [a])
    if (!isNI(r)) return r
  }
  return undefined
}

/** `a op= b` with a guest object a: `a.__iop__(b)`, else the binary operator; undefined: unsupported. */
export function guestInplace(op: string, a: PyInstance, b: unknown): unknown {
  const name = NAMES[op]
  if (name === undefined) return undefined
  const r = callIf(a, `__i${name}__`, [b])
  if (r !== MISSING && !isNI(r)) return r
  return guestBinop(op, a, b)
}

const UNARY: Readonly<Record<string, string>> = { neg: '__neg__', pos: '__pos__', abs: '__abs__', inv: '__invert__' }

/** `-x`, `+x`, `abs(x)`, `~x` of a guest object; MISSING when it has no such method. */
export const guestUnary = (op: 'neg' | 'pos' | 'abs' | 'inv', x: unknown): unknown => callIf(x, UNARY[op]!, [])

/**
 * Equal objects by `__eq__` with the same `__hash__`, per run: the first of each becomes the
 * representative whose number is the dict/set key of all of them (dicts and sets key values by
 * Python equality, runtime/core.ts hashKey), found by comparing with the representatives of that hash.
 */
const REPRESENTATIVES = new WeakMap<object, Map<string, Array<[PyInstance, number]>>>()
let represented = 0

/** The key of a guest object in a dict or set (unhashable: TypeError, as CPython). */
export function instanceKey(x: PyInstance, eq: (a: unknown, b: unknown) => boolean): unknown {
  const h = hashMethod(x)
  if (h === undefined) return `\u0001o${x.serial}`
  if (h === null) return typeError(`unhashable type: '${x.cls.name}'`)
  const v = guestHash(x, h)
  HASHES.set(x, v)
  let hasEq = false
  for (let t: PyType | null = x.cls; t instanceof PyClass && !hasEq; t = t.base) hasEq = t.attrs.has('__eq__')
  if (!hasEq) return `\u0001o${x.serial}`
  const owner = x.cls.calls ?? x.cls
  let byHash = REPRESENTATIVES.get(owner)
  if (!byHash) REPRESENTATIVES.set(owner, (byHash = new Map()))
  const hk = String(v)
  let bucket = byHash.get(hk)
  if (!bucket) byHash.set(hk, (bucket = []))
  for (const [rep, n] of bucket) if (rep === x || eq(rep, x)) return `\u0001h${n}`
  bucket.push([x, ++represented])
  return `\u0001h${represented}`
}

/**
 * `reversed(x)` of a guest object, its items: `__reversed__`'s iterator, else `x[len(x) - 1]` down to
 * `x[0]` (CPython's sequence protocol, ending early at IndexError); undefined: not reversible.
 */
export function guestReversed(x: unknown): unknown[] | undefined {
  if (!(x instanceof PyInstance)) return undefined
  const r = callIf(x, '__reversed__', [])
  if (r !== MISSING) return (asIterator(r) ?? typeError(`'${typeName(r)}' object is not an iterator`)).rest()
  const get = guestMethod(x, '__getitem__')
  if (!get || !guestMethod(x, '__len__')) return undefined
  const out: unknown[] = []
  for (let i = guestLen(x)! - 1; i >= 0; i--) {
    try {
      out.push(callGuest(x, get, '__getitem__', [i]))
    } catch (e) {
      const v = raised(e)
      if (v !== undefined && (v.type.isSubclassOf(INDEX_ERROR) || v.type.isSubclassOf(STOP))) break
      throw e
    }
  }
  return out
}

/** `x.__index__()` where an int is needed (`xs[x]`, `range(x)`, `hex(x)`, slices): the int, or MISSING. */
export function guestIndex(x: unknown): unknown {
  const r = callIf(x, '__index__', [])
  if (r === MISSING) return MISSING
  if (typeof r === 'boolean') return r ? 1 : 0
  return (typeof r === 'number' && Number.isInteger(r)) || typeof r === 'bigint' ? r : typeError(`__index__ returned non-int (type ${typeName(r)})`)
}
