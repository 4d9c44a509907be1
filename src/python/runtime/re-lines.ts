/**
 * `re.M`'s `$` on texts past the host engine's cap. CPython's line end is `\n` only; JavaScript's `m`
 * flag also ends lines at `\r`, `\u2028` and `\u2029`. re.ts writes `$` under re.M as the lookahead
 * `(?![^\n])`, exact on the host engine, which the linear engine (the one past the cap) does not take.
 * There it runs with JavaScript's `m` flag instead: as it is on a text without those three characters,
 * else on a text where they are swapped for three spaces that are no line ends (U+2004..U+2006, the
 * same to `\s`, `\w`, `\b` and case), the pattern's characters and classes swapped alike, so that
 * `\n` is the text's only line end; each match's texts are swapped back. fullmatch's end and `\Z` are
 * a U+2029 (a line end, so `$` holds before it) put after the text, which no class of the pattern
 * matches: only a match that reaches the end of the text can take it.
 */
import { Parser, type Node, type Range } from '../../vm/builtins/linear-regex-parse.ts'

/** The characters swapped, each with its stand-in: [line end, space], as code units. */
const SWAPS: Array<[number, number]> = [[0x0d, 0x2004], [0x2028, 0x2005], [0x2029, 0x2006]]
const SWAP = new Map<number, number>(SWAPS.flatMap(([a, b]) => [[a, b], [b, a]]))
const SWAPPED = /[\r\u2028\u2029\u2004-\u2006]/g
const swapChar = (ch: string): string => String.fromCharCode(SWAP.get(ch.charCodeAt(0))!)
/** The end fullmatch and `\Z` take (U+2029; a text's own are U+2006 in a swapped text, and none in one not swapped). */
const END = 0x2029
/** How re.ts writes `\Z` for this form: a group name no Python pattern can hold, written back as the end. */
const END_NAME = 'ajs$end'
export const END_MARK = `(?<${END_NAME}>)`

const hex = (c: number): string => `\\u${c.toString(16).padStart(4, '0')}`
/** A character as a pattern's literal: printable ASCII as written (the guard reads literal alternatives), others as \uXXXX. */
const literal = (c: number): string =>
  c >= 0x20 && c < 0x7f ? (/[\\^$.|?*+()[\]{}/-]/.test(String.fromCharCode(c)) ? '\\' : '') + String.fromCharCode(c) : hex(c)

/** A class's ranges with the swapped characters exchanged (one to one, so a negated class stays negated) and the end left out. */
function swapRanges(ranges: Range[], negated: boolean, swap: boolean): Range[] {
  const out: Range[] = []
  const has = (c: number) => ranges.some(([lo, hi]) => c >= lo && c <= hi)
  const cut = swap ? [...SWAP.keys()] : [END]
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
  if (swap) for (const [c, to] of SWAP) if (to !== END && has(c)) out.push([to, to])
  if (negated) out.push([END, END])
  return out
}

/** A node written back as JavaScript pattern text, its characters swapped if `swap`. */
function emit(n: Node, names: Map<number, string>, swap: boolean): string {
  const again = (x: Node) => emit(x, names, swap)
  const wrapped = (x: Node) => (x.t === 'char' || x.t === 'any' || x.t === 'class' || x.t === 'group' ? again(x) : `(?:${again(x)})`)
  switch (n.t) {
    case 'char': return literal(swap ? SWAP.get(n.c) ?? n.c : n.c)
    case 'any': return `[^${hex(END)}]`
    case 'class': return `[${n.negated ? '^' : ''}${swapRanges(n.ranges, n.negated, swap).map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`
    case 'bol': return '^'
    case 'eol': return '$'
    case 'word': return n.negated ? '\\B' : '\\b'
    case 'group': {
      const name = names.get(n.index)
      if (name === END_NAME) return hex(END)
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
    case 'behind': return `(?<${n.negated ? '!' : '='}${again(n.body)})`
  }
}

/**
 * The form of a pattern re.ts translated for JavaScript's `m` flag (`^`, `$` as written, `\Z` as
 * END_MARK), swapped or not, with fullmatch's end after it; null when the linear engine's parser
 * cannot read it (the caller keeps the host form, whose refusal names the rewrite).
 */
export function linesSource(source: string, full: boolean, swap: boolean): string | null {
  let tree: Node, p: Parser
  try {
    p = new Parser(source, true)
    tree = p.parse()
  } catch {
    return null
  }
  const names = new Map(Object.entries(p.names).map(([name, i]) => [i, name] as const))
  const out = emit(tree, names, swap)
  return full ? `(?:${out})${hex(END)}` : out
}

/** Whether the text needs the swapped form (it holds a line end JavaScript has and CPython has not); null: neither form can take it. */
export function linesSwap(s: string): boolean | null {
  if (!/[\r\u2028\u2029]/.test(s)) return false
  return /[\u2004-\u2006]/.test(s) ? null : true
}

/** The text a form runs on: swapped or not, with the end after it if the pattern takes it. */
export function linesText(s: string, swap: boolean, end: boolean): string {
  const t = swap ? s.replace(SWAPPED, swapChar) : s
  return end ? t + String.fromCharCode(END) : t
}

type Raw = unknown[] & { index: number; groups?: Record<string, string | undefined> }

/** A match on a form's text as a match on the text: the end dropped (the form's only U+2029), its texts swapped back. */
export function linesMatch(m: Raw, swap: boolean): Raw {
  const back = (x: unknown) => {
    if (typeof x !== 'string') return x
    const t = x.endsWith(String.fromCharCode(END)) ? x.slice(0, -1) : x
    return swap ? t.replace(SWAPPED, swapChar) : t
  }
  const out = m.map(back) as Raw
  out.index = m.index
  if (m.groups) out.groups = Object.fromEntries(Object.entries(m.groups).map(([k, v]) => [k, back(v) as string | undefined]))
  return out
}
