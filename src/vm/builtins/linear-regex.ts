/**
 * A linear-time regular-expression engine (Thompson NFA simulated Pike-VM
 * style, with captures and leftmost-first priority, so results agree with
 * JavaScript's backtracking engine for the patterns it accepts).
 *
 * The VM runs a guest regex on the host engine while the input is short
 * enough for its worst-case backtracking to stay cheap, and on this engine
 * beyond that: time is O(input × pattern) whatever the pattern, and every
 * step is metered. Lookbehind of a bounded length is checked by reading
 * back from the position (its body compiled reversed, run as a set of states
 * for at most MAX_LOOKBEHIND characters: O(width) per check, metered).
 * Not supported (refused with REGEX_UNSAFE and a hint): backreferences (not
 * regular: no linear-time engine can match them), lookahead, lookbehind of
 * unbounded length or with capturing groups inside, the `u` flag.
 */
import { vmError } from '../errors.ts'

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/** Backreferences are not regular: the rewrite is a capture compared in code. */
export const BACKREF_HINT = 'Backreferences cannot run in linear time: capture the text with a group and compare the groups in code, e.g. for (\\w)\\1 match (\\w)(\\w) and compare groups 1 and 2.'

type Range = [number, number]
type Node =
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

function unsupported(why: string, hint?: string): never {
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

class Parser {
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

// ---------------------------------------------------------------------------
// Compiling to a Pike-VM program
// ---------------------------------------------------------------------------

const enum Op { Char, Any, AnyNl, Class, Split, Jmp, Save, Bol, Eol, Word, NotWord, Match, Mark, Check, Reset, Behind }

interface Inst { op: Op; x: number; y: number; ranges?: Range[]; negated?: boolean }

/** A lookbehind's body, compiled reversed (read right to left from the position), and its state-set marks. */
interface Behind { prog: Inst[]; mark: Int32Array; gen: number }

const MAX_PROGRAM = 20_000

function canon(c: number, icase: boolean): number {
  if (!icase) return c
  const ch = String.fromCharCode(c)
  const up = ch.toUpperCase()
  if (up.length !== 1) return c
  const u = up.charCodeAt(0)
  return c >= 128 && u < 128 ? c : u
}

function groupsIn(n: Node, out: number[] = []): number[] {
  switch (n.t) {
    case 'group': out.push(n.index); groupsIn(n.body, out); break
    case 'cat': case 'alt': for (const it of n.items) groupsIn(it, out); break
    case 'rep': groupsIn(n.body, out); break
  }
  return out
}

class Compiler {
  prog: Inst[] = []
  /** Registers (after the capture slots) holding where an optional iteration began. */
  registers = 0
  /**
   * `reverse`: a lookbehind body, whose sequences are emitted last item
   * first (it runs right to left); `behinds` is shared with the sub-programs.
   */
  constructor(readonly icase: boolean, readonly dotAll: boolean, readonly ncap: number, readonly behinds: Behind[] = [], readonly reverse = false) {}

  /**
   * One optional iteration, with JavaScript's rules: the captures inside are
   * cleared when it starts, and an iteration that matches nothing fails.
   */
  private iteration(body: Node): void {
    const groups = groupsIn(body)
    if (groups.length > 0) this.emit(Op.Reset, 2 * Math.min(...groups), 2 * Math.max(...groups) + 2)
    const reg = this.ncap + this.registers++
    this.emit(Op.Mark, reg)
    this.node(body)
    this.emit(Op.Check, reg)
  }

  emit(op: Op, x = 0, y = 0, extra?: Partial<Inst>): number {
    if (this.prog.length >= MAX_PROGRAM) unsupported(`patterns longer than ${MAX_PROGRAM} instructions`)
    this.prog.push({ op, x, y, ...extra })
    return this.prog.length - 1
  }

  node(n: Node): void {
    switch (n.t) {
      case 'char': this.emit(Op.Char, canon(n.c, this.icase)); return
      case 'any': this.emit(this.dotAll ? Op.AnyNl : Op.Any); return
      case 'class': this.emit(Op.Class, 0, 0, { ranges: n.ranges, negated: n.negated }); return
      case 'bol': this.emit(Op.Bol); return
      case 'eol': this.emit(Op.Eol); return
      case 'word': this.emit(n.negated ? Op.NotWord : Op.Word); return
      case 'group':
        this.emit(Op.Save, 2 * n.index)
        this.node(n.body)
        this.emit(Op.Save, 2 * n.index + 1)
        return
      case 'cat':
        if (this.reverse) for (let k = n.items.length - 1; k >= 0; k--) this.node(n.items[k]!)
        else for (const it of n.items) this.node(it)
        return
      case 'ahead': unsupported('lookahead', 'Lookahead runs on the host engine for inputs within its length cap only: on longer inputs match without it and test the text after the match in code.')
      // falls through (unsupported throws)
      case 'behind': {
        const sub = new Compiler(this.icase, this.dotAll, 0, this.behinds, true)
        sub.node(n.body)
        sub.emit(Op.Match)
        if (this.prog.length + sub.prog.length >= MAX_PROGRAM) unsupported(`patterns longer than ${MAX_PROGRAM} instructions`)
        this.behinds.push({ prog: sub.prog, mark: new Int32Array(sub.prog.length), gen: 0 })
        this.emit(Op.Behind, this.behinds.length - 1, n.negated ? 1 : 0)
        return
      }
      case 'alt': {
        const jumps: number[] = []
        n.items.forEach((it, k) => {
          if (k < n.items.length - 1) {
            const split = this.emit(Op.Split)
            this.prog[split]!.x = split + 1
            this.node(it)
            jumps.push(this.emit(Op.Jmp))
            this.prog[split]!.y = this.prog.length
          } else this.node(it)
        })
        for (const j of jumps) this.prog[j]!.x = this.prog.length
        return
      }
      case 'rep': {
        const groups = groupsIn(n.body)
        for (let k = 0; k < n.min; k++) {
          if (groups.length > 0) this.emit(Op.Reset, 2 * Math.min(...groups), 2 * Math.max(...groups) + 2)
          this.node(n.body)
        }
        if (n.max === Infinity) {
          const split = this.emit(Op.Split)
          this.iteration(n.body)
          this.emit(Op.Jmp, split)
          const after = this.prog.length
          this.prog[split]!.x = n.greedy ? split + 1 : after
          this.prog[split]!.y = n.greedy ? after : split + 1
          return
        }
        const splits: number[] = []
        for (let k = n.min; k < n.max; k++) {
          splits.push(this.emit(Op.Split))
          this.iteration(n.body)
        }
        const after = this.prog.length
        for (const sp of splits) {
          this.prog[sp]!.x = n.greedy ? sp + 1 : after
          this.prog[sp]!.y = n.greedy ? after : sp + 1
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

export interface LinearMatch {
  index: number
  /** Group texts, [0] is the whole match; undefined for groups that did not take part. */
  captures: Array<string | undefined>
  groups?: Record<string, string | undefined>
}

const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029
const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 95 || (c >= 97 && c <= 122)

function inRanges(ranges: Range[], c: number): boolean {
  for (let k = 0; k < ranges.length; k++) if (c >= ranges[k]![0] && c <= ranges[k]![1]) return true
  return false
}

/** Whether every match of `node` must begin with `^`. */
function startsAtBol(node: Node): boolean {
  switch (node.t) {
    case 'bol': return true
    case 'cat': return node.items.length > 0 && startsAtBol(node.items[0]!)
    case 'group': return startsAtBol(node.body)
    case 'alt': return node.items.every(startsAtBol)
    default: return false
  }
}

/** Threads at one input position: their pcs in priority order and their capture slots, w per thread. */
class Threads {
  count = 0
  readonly pcs: Int32Array
  readonly caps: Int32Array
  constructor(size: number, w: number) {
    this.pcs = new Int32Array(size)
    this.caps = new Int32Array(size * w)
  }
}

interface ExecBuffers {
  a: Threads
  b: Threads
  mark: Int32Array
  cur: Int32Array
  init: Int32Array
  stack: number[]
  vals: number[]
  matched: Int32Array
}

export class LinearRegex {
  private readonly prog: Inst[]
  private readonly ncap: number
  private readonly nregs: number = 0
  private readonly names: Record<string, number>
  private readonly icase: boolean
  private readonly multiline: boolean
  /** Starts with `^` (no `m` flag): a match can only begin at position 0. */
  private readonly anchored: boolean
  private readonly behinds: Behind[]
  /** Steps spent in lookbehind checks since the last metering call (0 for patterns without lookbehind). */
  private lookWork = 0
  /**
   * Which ASCII characters can begin a match (1), for skipping positions
   * where none is in progress and none can start, without walking the
   * program; null when every position must be walked (see firstChars).
   * A skipped position is metered as the walk would be: one thread per
   * first instruction (firstInsts.length), none of which reads the character.
   */
  private readonly first: Uint8Array | null
  /** The instructions that can read a match's first character (for non-ASCII ones). */
  private readonly firstInsts: Inst[] = []
  /** exec's reused buffers (see exec), made on its first call. */
  private bufs: ExecBuffers | null = null
  /** The generation marking which pcs a thread list holds at the current position (grows across calls). */
  private gen = 0

  constructor(source: string, flags: string) {
    if (flags.includes('u')) unsupported('the u flag')
    const parser = new Parser(source)
    const tree = parser.parse()
    this.icase = flags.includes('i')
    this.multiline = flags.includes('m')
    this.anchored = !this.multiline && startsAtBol(tree)
    this.ncap = 2 * (parser.groups + 1)
    const c = new Compiler(this.icase, flags.includes('s'), this.ncap)
    c.node(tree)
    c.emit(Op.Match)
    this.prog = c.prog
    this.behinds = c.behinds
    this.nregs = c.registers
    this.names = parser.names
    this.first = this.firstChars()
  }

  private firstChars(): Uint8Array | null {
    const prog = this.prog
    const seen = new Uint8Array(prog.length)
    const stack = [0]
    while (stack.length > 0) {
      const p = stack.pop()!
      if (seen[p]) continue
      seen[p] = 1
      const inst = prog[p]!
      switch (inst.op) {
        case Op.Jmp: stack.push(inst.x); break
        case Op.Split: stack.push(inst.y, inst.x); break
        case Op.Char: case Op.Any: case Op.AnyNl: case Op.Class: this.firstInsts.push(inst); break
        case Op.Save: case Op.Mark: case Op.Reset: stack.push(p + 1); break
        // A conditional step (^ $ \b, an empty-iteration check, a lookbehind) or a match:
        // the threads a start makes depend on the position, so every position is walked.
        default: return null
      }
    }
    const table = new Uint8Array(128)
    for (let c = 0; c < 128; c++) table[c] = this.canStart(c) ? 1 : 0
    return table
  }

  private canStart(c: number): boolean {
    for (const inst of this.firstInsts) if (this.charMatches(inst, c)) return true
    return false
  }

  /** Cost per input position, for metering: the program length bounds the threads. */
  get width(): number {
    return this.prog.length
  }

  private charMatches(inst: Inst, c: number): boolean {
    switch (inst.op) {
      case Op.Char: return canon(c, this.icase) === inst.x
      case Op.Any: return !isLineEnd(c)
      case Op.AnyNl: return true
      case Op.Class: {
        let hit = inRanges(inst.ranges!, c)
        if (!hit && this.icase) {
          const u = canon(c, true)
          const l = String.fromCharCode(c).toLowerCase().charCodeAt(0)
          hit = inRanges(inst.ranges!, u) || inRanges(inst.ranges!, l)
        }
        return hit !== inst.negated
      }
    }
    return false
  }

  /**
   * Whether a lookbehind's body matches some text ending at `pos`: its
   * reversed program run right to left from `pos` as a set of states (no
   * captures: only whether it matches counts), each character read charged
   * to lookWork by the states alive.
   */
  private behindHolds(b: Behind, s: string, pos: number): boolean {
    const prog = b.prog
    const n = s.length
    let list: number[] = []
    let found = false
    const stack: number[] = []
    const close = (into: number[], start: number, at: number) => {
      stack.push(start)
      while (stack.length > 0) {
        const p = stack.pop()!
        if (b.mark[p] === b.gen) continue
        b.mark[p] = b.gen
        const inst = prog[p]!
        switch (inst.op) {
          case Op.Jmp: stack.push(inst.x); break
          case Op.Split: stack.push(inst.y, inst.x); break
          case Op.Save: case Op.Mark: case Op.Check: case Op.Reset: stack.push(p + 1); break
          case Op.Match: found = true; break
          default:
            if (inst.op >= Op.Char && inst.op <= Op.Class) into.push(p)
            else if (this.assertion(inst, s, at, n)) stack.push(p + 1)
        }
      }
    }
    b.gen++
    close(list, 0, pos)
    for (let at = pos; !found && list.length > 0 && at > 0; at--) {
      this.lookWork += list.length
      const c = s.charCodeAt(at - 1)
      const next: number[] = []
      b.gen++
      for (let k = 0; k < list.length; k++) if (this.charMatches(prog[list[k]!]!, c)) close(next, list[k]! + 1, at - 1)
      list = next
    }
    return found
  }

  /** A zero-width instruction (^ $ \b \B, a lookbehind) at position `pos` of `s`. */
  private assertion(inst: Inst, s: string, pos: number, n: number): boolean {
    switch (inst.op) {
      case Op.Bol: return pos === 0 || (this.multiline && isLineEnd(s.charCodeAt(pos - 1)))
      case Op.Eol: return pos === n || (this.multiline && isLineEnd(s.charCodeAt(pos)))
      case Op.Word:
      case Op.NotWord: {
        const a = pos > 0 && isWord(s.charCodeAt(pos - 1))
        const b = pos < n && isWord(s.charCodeAt(pos))
        return (a !== b) === (inst.op === Op.Word)
      }
      case Op.Behind: return this.behindHolds(this.behinds[inst.x]!, s, pos) !== (inst.y === 1)
    }
    return false
  }

  /**
   * Adds the thread at `pc` (captures: w slots of `src` from `off`) and every
   * thread its epsilon moves reach at `pos` to `list`, in priority order. A
   * depth-first walk on an explicit stack over one scratch capture array:
   * a Save pushes the slot's old value, restored when the walk comes back
   * (negative stack entries), so no capture array is copied except into the
   * list of a thread that reads a character.
   */
  private add(list: Threads, pc: number, src: Int32Array, off: number, s: string, pos: number): void {
    const prog = this.prog
    const b = this.bufs!
    const { cur, mark, stack, vals } = b
    const w = cur.length
    const gen = this.gen
    for (let k = 0; k < w; k++) cur[k] = src[off + k]!
    let sp = 0
    stack[sp++] = pc
    while (sp > 0) {
      const p = stack[--sp]!
      if (p < 0) { cur[-p - 1] = vals[sp]!; continue }
      if (mark[p] === gen) continue
      mark[p] = gen
      const inst = prog[p]!
      switch (inst.op) {
        case Op.Jmp: stack[sp++] = inst.x; break
        case Op.Split: stack[sp++] = inst.y; stack[sp++] = inst.x; break
        case Op.Save:
        case Op.Mark:
          vals[sp] = cur[inst.x]!
          stack[sp++] = -inst.x - 1
          cur[inst.x] = pos
          stack[sp++] = p + 1
          break
        case Op.Check:
          if (cur[inst.x] !== pos) stack[sp++] = p + 1
          break
        case Op.Reset:
          for (let k = inst.x; k < inst.y; k++) {
            if (cur[k] === -1) continue
            vals[sp] = cur[k]!
            stack[sp++] = -k - 1
            cur[k] = -1
          }
          stack[sp++] = p + 1
          break
        case Op.Bol: case Op.Eol: case Op.Word: case Op.NotWord: case Op.Behind:
          if (this.assertion(inst, s, pos, s.length)) stack[sp++] = p + 1
          break
        default: {
          const i = list.count++
          list.pcs[i] = p
          list.caps.set(cur, i * w)
        }
      }
    }
  }

  /** Metering: the live threads plus the lookbehind work since the last call. */
  private charge(step: (threads: number) => void, threads: number): void {
    const w = this.lookWork
    this.lookWork = 0
    step(threads + w)
  }

  /**
   * Leftmost-first match starting at or after `from` (exactly at `from` when
   * `sticky`). `step(n)` is called once per input position with the number of
   * live threads, for metering.
   */
  exec(s: string, from: number, sticky: boolean, step: (threads: number) => void): LinearMatch | null {
    const prog = this.prog
    const n = s.length
    const w = this.ncap + this.nregs
    // The thread lists, marks and scratch arrays are the engine's, reused by every call (a call runs
    // to its end before the next one starts): no allocation per input position.
    const b = (this.bufs ??= {
      a: new Threads(prog.length, w), b: new Threads(prog.length, w), mark: new Int32Array(prog.length),
      cur: new Int32Array(w), init: new Int32Array(w).fill(-1), stack: [], vals: [], matched: new Int32Array(w),
    })
    if (this.gen > 0x3fffffff) { b.mark.fill(0); this.gen = 0 } // before the Int32 marks could wrap
    let clist = b.a, nlist = b.b
    clist.count = 0
    let matched = false

    this.lookWork = 0
    if (this.anchored && from > 0) return null
    const startOnly = sticky || this.anchored
    // One generation per input position: threads reaching the same pc at the
    // same position are added once, the first (highest priority) wins.
    this.gen++
    const first = startOnly ? null : this.first
    for (let pos = from; ; pos++) {
      if (first !== null && clist.count === 0 && !matched && pos < n) {
        const c = s.charCodeAt(pos)
        if (c < 128 ? first[c] === 0 : !this.canStart(c)) {
          // No thread, and none can start here: metered as the walk's threads would be.
          this.charge(step, this.firstInsts.length)
          this.gen++
          continue
        }
      }
      if (!matched && (!startOnly || pos === from)) {
        b.init[0] = pos
        this.add(clist, 0, b.init, 0, s, pos) // lowest priority: after the surviving threads
      }
      if (clist.count === 0) {
        if (matched || startOnly || pos >= n) break
        // A position where no match is in progress is still work: metered, and the deadline checked.
        this.charge(step, 1)
        this.gen++
        continue
      }
      this.charge(step, clist.count)
      this.gen++
      nlist.count = 0
      const c = pos < n ? s.charCodeAt(pos) : -1
      for (let k = 0; k < clist.count; k++) {
        const pc = clist.pcs[k]!
        const inst = prog[pc]!
        if (inst.op === Op.Match) {
          b.matched.set(clist.caps.subarray(k * w, k * w + w))
          b.matched[1] = pos
          matched = true
          break // lower-priority threads lose
        }
        if (c >= 0 && this.charMatches(inst, c)) this.add(nlist, pc + 1, clist.caps, k * w, s, pos + 1)
      }
      const t = clist
      clist = nlist
      nlist = t
      if (pos >= n) break
    }
    if (this.lookWork > 0) this.charge(step, 0)
    if (!matched) return null
    const m = b.matched
    const captures: Array<string | undefined> = []
    for (let g = 0; g < this.ncap / 2; g++) {
      const a = m[2 * g]!, e = m[2 * g + 1]!
      captures.push(a >= 0 && e >= 0 ? s.slice(a, e) : undefined)
    }
    const out: LinearMatch = { index: m[0]!, captures }
    const names = Object.keys(this.names)
    if (names.length > 0) {
      out.groups = {}
      for (const name of names) out.groups[name] = captures[this.names[name]!]
    }
    return out
  }
}
