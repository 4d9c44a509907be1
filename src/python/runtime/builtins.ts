/**
 * The builtins a code block may call: exactly the contract's list (abs bool
 * dict enumerate float int isinstance len list max min range reversed round
 * set sorted str sum tuple zip). Key functions arrive as precomputed key
 * lists (the frontend maps the guest's `key=` over the items on the VM).
 */
import { anyIterator, lazyEnumerate, lazyZip } from './generators.ts'
import { liveIterator } from './live-iter.ts'
import { PyDict, PyDictView, PyException, PyFloat, PyFrozenSet, PyInstance, PyIter, PyNumeric, PyOpaque, PyRange, PySet, PyType, T, isTuple, mkFloat, mkInt, tuple, typeName, typeOf } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { compare, iterate, len, lt, repr, str, toArray, truth } from './core.ts'
import { MAX_STR_DIGITS, floatOf, intOf, isFloatValue, isIntValue, negate, roundHalfEven, roundInt, strToIntLimit, truncFloat } from './numbers.ts'
import { roundFloat } from './float-text.ts'
import { asciiDigits } from './text.ts'
import { add } from './ops.ts'
import { dictUpdate, setFrom } from './collections.ts'
import { work, type PyRun } from './fuel.ts'
import { MISSING, callIf, guestIndex, guestReversed, guestUnary } from './dunders.ts'
import { timeUnary } from './datetime.ts'

export function abs(rt: PyRun, x: unknown): unknown {
  if (typeof x === 'number') return Number.isInteger(x) ? Math.abs(x) : Math.abs(x)
  if (typeof x === 'boolean') return x ? 1 : 0
  if (typeof x === 'bigint') return mkInt(x < 0n ? -x : x)
  if (x instanceof PyFloat) return new PyFloat(Math.abs(x.v))
  if (x instanceof PyNumeric) return x.unary('abs', undefined, rt)
  const t = timeUnary('abs', x)
  if (t !== undefined) return t
  const r = guestUnary('abs', x)
  return r !== MISSING ? r : typeError(`bad operand type for abs(): '${typeName(x)}'`)
}

const INT_TEXT = /^\s*([+-]?)(\d(?:_?\d)*)\s*$/


/** int(x) / int(text, base). */
export function int(rt: PyRun, x: unknown = 0, base?: unknown): unknown {
  if (base !== undefined && base !== null) {
    if (typeof x !== 'string') typeError("int() can't convert non-string with explicit base")
    return parseIntBase(rt, x as string, Number(intOf(base)))
  }
  if (isIntValue(x)) return intOf(x)
  if (isFloatValue(x)) return truncFloat(floatOf(x))
  if (x instanceof PyNumeric) return x.unary('int', undefined, rt)
  if (typeof x === 'string') {
    const m = INT_TEXT.exec(asciiDigits(x))
    if (!m) valueError(`invalid literal for int() with base 10: ${repr(x)}`)
    const digits = m![2]!.replace(/_/g, '')
    if (digits.length > MAX_STR_DIGITS) valueError(strToIntLimit(digits.length))
    rt.charge(digits.length * 10)
    return mkInt(BigInt((m![1] === '-' ? '-' : '') + digits))
  }
  const g = callIf(x, '__int__', [])
  if (g !== MISSING) return typeof g === 'boolean' ? (g ? 1 : 0) : isIntValue(g) ? g : typeError(`__int__ returned non-int (type ${typeName(g)})`)
  return typeError(`int() argument must be a string, a bytes-like object or a real number, not '${typeName(x)}'`)
}

/** Bits per digit of the power-of-two bases, which parse in linear time and have no digit limit (as in CPython). */
const POW2_BITS: Readonly<Record<number, number>> = { 2: 1, 4: 2, 8: 3, 16: 4, 32: 5 }

/**
 * int(text, base). Linear or near-linear (issue 23, class 5): power-of-two
 * bases become one binary literal for the engine's linear parser; the others
 * take CPython's 4300-digit limit and are read in chunks of digits that fit a
 * double, so at most ~440 big-int steps instead of one per digit.
 */
function parseIntBase(rt: PyRun, text: string, base: number): unknown {
  if (base !== 0 && (base < 2 || base > 36)) valueError('int() base must be >= 2 and <= 36, or 0')
  let s = text.trim().toLowerCase()
  let neg = false
  if (s.startsWith('-') || s.startsWith('+')) { neg = s[0] === '-'; s = s.slice(1) }
  const prefixes: Record<string, number> = { '0x': 16, '0o': 8, '0b': 2 }
  const p = prefixes[s.slice(0, 2)]
  if (p && (base === 0 || base === p)) { s = s.slice(2); if (s.startsWith('_')) s = s.slice(1); base = p }
  else if (base === 0) base = 10
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base)
  if (!s || s.startsWith('_') || s.endsWith('_') || s.includes('__') || [...s].some((c) => c !== '_' && !digits.includes(c))) {
    valueError(`invalid literal for int() with base ${base}: ${repr(text)}`)
  }
  const clean = s.replace(/_/g, '')
  const perDigit = POW2_BITS[base]
  let v: bigint
  if (perDigit !== undefined) {
    rt.charge(clean.length * perDigit * 10)
    if (base === 2 || base === 8 || base === 16) v = BigInt(`0${base === 2 ? 'b' : base === 8 ? 'o' : 'x'}${clean}`)
    else {
      const bits: string[] = []
      for (const c of clean) bits.push(digits.indexOf(c).toString(2).padStart(perDigit, '0'))
      v = BigInt('0b' + bits.join(''))
    }
  } else {
    if (clean.length > MAX_STR_DIGITS) valueError(strToIntLimit(clean.length))
    rt.charge(clean.length * 10)
    if (base === 10) v = BigInt(clean)
    else {
      // k digits per chunk with base^k < 2^53: each chunk parses exactly as a double.
      const k = Math.floor(53 / Math.log2(base))
      const step = BigInt(base) ** BigInt(k)
      const head = clean.length % k || k
      v = BigInt(parseInt(clean.slice(0, head), base))
      for (let i = head; i < clean.length; i += k) v = v * step + BigInt(parseInt(clean.slice(i, i + k), base))
    }
  }
  return mkInt(neg ? -v : v)
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?)$/

export function float(x: unknown = 0): unknown {
  if (isFloatValue(x)) return x
  if (isIntValue(x)) return mkFloat(floatOf(x))
  if (typeof x === 'string') {
    const s = asciiDigits(x).trim()
    const l = s.toLowerCase().replace(/^[+]/, '')
    if (l === 'inf' || l === 'infinity') return Infinity
    if (l === '-inf' || l === '-infinity') return -Infinity
    if (l === 'nan' || l === '-nan') return NaN
    if (!FLOAT_TEXT.test(s)) valueError(`could not convert string to float: ${repr(x)}`)
    return mkFloat(Number(s.replace(/_/g, '')))
  }
  if (x instanceof PyNumeric) return x.unary('float')
  const g = callIf(x, '__float__', [])
  if (g !== MISSING) return isFloatValue(g) ? g : typeError(`${typeName(x)}.__float__ returned non-float (type ${typeName(g)})`)
  return typeError(`float() argument must be a string or a real number, not '${typeName(x)}'`)
}

export function bool(x: unknown = false): boolean {
  return truth(x)
}

export function isinstance(x: unknown, cls: unknown): boolean {
  if (isTuple(cls)) return cls.some((c) => isinstance(x, c))
  // A module class (`deque`, `Counter`, `date`, ...) is held as a callable; its type object decides.
  const named = cls instanceof PyOpaque ? (cls as { classType?: PyType }).classType : undefined
  if (named) return typeOf(x).isSubclassOf(named)
  if (!(cls instanceof PyType)) return typeError('isinstance() arg 2 must be a type, a tuple of types, or a union')
  return typeOf(x).isSubclassOf(cls as PyType) || (cls === T.object)
}

export function range(a: unknown, b?: unknown, c?: unknown): PyRange {
  const n = (v: unknown): number => {
    if (!isIntValue(v)) { const g = guestIndex(v); if (g === MISSING) typeError(`'${typeName(v)}' object cannot be interpreted as an integer`); v = g }
    const i = intOf(v)
    if (typeof i === 'bigint') raise('OverflowError', 'range() bounds beyond 2**53 are not supported')
    return i as number
  }
  if (b === undefined) return new PyRange(0, n(a), 1)
  const step = c === undefined ? 1 : n(c)
  if (step === 0) valueError('range() arg 3 must not be zero')
  return new PyRange(n(a), n(b), step)
}

export function enumerate(rt: PyRun, it: unknown, start: unknown = 0): unknown[] | PyIter {
  if (!isIntValue(start)) typeError(`'${typeName(start)}' object cannot be interpreted as an integer`)
  if (it instanceof PyIter) return lazyEnumerate(rt, it, intOf(start))
  // Over a dict, a set or a deque: its live iterator, so a change made in the loop is CPython's RuntimeError.
  const live = liveIterator(it, rt)
  if (live) return lazyEnumerate(rt, live, intOf(start))
  const items = iterate(it, rt)
  rt.chargeSlots(items.length * 3)
  const s = intOf(start)
  return items.map((x, i) => tuple([typeof s === 'number' && Number.isSafeInteger(s + i) ? s + i : mkInt(BigInt(s) + BigInt(i)), x]))
}

export function zip(rt: PyRun, its: unknown[], strict = false): unknown[] | PyIter {
  if (its.length === 0) return []
  if (!strict && anyIterator(its)) return lazyZip(rt, its)
  const lists = its.map((x) => iterate(x, rt))
  const n = Math.min(...lists.map((l) => l.length))
  if (strict && lists.some((l) => l.length !== n)) zipMismatch(lists, n)
  rt.chargeSlots(n * (lists.length + 1))
  const out = new Array<unknown>(n)
  for (let i = 0; i < n; i++) out[i] = tuple(lists.map((l) => l[i]))
  return out
}

/** `zip(..., strict=True)` over iterables of different lengths: CPython's message, naming the first that ended early or ran on. */
function zipMismatch(lists: unknown[][], n: number): never {
  const before = (k: number) => (k === 1 ? 'argument 1' : `arguments 1-${k}`)
  if (lists[0]!.length === n) {
    const k = lists.findIndex((l) => l.length > n)
    return valueError(`zip() argument ${k + 1} is longer than ${before(k)}`)
  }
  const k = lists.findIndex((l) => l.length === n)
  return valueError(`zip() argument ${k + 1} is shorter than ${before(k)}`)
}

export function reversed(rt: PyRun, x: unknown): unknown[] {
  if (x instanceof PySet) typeError(`'${typeName(x)}' object is not reversible`)
  if (typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof PyDict) && !(x instanceof PyRange) && !(x instanceof PyDictView)) {
    const items = guestReversed(x)
    if (items) { rt.chargeSlots(items.length); return items }
    typeError(`'${typeName(x)}' object is not reversible`)
  }
  return toArray(x, rt).reverse()
}

export function round(x: unknown, nd?: unknown, rt?: PyRun): unknown {
  if (x instanceof PyNumeric) return x.unary('round', nd, rt)
  if (x instanceof PyInstance) {
    const g = callIf(x, '__round__', nd === undefined || nd === null ? [] : [nd])
    if (g !== MISSING) return g
  }
  if (nd === undefined || nd === null) {
    if (isIntValue(x)) return intOf(x)
    if (isFloatValue(x)) return roundHalfEven(floatOf(x))
    return typeError(`type ${typeName(x)} doesn't define __round__ method`)
  }
  if (!isIntValue(nd)) typeError(`'${typeName(nd)}' object cannot be interpreted as an integer`)
  const n = Number(intOf(nd))
  if (isIntValue(x)) return roundInt(intOf(x), n)
  if (isFloatValue(x)) return mkFloat(roundFloat(floatOf(x), n))
  return typeError(`type ${typeName(x)} doesn't define __round__ method`)
}

export function sum(rt: PyRun, it: unknown, start: unknown = 0): unknown {
  if (typeof start === 'string') typeError("sum() can't sum strings [use ''.join(seq) instead]")
  const items = iterate(it, rt)
  let acc = start
  for (let i = 0; i < items.length; i++) acc = add(rt, acc, items[i])
  return acc
}

/** Sort items by keys (or themselves), stably; `reverse` keeps equal items in order, like CPython. */
export function sortItems(rt: PyRun, items: unknown[], keys: unknown[] | null, reverse: boolean): unknown[] {
  const n = items.length
  if (n > 1) rt.charge(Math.ceil(n * Math.log2(n)) * 100)
  const k = keys ?? items
  const idx = Array.from({ length: n }, (_, i) => i)
  const cmp = (i: number, j: number): number => {
    const a = k[i], b = k[j]
    if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : b < a ? 1 : 0
    return lt(a, b) ? -1 : lt(b, a) ? 1 : 0
  }
  if (k.some((x) => x instanceof PyInstance)) {
    const before = reverse ? (i: number, j: number) => lt(k[j], k[i]) : (i: number, j: number) => lt(k[i], k[j])
    return mergeSorted(idx, before).map((i) => items[i])
  }
  idx.sort(reverse ? (i, j) => cmp(j, i) : cmp)
  return idx.map((i) => items[i])
}

/**
 * A stable bottom-up merge sort that asks only "does j come before i" once per step: for keys that
 * are the program's objects each question is a call of the program (`__lt__`, cmp_to_key's mycmp),
 * where the native sort's comparator above asks `a < b` and then `b < a` of every pair not less.
 * Any consistent order sorts the same either way.
 */
function mergeSorted(idx: number[], before: (i: number, j: number) => boolean): number[] {
  const n = idx.length
  let src = idx, dst = new Array<number>(n)
  for (let w = 1; w < n; w *= 2) {
    for (let lo = 0; lo < n; lo += 2 * w) {
      const mid = Math.min(lo + w, n), hi = Math.min(lo + 2 * w, n)
      let i = lo, j = mid, o = lo
      while (i < mid && j < hi) dst[o++] = before(src[j]!, src[i]!) ? src[j++]! : src[i++]!
      while (i < mid) dst[o++] = src[i++]!
      while (j < hi) dst[o++] = src[j++]!
    }
    [src, dst] = [dst, src]
  }
  return src
}

export function sorted(rt: PyRun, items: unknown[], keys: unknown[] | null, reverse: unknown): unknown[] {
  return sortItems(rt, items, keys, truth(reverse))
}

/** min/max over items (with optional precomputed keys and default). */
export function minmax(rt: PyRun, which: 'min' | 'max', items: unknown[], keys: unknown[] | null, hasDefault: boolean, dflt: unknown): unknown {
  if (items.length === 0) {
    if (hasDefault) return dflt
    valueError(`${which}() arg is an empty sequence`)
  }
  work(rt, items.length)
  const k = keys ?? items
  let best = 0
  for (let i = 1; i < items.length; i++) {
    const c = compare(k[i], k[best], which === 'max' ? '>' : '<')
    if (which === 'max' ? c > 0 : c < 0) best = i
  }
  return items[best]
}

export function list(rt: PyRun, it?: unknown): unknown[] {
  return it === undefined ? [] : toArray(it, rt)
}

export function tupleOf(rt: PyRun, it?: unknown): readonly unknown[] {
  if (it === undefined) return tuple([])
  if (Array.isArray(it) && Object.isFrozen(it)) return it
  return tuple(toArray(it, rt))
}

export function set(rt: PyRun, it?: unknown): PySet {
  return it === undefined ? new PySet() : setFrom(rt, iterate(it, rt))
}

/** `frozenset(iterable)`: a frozenset given is itself (as CPython's). */
export function frozenset(rt: PyRun, it?: unknown): PySet {
  return it instanceof PyFrozenSet ? it : setFrom(rt, it === undefined ? [] : iterate(it, rt), true)
}

export function dict(rt: PyRun, it: unknown, kw: PyDict | null): PyDict {
  const d = new PyDict()
  if (it !== undefined) dictUpdate(rt, d, it)
  if (kw) dictUpdate(rt, d, kw)
  return d
}

export function strOf(rt: PyRun, x: unknown = ''): string {
  return rt.chargeString(str(x))
}

export { len, negate, PyException }
