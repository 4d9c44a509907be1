/** `new RegExp(pattern, flags)` at run time, for the regex part (parts/regex.ts). */
import type { Run } from '../runtime.ts'
import { REGEX_CHAR_COST, REGEX_MAKE_COST } from '../fuel.ts'
import { GuardedRegex, makeRegex } from './regex.ts'

/**
 * `new RegExp(p, flags)` (and `RegExp(p, flags)`; the core has made them texts): a pattern built at run time, guarded as a literal is
 * (REGEX_UNSAFE when no engine can run it in bounded time). A regex given is copied, with new flags if
 * given. 5–75 µs each in Bun (a check of the pattern, the host's compile, for some a linear engine): paid
 * per regex and per character.
 */
export function constructRegex(rt: Run, p: GuardedRegex | string, flags?: string): GuardedRegex {
  const given = p instanceof GuardedRegex
  const raw = given ? p.source : p
  // Making one costs what regexMatch costs (it makes one from a text), and its characters.
  rt.charge(REGEX_MAKE_COST + raw.length * REGEX_CHAR_COST)
  const fl = flags ?? (given ? p.flags : '')
  const re = makeRegex(raw, fl)
  // Its `source` as JavaScript writes it (`(?:)` when empty, `/` and line ends escaped): the same pattern.
  return given || !NEEDS_ESCAPE.test(raw) ? re : makeRegex(new RegExp(raw, fl).source, fl)
}
const NEEDS_ESCAPE = /^$|[/\n\r\u2028\u2029]/
