/**
 * Allowlisted instance methods of strings, arrays, numbers, booleans,
 * regexes and objects. Anything not listed here cannot be called: there is
 * no `call`/`apply`/`bind`, no `constructor`, and no way to obtain a host
 * function. Methods that build values charge allocation; methods that could
 * build huge values check the size before building.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { isForbiddenKey, setProp } from '../guards.ts'
import type { GuardedRegex } from './regex.ts'
import { isRegex, regexSupport } from './regex-hook.ts'
import { stringReplace } from './replace.ts'
import { indexFrom, lastIndexFrom, splitText } from './text-search.ts'
import { localeCase, localeCompare, numberLocaleString } from './collate.ts'
import { EXPANSION, FREE_TEXT_CHARS, chargeEntries, chargeKey, chargeScan, chargeText, chargeTextArgs, chargeTextMatches, checkChars, mapBounded, nativeOp } from './sizes.ts'
import { SLOT_BYTES } from '../fuel.ts'
import { argPrim, guestString, joinGuest, objectText, primArgs } from './coerce.ts'

type Method<T> = (rt: Run, self: T, args: any[]) => unknown

const str = (rt: Run, s: string) => rt.chargeString(s)
const arrOut = (rt: Run, a: unknown[]) => { rt.chargeSlots(a.length); return a }

function checkRepeat(rt: Run, unit: number, count: number): void {
  const total = unit * count
  // A negative count (-Infinity included) builds nothing: padStart(-Infinity) is the string itself, as in JS.
  if (!(total * 2 <= rt.maxHeapBytes)) rt.heapLimit(Number.isFinite(total) ? total * 2 : Number.MAX_SAFE_INTEGER)
}

/** An empty filler adds nothing, whatever the length ('x'.padStart(1e21, '') is 'x', as in JS). */
const checkPad = (rt: Run, n: unknown, fill: unknown) => { if (fill !== '') checkRepeat(rt, 1, Number(n) || 0) }

/** includes / startsWith / endsWith take text: a regex there is JavaScript's TypeError, not its source text. */
const text = (x: unknown) => {
  if (isRegex(x)) throw vmError('TYPE_ERROR', 'The first argument must not be a regular expression (use test or search)')
  return String(x)
}

const lower = (x: string) => x.toLowerCase()
const upper = (x: string) => x.toUpperCase()
const CASE_GROWTH = EXPANSION.case!

/** Own keys as JavaScript has them (a string's and an array's indices and length, an object's properties), never a forbidden name. */
function hasOwnProperty(rt: Run, o: object | string, [k]: unknown[]): boolean {
  const key = String(k)
  if (key.length > FREE_TEXT_CHARS) chargeKey(rt, key)
  return !isForbiddenKey(key) && Object.prototype.hasOwnProperty.call(o, key)
}

/** Whether the character at `i` of a long text is white space or a line end (trim's set: 'x'.trim() is '' for it). */
const blankAt = (s: string, i: number): boolean => s.length > FREE_TEXT_CHARS && s.charAt(i).trim() === ''

const STRING_METHODS: Record<string, Method<string>> = {
  hasOwnProperty,
  at: (_rt, s, [i]) => s.at(i),
  charAt: (_rt, s, [i]) => s.charAt(i),
  charCodeAt: (_rt, s, [i]) => s.charCodeAt(i),
  codePointAt: (_rt, s, [i]) => s.codePointAt(i),
  concat: (rt, s, a) => {
    const parts = a.map(String)
    checkChars(rt, parts.reduce((n, p) => n + p.length, s.length))
    return str(rt, s.concat(...parts))
  },
  endsWith: (rt, s, [x, n]) => { chargeScan(rt, s.length); return s.endsWith(text(x), n) },
  startsWith: (rt, s, [x, n]) => { chargeScan(rt, s.length); return s.startsWith(text(x), n) },
  // A pattern over 64 characters is searched in linear time (text-search.ts), the engine's search being quadratic at worst.
  includes: (rt, s, [x, n]) => { chargeScan(rt, s.length); const t = text(x); return t.length > FREE_TEXT_CHARS ? indexFrom(rt, s, t, n) >= 0 : s.includes(t, n) },
  indexOf: (rt, s, [x, n]) => { chargeScan(rt, s.length); const t = String(x); return t.length > FREE_TEXT_CHARS ? indexFrom(rt, s, t, n) : s.indexOf(t, n) },
  lastIndexOf: (rt, s, [x, n]) => { chargeScan(rt, s.length); const t = String(x); return t.length > FREE_TEXT_CHARS ? lastIndexFrom(rt, s, t, n) : s.lastIndexOf(t, n) },
  // Its locales and options reach Intl.Collator as given (RAW_ARGS; checked small there): only the string compared is converted here.
  localeCompare: (rt, s, [x, locales, options]) => localeCompare(rt, s, guestString(rt, x), locales, options),
  normalize: (rt, s, [form]) => {
    const f = form === undefined ? 'NFC' : String(form)
    if (!Object.prototype.hasOwnProperty.call(EXPANSION, f) || f === 'case') throw vmError('RANGE_ERROR', `The normalization form should be one of NFC, NFD, NFKC, NFKD`)
    return str(rt, mapBounded(rt, s, EXPANSION[f]!, (x) => x.normalize(f)))
  },
  padStart: (rt, s, [n, fill]) => { checkPad(rt, n, fill); return str(rt, s.padStart(n, fill)) },
  padEnd: (rt, s, [n, fill]) => { checkPad(rt, n, fill); return str(rt, s.padEnd(n, fill)) },
  repeat: (rt, s, [n]) => {
    // JS's ToIntegerOrInfinity: a fraction is cut first ('ab'.repeat(-0.5) is '').
    const count = Math.trunc(n) || 0
    if (count < 0 || count === Infinity) throw vmError('RANGE_ERROR', `Invalid count value: ${count}`)
    checkRepeat(rt, s.length, count)
    return str(rt, s.repeat(count))
  },
  slice: (rt, s, [a, b]) => str(rt, s.slice(a, b)),
  substring: (rt, s, [a, b]) => str(rt, s.substring(a, b)),
  substr: (rt, s, [a, b]) => str(rt, s.substr(a, b)),
  toLowerCase: (rt, s) => str(rt, mapBounded(rt, s, CASE_GROWTH, lower)),
  toUpperCase: (rt, s) => str(rt, mapBounded(rt, s, CASE_GROWTH, upper)),
  toLocaleLowerCase: (rt, s, [locales]) => str(rt, mapBounded(rt, s, CASE_GROWTH, locales === undefined ? lower : localeCase(rt, locales, false))),
  toLocaleUpperCase: (rt, s, [locales]) => str(rt, mapBounded(rt, s, CASE_GROWTH, locales === undefined ? upper : localeCase(rt, locales, true))),
  // The result is paid as built; white space read past (all of ' '.repeat(3e7) + '1') is paid first, the
  // text's length when the end trimmed is white space (else the native call reads one character).
  trim: (rt, s) => { if (blankAt(s, 0) || blankAt(s, s.length - 1)) chargeText(rt, s); return str(rt, s.trim()) },
  trimStart: (rt, s) => { if (blankAt(s, 0)) chargeText(rt, s); return str(rt, s.trimStart()) },
  trimEnd: (rt, s) => { if (blankAt(s, s.length - 1)) chargeText(rt, s); return str(rt, s.trimEnd()) },
  toString: (_rt: Run, s: string) => s,
  toLocaleString: (_rt: Run, s: string) => s,
  valueOf: (_rt: Run, s: string) => s,
  split: (rt, s, [sep, limit]) => {
    if (isRegex(sep)) return arrOut(rt, regexSupport().split(rt, sep, s, limit))
    // The limit bounds the native result: one item past the heap ceiling proves it too large.
    const maxItems = Math.floor(rt.maxHeapBytes / SLOT_BYTES)
    const lim = limit === undefined ? maxItems + 1 : Math.min(limit >>> 0, maxItems + 1)
    chargeScan(rt, s.length)
    const t = sep === undefined ? undefined : String(sep)
    return arrOut(rt, t !== undefined && t.length > FREE_TEXT_CHARS ? splitText(rt, s, t, lim) : s.split(t as string, lim))
  },
  match: (rt, s, [p]) => { const r = regexSupport(); return r.match(rt, r.from(p), s) },
  // A pattern given as text becomes a g regex, as in JS ('a.b'.matchAll('.') matches every character).
  matchAll: (rt, s, [p]) => { const r = regexSupport(); return arrOut(rt, r.matchAll(rt, r.from(p, 'g'), s)) },
  search: (rt, s, [p]) => { const r = regexSupport(); return r.search(rt, r.from(p), s) },
  // A replacement that is not a string is converted, as in JavaScript ('%d items'.replace('%d', 5)); it
  // cannot be a function (guest values never are: callbacks are refused when compiled, AJS2013).
  replace: (rt, s, [p, x]) => {
    const r = String(x)
    if (isRegex(p)) return str(rt, regexSupport().replace(rt, p, s, r, false))
    return str(rt, stringReplace(rt, s, String(p), r, false))
  },
  replaceAll: (rt, s, [p, x]) => {
    const r = String(x)
    if (isRegex(p)) {
      if (!p.flags.includes('g')) throw vmError('TYPE_ERROR', 'replaceAll needs a regex with the g flag')
      return str(rt, regexSupport().replace(rt, p, s, r, true))
    }
    return str(rt, stringReplace(rt, s, String(p), r, true))
  },
}

function flatDepth(rt: Run, a: unknown[], depth: number): unknown[] {
  const out: unknown[] = []
  // Shared references repeat work and items: the running size is checked and charged per array visited.
  const maxItems = Math.floor(rt.maxHeapBytes / SLOT_BYTES)
  const walk = (xs: unknown[], d: number) => {
    rt.chargeSlots(xs.length)
    rt.tick()
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]
      if (x === undefined && !(i in xs)) continue // a hole (a[5] = v, length growth, delete) is skipped, as JS's flat does
      if (Array.isArray(x) && d > 0) walk(x, d - 1)
      else if (out.push(x) > maxItems) rt.heapLimit(out.length * SLOT_BYTES)
    }
  }
  walk(a, Math.min(depth, 100))
  return out
}

/** n log n comparisons, charged as a scan before the native sort runs. */
function chargeSort(rt: Run, n: number): void {
  chargeScan(rt, n * Math.ceil(Math.log2(n + 1)))
}

/** Without a callback (those run in array-hof.ts) the comparator given can only be data: JS's TypeError unless undefined. */
function defaultCompare(rt: Run, given: unknown): (a: unknown, b: unknown) => number {
  if (given !== undefined) throw vmError('TYPE_ERROR', 'The comparator must be a function or undefined')
  return (a, b) => {
    if (a === undefined) return b === undefined ? 0 : 1
    if (b === undefined) return -1
    const x = guestString(rt, a), y = guestString(rt, b)
    // Two long texts are read up to the shorter one's length (each comparison, paid first).
    if (x.length > FREE_TEXT_CHARS && y.length > FREE_TEXT_CHARS) chargeText(rt, x.length < y.length ? x : y)
    return x < y ? -1 : x > y ? 1 : 0
  }
}

const ARRAY_METHODS: Record<string, Method<unknown[]>> = {
  hasOwnProperty,
  at: (_rt, a, [i]) => a.at(i),
  concat: (rt, a, xs) => {
    // The result's size first: many references to one large array must not be built to be refused.
    rt.chargeSlots(xs.reduce((n: number, x) => n + (Array.isArray(x) ? x.length : 1), a.length))
    return a.concat(...xs)
  },
  includes: (rt, a, [x, n]) => { chargeScan(rt, a.length); chargeTextMatches(rt, a, x); return a.includes(x, n) },
  indexOf: (rt, a, [x, n]) => { chargeScan(rt, a.length); chargeTextMatches(rt, a, x); return a.indexOf(x, n) },
  // Spread: an explicit undefined position is 0 in JS ([1, 2, 1].lastIndexOf(1, undefined) is 0), a missing one the end.
  lastIndexOf: (rt, a, args) => { chargeScan(rt, a.length); chargeTextMatches(rt, a, args[0]); return (a.lastIndexOf as any)(...args) },
  join: (rt, a, [sep]) => {
    rt.charge(a.length * 10)
    return str(rt, joinGuest(rt, a, sep === undefined ? ',' : guestString(rt, sep)))
  },
  slice: (rt, a, [s, e]) => arrOut(rt, a.slice(s, e)),
  push: (rt, a, xs) => { rt.chargeSlots(xs.length); if (Object.isFrozen(a)) throw vmError('TYPE_ERROR', 'Cannot push to a read-only array'); return a.push(...xs) },
  pop: (_rt, a) => a.pop(),
  shift: (rt, a) => { chargeScan(rt, a.length); return a.shift() },
  unshift: (rt, a, xs) => { rt.chargeSlots(a.length + xs.length); return a.unshift(...xs) },
  splice: (rt, a, args) => { rt.chargeSlots(a.length); return (a.splice as any)(...args) },
  // A copy spliced (Array.from: a hole becomes undefined, as JS's toSpliced makes it), on hosts without it too.
  toSpliced: (rt, a, args) => { rt.chargeSlots(a.length + args.length); const c = Array.from(a); (c.splice as any)(...args); return c },
  reverse: (rt, a) => { rt.chargeSlots(a.length); return a.reverse() },
  toReversed: (rt, a) => arrOut(rt, a.slice().reverse()),
  fill: (rt, a, [v, s, e]) => { rt.chargeSlots(a.length); return a.fill(v, s, e) },
  // A fractional depth is cut first, as JS's ToIntegerOrInfinity does (flat(1.5) is flat(1)).
  flat: (rt, a, [d]) => flatDepth(rt, a, d === undefined ? 1 : Math.trunc(d)),
  sort: (rt, a, [c]) => { rt.chargeSlots(a.length); chargeSort(rt, a.length); return a.sort(defaultCompare(rt, c)) },
  toSorted: (rt, a, [c]) => { rt.chargeSlots(a.length); chargeSort(rt, a.length); return a.slice().sort(defaultCompare(rt, c)) },
  with: (rt, a, [i, v]) => {
    rt.chargeSlots(a.length)
    return nativeOp('RANGE_ERROR', () => a.with(i, v))
  },
  keys: (rt, a) => { rt.chargeSlots(a.length); return [...a.keys()] },
  entries: (rt, a) => { chargeEntries(rt, a.length); return [...a.entries()] },
  values: (rt, a) => arrOut(rt, a.slice()),
  toString: (rt: Run, a: unknown[]) => str(rt, joinGuest(rt, a, ',')),
  // Each number, at any depth, in the locale given (JavaScript calls every item's toLocaleString).
  toLocaleString: (rt: Run, a: unknown[], [locales, options]: unknown[]) => str(rt, joinGuest(rt, a, ',', (n) => numberLocaleString(rt, n, locales, options))),
}

const NUMBER_METHODS: Record<string, Method<number>> = {
  toFixed: (_rt, n, [d]) => nativeOp('RANGE_ERROR', () => n.toFixed(d)),
  toPrecision: (_rt, n, [d]) => nativeOp('RANGE_ERROR', () => n.toPrecision(d)),
  toExponential: (_rt, n, [d]) => nativeOp('RANGE_ERROR', () => n.toExponential(d)),
  toString: (_rt: Run, n: number, [radix]: any[]) => nativeOp('RANGE_ERROR', () => n.toString(radix)),
  toLocaleString: (rt: Run, n: number, [locales, options]: unknown[]) => numberLocaleString(rt, n, locales, options),
  valueOf: (_rt: Run, n: number) => n,
}

const BOOLEAN_METHODS: Record<string, Method<boolean>> = {
  toString: (_rt: Run, b: boolean) => String(b),
  toLocaleString: (_rt: Run, b: boolean) => String(b),
  valueOf: (_rt: Run, b: boolean) => b,
}

const REGEX_METHODS: Record<string, Method<GuardedRegex>> = {
  test: (rt, re, [s]) => regexSupport().test(rt, re, s),
  exec: (rt, re, [s]) => regexSupport().exec(rt, re, s),
  toString: (_rt: Run, re: GuardedRegex) => re.toString(),
  toLocaleString: (_rt: Run, re: GuardedRegex) => re.toString(),
}

const OBJECT_METHODS: Record<string, Method<Record<string, unknown>>> = {
  hasOwnProperty,
  toString: () => '[object Object]',
  // JavaScript's calls the object's toString: an own `toString` (data) fails as it does.
  toLocaleString: (_rt: Run, o: object) => objectText(o),
}

export const INSTANCE_METHOD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(STRING_METHODS), ...Object.keys(ARRAY_METHODS), ...Object.keys(NUMBER_METHODS),
  ...Object.keys(BOOLEAN_METHODS), ...Object.keys(REGEX_METHODS), ...Object.keys(OBJECT_METHODS),
])

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : isRegex(v) ? 'regex' : typeof v
}

/**
 * Arguments the native method would coerce (indices, counts, separators,
 * every argument of a string/number method) are converted by the guarded
 * ToPrimitive first; array elements being stored (push, fill's value, ...)
 * are left alone.
 */
/** String and number methods whose arguments are not converted first: their locales and options reach Intl as given (collate.ts checks them small). */
const RAW_ARGS: ReadonlySet<string> = new Set(['localeCompare', 'toLocaleLowerCase', 'toLocaleUpperCase', 'toLocaleString'])

const ARRAY_COERCED: Record<string, readonly number[]> = {
  at: [0], slice: [0, 1], fill: [1, 2], with: [0], splice: [0, 1], toSpliced: [0, 1], includes: [1], indexOf: [1], lastIndexOf: [1], flat: [0], hasOwnProperty: [0],
}

/**
 * Argument positions a string method converts to a number natively (`s.at(t)`, `s.slice(t)`): a long
 * text there is paid per character first (sizes.ts chargeText). A number method converts all of its
 * arguments (`toFixed(t)`), an array method those of ARRAY_COERCED but a key (hasOwnProperty).
 */
const STRING_NUMBER_ARGS: Record<string, readonly number[]> = {
  at: [0], charAt: [0], charCodeAt: [0], codePointAt: [0], padStart: [0], padEnd: [0], repeat: [0], slice: [0, 1], substring: [0, 1], substr: [0, 1],
  endsWith: [1], startsWith: [1], includes: [1], indexOf: [1], lastIndexOf: [1], split: [1],
}

function coerceArgs(rt: Run, isArray: boolean, method: string, args: unknown[]): unknown[] {
  if (!isArray) return primArgs(rt, args)
  const positions = Object.prototype.hasOwnProperty.call(ARRAY_COERCED, method) ? ARRAY_COERCED[method]! : undefined
  if (!positions) return args
  let out = args
  for (const i of positions) {
    const a = args[i]
    if (typeof a === 'object' && a !== null) {
      if (out === args) out = args.slice()
      out[i] = argPrim(rt, a)
    }
  }
  return out
}

type Dispatch = (rt: Run, target: unknown, args: unknown[]) => unknown

/**
 * A call site's dispatcher: `method` is known at compile time, so the
 * implementation for each receiver type is looked up once, not per call.
 */
export function methodDispatcher(method: string): Dispatch {
  const own = <T>(table: Record<string, Method<T>>) => (Object.prototype.hasOwnProperty.call(table, method) ? table[method] : undefined)
  const onString = own(STRING_METHODS), onArray = own(ARRAY_METHODS), onNumber = own(NUMBER_METHODS)
  const onBoolean = own(BOOLEAN_METHODS), onRegex = own(REGEX_METHODS), onObject = own(OBJECT_METHODS)
  const arrayCoerced = Object.prototype.hasOwnProperty.call(ARRAY_COERCED, method)
  const missing = (target: unknown): never => {
    if (target === null || target === undefined) {
      throw vmError('TYPE_ERROR', `Cannot read properties of ${typeName(target)} (calling "${method}")`)
    }
    // A method of another type on this value is a wrong type (JS: "x.trim is not a function"), not a forbidden method.
    const owners = ([['string', onString], ['array', onArray], ['number', onNumber], ['boolean', onBoolean], ['RegExp', onRegex], ['object', onObject]] as const)
      .filter(([, m]) => m !== undefined).map(([name]) => name)
    if (owners.length > 0) {
      const err = vmError('TYPE_ERROR', `${method} is ${owners.length === 1 ? `a${/^[aeiou]/i.test(owners[0]!) ? 'n' : ''} ${owners[0]} method` : `a method of ${owners.join(', ')} values`}, but the value is ${typeName(target) === 'array' || typeName(target) === 'object' ? 'an' : 'a'} ${typeName(target)} (${typeName(target)}.${method} does not exist)`)
      err.hint = `Convert the value first (e.g. String(x).${method}(...)), or check that it has the type you expect.`
      throw err
    }
    throw vmError('METHOD_NOT_ALLOWED', `${typeName(target)}.${method} is not available`)
  }
  const primOrRaw = RAW_ARGS.has(method) ? (_rt: Run, a: unknown[]) => a : primArgs
  const stringNumbers = Object.prototype.hasOwnProperty.call(STRING_NUMBER_ARGS, method) ? STRING_NUMBER_ARGS[method] : undefined
  const arrayNumbers = arrayCoerced && method !== 'hasOwnProperty' ? ARRAY_COERCED[method] : undefined
  const numberNumbers = !RAW_ARGS.has(method)
  return (rt, target, args) => {
    if (typeof target === 'string') {
      if (!onString) return missing(target)
      const a = primOrRaw(rt, args)
      if (stringNumbers) chargeTextArgs(rt, a, stringNumbers)
      return onString(rt, target, a)
    }
    if (typeof target === 'object' && target !== null) {
      if (Array.isArray(target)) {
        if (!onArray) return missing(target)
        if (!arrayCoerced) return onArray(rt, target, args)
        const a = coerceArgs(rt, true, method, args)
        if (arrayNumbers) chargeTextArgs(rt, a, arrayNumbers)
        return onArray(rt, target, a)
      }
      const m = isRegex(target) ? onRegex : onObject
      // An own property of the method's name (data: never a function) hides it, as in JS ({ toString: 1 }.toString()).
      if (m === onObject && Object.prototype.hasOwnProperty.call(target, method)) throw vmError('TYPE_ERROR', `${method} is not a function: the object has its own "${method}"`)
      return m ? (m as Method<unknown>)(rt, target, primArgs(rt, args)) : missing(target)
    }
    if (typeof target === 'number') {
      if (!onNumber) return missing(target)
      const a = primOrRaw(rt, args)
      if (numberNumbers && a.length > 0) chargeTextArgs(rt, a)
      return onNumber(rt, target, a)
    }
    if (typeof target === 'boolean') return onBoolean ? onBoolean(rt, target, primArgs(rt, args)) : missing(target)
    return missing(target)
  }
}

export { setProp }
