/**
 * `re.M`'s `$` on texts past the host engine's cap. CPython's line end is `\n` only; JavaScript's `m`
 * flag also ends lines at `\r`, `\u2028` and `\u2029`. re.ts writes `$` under re.M as the lookahead
 * `(?![^\n])`, exact on the host engine, which the linear engine (the one past the cap) does not take.
 * There it runs with JavaScript's `m` flag instead: as it is on a text without those three characters,
 * else on a text where they are swapped for three spaces that are no line ends and that the text does
 * not hold (U+2004..U+2006 mostly, else characters of the private use area; none is a line end, a word
 * character for `\b` or cased), the pattern's characters and classes swapped alike, so that `\n` is the
 * text's only line end; each match's texts are swapped back. fullmatch's end and `\Z` are
 * a U+2029 (a line end, so `$` holds before it) put after the text, which no class of the pattern
 * matches: only a match that reaches the end of the text can take it. A match can start after it (an
 * empty one: none of the text's) and one that takes it ends the scan there: re.ts drops the first and
 * asks for a match at the text's end after the second (`linesReach`).
 */
import { Parser, type Node, type Range } from '../../vm/builtins/linear-regex-parse.ts'

/**
 * Which characters stand in for `\r`, `\u2028` and `\u2029` (in this order): the first three of these
 * spaces that the text does not hold, else of the private use area (PUA). None is a line end, a word
 * character for JavaScript's `\b` or cased; classes are written out as ranges (`swapRanges`), so a
 * stand-in is in a class exactly when what it stands for is, whatever class it is in itself.
 */
const STAND_INS = [0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2000, 0x2001, 0x2002, 0x2003, 0x1680, 0x202f, 0x205f, 0x3000]
const PUA = 0xe000
const PUA_END = 0xf8ff
/** A swap: each of the three and its stand-in, both ways, and a search for all six. */
export type Swap = { key: string; map: Map<number, number>; all: RegExp }
const swaps = new Map<string, Swap>()

function swapOf(stand: number[]): Swap {
  const key = stand.map(hex).join('')
  let swap = swaps.get(key)
  if (!swap) {
    const map = new Map<number, number>([0x0d, 0x2028, 0x2029].flatMap((c, i): Array<[number, number]> => [[c, stand[i]!], [stand[i]!, c]]))
    swaps.set(key, (swap = { key, map, all: new RegExp(`[\\r\\u2028\\u2029${key}]`, 'g') }))
  }
  return swap
}

/** The end fullmatch and `\Z` take (U+2029; a swapped text's own are a stand-in, and one not swapped has none). */
const END = 0x2029
/**
 * How re.ts writes the `i`th `\Z` for this form: a group under a name no Python pattern can hold,
 * written back as the end (each its own name: the parser keeps one group per name).
 */
const END_NAME = 'ajs$end'
export const endMark = (i: number): string => `(?<${END_NAME}${i}>)`
/** Whether a source re.ts wrote holds a `\Z` (reads the end put after the text). */
export const readsEnd = (source: string): boolean => source.includes(`(?<${END_NAME}`)

const hex = (c: number): string => `\\u${c.toString(16).padStart(4, '0')}`
/** A character as a pattern's literal: printable ASCII as written (the guard reads literal alternatives), others as \uXXXX. */
const literal = (c: number): string =>
  c >= 0x20 && c < 0x7f ? (/[\\^$.|?*+()[\]{}/-]/.test(String.fromCharCode(c)) ? '\\' : '') + String.fromCharCode(c) : hex(c)

/** A class's ranges with the swapped characters exchanged (one to one, so a negated class stays negated) and the end left out. */
function swapRanges(ranges: Range[], negated: boolean, swap: Swap | null): Range[] {
  const out: Range[] = []
  const has = (c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi)
  const cut = swap ? [...swap.map.keys()] : [END]
  for (const [lo, hi] of ranges) {
    let from = lo
    for (const c of cut.sort((a, b) => a - b)) {
      if (c < from || c > hi) continue
      if (c > from) out.push([from, c - 1])
      from = c + 1
    }
    if (from <= hi) out.push([from, hi])
  }
  // A stand-in is in the class if what it stands for is; the end never is (a negated class lists it).
  if (swap) for (const [c, to] of swap.map) if (to !== END && has(c)) out.push([to, to])
  if (negated) out.push([END, END])
  return out
}

/**
 * A node written back as JavaScript pattern text, its characters swapped if `swap`. A `\Z` inside a
 * lookbehind (`behind`) cannot be the end put after the text (the lookbehind would have to stand past
 * it): refused, as the parser's refusals are.
 */
function emit(n: Node, names: Map<number, string>, swap: Swap | null, behind = false): string {
  const again = (x: Node) => emit(x, names, swap, behind)
  const wrapped = (x: Node) => (x.t === 'char' || x.t === 'any' || x.t === 'class' || x.t === 'group' ? again(x) : `(?:${again(x)})`)
  switch (n.t) {
    case 'char': return literal(swap?.map.get(n.c) ?? n.c)
    case 'any': return `[^${hex(END)}]`
    case 'class': return `[${n.negated ? '^' : ''}${swapRanges(n.ranges, n.negated, swap).map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`
    case 'bol': return '^'
    case 'eol': return '$'
    case 'word': return n.negated ? '\\B' : '\\b'
    case 'group': {
      const name = names.get(n.index)
      if (name?.startsWith(END_NAME)) {
        if (behind) throw new Error('\\Z in a lookbehind')
        return hex(END)
      }
      return `(${name === undefined ? '' : `?<${name}>`}${again(n.body)})`
    }
    case 'cat': return n.items.map((x) => (x.t === 'alt' ? wrapped(x) : again(x))).join('')
    case 'alt': return n.items.map(again).join('|')
    case 'rep': {
      const q = n.min === 0 && n.max === Infinity ? '*' : n.min === 1 && n.max === Infinity ? '+' : n.min === 0 && n.max === 1 ? '?'
        : n.max === Infinity ? `{${n.min},}` : n.min === n.max ? `{${n.min}}` : `{${n.min},${n.max}}`
      return wrapped(n.body) + q + (n.greedy ? '' : '?')
    }
    case 'ahead': return `(?${n.negated ? '!' : '='}${again(n.body)})`
    case 'behind': return `(?<${n.negated ? '!' : '='}${emit(n.body, names, swap, true)})`
  }
}

/**
 * The form of a pattern re.ts translated for JavaScript's `m` flag (`^`, `$` as written, `\Z` as
 * endMark), swapped or not, with fullmatch's end after it; null when the linear engine's parser
 * cannot read it (the caller keeps the host form, whose refusal names the rewrite).
 */
export function linesSource(source: string, full: boolean, swap: Swap | null): { source: string; reach: number } | null {
  let tree: Node, out: string
  try {
    const p = new Parser(source, true)
    tree = p.parse()
    out = emit(tree, new Map(Object.entries(p.names).map(([name, i]) => [i, name] as const)), swap)
  } catch {
    return null
  }
  // fullmatch: the end, unless a `\Z` took it already.
  return { source: full ? `(?:${out})(?:${hex(END)}|(?<=${hex(END)}))` : out, reach: linesReach(tree) }
}

/**
 * Whether what may follow a `\Z` that ends at `at` in a Python pattern reads the same one past the
 * text's end (where the form stands after the end put after the text) as at the end: `$` (holds
 * there too), a character, class or `.` however repeated (fails there too, or matches nothing), groups
 * of these (`(...)`, `(?:...)`, `(?P<name>...)`, repeated or not), `)` closing a group around the `\Z`
 * (repeated only by `?`: a repetition would follow it with the group's start), and after a `|` at its
 * level nothing of that group (its other alternatives follow nothing of the `\Z`). `^`, `\b`, `\B`,
 * `\A`, another `\Z` and lookaround would not read what they read at the end: those patterns keep the
 * host form (refused past the cap, naming the rewrite).
 */
export function onlyEndAfter(src: string, at: number): boolean {
  /** Groups opened after the `\Z`: all their alternatives follow it. */
  let depth = 0
  let i = at
  while (i < src.length) {
    const c = src[i]!
    if (c === '$') { i++; continue }
    if (c === '|') {
      if (depth > 0) { i++; continue }
      i = groupEnd(src, i)
      if (i < 0) return true
      continue
    }
    if (c === ')') {
      if (depth > 0) { depth--; i = afterQuantifier(src, i + 1); continue }
      i += src[i + 1] !== '?' ? 1 : src[i + 2] === '?' ? 3 : 2
      continue
    }
    if (c === '(') {
      const open = /^\((?:\?:|\?P<\w+>|(?!\?))/.exec(src.slice(i, i + 100))
      if (!open) return false // lookaround (or a backreference, refused anyway)
      depth++
      i += open[0].length
      continue
    }
    const atom = /^(?:\\[wWsSdDntrfva0\\.^$|?*+()[\]{}\-/ #&~'"<>=!,:;@%`]|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\[\^?\]?(?:\\.|[^\]\\])*\]|[^\\^$|?*+()[{])/.exec(src.slice(i, i + 1000))
    if (!atom) return false // ^, \b, \B, \A, \Z, a backreference
    i = afterQuantifier(src, i + atom[0].length)
  }
  return true
}

/** The position after a quantifier at `i` (`*`, `+`, `?`, `{m,n}`, each lazy or not), or `i`. */
function afterQuantifier(src: string, i: number): number {
  const q = /^(?:[*+?]|\{\d*(?:,\d*)?\})\??/.exec(src.slice(i, i + 30))
  return q ? i + q[0].length : i
}

/** The `)` that closes the group holding `from` (-1: none, the top level). */
function groupEnd(src: string, from: number): number {
  let depth = 0
  for (let i = from; i < src.length; i++) {
    const c = src[i]
    if (c === '\\') i++
    else if (c === '[') {
      // A class: a `]` first (after `^`) is a member, as in CPython.
      i += src[i + 1] === '^' ? 2 : 1
      if (src[i] === ']') i++
      while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1
    } else if (c === '(') depth++
    else if (c === ')' && depth-- === 0) return i
  }
  return -1
}

/** Most characters a node matches (assertions none; lookbehind bodies are bounded, Python's fixed width). */
function widest(n: Node): number {
  switch (n.t) {
    case 'char': case 'any': case 'class': return 1
    case 'group': return widest(n.body)
    case 'cat': return n.items.reduce((w, x) => w + widest(x), 0)
    case 'alt': return Math.max(...n.items.map(widest))
    case 'rep': { const w = widest(n.body); return w === 0 || n.max === 0 ? 0 : w * n.max }
    default: return 0
  }
}

/**
 * How many characters before the position where a match starts the pattern may read (`^` and `\b` one,
 * a lookbehind its width and what its own assertions read): a match at the text's end needs only
 * that many of the text (re.ts's sticky form). Conservative: what a node reads back is counted from
 * the match's start, not from where the node is.
 */
export function linesReach(n: Node): number {
  switch (n.t) {
    case 'bol': case 'word': return 1
    case 'group': case 'rep': case 'ahead': return linesReach(n.body)
    case 'cat': case 'alt': return Math.max(0, ...n.items.map(linesReach))
    case 'behind': return widest(n.body) + linesReach(n.body)
    default: return 0
  }
}

/**
 * How the text is swapped: not at all (null) if it holds none of `\r`, `\u2028`, `\u2029` (the line
 * ends JavaScript has and CPython has not); undefined if it holds all the stand-ins too (the fifteen
 * spaces and all 6,400 PUA characters).
 */
export function linesSwap(s: string): Swap | null | undefined {
  if (!/[\r\u2028\u2029]/.test(s)) return null
  const stand: number[] = []
  for (const c of STAND_INS) if (stand.length < 3 && !s.includes(String.fromCharCode(c))) stand.push(c)
  if (stand.length < 3) {
    // One pass for which PUA characters the text holds; the first it does not, in order.
    const held = new Uint8Array(PUA_END - PUA + 1)
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= PUA && c <= PUA_END) held[c - PUA] = 1
    }
    for (let c = PUA; c <= PUA_END && stand.length < 3; c++) if (!held[c - PUA]) stand.push(c)
  }
  return stand.length === 3 ? swapOf(stand) : undefined
}

/** The text a form runs on: swapped or not, with the end after it if the pattern takes it. */
export function linesText(s: string, swap: Swap | null, end: boolean): string {
  const t = swap ? s.replace(swap.all, (ch) => String.fromCharCode(swap.map.get(ch.charCodeAt(0))!)) : s
  return end ? t + String.fromCharCode(END) : t
}

type Raw = unknown[] & { index: number; groups?: Record<string, string | undefined> }

/** A match on a form's text as a match on the text: the end dropped (the form's only U+2029), its texts swapped back. */
export function linesMatch(m: Raw, swap: Swap | null): Raw {
  const back = (x: unknown) => {
    if (typeof x !== 'string') return x
    const t = x.endsWith(String.fromCharCode(END)) ? x.slice(0, -1) : x
    return linesText(t, swap, false)
  }
  const out = m.map(back) as Raw
  out.index = m.index
  if (m.groups) out.groups = Object.fromEntries(Object.entries(m.groups).map(([k, v]) => [k, back(v) as string | undefined]))
  return out
}
