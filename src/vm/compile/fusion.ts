/**
 * Fused steps: when a step's expression is a plain slot, a constant, or a
 * `slot op number` / `slot op slot` shape, the step does the work itself
 * instead of calling the expression's closure. In a long-running process the
 * shared closure code is megamorphic, so every call saved is time saved.
 * Non-number operands fall back to the expression closure (same semantics).
 */
import { NORMAL, type Completion, type Frame } from '../runtime.ts'
import type { CExpr, CStep } from './context.ts'
import { strictEq } from './operators.ts'

export interface SlotOp {
  op: string
  a: number
  num?: number
  slot?: number
}

type Step = (f: Frame) => Completion | Promise<Completion>

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
  if (!b) return val.into?.(dst) as CStep | undefined
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

/** `if (slot op k) yes else no` as one closure. */
export function fusedIf(cond: CExpr, yes: Step, no: Step): CStep | undefined {
  const b = cond.slotOp
  if (!b || cond.async) return undefined
  const t = cond.fn, a = b.a
  if (b.num !== undefined) {
    const c = b.num
    switch (b.op) {
      case '<': return (f) => { const x = f.s[a]; return (typeof x === 'number' ? x < c : t(f)) ? yes(f) : no(f) }
      case '>': return (f) => { const x = f.s[a]; return (typeof x === 'number' ? x > c : t(f)) ? yes(f) : no(f) }
      case '<=': return (f) => { const x = f.s[a]; return (typeof x === 'number' ? x <= c : t(f)) ? yes(f) : no(f) }
      case '>=': return (f) => { const x = f.s[a]; return (typeof x === 'number' ? x >= c : t(f)) ? yes(f) : no(f) }
      case '===': return (f) => (f.s[a] === c ? yes(f) : no(f))
      case '!==': return (f) => (f.s[a] !== c ? yes(f) : no(f))
      default: return undefined
    }
  }
  if (b.slot !== undefined) {
    const d = b.slot
    switch (b.op) {
      case '<': return (f) => { const x = f.s[a], y = f.s[d]; return (typeof x === 'number' && typeof y === 'number' ? x < y : t(f)) ? yes(f) : no(f) }
      case '>': return (f) => { const x = f.s[a], y = f.s[d]; return (typeof x === 'number' && typeof y === 'number' ? x > y : t(f)) ? yes(f) : no(f) }
      case '===': return (f) => { const x = f.s[a], y = f.s[d]; return (typeof x === 'string' ? strictEq(f, x, y) : x === y) ? yes(f) : no(f) }
      case '!==': return (f) => { const x = f.s[a], y = f.s[d]; return (typeof x === 'string' ? strictEq(f, x, y) : x === y) ? no(f) : yes(f) }
      default: return undefined
    }
  }
  return undefined
}
