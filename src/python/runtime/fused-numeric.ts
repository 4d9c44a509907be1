/**
 * Number-only evaluation of a fused tree's arithmetic (runtime/fused.ts): a subtree of `+ - * /
 * // % -x`, `x ** 2` and list/tuple items over variables and constants is first evaluated on plain
 * JS numbers, ints and floats told apart by a flag instead of boxing each whole float it passes
 * through, and without the runtime's type dispatch. Whatever it does not answer exactly (an
 * operand that is not an int or a float, an int beyond 2^53, a division by zero, a float `//` or
 * `%`, an item out of range) drops the attempt and the subtree runs on the general path from the
 * start: its leaves are variables and constants and number arithmetic has no effects, so the
 * second evaluation is unobservable, and errors are raised (and located) by the general path only.
 */
import { PyFloat, mkFloat } from './values.ts'
import { pyModInt } from './numbers.ts'

interface Fr { readonly s: unknown[] }
type F = (f: Fr) => unknown
type N = (f: Fr) => number

/**
 * `flt`: whether the value the last numeric closure returned is a float (else an int); `bail`: set
 * when a numeric closure met a case it does not answer (the subtree's root then takes the general
 * path). Fields of one object: module-level `let`s would be checked for initialisation at each use.
 */
const st = { flt: false, bail: false }

/** A value as a number: an int, a float (a whole float's box opened), or a bail. */
function num(v: unknown): number {
  if (typeof v === 'number') { st.flt = !Number.isInteger(v); return v }
  if (v instanceof PyFloat) { st.flt = true; return v.v }
  st.bail = true
  return 0
}

/** The operations with a number-only form, and their arity. */
const ARITY: Readonly<Record<string, number>> = { add: 2, iadd: 2, sub: 2, isub: 2, mul: 2, imul: 2, div: 2, fdiv: 2, mod: 2, pow: 2, neg: 1, getitem: 2 }

const opName = (t: string): string => { const k = t.indexOf('@'); return k < 0 ? t : t.slice(0, k) }

/** A leaf as read here: a variable's slot or a constant (an argument computed by other code is never a leaf here). */
export type NumLeaf = { slot: number } | { value: unknown }

/** The extent of the number-only subtree at tokens[i] and its operation count, or undefined. */
export function numericSpan(tokens: readonly string[], i: number, leaf: (t: string) => NumLeaf | undefined): { end: number; ops: number } | undefined {
  const t = tokens[i]
  if (t === undefined) return undefined
  if (t[0] === '$' || t[0] === '#') return leaf(t) ? { end: i + 1, ops: 0 } : undefined
  const name = opName(t)
  const n = ARITY[name]
  if (n === undefined) return undefined
  let j = i + 1
  let ops = 1
  for (let k = 0; k < n; k++) {
    const c = tokens[j]
    // An item's sequence and index are read as they are; the square is `x ** 2` only.
    if (name === 'getitem' && (c === undefined || (c[0] !== '$' && c[0] !== '#') || !leaf(c))) return undefined
    if (name === 'pow' && k === 1 && c !== '#2') return undefined
    const s = numericSpan(tokens, j, leaf)
    if (!s) return undefined
    j = s.end
    ops += s.ops
  }
  return { end: j, ops }
}

/** The numeric closure of the subtree at tokens[i] (numericSpan said it has one), and where it ends. */
function build(tokens: readonly string[], i: number, leaf: (t: string) => NumLeaf | undefined): { n: N; end: number } {
  const t = tokens[i]!
  if (t[0] === '$' || t[0] === '#') {
    const l = leaf(t)!
    if ('slot' in l) { const k = l.slot; return { n: (f) => num(f.s[k]), end: i + 1 } }
    const v = l.value
    return { n: () => num(v), end: i + 1 }
  }
  const name = opName(t)
  if (name === 'getitem') {
    const ol = leaf(tokens[i + 1]!)!, xl = leaf(tokens[i + 2]!)!
    // The commonest item: a variable's at a constant int index (`p[0]`), read in place.
    if ('slot' in ol && 'value' in xl && typeof xl.value === 'number' && Number.isSafeInteger(xl.value)) {
      const o = ol.slot, k = xl.value
      return {
        n: (f) => {
          const s = f.s[o]
          if (Array.isArray(s)) {
            const j = k < 0 ? k + s.length : k
            if (j >= 0 && j < s.length) return num(s[j])
          }
          st.bail = true
          return 0
        },
        end: i + 3,
      }
    }
    const read = (l: NumLeaf): F => ('slot' in l ? ((k) => (f: Fr) => f.s[k])(l.slot) : ((v) => () => v)(l.value))
    const o = read(ol), x = read(xl)
    return {
      n: (f) => {
        const s = o(f), k = x(f)
        if (Array.isArray(s) && typeof k === 'number') {
          const j = k < 0 ? k + s.length : k
          if (j >= 0 && j < s.length && Number.isInteger(k)) return num(s[j])
        }
        st.bail = true
        return 0
      },
      end: i + 3,
    }
  }
  const a = build(tokens, i + 1, leaf)
  const x = a.n
  if (name === 'neg') return { n: (f) => { const v = x(f); return st.flt || v !== 0 ? -v : 0 }, end: a.end }
  const b = build(tokens, a.end, leaf)
  const y = b.n
  const end = b.end
  // An int constant on the right (`i % 7`, `n - 1`): read in place.
  const ct = tokens[a.end]!
  const c = ct[0] === '#' || ct[0] === '$' ? leaf(ct) : undefined
  const k = c && 'value' in c && typeof c.value === 'number' && Number.isSafeInteger(c.value) ? c.value : undefined
  if (k !== undefined) {
    switch (name) {
      case 'add': case 'iadd': return { n: (f) => { const p = x(f); if (st.flt) return p + k; const r = p + k; if (!Number.isSafeInteger(r)) st.bail = true; return r }, end }
      case 'sub': case 'isub': return { n: (f) => { const p = x(f); if (st.flt) return p - k; const r = p - k; if (!Number.isSafeInteger(r)) st.bail = true; return r }, end }
      case 'mul': case 'imul': return { n: (f) => { const p = x(f); if (st.flt) return p * k; const r = p * k; if (!Number.isSafeInteger(r)) st.bail = true; return r === 0 ? 0 : r }, end }
      case 'mod': if (k !== 0) return { n: (f) => { const p = x(f); if (st.flt) { st.bail = true; return 0 } return pyModInt(p, k) }, end }
        break
      case 'fdiv': if (k !== 0) return { n: (f) => { const p = x(f); const r = st.flt ? NaN : p - pyModInt(p, k); if (!Number.isSafeInteger(r)) { st.bail = true; return 0 } return r === 0 ? 0 : r / k }, end }
    }
  }
  switch (name) {
    case 'add': case 'iadd': return { n: (f) => { const p = x(f), fp = st.flt, q = y(f); if (fp || st.flt) { st.flt = true; return p + q } const r = p + q; if (!Number.isSafeInteger(r)) st.bail = true; return r }, end }
    case 'sub': case 'isub': return { n: (f) => { const p = x(f), fp = st.flt, q = y(f); if (fp || st.flt) { st.flt = true; return p - q } const r = p - q; if (!Number.isSafeInteger(r)) st.bail = true; return r }, end }
    case 'mul': case 'imul': return { n: (f) => { const p = x(f), fp = st.flt, q = y(f); if (fp || st.flt) { st.flt = true; return p * q } const r = p * q; if (!Number.isSafeInteger(r)) st.bail = true; return r === 0 ? 0 : r }, end }
    // A float square beyond the floats is an OverflowError: the general path raises it.
    case 'pow': return { n: (f) => { const p = x(f); const r = p * p; if (st.flt ? !Number.isFinite(r) : !Number.isSafeInteger(r)) st.bail = true; return r }, end }
    case 'div': return { n: (f) => { const p = x(f), q = y(f); if (q === 0) st.bail = true; st.flt = true; return p / q }, end }
    case 'mod': return { n: (f) => { const p = x(f), fp = st.flt, q = y(f); if (fp || st.flt || q === 0) { st.bail = true; return 0 } return pyModInt(p, q) }, end }
    default: return {
      // fdiv: ints only; a - a % b divided exactly while it is a safe integer.
      n: (f) => {
        const p = x(f), fp = st.flt, q = y(f)
        if (fp || st.flt || q === 0) { st.bail = true; return 0 }
        const r = p - pyModInt(p, q)
        if (!Number.isSafeInteger(r)) { st.bail = true; return 0 }
        return r === 0 ? 0 : r / q
      },
      end,
    }
  }
}

/** The subtree at tokens[i] evaluated on numbers first, `general` (the same subtree's general closure) when that bails. */
export function numericTree<T extends Fr>(tokens: readonly string[], i: number, leaf: (t: string) => NumLeaf | undefined, general: (f: T) => unknown): (f: T) => unknown {
  const n = build(tokens, i, leaf).n
  return (f) => {
    const r = n(f)
    if (st.bail) { st.bail = false; return general(f) }
    return st.flt ? mkFloat(r) : r
  }
}
