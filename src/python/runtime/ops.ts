/**
 * Operators: arithmetic with sequence and set overloads, in-place forms,
 * comparisons and membership. These are the hottest runtime entries: the
 * int and float cases are tried first, inline.
 */
import { PyDeque, PyDict, PyDictView, PyException, PyFloat, PyFrozenSet, PyInstance, PyRange, PySet, mkFloat, tuple, typeByName, typeName } from './values.ts'
import { PyRaise, raise, typeError } from './errors.ts'
import { codePoints, hasAstral } from './text.ts'
import { SSIZE_MAX, bitwise, fitsSsize, numArith, pyModInt, unsupported, isIntValue, intOf } from './numbers.ts'
import { asSet, dictUpdate, setOp } from './collections.ts'
import { percentFormat } from './format.ts'
import { iterate } from './core.ts'
import type { PyRun } from './fuel.ts'
import { PyCounter, counterArith } from './modules.ts'
import { counterInplace } from './counter.ts'
import { timeArith } from './datetime.ts'
import { guestBinop, guestInplace } from './dunders.ts'
import { PyFraction } from './fractions.ts'

/**
 * The operators take `aug` for `a op= b` (after the in-place forms declined): CPython's TypeError then
 * names the augmented operator (`unsupported operand type(s) for -=: ...`).
 */
export function add(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b
    if (Number.isInteger(r)) {
      if (Number.isInteger(a) && Number.isInteger(b)) return Number.isSafeInteger(r) ? r : numArith(rt, '+', a, b)
      return mkFloat(r)
    }
    return r
  }
  if (typeof a === 'string' && typeof b === 'string') return rt.chargeString(a + b)
  if (a instanceof PyDeque) return dequeConcat(rt, a, b)
  if (Array.isArray(a) && Array.isArray(b) && !(b instanceof PyDeque)) {
    const fa = Object.isFrozen(a)
    if (fa !== Object.isFrozen(b)) typeError(`can only concatenate ${fa ? 'tuple' : 'list'} (not "${typeName(b)}") to ${fa ? 'tuple' : 'list'}`)
    rt.chargeSlots(a.length + b.length)
    const out = a.concat(b)
    return fa ? tuple(out) : out
  }
  // A whole-number float is a PyFloat: float arithmetic without the generic numbers path.
  if (a instanceof PyFloat) { if (b instanceof PyFloat) return mkFloat(a.v + b.v); if (typeof b === 'number') return mkFloat(a.v + b) }
  else if (b instanceof PyFloat && typeof a === 'number') return mkFloat(a + b.v)
  const r = numArith(rt, '+', a, b)
  if (r !== undefined) return r
  if (a instanceof PyDict) { const c = counterArith(rt, '+', a, b); if (c !== undefined) return c }
  { const t = timeArith('+', a, b); if (t !== undefined) return t }
  if (typeof a === 'string') typeError(`can only concatenate str (not "${typeName(b)}") to str`)
  if (Array.isArray(a)) typeError(`can only concatenate ${typeName(a)} (not "${typeName(b)}") to ${typeName(a)}`)
  return unsupported(aug ? '+=' : '+', a, b)
}

export function sub(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b
    if (Number.isInteger(r)) {
      if (Number.isInteger(a) && Number.isInteger(b)) return Number.isSafeInteger(r) ? r : numArith(rt, '-', a, b)
      return mkFloat(r)
    }
    return r
  }
  if (a instanceof PyFloat) { if (b instanceof PyFloat) return mkFloat(a.v - b.v); if (typeof b === 'number') return mkFloat(a.v - b) }
  else if (b instanceof PyFloat && typeof a === 'number') return mkFloat(a - b.v)
  const r = numArith(rt, '-', a, b)
  if (r !== undefined) return r
  const sa = asSet(a), sb = asSet(b)
  if (sa && sb) return setOp(rt, '-', sa, sb)
  if (a instanceof PyDict) { const c = counterArith(rt, '-', a, b); if (c !== undefined) return c }
  { const t = timeArith('-', a, b); if (t !== undefined) return t }
  return unsupported(aug ? '-=' : '-', a, b)
}

function repeat(rt: PyRun, seq: unknown, n: unknown): unknown {
  const count = intOf(n)
  // CPython's checks before any allocation: the count must fit an ssize_t (also for an empty or a
  // negative repeat), and so must the result's length (str: OverflowError; list, tuple: MemoryError).
  if (typeof count === 'bigint') {
    if (!fitsSsize(count)) raise('OverflowError', "cannot fit 'int' into an index-sized integer")
    if (count > 0n && BigInt(seqLength(seq)) * count > SSIZE_MAX) {
      if (typeof seq === 'string') raise('OverflowError', 'repeated string is too long')
      throw new PyRaise(new PyException(typeByName('MemoryError')!, [], ''), '')
    }
  }
  const k = Math.max(0, Number(count))
  if (typeof seq === 'string') {
    if (seq.length * k > 0) rt.chargeString({ length: seq.length * k } as string)
    return seq.repeat(k)
  }
  const arr = seq as unknown[]
  rt.chargeSlots(arr.length * k)
  const out: unknown[] = arr instanceof PyDeque ? new PyDeque() : []
  for (let i = 0; i < k; i++) for (const x of arr) out.push(x)
  if (arr instanceof PyDeque) return bounded(out as PyDeque, arr.maxlen)
  return Object.isFrozen(arr) ? tuple(out) : out
}

/** `q + other`: another deque only, the result a copy of q (its maxlen too) extended by it, as CPython's. */
function dequeConcat(rt: PyRun, a: PyDeque, b: unknown): PyDeque {
  if (!(b instanceof PyDeque)) typeError(`can only concatenate deque (not "${typeName(b)}") to deque`)
  rt.chargeSlots(a.length + (b as PyDeque).length)
  const out = new PyDeque()
  out.push(...a, ...(b as PyDeque))
  return bounded(out, a.maxlen)
}

/** A deque kept to its maxlen (the oldest items dropped from the left). */
function bounded(q: PyDeque, maxlen: number | null): PyDeque {
  q.maxlen = maxlen
  if (maxlen !== null && q.length > maxlen) q.splice(0, q.length - maxlen)
  return q
}

/** A str's length in code points (what CPython counts), else the array's. */
const seqLength = (seq: unknown): number => (typeof seq === 'string' ? (hasAstral(seq) ? codePoints(seq).length : seq.length) : (seq as unknown[]).length)

export function mul(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b
    if (Number.isInteger(a) && Number.isInteger(b)) return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : numArith(rt, '*', a, b)
    return mkFloat(r)
  }
  if (a instanceof PyFloat) { if (b instanceof PyFloat) return mkFloat(a.v * b.v); if (typeof b === 'number') return mkFloat(a.v * b) }
  else if (b instanceof PyFloat && typeof a === 'number') return mkFloat(a * b.v)
  const r = numArith(rt, '*', a, b)
  if (r !== undefined) return r
  { const t = timeArith('*', a, b); if (t !== undefined) return t }
  if ((typeof a === 'string' || Array.isArray(a)) && isIntValue(b)) return repeat(rt, a, b)
  if ((typeof b === 'string' || Array.isArray(b)) && isIntValue(a)) return repeat(rt, b, a)
  // `a *= seq`: CPython repeats the right operand only when a's type has no sequence slots at all.
  if (typeof a === 'string' || Array.isArray(a) || ((typeof b === 'string' || Array.isArray(b)) && !(aug && hasSequenceSlots(a)))) {
    const seq = typeof a === 'string' || Array.isArray(a) ? a : b
    const other = seq === a ? b : a
    typeError(`can't multiply sequence by non-int of type '${typeName(other)}'`)
  }
  return unsupported(aug ? '*=' : '*', a, b)
}

export function truediv(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  // Ints (exact below 2^53) and floats: the correctly rounded IEEE quotient, as CPython's.
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) return mkFloat(a / b)
  const r = numArith(rt, '/', a, b) ?? timeArith('/', a, b)
  return r !== undefined ? r : unsupported(aug ? '/=' : '/', a, b)
}

export function floordiv(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0 && Number.isInteger(a) && Number.isInteger(b)) {
    const t = a - pyModInt(a, b)
    if (Number.isSafeInteger(t)) return t === 0 ? 0 : t / b
  }
  // (A guest's None result is null: only undefined means no answer.)
  let r = numArith(rt, '//', a, b)
  if (r === undefined) r = timeArith('//', a, b)
  return r !== undefined ? r : unsupported(aug ? '//=' : '//', a, b)
}

export function mod(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0 && Number.isInteger(a) && Number.isInteger(b)) return pyModInt(a, b)
  if (typeof a === 'string') return percentFormat(rt, a, b)
  let r = numArith(rt, '%', a, b)
  if (r === undefined) r = timeArith('%', a, b)
  return r !== undefined ? r : unsupported(aug ? '%=' : '%', a, b)
}

export function power(rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  // x * x is the correctly rounded square, for ints and floats alike.
  if (b === 2 && (typeof a === 'number' || a instanceof PyFloat)) {
    const r = mul(rt, a, a)
    // A float square beyond the floats is CPython's OverflowError: the general path raises it.
    if (typeof r !== 'number' || Number.isFinite(r)) return r
  }
  const r = numArith(rt, '**', a, b)
  return r !== undefined ? r : unsupported(aug ? '**=' : '** or pow()', a, b)
}

export function bitOp(rt: PyRun, op: string, a: unknown, b: unknown, aug?: boolean): unknown {
  if (op !== '<<' && op !== '>>') {
    const sa = asSet(a), sb = asSet(b)
    if (sa && sb) return setOp(rt, op, sa, sb)
    if (a instanceof PyDict) { const c = counterArith(rt, op, a, b); if (c !== undefined) return c }
    if (op === '|' && a instanceof PyDict && b instanceof PyDict) {
      const d = new PyDict()
      dictUpdate(rt, d, a)
      dictUpdate(rt, d, b)
      return d
    }
  }
  return bitwise(rt, op, a, b, aug)
}

/** `a @ b`: only the program's classes define it (`__matmul__`, `__rmatmul__`); no builtin type does. */
function matmul(_rt: PyRun, a: unknown, b: unknown, aug?: boolean): unknown {
  const r = a instanceof PyInstance || b instanceof PyInstance ? guestBinop('@', a, b) : undefined
  return r !== undefined ? r : unsupported(aug ? '@=' : '@', a, b)
}

/** `a op= b`: lists extend and sets/dicts update in place; everything else rebinds. */
export function inplace(rt: PyRun, op: string, a: unknown, b: unknown): unknown {
  // Numbers and strings go straight to the operator (the in-place forms below are all of objects).
  if (typeof a === 'object' && a !== null) {
    const r = inplaceObject(rt, op, a, b)
    if (r !== undefined) return r
  }
  return BINARY[op]!(rt, a, b, true)
}

/** `x += y`, `x -= y`, `x *= y` where x is most often a number (or a string, for +=). */
export const iadd = (rt: PyRun, x: unknown, y: unknown): unknown => (typeof x === 'number' || typeof x === 'string' ? add(rt, x, y, true) : inplace(rt, '+', x, y))
export const isub = (rt: PyRun, x: unknown, y: unknown): unknown => (typeof x === 'number' ? sub(rt, x, y, true) : inplace(rt, '-', x, y))
export const imul = (rt: PyRun, x: unknown, y: unknown): unknown => (typeof x === 'number' ? mul(rt, x, y, true) : inplace(rt, '*', x, y))

/**
 * Whether CPython's type of x has sequence slots but no repeat (dicts, sets, ranges, dict views and
 * the classes written in Python): `x *= [1]` is then TypeError naming `*=`, not the list's repeat.
 */
function hasSequenceSlots(x: unknown): boolean {
  return x instanceof PyDict || x instanceof PySet || x instanceof PyRange || x instanceof PyDictView || x instanceof PyInstance || x instanceof PyFraction
}

/** `a op= b` of an object that updates in place or has its own method; undefined: the binary operator. */
function inplaceObject(rt: PyRun, op: string, a: object, b: unknown): unknown {
  if (op === '+' && Array.isArray(a) && !Object.isFrozen(a)) {
    const items = iterate(b, rt)
    rt.chargeSlots(items.length)
    for (let i = 0, n = items.length; i < n; i++) a.push(items[i])
    return a
  }
  if (a instanceof PySet && !(a instanceof PyFrozenSet) && (op === '|' || op === '&' || op === '-' || op === '^')) {
    const sb = asSet(b)
    if (!sb) unsupported(`${op}=`, a, b)
    const r = setOp(rt, op, a, sb!)
    a.map.clear()
    for (const [h, v] of r.map) a.map.set(h, v)
    return a
  }
  if (a instanceof PyCounter) {
    const r = counterInplace(rt, op, a, b)
    if (r !== undefined) return r
  }
  if (op === '|' && a instanceof PyDict) {
    dictUpdate(rt, a, b)
    return a
  }
  if (op === '*' && Array.isArray(a) && !Object.isFrozen(a) && isIntValue(b)) {
    const r = repeat(rt, a, b) as unknown[]
    a.length = 0
    for (const x of r) a.push(x)
    return a
  }
  if (a instanceof PyInstance) {
    // `__iadd__`, else `__add__`/`__radd__`; CPython names the augmented operator when none answers.
    const r = guestInplace(op, a, b)
    return r !== undefined ? r : unsupported(`${op}=`, a, b)
  }
  return undefined
}

export const BINARY: Record<string, (rt: PyRun, a: unknown, b: unknown, aug?: boolean) => unknown> = {
  '+': add, '-': sub, '*': mul, '/': truediv, '//': floordiv, '%': mod, '**': power,
  '&': (rt, a, b, aug) => bitOp(rt, '&', a, b, aug), '|': (rt, a, b, aug) => bitOp(rt, '|', a, b, aug), '^': (rt, a, b, aug) => bitOp(rt, '^', a, b, aug),
  '<<': (rt, a, b, aug) => bitOp(rt, '<<', a, b, aug), '>>': (rt, a, b, aug) => bitOp(rt, '>>', a, b, aug),
  '@': matmul,
}

export { PySet }
