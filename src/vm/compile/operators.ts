/**
 * Binary and unary operators. The hot arithmetic/comparison operators get
 * hand-specialised closures (one per operator, so V8 keeps each call site
 * monomorphic); the rest share a generic path. Strings produced by `+` are
 * charged for allocation. `==` / `!=` never coerce (see docs/language.md).
 */
import type { Frame, Run } from '../runtime.ts'
import { hasProp } from '../guards.ts'
import { toPrim } from '../builtins/coerce.ts'
import { FREE_TEXT_CHARS, chargeText } from '../builtins/sizes.ts'
import { ARITH, arith, type Into } from './nested-fusion.ts'
import { NORMAL } from '../runtime.ts'

type Fn = (f: Frame) => any

export const looseEq = (a: unknown, b: unknown): boolean => a === b || (a == null && b == null)

/**
 * An object operand goes through the guarded ToPrimitive first: native
 * coercion of a shared nested array is exponential and uninterruptible.
 * `+` only joins texts (charged as built), so it takes this one.
 */
const P = (f: Frame, v: any): any => (typeof v === 'object' && v !== null ? toPrim(f.rt, v) : v)

/**
 * An operand of an operator that reads a text whole (ToNumber in `s * 1`, `Math.abs(s)`; the ordering
 * `s < t`): objects take the guarded ToPrimitive, a long text (given or made by it) is paid per
 * character first (sizes.ts chargeText).
 */
export const numArg = (f: Frame, v: any): any => paidOperand(f, v, f.rt)

/** The same for `-`, `+`, `~`, `++`, `--`, whose objects convert with key-sized limits (a run-less toPrim, as always). */
export const unaryArg = (f: Frame, v: any): any => paidOperand(f, v, undefined)

function paidOperand(f: Frame, v: any, rt: Run | undefined): any {
  if (typeof v === 'string') { if (v.length > FREE_TEXT_CHARS) chargeText(f.rt, v); return v }
  if (typeof v !== 'object' || v === null) return v
  const p = toPrim(rt, v)
  if (typeof p === 'string') chargeText(f.rt, p)
  return p
}

/**
 * `a === b` when a is a text: two texts of one length are compared character by character, so a long
 * pair is paid first (texts of different lengths differ at once). Call sites route only texts here
 * (`typeof x === 'string' ? strictEq(f, x, y) : x === y`): a number comparison pays one type test.
 */
export function strictEq(f: Frame, a: string, b: unknown): boolean {
  if (typeof b === 'string' && a.length === b.length && a.length > FREE_TEXT_CHARS) chargeText(f.rt, a)
  return a === b
}

/** The operation itself, used by the generic and async paths. */
export const BINARY_OPS: Record<string, (a: any, b: any, f: Frame) => any> = {
  '+': (a, b, f) => {
    const r = P(f, a) + P(f, b)
    return typeof r === 'string' ? f.rt.chargeString(r) : r
  },
  '-': (a, b, f) => numArg(f, a) - numArg(f, b),
  '*': (a, b, f) => numArg(f, a) * numArg(f, b),
  '/': (a, b, f) => numArg(f, a) / numArg(f, b),
  '%': (a, b, f) => numArg(f, a) % numArg(f, b),
  '**': (a, b, f) => numArg(f, a) ** numArg(f, b),
  '==': (a, b, f) => (typeof a === 'string' ? strictEq(f, a, b) : looseEq(a, b)),
  '!=': (a, b, f) => !(typeof a === 'string' ? strictEq(f, a, b) : looseEq(a, b)),
  '===': (a, b, f) => (typeof a === 'string' ? strictEq(f, a, b) : a === b),
  '!==': (a, b, f) => !(typeof a === 'string' ? strictEq(f, a, b) : a === b),
  '<': (a, b, f) => numArg(f, a) < numArg(f, b),
  '>': (a, b, f) => numArg(f, a) > numArg(f, b),
  '<=': (a, b, f) => numArg(f, a) <= numArg(f, b),
  '>=': (a, b, f) => numArg(f, a) >= numArg(f, b),
  '&': (a, b, f) => numArg(f, a) & numArg(f, b),
  '|': (a, b, f) => numArg(f, a) | numArg(f, b),
  '^': (a, b, f) => numArg(f, a) ^ numArg(f, b),
  '<<': (a, b, f) => numArg(f, a) << numArg(f, b),
  '>>': (a, b, f) => numArg(f, a) >> numArg(f, b),
  '>>>': (a, b, f) => numArg(f, a) >>> numArg(f, b),
  in: (a, b, f) => hasProp(f.rt, b, a),
}

/**
 * Specialised synchronous closures for the operators that dominate loops: one for the arithmetic
 * operators and one for the orderings (arith / compare are inlined); `+` of strings is charged.
 */
export function specialiseBinary(op: string, l: Fn, r: Fn): Fn | undefined {
  const g = BINARY_OPS[op]!, a = ARITH[op], k = COMPARE[op]
  switch (op) {
    case '===': return (f) => { const x = l(f), y = r(f); return typeof x === 'string' ? strictEq(f, x, y) : x === y }
    case '!==': return (f) => { const x = l(f), y = r(f); return typeof x === 'string' ? !strictEq(f, x, y) : x !== y }
    case '==': return (f) => { const x = l(f), y = r(f); return typeof x === 'string' ? strictEq(f, x, y) : looseEq(x, y) }
    case '!=': return (f) => { const x = l(f), y = r(f); return typeof x === 'string' ? !strictEq(f, x, y) : !looseEq(x, y) }
  }
  if (a !== undefined) return (f) => { const x = l(f), y = r(f); return typeof x === 'number' && typeof y === 'number' ? arith(a, x, y) : g(x, y, f) }
  if (k !== undefined) return (f) => { const x = l(f), y = r(f); return typeof x === 'number' && typeof y === 'number' ? compare(k, x, y) : g(x, y, f) }
  return undefined
}

/**
 * Specialisations with a constant right operand (`i < n` is common, `i + 1` more so), by destination
 * (nested-fusion.ts Into): one closure for the arithmetic operators and one for the orderings (arith /
 * compare are inlined, as in nested-fusion.ts); a non-number operand takes the generic path.
 */
export function specialiseBinaryConst(op: string, l: Fn, c: unknown, slot?: number): Into | undefined {
  if (typeof c !== 'number') return equalsConst(op, l, c, slot)
  const g = BINARY_OPS[op]!, a = ARITH[op], k = COMPARE[op]
  if (op === '===') return (dst) => dst < 0
    ? (f) => l(f) === c
    : undefined
  if (op === '!==') return (dst) => dst < 0
    ? (f) => l(f) !== c
    : undefined
  if (a !== undefined) return (dst) => dst < 0
    ? (f) => { const x = l(f); return typeof x === 'number' ? arith(a, x, c) : g(x, c, f) }
    : (f) => { const x = l(f); f.s[dst] = typeof x === 'number' ? arith(a, x, c) : g(x, c, f); return NORMAL }
  if (k !== undefined) return (dst) => dst < 0
    ? (f) => { const x = l(f); return typeof x === 'number' ? compare(k, x, c) : g(x, c, f) }
    : undefined
  return undefined
}

/**
 * `x === 'alpha'`, `x == null`: a constant that is no text, or a text of FREE_TEXT_CHARS at most, is
 * compared in at most its length, so the comparison needs no text guard (strictEq).
 */
function equalsConst(op: string, l: Fn, c: unknown, slot?: number): Into | undefined {
  if ((typeof c === 'string' && c.length > FREE_TEXT_CHARS) || (typeof c === 'object' && c !== null)) return undefined
  // A variable is read in place (`k === 'alpha'` in a filter callback).
  switch (op) {
    case '===': return (dst) => (dst >= 0 ? undefined : slot !== undefined ? (f) => f.s[slot] === c : (f) => l(f) === c)
    case '!==': return (dst) => (dst >= 0 ? undefined : slot !== undefined ? (f) => f.s[slot] !== c : (f) => l(f) !== c)
    case '==': return (dst) => (dst < 0 ? (f) => looseEq(l(f), c) : undefined)
    case '!=': return (dst) => (dst < 0 ? (f) => !looseEq(l(f), c) : undefined)
    default: return undefined
  }
}

/**
 * `k op expr` with a number k on the left (`5 + (i * 7) % 40`, `4 + weight`), by destination
 * (nested-fusion.ts Into): k is read in place, and a variable operand too (`slot` >= 0); a non-number
 * operand takes the generic path.
 */
export function specialiseConstLeft(op: string, c: number, r: Fn, slot = -1): Into | undefined {
  const g = BINARY_OPS[op]!, a = ARITH[op], k = COMPARE[op]
  if (a !== undefined) return (dst) => dst < 0
    ? (f) => { const y = slot < 0 ? r(f) : f.s[slot]; return typeof y === 'number' ? arith(a, c, y) : g(c, y, f) }
    : (f) => { const y = slot < 0 ? r(f) : f.s[slot]; f.s[dst] = typeof y === 'number' ? arith(a, c, y) : g(c, y, f); return NORMAL }
  if (k !== undefined) return (dst) => dst < 0
    ? (f) => { const y = slot < 0 ? r(f) : f.s[slot]; return typeof y === 'number' ? compare(k, c, y) : g(c, y, f) }
    : undefined
  return undefined
}

/** Comparison operators by code (compare() below): their value is always a boolean. */
export const COMPARE: Readonly<Record<string, number>> = { '<': 0, '>': 1, '<=': 2, '>=': 3, '===': 4, '!==': 5 }

/** A comparison of two numbers; one function at every call site, so V8 inlines it (loop tests, `x < k && ...`). */
export function compare(code: number, x: number, y: number): boolean {
  switch (code) {
    case 0: return x < y
    case 1: return x > y
    case 2: return x <= y
    case 3: return x >= y
    case 4: return x === y
    default: return x !== y
  }
}

export function guestTypeof(v: unknown): string {
  return typeof v
}

/** Unary operators; `-`, `+`, `~` coerce (unaryArg). */
export const UNARY_OPS: Record<string, (v: any, f: Frame) => any> = {
  '-': (v, f) => -unaryArg(f, v),
  '+': (v, f) => +unaryArg(f, v),
  '!': (v) => !v,
  '~': (v, f) => ~unaryArg(f, v),
  typeof: guestTypeof,
  void: () => undefined,
}

/**
 * Whether `&&` / `||` / `??` (or `&&=` / `||=` / `??=`) go on to their right side for the left value `v`.
 * Operators are validateAst's (OPERATORS in src/ast/nodes.ts): a node with any other never reaches the compiler.
 */
export function takesRight(op: string): (v: unknown) => boolean {
  return op[0] === '&' ? (v) => !!v : op[0] === '|' ? (v) => !v : (v) => v === null || v === undefined
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
        const x = f.s[a] as any
        if (typeof x === 'object') return BINARY_OPS['+']!(x, c, f)
        const v = x + c
        return typeof v === 'string' ? f.rt.chargeString(v) : v
      }
      case '-': { const g = BINARY_OPS['-']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x - c } }
      case '*': { const g = BINARY_OPS['*']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x * c } }
      case '/': { const g = BINARY_OPS['/']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x / c } }
      case '%': { const g = BINARY_OPS['%']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x % c } }
      case '<': { const g = BINARY_OPS['<']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x < c } }
      case '>': { const g = BINARY_OPS['>']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x > c } }
      case '<=': { const g = BINARY_OPS['<=']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x <= c } }
      case '>=': { const g = BINARY_OPS['>=']!; return (f) => { const x = f.s[a] as any; return typeof x !== 'number' ? g(x, c, f) : x >= c } }
      case '===': return (f) => f.s[a] === c
      case '!==': return (f) => f.s[a] !== c
      default: return undefined
    }
  }
  if (b.slot !== undefined) {
    const d = b.slot
    switch (op) {
      case '+': return (f) => {
        const x = f.s[a] as any, y = f.s[d] as any
        if (typeof x === 'object' || typeof y === 'object') return BINARY_OPS['+']!(x, y, f)
        const v = x + y
        return typeof v === 'string' ? f.rt.chargeString(v) : v
      }
      case '-': { const g = BINARY_OPS['-']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x - y } }
      case '*': { const g = BINARY_OPS['*']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x * y } }
      case '/': { const g = BINARY_OPS['/']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x / y } }
      case '%': { const g = BINARY_OPS['%']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x % y } }
      case '<': { const g = BINARY_OPS['<']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x < y } }
      case '>': { const g = BINARY_OPS['>']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x > y } }
      case '<=': { const g = BINARY_OPS['<=']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x <= y } }
      case '>=': { const g = BINARY_OPS['>=']!; return (f) => { const x = f.s[a] as any, y = f.s[d] as any; return typeof x !== 'number' || typeof y !== 'number' ? g(x, y, f) : x >= y } }
      case '===': return (f) => { const x = f.s[a], y = f.s[d]; return typeof x === 'string' ? strictEq(f, x, y) : x === y }
      case '!==': return (f) => { const x = f.s[a], y = f.s[d]; return typeof x === 'string' ? !strictEq(f, x, y) : x !== y }
      default: return undefined
    }
  }
  return undefined
}

/**
 * `slot op expr` and `expr op slot`, by destination (nested-fusion.ts Into): the variable operand is
 * read in place (one closure call fewer). Object operands take the guarded generic path.
 */
export function specialiseOneSlot(op: string, slot: number, other: Fn, slotOnLeft: boolean): Into | undefined {
  const g = BINARY_OPS[op]
  if (!g) return undefined
  if (slotOnLeft) {
    switch (op) {
      case '+': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot] as any, y = other(f); return typeof x === 'number' && typeof y === 'number' ? x + y : g(x, y, f) }
        : (f) => { const x = f.s[slot] as any, y = other(f); f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x + y : g(x, y, f); return NORMAL }
      case '-': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot] as any, y = other(f); return typeof x === 'number' && typeof y === 'number' ? x - y : g(x, y, f) }
        : (f) => { const x = f.s[slot] as any, y = other(f); f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x - y : g(x, y, f); return NORMAL }
      case '*': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot] as any, y = other(f); return typeof x === 'number' && typeof y === 'number' ? x * y : g(x, y, f) }
        : (f) => { const x = f.s[slot] as any, y = other(f); f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x * y : g(x, y, f); return NORMAL }
      case '<': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot] as any, y = other(f); return typeof x === 'number' && typeof y === 'number' ? x < y : g(x, y, f) }
        : undefined
      case '>': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot] as any, y = other(f); return typeof x === 'number' && typeof y === 'number' ? x > y : g(x, y, f) }
        : undefined
      case '===': return (dst) => dst < 0
        ? (f) => { const x = f.s[slot], y = other(f); return typeof x === 'string' ? strictEq(f, x, y) : x === y }
        : undefined
      default: return undefined
    }
  }
  switch (op) {
    case '+': return (dst) => dst < 0
      ? (f) => { const x = other(f) as any, y = f.s[slot] as any; return typeof x === 'number' && typeof y === 'number' ? x + y : g(x, y, f) }
      : (f) => { const x = other(f) as any, y = f.s[slot] as any; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x + y : g(x, y, f); return NORMAL }
    case '-': return (dst) => dst < 0
      ? (f) => { const x = other(f) as any, y = f.s[slot] as any; return typeof x === 'number' && typeof y === 'number' ? x - y : g(x, y, f) }
      : (f) => { const x = other(f) as any, y = f.s[slot] as any; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x - y : g(x, y, f); return NORMAL }
    case '*': return (dst) => dst < 0
      ? (f) => { const x = other(f) as any, y = f.s[slot] as any; return typeof x === 'number' && typeof y === 'number' ? x * y : g(x, y, f) }
      : (f) => { const x = other(f) as any, y = f.s[slot] as any; f.s[dst] = typeof x === 'number' && typeof y === 'number' ? x * y : g(x, y, f); return NORMAL }
    default: return undefined
  }
}
