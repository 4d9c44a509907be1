/**
 * The linear-time regex engine's parser (linear-regex.ts compiles and runs
 * what it returns): JavaScript regex syntax without the `u` flag, to a tree,
 * and the lookbehind rules (a bounded length, no capturing group inside),
 * checked here so the host engine's path applies the same ones.
 */
import { vmError } from '../errors.ts'

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/** Backreferences are not regular: the rewrite is a capture compared in code. */
export const BACKREF_HINT = 'Backreferences cannot run in linear time: capture the text with a group and compare the groups in code, e.g. for (\\w)\\1 match (\\w)(\\w) and compare groups 1 and 2.'

export type Range = [number, number]
export type Node =
  | { t: 'char'; c: number }
  | { t: 'any' }
  | { t: 'class'; ranges: Range[]; negated: boolean }
  | { t: 'bol' } | { t: 'eol' } | { t: 'word'; negated: boolean }
  | { t: 'group'; index: number; body: Node }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; body: Node; min: number; max: number; greedy: boolean }
  | { t: 'ahead'; negated: boolean; body: Node }
  | { t: 'behind'; negated: boolean; body: Node }

/** Longest lookbehind body (characters) the engine reads back: each check costs up to this many steps. */
export const MAX_LOOKBEHIND = 255

const DIGIT: Range[] = [[48, 57]]
const WORD: Range[] = [[48, 57], [65, 90], [95, 95], [97, 122]]
const SPACE: Range[] = [[9, 13], [32, 32], [160, 160], [5760, 5760], [8192, 8202], [8232, 8233], [8239, 8239], [8287, 8287], [12288, 12288], [65279, 65279]]

export function unsupported(why: string, hint?: string): never {
  throw vmError('REGEX_UNSAFE', `Regular expression needs the linear engine, which does not support ${why}`, hint === undefined ? undefined : { hint })
}

/** Shortest and longest text a node can match (Infinity: unbounded). */
function widthOf(n: Node): [number, number] {
  switch (n.t) {
    case 'char': case 'any': case 'class': return [1, 1]
    case 'group': return widthOf(n.body)
    case 'cat': {
      let lo = 0, hi = 0
      for (const it of n.items) { const [a, b] = widthOf(it); lo += a; hi += b }
      return [lo, hi]
    }
    case 'alt': {
      const ws = n.items.map(widthOf)
      return [Math.min(...ws.map((w) => w[0])), Math.max(...ws.map((w) => w[1]))]
    }
    case 'rep': {
      const [a, b] = widthOf(n.body)
      return [a * n.min, b === 0 ? 0 : b * n.max]
    }
    default: return [0, 0] // assertions
  }
}

/** A hint's rewrite of an unbounded lookbehind: each `*` / `+` given a bound. */
function boundedRewrite(text: string): string {
  return text.replace(/(^|[^\\])\*/g, '$1{0,50}').replace(/(^|[^\\])\+/g, '$1{1,50}').replace(/\{(\d+),\}/g, '{$1,50}')
}

function invert(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Range[] = []
  let next = 0
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1])
    next = Math.max(next, hi + 1)
  }
  if (next <= 0xffff) out.push([next, 0xffff])
  return out
}

export class Parser {
  i = 0
  groups = 0
  names: Record<string, number> = {}
  /** Each lookbehind's [shortest, longest] width and text, in source order. */
  behinds: Array<{ min: number; max: number; text: string }> = []
  /** `lenient`: record lookbehind widths without refusing unbounded ones (re.ts checks Python's fixed-width rule first). */
  constructor(readonly src: string, readonly lenient = false) {}

  parse(): Node {
    const n = this.alt()
    if (this.i < this.src.length) unsupported(`"${this.src[this.i]}" at ${this.i}`)
    return n
  }

  private peek(): string | undefined { return this.src[this.i] }

  private alt(): Node {
    const items = [this.cat()]
    while (this.peek() === '|') { this.i++; items.push(this.cat()) }
    return items.length === 1 ? items[0]! : { t: 'alt', items }
  }

  private cat(): Node {
    const items: Node[] = []
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.repeat())
    return items.length === 1 ? items[0]! : { t: 'cat', items }
  }

  private repeat(): Node {
    let body = this.atom()
    for (;;) {
      const ch = this.peek()
      let min: number, max: number
      if (ch === '*') { min = 0; max = Infinity; this.i++ }
      else if (ch === '+') { min = 1; max = Infinity; this.i++ }
      else if (ch === '?') { min = 0; max = 1; this.i++ }
      else if (ch === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))
        if (!m) return body // a literal '{', as in JS (non-u)
        min = Number(m[1])
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3])
        this.i += m[0].length
      } else return body
      let greedy = true
      if (this.peek() === '?') { greedy = false; this.i++ }
      body = { t: 'rep', body, min, max, greedy }
    }
  }

  private atom(): Node {
    const ch = this.src[this.i++]!
    switch (ch) {
      case '.': return { t: 'any' }
      case '^': return { t: 'bol' }
      case '$': return { t: 'eol' }
      case '[': return this.cls()
      case '(': return this.group()
      case '\\': return this.escape(false) as Node
      default: return { t: 'char', c: ch.charCodeAt(0) }
    }
  }

  private group(): Node {
    let index = -1
    if (this.src.startsWith('?<=', this.i) || this.src.startsWith('?<!', this.i)) return this.lookbehind()
    if (this.src.startsWith('?=', this.i) || this.src.startsWith('?!', this.i)) {
      const negated = this.src[this.i + 1] === '!'
      this.i += 2
      const body = this.alt()
      if (this.src[this.i++] !== ')') unsupported('an unbalanced parenthesis')
      return { t: 'ahead', negated, body }
    }
    if (this.src.startsWith('?:', this.i)) this.i += 2
    else if (this.src.startsWith('?<', this.i) && !this.src.startsWith('?<=', this.i) && !this.src.startsWith('?<!', this.i)) {
      const end = this.src.indexOf('>', this.i)
      const name = this.src.slice(this.i + 2, end)
      this.i = end + 1
      index = ++this.groups
      this.names[name] = index
    } else if (this.peek() === '?') unsupported(`the group syntax (${this.src.slice(this.i, this.i + 2)}`)
    else index = ++this.groups
    const body = this.alt()
    if (this.src[this.i++] !== ')') unsupported('an unbalanced parenthesis')
    return index < 0 ? body : { t: 'group', index, body }
  }

  /** `(?<=body)` / `(?<!body)`: its body must have a bounded length and no capturing group. */
  private lookbehind(): Node {
    const start = this.i - 1
    const negated = this.src[this.i + 2] === '!'
    this.i += 3
    const groupsBefore = this.groups
    const body = this.alt()
    if (this.src[this.i++] !== ')') unsupported('an unbalanced parenthesis')
    const text = this.src.slice(start, this.i)
    const [min, max] = widthOf(body)
    this.behinds.push({ min, max, text })
    if (this.lenient) return { t: 'behind', negated, body }
    if (max === Infinity) {
      throw vmError('REGEX_UNSAFE', `Regular expression lookbehind ${text} can match text of any length: only lookbehind of a bounded length is supported (it is checked by reading back at most ${MAX_LOOKBEHIND} characters)`,
        { hint: `Bound every repetition inside the lookbehind, e.g. ${boundedRewrite(text)}; or match the text before as a group and test that group in code.` })
    }
    if (max > MAX_LOOKBEHIND) {
      throw vmError('REGEX_UNSAFE', `Regular expression lookbehind ${text} can match up to ${max} characters: at most ${MAX_LOOKBEHIND} are supported`,
        { hint: `Lower the repetition bounds inside the lookbehind to at most ${MAX_LOOKBEHIND} characters in all; or match the text before as a group and test that group in code.` })
    }
    if (this.groups !== groupsBefore) {
      throw vmError('REGEX_UNSAFE', `Regular expression lookbehind ${text} contains a capturing group, which is not supported`,
        { hint: 'Make the groups inside the lookbehind non-capturing, (?:...); to get that text, capture it in the pattern itself, e.g. (x)(y) in place of (?<=(x))y, and use the second group as the match.' })
    }
    return { t: 'behind', negated, body }
  }

  /** An escape; inside a class returns its ranges. */
  private escape(inClass: boolean): Node | Range[] {
    const ch = this.src[this.i++]
    if (ch === undefined) unsupported('a trailing backslash')
    const set = (ranges: Range[], negated: boolean): Node | Range[] =>
      inClass ? (negated ? invert(ranges) : ranges) : { t: 'class', ranges, negated }
    switch (ch) {
      case 'd': return set(DIGIT, false)
      case 'D': return set(DIGIT, true)
      case 'w': return set(WORD, false)
      case 'W': return set(WORD, true)
      case 's': return set(SPACE, false)
      case 'S': return set(SPACE, true)
      case 'b': return inClass ? [[8, 8]] : { t: 'word', negated: false }
      case 'B': if (inClass) unsupported('\\B in a class'); return { t: 'word', negated: true }
    }
    let code: number
    switch (ch) {
      case 'n': code = 10; break
      case 'r': code = 13; break
      case 't': code = 9; break
      case 'v': code = 11; break
      case 'f': code = 12; break
      case '0': code = 0; break
      case 'x': code = this.hex(2); break
      case 'u': code = this.hex(4); break
      case 'c': code = (this.src.charCodeAt(this.i++) ?? 64) % 32; break
      default:
        if (/[1-9]/.test(ch!) || ch === 'k') unsupported('backreferences', BACKREF_HINT)
        code = ch!.charCodeAt(0)
    }
    return inClass ? [[code, code]] : { t: 'char', c: code }
  }

  private hex(n: number): number {
    const h = this.src.slice(this.i, this.i + n)
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) unsupported('a malformed hex escape')
    this.i += n
    return parseInt(h, 16)
  }

  private cls(): Node {
    let negated = false
    if (this.peek() === '^') { negated = true; this.i++ }
    const ranges: Range[] = []
    let first = true
    while (this.i < this.src.length && (this.peek() !== ']' || (first && false))) {
      first = false
      const lo = this.classAtom()
      if (this.peek() === '-' && this.src[this.i + 1] !== ']' && this.src[this.i + 1] !== undefined && lo.length === 1 && lo[0]![0] === lo[0]![1]) {
        this.i++
        const hi = this.classAtom()
        if (hi.length === 1 && hi[0]![0] === hi[0]![1]) {
          if (hi[0]![0] < lo[0]![0]) unsupported('a class range out of order')
          ranges.push([lo[0]![0], hi[0]![0]])
          continue
        }
        ranges.push(...lo, [45, 45], ...hi)
        continue
      }
      ranges.push(...lo)
    }
    if (this.src[this.i++] !== ']') unsupported('an unterminated class')
    return { t: 'class', ranges, negated }
  }

  private classAtom(): Range[] {
    const ch = this.src[this.i++]!
    if (ch === '\\') return this.escape(true) as Range[]
    const c = ch.charCodeAt(0)
    return [[c, c]]
  }
}

/**
 * The lookbehinds of a pattern, for the host-engine path and Python's re:
 * `lenient` false refuses (REGEX_UNSAFE with a hint) any this engine could
 * not run, so the host engine never takes one that a longer input would
 * fail on; `lenient` true only measures them.
 */
export function lookbehinds(source: string, lenient = false): Array<{ min: number; max: number; text: string }> {
  const p = new Parser(source, lenient)
  p.parse()
  return p.behinds
}
