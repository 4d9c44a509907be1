/**
 * `re` (extended profile) on the VM's guarded regular expressions (ajs-lang/vm/regex: the static
 * ReDoS check, the host engine within its input cap and the metered linear-time engine beyond):
 * compile, match, search, fullmatch, findall, finditer, sub, subn, split, escape; match objects with
 * group/groups/groupdict/start/end/span and `m[i]`. Python syntax is translated (`(?P<name>`,
 * leading inline flags, `\A`, `\Z`); positions are in code points.
 */
import '../../vm/parts/regex.ts'
import { regexSupport } from '../../vm/builtins/regex-hook.ts'
import type { GuardedRegex } from '../../vm/builtins/regex.ts'
import { BACKREF_HINT, lookbehinds } from '../../vm/builtins/linear-regex.ts'
import type { Run } from '../../vm/runtime.ts'
import { DISPATCH_HELPER as DISPATCH, PyDict, PyOpaque, tuple, typeName, type GuestCalls } from './values.ts'
import { raise, typeError } from './errors.ts'
import { intOf, isIntValue } from './numbers.ts'
import { repr } from './core.ts'
import { hasAstral } from './text.ts'
import { endMark, linesMatch, onlyEndAfter, linesSource, linesSwap, linesText, readsEnd, type Swap } from './re-lines.ts'
import { payChars, type PyRun } from './fuel.ts'
import { SCAN_COST } from '../../vm/fuel.ts'

export const FLAGS: Record<string, number> = { IGNORECASE: 2, I: 2, MULTILINE: 8, M: 8, DOTALL: 16, S: 16, ASCII: 256, A: 256 }

const patterns = new Map<string, Compiled>()

/**
 * A Python pattern as JavaScript's. `lines`: the form for JavaScript's `m` flag (re-lines.ts), where
 * `^` and `$` are written as they are; null when a `\Z` asks for lookahead there too.
 */
function translate(pattern: string, flags: number, full: boolean, lines = false): { source: string; flags: string; dollarM: boolean } | null {
  let fl = ''
  let src = pattern
  const inline = /^\(\?([aiLmsux]+)\)/.exec(src)
  if (inline) {
    src = src.slice(inline[0].length)
    for (const c of inline[1]!) {
      if (c === 'i') flags |= 2
      else if (c === 'm') flags |= 8
      else if (c === 's') flags |= 16
      else if (c === 'a') flags |= 256
      else raise('NotImplementedError', `the inline flag (?${c}) is not supported here`)
    }
  }
  const multiline = (flags & 8) !== 0
  if (flags & 2) fl += 'i'
  if (lines) fl += 'm'
  if (flags & 16) fl += 's'
  if (flags & ~(2 | 8 | 16 | 256)) raise('NotImplementedError', 'only the flags I, M, S and A are supported here')
  let out = ''
  /** Whether a `$` under re.M was written (as a lookahead, unless `lines`). */
  let dollarM = false
  /** How many `\Z` the `lines` form has (each its own mark). */
  let ends = 0
  /** Inside `[...]`: the offset of its first member (a `]` there is a member, as in CPython), else -1. */
  let cls = -1
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!
    if (cls >= 0 && c !== '\\') {
      if (c === ']' && i > cls) cls = -1
      out += c === ']' && i === cls ? '\\]' : c
      continue
    }
    if (c === '[') { cls = src[i + 1] === '^' ? i + 2 : i + 1; out += c; continue }
    // CPython's line ends under re.M are \n only; JavaScript's `m` also ends lines at \r, \u2028 and
    // \u2029. So `^` is "no character but \n before" (a lookbehind, which both engines run) and `$` "no
    // character but \n after" (a lookahead: the host engine's; re-lines.ts has the linear engine's).
    if (c === '^' && multiline && !lines) { out += '(?<![^\\n])'; continue }
    if (c === '$' && multiline) { dollarM = true; out += lines ? '$' : '(?![^\\n])'; continue }
    // CPython's `$` matches at the end and before a final newline (`re.search('a$', 'a\n')`). The linear
    // engine takes this lookahead (a test of the position).
    if (c === '$') { out += '(?=\\n?$)'; continue }
    // CPython's `.` stops only at \n; JavaScript's also at \r, \u2028 and \u2029.
    if (c === '.' && !(flags & 16)) { out += '[^\\n]'; continue }
    if (c === '\\') {
      const n = src[i + 1]
      // \A and \Z are the ends of the text: `^` and `$` without the `m` flag; with it, "no character
      // before" (a lookbehind) and the end re-lines.ts puts after the text (read as a character, so
      // nothing may test the position after it).
      if (n === 'A') out += lines ? '(?<![\\s\\S])' : '^'
      else if (n === 'Z' && lines) { if (!onlyEndAfter(src, i + 2)) return null; out += endMark(ends++) }
      else if (n === 'Z') out += '$'
      else out += c + (n ?? '')
      i++
      continue
    }
    if (c === '(' && src.startsWith('(?P<', i)) { out += '(?<'; i += 3; continue }
    if (c === '(' && src.startsWith('(?P=', i)) raise('NotImplementedError', `backreferences are not supported by the linear-time engine. ${BACKREF_HINT}`)
    out += c
  }
  // fullmatch: the whole pattern, then the end of the text (its own inline flags stay in front); the
  // `lines` form puts its end on after re-lines.ts has written the pattern.
  if (full && !lines) out = `(?:${out})$`
  return { source: out, flags: fl, dollarM }
}

/**
 * CPython's rule first: every lookbehind has one width (`(?<=a|bc)` and `(?<=a{1,2})` are re.error
 * there); the engine's own limits (a capturing group inside, more than 255 characters) come after.
 */
function fixedLookbehinds(source: string): void {
  if (!/\(\?<[=!]/.test(source)) return
  let found: ReturnType<typeof lookbehinds>
  try {
    found = lookbehinds(source, true)
  } catch {
    return // not parsable here: make() reports it
  }
  if (found.some((b) => b.min !== b.max)) raise('error', 'look-behind requires fixed-width pattern')
}

/** Each capturing group's name (null: unnamed) by group number, from the translated source; [0] is the whole match. */
function groupSlots(source: string): Array<string | null> {
  const out: Array<string | null> = [null]
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') { i++; continue }
    if (inClass) { if (c === ']') inClass = false; continue }
    if (c === '[') { inClass = true; continue }
    if (c !== '(') continue
    if (source[i + 1] !== '?') out.push(null)
    else {
      const named = /^\(\?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(source.slice(i, i + 200))
      if (named) out.push(named[1]!)
    }
  }
  return out
}

type Compiled = {
  re: GuardedRegex; groups: number; names: string[]; slots: Array<string | null>
  /** A fullmatch form (its end written in). */
  full: boolean
  /** A `$` under re.M (a lookahead) is in it: past the host engine's cap it runs as re-lines.ts writes it. */
  dollarM: boolean
  /** That form, made on first need, by how the text is swapped (re-lines.ts; null: it cannot be). */
  lines: Map<string, Lines | null>
  /** `re` is the plain form: the host form runs on the linear engine only (an exponential shape), which cannot take its lookahead. */
  linesOnly: boolean
}

/**
 * A form for JavaScript's `m` flag (re-lines.ts); `end`: it reads the end put after the text (fullmatch,
 * `\Z`). `source`, `flags` and `reach` (how many characters before its start a match reads) make its
 * sticky forms for a match at the text's end (`atEnd`), kept by how much of the text they take.
 */
type Lines = { re: GuardedRegex; end: boolean; source: string; flags: string; reach: number; tails: Map<number, GuardedRegex | null> }

/** The form of a pattern with `$` under re.M for JavaScript's `m` flag, its text swapped or not (re-lines.ts); null: none. */
function linesForm(pattern: string, flags: number, full: boolean, swap: Swap | null): Lines | null {
  const t = translate(pattern, flags, full, true)
  const form = t && linesSource(t.source, full, swap)
  if (!form) return null
  try {
    const re = regexSupport().make(form.source, t.flags + 'g')
    return { re, end: full || readsEnd(t.source), source: form.source, flags: t.flags, reach: form.reach, tails: new Map() }
  } catch {
    return null
  }
}

function compiled(pattern: unknown, flags: unknown, full = false): Compiled & { pattern: string; flags: number } {
  if (pattern instanceof RePattern) return full ? compiled(pattern.pattern, pattern.flags, true) : pattern.full
  if (typeof pattern !== 'string') typeError(`first argument must be string or compiled pattern`)
  const f = flags === undefined || flags === null ? 0 : Number(intOf(flags as number))
  const key = `${full ? 'F' : ''}${f}/${pattern as string}`
  let c = patterns.get(key)
  if (!c) {
    const t = translate(pattern as string, f, full)!
    fixedLookbehinds(t.source)
    let re: GuardedRegex
    let linesOnly = false
    try {
      re = regexSupport().make(t.source, t.flags + 'g')
    } catch (e) {
      const plain = t.dollarM ? linesForm(pattern as string, f, full, null) : null
      if (plain === null) return cannotRun(e)
      re = plain.re
      linesOnly = true
    }
    const slots = groupSlots(t.source)
    const names = slots.filter((n): n is string => n !== null)
    const groups = new RegExp(t.source + '|').exec('')!.length - 1
    c = { re, groups, names, slots, full, dollarM: t.dollarM, lines: new Map(), linesOnly }
    if (patterns.size > 1024) patterns.clear()
    patterns.set(key, c)
  }
  return { ...c, pattern: pattern as string, flags: f }
}

/** A compiled pattern (`re.compile`). */
export class RePattern extends PyOpaque {
  readonly typeName = 'Pattern'
  /** What its methods work on, made once (not per call). */
  readonly full: Compiled & { pattern: string; flags: number }
  constructor(readonly c: Compiled, readonly pattern: string, readonly flags: number) {
    super()
    this.full = { ...c, pattern, flags }
  }
  override repr(): string {
    return `re.compile(${repr(this.pattern)})`
  }
}

type Raw = unknown[] & { index: number; groups?: Record<string, string | undefined> }

/** A match (`re.search(...)`). */
export class ReMatch extends PyOpaque {
  readonly typeName = 'Match'
  constructor(readonly m: Raw, readonly string: string, readonly slots: Array<string | null>) {
    super()
  }
  private cp(i: number): number {
    return hasAstral(this.string) ? Array.from(this.string.slice(0, i)).length : i
  }
  index(g: unknown): number {
    if (typeof g === 'string') {
      const i = this.slots.indexOf(g)
      if (i < 1) raise('IndexError', 'no such group')
      return i
    }
    if (!isIntValue(g)) raise('IndexError', 'no such group')
    const n = Number(intOf(g))
    if (n < 0 || n >= this.m.length) raise('IndexError', 'no such group')
    return n
  }
  /** `m.lastindex`: the matched group that closed last (the latest end; at the same end, the outer one). */
  lastIndex(): number | null {
    let best: number | null = null, bestEnd = -1
    for (let i = 1; i < this.m.length; i++) {
      if (this.m[i] === undefined) continue
      const end = this.span(i)[1]
      if (end > bestEnd) { best = i; bestEnd = end }
    }
    return best
  }
  group(g: unknown = 0): unknown {
    const v = this.m[this.index(g)]
    return v === undefined ? null : v
  }
  span(g: unknown = 0): [number, number] {
    const i = this.index(g)
    const text = this.m[i] as string | undefined
    if (text === undefined) return [-1, -1]
    if (i === 0) { const s = this.cp(this.m.index); return [s, s + Array.from(text).length] }
    // A group's position: its text searched from the match start (exact for the usual patterns).
    const at = this.string.indexOf(text, this.m.index)
    const s = this.cp(at)
    return [s, s + Array.from(text).length]
  }
  override repr(): string {
    const [s, e] = this.span()
    return `<re.Match object; span=(${s}, ${e}), match=${repr(this.m[0])}>`
  }
}

/**
 * What runs for `s`: the pattern as compiled, or past the host engine's cap (where the lookahead of a
 * `$` under re.M cannot run) its form for JavaScript's `m` flag (re-lines.ts), on the text as that
 * form takes it (paid for before it is made), with the way back to the text's matches.
 */
function target(rt: PyRun, c: ReturnType<typeof compiled>, s: string): { re: GuardedRegex; text: string; form?: Lines; back?: (m: Raw) => Raw } {
  const cap = c.re.inputCap()
  if (!c.dollarM || (!c.linesOnly && cap >= 0 && s.length <= cap)) return { re: c.re, text: s }
  rt.charge(s.length * SCAN_COST) // linesSwap reads the text
  const swap = linesSwap(s)
  const key = swap === undefined ? '' : swap?.key ?? 'plain'
  if (swap !== undefined && !c.lines.has(key)) {
    // A form per choice of stand-ins, which the texts decide: a bounded few kept (as `patterns` is).
    if (c.lines.size >= 64) c.lines.clear()
    c.lines.set(key, linesForm(c.pattern, c.flags, c.full, swap))
  }
  const form = swap === undefined ? null : c.lines.get(key)!
  if (form === null) {
    // The host form's lookahead would be refused on the linear engine: say why in the pattern's terms
    // where the form is what cannot be (else the engine's refusal of the host form names the rewrite).
    const rewrite = 'match without `$` and test the text after the match in code'
    if (swap === undefined) raise('ValueError', `this pattern's \`$\` under re.M cannot run here on this text (it holds \\r, \\u2028 or \\u2029 and also every character that could stand in for them): ${rewrite}`)
    const t = translate(c.pattern, c.flags, c.full, true)
    if (t === null || (readsEnd(t.source) && linesSource(t.source, c.full, null) === null)) raise('ValueError', `this pattern's \`$\` under re.M cannot run here past the host engine's cap (a \`\\Z\` in a lookbehind, in a group repeated by more than \`?\`, or followed by \`^\`, \`\\b\`, \`\\B\`, \`\\A\`, \`\\Z\` or a lookaround): ${rewrite}`)
    if (!c.linesOnly) return { re: c.re, text: s }
    raise('ValueError', `this pattern's \`$\` under re.M cannot run here on the linear engine: ${rewrite}`)
  }
  payChars(rt, s.length + 1)
  return { re: form.re, text: linesText(s, swap!, form.end), form, back: (m) => linesMatch(m, swap!) }
}

/**
 * A match of a form at the text's end (`n`), its texts as the form's: the form made sticky behind as
 * many of the text's characters as it reads before its start (`reach`), run on those and the end.
 * What a scan of all matches misses after one that took the end (it goes on past the end).
 */
function atEnd(rt: PyRun, form: Lines, text: string, n: number): Raw | null {
  const w = Math.min(n, form.reach)
  let re = form.tails.get(w)
  if (re === undefined) {
    try {
      re = regexSupport().make(`[\\s\\S]{${w}}(?:${form.source})`, form.flags + 'y')
    } catch {
      re = null
    }
    form.tails.set(w, re)
  }
  if (re === null) raise('ValueError', "this pattern's `$` under re.M with `\\Z` cannot run here past the host engine's cap (its lookbehinds read too far back): match without `$` and test the text after the match in code")
  const m = engine(() => regexSupport().exec(rt as unknown as Run, re, text.slice(n - w)) as Raw | null)
  if (!m) return null
  const out = m.slice() as Raw
  out[0] = (m[0] as string).slice(w)
  out.index = n
  if (m.groups) out.groups = m.groups
  return out
}

function search(rt: PyRun, c: ReturnType<typeof compiled>, s: string, mode: 'search' | 'match' | 'full'): ReMatch | null {
  const t = target(rt, mode === 'full' ? compiled(c.pattern, c.flags, true) : c, s)
  const found = engine(() => regexSupport().exec(rt as unknown as Run, t.re, t.text) as Raw | null)
  // A form's match after the end put after the text (an empty one there) is none of the text's, and
  // the leftmost: there is no other.
  const m = found && found.index > s.length ? null : found && t.back ? t.back(found) : found
  if (!m) return null
  if (mode !== 'search' && m.index !== 0) {
    // The leftmost match is not at the start: a match at the start would have been leftmost.
    return null
  }
  return new ReMatch(m, s, c.slots)
}

/**
 * Every match, as JavaScript's scan finds them on the text. On a form that reads the end put after the
 * text, the scan is the text's up to a match that takes that end: the text's scan would look for a
 * match at the end after it (`atEnd`), the form's goes on after the end (empty matches there are
 * none of the text's, dropped).
 */
function all(rt: PyRun, c: ReturnType<typeof compiled>, s: string): Raw[] {
  const t = target(rt, c, s)
  const found = engine(() => regexSupport().matchAll(rt as unknown as Run, t.re, t.text) as Raw[])
  if (!t.back) return found
  const kept = found.filter((m) => m.index <= s.length)
  const last = kept[kept.length - 1]
  if (t.form?.end && last && last.index < s.length && last.index + (last[0] as string).length > s.length) {
    const more = atEnd(rt, t.form, t.text, s.length)
    if (more) kept.push(more)
  }
  return kept.map(t.back)
}

/** A pattern the engines refuse (at compile time, or for a text beyond the host engine's cap): ValueError with the rewrite. */
function cannotRun(e: unknown): never {
  const { message, hint } = e as { message?: string; hint?: string }
  return raise('ValueError', `this pattern cannot run here: ${message ?? String(e)}${hint ? `. ${hint}` : ''}`)
}

function engine<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if ((e as { code?: string })?.code === 'REGEX_UNSAFE') cannotRun(e)
    throw e
  }
}

function str(x: unknown, what = 'string'): string {
  if (typeof x !== 'string') typeError(`expected ${what} or bytes-like object, got '${typeName(x)}'`)
  return x as string
}

function findall(rt: PyRun, c: ReturnType<typeof compiled>, s: string): unknown[] {
  return all(rt, c, s).map((m) => {
    if (c.groups === 0) return m[0]
    if (c.groups === 1) return m[1] ?? ''
    return tuple(m.slice(1).map((x) => x ?? ''))
  })
}

/** A Python replacement template (`\1`, `\g<name>`, `\g<1>`, escapes) for one match. */
function expand(template: string, m: Raw, names: string[]): string {
  let out = ''
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!
    if (ch !== '\\') { out += ch; continue }
    const n = template[++i]
    if (n === undefined) raise('ValueError', 'bad escape (end of pattern)')
    if (/\d/.test(n!)) {
      let num = n!
      if (/\d/.test(template[i + 1] ?? '')) num += template[++i]
      const k = Number(num)
      if (k >= m.length) raise('ValueError', `invalid group reference ${k}`)
      out += (m[k] as string | undefined) ?? ''
    } else if (n === 'g') {
      const end = template.indexOf('>', i)
      if (template[i + 1] !== '<' || end < 0) raise('ValueError', 'missing <')
      const ref = template.slice(i + 2, end)
      i = end
      if (/^\d+$/.test(ref)) { const k = Number(ref); if (k >= m.length) raise('ValueError', `invalid group reference ${k}`); out += (m[k] as string | undefined) ?? '' }
      else { if (!names.includes(ref)) raise('IndexError', `unknown group name '${ref}'`); out += m.groups?.[ref] ?? '' }
    } else {
      const esc: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', a: '\x07', f: '\f', v: '\v', b: '\b' }
      if (esc[n!] !== undefined) out += esc[n!]
      else if (/[A-Za-z]/.test(n!)) raise('ValueError', `bad escape \\${n}`)
      else out += '\\' + n
    }
  }
  return out
}


function sub(rt: PyRun, c: ReturnType<typeof compiled>, repl: unknown, s: string, count: number): [string, number] {
  let replace: (m: Raw) => string
  if (typeof repl === 'string') replace = (m) => expand(repl, m, c.names)
  else if (repl instanceof PyOpaque && (rt as unknown as GuestCalls).helperWaits !== undefined && !(rt as unknown as GuestCalls).helperWaits(DISPATCH)) {
    // A function (`lambda m: ...`): called back with each match, through the program's dispatcher.
    replace = (m) => {
      const r = (rt as unknown as GuestCalls).callHelper(DISPATCH, [repl, [new ReMatch(m, s, c.slots)], null])
      return typeof r === 'string' ? r : typeError(`sequence item 0: expected str instance, ${typeName(r)} found`)
    }
  } else if (repl instanceof PyOpaque) return typeError('re.sub() with a function cannot run here: the function may wait for an atom; loop over re.finditer instead')
  else return typeError(`decoding to str: need a bytes-like object, ${typeName(repl)} found`)
  let out = '', last = 0, n = 0
  for (const m of all(rt, c, s)) {
    if (count > 0 && n >= count) break
    out += s.slice(last, m.index) + replace(m)
    last = m.index + (m[0] as string).length
    n++
  }
  rt.chargeString(out)
  return [out + s.slice(last), n]
}

function split(rt: PyRun, c: ReturnType<typeof compiled>, s: string, max: number): unknown[] {
  const out: unknown[] = []
  let last = 0, n = 0
  for (const m of all(rt, c, s)) {
    if (max > 0 && n >= max) break
    out.push(s.slice(last, m.index))
    for (let i = 1; i < m.length; i++) out.push(m[i] ?? null)
    last = m.index + (m[0] as string).length
    n++
  }
  out.push(s.slice(last))
  rt.chargeSlots(out.length)
  return out
}

const num = (x: unknown, d = 0): number => (x === undefined || x === null ? d : Number(intOf(x as number)))

type Args = { a: unknown[]; kw: PyDict | null }
const kwarg = (kw: PyDict | null, name: string): unknown => kw?.map.get(name)?.[1]

/** `re.<name>(...)`, or the same method of a compiled pattern (its first argument omitted). */
function call(rt: PyRun, name: string, p: ReturnType<typeof compiled>, { a, kw }: Args): unknown {
  switch (name) {
    case 'match': return search(rt, p, str(a[0]), 'match')
    case 'search': return search(rt, p, str(a[0]), 'search')
    case 'fullmatch': return search(rt, p, str(a[0]), 'full')
    case 'findall': return findall(rt, p, str(a[0]))
    case 'finditer': { const s = str(a[0]); return all(rt, p, s).map((m) => new ReMatch(m, s, p.slots)) }
    case 'sub': return sub(rt, p, a[0], str(a[1]), num(a[2] ?? kwarg(kw, 'count')))[0]
    case 'subn': { const [t, n] = sub(rt, p, a[0], str(a[1]), num(a[2] ?? kwarg(kw, 'count'))); return tuple([t, n]) }
    case 'split': return split(rt, p, str(a[0]), num(a[1] ?? kwarg(kw, 'maxsplit')))
  }
  return raise('AttributeError', `'Pattern' object has no attribute '${name}'`)
}

const SCANS = new Set(['match', 'search', 'fullmatch', 'findall', 'finditer'])

/**
 * A pattern's `pos` / `endpos` (`p.search(text, 3)`): only the whole text (0 and at least its length).
 * CPython does not read a window as a slice (`^` and lookbehind still see the text before `pos`),
 * and the engines here scan from the start.
 */
function wholeText(a: unknown[], kw: PyDict | null): void {
  const pos = num(a[1] ?? kwarg(kw, 'pos'))
  const end = a[2] ?? kwarg(kw, 'endpos')
  if (pos <= 0 && (end === undefined || end === null || num(end) >= Array.from(str(a[0])).length)) return
  raise('NotImplementedError', "a compiled pattern's pos and endpos are not supported here: slice the text (p.search(text[pos:endpos])) and add pos to the positions")
}

const FLAG_ARG: Record<string, number> = { match: 2, search: 2, fullmatch: 2, findall: 2, finditer: 2, split: 3, sub: 4, subn: 4, compile: 1 }

/** `re.name(pattern, ...)`. */
export function reCall(rt: PyRun, name: string, a: unknown[], kw: PyDict | null): unknown {
  // CPython 3.7+ escapes only the characters special in a pattern.
  if (name === 'escape') return str(a[0]).replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (ch) => '\\' + ch)
  const fi = FLAG_ARG[name]!
  const flags = a[fi] ?? kwarg(kw, 'flags')
  if (a[0] instanceof RePattern && num(flags) !== 0) raise('ValueError', 'cannot process flags argument with a compiled pattern')
  const p = compiled(a[0], flags)
  if (name === 'compile') return new RePattern(p, p.pattern, p.flags)
  return call(rt, name, p, { a: a.slice(1, fi), kw })
}

/** Methods of patterns and matches; undefined: not one of these objects. */
export function reMethod(rt: PyRun, o: unknown, name: string, a: unknown[], kw: PyDict | null): unknown {
  if (o instanceof RePattern) {
    if (SCANS.has(name)) wholeText(a, kw)
    return call(rt, name, o.full, { a, kw })
  }
  if (o instanceof ReMatch) {
    switch (name) {
      case 'group': return a.length <= 1 ? o.group(a[0]) : tuple(a.map((g) => o.group(g)))
      case 'groups': return tuple(o.m.slice(1).map((x) => (x === undefined ? (a[0] ?? null) : x)))
      case 'groupdict': { const d = new PyDict(); for (const n of o.slots) if (n !== null) d.map.set(n, [n, o.m.groups?.[n] ?? (a[0] ?? null)]); return d }
      case 'start': return o.span(a[0])[0]
      case 'end': return o.span(a[0])[1]
      case 'span': return tuple(o.span(a[0]))
    }
    return raise('AttributeError', `'re.Match' object has no attribute '${name}'`)
  }
  return undefined
}

/** `m[i]`, `p.pattern`, `m.string`. */
export function reItem(o: unknown, k: unknown): unknown {
  return o instanceof ReMatch ? o.group(k) : undefined
}
export function reAttr(o: unknown, name: string): unknown {
  if (o instanceof RePattern) { if (name === 'pattern') return o.pattern; if (name === 'flags') return o.flags }
  if (o instanceof ReMatch) {
    if (name === 'string') return o.string
    if (name === 'lastindex') return o.lastIndex()
    if (name === 'lastgroup') { const i = o.lastIndex(); return i === null ? null : o.slots[i] ?? null }
  }
  return undefined
}
