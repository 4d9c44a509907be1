/**
 * A linear-time regular-expression engine (Thompson NFA simulated Pike-VM
 * style, with captures and leftmost-first priority, so results agree with
 * JavaScript's backtracking engine for the patterns it accepts).
 *
 * The VM runs a guest regex on the host engine while the input is short
 * enough for its worst-case backtracking to stay cheap, and on this engine
 * beyond that: time is O(input × pattern) whatever the pattern, and every
 * step is metered. Not supported (refused with REGEX_UNSAFE, as before):
 * backreferences, lookaround, the `u` flag.
 */
import { vmError } from '../errors.ts'

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

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

const DIGIT: Range[] = [[48, 57]]
const WORD: Range[] = [[48, 57], [65, 90], [95, 95], [97, 122]]
const SPACE: Range[] = [[9, 13], [32, 32], [160, 160], [5760, 5760], [8192, 8202], [8232, 8233], [8239, 8239], [8287, 8287], [12288, 12288], [65279, 65279]]

function unsupported(why: string): never {
  throw vmError('REGEX_UNSAFE', `Regular expression needs the linear engine, which does not support ${why}`)
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
  constructor(readonly src: string) {}

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
    if (this.src.startsWith('?:', this.i)) this.i += 2
    else if (this.src.startsWith('?<', this.i) && !this.src.startsWith('?<=', this.i) && !this.src.startsWith('?<!', this.i)) {
      const end = this.src.indexOf('>', this.i)
      const name = this.src.slice(this.i + 2, end)
      this.i = end + 1
      index = ++this.groups
      this.names[name] = index
    } else if (this.peek() === '?') unsupported('lookaround')
    else index = ++this.groups
    const body = this.alt()
    if (this.src[this.i++] !== ')') unsupported('an unbalanced parenthesis')
    return index < 0 ? body : { t: 'group', index, body }
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
        if (/[1-9]/.test(ch!)) unsupported('backreferences')
        if (ch === 'k') unsupported('named backreferences')
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

// ---------------------------------------------------------------------------
// Compiling to a Pike-VM program
// ---------------------------------------------------------------------------

const enum Op { Char, Any, AnyNl, Class, Split, Jmp, Save, Bol, Eol, Word, NotWord, Match, Mark, Check, Reset }

interface Inst { op: Op; x: number; y: number; ranges?: Range[]; negated?: boolean }

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
  constructor(readonly icase: boolean, readonly dotAll: boolean, readonly ncap: number) {}

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
      case 'cat': for (const it of n.items) this.node(it); return
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

export class LinearRegex {
  private readonly prog: Inst[]
  private readonly ncap: number
  private readonly nregs: number = 0
  private readonly names: Record<string, number>
  private readonly icase: boolean
  private readonly multiline: boolean
  /** Starts with `^` (no `m` flag): a match can only begin at position 0. */
  private readonly anchored: boolean

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
    this.nregs = c.registers
    this.names = parser.names
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
   * Leftmost-first match starting at or after `from` (exactly at `from` when
   * `sticky`). `step(n)` is called once per input position with the number of
   * live threads, for metering.
   */
  exec(s: string, from: number, sticky: boolean, step: (threads: number) => void): LinearMatch | null {
    const prog = this.prog
    const n = s.length
    let clist: Array<{ pc: number; caps: Array<number> }> = []
    let nlist: Array<{ pc: number; caps: Array<number> }> = []
    const mark = new Int32Array(prog.length).fill(-1)
    let matched: number[] | null = null
    let gen = 1

    const add = (list: typeof clist, pc: number, caps: number[], pos: number) => {
      // An explicit stack keeps priority order without recursion.
      const stack: Array<[number, number[]]> = [[pc, caps]]
      while (stack.length > 0) {
        const [p, cp] = stack.pop()!
        if (mark[p] === gen) continue
        mark[p] = gen
        const inst = prog[p]!
        switch (inst.op) {
          case Op.Jmp: stack.push([inst.x, cp]); break
          case Op.Split: stack.push([inst.y, cp], [inst.x, cp]); break
          case Op.Save:
          case Op.Mark: {
            const nc = cp.slice()
            nc[inst.x] = pos
            stack.push([p + 1, nc])
            break
          }
          case Op.Check:
            if (cp[inst.x] !== pos) stack.push([p + 1, cp])
            break
          case Op.Reset: {
            const nc = cp.slice()
            for (let k = inst.x; k < inst.y; k++) nc[k] = -1
            stack.push([p + 1, nc])
            break
          }
          case Op.Bol:
            if (pos === 0 || (this.multiline && isLineEnd(s.charCodeAt(pos - 1)))) stack.push([p + 1, cp])
            break
          case Op.Eol:
            if (pos === n || (this.multiline && isLineEnd(s.charCodeAt(pos)))) stack.push([p + 1, cp])
            break
          case Op.Word:
          case Op.NotWord: {
            const a = pos > 0 && isWord(s.charCodeAt(pos - 1))
            const b = pos < n && isWord(s.charCodeAt(pos))
            if ((a !== b) === (inst.op === Op.Word)) stack.push([p + 1, cp])
            break
          }
          default:
            list.push({ pc: p, caps: cp })
        }
      }
    }

    if (this.anchored && from > 0) return null
    const startOnly = sticky || this.anchored
    // One generation per input position: threads reaching the same pc at the
    // same position are added once, the first (highest priority) wins.
    gen = 1
    for (let pos = from; ; pos++) {
      if (matched === null && (!startOnly || pos === from)) {
        const caps = new Array(this.ncap + this.nregs).fill(-1)
        caps[0] = pos
        add(clist, 0, caps, pos) // lowest priority: after the surviving threads
      }
      if (clist.length === 0) {
        if (matched !== null || startOnly || pos >= n) break
        // A position where no match is in progress is still work: metered, and the deadline checked.
        step(1)
        gen++
        continue
      }
      step(clist.length)
      gen++
      nlist = []
      const c = pos < n ? s.charCodeAt(pos) : -1
      for (let k = 0; k < clist.length; k++) {
        const th = clist[k]!
        const inst = prog[th.pc]!
        if (inst.op === Op.Match) {
          matched = th.caps.slice()
          matched[1] = pos
          break // lower-priority threads lose
        }
        if (c >= 0 && this.charMatches(inst, c)) add(nlist, th.pc + 1, th.caps, pos + 1)
      }
      clist = nlist
      if (pos >= n) break
    }
    if (matched === null) return null
    const captures: Array<string | undefined> = []
    for (let g = 0; g < this.ncap / 2; g++) {
      const a = matched[2 * g]!, b = matched[2 * g + 1]!
      captures.push(a >= 0 && b >= 0 ? s.slice(a, b) : undefined)
    }
    const out: LinearMatch = { index: matched[0]!, captures }
    const names = Object.keys(this.names)
    if (names.length > 0) {
      out.groups = {}
      for (const name of names) out.groups[name] = captures[this.names[name]!]
    }
    return out
  }
}
