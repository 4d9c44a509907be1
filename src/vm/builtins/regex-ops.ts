/**
 * Every regex operation the guest can perform, on one of two engines: the
 * host's RegExp while the input is within the pattern's backtracking budget
 * (exact JavaScript behaviour, fastest), the metered linear engine beyond it
 * (or always, for patterns whose backtracking is exponential). Results are
 * plain arrays/strings carrying JavaScript's `index`, `input` and `groups`,
 * never host RegExp objects.
 *
 * Matches are visited one at a time (never collected by the host engine in
 * one call), each one charged and counted against `maxHeapBytes` before the
 * result grows, so `match(/a?/g)` on millions of characters or a `$\``
 * replacement stops with HEAP_LIMIT before the memory is allocated.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { SLOT_COST } from '../fuel.ts'
import { guestString } from './coerce.ts'
import { chargeScan } from './sizes.ts'
import { GuardedRegex, MAX_LINEAR_INPUT } from './regex.ts'
import type { LinearMatch } from './linear-regex.ts'
import { literalBound, replaceMatches, type Match } from './replace.ts'

/** Micro-fuel per live thread per input position on the linear engine. */
const THREAD_STEP_COST = 10
/** Bytes a result array slot holds (the heap estimate used by `chargeSlots`). */
const SLOT_BYTES = 8
/** Extra slots of a match array: `index`, `input`, `groups`. */
const MATCH_EXTRA_SLOTS = 3

function text(rt: Run, s: unknown): string {
  return typeof s === 'string' ? s : guestString(rt, s)
}

/**
 * Worst-case backtracking steps past which one host-engine call may take a
 * millisecond or more: the deadline is checked right after such a call (the
 * call itself is bounded by REGEX_STEP_BUDGET through the pattern's input cap).
 */
const LONG_REGEX_STEPS = 1_000_000

/** A host-engine call on `s` is about to run: charged per character read. */
function beforeNative(rt: Run, s: string): void {
  chargeScan(rt, s.length)
}

/** ... and has run: a call that may have been long looks at the clock. */
function afterNative(rt: Run, re: GuardedRegex, s: string): void {
  if (re.worstSteps(s.length) >= LONG_REGEX_STEPS) rt.checkTime()
}

/** Whether this input goes to the linear engine (and may, given its size). */
function useLinear(re: GuardedRegex, s: string): boolean {
  if (s.length <= re.inputCap()) return false
  if (s.length > MAX_LINEAR_INPUT) {
    throw vmError('REGEX_UNSAFE', `Regex input of ${s.length} characters is longer than ${MAX_LINEAR_INPUT}`)
  }
  return true
}

function linearExec(rt: Run, re: GuardedRegex, s: string, from: number, sticky: boolean): LinearMatch | null {
  return re.linear().exec(s, from, sticky, (threads) => {
    rt.charge(threads * THREAD_STEP_COST)
    rt.tick()
  })
}

const fromLinear = (m: LinearMatch): Match => ({ index: m.index, end: m.index + (m.captures[0] ?? '').length, caps: m.captures, groups: m.groups })
const fromNative = (m: RegExpExecArray): Match => ({ index: m.index, end: m.index + m[0].length, caps: m, groups: m.groups })

/**
 * A cursor over the matches of `re` in `s` from position 0: the first match
 * only, or every match left to right (advancing past empty matches, as the
 * spec's `g` iteration does). Each match costs SLOT_COST and a deadline tick.
 */
class Matches {
  private from = 0
  private done = false
  private readonly native: RegExp | null
  private readonly sticky: boolean
  constructor(private readonly rt: Run, private readonly re: GuardedRegex, private readonly s: string, private readonly global: boolean) {
    this.sticky = re.sticky
    this.native = useLinear(re, s) ? null : re.fresh('g')
  }

  next(): Match | null {
    if (this.done || this.from > this.s.length) return null
    const rt = this.rt
    let m: Match | null
    if (this.native) {
      this.native.lastIndex = this.from
      const raw = this.native.exec(this.s)
      // What this call read: from where it started to the end of its match (or of the input).
      chargeScan(rt, (raw ? raw.index + raw[0].length : this.s.length) - this.from)
      afterNative(rt, this.re, this.s)
      m = raw && (!this.sticky || raw.index === this.from) ? fromNative(raw) : null
    } else {
      const raw = linearExec(rt, this.re, this.s, this.from, this.sticky)
      m = raw ? fromLinear(raw) : null
    }
    if (!m) { this.done = true; return null }
    rt.charge(SLOT_COST)
    rt.tick()
    if (!this.global) this.done = true
    else this.from = m.end === m.index ? advance(this.s, m.end, this.re.unicode) : m.end
    return m
  }
}

/** The position after an empty match at `i` (a whole code point under the `u` flag). */
function advance(s: string, i: number, unicode: boolean): number {
  if (unicode && i + 1 < s.length) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) return i + 2
    }
  }
  return i + 1
}

/** Counts result slots as they are added: HEAP_LIMIT before the array outgrows `maxHeapBytes`. */
class SlotBudget {
  private slots = 0
  constructor(private readonly rt: Run) {}
  add(n: number): void {
    this.slots += n
    if (this.slots * SLOT_BYTES > this.rt.maxHeapBytes) this.rt.heapLimit(this.slots * SLOT_BYTES)
    this.rt.chargeSlots(n)
  }
}

/** A match as JavaScript returns it: captures plus `index`, `input` and `groups`. */
function matchArray(m: Match, input: string): unknown[] {
  const out: unknown[] & { index?: number; input?: string; groups?: unknown } = Array.from(m.caps)
  out.index = m.index
  out.input = input
  out.groups = m.groups ? { ...m.groups } : undefined
  return out
}

export function regexTest(rt: Run, re: GuardedRegex, input: unknown): boolean {
  const s = text(rt, input)
  if (!useLinear(re, s)) {
    beforeNative(rt, s)
    const hit = re.fresh().test(s)
    afterNative(rt, re, s)
    return hit
  }
  return linearExec(rt, re, s, 0, re.sticky) !== null
}

/** `re.exec(s)` / `s.match(re)` without g: the match array, or null. */
export function regexExec(rt: Run, re: GuardedRegex, input: unknown): unknown[] | null {
  const s = text(rt, input)
  const m = new Matches(rt, re, s, false).next()
  if (!m) return null
  rt.chargeSlots(m.caps.length + MATCH_EXTRA_SLOTS)
  return matchArray(m, s)
}

export function regexMatch(rt: Run, re: GuardedRegex, input: unknown): unknown[] | null {
  if (!re.global) return regexExec(rt, re, input)
  const s = text(rt, input)
  const it = new Matches(rt, re, s, true)
  const budget = new SlotBudget(rt)
  const out: unknown[] = []
  for (let m = it.next(); m; m = it.next()) {
    budget.add(1)
    out.push(m.caps[0])
  }
  return out.length > 0 ? out : null
}

export function regexMatchAll(rt: Run, re: GuardedRegex, input: unknown): unknown[][] {
  if (!re.global) throw vmError('TYPE_ERROR', 'matchAll needs a regex with the g flag')
  const s = text(rt, input)
  const it = new Matches(rt, re, s, true)
  const budget = new SlotBudget(rt)
  const out: unknown[][] = []
  for (let m = it.next(); m; m = it.next()) {
    budget.add(1 + m.caps.length + MATCH_EXTRA_SLOTS)
    out.push(matchArray(m, s) as unknown[])
  }
  return out
}

export function regexSearch(rt: Run, re: GuardedRegex, input: unknown): number {
  const s = text(rt, input)
  if (!useLinear(re, s)) {
    beforeNative(rt, s)
    const at = s.search(re.fresh())
    afterNative(rt, re, s)
    return at
  }
  return linearExec(rt, re, s, 0, re.sticky)?.index ?? -1
}

// ---- replace ---------------------------------------------------------------

export function regexReplace(rt: Run, re: GuardedRegex, input: unknown, replacement: string, all: boolean): string {
  const s = text(rt, input)
  const global = all || re.global
  if (!replacement.includes('$') && literalBound(s.length, replacement) <= rt.maxStringLength && !useLinear(re, s)) {
    beforeNative(rt, s)
    const out = all ? s.replaceAll(re.fresh(), replacement) : s.replace(re.fresh(), replacement)
    afterNative(rt, re, s)
    return out
  }
  const it = new Matches(rt, re, s, global)
  return replaceMatches(rt, s, () => it.next(), replacement)
}

// ---- split -----------------------------------------------------------------

/** `s.split(re, limit)` with the spec's rules (captures included, empty matches at p skipped). */
export function regexSplit(rt: Run, re: GuardedRegex, input: unknown, limit?: number): string[] {
  const s = text(rt, input)
  const lim = limit === undefined ? 2 ** 32 - 1 : limit >>> 0
  const maxItems = Math.floor(rt.maxHeapBytes / SLOT_BYTES)
  if (!useLinear(re, s)) {
    // The limit bounds the native result: one item past the heap ceiling proves it too large.
    beforeNative(rt, s)
    const out = s.split(re.fresh(), Math.min(lim, maxItems + 1)) as string[]
    afterNative(rt, re, s)
    if (out.length > maxItems) rt.heapLimit(out.length * SLOT_BYTES)
    return out
  }
  const budget = new SlotBudget(rt)
  const out: Array<string | undefined> = []
  if (lim === 0) return []
  if (s.length === 0) return linearExec(rt, re, s, 0, true) ? [] : [s]
  let p = 0
  let q = 0
  while (q < s.length) {
    const m = linearExec(rt, re, s, q, false)
    if (!m || m.index >= s.length) break
    const e = m.index + (m.captures[0] ?? '').length
    if (e === p || m.index >= s.length) { q = m.index + 1; continue }
    budget.add(m.captures.length)
    out.push(s.slice(p, m.index))
    if (out.length === lim) return out as string[]
    for (let k = 1; k < m.captures.length; k++) {
      out.push(m.captures[k])
      if (out.length === lim) return out as string[]
    }
    p = e
    q = e === m.index ? e + 1 : e
  }
  out.push(s.slice(p))
  return out as string[]
}
export { stringReplace } from './replace.ts'
