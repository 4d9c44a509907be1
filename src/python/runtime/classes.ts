/**
 * Guest classes (extended profile): classes, instances, bound methods, `super()` and the dunder
 * methods the lowering calls through the program's dispatcher (`__init__`, `__repr__`/`__str__`,
 * `__eq__` and the ordering methods). The runtime never calls guest code itself: it answers which
 * guest function to call, the program calls it, and the runtime gets the result back.
 */
import { PyContext } from './decimal-context.ts'
import { DISPATCH_HELPER, PyClass, PyDict, PyException, PyInstance, PyOpaque, PySet, PyType, T, isTuple, tuple, typeByName, typeName, type GuestCalls } from './values.ts'
import { raise, typeError, exceptionMessage } from './errors.ts'
import { hashKey, repr, str, withTexts, eq, compare, truth } from './core.ts'
import type { PyRun } from './fuel.ts'
import { PyFunction } from './extended.ts'
import { PyNativeSetattr, deleteWithHook, hooked, writeWithHook } from './attr-hooks.ts'

/** A guest function bound to its instance (`obj.method`). */
export class PyMethod extends PyOpaque {
  readonly typeName = 'method'
  constructor(readonly self: unknown, readonly func: PyFunction) {
    super()
  }
  override repr(): string {
    return `<bound method ${this.func.name} of ${repr(this.self)}>`
  }
}

/** `super()` inside a method: attribute lookups start after the method's class. */
export class PySuper extends PyOpaque {
  readonly typeName = 'super'
  constructor(readonly cls: PyClass, readonly self: unknown) {
    super()
  }
}

/** `super().__init__` of a builtin base (an exception class or `object`). */
export class PyNativeInit extends PyOpaque {
  readonly typeName = 'method-wrapper'
  constructor(readonly self: unknown, readonly base: PyType) {
    super()
  }
}

/** `NotImplemented`, what a comparison method returns for a type it does not handle. */
export class PyNotImplemented extends PyOpaque {
  readonly typeName = 'NotImplementedType'
  override repr(): string {
    return 'NotImplemented'
  }
}
export const NOT_IMPLEMENTED = new PyNotImplemented()

const BASE_EXCEPTION = typeByName('BaseException')!
const isExceptionClass = (t: PyType): boolean => t.isSubclassOf(BASE_EXCEPTION)

/** `class Name(base): ...`: attributes as a flat [name, value, ...] list; `config` holds the dataclass fields. */
function makeClass(name: string, qualname: string, bases: readonly unknown[], attrs: unknown[], config: string | null, defaults: unknown[]): PyClass {
  if (bases.length > 1) typeError('a class takes at most one base class here')
  const base = bases.length ? bases[0] : T.object
  if (!(base instanceof PyType)) return typeError(`class ${name}: the base must be a class, not '${typeName(base)}'`)
  if (!(base instanceof PyClass) && base !== T.object && !isExceptionClass(base)) {
    typeError(`class ${name}: deriving from the builtin type '${base.name}' is not supported; keep a ${base.name} in an attribute`)
  }
  const c = new PyClass(name, base, qualname)
  for (let i = 0; i < attrs.length; i += 2) c.attrs.set(attrs[i] as string, attrs[i + 1])
  if (config !== null) {
    const parsed = JSON.parse(config) as string[] | { fields: string[]; order: boolean }
    const own = Array.isArray(parsed) ? parsed : parsed.fields
    if (!Array.isArray(parsed) && parsed.order) c.order = true
    const inherited = base instanceof PyClass && base.dataclass ? base.dataclass : { fields: [], defaults: [] }
    const fields = [...inherited.fields], dflts = [...inherited.defaults]
    own.forEach((f, i) => {
      const d = defaults[i]
      if (Array.isArray(d) && !Object.isFrozen(d) || d instanceof PyDict || d instanceof PySet) {
        raise('ValueError', `mutable default <class '${typeName(d)}'> for field ${f} is not allowed: use default_factory`)
      }
      const at = fields.indexOf(f)
      if (at >= 0) dflts[at] = d
      else { fields.push(f); dflts.push(d) }
    })
    for (let i = 1; i < fields.length; i++) {
      if (dflts[i] === undefined && dflts[i - 1] !== undefined) typeError(`non-default argument '${fields[i]}' follows default argument`)
    }
    c.dataclass = { fields, defaults: dflts }
  }
  return c
}

/** `field(default_factory=list)`: a default made per instance by a builtin type. */
export class PyFactory extends PyOpaque {
  readonly typeName = 'Field'
  constructor(readonly type: PyType) {
    super()
  }
}

function fromFactory(f: PyFactory): unknown {
  switch (f.type.name) {
    case 'list': return []
    case 'dict': return new PyDict()
    case 'set': return new PySet()
    case 'int': return 0
    case 'str': return ''
    case 'float': return 0
  }
  return typeError(`default_factory=${f.type.name} is not supported; use list, dict or set`)
}

/** `Cls(...)`: the new object (a dataclass's fields bound from the arguments). */
function construct(c: PyClass, args: unknown[], kw: PyDict | null): unknown {
  if (isExceptionClass(c)) {
    const e = new PyException(c, args, exceptionMessage(c, args, str, repr))
    e.attrs = new Map()
    return e
  }
  const o = new PyInstance(c)
  const dc = c.dataclass
  if (dc && c.lookup('__init__') === undefined) {
    const n = dc.fields.length
    if (args.length > n) {
      const required = dc.defaults.filter((d) => d === undefined).length
      const takes = required === n ? `${n + 1}` : `from ${required + 1} to ${n + 1}`
      typeError(`${c.qualname}.__init__() takes ${takes} positional argument${n ? 's' : ''} but ${args.length + 1} were given`)
    }
    const slots: unknown[] = args.slice()
    if (kw) {
      for (const [k, v] of kw.map.values()) {
        const i = dc.fields.indexOf(k as string)
        if (i < 0) typeError(`${c.qualname}.__init__() got an unexpected keyword argument '${String(k)}'`)
        if (slots[i] !== undefined) typeError(`${c.qualname}.__init__() got multiple values for argument '${String(k)}'`)
        slots[i] = v
      }
    }
    const missing: string[] = []
    dc.fields.forEach((f, i) => {
      if (slots[i] !== undefined) return
      const d = dc.defaults[i]
      if (d === undefined) missing.push(`'${f}'`)
      else slots[i] = d instanceof PyFactory ? fromFactory(d) : d
    })
    if (missing.length) {
      const text = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`
      typeError(`${c.qualname}.__init__() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${text}`)
    }
    // The generated __init__ assigns `self.f = value`, through the class's `__setattr__` (CPython's order).
    const hooks = hooked(o)
    dc.fields.forEach((f, i) => (hooks ? setAttr(o, f, slots[i]) : o.attrs.set(f, slots[i])))
  }
  return o
}

/** The `__init__` (or a dataclass's `__post_init__`) to call on a new object: [function, args, kw], or null. */
function initCall(c: PyClass, o: unknown, args: unknown[], kw: PyDict | null): unknown {
  const init = c.lookup('__init__')
  if (init instanceof PyFunction) return [init, [o, ...args], kw]
  if (init !== undefined) typeError(`'${typeName(init)}' object is not callable`)
  if (c.dataclass) {
    const post = c.lookup('__post_init__')
    return post instanceof PyFunction ? [post, [o], null] : null
  }
  if (!isExceptionClass(c) && (args.length || (kw && kw.size))) typeError(`${c.name}() takes no arguments`)
  return null
}

function attrsOf(x: unknown): Map<string, unknown> | undefined {
  if (x instanceof PyInstance) return x.attrs
  // Any exception takes new attributes (`e.code = 3`), a builtin one's map made when first needed.
  if (x instanceof PyException) return (x.attrs ??= new Map())
  return undefined
}

/** What a class holds for a method decorated `@property`, `@staticmethod` or `@classmethod`. */
export class PyDescriptor extends PyOpaque {
  constructor(readonly kind: 'property' | 'setter' | 'staticmethod' | 'classmethod', readonly func: PyFunction, readonly setter?: PyFunction) {
    super()
  }
  get typeName(): string {
    return this.kind
  }
  override repr(): string {
    return this.kind === 'property' ? '<property object>' : `<${this.kind}(${repr(this.func)})>`
  }
}


/** A property's value: its getter called back with the instance (Run.callHelper). */
function getProperty(p: PyDescriptor, self: unknown, cls: PyClass): unknown {
  const calls = cls.calls
  if (!calls || calls.helperWaits(DISPATCH_HELPER)) return typeError(`property '${p.func.name.slice(p.func.name.lastIndexOf('.') + 1)}' cannot run here: its getter may wait for an atom; call a method instead`)
  return calls.callHelper(DISPATCH_HELPER, [p.func, [self], null])
}

/**
 * Whether a class or one of the program's classes it derives from holds a `@property` (read and
 * written before the instance's own attributes) or an attribute hook (`__getattribute__`, `__getattr__`, `__setattr__`, `__delattr__`):
 * then its attributes take the general path, never the fast one.
 */
export function hasProperties(cls: PyType | null): boolean {
  for (let t = cls; t instanceof PyClass; t = t.base) if (t.props > 0 || t.hooks > 0) return true
  return false
}

/** A property of a class or of one of its bases (it comes before an instance's own attribute). */
function propertyOf(cls: PyClass, name: string): PyDescriptor | undefined {
  if (!hasProperties(cls)) return undefined
  const v = cls.lookup(name)
  return v instanceof PyDescriptor && v.kind === 'property' ? v : undefined
}

/** A class attribute read through an instance (self) or the class itself (self a PyClass). */
function bind(self: unknown, v: unknown, cls?: PyClass): unknown {
  if (v instanceof PyFunction) return new PyMethod(self, v)
  if (v instanceof PyDescriptor) {
    if (v.kind === 'staticmethod') return v.func
    if (v.kind === 'classmethod') return new PyMethod(self instanceof PyClass ? self : cls ?? (self as PyInstance).cls, v.func)
    if (!(self instanceof PyClass)) return getProperty(v, self, cls ?? (self as PyInstance).cls)
  }
  return v
}

/** `x.name` on a guest object or class; `undefined` when x is not one (the caller goes on). */
export function classGetAttr(x: unknown, name: string): unknown {
  if (x instanceof PySuper) {
    const base = x.cls.base!
    const v = base instanceof PyClass ? base.lookup(name) : undefined
    if (v !== undefined) return bind(x.self, v, base as PyClass)
    if (name === '__init__') return new PyNativeInit(x.self, base)
    if (name === '__setattr__' || name === '__delattr__' || name === '__getattribute__') return new PyNativeSetattr(x.self, name)
    return raise('AttributeError', `'super' object has no attribute '${name}'`)
  }
  if (x instanceof PyClass) {
    if (name === '__name__') return x.name
    const v = x.lookup(name)
    if (v !== undefined) return v instanceof PyDescriptor ? bind(x, v) : v
    return raise('AttributeError', `type object '${x.name}' has no attribute '${name}'`)
  }
  const own = attrsOf(x)
  if (own === undefined) return undefined
  const cls = x instanceof PyInstance ? x.cls : (x as PyException).type
  if (cls instanceof PyClass) { const p = propertyOf(cls, name); if (p) return getProperty(p, x, cls) }
  const v = own.get(name)
  if (v !== undefined) return v
  if (cls instanceof PyClass) {
    const m = cls.lookup(name)
    if (m !== undefined) return bind(x, m, cls)
  }
  if (x instanceof PyException) return undefined
  return raise('AttributeError', `'${typeName(x)}' object has no attribute '${name}'`)
}

/** `x.name = value` (through the class's `__setattr__` when it has one). */
export function setAttr(x: unknown, name: string, value: unknown): null {
  if (x instanceof PyClass) {
    // `A.q = A.p` stores a property: reads look for properties only while the class counts one.
    x.props += Number(isProperty(value)) - Number(isProperty(x.attrs.get(name)))
    x.attrs.set(name, value)
    return null
  }
  if (writeWithHook(x, name, value)) return null
  return storeAttr(x, name, value)
}

/** `x.name = value` without `__setattr__` (what `super().__setattr__(name, value)` does). */
export function storeAttr(x: unknown, name: string, value: unknown): null {
  if (x instanceof PyContext) return x.set(name, value)
  if (x instanceof PyException && name === 'args') {
    x.args = tuple([...(Array.isArray(value) ? value : [value])])
    // str(e) is made from the args, as CPython's BaseException.__str__ does.
    x.message = exceptionMessage(x.type, x.args, str, repr)
    return null
  }
  const own = attrsOf(x)
  if (own === undefined) {
    if (x instanceof PyType) return typeError(`cannot set '${name}' attribute of immutable type '${x.name}'`)
    return raise('AttributeError', `'${typeName(x)}' object has no attribute '${name}'`)
  }
  const cls = x instanceof PyInstance ? x.cls : (x as PyException).type
  const p = cls instanceof PyClass ? propertyOf(cls, name) : undefined
  if (p) {
    if (!p.setter) raise('AttributeError', `property '${name}' of '${(cls as PyClass).qualname}' object has no setter`)
    const calls = (cls as PyClass).calls
    if (!calls || calls.helperWaits(DISPATCH_HELPER)) return typeError(`property '${name}' cannot be set here: its setter may wait for an atom; call a method instead`)
    calls.callHelper(DISPATCH_HELPER, [p.setter, [x, value], null])
    return null
  }
  own.set(name, value)
  return null
}

/** `del x.name` (through the class's `__delattr__` when it has one). */
function delAttr(x: unknown, name: string): null {
  return deleteWithHook(x, name) ? null : removeAttr(x, name)
}

/** `del x.name` without `__delattr__` (what `super().__delattr__(name)` does). */
export function removeAttr(x: unknown, name: string): null {
  if (x instanceof PyClass) return removeClassAttr(x, name)
  if (x instanceof PyType) return typeError(`cannot set '${name}' attribute of immutable type '${x.name}'`)
  const own = attrsOf(x)
  if (own !== undefined && !own.has(name)) {
    const cls = x instanceof PyInstance ? x.cls : (x as PyException).type
    if (cls instanceof PyClass && propertyOf(cls, name)) raise('AttributeError', `property '${name}' of '${cls.qualname}' object has no deleter`)
  }
  if (own === undefined || !own.delete(name)) raise('AttributeError', `'${typeName(x)}' object has no attribute '${name}'`)
  return null
}

/** `del A.name`: the class's own attribute only (a base's stays, and reads find it again), as CPython. */
function removeClassAttr(c: PyClass, name: string): null {
  const v = c.attrs.get(name)
  if (v === undefined) return raise('AttributeError', `type object '${c.name}' has no attribute '${name}'`)
  c.attrs.delete(name)
  // Attribute reads look for properties only while the class holds one (hasProperties).
  if (isProperty(v)) c.props--
  return null
}

const isProperty = (v: unknown): boolean => v instanceof PyDescriptor && v.kind === 'property'

/** `super().__init__(...)` of an exception class (sets args) or of object (takes nothing). */
export function nativeInit(f: PyNativeInit, args: unknown[], kw: PyDict | null): null {
  if (kw && kw.size) typeError(`${f.base.name}.__init__() takes no keyword arguments`)
  if (f.self instanceof PyException) {
    f.self.args = tuple(args.slice())
    f.self.message = exceptionMessage(f.self.type, args, str, repr)
    return null
  }
  if (args.length) typeError('object.__init__() takes exactly one argument (the instance to initialize)')
  return null
}

/** The guest method `name` of a guest object (not found: null). */
function dunder(x: unknown, name: string): PyMethod | null {
  const cls = x instanceof PyInstance ? x.cls : x instanceof PyException && x.type instanceof PyClass ? x.type : null
  if (!cls) return null
  const m = cls.lookup(name)
  return m instanceof PyFunction ? new PyMethod(x, m) : null
}

const REFLECT: Record<string, string> = { '==': '__eq__', '!=': '__ne__', '<': '__gt__', '<=': '__ge__', '>': '__lt__', '>=': '__le__' }
const OWN: Record<string, string> = { '==': '__eq__', '!=': '__ne__', '<': '__lt__', '<=': '__le__', '>': '__gt__', '>=': '__ge__' }

/** Whether a's class is a proper subclass of b's (a's reflection goes first). */
const subclassFirst = (a: unknown, b: unknown): boolean => a instanceof PyInstance && b instanceof PyInstance && a.cls !== b.cls && a.cls.isSubclassOf(b.cls)

/**
 * The comparison method to try: `a.__op__` (stage 0), or the reflection of a, the right operand
 * (stage 1; stage 2, before both, when a's class is a subclass of b's: then not again at stage 1).
 */
function cmpOf(a: unknown, b: unknown, op: string, stage: number): PyMethod | null {
  if (stage === 2 && !subclassFirst(a, b)) return null
  if (stage === 1 && subclassFirst(a, b)) return null
  // `!=` without a `__ne__`: object.__ne__ calls `__eq__` (cmpres negates what it answers).
  if (op === '!=') return dunder(a, '__ne__') ?? dunder(a, '__eq__')
  if (stage === 0) return dunder(a, OWN[op]!)
  if (b instanceof PyInstance && a instanceof PyInstance && a.cls === b.cls && op === '==') return null
  return dunder(a, REFLECT[op]!)
}

const ORDER_METHODS = ['__lt__', '__le__', '__gt__', '__ge__']

function cmpNative(op: string, a: unknown, b: unknown): boolean {
  if (op === '!=') return !cmpNative('==', a, b)
  if (op === '==') return a === b || (!(a instanceof PyInstance && a.cls.lookup('__eq__')) && !(b instanceof PyInstance && b.cls.lookup('__eq__')) && eq(a, b))
  // The program already tried the instances' own methods: no calling back into it from here.
  const c = compare(a, b, op, true)
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0
}

/** Guest objects reachable from x whose `__repr__`/`__str__` the program must call: [obj, method name, ...]. */
function pending(x: unknown): unknown[] | null {
  let out: unknown[] | null = null
  const seen = new Set<unknown>()
  const visit = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null || seen.has(v) || depth > 200) return
    seen.add(v)
    if (Array.isArray(v)) { for (const y of v) visit(y, depth + 1); return }
    if (v instanceof PyDict) { for (const [k, y] of v.map.values()) { visit(k, depth + 1); visit(y, depth + 1) } return }
    if (v instanceof PySet) { for (const y of v.map.values()) visit(y, depth + 1); return }
    if (v instanceof PyInstance || v instanceof PyException) {
      const cls = v instanceof PyInstance ? v.cls : v.type
      if (cls instanceof PyClass) {
        for (const m of ['__repr__', '__str__']) if (cls.lookup(m) instanceof PyFunction) (out ??= []).push([v, m])
        if (v instanceof PyInstance && cls.dataclass && !(cls.lookup('__repr__') instanceof PyFunction)) for (const y of v.attrs.values()) visit(y, depth + 1)
      }
      if (v instanceof PyException) for (const y of v.args) visit(y, depth + 1)
    }
  }
  visit(x, 0)
  return out
}

/** A value with the texts of its guest objects, for the conversion it is an argument of. */
export class PyTexted {
  constructor(readonly value: unknown, readonly texts: Map<object, { r?: string; s?: string }>) {}
}

function texted(x: unknown, pairs: unknown[][], texts: unknown[]): PyTexted {
  const map = new Map<object, { r?: string; s?: string }>()
  pairs.forEach(([o, m], i) => {
    const t = texts[i]
    if (typeof t !== 'string') typeError(`${m as string}() returned non-string (type ${typeName(t)})`)
    const entry = map.get(o as object) ?? {}
    if (m === '__repr__') entry.r = t as string
    else entry.s = t as string
    map.set(o as object, entry)
  })
  return new PyTexted(x, map)
}

/** Unwrap texted arguments (also one level inside an argument list) and run f with their texts. */
export function unwrapTexts(f: (rt: PyRun, a: any[]) => unknown): (rt: PyRun, a: any[]) => unknown {
  return (rt, a) => {
    let texts: Map<object, { r?: string; s?: string }> | null = null
    const take = (v: unknown): unknown => {
      if (!(v instanceof PyTexted)) return v
      texts ??= new Map()
      for (const [k, t] of v.texts) texts.set(k, { ...texts.get(k), ...t })
      return v.value
    }
    let args = a
    for (let i = 0; i < a.length; i++) {
      const v = a[i]
      if (v instanceof PyTexted) { if (args === a) args = a.slice(); args[i] = take(v) }
      else if (Array.isArray(v) && !Object.isFrozen(v) && v.some((y) => y instanceof PyTexted)) { if (args === a) args = a.slice(); args[i] = v.map(take) }
    }
    return texts ? withTexts(texts, () => f(rt, args)) : f(rt, args)
  }
}

/** The runtime entries of guest classes (`py$<name>`). */
export const CLASS_RUNTIME: Record<string, (rt: PyRun, a: any[]) => unknown> = {
  class: (rt, a) => {
    const c = makeClass(a[0], a[1], a[2], a[3], a[4], a[5] ?? [])
    c.calls = rt as unknown as GuestCalls
    return c
  },
  methods: (_rt, a) => {
    const c = a[0] as PyClass
    for (let i = 0; i < a[1].length; i += 2) {
      const m = a[1][i] as string
      if (c.order && ORDER_METHODS.includes(m)) typeError(`Cannot overwrite attribute ${m} in class ${c.name}. Consider using functools.total_ordering`)
      let v = a[1][i + 1]
      // `@m.setter`: the property defined above it gains its setter (classes.ts checked the order).
      if (v instanceof PyDescriptor && v.kind === 'setter') {
        const p = c.attrs.get(m)
        if (!(p instanceof PyDescriptor) || p.kind !== 'property') typeError(`'${m}' is not a property of ${c.name}`)
        v = new PyDescriptor('property', (p as PyDescriptor).func, v.func)
      } else if (v instanceof PyDescriptor && v.kind === 'property') c.props++
      else if (m === '__getattribute__' || m === '__getattr__' || m === '__setattr__' || m === '__delattr__') c.hooks++
      c.attrs.set(m, v)
    }
    return null
  },
  new: (_rt, a) => construct(a[0], a[1], a[2]),
  initcall: (_rt, a) => initCall(a[0], a[1], a[2], a[3]),
  initret: (_rt, a) => (a[0] === null || a[0] === undefined ? null : typeError(`__init__() should return None, not '${typeName(a[0])}'`)),
  super: (_rt, a) => {
    if (!(a[0] instanceof PyClass)) typeError('super(): no class here')
    return new PySuper(a[0], a[1])
  },
  setattr: (_rt, a) => setAttr(a[1], a[2], a[0]),
  delattr: (_rt, a) => delAttr(a[0], a[1]),
  /** Whether x is a guest object (its methods are called through the dispatcher). */
  desc: (_rt, a) => new PyDescriptor(a[0], a[1]),
  isobj: (_rt, a) => a[0] instanceof PyInstance || a[0] instanceof PyClass || a[0] instanceof PySuper || (a[0] instanceof PyException && a[0].attrs !== undefined),
  ni: () => NOT_IMPLEMENTED,
  isni: (_rt, a) => a[0] === NOT_IMPLEMENTED,
  cmpof: (_rt, a) => cmpOf(a[0], a[1], a[2], a[3]),
  cmpnative: (_rt, a) => cmpNative(a[0], a[1], a[2]),
  /** What the comparison method m answered for op: `!=` answered by an `__eq__` is negated. */
  cmpres: (_rt, a) => (a[0] !== '!=' || ((a[1] as PyMethod).self as PyInstance).cls.lookup('__ne__') === (a[1] as PyMethod).func ? a[2] : !truth(a[2])),
  pending: (_rt, a) => pending(a[0]),
  texted: (_rt, a) => texted(a[0], a[1], a[2]),
  factory: (_rt, a) => (a[0] instanceof PyType ? new PyFactory(a[0]) : typeError('default_factory must be list, dict or set here')),
}

export { PyFunction, hashKey, isTuple }
