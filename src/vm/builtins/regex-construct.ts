/** `new RegExp(pattern, flags)` at run time, for the regex part (parts/regex.ts). */
import type { Run } from '../runtime.ts'
import { ATOM_COSTS, REGEX_CHAR_COST, UNIT } from '../fuel.ts'
import { guestString } from './coerce.ts'
import { GuardedRegex, makeRegex } from './regex.ts'

/**
 * `new RegExp(p, flags)` (and `RegExp(p, flags)`): a pattern built at run time, guarded as a literal is
 * (REGEX_UNSAFE when no engine can run it in bounded time). A regex given is copied, with new flags if
 * given. 5–75 µs each in Bun (a check of the pattern, the host's compile, for some a linear engine): paid
 * per regex and per character.
 */
export function constructRegex(rt: Run, [p, flags]: unknown[]): GuardedRegex {
  const given = p instanceof GuardedRegex
  const raw = given ? p.source : p === undefined ? '' : guestString(rt, p)
  // Making one costs what regexMatch costs (it makes one from a text), and its characters.
  rt.charge(ATOM_COSTS.regexMatch! * UNIT + raw.length * REGEX_CHAR_COST)
  const fl = flags === undefined ? (given ? p.flags : '') : guestString(rt, flags)
  const re = makeRegex(raw, fl)
  // Its `source` as JavaScript writes it (`(?:)` when empty, `/` and line ends escaped): the same pattern.
  return given || !NEEDS_ESCAPE.test(raw) ? re : makeRegex(new RegExp(raw, fl).source, fl)
}
const NEEDS_ESCAPE = /^$|[/\n\r\u2028\u2029]/
