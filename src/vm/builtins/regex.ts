/**
 * Guarded regular expressions: every regex entry point (`regex` literals,
 * `regexMatch`, string methods given a pattern) builds its RegExp here.
 *
 * The guard refuses the constructs that make backtracking engines blow up:
 * backreferences, lookbehind of unbounded length, nested quantifiers (star
 * height > 1), and quantified groups whose alternatives are not distinct
 * literals. Inputs are also capped in length. What passes runs on the host
 * engine (a bounded lookbehind costs it at most its width per position).
 */
import { VmError, vmError } from '../errors.ts'
import { guestString } from './coerce.ts'
import { BACKREF_HINT, LinearRegex, lookbehinds } from './linear-regex.ts'

export const MAX_REGEX_SOURCE = 1_000
export const MAX_REGEX_INPUT = 100_000
/**
 * Backtracking work allowed per match, in engine steps (~0.1 s). The static
 * check stops exponential patterns, not polynomial ones: an unanchored `/a*b/`
 * on 100,000 'a's is n^2 = 10^10 steps (12 s in V8), `/\d+\d+$/` is n^3. So
 * each pattern gets an input cap from its worst-case degree: one per
 * unbounded quantifier, plus one for an unanchored search; n^degree <= budget.
 */
export const REGEX_STEP_BUDGET = 100_000_000
/** Longest input any regex may run on (beyond `maxInput` it runs on the metered linear engine). */
export const MAX_LINEAR_INPUT = 10_000_000
const ALLOWED_FLAGS = /^[gimsuy]*$/

/** What the VM keeps about a pattern: shared by every value of the same literal, never guest-reachable. */
interface RegexCore {
  readonly re: RegExp
  /** Longest input the host engine may take for this pattern (see REGEX_STEP_BUDGET); -1: linear engine only. */
  readonly maxInput: number
  /** Worst-case backtracking degree (see regexDegree). */
  readonly degree: number
  engine: LinearRegex | null
  /** Host RegExps by extra flags, reused by fresh() (see there). */
  hosts?: Map<string, RegExp>
}

/**
 * A guest regex value. Opaque: the pattern, engine and input cap live in a
 * private field (no property, key, spread, `Object.assign` or builtin sees
 * them), the instance is frozen, and the guest-visible facts (`source`,
 * `flags`, `global`, ...) are read-only accessors computed from that field.
 * Prototype methods are functions, which guest reads turn into `undefined`.
 */
export class GuardedRegex {
  readonly #core: RegexCore
  readonly #source: string
  readonly #flags: string
  /** `linearOnly`: exponential on a backtracking engine, so it always runs on the linear one. */
  constructor(source: string, flags: string, linearOnly = false, core?: RegexCore) {
    this.#source = source
    this.#flags = flags
    this.#core = core ?? {
      re: new RegExp(source, flags),
      maxInput: linearOnly ? -1 : inputCap(source, flags),
      degree: regexDegree(source, flags),
      engine: linearOnly ? new LinearRegex(source, flags) : null,
    }
    Object.freeze(this)
  }
  get source(): string { return this.#source }
  get flags(): string { return this.#flags }
  get global(): boolean { return this.#flags.includes('g') }
  get ignoreCase(): boolean { return this.#flags.includes('i') }
  get multiline(): boolean { return this.#flags.includes('m') }
  get sticky(): boolean { return this.#flags.includes('y') }
  get dotAll(): boolean { return this.#flags.includes('s') }
  get unicode(): boolean { return this.#flags.includes('u') }
  /** Always 0: a guest regex keeps no match state between calls. */
  get lastIndex(): number { return 0 }
  /** Longest input the host engine may take (-1: the linear engine only). Internal. */
  inputCap(): number {
    return this.#core.maxInput
  }
  /** Worst-case backtracking steps of one host-engine call on `n` characters (n^degree). Internal. */
  worstSteps(n: number): number {
    return n ** this.#core.degree
  }
  /** The linear-time engine for this pattern (built on first need; REGEX_UNSAFE if it cannot take it). Internal. */
  linear(): LinearRegex {
    return (this.#core.engine ??= new LinearRegex(this.#source, this.#flags))
  }
  toString(): string {
    return `/${this.#source}/${this.#flags}`
  }
  /** JSON.stringify of a regex is `{}`, as in JavaScript. */
  toJSON(): Record<string, never> {
    return {}
  }
  /**
   * A host RegExp of this pattern with `extraFlags`, its lastIndex 0: never handed to the guest.
   * One per pattern and flags, reused (a RegExp per call was a tenth of a regex-heavy Python
   * block): every caller (regex-ops.ts) uses it within one synchronous operation that runs no
   * guest code, and sets lastIndex itself where it matters. Internal.
   */
  fresh(extraFlags = ''): RegExp {
    const core = this.#core
    const hosts = (core.hosts ??= new Map())
    let re = hosts.get(extraFlags)
    if (re === undefined) {
      let fl = core.re.flags
      for (const f of extraFlags) if (!fl.includes(f)) fl += f
      hosts.set(extraFlags, (re = new RegExp(core.re, fl)))
    }
    re.lastIndex = 0
    return re
  }
  /** Another value of the same pattern (a regex literal evaluated again), sharing the checked core. Internal. */
  again(): GuardedRegex {
    return new GuardedRegex(this.#source, this.#flags, false, this.#core)
  }
}

/** Worst-case backtracking degree of a pattern that passed the static check (conservative). */
export function regexDegree(pattern: string, flags: string): number {
  let quantifiers = 0
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    if (ch === '\\') { i++; continue }
    if (inClass) { if (ch === ']') inClass = false; continue }
    if (ch === '[') inClass = true
    else if (ch === '*' || ch === '+') quantifiers++
    else if (ch === '{' && /^\{\d+,\}/.test(pattern.slice(i))) quantifiers++
  }
  // Anchored at the start (no alternation, no multiline): one start position instead of n.
  const anchored = flags.includes('y') || (pattern.startsWith('^') && !pattern.includes('|') && !flags.includes('m'))
  return quantifiers + (anchored ? 0 : 1)
}

function inputCap(pattern: string, flags: string): number {
  const degree = regexDegree(pattern, flags)
  return degree <= 1 ? MAX_REGEX_INPUT : Math.min(MAX_REGEX_INPUT, Math.floor(REGEX_STEP_BUDGET ** (1 / degree)))
}

function unsafe(pattern: string, why: string, hint?: string): never {
  throw vmError('REGEX_UNSAFE', `Regular expression /${pattern}/ rejected: ${why}`, hint === undefined ? undefined : { hint })
}

interface Group {
  quantified: boolean
  hasAlternation: boolean
  alternatives: string[]
  literal: boolean
  current: string
}

/** Static ReDoS check. Throws REGEX_UNSAFE with the reason. */
export function checkRegexSafety(pattern: string): void {
  if (pattern.length > MAX_REGEX_SOURCE) unsafe(pattern.slice(0, 40) + '…', `longer than ${MAX_REGEX_SOURCE} characters`)
  if (/\\[1-9]|\\k</.test(pattern)) unsafe(pattern, 'backreferences are not supported', BACKREF_HINT)
  // The linear engine's rules (bounded length, no capturing group inside), so a longer input cannot refuse what a short one ran.
  if (/\(\?<[=!]/.test(pattern)) lookbehinds(pattern)
  const stack: Group[] = [{ quantified: false, hasAlternation: false, alternatives: [], literal: true, current: '' }]
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    const top = stack[stack.length - 1]!
    if (ch === '\\') {
      top.literal &&= /[^dDwWsSbB]/.test(pattern[i + 1] ?? '')
      top.current += pattern.slice(i, i + 2)
      i++
      continue
    }
    if (inClass) {
      if (ch === ']') inClass = false
      top.current += ch
      continue
    }
    if (ch === '[') { inClass = true; top.literal = false; top.current += ch; continue }
    if (ch === '(') {
      stack.push({ quantified: false, hasAlternation: false, alternatives: [], literal: true, current: '' })
      if (pattern[i + 1] === '?') {
        // (?: (?= (?! (?<name>
        const m = /^\?(?::|=|!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(i + 1))
        if (m) i += m[0].length
      }
      continue
    }
    if (ch === '|') { top.hasAlternation = true; top.alternatives.push(top.current); top.current = ''; continue }
    if (ch === ')') {
      const g = stack.pop()!
      if (stack.length === 0) unsafe(pattern, 'unbalanced parenthesis')
      g.alternatives.push(g.current)
      const next = pattern[i + 1]
      const quantifiedNext = next === '*' || next === '+' || (next === '{' && /^\{\d+,\d*\}/.test(pattern.slice(i + 1)) && !/^\{(\d+),\1\}/.test(pattern.slice(i + 1)))
      if (quantifiedNext) {
        if (g.quantified) unsafe(pattern, 'nested quantifiers (e.g. (a+)+) can take exponential time')
        if (g.hasAlternation) {
          const firsts = g.alternatives.map((a) => a[0])
          const distinct = new Set(firsts).size === firsts.length
          if (!g.literal || !distinct || firsts.some((c) => c === undefined)) {
            unsafe(pattern, 'a repeated group with overlapping alternatives can take exponential time')
          }
        }
      }
      const parent = stack[stack.length - 1]!
      parent.quantified ||= g.quantified || quantifiedNext
      parent.literal &&= g.literal
      parent.current += '(' + g.alternatives.join('|') + ')'
      continue
    }
    if (ch === '*' || ch === '+' || ch === '{') top.quantified = true
    if (ch === '*' || ch === '+' || ch === '?' || ch === '{' || ch === '.' || ch === '^' || ch === '$') top.literal = false
    top.current += ch
  }
  if (stack.length !== 1) unsafe(pattern, 'unbalanced parenthesis')
}

/** Build a guarded regex or throw REGEX_UNSAFE. */
export function makeRegex(pattern: unknown, flags: unknown = ''): GuardedRegex {
  if (typeof pattern !== 'string') throw vmError('TYPE_ERROR', 'A regular expression pattern must be a string')
  const fl = flags === undefined || flags === null ? '' : String(flags)
  if (!ALLOWED_FLAGS.test(fl)) throw vmError('REGEX_UNSAFE', `Regular expression flags "${fl}" are not supported`)
  let linearOnly = false
  try {
    checkRegexSafety(pattern)
  } catch (e) {
    // Exponential shapes ((a+)+, (a|ab)*) are fine on the linear engine; anything it
    // cannot take (backreferences, lookaround, the u flag) stays refused.
    if (!(e instanceof VmError) || !/exponential/.test(e.message)) throw e
    linearOnly = true
  }
  try {
    return new GuardedRegex(pattern, fl, linearOnly)
  } catch (e) {
    if (e instanceof VmError) throw e
    throw vmError('REGEX_UNSAFE', `Invalid regular expression /${pattern}/: ${(e as Error).message}`)
  }
}

/** A string pattern given where JS would build a RegExp (`str.match('a+')`): guarded the same way. */
export function toRegex(p: unknown, flags = ''): GuardedRegex {
  // As JS's RegExp(p): undefined is the empty pattern ('ab'.match() is [''], 'ab'.search() 0).
  return p instanceof GuardedRegex ? p : makeRegex(p === undefined ? '' : String(p), flags)
}
