/**
 * `ctx.flags` and `ctx.traps` of decimal (extended profile): CPython's signal dicts, a live view of
 * a context's condition bits keyed by the nine signal classes (`ctx.traps[Inexact] = True`,
 * `ctx.flags[Rounded]`, `len`, iteration in CPython's order, `in`, `keys()`/`values()`/`items()`/
 * `get()`, `copy()` a plain dict), with CPython's errors for another key and for deleting one.
 */
import { PyDict, PyOpaque, PyType, tuple, typeByName } from './values.ts'
import { PyRaise, typeError, valueError } from './errors.ts'
import { PyException } from './values.ts'
import { hashKey, truth } from './core.ts'
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

/** A context's flags or traps, read and written through. */
export class PySignalDict extends PyOpaque {
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

  override repr(): string {
    return `{${SIGNAL_TYPES.map(([t, b]) => `<class 'decimal.${t.name}'>:${this.sig[this.which] & b ? 'True' : 'False'}`).join(', ')}}`
  }

  /** A plain dict of the nine signals to their truth (`copy()`). */
  dict(): PyDict {
    const d = new PyDict()
    for (const [t, b] of SIGNAL_TYPES) d.map.set(hashKey(t), [t, (this.sig[this.which] & b) !== 0])
    return d
  }

  method(name: string, a: unknown[]): unknown {
    switch (name) {
      case 'keys': return this.keys()
      case 'values': return this.keys().map((t) => this.has(t))
      case 'items': return this.keys().map((t) => tuple([t, this.has(t)]))
      case 'copy': return this.dict()
      case 'get': {
        const t = SIGNAL_TYPES.find(([s]) => s === a[0])
        return t ? (this.sig[this.which] & t[1]) !== 0 : a.length > 1 ? a[1] : null
      }
      case 'update': {
        if (!(a[0] instanceof PyDict)) return undefined
        for (const [k, v] of a[0].map.values()) this.set(k, v)
        return null
      }
      case 'clear': case 'pop': case 'popitem': return deleteSignal()
    }
    return undefined
  }
}

/** `ctx.flags == x` (either side a signal dict): the same signals set, against another signal dict or a dict of all nine signals. */
export function signalDictEq(a: unknown, b: unknown): boolean {
  const [s, o] = a instanceof PySignalDict ? [a, b] : [b as PySignalDict, a]
  if (o instanceof PySignalDict) return o.sig[o.which] === s.sig[s.which]
  if (!(o instanceof PyDict) || o.size !== SIGNAL_TYPES.length || !SIGNAL_TYPES.every(([t]) => o.map.has(hashKey(t)))) return false
  return signalsOf(o) === s.sig[s.which]
}

/** `del ctx.traps[k]`: CPython's ValueError (the nine keys stay). */
export function deleteSignal(): never {
  return valueError('signal keys cannot be deleted')
}

/** `x in ctx.flags`: only the signal classes are keys. */
export function hasSignal(k: unknown): boolean {
  return SIGNAL_TYPES.some(([t]) => t === k)
}
