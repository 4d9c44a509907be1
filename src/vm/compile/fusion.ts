/**
 * Fused steps: when a step's expression is a plain slot, a constant, or a
 * `slot op number` / `slot op slot` shape, the step does the work itself
 * instead of calling the expression's closure. In a long-running process the
 * shared closure code is megamorphic, so every call saved is time saved.
 * Non-number operands fall back to the expression closure (same semantics).
 */
import { NORMAL, type Completion, type Frame } from '../runtime.ts'
import type { CExpr, CStep } from './context.ts'

export interface SlotOp {
  op: string
  a: number
  num?: number
  slot?: number
}


/** `x = <value>` as one closure, or undefined when the value has no fusable shape. */
export function fusedStore(val: CExpr, dst: number): CStep | undefined {
  if (val.async) return undefined
  if (val.constant && (val.constant.value === null || typeof val.constant.value !== 'object')) {
    const c = val.constant.value
    return (f) => { f.s[dst] = c; return NORMAL }
  }
  if (val.slot !== undefined) {
    const src = val.slot
    return (f) => { f.s[dst] = f.s[src]; return NORMAL }
  }
  const b = val.slotOp
  if (!b) return undefined
  const v = val.fn, a = b.a
  if (b.num !== undefined) {
    const c = b.num
    switch (b.op) {
      case '+': return (f) => { const x = f.s[a]; f.s[dst] = typeof x === 'number' ? x + c : v(f); return NORMAL }
      case '-': return (f) => { const x = f.s[a]; f.s[dst] = typeof x === 'number' ? x - c : v(f); return NORMAL }
      case '*': return (f) => { const x = f.s[a]; f.s[dst] = typeof x === 'number' ? x * c : v(f); return NORMAL }
      case '%': return (f) => { const x = f.s[a]; f.s[dst] = typeof x === 'number' ? x % c : v(f); return NORMAL }
      default: return undefined
    }
  }
  if (b.slot !== undefined) {
    const d = b.slot
    switch (b.op) {
      case '+': return (f) => { const x = f.s[a], y = f.s[d]; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x + y : v(f); return NORMAL }
      case '-': return (f) => { const x = f.s[a], y = f.s[d]; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x - y : v(f); return NORMAL }
      case '*': return (f) => { const x = f.s[a], y = f.s[d]; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x * y : v(f); return NORMAL }
      default: return undefined
    }
  }
  return undefined
}

/**
 * A branch of an `if`: its block's closure; or, for a block of one step, that step, the block's
 * cost and its error stamp (which throws), run here: one closure call fewer per branch taken
 * (`else if` chains are blocks of one `if`). No run: an absent `else`.
 */
export type Branch = [run: CStep | undefined, cost: number, stamp?: (e: unknown) => never]

/** Run a branch as its block would: charge on entry, stamp what escapes its step. */
export function runBranch(f: Frame, b: Branch): Completion | Promise<Completion> {
  const run = b[0], stamp = b[2]
  if (!run) return NORMAL
  if (!stamp) return run(f)
  const rt = f.rt
  if ((rt.left -= b[1]) < 0) rt.outOfFuel()
  try {
    const c = run(f)
    return typeof c === 'number' ? c : c.catch(stamp)
  } catch (e) {
    return stamp(e)
  }
}

/** `if (slot op k) yes else no` as one closure. */
export function fusedIf(cond: CExpr, yes: Branch, no: Branch): CStep | undefined {
  const b = cond.slotOp
  if (!b || cond.async) return undefined
  const t = cond.fn, a = b.a
  if (b.num !== undefined) {
    const c = b.num
    switch (b.op) {
      case '<': return (f) => { const x = f.s[a]; return runBranch(f, (typeof x === 'number' ? x < c : t(f)) ? yes : no) }
      case '>': return (f) => { const x = f.s[a]; return runBranch(f, (typeof x === 'number' ? x > c : t(f)) ? yes : no) }
      case '<=': return (f) => { const x = f.s[a]; return runBranch(f, (typeof x === 'number' ? x <= c : t(f)) ? yes : no) }
      case '>=': return (f) => { const x = f.s[a]; return runBranch(f, (typeof x === 'number' ? x >= c : t(f)) ? yes : no) }
      case '===': return (f) => runBranch(f, f.s[a] === c ? yes : no)
      case '!==': return (f) => runBranch(f, f.s[a] !== c ? yes : no)
    }
  }
  if (b.slot !== undefined) {
    const d = b.slot
    switch (b.op) {
      case '<': return (f) => { const x = f.s[a], y = f.s[d]; return runBranch(f, (typeof x === 'number' && typeof y === 'number' ? x < y : t(f)) ? yes : no) }
      case '>': return (f) => { const x = f.s[a], y = f.s[d]; return runBranch(f, (typeof x === 'number' && typeof y === 'number' ? x > y : t(f)) ? yes : no) }
      case '===': return (f) => runBranch(f, f.s[a] === f.s[d] ? yes : no)
      case '!==': return (f) => runBranch(f, f.s[a] !== f.s[d] ? yes : no)
    }
  }
  return undefined
}
