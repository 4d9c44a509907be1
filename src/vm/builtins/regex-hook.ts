/**
 * The VM's side of regular expressions. The engines (the guarded host
 * RegExp and the linear-time engine, builtins/regex.ts, regex-ops.ts,
 * linear-regex.ts) are an opt-in part, `ajs-lang/vm/regex`
 * (src/vm/parts/regex.ts), that registers itself here when imported, so
 * `ajs-lang/vm` stays small; the full entry (`ajs-lang`), `ajsc`, the server
 * and the Python and flow entries import it. Without it every regex entry
 * point (a regex literal, `regexMatch`, a string method given a pattern, an
 * input schema's `pattern`) is refused with FEATURE_MISSING naming the
 * import: a program never runs with a guard missing, it does not run.
 */
import type { Run } from '../runtime.ts'
import type { GuardedRegex } from './regex.ts'
import { partMissing } from '../atoms/part-hook.ts'
import { processSlot } from '../process-slot.ts'

/** What the regex part provides (implemented in src/vm/parts/regex.ts). */
export interface RegexSupport {
  /** The class of guest regex values: `instanceof` tells them apart from plain data. */
  readonly Regex: abstract new (...args: never[]) => GuardedRegex
  /** A guarded regex, or REGEX_UNSAFE. */
  make(pattern: unknown, flags?: unknown): GuardedRegex
  /** `new RegExp(pattern, flags)` (`RegExp(...)`): a pattern made at run time, paid for, guarded. */
  construct(rt: Run, pattern: GuardedRegex | string, flags?: string): GuardedRegex
  /** A pattern given where JS would build a RegExp (`str.match('a+')`): guarded the same way. */
  from(p: unknown, flags?: string): GuardedRegex
  /** Worst-case backtracking degree of a pattern that passed the check. */
  degree(pattern: string, flags: string): number
  /** Backtracking steps one host-engine call may take. */
  readonly stepBudget: number
  exec(rt: Run, re: GuardedRegex, input: unknown): unknown[] | null
  match(rt: Run, re: GuardedRegex, input: unknown): unknown[] | null
  matchAll(rt: Run, re: GuardedRegex, input: unknown): unknown[][]
  search(rt: Run, re: GuardedRegex, input: unknown): number
  test(rt: Run, re: GuardedRegex, input: unknown): boolean
  replace(rt: Run, re: GuardedRegex, input: unknown, replacement: string, all: boolean): string
  split(rt: Run, re: GuardedRegex, input: unknown, limit?: number): string[]
}

interface Slot {
  Regex: abstract new (...args: never[]) => object
  support?: RegexSupport
}

const slot = processSlot<Slot>('vm.regex', () => ({ Regex: class NoRegex {} }))

/** Called by the regex part when it is imported. */
export function registerRegex(support: RegexSupport): void {
  slot.support = support
  slot.Regex = support.Regex
}

/** True for a guest regex value (always false on a VM without the regex part: there are none). */
export function isRegex(v: unknown): v is GuardedRegex {
  return v instanceof slot.Regex
}

/** The regex part, or the refusal naming the import that supplies it. */
export function regexSupport(): RegexSupport {
  return slot.support ?? regexMissing()
}

function regexMissing(): never {
  throw partMissing('regex', 'The program uses a regular expression, and this VM was built without regex support', 'regular expressions')
}
