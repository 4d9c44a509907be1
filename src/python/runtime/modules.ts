/**
 * The importable modules' functions (extended profile; the names are listed in src/python/modules.ts):
 * `math`, `json`, `string`, `itertools` and `collections`, each what CPython 3.11 computes for
 * the accepted arguments. Called as `py$modcall('math.sqrt', args, kw)`, or as values (`map(math.sqrt, xs)`).
 */
import { anyIterator, lazyChain, lazyChainFrom, lazyCount, lazyCycle, lazyIslice, lazyRepeat } from './generators.ts'
import { PyDeque, PyDict, PyFloat, PyIter, PyNumeric, PySet, PyRange, PyDictView, isTuple, mkFloat, mkInt, shortTypeName, tuple, typeByName, typeName } from './values.ts'
import { raise, typeError, valueError } from './errors.ts'
import { hashKey, iterate, lt } from './core.ts'
import { intOf, isIntValue, decimalText } from './numbers.ts'
import { keyText, jsonFloat } from './json.ts'
import { loadsExact } from './extended.ts'
import * as Q from './rational.ts'
import { add, mul } from './ops.ts'
import type { PyRun } from './fuel.ts'
import { FLAGS as RE_FLAGS, reCall } from './re.ts'
import { fsum, real } from './fsum.ts'
import { namedtuple } from './namedtuple.ts'
import { partial } from './partial.ts'
import { DATETIME, DATETIME_CONSTANTS, UTC } from './datetime.ts'
import { RANDOM } from './random.ts'
import { DATACLASS_FUNCTIONS } from './dataclasses.ts'
import { OPERATOR_FUNCTIONS } from './operator.ts'
import { BISECT_FUNCTIONS } from './bisect.ts'
import { STATISTICS_FUNCTIONS } from './statistics.ts'
import { COPY_FUNCTIONS } from './copy.ts'
import { FRACTION_FUNCTIONS } from './fractions.ts'
import { DECIMAL_CONSTANTS, DECIMAL_FUNCTIONS, DECIMAL_SIGNALS, PyDecimal } from './decimal.ts'
import { DECIMAL_RUN_CONSTANTS } from './decimal-context.ts'
import { ZERO as ZERO_DEC } from './decimal-num.ts'
import { compareStr } from './text.ts'

type ModFn = (rt: PyRun, a: unknown[], kw: PyDict | null) => unknown

const kwargs = (name: string, kw: PyDict | null, allowed: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  if (kw) {
    for (const [k, v] of kw.map.values()) {
      if (!allowed.includes(k as string)) typeError(`${name}() got an unexpected keyword argument '${String(k)}'`)
      out[k as string] = v
    }
  }
  return out
}
const noKw = (name: string, kw: PyDict | null) => kwargs(name, kw, [])
const arity = (name: string, a: unknown[], min: number, max = min): void => {
  if (a.length < min || a.length > max) {
    if (min === max) typeError(`${name}() takes exactly ${min === 1 ? 'one argument' : `${min} arguments`} (${a.length} given)`)
    typeError(`${name} expected ${a.length < min ? 'at least' : 'at most'} ${a.length < min ? min : max} arguments, got ${a.length}`)
  }
}

// --- math ----------------------------------------------------------------------------

const domain = (): never => valueError('math domain error')
const rangeErr = (): never => raise('OverflowError', 'math range error')

/** A float result: NaN from a finite argument is a domain error, infinity a range error. */
function f1(name: string, fn: (x: number) => number, check: (x: number) => boolean = () => true): ModFn {
  return (_rt, a, kw) => {
    noKw(name, kw); arity(name, a, 1)
    const x = real(a[0])
    if (!check(x)) domain()
    const r = fn(x)
    if (Number.isNaN(r) && !Number.isNaN(x)) domain()
    if (!Number.isFinite(r) && Number.isFinite(x)) rangeErr()
    return mkFloat(r)
  }
}

function toInt(name: string, x: unknown): number | bigint {
  if (!isIntValue(x)) typeError(`'${typeName(x)}' object cannot be interpreted as an integer`)
  void name
  return intOf(x)
}

function floorCeil(name: string, f: (x: number) => number): ModFn {
  return (rt, a, kw) => {
    noKw(name, kw); arity(name, a, 1)
    if (isIntValue(a[0])) return intOf(a[0])
    if (a[0] instanceof PyNumeric) return a[0].unary(name, undefined, rt)
    const x = real(a[0])
    if (Number.isNaN(x)) valueError('cannot convert float NaN to integer')
    if (!Number.isFinite(x)) raise('OverflowError', 'cannot convert float infinity to integer')
    const r = f(x)
    return mkInt(Number.isSafeInteger(r) ? r : BigInt(r))
  }
}

function factorial(n: number | bigint): unknown {
  if (n < 0) valueError('factorial() not defined for negative values')
  if (Number(n) > 20000) valueError('factorial() argument is too large here')
  let r = 1n
  for (let i = 2n; i <= BigInt(n); i++) r *= i
  return mkInt(r)
}

/** `math.isqrt`: rational.ts's exact Newton root (a float first guess is wrong or not finite past 2^1024). */
function isqrt(n: bigint): bigint {
  if (n < 0n) valueError('isqrt() argument must be nonnegative')
  return Q.isqrt(n)
}

const MATH: Record<string, ModFn> = {
  sqrt: f1('sqrt', Math.sqrt, (x) => !(x < 0)),
  exp: f1('exp', Math.exp),
  log2: f1('log2', Math.log2, (x) => x > 0 || Number.isNaN(x)),
  log10: f1('log10', Math.log10, (x) => x > 0 || Number.isNaN(x)),
  sin: f1('sin', Math.sin, Number.isFinite), cos: f1('cos', Math.cos, Number.isFinite), tan: f1('tan', Math.tan, Number.isFinite),
  asin: f1('asin', Math.asin, (x) => !(Math.abs(x) > 1)), acos: f1('acos', Math.acos, (x) => !(Math.abs(x) > 1)), atan: f1('atan', Math.atan),
  fabs: f1('fabs', Math.abs),
  degrees: f1('degrees', (x) => x * (180 / Math.PI)),
  radians: f1('radians', (x) => x * (Math.PI / 180)),
  floor: floorCeil('floor', Math.floor),
  ceil: floorCeil('ceil', Math.ceil),
  trunc: floorCeil('trunc', Math.trunc),
  log: (_rt, a, kw) => {
    noKw('log', kw); arity('log', a, 1, 2)
    const ln = (v: unknown): number => {
      if (typeof v === 'bigint') { if (v <= 0n) domain(); const s = v.toString(2).length - 1; return Math.log(Number(v >> BigInt(Math.max(0, s - 60)))) + Math.max(0, s - 60) * Math.LN2 }
      const x = real(v)
      if (!(x > 0) && !Number.isNaN(x)) domain()
      return Math.log(x)
    }
    const r = a.length === 2 ? ln(a[0]) / ln(a[1]) : ln(a[0])
    return mkFloat(r)
  },
  pow: (_rt, a, kw) => {
    noKw('pow', kw); arity('pow', a, 2)
    const x = real(a[0]), y = real(a[1])
    const r = Math.pow(x, y)
    if (x === 1 || y === 0) return mkFloat(1)
    if (Number.isNaN(r) && !Number.isNaN(x) && !Number.isNaN(y)) domain()
    if (x === 0 && y < 0) domain()
    if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) rangeErr()
    return mkFloat(r)
  },
  atan2: (_rt, a, kw) => { noKw('atan2', kw); arity('atan2', a, 2); return mkFloat(Math.atan2(real(a[0]), real(a[1]))) },
  hypot: (_rt, a, kw) => { noKw('hypot', kw); return mkFloat(Math.hypot(...a.map(real))) },
  dist: (rt, a, kw) => {
    noKw('dist', kw); arity('dist', a, 2)
    const p = iterate(a[0], rt), q = iterate(a[1], rt)
    if (p.length !== q.length) valueError('both points must have the same number of dimensions')
    return mkFloat(Math.hypot(...p.map((x, i) => real(x) - real(q[i]))))
  },
  copysign: (_rt, a, kw) => { noKw('copysign', kw); arity('copysign', a, 2); const x = Math.abs(real(a[0])), y = real(a[1]); return mkFloat(y < 0 || Object.is(y, -0) ? -x : x) },
  fmod: (_rt, a, kw) => { noKw('fmod', kw); arity('fmod', a, 2); const x = real(a[0]), y = real(a[1]); if (y === 0 || !Number.isFinite(x)) domain(); return mkFloat(x % y) },
  isfinite: (_rt, a) => { arity('isfinite', a, 1); return Number.isFinite(real(a[0])) },
  isinf: (_rt, a) => { arity('isinf', a, 1); const x = real(a[0]); return !Number.isFinite(x) && !Number.isNaN(x) },
  isnan: (_rt, a) => { arity('isnan', a, 1); return Number.isNaN(real(a[0])) },
  isclose: (_rt, a, kw) => {
    arity('isclose', a, 2)
    const o = kwargs('isclose', kw, ['rel_tol', 'abs_tol'])
    const x = real(a[0]), y = real(a[1])
    const rel = o.rel_tol === undefined ? 1e-9 : real(o.rel_tol), abs = o.abs_tol === undefined ? 0 : real(o.abs_tol)
    if (rel < 0 || abs < 0) valueError('tolerances must be non-negative')
    if (x === y) return true
    if (!Number.isFinite(x) || !Number.isFinite(y)) return false
    const d = Math.abs(y - x)
    return d <= Math.abs(rel * y) || d <= Math.abs(rel * x) || d <= abs
  },
  gcd: (_rt, a, kw) => { noKw('gcd', kw); let g = 0n; for (const x of a) g = Q.gcd(g, BigInt(toInt('gcd', x))); return mkInt(g) },
  lcm: (_rt, a, kw) => {
    noKw('lcm', kw)
    let l = 1n
    for (const x of a) { const v = BigInt(toInt('lcm', x)); if (v === 0n) return 0; l = (l * v) / Q.gcd(l, v); if (l < 0n) l = -l }
    return mkInt(l)
  },
  factorial: (_rt, a, kw) => { noKw('factorial', kw); arity('factorial', a, 1); return factorial(toInt('factorial', a[0])) },
  isqrt: (_rt, a, kw) => { noKw('isqrt', kw); arity('isqrt', a, 1); return mkInt(isqrt(BigInt(toInt('isqrt', a[0])))) },
  comb: (_rt, a, kw) => {
    noKw('comb', kw); arity('comb', a, 2)
    const n = BigInt(toInt('comb', a[0])), k = BigInt(toInt('comb', a[1]))
    if (n < 0n) valueError('n must be a non-negative integer')
    if (k < 0n) valueError('k must be a non-negative integer')
    if (k > n) return 0
    let r = 1n
    const kk = k < n - k ? k : n - k
    for (let i = 0n; i < kk; i++) r = (r * (n - i)) / (i + 1n)
    return mkInt(r)
  },
  perm: (_rt, a, kw) => {
    noKw('perm', kw); arity('perm', a, 1, 2)
    const n = BigInt(toInt('perm', a[0])), k = a.length > 1 && a[1] !== null ? BigInt(toInt('perm', a[1])) : n
    if (n < 0n) valueError('n must be a non-negative integer')
    if (k < 0n) valueError('k must be a non-negative integer')
    if (k > n) return 0
    let r = 1n
    for (let i = 0n; i < k; i++) r *= n - i
    return mkInt(r)
  },
  prod: (rt, a, kw) => {
    arity('prod', a, 1)
    const o = kwargs('prod', kw, ['start'])
    let r: unknown = o.start === undefined ? 1 : o.start
    for (const x of iterate(a[0], rt)) r = mul(rt, r, x)
    return r
  },
  fsum: (rt, a, kw) => { noKw('fsum', kw); arity('fsum', a, 1); return mkFloat(fsum(iterate(a[0], rt).map(real))) },
}

const MATH_CONST: Record<string, unknown> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, inf: new PyFloat(Infinity), nan: NaN }

// --- json ------------------------------------------------------------------------------

function jsonString(s: string, ascii: boolean): string {
  const re = ascii ? /["\\\x00-\x1f\u007f-\uffff]/g : /["\\\x00-\x1f]/g
  return '"' + s.replace(re, (c) => JSON_ESCAPES[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '"'
}
const JSON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' }

interface DumpOptions {
  indent: string | null; sortKeys: boolean; ascii: boolean; itemSep: string; keySep: string; allowNan: boolean
  /** `default=`: what stands for a value JSON has no form for (`default=str` for decimals and dates). */
  fallback: ((v: unknown) => unknown) | null
}

function jsonNumber(v: number, o: DumpOptions): string {
  if (!Number.isFinite(v)) {
    // CPython's C encoder (no indent) does not name the value; its Python encoder (indent=...) does.
    if (!o.allowNan) valueError(`Out of range float values are not JSON compliant${o.indent === null ? '' : `: ${Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'}`}`)
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'
  }
  return jsonFloat(v)
}

function dumpValue(rt: PyRun, v: unknown, o: DumpOptions, level: number, stack: Set<unknown>): string {
  switch (typeof v) {
    case 'string': return rt.chargeString(jsonString(v, o.ascii))
    case 'boolean': return v ? 'true' : 'false'
    case 'number': return Number.isInteger(v) ? String(v) : jsonNumber(v, o)
    case 'bigint': return decimalText(v)
    case 'undefined': return 'null'
  }
  if (v === null) return 'null'
  if (v instanceof PyFloat) return jsonNumber(v.v, o)
  const isList = Array.isArray(v) && !(v instanceof PyDeque)
  if (!isList && !(v instanceof PyDict)) {
    if (!o.fallback) return typeError(`Object of type ${shortTypeName(typeName(v))} is not JSON serializable`)
    if (stack.has(v)) valueError('Circular reference detected')
    stack.add(v)
    const text = dumpValue(rt, o.fallback(v), o, level + 1, stack)
    stack.delete(v)
    return text
  }
  if (stack.has(v)) valueError('Circular reference detected')
  if (level > 1000) raise('RecursionError', 'maximum recursion depth exceeded while encoding a JSON object')
  stack.add(v)
  let parts: string[]
  if (isList) {
    rt.chargeSlots(v.length)
    parts = (v as unknown[]).map((x) => dumpValue(rt, x, o, level + 1, stack))
  } else {
    let entries = [...(v as PyDict).map.values()]
    rt.chargeSlots(entries.length)
    if (o.sortKeys) {
      // str keys (the usual case) by code point, once per pair; mixed keys as `<` does (CPython's TypeError included).
      entries = entries.every((e) => typeof e[0] === 'string')
        ? entries.slice().sort((a, b) => compareStr(a[0] as string, b[0] as string))
        : entries.slice().sort((a, b) => (lt(a[0], b[0]) ? -1 : lt(b[0], a[0]) ? 1 : 0))
    }
    parts = entries.map(([k, x]) => {
      const key = typeof k === 'number' && !Number.isInteger(k) ? jsonNumber(k, o) : keyText(k)
      return `${jsonString(key, o.ascii)}${o.keySep}${dumpValue(rt, x, o, level + 1, stack)}`
    })
  }
  stack.delete(v)
  const [open, close] = isList ? ['[', ']'] : ['{', '}']
  if (parts.length === 0) return open + close
  if (o.indent === null) return open + parts.join(o.itemSep) + close
  const inner = '\n' + o.indent.repeat(level + 1)
  return open + inner + parts.join(o.itemSep + inner) + '\n' + o.indent.repeat(level) + close
}

function dumps(rt: PyRun, a: unknown[], kw: PyDict | null): string {
  arity('dumps', a, 1)
  const k = kwargs('dumps', kw, ['indent', 'sort_keys', 'ensure_ascii', 'separators', 'allow_nan', 'default'])
  let indent: string | null = null
  if (k.indent !== undefined && k.indent !== null) {
    if (typeof k.indent === 'string') indent = k.indent
    else if (isIntValue(k.indent)) indent = ' '.repeat(Math.max(0, Math.min(Number(intOf(k.indent)), 1000)))
    else typeError(`indent must be an int or a str, not ${typeName(k.indent)}`)
  }
  let itemSep = indent === null ? ', ' : ',', keySep = ': '
  if (k.separators !== undefined && k.separators !== null) {
    const s = k.separators
    if (!Array.isArray(s) || s.length !== 2 || typeof s[0] !== 'string' || typeof s[1] !== 'string') typeError('separators must be a (item_separator, key_separator) tuple of str')
    ;[itemSep, keySep] = s as string[]
  }
  const truthy = (x: unknown, d: boolean) => (x === undefined ? d : !!x && x !== 0)
  const fallback = k.default === undefined || k.default === null ? null : callBack(rt, k.default, 'json.dumps(default=...)')
  const o: DumpOptions = { indent, sortKeys: truthy(k.sort_keys, false), ascii: truthy(k.ensure_ascii, true), itemSep: itemSep!, keySep: keySep!, allowNan: truthy(k.allow_nan, true), fallback }
  return dumpValue(rt, a[0], o, 0, new Set())
}

/**
 * A function value the runtime calls with one argument: a builtin or a type (`str`, `Decimal`) at
 * once, one of the program's through its dispatcher (not where the functions may wait for an atom).
 */
function callBack(rt: PyRun, f: unknown, what: string): (v: unknown) => unknown {
  if (f instanceof TypeObj || f instanceof PyBuiltin) return (v) => callNative(rt, f, [v], null)
  const calls = rt as unknown as GuestCalls
  if (!(f instanceof PyOpaque)) return typeError(`'${typeName(f)}' object is not callable`)
  if (calls.helperWaits === undefined || calls.helperWaits(DISPATCH_HELPER)) return typeError(`${what} with a function of the program cannot run here: the function may wait for an atom; convert the values before the call`)
  return (v) => calls.callHelper(DISPATCH_HELPER, [f, [v], null])
}

const JSON_FNS: Record<string, ModFn> = {
  dumps,
  loads: (rt, a, kw) => {
    arity('loads', a, 1)
    const k = kwargs('loads', kw, ['parse_float', 'parse_int'])
    if (typeof a[0] !== 'string') typeError(`the JSON object must be str, bytes or bytearray, not ${typeName(a[0])}`)
    // `parse_float=Decimal`: the number's text to the function (exact money), as CPython's.
    const parse = (f: unknown) => (f === undefined || f === null ? undefined : callBack(rt, f, `json.loads(${f === k.parse_float ? 'parse_float' : 'parse_int'}=...)`))
    return loadsExact(rt, a[0] as string, parse(k.parse_float), parse(k.parse_int))
  },
}

// --- string ------------------------------------------------------------------------------

const LOWER = 'abcdefghijklmnopqrstuvwxyz', UPPER = LOWER.toUpperCase(), DIGITS = '0123456789'
const PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
const WS = ' \t\n\r\x0b\x0c'
const STRING_CONST: Record<string, unknown> = {
  ascii_lowercase: LOWER, ascii_uppercase: UPPER, ascii_letters: LOWER + UPPER, digits: DIGITS,
  hexdigits: DIGITS + 'abcdefABCDEF', octdigits: '01234567', punctuation: PUNCT, whitespace: WS,
  printable: DIGITS + LOWER + UPPER + PUNCT + WS,
}

// --- itertools ------------------------------------------------------------------------------

const MAX_ITEMS = 1_000_000

function guard(rt: PyRun, n: number, name: string): void {
  if (n > MAX_ITEMS) raise('MemoryError', `${name}() would make ${n} items (more than ${MAX_ITEMS})`)
  rt.chargeSlots(n)
}

function* combos(n: number, k: number, repl: boolean): Generator<number[]> {
  if (k > n && !repl) return
  if (n === 0 && k > 0) return
  const idx = repl ? new Array(k).fill(0) : Array.from({ length: k }, (_, i) => i)
  yield idx.slice()
  for (;;) {
    let i = k - 1
    if (repl) { while (i >= 0 && idx[i] === n - 1) i-- } else { while (i >= 0 && idx[i] === i + n - k) i-- }
    if (i < 0) return
    idx[i]++
    for (let j = i + 1; j < k; j++) idx[j] = repl ? idx[i] : idx[j - 1] + 1
    yield idx.slice()
  }
}

function collect(rt: PyRun, name: string, g: Iterable<unknown>): unknown[] {
  const out: unknown[] = []
  for (const x of g) { out.push(x); if (out.length % 4096 === 0) guard(rt, out.length, name) }
  rt.chargeSlots(out.length)
  return out
}

function* permutations(items: unknown[], k: number): Generator<readonly unknown[]> {
  const n = items.length
  if (k > n) return
  const used = new Array(n).fill(false)
  const cur: unknown[] = []
  function* rec(): Generator<readonly unknown[]> {
    if (cur.length === k) { yield tuple(cur.slice()); return }
    for (let i = 0; i < n; i++) {
      if (used[i]) continue
      used[i] = true; cur.push(items[i])
      yield* rec()
      cur.pop(); used[i] = false
    }
  }
  yield* rec()
}

const ITER: Record<string, ModFn> = {
  chain: (rt, a, kw) => {
    noKw('chain', kw)
    if (anyIterator(a)) return lazyChain(rt, a)
    const out: unknown[] = []
    for (const x of a) for (const y of iterate(x, rt)) out.push(y)
    rt.chargeSlots(out.length)
    return out
  },
  'chain.from_iterable': (rt, a, kw) => {
    noKw('from_iterable', kw); arity('from_iterable', a, 1)
    if (a[0] instanceof PyIter) return lazyChainFrom(rt, a[0])
    const out: unknown[] = []
    for (const x of iterate(a[0], rt)) for (const y of iterate(x, rt)) out.push(y)
    rt.chargeSlots(out.length)
    return out
  },
  product: (rt, a, kw) => {
    const o = kwargs('product', kw, ['repeat'])
    const r = o.repeat === undefined ? 1 : Number(toInt('product', o.repeat))
    const pools: unknown[][] = []
    for (let i = 0; i < r; i++) for (const x of a) pools.push(iterate(x, rt).slice())
    guard(rt, pools.reduce((n, p) => n * p.length, 1), 'product')
    let out: unknown[][] = [[]]
    for (const p of pools) { const next: unknown[][] = []; for (const prefix of out) for (const y of p) next.push([...prefix, y]); out = next }
    return out.map((t) => tuple(t))
  },
  permutations: (rt, a, kw) => {
    noKw('permutations', kw); arity('permutations', a, 1, 2)
    const items = iterate(a[0], rt).slice()
    const k = a.length > 1 && a[1] !== null ? Number(toInt('permutations', a[1])) : items.length
    if (k < 0) valueError('r must be non-negative')
    let n = 1
    for (let i = 0; i < k; i++) n *= items.length - i
    guard(rt, Math.max(0, n), 'permutations')
    return collect(rt, 'permutations', permutations(items, k))
  },
  combinations: (rt, a, kw) => {
    noKw('combinations', kw); arity('combinations', a, 2)
    const items = iterate(a[0], rt).slice()
    const k = Number(toInt('combinations', a[1]))
    if (k < 0) valueError('r must be non-negative')
    return collect(rt, 'combinations', (function* () { for (const ix of combos(items.length, k, false)) yield tuple(ix.map((i) => items[i])) })())
  },
  combinations_with_replacement: (rt, a, kw) => {
    noKw('combinations_with_replacement', kw); arity('combinations_with_replacement', a, 2)
    const items = iterate(a[0], rt).slice()
    const k = Number(toInt('combinations_with_replacement', a[1]))
    if (k < 0) valueError('r must be non-negative')
    return collect(rt, 'combinations_with_replacement', (function* () { for (const ix of combos(items.length, k, true)) yield tuple(ix.map((i) => items[i])) })())
  },
  islice: (rt, a, kw) => {
    noKw('islice', kw); arity('islice', a, 2, 4)
    const items = a[0] instanceof PyIter ? [] : iterate(a[0], rt)
    const num = (x: unknown, what: string): number | null => {
      if (x === null || x === undefined) return null
      if (!isIntValue(x) || intOf(x) < 0) valueError(`${what} argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.`)
      return Number(intOf(x))
    }
    let start = 0, stop: number | null, step = 1
    if (a.length === 2) stop = num(a[1], 'Stop')
    else { start = num(a[1], 'Indices') ?? 0; stop = num(a[2], 'Stop'); step = a.length > 3 ? num(a[3], 'Step') ?? 1 : 1 }
    if (step === 0) valueError('Step for islice() must be a positive integer or None.')
    if (a[0] instanceof PyIter) return lazyIslice(rt, a[0], start, stop, step)
    const out: unknown[] = []
    for (let i = start; i < (stop === null ? items.length : Math.min(stop, items.length)); i += step) out.push(items[i])
    rt.chargeSlots(out.length)
    return out
  },
  zip_longest: (rt, a, kw) => {
    const o = kwargs('zip_longest', kw, ['fillvalue'])
    const lists = a.map((x) => iterate(x, rt))
    const n = Math.max(0, ...lists.map((l) => l.length))
    guard(rt, n, 'zip_longest')
    const fill = o.fillvalue === undefined ? null : o.fillvalue
    return Array.from({ length: n }, (_, i) => tuple(lists.map((l) => (i < l.length ? l[i] : fill))))
  },
  repeat: (rt, a, kw) => {
    noKw('repeat', kw)
    if (a.length === 1) return lazyRepeat(rt, a[0])
    if (a.length !== 2) typeError(`repeat expected at most 2 arguments, got ${a.length}`)
    const n = Math.max(0, Number(toInt('repeat', a[1])))
    guard(rt, n, 'repeat')
    return new Array(n).fill(a[0])
  },
  count: (rt, a, kw) => { const o = kwargs('count', kw, ['start', 'step']); arity('count', a, 0, 2); return lazyCount(rt, a[0] ?? o.start ?? 0, a[1] ?? o.step ?? 1) },
  cycle: (rt, a, kw) => { noKw('cycle', kw); arity('cycle', a, 1); return lazyCycle(rt, a[0]) },
  pairwise: (rt, a, kw) => {
    noKw('pairwise', kw); arity('pairwise', a, 1)
    const items = iterate(a[0], rt)
    const out: unknown[] = []
    for (let i = 0; i + 1 < items.length; i++) out.push(tuple([items[i], items[i + 1]]))
    rt.chargeSlots(out.length)
    return out
  },
}

/** Module functions by qualified name (read them through moduleFunction: some are joined at the first call). */
const MODULE_FUNCTIONS: Record<string, ModFn> = {
  ...Object.fromEntries(Object.entries(MATH).map(([k, f]) => [`math.${k}`, f])),
  ...Object.fromEntries(Object.entries(JSON_FNS).map(([k, f]) => [`json.${k}`, f])),
  ...Object.fromEntries(Object.entries(ITER).map(([k, f]) => [`itertools.${k}`, f])),
}

for (const name of ['compile', 'match', 'search', 'fullmatch', 'findall', 'finditer', 'sub', 'subn', 'split', 'escape']) {
  MODULE_FUNCTIONS[`re.${name}`] = (rt, a, kw) => reCall(rt, name, a, kw)
}

const MODULE_CONSTANTS: Record<string, unknown> = {
  ...Object.fromEntries(Object.entries(RE_FLAGS).map(([k, v]) => [`re.${k}`, v])),
  ...Object.fromEntries(Object.entries(MATH_CONST).map(([k, v]) => [`math.${k}`, v])),
  ...Object.fromEntries(Object.entries(STRING_CONST).map(([k, v]) => [`string.${k}`, v])),
  'json.JSONDecodeError': typeByName('JSONDecodeError'),
  'statistics.StatisticsError': typeByName('StatisticsError'),
  're.error': typeByName('error'),
}

/**
 * The tables of the modules with files of their own, joined at the first call rather than when this
 * file loads: some of them import (through builtins.ts) the files that import this one, so whichever
 * is imported first, one of them would be read before it has run.
 */
let joined = false
function join(): void {
  if (joined) return
  joined = true
  const add = (prefix: string, table: Record<string, ModFn>) => { for (const [k, f] of Object.entries(table)) MODULE_FUNCTIONS[`${prefix}.${k}`] = f }
  add('datetime', DATETIME); add('random', RANDOM); add('dataclasses', DATACLASS_FUNCTIONS); add('operator', OPERATOR_FUNCTIONS)
  add('bisect', BISECT_FUNCTIONS); add('statistics', STATISTICS_FUNCTIONS); add('fractions', FRACTION_FUNCTIONS); add('decimal', DECIMAL_FUNCTIONS)
  add('copy', COPY_FUNCTIONS)
  MODULE_CONSTANTS['datetime.timezone.utc'] = UTC
  for (const [k, v] of Object.entries(DATETIME_CONSTANTS)) MODULE_CONSTANTS[`datetime.${k}`] = v
  for (const [k, v] of Object.entries(DECIMAL_CONSTANTS)) MODULE_CONSTANTS[`decimal.${k}`] = v
  for (const k of DECIMAL_SIGNALS) MODULE_CONSTANTS[`decimal.${k}`] = typeByName(k)
}

/** A module function by qualified name (`math.sqrt`), or undefined. */
export function moduleFunction(name: string): ModFn | undefined {
  if (!joined) join()
  return MODULE_FUNCTIONS[name]
}

/** The runtime entries of modules (`py$modcall`, `py$modconst`). */
export const MODULE_RUNTIME: Record<string, (rt: PyRun, a: any[]) => unknown> = {
  modcall: (rt, a) => {
    const f = moduleFunction(a[0] as string)
    if (!f) return typeError(`${a[0] as string}() is not available`)
    return f(rt, a[1], a[2])
  },
  modconst: (rt, a) => {
    if (!joined) join()
    const v = MODULE_CONSTANTS[a[0] as string]
    // decimal's context templates are the run's own (a program may change them).
    return v !== undefined ? v : DECIMAL_RUN_CONSTANTS[a[0] as string]?.(rt)
  },
  ddtemplate: (_rt, a) => new PyFactoryTemplate(a[0]),
}

export { PySet, PyRange, PyDictView, isTuple, hashKey }

// --- collections ------------------------------------------------------------------------------

import { PyDict as Dict } from './values.ts'
import { dictUpdate } from './collections.ts'
import { DISPATCH_HELPER, PyOpaque, PyType as TypeObj, type GuestCalls } from './values.ts'
import { PyBuiltin, PyFunction, callNative } from './extended.ts'
import { keyError } from './items.ts'

const dictBody = (d: Dict, r: (v: unknown) => string, entries = [...d.map.values()]): string => `{${entries.map(([k, v]) => `${r(k)}: ${r(v)}`).join(', ')}}`

/** Entries by count, largest first (stable: first inserted first among equal counts). */
function byCount(d: Dict): Array<[unknown, unknown]> {
  return [...d.map.values()].map((e, i) => [e, i] as const).sort((a, b) => (lt(a[0][1], b[0][1]) ? 1 : lt(b[0][1], a[0][1]) ? -1 : a[1] - b[1])).map(([e]) => e)
}

export class PyCounter extends Dict {
  override get pyName(): string { return 'Counter' }
  override missing(): unknown { return 0 }
  override reprOf(r: (v: unknown) => string): string {
    return this.size ? `Counter(${dictBody(this, r, byCount(this))})` : 'Counter()'
  }
}


/** Whether a factory is one of the program's functions (or another function value) the run can call back. */
const callsBack = (f: unknown, calls: GuestCalls | null): calls is GuestCalls =>
  f instanceof PyOpaque && !(f instanceof PyFactoryTemplate) && !(f instanceof PyBuiltin) && calls !== null && typeof calls.helperWaits === 'function' && !calls.helperWaits(DISPATCH_HELPER)

export class PyDefaultDict extends Dict {
  constructor(readonly factory: unknown, readonly calls: GuestCalls | null = null) { super() }
  override get pyName(): string { return 'defaultdict' }
  override missing(key: unknown): unknown {
    if (this.factory === null) throw keyErrorOf(key)
    // defaultdict(lambda: start), defaultdict(make_bucket): the factory called back for each missing key.
    const v = callsBack(this.factory, this.calls) ? this.calls!.callHelper(DISPATCH_HELPER, [this.factory, [], null]) : makeDefault(this.factory)
    this.map.set(hashKey(key), [key, v])
    return v
  }
  override reprOf(r: (v: unknown) => string): string {
    return `defaultdict(${this.factory === null ? 'None' : r(this.factory)}, ${dictBody(this, r)})`
  }
}

export class PyOrderedDict extends Dict {
  override get pyName(): string { return 'OrderedDict' }
  override reprOf(r: (v: unknown) => string): string {
    return this.size ? `OrderedDict([${[...this.map.values()].map(([k, v]) => `(${r(k)}, ${r(v)})`).join(', ')}])` : 'OrderedDict()'
  }
}

const keyErrorOf = (key: unknown): unknown => keyError(key)

/** `dd.default_factory` and `dq.maxlen` (None when unset), as CPython's attributes; undefined for any other read. */
export function collectionAttr(x: unknown, name: string): unknown {
  if (name === 'default_factory' && x instanceof PyDefaultDict) return x.factory
  if (name === 'maxlen' && x instanceof PyDeque) return x.maxlen
  return undefined
}

/**
 * `defaultdict(lambda: {"n": 0})`: the value of a lambda that only builds a fresh value from literals
 * and constructors (checked by the lowering), made once; each missing key gets a copy of it.
 */
export class PyFactoryTemplate extends PyOpaque {
  readonly typeName = 'function'
  constructor(readonly value: unknown) { super() }
  override repr(): string { return '<function _block.<locals>.<lambda>>' }
}

function copyTemplate(v: unknown): unknown {
  if (v instanceof PyDeque) { const d = new PyDeque(); d.maxlen = v.maxlen; for (const x of v) d.push(copyTemplate(x)); return d }
  if (Array.isArray(v)) { const out = v.map(copyTemplate); return Object.isFrozen(v) ? tuple(out) : out }
  if (v instanceof PySet) { const s = new PySet(); for (const [h, x] of v.map) s.map.set(h, x); return s }
  if (v instanceof Dict) {
    const d = v instanceof PyDefaultDict ? new PyDefaultDict(v.factory, v.calls) : v instanceof PyCounter ? new PyCounter() : v instanceof PyOrderedDict ? new PyOrderedDict() : new Dict()
    for (const [h, [k, x]] of v.map) d.map.set(h, [k, copyTemplate(x)])
    return d
  }
  return v
}

function makeDefault(f: unknown): unknown {
  if (f instanceof TypeObj) {
    switch (f.name) {
      case 'int': return 0
      case 'float': return new PyFloat(0)
      case 'str': return ''
      case 'list': return []
      case 'dict': return new Dict()
      case 'set': return new PySet()
      case 'tuple': return tuple([])
      case 'bool': return false
      case 'Counter': return new PyCounter()
    }
  }
  // collections' own classes arrive as builtin values named by their module.
  if (f instanceof PyBuiltin) {
    if (f.name === 'collections.Counter') return new PyCounter()
    if (f.name === 'collections.OrderedDict') return new PyOrderedDict()
    if (f.name === 'collections.deque') return new PyDeque()
    // defaultdict(Decimal) for money totals: Decimal() is Decimal('0').
    if (f.name === 'decimal.Decimal') return new PyDecimal(ZERO_DEC)
  }
  if (f instanceof PyFactoryTemplate) return copyTemplate(f.value)
  if (f instanceof PyFunction) return typeError('defaultdict here takes a type as its factory (int, list, set, dict, str, float, Counter, ...) or a lambda that builds a value from literals and constructors alone (lambda: {"n": 0, "items": []}); other functions cannot be called from inside d[key]: use d.setdefault(key, value)')
  return typeError('first argument must be callable or None')
}

function counterAdd(rt: PyRun, c: Dict, src: unknown, sign: 1 | -1): void {
  if (src instanceof Dict) {
    for (const [k, v] of src.map.values()) { const h = hashKey(k); const cur = c.map.get(h); c.map.set(h, [cur ? cur[0] : k, sign === 1 ? add(rt, cur ? cur[1] : 0, v) : add(rt, cur ? cur[1] : 0, mul(rt, v, -1))]) }
    return
  }
  for (const k of iterate(src, rt)) { const h = hashKey(k); const cur = c.map.get(h); c.map.set(h, [cur ? cur[0] : k, add(rt, cur ? cur[1] : 0, sign)]) }
}

function counter(rt: PyRun, a: unknown[], kw: PyDict | null): PyCounter {
  if (a.length > 1) typeError(`expected at most 1 argument, got ${a.length}`)
  const c = new PyCounter()
  if (a.length && a[0] !== null) counterAdd(rt, c, a[0], 1)
  if (kw) counterAdd(rt, c, kw, 1)
  return c
}

/** Counter, defaultdict and OrderedDict methods beyond dict's (undefined: use dict's). */
export function collectionMethod(rt: PyRun, d: Dict, name: string, a: unknown[], kw: PyDict | null): unknown {
  if (d instanceof PyCounter) {
    switch (name) {
      case 'most_common': {
        const all = byCount(d)
        const n = a.length && a[0] !== null ? Math.max(0, Number(toInt('most_common', a[0]))) : all.length
        return all.slice(0, n).map(([k, v]) => tuple([k, v]))
      }
      case 'elements': { const out: unknown[] = []; for (const [k, v] of d.map.values()) for (let i = 0; i < Number(v); i++) out.push(k); guard(rt, out.length, 'elements'); return out }
      case 'total': { let t: unknown = 0; for (const [, v] of d.map.values()) t = add(rt, t, v); return t }
      case 'update': if (a.length) counterAdd(rt, d, a[0], 1); if (kw) counterAdd(rt, d, kw, 1); return null
      case 'subtract': if (a.length) counterAdd(rt, d, a[0], -1); if (kw) counterAdd(rt, d, kw, -1); return null
      case 'copy': { const c = new PyCounter(); dictUpdate(rt, c, d); return c }
    }
  }
  if (d instanceof PyOrderedDict) {
    switch (name) {
      case 'move_to_end': {
        const h = hashKey(a[0])
        const e = d.map.get(h)
        if (!e) throw keyErrorOf(a[0])
        const last = kw?.map.get('last')?.[1] ?? a[1] ?? true
        d.map.delete(h)
        if (last) d.map.set(h, e)
        else { const rest = [...d.map]; d.map.clear(); d.map.set(h, e); for (const [k, v] of rest) d.map.set(k, v) }
        return null
      }
      case 'copy': { const c = new PyOrderedDict(); dictUpdate(rt, c, d); return c }
      case 'popitem': {
        const last = kw?.map.get('last')?.[1] ?? a[0] ?? true
        if (!d.size) throw keyErrorOf('dictionary is empty')
        const keys = [...d.map.keys()]
        const h = last ? keys[keys.length - 1] : keys[0]
        const [k, v] = d.map.get(h)!
        d.map.delete(h)
        return tuple([k, v])
      }
    }
  }
  if (d instanceof PyDefaultDict && name === 'copy') { const c = new PyDefaultDict(d.factory, d.calls); dictUpdate(rt, c, d); return c }
  return undefined
}

/** Counter + Counter, Counter - Counter (positive counts kept). */
export function counterArith(rt: PyRun, op: string, a: unknown, b: unknown): unknown {
  if (!(a instanceof PyCounter) || !(b instanceof PyCounter)) return undefined
  const c = new PyCounter()
  if (op === '+' || op === '-') {
    counterAdd(rt, c, a, 1)
    counterAdd(rt, c, b, op === '+' ? 1 : -1)
    for (const [h, [, v]] of [...c.map]) if (!lt(0, v)) c.map.delete(h)
    return c
  }
  if (op === '&' || op === '|') {
    // Counter.__and__ / __or__: the smaller / larger count of each element, kept when positive.
    for (const [h, [k, v]] of a.map) {
      const other = b.map.get(h)
      const w = other ? other[1] : 0
      const n = op === '&' ? (lt(v, w) ? v : w) : (lt(v, w) ? w : v)
      if (lt(0, n)) c.map.set(h, [k, n])
    }
    if (op === '|') for (const [h, [k, v]] of b.map) if (!a.map.has(h) && lt(0, v)) c.map.set(h, [k, v])
    return c
  }
  return undefined
}

const COLLECTIONS: Record<string, ModFn> = {
  Counter: counter,
  defaultdict: (rt, a, kw) => {
    if (a.length > 2) typeError('defaultdict takes at most 2 positional arguments here')
    const f = a.length ? a[0] : null
    const calls = rt as unknown as GuestCalls
    if (f !== null && !callsBack(f, calls)) makeDefault(f)
    const d = new PyDefaultDict(f, calls)
    if (a.length > 1) dictUpdate(rt, d, a[1])
    if (kw) dictUpdate(rt, d, kw)
    return d
  },
  namedtuple,
  deque: (rt, a, kw) => {
    const o = kwargs('deque', kw, ['iterable', 'maxlen'])
    if (a.length > 2) typeError(`deque() takes at most 2 arguments (${a.length} given)`)
    const src = a.length ? a[0] : o.iterable
    const maxlen = a.length > 1 ? a[1] : o.maxlen
    const d = new PyDeque()
    if (maxlen !== undefined && maxlen !== null) {
      if (!isIntValue(maxlen)) typeError('an integer is required')
      if (intOf(maxlen) < 0) valueError('maxlen must be non-negative')
      d.maxlen = Number(intOf(maxlen))
    }
    if (src !== undefined && src !== null) { const xs = iterate(src, rt); rt.chargeSlots(xs.length); for (const x of xs) d.push(x) }
    if (d.maxlen !== null) while (d.length > d.maxlen) d.shift()
    return d
  },
  OrderedDict: (rt, a, kw) => {
    if (a.length > 1) typeError(`expected at most 1 arguments, got ${a.length}`)
    const d = new PyOrderedDict()
    if (a.length) dictUpdate(rt, d, a[0])
    if (kw) dictUpdate(rt, d, kw)
    return d
  },
}
for (const [k, f] of Object.entries(COLLECTIONS)) MODULE_FUNCTIONS[`collections.${k}`] = f
MODULE_FUNCTIONS['functools.partial'] = (_rt, a, kw) => partial(a, kw)
