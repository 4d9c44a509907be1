/**
 * Two-level superinstructions: `(x op1 y) op2 z` and `z op2 (x op1 y)` where
 * x is a variable slot, y and z are slots or number constants and op1 is
 * arithmetic (`(i % 9) + 1`, `i % n === 0`, `d * d <= limit`). One closure
 * call instead of three: in a long-lived process every closure call is an
 * indirect call V8 cannot inline (the closure code is shared by all
 * programs), so calls are what a loop body costs.
 *
 * Only number operands take the fused path; anything else runs the ordinary
 * closure tree (`slow`), so results, coercions and fuel are unchanged.
 */
import { NORMAL, type Frame } from '../runtime.ts'
import type { SlotOp } from './fusion.ts'

type Fn = (f: Frame) => unknown

/** An operand the fused closure reads itself: a slot, or a number constant. */
type Leaf = Pick<SlotOp, 'slot' | 'num'>

export const ARITH: Readonly<Record<string, number>> = { '+': 0, '-': 1, '*': 2, '/': 3, '%': 4 }

/** The inner operation; always the same function at its call site, so V8 inlines it. */
export function arith(code: number, x: number, y: number): number {
  switch (code) {
    case 0: return x + y
    case 1: return x - y
    case 2: return x * y
    case 3: return x / y
    default: return x % y
  }
}

/**
 * A specialised expression by destination: `into(-1)` is the expression's closure, `into(slot)` a
 * step closure doing the same work and storing the value in the slot (`let x = <expr>`, `x = <expr>`
 * as one closure call, not the step's and the value's). Two closures with the same code, not one
 * testing its destination: a test of a captured destination measured slower where V8 inlines the
 * expression into its caller (arith-loop +3% instructions under cachegrind).
 */
export type Into = (dst: number) => Fn | undefined

/**
 * The fused closure for `inner op2 other` (or `other op2 inner` when `innerOnLeft` is false) by
 * destination (see Into), or undefined when the shape does not qualify. Each operator is its own
 * closure so that op2 is inline code. An ordering or `!==` has no store step (a stored comparison is
 * rare; the bundle's size).
 */
export function fuseNested(op2: string, inner: SlotOp, other: Leaf, innerOnLeft: boolean, slow: Fn): Into | undefined {
  const code = ARITH[inner.op]
  if (code === undefined || (inner.slot === undefined && inner.num === undefined) || (other.slot === undefined && other.num === undefined)) return undefined
  const a = inner.a
  const b = inner.slot ?? -1, bNum = inner.num ?? 0
  const c = other.slot ?? -1, cNum = other.num ?? 0
  const L = innerOnLeft
  switch (op2) {
    case '+': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i + z : z + i }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = L ? i + z : z + i } return NORMAL }
    case '-': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i - z : z - i }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = L ? i - z : z - i } return NORMAL }
    case '*': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return i * z }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = i * z } return NORMAL }
    case '/': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i / z : z / i }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = L ? i / z : z / i } return NORMAL }
    case '%': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i % z : z % i }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = L ? i % z : z % i } return NORMAL }
    case '<': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i < z : z < i }
      : undefined
    case '<=': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i <= z : z <= i }
      : undefined
    case '>': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i > z : z > i }
      : undefined
    case '>=': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return L ? i >= z : z >= i }
      : undefined
    case '===': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return i === z }
      : (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') s[dst] = slow(f); else { const i = arith(code, x, y); s[dst] = i === z } return NORMAL }
    case '!==': return (dst) => dst < 0
      ? (f) => { const s = f.s, x = s[a], y = b < 0 ? bNum : s[b], z = c < 0 ? cNum : s[c]; if (typeof x !== 'number' || typeof y !== 'number' || typeof z !== 'number') return slow(f); const i = arith(code, x, y); return i !== z }
      : undefined
    default: return undefined
  }
}
