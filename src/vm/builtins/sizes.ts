/**
 * Size and work accounting shared by the builtins: every native call that
 * reads or builds many items is charged and checked against `maxHeapBytes`
 * here, before it runs, so no single host call can do unpaid work or build a
 * value over the limit. Costs are documented in docs/security.md.
 */
import type { Run } from '../runtime.ts'
import { VmError, vmError } from '../errors.ts'
import type { RuntimeCode } from '../../diagnostics/runtime-codes.ts'
import { ENTRY_BYTES, PROP_BYTES, SCAN_COST, SLOT_COST } from '../fuel.ts'

/**
 * Items past which one native call is long enough (a millisecond or more) to
 * look at the clock before it: a loop of such calls meets its deadline even
 * when the budget is huge, instead of only every 1,024 iterations.
 */
export const LONG_CALL_ITEMS = 1 << 16

/** Charge for a native scan over `n` elements or characters (and check the deadline before a long one). */
export function chargeScan(rt: Run, n: number): void {
  if (n > 0) rt.charge(n * SCAN_COST)
  if (n >= LONG_CALL_ITEMS) rt.checkTime()
}

/**
 * Texts up to this many characters are converted to a number or compared unpaid: the operator's own
 * node cost covers them (every pinned workload's texts are this short).
 */
export const FREE_TEXT_CHARS = 64

/**
 * A text about to be read whole by a native conversion or comparison (ToNumber in `s * 1`, `+s`,
 * `Math.abs(s)`, `a.at(s)`; `s < t`; `s === t` of one length): SCAN_COST per character and a tick,
 * before the native operation. Callers test `s.length > FREE_TEXT_CHARS` first (the cheap path).
 */
export function chargeText(rt: Run, s: string): void {
  if (s.length <= FREE_TEXT_CHARS) return
  chargeScan(rt, s.length)
  rt.tick()
}

/**
 * Longest text a property key may be. V8 hashes a longer text by its length alone
 * (String::kMaxHashCalcLength), so every key, `in` or Set entry of one length lands in one bucket and
 * each new one is compared with all the others: 1,000 keys of 100,000 characters took 10 to 18 s
 * in Node. Shorter keys are hashed whole, paid per character below.
 */
export const MAX_KEY_CHARS = 16_383

/**
 * A text over FREE_TEXT_CHARS about to be a property key (`o[s]`, `o[s] = v`, `s in o`, `delete o[s]`,
 * `{ [s]: v }`): hashed and compared whole, so paid as chargeText; longer than MAX_KEY_CHARS, refused.
 * Callers test the length first (the cheap path).
 */
export function chargeKey(rt: Run, s: string): void {
  if (s.length > MAX_KEY_CHARS) throw vmError('RANGE_ERROR', `A property key may be at most ${MAX_KEY_CHARS} characters (this one has ${s.length}): use a shorter key`)
  chargeText(rt, s)
}

/** The long texts among `args` (at `positions`, or all) are about to be converted to numbers by a native call. */
export function chargeTextArgs(rt: Run, args: readonly unknown[], positions?: readonly number[]): void {
  if (positions) {
    for (const i of positions) { const a = args[i]; if (typeof a === 'string' && a.length > FREE_TEXT_CHARS) chargeText(rt, a) }
    return
  }
  for (let i = 0; i < args.length; i++) { const a = args[i]; if (typeof a === 'string' && a.length > FREE_TEXT_CHARS) chargeText(rt, a) }
}

/**
 * `x` is about to be compared (===, SameValueZero) with each of `items` by a native call (`a.includes(x)`,
 * `a.indexOf(x)`, `Object.is(x, y)`): a long text is read whole against each text of its length (texts
 * of other lengths differ at once), so it pays its length for each of those first.
 */
export function chargeTextMatches(rt: Run, items: readonly unknown[], x: unknown): void {
  if (typeof x !== 'string' || x.length <= FREE_TEXT_CHARS) return
  let same = 0
  for (let i = 0; i < items.length; i++) { const e = items[i]; if (typeof e === 'string' && e.length === x.length) same++ }
  if (same > 0) { chargeScan(rt, same * x.length); rt.tick() }
}

/** The long texts among `items` are about to be hashed and compared whole (`new Set(items)` in the Set helpers): their characters, first. */
export function chargeTexts(rt: Run, items: readonly unknown[]): void {
  let chars = 0
  for (let i = 0; i < items.length; i++) { const e = items[i]; if (typeof e === 'string' && e.length > FREE_TEXT_CHARS) chars += e.length }
  if (chars > 0) { chargeScan(rt, chars); rt.tick() }
}

/** An object with `n` new properties is about to be built: heap check, then SLOT_COST each. */
export function chargeProps(rt: Run, n: number): void {
  if (n * PROP_BYTES > rt.maxHeapBytes) rt.heapLimit(n * PROP_BYTES)
  rt.charge(n * SLOT_COST)
}

/** `n` `[key, value]` pairs are about to be built (`entries()`, `Object.entries`). */
export function chargeEntries(rt: Run, n: number): void {
  if (n * ENTRY_BYTES > rt.maxHeapBytes) rt.heapLimit(n * ENTRY_BYTES)
  rt.charge(3 * n * SLOT_COST)
}

/** A string of `chars` characters is about to be built: HEAP_LIMIT first if it cannot fit. */
export function checkChars(rt: Run, chars: number): void {
  if (!(chars <= rt.maxStringLength)) rt.heapLimit(Number.isFinite(chars) ? chars * 2 : Number.MAX_SAFE_INTEGER)
}

/**
 * Run a native operation that may throw a host error (RangeError, URIError)
 * and report that as `code` (a TypeError as TYPE_ERROR). VM errors (fuel, heap, time) pass through
 * untouched: no builtin may turn a fatal error into a catchable one.
 */
export function nativeOp<T>(code: RuntimeCode, fn: () => T, message?: string): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof VmError) throw e
    // A TypeError is one whatever the call (an argument that cannot be converted: coerce.ts argPrim).
    throw e instanceof TypeError ? vmError('TYPE_ERROR', e.message) : vmError(code, message ?? (e as Error).message)
  }
}

/** Worst-case growth of a string transform: normalization forms and case mapping. */
export const EXPANSION: Readonly<Record<string, number>> = { NFC: 3, NFD: 4, NFKC: 18, NFKD: 18, case: 3 }

const WINDOW = 65_536

/**
 * Apply a length-changing string transform without ever building a result
 * over the limit: when the worst case could exceed it, the input is cut
 * before spaces or line ends (where no normalization or case-mapping context
 * crosses), each piece transformed and the running length checked.
 */
export function mapBounded(rt: Run, s: string, factor: number, fn: (x: string) => string): string {
  if (s.length * factor <= rt.maxStringLength) return fn(s)
  const parts: string[] = []
  let total = 0
  let i = 0
  const window = Math.max(16, Math.min(WINDOW, Math.floor(rt.maxStringLength / factor)))
  while (i < s.length) {
    let j = Math.min(s.length, i + window)
    if (j < s.length) {
      let k = j
      while (k > i + 1 && s.charCodeAt(k) !== 32 && s.charCodeAt(k) !== 10) k--
      if (k > i + 1) j = k
      else if ((s.charCodeAt(j - 1) & 0xfc00) === 0xd800) j-- // never split a surrogate pair
    }
    const out = fn(s.slice(i, j))
    total += out.length
    checkChars(rt, total)
    rt.tick()
    parts.push(out)
    i = j
  }
  return parts.join('')
}
