/**
 * `bisect` (extended profile): bisect_left/bisect_right (bisect), insort_left/insort_right (insort)
 * on a sorted list, with lo, hi and key= as CPython 3.11; items compare as `<` does (instances with
 * `__lt__` included), a key function is called back through the program's dispatcher.
 */
import { DISPATCH_HELPER as DISPATCH, PyDict, typeName, type GuestCalls } from './values.ts'
import { typeError, valueError } from './errors.ts'
import { lt, len } from './core.ts'
import { intOf, isIntValue } from './numbers.ts'
import type { PyRun } from './fuel.ts'


function args(rt: PyRun, name: string, a: unknown[], kw: PyDict | null): { list: unknown; x: unknown; lo: number; hi: number; key: ((v: unknown) => unknown) | null } {
  const opts: Record<string, unknown> = {}
  if (kw) for (const [k, v] of kw.map.values()) {
    if (k !== 'lo' && k !== 'hi' && k !== 'key') typeError(`${name}() got an unexpected keyword argument '${String(k)}'`)
    opts[k as string] = v
  }
  if (a.length < 2 || a.length > 4) typeError(`${name}() takes from 2 to 4 positional arguments but ${a.length} were given`)
  const [list, x] = a
  const n = len(list)
  const int = (v: unknown, d: number): number => (v === undefined || v === null ? d : isIntValue(v) ? Number(intOf(v)) : typeError(`'${typeName(v)}' object cannot be interpreted as an integer`))
  const lo = int(a[2] ?? opts.lo, 0)
  if (lo < 0) valueError('lo must be non-negative')
  const hi = int(a[3] ?? opts.hi, n)
  const f = opts.key
  const key = f === undefined || f === null ? null : (v: unknown) => (rt as unknown as GuestCalls).callHelper(DISPATCH, [f, [v], null])
  return { list, x, lo, hi, key }
}

/** CPython's loops: `x < a[mid]` for right, `a[mid] < x` for left (the key applied to a[mid] only). */
function search(rt: PyRun, name: string, a: unknown[], kw: PyDict | null, right: boolean): [unknown[], number, unknown] {
  const { list, x, lo: lo0, hi: hi0, key } = args(rt, name, a, kw)
  if (!Array.isArray(list)) return typeError(`'${typeName(list)}' object is not subscriptable`)
  let lo = lo0, hi = hi0
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    const v = key ? key(list[mid]) : list[mid]
    if (right ? lt(x, v) : lt(v, x)) {
      if (right) hi = mid
      else lo = mid + 1
    } else if (right) lo = mid + 1
    else hi = mid
  }
  return [list, lo, x]
}

type Fn = (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown

const insort = (name: string, right: boolean): Fn => (rt, a, kw) => {
  // insort compares key(x) with key(a[mid]) and inserts x.
  const k = kw?.map.get('key')?.[1]
  const x = a[1]
  const probe = k === undefined || k === null ? x : (rt as unknown as GuestCalls).callHelper(DISPATCH, [k, [x], null])
  const [list, at] = search(rt, name, [a[0], probe, ...a.slice(2)], kw, right)
  if (Object.isFrozen(list)) typeError("'tuple' object has no attribute 'insert'")
  rt.chargeSlots(1)
  list.splice(at, 0, x)
  return null
}

export const BISECT_FUNCTIONS: Record<string, Fn> = {
  bisect_left: (rt, a, kw) => search(rt, 'bisect_left', a, kw, false)[1],
  bisect_right: (rt, a, kw) => search(rt, 'bisect_right', a, kw, true)[1],
  bisect: (rt, a, kw) => search(rt, 'bisect_right', a, kw, true)[1],
  insort_left: insort('insort_left', false),
  insort_right: insort('insort_right', true),
  insort: insort('insort_right', true),
}
