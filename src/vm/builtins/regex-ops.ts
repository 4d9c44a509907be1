/**
 * Every regex operation the guest can perform, on one of two engines: the
 * host's RegExp while the input is within the pattern's backtracking budget
 * (exact JavaScript behaviour, fastest), the metered linear engine beyond it
 * (or always, for patterns whose backtracking is exponential). Results are
 * plain arrays/strings, never host RegExp objects.
 */
import type { Run } from '../runtime.ts'
import { vmError } from '../errors.ts'
import { guestString } from './coerce.ts'
import { GuardedRegex, MAX_LINEAR_INPUT } from './regex.ts'
import type { LinearMatch } from './linear-regex.ts'

/** Micro-fuel per live thread per input position on the linear engine. */
const THREAD_STEP_COST = 10

function text(rt: Run | undefined, s: unknown): string {
  return typeof s === 'string' ? s : guestString(rt, s)
}

/** Whether this input goes to the linear engine (and may, given its size). */
function useLinear(re: GuardedRegex, s: string): boolean {
  if (s.length <= re.maxInput) return false
  if (s.length > MAX_LINEAR_INPUT) {
    throw vmError('REGEX_UNSAFE', `Regex input of ${s.length} characters is longer than ${MAX_LINEAR_INPUT}`)
  }
  return true
}

function linearExec(rt: Run | undefined, re: GuardedRegex, s: string, from: number, sticky: boolean): LinearMatch | null {
  const engine = re.linear
  return engine.exec(s, from, sticky, (threads) => {
    if (rt) {
      rt.charge(threads * THREAD_STEP_COST)
      rt.tick()
    }
  })
}

const asArray = (m: LinearMatch): unknown[] => m.captures.slice()

export function regexTest(rt: Run | undefined, re: GuardedRegex, input: unknown): boolean {
  const s = text(rt, input)
  if (!useLinear(re, s)) return re.fresh().test(s)
  return linearExec(rt, re, s, 0, re.flags.includes('y')) !== null
}

/** `re.exec(s)` / `s.match(re)` without g: the match as a plain array, or null. */
export function regexExec(rt: Run | undefined, re: GuardedRegex, input: unknown): unknown[] | null {
  const s = text(rt, input)
  if (!useLinear(re, s)) {
    const m = re.fresh().exec(s)
    return m ? Array.from(m) : null
  }
  const m = linearExec(rt, re, s, 0, re.flags.includes('y'))
  return m ? asArray(m) : null
}

/** All matches left to right, advancing past empty matches (the `g` iteration of the spec). */
function allLinear(rt: Run | undefined, re: GuardedRegex, s: string): LinearMatch[] {
  const out: LinearMatch[] = []
  const sticky = re.flags.includes('y')
  let from = 0
  while (from <= s.length) {
    const m = linearExec(rt, re, s, from, sticky)
    if (!m) break
    out.push(m)
    const end = m.index + (m.captures[0] ?? '').length
    from = end === m.index ? end + 1 : end
  }
  return out
}

export function regexMatch(rt: Run | undefined, re: GuardedRegex, input: unknown): unknown[] | null {
  if (!re.flags.includes('g')) return regexExec(rt, re, input)
  const s = text(rt, input)
  if (!useLinear(re, s)) return s.match(re.fresh())?.slice() ?? null
  const all = allLinear(rt, re, s).map((m) => m.captures[0])
  return all.length > 0 ? all : null
}

export function regexMatchAll(rt: Run | undefined, re: GuardedRegex, input: unknown): unknown[][] {
  if (!re.flags.includes('g')) throw vmError('TYPE_ERROR', 'matchAll needs a regex with the g flag')
  const s = text(rt, input)
  if (!useLinear(re, s)) return [...s.matchAll(re.fresh())].map((m) => Array.from(m))
  return allLinear(rt, re, s).map(asArray)
}

export function regexSearch(rt: Run | undefined, re: GuardedRegex, input: unknown): number {
  const s = text(rt, input)
  if (!useLinear(re, s)) return s.search(re.fresh())
  return linearExec(rt, re, s, 0, re.flags.includes('y'))?.index ?? -1
}

/** The `$` patterns of a replacement string: $$, $&, $`, $', $n, $nn, $<name>. */
function expand(replacement: string, s: string, m: LinearMatch): string {
  const whole = m.captures[0] ?? ''
  const groupCount = m.captures.length - 1
  return replacement.replace(/\$(\$|&|`|'|\d{1,2}|<[^>]*>)/g, (all, tok: string) => {
    if (tok === '$') return '$'
    if (tok === '&') return whole
    if (tok === '`') return s.slice(0, m.index)
    if (tok === "'") return s.slice(m.index + whole.length)
    if (tok.startsWith('<')) {
      if (!m.groups) return all
      return m.groups[tok.slice(1, -1)] ?? ''
    }
    let n = Number(tok)
    if (tok.length === 2 && (n < 1 || n > groupCount)) {
      // `$12` with fewer groups means `$1` followed by "2".
      const one = Number(tok[0])
      if (one >= 1 && one <= groupCount) return (m.captures[one] ?? '') + tok[1]
      return all
    }
    n = Number(tok)
    if (n < 1 || n > groupCount) return all
    return m.captures[n] ?? ''
  })
}

export function regexReplace(rt: Run | undefined, re: GuardedRegex, input: unknown, replacement: string, all: boolean): string {
  const s = text(rt, input)
  if (!useLinear(re, s)) return all ? s.replaceAll(re.fresh(), replacement) : s.replace(re.fresh(), replacement)
  const global = all || re.flags.includes('g')
  const matches = global ? allLinear(rt, re, s) : [linearExec(rt, re, s, 0, re.flags.includes('y'))].filter((m): m is LinearMatch => m !== null)
  let out = ''
  let last = 0
  for (const m of matches) {
    out += s.slice(last, m.index) + expand(replacement, s, m)
    last = m.index + (m.captures[0] ?? '').length
  }
  return out + s.slice(last)
}

/** `s.split(re, limit)` with the spec's rules (captures included, empty matches at p skipped). */
export function regexSplit(rt: Run | undefined, re: GuardedRegex, input: unknown, limit?: number): string[] {
  const s = text(rt, input)
  if (!useLinear(re, s)) return s.split(re.fresh(), limit) as string[]
  const lim = limit === undefined ? 2 ** 32 - 1 : limit >>> 0
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
