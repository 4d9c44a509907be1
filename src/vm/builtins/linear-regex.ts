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
import { Parser, unsupported, type Node, type Range } from './linear-regex-parse.ts'

export { BACKREF_HINT, MAX_LOOKBEHIND, lookbehinds } from './linear-regex-parse.ts'

// ---------------------------------------------------------------------------
// Compiling to a Pike-VM program
// ---------------------------------------------------------------------------

const enum Op { Char, Any, AnyNl, Class, Split, Jmp, Save, Bol, Eol, Word, NotWord, Match, Mark, Check, Reset, Behind }

interface Inst { op: Op; x: number; y: number; ranges?: Range[]; negated?: boolean }

/**
 * A lookbehind's body, compiled reversed (read right to left from the position), with its state-set
 * marks, two state lists and a stack, reused by every check (a check never re-enters its own lookbehind).
 */
interface Behind { prog: Inst[]; mark: Int32Array; gen: number; a: Int32Array; b: Int32Array; stack: number[]; found: boolean }

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
      // `(?=\n?$)`, the end or a final newline (how the Python runtime writes Python's `$`): a test of the position, as `$` is.
      case 'ahead': if (!n.negated && finalNewline(n.body)) { this.emit(Op.Eol, 1); return }
        unsupported('lookahead', 'Lookahead runs on the host engine for inputs within its length cap only: on longer inputs match without it and test the text after the match in code.')
      // falls through (unsupported throws)
      case 'behind': {
        const sub = new Compiler(this.icase, this.dotAll, 0, this.behinds, true)
        sub.node(n.body)
        sub.emit(Op.Match)
        if (this.prog.length + sub.prog.length >= MAX_PROGRAM) unsupported(`patterns longer than ${MAX_PROGRAM} instructions`)
        const size = sub.prog.length
        this.behinds.push({ prog: sub.prog, mark: new Int32Array(size), gen: 0, a: new Int32Array(size), b: new Int32Array(size), stack: [], found: false })
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
/** `\n?$`. */
function finalNewline(n: Node): boolean {
  if (n.t !== 'cat' || n.items.length !== 2) return false
  const [q, e] = n.items as [Node, Node]
  return e.t === 'eol' && q.t === 'rep' && q.max === 1 && !q.min && q.body.t === 'char' && q.body.c === 10
}

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
  /**
   * Grown on demand, doubling: the live threads are usually few, and a program of many
   * instructions and registers (a{0,1000}) would otherwise hold size × w slots per engine.
   */
  caps: Int32Array
  constructor(size: number, private readonly w: number) {
    this.pcs = new Int32Array(size)
    this.caps = new Int32Array(Math.min(size, 16) * w)
  }
  /** The capture slots, with room for thread `i`. */
  room(i: number): Int32Array {
    if ((i + 1) * this.w > this.caps.length) {
      const next = new Int32Array(Math.max((i + 1) * this.w, this.caps.length * 2))
      next.set(this.caps)
      this.caps = next
    }
    return this.caps
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
    let list = b.a, next = b.b
    b.found = false
    if (b.gen > 0x3fffffff) { b.mark.fill(0); b.gen = 0 } // before the Int32 marks could wrap
    b.gen++
    let count = this.closeBehind(b, list, 0, 0, s, pos)
    for (let at = pos; !b.found && count > 0 && at > 0; at--) {
      this.lookWork += count
      const c = s.charCodeAt(at - 1)
      b.gen++
      let nc = 0
      for (let k = 0; k < count; k++) if (this.charMatches(prog[list[k]!]!, c)) nc = this.closeBehind(b, next, nc, list[k]! + 1, s, at - 1)
      const t = list
      list = next
      next = t
      count = nc
    }
    return b.found
  }

  /** The states reached from `start` at `at` appended to `into` (from `count`; returns the new count); a match sets b.found. */
  private closeBehind(b: Behind, into: Int32Array, count: number, start: number, s: string, at: number): number {
    const prog = b.prog
    const stack = b.stack
    let sp = 0
    stack[sp++] = start
    while (sp > 0) {
      const p = stack[--sp]!
      if (b.mark[p] === b.gen) continue
      b.mark[p] = b.gen
      const inst = prog[p]!
      switch (inst.op) {
        case Op.Jmp: stack[sp++] = inst.x; break
        case Op.Split: stack[sp++] = inst.y; stack[sp++] = inst.x; break
        case Op.Save: case Op.Mark: case Op.Check: case Op.Reset: stack[sp++] = p + 1; break
        case Op.Match: b.found = true; break
        default:
          if (inst.op >= Op.Char && inst.op <= Op.Class) into[count++] = p
          else if (this.assertion(inst, s, at, s.length)) stack[sp++] = p + 1
      }
    }
    return count
  }

  /** A zero-width instruction (^ $ \b \B, a lookbehind) at position `pos` of `s`. */
  private assertion(inst: Inst, s: string, pos: number, n: number): boolean {
    switch (inst.op) {
      case Op.Bol: return pos === 0 || (this.multiline && isLineEnd(s.charCodeAt(pos - 1)))
      // x = 1: `(?=\n?$)` (under `m` the same as `$`).
      case Op.Eol: return pos === n || (this.multiline ? isLineEnd(s.charCodeAt(pos)) : inst.x === 1 && pos === n - 1 && s.charCodeAt(pos) === 10)
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
          const caps = list.room(i)
          for (let k = 0, o = i * w; k < w; k++) caps[o + k] = cur[k]!
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
      if (first !== null && clist.count === 0 && !matched) {
        // No thread, and none can start at these positions: skipped without walking, each
        // metered as the walk's threads would be.
        const k = this.firstInsts.length
        for (; pos < n; pos++) {
          const c = s.charCodeAt(pos)
          if (c < 128 ? first[c] !== 0 : this.canStart(c)) break
          this.charge(step, k)
        }
        this.gen++
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
