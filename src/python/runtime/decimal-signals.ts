/**
 * `ctx.flags` and `ctx.traps` of decimal (extended profile): CPython's signal dicts, a live view of
 * a context's condition bits keyed by the nine signal classes (`ctx.traps[Inexact] = True`,
 * `ctx.flags[Rounded]`, `len`, iteration in CPython's order, `in`, `get()`, `setdefault()`,
 * `update()`, `copy()` a plain dict), with CPython's errors for another key and for deleting one.
 * `keys()`/`values()`/`items()` are the live views of collections.abc.Mapping (`KeysView(...)`),
 * which is what CPython 3.11's SignalDict (a MutableMapping) gives.
 */
import { PyDict, PyDictView, PyException, PyFloat, PyInstance, PyOpaque, PySet, PyType, tuple, typeByName, typeName } from './values.ts'
import { PyRaise, typeError, valueError } from './errors.ts'
import { eq, hashKey, iterate, truth, viewAsSet } from './core.ts'
import { SIGNALS, type Signals } from './decimal-num.ts'

const SIGNAL_TYPES: ReadonlyArray<readonly [PyType, number]> = SIGNALS.map(([name, bits]) => [typeByName(name)!, bits] as const)

const VALID = 'valid values for signals are:\n  [InvalidOperation, FloatOperation, DivisionByZero,\n   Overflow, Underflow, Subnormal, Inexact, Rounded,\n   Clamped]'

/** CPython's KeyError with a text argument (shown quoted, as its repr). */
function keyError(text: string): never {
  const shown = `'${text.replace(/\n/g, '\\n')}'`
  throw new PyRaise(new PyException(typeByName('KeyError')!, [text], shown), shown)
}

/** The condition bits of a signal class (CPython's `exception_as_flag`), else its KeyError. */
export function signalBits(k: unknown): number {
  for (const [t, bits] of SIGNAL_TYPES) if (t === k) return bits
  return keyError(VALID)
}

/** `[Inexact, Rounded]` as a Context's repr lists signals (libmpdec's order, by condition bit). */
const REPR_ORDER = ['Clamped', 'InvalidOperation', 'DivisionByZero', 'Inexact', 'FloatOperation', 'Overflow', 'Rounded', 'Subnormal', 'Underflow']
export function signalsText(bits: number): string {
  const names = REPR_ORDER.filter((n) => (bits & SIGNALS.find(([s]) => s === n)![1]) !== 0)
  return `[${names.join(', ')}]`
}

/**
 * The bits of `Context(traps=...)`/`ctx.traps = ...`: a list of signals, another signal dict, or a
 * dict of all nine signals to truth values (CPython's `list_as_flags`, `dict_as_flags`).
 */
export function signalsOf(v: unknown): number {
  if (v instanceof PySignalDict) return v.sig[v.which]
  let bits = 0
  if (Array.isArray(v)) {
    for (const k of v) bits |= signalBits(k)
    return bits
  }
  if (!(v instanceof PyDict)) return typeError('argument must be a signal dict')
  if (v.size !== SIGNAL_TYPES.length) keyError('invalid signal dict')
  for (const [t, b] of SIGNAL_TYPES) {
    const e = v.map.get(hashKey(t))
    if (e === undefined) keyError('invalid signal dict')
    if (truth(e[1])) bits |= b
  }
  return bits
}

/** A signal dict or one of its views: nine members in CPython's order (core.ts: iteration, `len`, `in`, `==`). */
export abstract class SignalCollection extends PyOpaque {
  abstract members(): unknown[]
  abstract holds(x: unknown): boolean
}

/** A context's flags or traps, read and written through. */
export class PySignalDict extends SignalCollection {
  readonly typeName = 'SignalDict'
  constructor(readonly sig: Signals, readonly which: 'flags' | 'traps') {
    super()
  }

  has(k: unknown): boolean {
    return (this.sig[this.which] & signalBits(k)) !== 0
  }

  set(k: unknown, v: unknown): void {
    const b = signalBits(k)
    this.sig[this.which] = truth(v) ? this.sig[this.which] | b : this.sig[this.which] & ~b
  }

  keys(): PyType[] {
    return SIGNAL_TYPES.map(([t]) => t)
  }

  members(): unknown[] {
    return this.keys()
  }

  holds(x: unknown): boolean {
    return hasSignal(x)
  }

  override repr(): string {
    return `{${SIGNAL_TYPES.map(([t, b]) => `<class 'decimal.${t.name}'>:${this.sig[this.which] & b ? 'True' : 'False'}`).join(', ')}}`
  }

  /** A plain dict of the nine signals to their truth (`copy()`). */
  dict(): PyDict {
    const d = new PyDict()
    for (const [t, b] of SIGNAL_TYPES) d.map.set(hashKey(t), [t, (this.sig[this.which] & b) !== 0])
    return d
  }

  /** Its methods (CPython's MutableMapping mixins over the C mapping); undefined for another name. */
  method(name: string, a: unknown[], kw: PyDict | null): unknown {
    switch (name) {
      case 'keys': case 'values': case 'items': return new PySignalView(this, name)
      case 'copy': return this.dict()
      case 'get': return hasSignal(a[0]) ? this.has(a[0]) : a.length > 1 ? a[1] : null
      case 'setdefault': {
        // MutableMapping.setdefault: the key's value when it is one (all nine are), else self[key] = default, whose KeyError.
        if (hasSignal(a[0])) return this.has(a[0])
        this.set(a[0], a.length > 1 ? a[1] : null)
        return null
      }
      case 'update': {
        // MutableMapping.update: a mapping (its keys), else pairs, then the keywords (str keys: the KeyError).
        if (a.length > 1) typeError(`MutableMapping.update() takes from 1 to 2 positional arguments but ${a.length + 1} were given`)
        const src = a[0]
        if (src instanceof PyDict) for (const [k, v] of src.map.values()) this.set(k, v)
        else if (src instanceof PySignalDict) for (const k of src.keys()) this.set(k, src.has(k))
        else if (src !== undefined) for (const pair of iterate(src)) { const [k, v] = unpackPair(pair); this.set(k, v) }
        for (const [k, v] of kw?.map.values() ?? []) this.set(k, v)
        return null
      }
      case 'pop': {
        // MutableMapping.pop: self[key] first (another key: the default or the KeyError), then the deletion's ValueError.
        if (!hasSignal(a[0]) && a.length > 1) return a[1]
        signalBits(a[0])
        return deleteSignal()
      }
      case 'clear': case 'popitem': return deleteSignal()
    }
    return undefined
  }
}

/** `signals.keys()` / `.values()` / `.items()`: collections.abc's KeysView, ValuesView, ItemsView over the live dict. */
export class PySignalView extends SignalCollection {
  readonly typeName: string
  constructor(readonly dict: PySignalDict, readonly kind: 'keys' | 'values' | 'items') {
    super()
    this.typeName = { keys: 'KeysView', values: 'ValuesView', items: 'ItemsView' }[kind]
  }

  members(): unknown[] {
    const d = this.dict
    if (this.kind === 'keys') return d.keys()
    if (this.kind === 'values') return d.keys().map((t) => d.has(t))
    return d.keys().map((t) => tuple([t, d.has(t)]))
  }

  holds(x: unknown): boolean {
    if (this.kind === 'keys') return hasSignal(x)
    if (this.kind === 'values') return this.members().some((v) => eq(v, x))
    // ItemsView.__contains__: `key, value = item`, then the mapping's value for the key.
    const [k, v] = unpackPair(x)
    return hasSignal(k) && eq(this.dict.has(k), v)
  }

  /** A keys or items view as a set (set operators and `==` with sets and other views, as collections.abc.Set). */
  asSet(): PySet | undefined {
    if (this.kind === 'values') return undefined
    const s = new PySet()
    for (const v of this.members()) s.map.set(hashKey(v), v)
    return s
  }

  override repr(): string {
    return `${this.typeName}(${this.dict.repr()})`
  }
}

/** `k, v = pair` with CPython's unpacking errors. */
function unpackPair(x: unknown): unknown[] {
  if (!Array.isArray(x) && typeof x !== 'string' && !(x instanceof PyDict) && !(x instanceof PySet) && !(x instanceof PyDictView) && !(x instanceof SignalCollection)) {
    typeError(`cannot unpack non-iterable ${typeName(x)} object`)
  }
  const items = iterate(x)
  if (items.length > 2) valueError('too many values to unpack (expected 2)')
  if (items.length < 2) valueError(`not enough values to unpack (expected 2, got ${items.length})`)
  return items
}

/**
 * `x == y` where either is a signal dict or one of its views. A signal dict equals another with the same
 * signals set, or a dict of all nine signals to the same truth; a keys or items view equals a set or a
 * keys or items view of the same members (collections.abc.Set); a values view only itself.
 */
export function signalEq(a: unknown, b: unknown): boolean {
  const [s, o] = a instanceof SignalCollection ? [a, b] : [b as SignalCollection, a]
  if (s instanceof PySignalDict) return signalDictEq(s, o)
  if (o instanceof PySignalDict || !(s instanceof PySignalView)) return false
  const mine = s.asSet()
  const theirs = o instanceof PySet ? o : o instanceof PySignalView ? o.asSet() : o instanceof PyDictView && o.kind !== 'values' ? viewAsSet(o) : undefined
  return mine !== undefined && theirs !== undefined && eq(mine, theirs)
}

function signalDictEq(s: PySignalDict, o: unknown): boolean {
  if (o instanceof PySignalDict) return o.sig[o.which] === s.sig[s.which]
  // CPython 3.11's signaldict_richcompare reads the other operand's first field as a signal dict's flags
  // pointer before it looks at its type: where that field is zero, its ValueError.
  if (zeroFirstField(o)) valueError('invalid signal dict')
  if (!(o instanceof PyDict) || o.size !== SIGNAL_TYPES.length || !SIGNAL_TYPES.every(([t]) => o.map.has(hashKey(t)))) return false
  return signalsOf(o) === s.sig[s.which]
}

/**
 * Whether CPython's object for x has zero in the word after its header (what signaldict_richcompare
 * takes for a signal dict's flags pointer): a zero int or False (ob_size), +0.0 (its value), an empty
 * str, list, tuple, deque, dict or set (their sizes), None, a class (ob_size), and, as 3.11 lays them
 * out, an instance of a class of the program and an exception (a dict pointer still unset).
 */
function zeroFirstField(x: unknown): boolean {
  if (x === null || x === 0 || x === false || x === '') return true
  if (x instanceof PyFloat) return x.v === 0 && !Object.is(x.v, -0)
  if (Array.isArray(x)) return x.length === 0
  if (x instanceof PyDict || x instanceof PySet) return x.size === 0
  return x instanceof PyType || x instanceof PyInstance || x instanceof PyException
}

/** `del ctx.traps[k]`: CPython's ValueError (the nine keys stay). */
export function deleteSignal(): never {
  return valueError('signal keys cannot be deleted')
}

/** `x in ctx.flags`: only the signal classes are keys. */
export function hasSignal(k: unknown): boolean {
  return SIGNAL_TYPES.some(([t]) => t === k)
}
