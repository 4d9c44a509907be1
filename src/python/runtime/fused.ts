/**
 * Fused arithmetic (`py$ex(code, ...leaves)`): an expression tree of runtime operations whose
 * leaves are plain variables or constants, evaluated in one call instead of one VM call per
 * operation (see src/python/fuse.ts). `code` is the tree in prefix form (`add mul $0 $0 #7`): op
 * names, `$i` for the i-th leaf, `#n` for a small int. Each code text is compiled once into
 * closures over the same runtime functions the unfused calls use, so results and errors are the
 * same; the fuel of the operations the call replaces is charged with it.
 */
import { add, sub, mul, truediv, floordiv, mod, power, inplace, BINARY } from './ops.ts'
import { negate, positive, invert } from './numbers.ts'
import { eq, ge, gt, le, lt, truth } from './core.ts'
import { getItem, setItem } from './items.ts'
import { dictGet, listAppend } from './methods.ts'
import { strOf } from './builtins.ts'
import type { PyRun } from './fuel.ts'

type F = (rt: PyRun, a: any[]) => unknown

const B2: Record<string, (rt: PyRun, x: any, y: any) => unknown> = {
  add, sub, mul, div: truediv, fdiv: floordiv, mod, pow: power,
  band: BINARY['&']!, bor: BINARY['|']!, bxor: BINARY['^']!, lshift: BINARY['<<']!, rshift: BINARY['>>']!,
  iadd: (rt, x, y) => (typeof x === 'number' || typeof x === 'string' ? add(rt, x, y) : inplace(rt, '+', x, y)),
  isub: (rt, x, y) => (typeof x === 'number' ? sub(rt, x, y) : inplace(rt, '-', x, y)),
  imul: (rt, x, y) => (typeof x === 'number' ? mul(rt, x, y) : inplace(rt, '*', x, y)),
  lt: (_rt, x, y) => (typeof x === 'number' && typeof y === 'number' ? x < y : lt(x, y)),
  le: (_rt, x, y) => (typeof x === 'number' && typeof y === 'number' ? x <= y : le(x, y)),
  gt: (_rt, x, y) => (typeof x === 'number' && typeof y === 'number' ? x > y : gt(x, y)),
  ge: (_rt, x, y) => (typeof x === 'number' && typeof y === 'number' ? x >= y : ge(x, y)),
  eq: (_rt, x, y) => eq(x, y),
  ne: (_rt, x, y) => !eq(x, y),
  getitem: getItem,
  mappend: listAppend,
}
/** `d.get(k, v)` and `d[k] = v` (`setitem value obj key`, the argument order of py$setitem). */
const B3: Record<string, (rt: PyRun, x: any, y: any, z: any) => unknown> = {
  mget: dictGet,
  setitem: (rt, v, o, k) => { setItem(rt, o, k, v); return null },
}
const B1: Record<string, (rt: PyRun, x: any) => unknown> = {
  neg: negate, pos: (_rt, x) => positive(x), inv: (_rt, x) => invert(x), truth: (_rt, x) => truth(x), not: (_rt, x) => !truth(x),
  strb: strOf,
}

/** The operations py$ex can fuse, with their arity. */
export const FUSABLE: Readonly<Record<string, 1 | 2 | 3>> = Object.freeze({
  ...Object.fromEntries(Object.keys(B3).map((k) => [k, 3 as const])),
  ...Object.fromEntries(Object.keys(B2).map((k) => [k, 2 as const])),
  ...Object.fromEntries(Object.keys(B1).map((k) => [k, 1 as const])),
})

/** Micro-fuel per operation (the VM's NODE_COST: what each unfused call node costs). */
const OP_UNITS = 10_000

function compile(code: string): { f: F; extra: number } {
  const tokens = code.split(' ')
  let i = 0
  let ops = 0
  /** A leaf is read in place (its argument index, or its constant), not through a closure. */
  type Part = { leaf: number } | { value: number } | { f: F }
  const part = (): Part => {
    const t = tokens[i++]!
    if (t[0] === '$') return { leaf: Number(t.slice(1)) + 1 }
    if (t[0] === '#') return { value: Number(t.slice(1)) }
    return { f: op(t) }
  }
  const asF = (p: Part): F => ('f' in p ? p.f : 'leaf' in p ? ((k) => (_rt: PyRun, a: any[]) => a[k])(p.leaf) : ((v) => () => v)(p.value))
  const op = (token: string): F => {
    const at = token.indexOf('@')
    if (at < 0) return bare(token)
    // Located elsewhere than the call: an error it raises points at this operation.
    const [line, column] = token.slice(at + 1).split(':').map(Number)
    const f = bare(token.slice(0, at))
    return (rt, a) => {
      try {
        return f(rt, a)
      } catch (e) {
        if (e !== null && typeof e === 'object' && (e as { loc?: unknown }).loc === undefined) (e as { loc?: unknown }).loc = [line, column]
        throw e
      }
    }
  }
  const bare = (t: string): F => {
    ops++
    const b = B2[t]
    if (b) {
      const x = part(), y = part()
      // The commonest shapes: a leaf or a constant on one side or both.
      if ('leaf' in x && 'leaf' in y) { const i = x.leaf, j = y.leaf; return (rt, a) => b(rt, a[i], a[j]) }
      if ('leaf' in x && 'value' in y) { const i = x.leaf, v = y.value; return (rt, a) => b(rt, a[i], v) }
      if ('f' in x && 'value' in y) { const f = x.f, v = y.value; return (rt, a) => b(rt, f(rt, a), v) }
      if ('f' in x && 'leaf' in y) { const f = x.f, j = y.leaf; return (rt, a) => b(rt, f(rt, a), a[j]) }
      if ('leaf' in x && 'f' in y) { const i = x.leaf, g = y.f; return (rt, a) => b(rt, a[i], g(rt, a)) }
      const f = asF(x), g = asF(y)
      return (rt, a) => b(rt, f(rt, a), g(rt, a))
    }
    const b3 = B3[t]
    if (b3) {
      const x = asF(part()), y = asF(part()), z = asF(part())
      return (rt, a) => b3(rt, x(rt, a), y(rt, a), z(rt, a))
    }
    const u = B1[t]
    if (!u) throw new Error(`py$ex: unknown operation ${t}`)
    const x = part()
    if ('leaf' in x) { const k = x.leaf; return (rt, a) => u(rt, a[k]) }
    const f = asF(x)
    return (rt, a) => u(rt, f(rt, a))
  }
  const f = op(tokens[i++]!)
  // One call node and its code literal replace `ops` call nodes.
  return { f, extra: Math.max(0, ops - 2) * OP_UNITS }
}

const cache = new Map<string, { f: F; extra: number }>()

export function ex(rt: PyRun, a: any[]): unknown {
  const code = a[0] as string
  let c = cache.get(code)
  if (c === undefined) {
    if (cache.size >= 4096) cache.clear()
    c = compile(code)
    cache.set(code, c)
  }
  if (c.extra) rt.charge(c.extra)
  return c.f(rt, a)
}
