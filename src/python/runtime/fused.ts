/**
 * Fused arithmetic (`py$ex(code, ...leaves)`): an expression tree of runtime operations whose
 * leaves are plain variables or constants, evaluated in one call instead of one VM call per
 * operation (see src/python/fuse.ts). `code` is the tree in prefix form (`add mul $0 $0 #7`): op
 * names, `$i` for the i-th leaf, `#n` for a small int. The VM compiles each call site once
 * (`ex.compile`, the VM's GuestFunction hook) into closures over the same runtime functions the
 * unfused calls use, reading the leaves' variables straight from the frame, so results and errors
 * are the same; the fuel of the operations the call replaces is charged with it.
 */
import { add, sub, mul, truediv, floordiv, mod, power, iadd, isub, imul, BINARY } from './ops.ts'
import { negate, positive, invert } from './numbers.ts'
import { eq, ge, gt, hashKey, le, lt, truth } from './core.ts'
import { PyDict, PyFloat } from './values.ts'
import { numericSpan, numericTree, type NumLeaf } from './fused-numeric.ts'
import { getItem, setItem } from './items.ts'
import { dictGet, listAppend } from './methods.ts'
import { strOf } from './builtins.ts'
import type { PyRun } from './fuel.ts'

/** What a compiled tree reads: the run and the frame's variables (the VM's Frame). */
interface Fr { readonly rt: PyRun; readonly s: unknown[] }
type F = (f: Fr) => unknown

const B2: Record<string, (rt: PyRun, x: any, y: any) => unknown> = {
  add, sub, mul, div: truediv, fdiv: floordiv, mod, pow: power,
  band: BINARY['&']!, bor: BINARY['|']!, bxor: BINARY['^']!, lshift: BINARY['<<']!, rshift: BINARY['>>']!,
  iadd, isub, imul,
  lt: (_rt, x, y) => lt(x, y),
  le: (_rt, x, y) => le(x, y),
  gt: (_rt, x, y) => gt(x, y),
  ge: (_rt, x, y) => ge(x, y),
  eq: (_rt, x, y) => eq(x, y),
  ne: (_rt, x, y) => !eq(x, y),
  getitem: getItem,
  mappend: listAppend,
}

type Loc = readonly [number, number] | undefined
/** An error raised inside a located operation (or by its unlocated operands) points at it. */
function at(e: unknown, loc: Loc): unknown {
  if (loc !== undefined && e !== null && typeof e === 'object' && (e as { loc?: unknown }).loc === undefined) (e as { loc?: unknown }).loc = [loc[0], loc[1]]
  return e
}

/** A number's value for comparing (an int, a float, a whole float's box), or undefined (bools, big ints, the rest). */
const cmpNum = (a: unknown): number | undefined => (typeof a === 'number' ? a : a instanceof PyFloat ? a.v : undefined)

/**
 * The hottest binary operations, one closure text each, so each call site calls one function
 * (which the engine can inline) rather than the table's entry through a variable. Comparisons of
 * numbers (whole floats' boxes too) and a list's or tuple's item are answered inline.
 */
function hot(t: string, x: F, y: F, loc: Loc): F | undefined {
  switch (t) {
    case 'add': return (f) => { try { return add(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'sub': return (f) => { try { return sub(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'mul': return (f) => { try { return mul(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'mod': return (f) => { try { return mod(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'div': return (f) => { try { return truediv(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'fdiv': return (f) => { try { return floordiv(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'pow': return (f) => { try { return power(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'iadd': return (f) => { try { return iadd(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'isub': return (f) => { try { return isub(f.rt, x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'lt': return (f) => { try { const a = x(f), b = y(f), p = cmpNum(a), q = cmpNum(b); return p !== undefined && q !== undefined ? p < q : lt(a, b) } catch (e) { throw at(e, loc) } }
    case 'le': return (f) => { try { const a = x(f), b = y(f), p = cmpNum(a), q = cmpNum(b); return p !== undefined && q !== undefined ? p <= q : le(a, b) } catch (e) { throw at(e, loc) } }
    case 'gt': return (f) => { try { const a = x(f), b = y(f), p = cmpNum(a), q = cmpNum(b); return p !== undefined && q !== undefined ? p > q : gt(a, b) } catch (e) { throw at(e, loc) } }
    case 'ge': return (f) => { try { const a = x(f), b = y(f), p = cmpNum(a), q = cmpNum(b); return p !== undefined && q !== undefined ? p >= q : ge(a, b) } catch (e) { throw at(e, loc) } }
    case 'eq': return (f) => { try { return eq(x(f), y(f)) } catch (e) { throw at(e, loc) } }
    case 'getitem': return (f) => {
      try {
        const o = x(f), k = y(f)
        // A list or tuple at an int index in range (getItem's own first case).
        if (Array.isArray(o) && typeof k === 'number') { const i = k < 0 ? k + o.length : k; if (i >= 0 && i < o.length && Number.isInteger(k)) return o[i] }
        return getItem(f.rt, o, k)
      } catch (e) { throw at(e, loc) }
    }
  }
  return undefined
}

/** `d.get(k, v)` and `d[k] = v` (`setitem value obj key`, the argument order of py$setitem). */
const B3: Record<string, (rt: PyRun, x: any, y: any, z: any) => unknown> = {
  mget: dictGet,
  setitem: (rt, v, o, k) => { setItem(rt, o, k, v); return null },
}
const B1: Record<string, (rt: PyRun, x: any) => unknown> = {
  neg: negate, pos: (rt, x) => positive(x, rt), inv: (_rt, x) => invert(x), truth: (_rt, x) => truth(x), not: (_rt, x) => !truth(x),
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

/** A leaf as the tree reads it: a variable's slot, a constant, or (an argument that is neither) its closure. */
export type Leaf = { slot: number } | { value: unknown } | { fn: F }
/** A compiled part: a leaf read in place, or an operation's closure. */
type Part = { slot: number } | { value: unknown } | { f: F }

/** Compile `code` over `leaves` into one closure; `extra` is the micro-fuel of the operations it replaces beyond the call. */
function compile(code: string, leaves: readonly Leaf[]): { f: F; extra: number } {
  const tokens = code.split(' ')
  let i = 0
  let ops = 0
  /** `$i`, the i-th leaf, or `#n`, a small int. */
  const leafPart = (t: string): Part => {
    if (t[0] === '#') return { value: Number(t.slice(1)) }
    const l = leaves[Number(t.slice(1))]!
    return 'fn' in l ? { f: l.fn } : l
  }
  const part = (): Part => {
    const t = tokens[i++]!
    return t[0] === '$' || t[0] === '#' ? leafPart(t) : { f: op(t) }
  }
  const asF = (p: Part): F => ('f' in p ? p.f : 'slot' in p ? ((k) => (f: Fr) => f.s[k])(p.slot) : ((v) => () => v)(p.value))
  /** A leaf the number-only form reads (a variable or a constant). */
  const numLeaf = (t: string): NumLeaf | undefined => {
    const l = leafPart(t)
    return 'f' in l ? undefined : l
  }
  let inNumeric = false
  const op = (token: string): F => {
    // The largest number-only subtrees of two operations or more are tried on numbers first.
    const start = i - 1
    const span = inNumeric ? undefined : numericSpan(tokens, start, numLeaf)
    if (span === undefined || span.ops < 2) return general(token)
    inNumeric = true
    const g = general(token)
    inNumeric = false
    return numericTree(tokens, start, numLeaf, g)
  }
  const general = (token: string): F => {
    ops++
    const at_ = token.indexOf('@')
    const t = at_ < 0 ? token : token.slice(0, at_)
    // Located elsewhere than the call: an error it raises (or its operands raise unlocated) points at this operation.
    const loc: Loc = at_ < 0 ? undefined : (token.slice(at_ + 1).split(':').map(Number) as unknown as Loc)
    const g = bare(t, loc)
    return loc === undefined || g.located ? g.f : (f) => { try { return g.f(f) } catch (e) { throw at(e, loc) } }
  }
  const bare = (t: string, loc: Loc): { f: F; located?: boolean } => {
    const b = B2[t]
    if (b) {
      const x = part(), y = part()
      const h = hot(t, asF(x), asF(y), loc)
      if (h) return { f: h, located: true }
      if ('slot' in x && 'slot' in y) { const i = x.slot, j = y.slot; return { f: (f) => b(f.rt, f.s[i], f.s[j]) } }
      if ('slot' in x && 'value' in y) { const i = x.slot, v = y.value; return { f: (f) => b(f.rt, f.s[i], v) } }
      const g = asF(x), h2 = asF(y)
      return { f: (f) => b(f.rt, g(f), h2(f)) }
    }
    const b3 = B3[t]
    if (b3) {
      const x = asF(part()), y = asF(part()), z = asF(part())
      return { f: (f) => b3(f.rt, x(f), y(f), z(f)) }
    }
    const u = B1[t]
    if (!u) throw new Error(`py$ex: unknown operation ${t}`)
    const x = part()
    if ('slot' in x) { const k = x.slot; return { f: (f) => u(f.rt, f.s[k]) } }
    const g = asF(x)
    return { f: (f) => u(f.rt, g(f)) }
  }
  let f = op(tokens[i++]!)
  const count = COUNTING.exec(code)
  if (count && count[1] === count[5] && count[2] === count[6]) {
    const leaf = (t: string): F => asF(leafPart(t))
    f = counting(leaf(count[1]!), leaf(count[2]!), leaf(count[3]!), leaf(count[4]!), f)
  }
  // One call node and its code literal replace `ops` call nodes.
  return { f, extra: Math.max(0, ops - 2) * OP_UNITS }
}

/** `d[k] = d.get(k, c) + v`, the counting idiom (the same variables for the dict and the key). */
const COUNTING = /^setitem add(?:@\d+:\d+)? mget(?:@\d+:\d+)? (\$\d+) (\$\d+) ([$#]-?\d+) ([$#]-?\d+) (\$\d+) (\$\d+)$/

/**
 * The counting idiom on a plain dict with a number count: the key hashed and looked up once. Any
 * other case (a dict subclass with `__missing__`, an unhashable key, a count that is not a number,
 * whose `+` could run the program's code) takes the general tree, whose leaves are variables and
 * constants: reading them twice is unobservable.
 */
function counting(d: F, k: F, c: F, v: F, general: F): F {
  return (f) => {
    const dict = d(f)
    const inc = v(f)
    if (dict instanceof PyDict && dict.missing === undefined && typeof inc === 'number') {
      const key = k(f)
      let h: unknown
      try { h = hashKey(key) } catch { return general(f) }
      const e = dict.map.get(h)
      const old = e === undefined ? c(f) : e[1]
      if (typeof old === 'number') {
        const r = add(f.rt, old, inc)
        if (e !== undefined) e[1] = r
        else { f.rt.chargeSlots(2); dict.map.set(h, [key, r]) }
        return null
      }
    }
    return general(f)
  }
}

const leafOf = (a: { fn: F; constant?: { value: unknown }; slot?: number }): Leaf => (a.slot !== undefined ? { slot: a.slot } : a.constant ? { value: a.constant.value } : { fn: a.fn })

/** The VM's compile-time hook: the call site's tree, compiled once over its arguments. */
function compileCall(args: readonly { fn: F; constant?: { value: unknown }; slot?: number }[]): { fn: F; cost: number } | undefined {
  const code = args[0]?.constant?.value
  if (typeof code !== 'string') return undefined
  const { f, extra } = compile(code, args.slice(1).map(leafOf))
  return { fn: f, cost: extra }
}

/** A single fusable operation's call (`py$gt(d, best)`): compiled like a one-operation tree over its arguments. */
export function compileOp(op: string, args: readonly { fn: F; constant?: { value: unknown }; slot?: number }[]): { fn: F } | undefined {
  if (args.length !== FUSABLE[op]) return undefined
  return { fn: compile([op, ...args.map((_, k) => `$${k}`)].join(' '), args.map(leafOf)).f }
}

/** Called with an argument array (a VM without the compile hook): the leaves are the array's items. */
const cache = new Map<string, { f: F; extra: number }>()
const ARRAY_LEAVES: Leaf[] = Array.from({ length: 64 }, (_, k) => ({ slot: k + 1 }))

export const ex = Object.assign(
  (rt: PyRun, a: any[]): unknown => {
    const code = a[0] as string
    let c = cache.get(code)
    if (c === undefined) {
      if (cache.size >= 4096) cache.clear()
      c = compile(code, a.length - 1 <= ARRAY_LEAVES.length ? ARRAY_LEAVES : Array.from({ length: a.length }, (_, k) => ({ slot: k + 1 })))
      cache.set(code, c)
    }
    if (c.extra) rt.charge(c.extra)
    return c.f({ rt, s: a })
  },
  { compile: compileCall },
)
