/**
 * Generators (extended profile), lazily as CPython's: a call of a generator function makes a
 * `PyGen` holding the function's saved variables, and each item is made when it is asked for
 * (`next`, a `for` loop, `zip`, `islice`, `any`, ...) by calling the function's resume helper
 * (lower-generator.ts) back through the run (`Run.callHelper`): it runs the body from the last
 * `yield` to the next one, metered as any call. The runtime calls only that helper, never other
 * code of the program.
 */
import type { HelperFrame, Run } from '../../vm/runtime.ts'
import { DISPATCH_HELPER, PyDict, PyException, PyIter, PyType, mkInt, tuple, typeByName, typeName } from './values.ts'
import { PyRaise, exceptionMessage, raise, typeError } from './errors.ts'
import { isNumber } from './numbers.ts'
import { add } from './ops.ts'
import { iterate, repr as reprOf, str as strOf, truth } from './core.ts'
import type { PyRun } from './fuel.ts'
import { liveIterator } from './live-iter.ts'

type Fn = (rt: PyRun, a: any[]) => unknown
type GenRun = Pick<Run, 'callHelper' | 'helperWaits' | 'chargeSlots'>

const GENERATOR_EXIT = typeByName('GeneratorExit')!

/** The Python exception a failure carries (a runtime raise or a guest `raise`), if any. */
function pythonOf(e: unknown): PyException | undefined {
  const v = (e as { value?: unknown } | null)?.value
  return v instanceof PyException ? v : undefined
}

const isA = (x: PyException | undefined, name: string): boolean => x !== undefined && x.type.isSubclassOf(typeByName(name)!)

/** The dispatcher of the program's function values (lower.ts), called back for `map`/`filter` over a generator. */
const DISPATCH = DISPATCH_HELPER

export class PyGen extends PyIter {
  override get lazy(): boolean { return true }
  /** The yield point it is suspended at (0: not started). */
  pc = 0
  done = false
  private running = false
  /** An exception to raise at the yield point when resumed (`close()`, `throw()`). */
  pending: PyException | null = null
  /** What the run resuming the body was sent (`send(v)`; None for `next`): what `x = yield` assigns. */
  sent: unknown = null
  /** What the body returned (StopIteration's value). */
  retval: unknown = null

  /** The body's variables between resumptions (the VM fills it at the first call). */
  private readonly keep: HelperFrame = {}

  constructor(private readonly run: GenRun, readonly resume: string, private first: unknown[] | null, readonly qualname: string) {
    super([], 'generator')
  }

  override step(): unknown {
    return this.resumeWith(null)
  }

  /** Run the body to its next yield (the item) or its end (undefined), `x = yield` taking `sent`. */
  resumeWith(sent: unknown): unknown {
    if (this.done) return undefined
    if (sent !== null && this.pc === 0 && !this.running) typeError("can't send non-None value to a just-started generator")
    if (this.running) return raise('ValueError', 'generator already executing')
    this.running = true
    this.sent = sent
    let v: unknown
    try {
      const args = this.first === null ? NO_ARGS : [this, ...this.first]
      this.first = null
      v = this.run.callHelper(this.resume, args, this.keep)
    } catch (e) {
      this.finish()
      // PEP 479: a StopIteration escaping the body would end the loop that reads it, silently.
      if (isA(pythonOf(e), 'StopIteration')) raise('RuntimeError', 'generator raised StopIteration')
      throw e
    } finally {
      this.running = false
    }
    return this.done ? undefined : v
  }

  override rest(): unknown[] {
    return drain(this, this.run)
  }

  /** What the body returned, once: the StopIteration that ends it carries it, later ones nothing. */
  takeReturn(): unknown {
    const v = this.retval
    this.retval = null
    return v
  }

  finish(): void {
    this.done = true
    this.first = null
    this.keep.slots = undefined
  }

  /** `g.close()`: GeneratorExit at the yield point it is suspended at (its `finally` blocks run). */
  close(): null {
    if (this.done) return null
    if (this.pc === 0) { this.finish(); return null }
    this.pending = new PyException(GENERATOR_EXIT, [], '')
    try {
      this.step()
    } catch (e) {
      const x = pythonOf(e)
      if (isA(x, 'StopIteration') || (x !== undefined && x.type === GENERATOR_EXIT)) return null
      throw e
    }
    if (!this.done) return raise('RuntimeError', 'generator ignored GeneratorExit')
    return null
  }

  /**
   * `g.throw(exc)`: exc raised at the yield point it is suspended at; the next item, or undefined
   * when the body ends. Not started or finished, it raises exc here (and is finished).
   */
  throwIn(exc: PyException): unknown {
    if (this.running) return raise('ValueError', 'generator already executing')
    if (this.done || this.pc === 0) {
      this.finish()
      throw new PyRaise(exc, exc.message)
    }
    this.pending = exc
    return this.step()
  }

  override repr(): string {
    return `<generator object ${this.qualname}>`
  }
}

const NO_ARGS: unknown[] = []

/** The StopIteration that ends `send`/`throw` (and `next`): it carries what the body returned. */
export function stopIteration(g: PyIter): never {
  const ret = g instanceof PyGen ? g.takeReturn() : null
  throw new PyRaise(new PyException(typeByName('StopIteration')!, ret === null ? [] : [ret], ret === null ? '' : strOf(ret)), '')
}

/** An exception from what `g.throw(...)` was given: an instance, a class, or (the older form) a class and its argument. */
function thrown(a: unknown[]): PyException {
  const [x, v] = a
  if (x instanceof PyException) {
    if (a.length > 1 && v !== null) typeError('instance exception may not have a separate value')
    return x
  }
  if (x instanceof PyType && x.isSubclassOf(typeByName('BaseException')!)) {
    if (v instanceof PyException && v.type.isSubclassOf(x)) return v
    const args = a.length > 1 && v !== null ? (Array.isArray(v) && Object.isFrozen(v) ? [...v] : [v]) : []
    return new PyException(x, args, exceptionMessage(x, args, strOf, reprOf))
  }
  return typeError(`exceptions must be classes or instances deriving from BaseException, not ${typeName(x)}`)
}

/** `g.send(v)`, `g.throw(exc)`, `g.close()` (undefined: not a generator method). */
export function generatorMethod(g: PyGen, name: string, a: unknown[], kw: PyDict | null): unknown {
  const arity = (lo: number, hi: number) => {
    if (kw) typeError(`generator.${name}() takes no keyword arguments`)
    if (a.length < lo || a.length > hi) {
      typeError(lo === hi ? `generator.${name}() takes ${lo === 0 ? 'no arguments' : 'exactly one argument'} (${a.length} given)` : `throw expected at least 1 argument, got ${a.length}`)
    }
  }
  switch (name) {
    case 'close': arity(0, 0); return g.close()
    case 'send': { arity(1, 1); const v = g.done ? undefined : g.resumeWith(a[0]); return v === undefined ? stopIteration(g) : v }
    case 'throw': { arity(1, 3); const v = g.throwIn(thrown(a)); return v === undefined ? stopIteration(g) : v }
  }
  return undefined
}

/**
 * A lazy iterator the runtime makes over iterators (`zip`, `enumerate`, `islice` of a generator):
 * `pull` gives the next item, or undefined at the end, reading its sources only as far as asked.
 */
export class PyPull extends PyIter {
  private ended = false
  override get lazy(): boolean { return true }
  constructor(private readonly rt: PyRun, private readonly pull: () => unknown, typeName: string) {
    super([], typeName)
  }
  override step(): unknown {
    if (this.ended) return undefined
    const v = this.pull()
    if (v === undefined) this.ended = true
    return v
  }
  override rest(): unknown[] {
    return drain(this, this.rt)
  }
}

/** Every item left, each paid for as it is kept (an endless one ends with the run's fuel). */
function drain(it: PyIter, rt: Pick<PyRun, 'chargeSlots'>): unknown[] {
  const out: unknown[] = []
  for (let v = it.step(); v !== undefined; v = it.step()) {
    rt.chargeSlots(1)
    out.push(v)
  }
  return out
}

/** Whether any of the iterables is an iterator (then `zip`/`enumerate` read them lazily, as CPython). */
export const anyIterator = (xs: readonly unknown[]): boolean => xs.some((x) => x instanceof PyIter)

/** `zip(a, b, ...)` over iterators: one tuple per step; the first source to end ends it. */
export function lazyZip(rt: PyRun, its: readonly unknown[]): PyPull {
  const cs = its.map((x) => cursor(rt, x))
  return new PyPull(rt, () => {
    const row: unknown[] = []
    for (const c of cs) {
      const v = c.step()
      if (v === undefined) return undefined
      row.push(v)
    }
    rt.chargeSlots(row.length + 1)
    return tuple(row)
  }, 'zip')
}

/** `enumerate(it, start)` over an iterator. */
export function lazyEnumerate(rt: PyRun, it: PyIter, start: number | bigint): PyPull {
  let i = start
  return new PyPull(rt, () => {
    const v = it.step()
    if (v === undefined) return undefined
    const n = i
    i = typeof i === 'number' && Number.isSafeInteger(i + 1) ? i + 1 : mkInt(BigInt(i) + 1n) as number | bigint
    return tuple([n, v])
  }, 'enumerate')
}

/** `itertools.count(start, step)`: endless, each item the last plus `step` (ints exact, floats added up as CPython does). */
export function lazyCount(rt: PyRun, start: unknown, step: unknown): PyPull {
  for (const x of [start, step]) if (!isNumber(x)) typeError('a number is required')
  let n = start
  return new PyPull(rt, () => { const v = n; n = add(rt, n, step); return v }, 'count')
}

/** `itertools.cycle(it)`: its items, then again and again (an empty one ends at once). */
export function lazyCycle(rt: PyRun, it: unknown): PyPull {
  const src = cursor(rt, it)
  const saved: unknown[] = []
  let i = -1
  return new PyPull(rt, () => {
    if (i < 0) {
      const v = src.step()
      if (v !== undefined) { rt.chargeSlots(1); saved.push(v); return v }
      i = 0
    }
    if (saved.length === 0) return undefined
    const v = saved[i]
    i = (i + 1) % saved.length
    return v
  }, 'cycle')
}

/** `itertools.repeat(x)` without a count: x, endlessly. */
export const lazyRepeat = (rt: PyRun, x: unknown): PyPull => new PyPull(rt, () => x, 'repeat')

/** `chain(a, b, ...)` when one is an iterator: each read to its end in turn, as they are asked for. */
export function lazyChain(rt: PyRun, its: Iterable<unknown>): PyPull {
  const outer = its[Symbol.iterator]()
  let cur: PyIter | null = null
  return new PyPull(rt, () => {
    for (;;) {
      if (cur === null) {
        const next = outer.next()
        if (next.done) return undefined
        cur = cursor(rt, next.value)
      }
      const v = cur.step()
      if (v !== undefined) return v
      cur = null
    }
  }, 'chain')
}

/** `chain.from_iterable(it)`: the iterables that `it` gives, read lazily too. */
export const lazyChainFrom = (rt: PyRun, it: unknown): PyPull => {
  const outer = cursor(rt, it)
  return lazyChain(rt, { *[Symbol.iterator]() { for (let x = outer.step(); x !== undefined; x = outer.step()) yield x } })
}

/** `map(f, it)` / `filter(f, it)` over a lazy iterator: f called back through the program's dispatcher per item. */
function lazyMap(rt: PyRun, f: unknown, it: PyIter, filter: boolean, spread: boolean): PyPull {
  const calls = rt as unknown as GenRun
  const apply = (v: unknown) => calls.callHelper(DISPATCH, [f, spread ? [...(v as unknown[])] : [v], null])
  if (!filter) return new PyPull(rt, () => { const v = it.step(); return v === undefined ? undefined : apply(v) }, 'map')
  return new PyPull(rt, () => {
    for (let v = it.step(); v !== undefined; v = it.step()) if (truth(f === null ? v : apply(v))) return v
    return undefined
  }, 'filter')
}

/** `islice(it, start, stop, step)` over an iterator: reads no further than the last item it gives. */
export function lazyIslice(rt: PyRun, it: PyIter, start: number, stop: number | null, step: number): PyPull {
  let at = 0
  let want = start
  return new PyPull(rt, () => {
    if (stop !== null && want >= stop) return undefined
    for (;;) {
      const v = it.step()
      if (v === undefined) return undefined
      if (at++ === want) {
        want += step
        return v
      }
    }
  }, 'islice')
}

const gen = (x: unknown): PyGen => x as PyGen

/** An iterator for `yield from x` and a `for` loop inside a generator: a live cursor over a list. */
function cursor(rt: PyRun, x: unknown): PyIter {
  if (x instanceof PyIter) return x
  const live = liveIterator(x, rt)
  if (live) return live
  return new PyIter(Array.isArray(x) ? x : iterate(x, rt), `${typeName(x)}_iterator`)
}

/** The runtime entries the lowering of generator functions calls (`py$mkgen`, ...). */
export const GENERATOR_RUNTIME: Record<string, Fn> = {
  /** A generator function's call: the generator, with the first values of its body's variables. */
  mkgen: (rt, a) => new PyGen(rt as unknown as GenRun, a[0], a[1], a[2]),
  /** The generator's body may wait for an atom: it cannot be resumed by the runtime (then it runs eagerly). */
  genwaits: (rt, a) => (rt as unknown as GenRun).helperWaits(gen(a[0]).resume),
  gendone: (_rt, a) => gen(a[0]).done,
  /** `yield v` at yield point k: the body pauses there, v goes to the reader. */
  gyield: (_rt, a) => {
    gen(a[0]).pc = a[1] as number
    return a[2]
  },
  /** Resumed at a yield point: raise what `close()` or `throw()` asked for. */
  gresume: (_rt, a) => {
    const g = gen(a[0])
    const p = g.pending
    if (p !== null) {
      g.pending = null
      throw new PyRaise(p, p.message)
    }
    return null
  },
  /** What `x = yield` assigns: the value sent (None for `next`). */
  gsent: (_rt, a) => gen(a[0]).sent,
  /** An eager generator's `yield v`: v kept; what `x = yield` assigns there is None. */
  gpush: (rt, a) => { rt.chargeSlots(1); (a[0] as unknown[]).push(a[1]); return null },
  /** An eager generator's `yield from x`: every item kept; what `x = yield from g` assigns is g's return value. */
  gfromall: (rt, a) => {
    const items = a[0] as unknown[], it = cursor(rt, a[1])
    for (let v = it.step(); v !== undefined; v = it.step()) { rt.chargeSlots(1); items.push(v) }
    return it instanceof PyGen ? it.takeReturn() : null
  },
  /**
   * Resumed inside `yield from sub`: what resumed the outer generator goes to the inner one (`send`
   * to its `send`, `throw` to its `throw`, `close` closes it first), as CPython delegates; the next
   * item, or undefined when the inner one ended.
   */
  gfrom: (_rt, a) => {
    const g = gen(a[0]), sub = a[1] as PyIter
    const p = g.pending
    if (p !== null) {
      g.pending = null
      if (sub instanceof PyGen && p.type !== GENERATOR_EXIT) return sub.throwIn(p)
      if (sub instanceof PyGen) sub.close()
      throw new PyRaise(p, p.message)
    }
    if (g.sent === null) return sub.step()
    if (!(sub instanceof PyGen)) return raise('AttributeError', `'${typeName(sub)}' object has no attribute 'send'`)
    return sub.resumeWith(g.sent)
  },
  /** `yield from sub` ended: the inner generator's return value is what `x = yield from sub` assigns. */
  gfromret: (_rt, a) => {
    gen(a[0]).sent = a[1] instanceof PyGen ? a[1].takeReturn() : null
    return null
  },
  /** The body ended (its end or a `return`): StopIteration from now on. */
  gdone: (_rt, a) => {
    const g = gen(a[0])
    g.finish()
    g.retval = a[1] ?? null
    return null
  },
  cursor: (rt, a) => cursor(rt, a[0]),
  /** `map`/`filter` over a generator (or another lazy iterator) of a program that can call its functions back. */
  pullable: (rt, a) => a[0] instanceof PyIter && a[0].lazy && !(rt as unknown as GenRun).helperWaits(DISPATCH),
  lazymap: (rt, a) => lazyMap(rt, a[0], a[1] as PyIter, a[2] === 'filter', a[3] === true),
  /** The next item of a cursor, or JS undefined at its end. */
  cnext: (_rt, a) => (a[0] as PyIter).step(),
  /**
   * The end of `for x in gen():` closes the generator as CPython's reference counting does, where
   * what the close raises (a `finally` that raises, or yields: "generator ignored GeneratorExit")
   * is only written to stderr as "Exception ignored in", never raised.
   */
  gclose: (_rt, a) => {
    if (!(a[0] instanceof PyGen)) return null
    try {
      return a[0].close()
    } catch (e) {
      if (pythonOf(e) === undefined) throw e
      return null
    }
  },
}
