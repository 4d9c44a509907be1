/** `functools.partial` (extended profile): a function value with some arguments already given. */
import { PyDict, PyOpaque } from './values.ts'
import { typeError } from './errors.ts'
import { repr } from './core.ts'

export class PyPartial extends PyOpaque {
  readonly typeName = 'partial'
  constructor(readonly fn: unknown, readonly args: readonly unknown[], readonly kw: PyDict | null) {
    super()
  }
  override repr(): string {
    const kw = this.kw ? [...this.kw.map.values()].map(([k, v]) => `${String(k)}=${repr(v)}`) : []
    return `functools.partial(${[repr(this.fn), ...this.args.map((a) => repr(a)), ...kw].join(', ')})`
  }
}

const merged = (a: PyDict | null, b: PyDict | null): PyDict | null => {
  if (!a || !a.size) return b
  if (!b || !b.size) return a
  const d = new PyDict()
  for (const [h, e] of a.map) d.map.set(h, e)
  for (const [h, e] of b.map) d.map.set(h, e)
  return d
}

/** `partial(f, *args, **kw)`; a partial of a partial flattens, as CPython's does. */
export function partial(a: unknown[], kw: PyDict | null): PyPartial {
  if (a.length < 1) typeError("type 'partial' takes at least one argument")
  const f = a[0]
  if (f instanceof PyPartial) return new PyPartial(f.fn, [...f.args, ...a.slice(1)], merged(f.kw, kw))
  if (!(f instanceof PyOpaque) && !(typeof f === 'object' && f !== null && 'name' in f)) typeError('the first argument must be callable')
  return new PyPartial(f, a.slice(1), kw && kw.size ? kw : null)
}

/** The call a partial makes: its function, its arguments then the call's, its keywords updated by the call's. */
export function partialCall(p: PyPartial, a: unknown[], kw: PyDict | null): unknown[] {
  return [p.fn, [...p.args, ...a], merged(p.kw, kw)]
}
