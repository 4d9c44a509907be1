/**
 * `__getattribute__`, `__getattr__`, `__setattr__` and `__delattr__` of the program's classes
 * (extended profile), called as CPython calls them: `__getattribute__(self, name)` for every read of
 * `x.name` (with `object.__getattribute__(self, name)` / `super().__getattribute__(name)` doing the
 * normal lookup), `__getattr__(self, name)` only when the normal lookup (or `__getattribute__`) raises
 * AttributeError (no instance attribute, class attribute, method or property, or a property
 * getter that raised it), `__setattr__(self, name, value)` for every `x.name = value`, `+=` and
 * `setattr`, with `super().__setattr__(name, value)` doing the plain store, `__delattr__(self, name)`
 * for every `del x.name`, with `super().__delattr__(name)` doing the plain delete. Each is a call of the
 * program's own function back through the run (`Run.callHelper`), metered like any call. Special
 * names never reach them: the runtime finds special methods on the class, as CPython does, and a
 * program cannot name one (`x.__dict__`, `getattr(x, '__len__')` stay refused).
 */
import { DISPATCH_HELPER, PyClass, PyException, PyInstance, PyOpaque, typeByName, typeName } from './values.ts'
import { raise, typeError } from './errors.ts'
import { PyFunction } from './extended.ts'

/** An AttributeError (or subclass) raised by the runtime or by a guest `raise` (a VM error carrying it). */
export function isAttributeError(e: unknown): boolean {
  const v = (e as { value?: unknown } | null)?.value
  return v instanceof PyException && v.type.isSubclassOf(typeByName('AttributeError')!)
}

const isSpecial = (name: string): boolean => name.length > 4 && name.startsWith('__') && name.endsWith('__')

/** The program's class of a guest object (an instance, or an exception of a guest exception class). */
function guestClass(x: unknown): PyClass | undefined {
  if (x instanceof PyInstance) return x.cls
  return x instanceof PyException && x.type instanceof PyClass ? x.type : undefined
}

/** Whether a class or one of the program's classes it derives from defines an attribute hook (`__getattribute__`, `__getattr__`, `__setattr__`, `__delattr__`). */
export function hasHooks(cls: PyClass): boolean {
  for (let t: unknown = cls; t instanceof PyClass; t = t.base) if (t.hooks > 0) return true
  return false
}

/** Whether x is a guest object whose classes define an attribute hook. */
export function hooked(x: unknown): boolean {
  const cls = guestClass(x)
  return cls !== undefined && hasHooks(cls)
}

/** The guest function `name` (`__getattribute__` / `__getattr__` / `__setattr__` / `__delattr__`) of x's class, if x's classes define one. */
function hook(x: unknown, name: string): { fn: PyFunction; cls: PyClass } | undefined {
  const cls = guestClass(x)
  if (cls === undefined || !hasHooks(cls)) return undefined
  const fn = cls.lookup(name)
  return fn instanceof PyFunction ? { fn, cls } : undefined
}

/** Calls the hook back through the run, as runtime/dunders.ts calls the other special methods. */
const REWRITES: Readonly<Record<string, string>> = { __getattribute__: 'def get(self, name)', __getattr__: 'def get(self, name)', __setattr__: 'def set(self, name, value)', __delattr__: 'def delete(self, name)' }

function callHook(cls: PyClass, fn: PyFunction, name: string, args: unknown[]): unknown {
  const calls = cls.calls
  if (!calls || calls.helperWaits(DISPATCH_HELPER)) {
    const rewrite = REWRITES[name]!
    raise('NotImplementedError', `${cls.name}.${name}() cannot run here: the program may wait for an atom in a function, and a special method is called at once; call a method of your own instead (\`${rewrite}\`)`)
  }
  return calls.callHelper(DISPATCH_HELPER, [fn, args, null])
}

/**
 * `x.name` through the class's `__getattribute__` (else the normal lookup, `plain`), with its
 * `__getattr__` behind: called with the name when the first raises AttributeError.
 */
export function readWithHook(x: unknown, name: string, plain: () => unknown): unknown {
  if (isSpecial(name)) return plain()
  const ga = hook(x, '__getattribute__')
  const read = ga === undefined ? plain : () => callHook(ga.cls, ga.fn, '__getattribute__', [x, name])
  const h = hook(x, '__getattr__')
  if (h === undefined) return read()
  try {
    return read()
  } catch (e) {
    if (!isAttributeError(e)) throw e
  }
  return callHook(h.cls, h.fn, '__getattr__', [x, name])
}

/** `x.name = value` through the class's `__setattr__`: true when it was called (the caller stores nothing). */
export function writeWithHook(x: unknown, name: string, value: unknown): boolean {
  const h = hook(x, '__setattr__')
  if (h === undefined) return false
  callHook(h.cls, h.fn, '__setattr__', [x, name, value])
  return true
}

/** `del x.name` through the class's `__delattr__`: true when it was called (the caller deletes nothing). */
export function deleteWithHook(x: unknown, name: string): boolean {
  const h = hook(x, '__delattr__')
  if (h === undefined) return false
  callHook(h.cls, h.fn, '__delattr__', [x, name])
  return true
}

/** The hooks `object` answers with the plain operation. */
type NativeOp = '__setattr__' | '__delattr__' | '__getattribute__'

/**
 * `object.__setattr__` (the plain store), `object.__delattr__` (the plain delete) or
 * `object.__getattribute__` (the plain read), by `op`: `super().__setattr__` when no class above
 * defines one (bound to self), or `object.__setattr__` itself (`UNBOUND`: self is the first argument).
 */
export class PyNativeSetattr extends PyOpaque {
  readonly typeName = 'method-wrapper'
  constructor(readonly self: unknown, readonly op: NativeOp = '__setattr__') {
    super()
  }
}

export const UNBOUND = Symbol('unbound')
export const OBJECT_SETATTR = new PyNativeSetattr(UNBOUND)
export const OBJECT_DELATTR = new PyNativeSetattr(UNBOUND, '__delattr__')
export const OBJECT_GETATTRIBUTE = new PyNativeSetattr(UNBOUND, '__getattribute__')

/** The plain operations, without hooks (runtime/classes.ts and extended.ts hold them). */
export interface PlainAttrs {
  __setattr__: (x: unknown, name: string, value: unknown) => null
  __delattr__: (x: unknown, name: string) => null
  __getattribute__: (x: unknown, name: string) => unknown
}

/**
 * Calls `super().__setattr__(name, value)` / `object.__setattr__(self, name, value)`,
 * `super().__delattr__(name)` / `object.__delattr__(self, name)` or `super().__getattribute__(name)` /
 * `object.__getattribute__(self, name)` by the plain operation (without the hook).
 */
export function nativeSetattr(f: PyNativeSetattr, a: unknown[], hasKeywords: boolean, plain: PlainAttrs): unknown {
  const op = f.op
  if (hasKeywords) typeError(`${op}() takes no keyword arguments`)
  const unbound = f.self === UNBOUND
  if (unbound && !a.length) typeError(`descriptor '${op}' of 'object' object needs an argument`)
  const self = unbound ? a[0] : f.self
  const args = unbound ? a.slice(1) : a
  const want = op === '__setattr__' ? 2 : 1
  if (args.length !== want) typeError(`expected ${want} argument${want > 1 ? 's' : ''}, got ${args.length}`)
  const name = args[0]
  if (typeof name !== 'string') return typeError(`attribute name must be string, not '${typeName(name)}'`)
  if (isSpecial(name)) raise('AttributeError', `${op} of the special attribute '${name}' is not available in code blocks; use ordinary attribute names`)
  return op === '__setattr__' ? plain.__setattr__(self, name, args[1]) : plain[op](self, name)
}
