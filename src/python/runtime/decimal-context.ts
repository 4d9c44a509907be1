/**
 * The contexts of `decimal` (extended profile): `getcontext()` (each run has its own, CPython's
 * default to start with: precision 28, ROUND_HALF_EVEN, exponents within ±999999), `setcontext`,
 * `Context(...)` and `localcontext()` in a `with` (a copy for the block, the run's context back
 * after it, also when it raises). Fields are checked as CPython checks them. Each context has its
 * flags and traps (`ctx.flags`, `ctx.traps`: signal dicts, decimal-signals.ts); the templates
 * `DefaultContext`, `BasicContext`, `ExtendedContext` are made per run (a program may change them).
 */
import { PyDict, PyOpaque } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { intOf, isIntValue } from './numbers.ts'
import { bigWorkUnits, type PyRun } from './fuel.ts'
import * as N from './decimal-num.ts'
import { Signals, type Ctx, type Rounding } from './decimal-num.ts'
import { PySignalDict, signalsText, signalsOf } from './decimal-signals.ts'

/** Bits per decimal digit, for the work a coefficient's size costs. */
export const DIGIT_BITS = 3.33

/** A decimal context of the program (`getcontext()`, `localcontext()`, `Context(...)`). */
export class PyContext extends PyOpaque {
  readonly typeName = 'decimal.Context'
  prec = 28
  rounding: Rounding = 'ROUND_HALF_EVEN'
  Emin = -999999
  Emax = 999999
  capitals = 1
  clamp = 0
  /** Its flags and traps, shared with the arithmetic contexts made from it. */
  readonly sig = new Signals()

  override repr(): string {
    return `Context(prec=${this.get('prec')}, rounding=${this.rounding}, Emin=${this.get('Emin')}, Emax=${this.get('Emax')}, capitals=${this.capitals}, clamp=${this.clamp}, flags=${signalsText(this.sig.flags)}, traps=${signalsText(this.sig.traps)})`
  }

  /** The fields as the program set them, where a number cannot hold them (past 2^53). */
  private exact = new Map<string, number | bigint>()

  copy(): PyContext {
    const c = Object.assign(new PyContext(), { prec: this.prec, rounding: this.rounding, Emin: this.Emin, Emax: this.Emax, capitals: this.capitals, clamp: this.clamp })
    for (const [k, v] of this.exact) c.exact.set(k, v)
    c.sig.flags = this.sig.flags
    c.sig.traps = this.sig.traps
    return c
  }

  /** The last arithmetic context made, and for which run (a context is read by every operation). */
  private made: Ctx | undefined
  private madeFor: PyRun | undefined

  /** The arithmetic context for a run (work paid to it). */
  of(rt: PyRun | undefined): Ctx {
    if (this.made && this.madeFor === rt) return this.made
    this.madeFor = rt
    return (this.made = this.make(rt))
  }

  private make(rt: PyRun | undefined): Ctx {
    return { prec: this.prec, rounding: this.rounding, Emin: this.Emin, Emax: this.Emax, capitals: this.capitals, clamp: this.clamp, work: rt ? (a, b = a) => rt.charge(bigWorkUnits(a * DIGIT_BITS, b * DIGIT_BITS)) : () => {}, status: 0, sig: this.sig }
  }

  get(name: string): unknown {
    switch (name) {
      case 'prec': return this.exact.get(name) ?? this.prec
      case 'rounding': return this.rounding
      case 'Emin': return this.exact.get(name) ?? this.Emin
      case 'Emax': return this.exact.get(name) ?? this.Emax
      case 'capitals': return this.capitals
      case 'clamp': return this.clamp
      case 'flags': case 'traps': return new PySignalDict(this.sig, name)
    }
    return undefined
  }

  set(name: string, v: unknown): null {
    if (name === 'flags' || name === 'traps') {
      // CPython's setters take a signal dict or a dict of all nine signals (a list only in Context(...)).
      if (!(v instanceof PyDict || v instanceof PySignalDict)) typeError('argument must be a signal dict')
      this.sig[name] = signalsOf(v)
      return null
    }
    this.made = undefined
    const int = (lo: bigint, hi: bigint, what: string): number => {
      if (!isIntValue(v) || typeof v === 'boolean') typeError('an integer is required')
      const n = BigInt(intOf(v))
      if (n < lo || n > hi) valueError(hi === 1n ? `valid values for ${what} are 0 or 1` : `valid range for ${what}`)
      // Past 2^53 the field reads back as given (the arithmetic cannot tell the difference).
      this.exact.set(name, intOf(v))
      return Number(n)
    }
    switch (name) {
      case 'prec': this.prec = int(1n, MAX_PREC, 'prec is [1, MAX_PREC]'); break
      case 'Emin': this.Emin = int(-MAX_PREC, 0n, 'Emin is [MIN_EMIN, 0]'); break
      case 'Emax': this.Emax = int(0n, MAX_PREC, 'Emax is [0, MAX_EMAX]'); break
      case 'capitals': this.capitals = int(0n, 1n, 'capitals'); break
      case 'clamp': this.clamp = int(0n, 1n, 'clamp'); break
      case 'rounding': this.rounding = roundingOf(v); break
      default: this.get(name); raise('AttributeError', `'decimal.Context' object has no attribute '${name}'`)
    }
    return null
  }
}

/** CPython's limits on a 64-bit build (MAX_PREC, MAX_EMAX and -MIN_EMIN are one number). */
export const MAX_PREC = 999999999999999999n
export const MAX_EMAX = Number(MAX_PREC)

export function roundingOf(v: unknown): Rounding {
  if (typeof v === 'string' && (N.ROUNDINGS as readonly string[]).includes(v)) return v as Rounding
  return typeError('valid values for rounding are:\n  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n   ROUND_05UP]')
}

/** The run's current context (each run starts from CPython's default one, or the run's changed DefaultContext). */
const current = new WeakMap<object, PyContext>()
const DEFAULT = new PyContext()
export function contextOf(rt: PyRun | undefined): PyContext {
  if (rt === undefined) return DEFAULT
  let c = current.get(rt)
  if (c === undefined) current.set(rt, (c = fresh(templates.get(rt)?.DefaultContext)))
  return c
}

/** A copy of a template without its flags (CPython's for a new thread's context and `setcontext(template)`). */
function fresh(t: PyContext | undefined): PyContext {
  if (t === undefined) return new PyContext()
  const c = t.copy()
  c.sig.flags = 0
  return c
}

/** CPython's templates `DefaultContext`, `BasicContext`, `ExtendedContext`: a program may change them, so each run has its own. */
interface Templates { DefaultContext: PyContext; BasicContext: PyContext; ExtendedContext: PyContext }
const templates = new WeakMap<object, Templates>()
function templatesOf(rt: PyRun): Templates {
  let t = templates.get(rt)
  if (t === undefined) {
    const basic = Object.assign(new PyContext(), { prec: 9, rounding: 'ROUND_HALF_UP' })
    basic.sig.traps = N.CLAMPED | 31 | N.DIV_ZERO | N.OVERFLOW | N.UNDERFLOW
    const extended = Object.assign(new PyContext(), { prec: 9 })
    extended.sig.traps = 0
    templates.set(rt, (t = { DefaultContext: new PyContext(), BasicContext: basic, ExtendedContext: extended }))
  }
  return t
}
const isTemplate = (rt: PyRun, c: unknown): boolean => { const t = templates.get(rt); return t !== undefined && (c === t.DefaultContext || c === t.BasicContext || c === t.ExtendedContext) }

/** The module's constants that belong to the run (`decimal.DefaultContext`, ...). */
export const DECIMAL_RUN_CONSTANTS: Record<string, (rt: PyRun) => unknown> = {
  'decimal.DefaultContext': (rt) => templatesOf(rt).DefaultContext,
  'decimal.BasicContext': (rt) => templatesOf(rt).BasicContext,
  'decimal.ExtendedContext': (rt) => templatesOf(rt).ExtendedContext,
}
export const ctxOf = (rt: PyRun | undefined): Ctx => contextOf(rt).of(rt)

/** `localcontext(ctx=None, **fields)`: a with-block runs on a copy, the run's context is restored after. */
export class PyLocalContext extends PyOpaque {
  readonly typeName = 'decimal.ContextManager'
  /** As CPython's: the copy (flags too) and the context to restore are taken when localcontext() is called. */
  constructor(readonly local: PyContext, readonly saved: PyContext) {
    super()
  }
  enter(rt: PyRun): PyContext {
    current.set(rt, this.local)
    return this.local
  }
  exit(rt: PyRun): boolean {
    current.set(rt, this.saved)
    return false
  }
}

const CONTEXT_FIELDS = ['prec', 'rounding', 'Emin', 'Emax', 'capitals', 'clamp', 'flags', 'traps']

function contextFields(name: string, a: unknown[], kw: PyDict | null, positional: boolean): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = []
  if (positional) {
    if (a.length > CONTEXT_FIELDS.length) typeError(`function takes at most ${CONTEXT_FIELDS.length} arguments (${a.length} given)`)
    a.forEach((v, i) => { if (v !== null) out.push([CONTEXT_FIELDS[i]!, v]) })
  }
  else if (a.length > 1) typeError(`${name}() takes at most 1 positional argument`)
  for (const [k, v] of kw?.map.values() ?? []) {
    if (!CONTEXT_FIELDS.includes(String(k))) typeError(`'${String(k)}' is an invalid keyword argument for this function`)
    if (v !== null) out.push([String(k), v])
  }
  return out
}

/** A field of Context(...) or localcontext(...): flags and traps also as a list of signals. */
function setField(c: PyContext, k: string, v: unknown): void {
  if ((k === 'flags' || k === 'traps') && Array.isArray(v) && !Object.isFrozen(v)) c.sig[k] = signalsOf(v)
  else c.set(k, v)
}

/** `with localcontext() as ctx:`, `ctx.copy()`, `ctx.clear_flags()`, `ctx.clear_traps()`; undefined for the rest. */
export function contextManagerMethod(rt: PyRun, o: unknown, name: string): unknown {
  if (o instanceof PyLocalContext) {
    if (name === '__enter__') return o.enter(rt)
    if (name === '__exit__') return o.exit(rt)
    return undefined
  }
  if (o instanceof PyContext) {
    if (name === 'copy') return o.copy()
    if (name === 'clear_flags') { o.sig.flags = 0; return null }
    if (name === 'clear_traps') { o.sig.traps = 0; return null }
  }
  return undefined
}

export function contextAttr(x: unknown, name: string): unknown {
  return x instanceof PyContext ? x.get(name) : undefined
}

export const CONTEXT_FUNCTIONS: Record<string, (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown> = {
  getcontext: (rt) => contextOf(rt),
  setcontext: (rt, a) => {
    if (!(a[0] instanceof PyContext)) typeError('argument must be a context')
    // A template is copied (flags cleared), as CPython's; another context becomes the current one itself.
    current.set(rt, isTemplate(rt, a[0]) ? fresh(a[0] as PyContext) : a[0] as PyContext)
    return null
  },
  localcontext: (rt, a, kw) => {
    const c = a.length ? a[0] : kw?.map.get('ctx')?.[1] ?? null
    if (c !== null && !(c instanceof PyContext)) typeError('optional argument must be a context')
    const rest = kw ? new PyDict() : null
    for (const [k, e] of kw?.map ?? []) if (e[0] !== 'ctx') rest!.map.set(k, e)
    const local = ((c as PyContext | null) ?? contextOf(rt)).copy()
    for (const [k, v] of contextFields('localcontext', [], rest, false)) setField(local, k, v)
    return new PyLocalContext(local, contextOf(rt))
  },
  Context: (rt, a, kw) => {
    // A copy of the run's DefaultContext (its flags too, as CPython's), then the fields given.
    const t = templates.get(rt)
    const c = t ? t.DefaultContext.copy() : new PyContext()
    for (const [k, v] of contextFields('Context', a, kw, true)) setField(c, k, v)
    return c
  },
}
