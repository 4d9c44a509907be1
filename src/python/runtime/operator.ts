/**
 * `operator` (extended profile): the operators as functions (`operator.add`, `operator.itemgetter(1)`,
 * ...), the values models pass as `key=` and to `reduce`. Each is the runtime operation the operator
 * itself runs, so results and errors are the same as writing the operator.
 */
import { PyDict, PyOpaque, tuple } from './values.ts'
import { typeError } from './errors.ts'
import { contains, eq, ge, gt, le, lt, repr, truth } from './core.ts'
import { add, floordiv, mod, mul, power, sub, truediv } from './ops.ts'
import { negate, positive } from './numbers.ts'
import { getItem } from './items.ts'
import { getAttr } from './extended.ts'
import type { PyRun } from './fuel.ts'

/** `operator.itemgetter(k, ...)` / `operator.attrgetter(name, ...)`: called with an object, gives its items / attributes. */
export class PyGetter extends PyOpaque {
  constructor(readonly kind: 'itemgetter' | 'attrgetter', readonly keys: readonly unknown[]) {
    super()
  }
  get typeName(): string {
    return this.kind
  }
  override repr(): string {
    return `operator.${this.kind}(${this.keys.map((k) => repr(k)).join(', ')})`
  }
  call(rt: PyRun, a: unknown[], kw: PyDict | null): unknown {
    if (kw && kw.size) typeError(`${this.kind}() takes no keyword arguments`)
    if (a.length !== 1) typeError(`${this.kind} expected 1 argument, got ${a.length}`)
    const one = (k: unknown): unknown => {
      if (this.kind === 'itemgetter') return getItem(rt, a[0], k)
      // `attrgetter("a.b")` follows the dots.
      return String(k).split('.').reduce<unknown>((o, name) => getAttr(o, name), a[0])
    }
    return this.keys.length === 1 ? one(this.keys[0]) : tuple(this.keys.map(one))
  }
}

type Fn = (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown

const arity = (name: string, a: unknown[], n: number): void => {
  if (a.length !== n) typeError(`${name} expected ${n} argument${n === 1 ? '' : 's'}, got ${a.length}`)
}
const binary = (name: string, f: (rt: PyRun, x: unknown, y: unknown) => unknown): Fn => (rt, a) => { arity(name, a, 2); return f(rt, a[0], a[1]) }
const getter = (kind: 'itemgetter' | 'attrgetter'): Fn => (_rt, a, kw) => {
  if (kw && kw.size) typeError(`${kind}() takes no keyword arguments`)
  if (a.length === 0) typeError(`${kind} expected 1 argument, got 0`)
  if (kind === 'attrgetter') for (const k of a) if (typeof k !== 'string') typeError('attribute name must be a string')
  return new PyGetter(kind, a)
}

export const OPERATOR_FUNCTIONS: Record<string, Fn> = {
  add: binary('add', add), sub: binary('sub', sub), mul: binary('mul', mul), truediv: binary('truediv', truediv),
  floordiv: binary('floordiv', floordiv), mod: binary('mod', mod), pow: binary('pow', power),
  concat: binary('concat', (rt, x, y) => {
    if (!Array.isArray(x) && typeof x !== 'string') typeError(`'${typeof x}' object can't be concatenated`)
    return add(rt, x, y)
  }),
  eq: binary('eq', (_rt, x, y) => eq(x, y)), ne: binary('ne', (_rt, x, y) => !eq(x, y)),
  lt: binary('lt', (_rt, x, y) => lt(x, y)), le: binary('le', (_rt, x, y) => le(x, y)),
  gt: binary('gt', (_rt, x, y) => gt(x, y)), ge: binary('ge', (_rt, x, y) => ge(x, y)),
  contains: binary('contains', (rt, x, y) => contains(rt, x, y)),
  getitem: binary('getitem', (rt, x, y) => getItem(rt, x, y)),
  neg: (rt, a) => { arity('neg', a, 1); return negate(rt, a[0]) },
  pos: (rt, a) => { arity('pos', a, 1); return positive(a[0], rt) },
  not_: (_rt, a) => { arity('not_', a, 1); return !truth(a[0]) },
  truth: (_rt, a) => { arity('truth', a, 1); return truth(a[0]) },
  itemgetter: getter('itemgetter'),
  attrgetter: getter('attrgetter'),
}
