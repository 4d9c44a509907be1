/**
 * Date.parse of the VM: the same number on every host. JavaScript reads an ISO date and time
 * without a zone in the host's time zone, and any other text with the engine's own legacy parser
 * (V8, JavaScriptCore and SpiderMonkey accept different texts, and give different numbers for
 * out-of-range fields such as Feb 30), so a program, and a replayed workflow's branches, would
 * move with the host. The VM reads ISO text and the few formats below itself, as V8 does in UTC,
 * and every other text is NaN. A text without a zone is UTC. Documented in docs/language.md.
 *
 * Two anchored expressions without nested quantifiers, run on texts of at most LONGEST_PLAIN characters;
 * a longer text is cut first (cut() below), so each of its characters is read once, as the callers
 * charge it (they pay its length). Run on the whole text, a long fraction of a second or zone name was
 * read, then backtracked over character by character, by each expression in turn: 262 ms for one call
 * on 30M characters in V8, where one read takes 16 ms.
 */

/** ISO 8601 as JavaScript's format: YYYY[-MM[-DD]][(T| )HH:mm[:ss[.fraction]][Z|±HH:mm]]. */
const ISO = /^(\d{4})(?:-(\d\d)(?:-(\d\d))?)?(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?(?:Z|([+-]\d\d):(\d\d))?)?$/

/**
 * [Weekday[,] ] then `Nov 27[,] 2026`, `27 Nov 2026`, `2026/11/27` or `11/27/2026`, then [ H:mm[:ss]],
 * [ GMT|UT|UTC|Z and/or ±hhmm], [ (zone name)]: what Date's toString, toUTCString and toDateString
 * print, RFC 2822 and the usual written dates. Names in English, capitalised, whole or of three letters.
 */
const TEXT = /^(?:([A-Z][a-z]+),? )?(?:([A-Z][a-z]+) (\d\d?),? ([1-9]\d{3})|(\d\d?) ([A-Z][a-z]+) ([1-9]\d{3})|([1-9]\d{3})\/(\d\d?)\/(\d\d?)|(\d\d?)\/(\d\d?)\/([1-9]\d{3}))(?: (\d\d?):(\d\d)(?::(\d\d))?)?(?: (?=[GUZ+-])(?:GMT|UTC?|Z)?(?:([+-]\d\d)(\d\d))?)?(?: \([^()]*\))?$/

const MONTHS = 'January February March April May June July August September October November December'.split(' ')
const DAYS = 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday'.split(' ')

/** 1 + the index of `w` in `names`, whole or its first three letters; 0 when it is none of them. */
const named = (names: string[], w: string) => names.findIndex((n) => w === n || w === n.slice(0, 3)) + 1

/**
 * The time value of the fields, UTC less the offset `zh` hours `zm` minutes; NaN when a field is out
 * of range (month 13, Feb 30, hour 24, minute 60, offset +2500), where the engines' answers differ.
 */
function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, zh: number, zm: number): number {
  const t = new Date(0)
  t.setUTCFullYear(y, mo - 1, d) // not Date.UTC, which reads the years 0-99 as 1900-1999
  return t.getUTCMonth() + 1 !== mo || t.getUTCDate() !== d || h > 23 || mi > 59 || s > 59 || Math.abs(zh) > 23 || Math.abs(zm) > 59 ? NaN
    : t.getTime() + ((h * 60 + mi - zh * 60 - zm) * 60 + s) * 1000 + ms
}

/**
 * The longest text read by ISO and TEXT as it is: a date without a long fraction of a second or zone
 * name is shorter ('Wednesday, September 27, 2026 10:00:00 GMT+0000' has 47 characters).
 */
const LONGEST_PLAIN = 64

/** An ISO date and time up to the point of its fraction; a zone at the end of the text. */
const ISO_HEAD = /^\d{4}(?:-\d\d(?:-\d\d)?)?[T ]\d\d:\d\d:\d\d\./
const ZONE_END = /(?:Z|[+-]\d\d:\d\d)$/

/**
 * A long text as ISO and TEXT would read it, cut to its first three digits of fraction (all they
 * use) or to an empty zone name, each tested whole in one pass that cannot backtrack; undefined
 * when it can be no date. Bounded reads besides: the first 20 characters (the longest head), the
 * last 6, 64 backwards.
 */
function cut(s: string): string | undefined {
  const head = ISO_HEAD.exec(s.slice(0, 20))?.[0]
  if (head) {
    const zone = ZONE_END.exec(s.slice(-6))?.[0] ?? ''
    const digits = s.slice(head.length, s.length - zone.length)
    return digits && !/\D/.test(digits) ? head + digits.slice(0, 3) + zone : undefined
  }
  // A zone name: ' (' within the plain text's length, then no parenthesis but the closing one, last.
  const open = s.lastIndexOf(' (', LONGEST_PLAIN)
  return open >= 0 && s.endsWith(')') && !/[()]/.test(s.slice(open + 2, -1)) ? s.slice(0, open) + ' ()' : undefined
}

export function parseDate(text: string): number {
  const s = text.length > LONGEST_PLAIN ? cut(text) : text
  if (s === undefined) return NaN
  let m = ISO.exec(s)
  const n = (i: number) => +(m![i] ?? 0)
  // An offset's minutes have the sign of its hours (-00:30).
  const zm = (i: number) => (m![i - 1]?.[0] === '-' ? -n(i) : n(i))
  if (m) return utc(n(1), m[2] ? n(2) : 1, m[3] ? n(3) : 1, n(4), n(5), n(6), +((m[7] ?? '0') + '00').slice(0, 3), n(8), zm(9))
  m = TEXT.exec(s)
  if (!m || (m[1] && !named(DAYS, m[1]))) return NaN
  const month = m[2] ?? m[6]
  return utc(n(4) || n(7) || n(8) || n(13), month ? named(MONTHS, month) : n(9) || n(11), n(3) || n(5) || n(10) || n(12), n(14), n(15), n(16), 0, n(17), zm(18))
}
