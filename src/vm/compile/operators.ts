/**
 * Binary and unary operators. The hot arithmetic/comparison operators get
 * hand-specialised closures (one per operator, so V8 keeps each call site
 * monomorphic); the rest share a generic path. Strings produced by `+` are
 * charged for allocation. `==` / `!=` never coerce (see docs/language.md).
 */
import type { Frame } from '../runtime.ts'
import { hasProp } from '../guards.ts'
import { vmError } from '../errors.ts'

type Fn = (f: Frame) => any

export const looseEq = (a: unknown, b: unknown): boolean => a === b || (a == null && b == null)

/** The operation itself, used by the generic and async paths. */
export const BINARY_OPS: Record<string, (a: any, b: any, f: Frame) => any> = {
  '+': (a, b, f) => {
    const r = a + b
    return typeof r === 'string' ? f.rt.chargeString(r) : r
  },
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
  '**': (a, b) => a ** b,
  '==': (a, b) => looseEq(a, b),
  '!=': (a, b) => !looseEq(a, b),
  '===': (a, b) => a === b,
  '!==': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '>=': (a, b) => a >= b,
  '&': (a, b) => a & b,
  '|': (a, b) => a | b,
  '^': (a, b) => a ^ b,
  '<<': (a, b) => a << b,
  '>>': (a, b) => a >> b,
  '>>>': (a, b) => a >>> b,
  in: (a, b) => hasProp(b, a),
}

/** Specialised synchronous closures for the operators that dominate loops. */
export function specialiseBinary(op: string, l: Fn, r: Fn): Fn | undefined {
  switch (op) {
    case '+': return (f) => {
      const v = l(f) + r(f)
      return typeof v === 'string' ? f.rt.chargeString(v) : v
    }
    case '-': return (f) => l(f) - r(f)
    case '*': return (f) => l(f) * r(f)
    case '/': return (f) => l(f) / r(f)
    case '%': return (f) => l(f) % r(f)
    case '<': return (f) => l(f) < r(f)
    case '>': return (f) => l(f) > r(f)
    case '<=': return (f) => l(f) <= r(f)
    case '>=': return (f) => l(f) >= r(f)
    case '===': return (f) => l(f) === r(f)
    case '!==': return (f) => l(f) !== r(f)
    case '==': return (f) => looseEq(l(f), r(f))
    case '!=': return (f) => !looseEq(l(f), r(f))
    default: return undefined
  }
}

/** Specialisations with a constant right operand (`i < n` is common, `i + 1` more so). */
export function specialiseBinaryConst(op: string, l: Fn, c: unknown): Fn | undefined {
  if (typeof c !== 'number') return undefined
  switch (op) {
    case '+': return (f) => {
      const v = l(f) + c
      return typeof v === 'string' ? f.rt.chargeString(v) : v
    }
    case '-': return (f) => l(f) - c
    case '*': return (f) => l(f) * c
    case '%': return (f) => l(f) % c
    case '<': return (f) => l(f) < c
    case '>': return (f) => l(f) > c
    case '<=': return (f) => l(f) <= c
    case '>=': return (f) => l(f) >= c
    case '===': return (f) => l(f) === c
    case '!==': return (f) => l(f) !== c
    default: return undefined
  }
}

export function guestTypeof(v: unknown): string {
  return typeof v
}

export const UNARY_OPS: Record<string, (v: any) => any> = {
  '-': (v) => -v,
  '+': (v) => +v,
  '!': (v) => !v,
  '~': (v) => ~v,
  typeof: guestTypeof,
  void: () => undefined,
}

export function unknownOperator(op: string): never {
  throw vmError('AST_INVALID', `Unknown operator "${op}"`)
}

/**
 * Superinstructions for `x op c` and `x op y` where x, y are variable slots
 * and c a number: one closure instead of three, the commonest shapes in loops.
 */
export function specialiseSlotOps(op: string, a: number, b: { slot?: number; num?: number }): Fn | undefined {
  if (b.num !== undefined) {
    const c = b.num
    switch (op) {
      case '+': return (f) => {
        const v = (f.s[a] as any) + c
        return typeof v === 'string' ? f.rt.chargeString(v) : v
      }
      case '-': return (f) => (f.s[a] as number) - c
      case '*': return (f) => (f.s[a] as number) * c
      case '/': return (f) => (f.s[a] as number) / c
      case '%': return (f) => (f.s[a] as number) % c
      case '<': return (f) => (f.s[a] as number) < c
      case '>': return (f) => (f.s[a] as number) > c
      case '<=': return (f) => (f.s[a] as number) <= c
      case '>=': return (f) => (f.s[a] as number) >= c
      case '===': return (f) => f.s[a] === c
      case '!==': return (f) => f.s[a] !== c
      default: return undefined
    }
  }
  if (b.slot !== undefined) {
    const d = b.slot
    switch (op) {
      case '+': return (f) => {
        const v = (f.s[a] as any) + (f.s[d] as any)
        return typeof v === 'string' ? f.rt.chargeString(v) : v
      }
      case '-': return (f) => (f.s[a] as number) - (f.s[d] as number)
      case '*': return (f) => (f.s[a] as number) * (f.s[d] as number)
      case '/': return (f) => (f.s[a] as number) / (f.s[d] as number)
      case '%': return (f) => (f.s[a] as number) % (f.s[d] as number)
      case '<': return (f) => (f.s[a] as number) < (f.s[d] as number)
      case '>': return (f) => (f.s[a] as number) > (f.s[d] as number)
      case '<=': return (f) => (f.s[a] as number) <= (f.s[d] as number)
      case '>=': return (f) => (f.s[a] as number) >= (f.s[d] as number)
      case '===': return (f) => f.s[a] === f.s[d]
      case '!==': return (f) => f.s[a] !== f.s[d]
      default: return undefined
    }
  }
  return undefined
}
