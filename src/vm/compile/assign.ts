/**
 * Assignment and update expressions. A target is a reference: an identifier
 * slot, or an (object, key) pair evaluated once in JavaScript order. Plain
 * identifier targets get direct slot-writing closures (the loop hot path).
 */
import { NORMAL, type Completion, type Frame } from '../runtime.ts'
import { NODE_COST } from '../fuel.ts'
import { getComputed, forbidden, isForbiddenKey, setProp } from '../guards.ts'
import type { CExpr, CStep, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { Compiler } from './compiler.ts'
import { BINARY_OPS, unaryArg, takesRight } from './operators.ts'
import { seq2, then } from './async.ts'
import { assignedSlot, checkName } from './patterns.ts'

interface Ref {
  /** Evaluate the reference's parts (object and key); the handle is passed to get/set. */
  prepare: (f: Frame) => any
  get: (f: Frame, h: any) => unknown
  set: (f: Frame, h: any, v: unknown) => unknown
  cost: number
  async: boolean
  slot?: number
}

function compileRef(c: Compiler, target: any, scope: Scope): Ref {
  if (target?.$expr === 'ident') {
    const slot = assignedSlot(c, checkName(target.name), scope)
    return {
      prepare: () => null,
      get: (f) => f.s[slot],
      set: (f, _h, v) => (f.s[slot] = v),
      cost: NODE_COST,
      async: false,
      slot,
    }
  }
  // Otherwise a member (validateAst: an assignment's target or an update's argument is an ident or a member).
  const obj = c.expr(target.object, scope)
  let key: CExpr
  if (target.computed) key = c.expr(target.property, scope)
  else {
    if (isForbiddenKey(target.property)) forbidden(target.property)
    const k = target.property
    key = { fn: () => k, cost: 0, async: false }
  }
  return {
    prepare: seq2(obj.fn, key.fn, (o, k) => ({ o, k })),
    get: (f, h) => getComputed(f.rt, h.o, h.k),
    set: (f, h, v) => setProp(f.rt, h.o, h.k, v),
    cost: NODE_COST + obj.cost + key.cost,
    async: obj.async || key.async,
  }
}

export function compileAssign(c: Compiler, node: any, scope: Scope): CExpr {
  const op = node.op as string
  const target = node.target
  if (target && typeof target === 'object' && '$pattern' in target) {
    if (op !== '=') throw compileError('AST_INVALID', 'Destructuring assignment only supports `=`')
    const value = c.expr(node.value, scope)
    const pat = c.pattern(target, scope, 'assign')
    const fn = (f: Frame) => then(value.fn(f), (v) => then(pat.bind(f, v), () => v))
    return { fn, cost: NODE_COST + value.cost + pat.cost, async: value.async || pat.async }
  }
  const ref = compileRef(c, target, scope)
  const value = c.expr(node.value, scope)
  const v = value.fn
  const async = ref.async || value.async
  const cost = NODE_COST + ref.cost + value.cost
  if (op === '=') {
    if (ref.slot !== undefined && !value.async) {
      const slot = ref.slot
      return { fn: (f) => (f.s[slot] = v(f)), cost, async: false }
    }
    const fn = (f: Frame) => then(ref.prepare(f), (h) => then(v(f), (val) => ref.set(f, h, val)))
    return { fn, cost, async }
  }
  if (op === '&&=' || op === '||=' || op === '??=') {
    const vc = value.cost
    const needs = takesRight(op)
    const fn = (f: Frame) => then(ref.prepare(f), (h) => {
      const cur = ref.get(f, h)
      if (!needs(cur)) return cur
      f.rt.charge(vc)
      return then(v(f), (val) => ref.set(f, h, val))
    })
    return { fn, cost: NODE_COST + ref.cost, async }
  }
  const binop = op.endsWith('=') ? op.slice(0, -1) : ''
  const impl = BINARY_OPS[binop]!
  if (ref.slot !== undefined && !value.async) {
    const slot = ref.slot
    if (binop === '+') {
      const add = (f: Frame): unknown => {
        const a = f.s[slot] as any, b = v(f)
        if (typeof a === 'object' || typeof b === 'object') return (f.s[slot] = impl(a, b, f))
        const r = a + b
        return (f.s[slot] = typeof r === 'string' ? f.rt.chargeString(r) : r)
      }
      return {
        fn: add,
        cost,
        async: false,
        step: (f) => {
          const a = f.s[slot] as any, b = v(f)
          if (typeof a === 'number' && typeof b === 'number') f.s[slot] = a + b
          else if (typeof a === 'object' || typeof b === 'object') f.s[slot] = impl(a, b, f)
          else { const r = a + b; f.s[slot] = typeof r === 'string' ? f.rt.chargeString(r) : r }
          return NORMAL
        },
      }
    }
    return {
      fn: (f) => (f.s[slot] = impl(f.s[slot], v(f), f)),
      cost,
      async: false,
      step: numericStep(binop, slot, v, impl),
    }
  }
  const fn = (f: Frame) => then(ref.prepare(f), (h) => {
    const cur = ref.get(f, h)
    return then(v(f), (val) => ref.set(f, h, impl(cur, val, f)))
  })
  return { fn, cost, async }
}

/** `x op= v` as a statement: numbers inline, anything else through the operator (same result, same fuel). */
function numericStep(op: string, slot: number, v: (f: Frame) => unknown, impl: (a: any, b: any, f: Frame) => unknown): CStep {
  switch (op) {
    case '-': return (f) => { const a = f.s[slot], b = v(f); f.s[slot] = typeof a === 'number' && typeof b === 'number' ? a - b : impl(a, b, f); return NORMAL }
    case '*': return (f) => { const a = f.s[slot], b = v(f); f.s[slot] = typeof a === 'number' && typeof b === 'number' ? a * b : impl(a, b, f); return NORMAL }
    default: return (f) => { f.s[slot] = impl(f.s[slot], v(f), f); return NORMAL }
  }
}

/** `+v` for `++`/`--`: objects take the guarded ToPrimitive (see builtins/coerce.ts), a long text is paid first. */
const toNum = (f: Frame, v: unknown): number => +unaryArg(f, v)

export function compileUpdate(c: Compiler, node: any, scope: Scope): CExpr {
  const delta = node.op === '++' ? 1 : -1
  const prefix = node.prefix === true
  const ref = compileRef(c, node.argument, scope)
  if (ref.slot !== undefined) {
    const slot = ref.slot
    const fn = prefix
      ? (f: Frame) => (f.s[slot] = toNum(f, f.s[slot]) + delta)
      : (f: Frame) => { const old = toNum(f, f.s[slot]); f.s[slot] = old + delta; return old }
    const step = (f: Frame): Completion => {
      const old = f.s[slot]
      f.s[slot] = (typeof old === 'number' ? old : toNum(f, old)) + delta
      return NORMAL
    }
    return { fn, cost: NODE_COST + ref.cost, async: false, slotInc: { slot, delta }, step }
  }
  const fn = (f: Frame) => then(ref.prepare(f), (h) => {
    const old = toNum(f, ref.get(f, h))
    ref.set(f, h, old + delta)
    return prefix ? old + delta : old
  })
  return { fn, cost: NODE_COST + ref.cost, async: ref.async }
}
