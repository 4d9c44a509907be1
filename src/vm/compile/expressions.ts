/**
 * Expression compilers, one per `$expr` kind (table-driven). Each returns a
 * CExpr: a closure plus its static fuel cost; closures of subtrees without
 * atom or helper calls are plain synchronous functions.
 */
import type { Expr } from '../../ast/types.ts'
import { NODE_COST } from '../fuel.ts'
import { getComputed, getNamed, forbidden, isForbiddenKey, toKey, deleteProp, ownKeys } from '../guards.ts'
import { chargeProps } from '../builtins/sizes.ts'
import { vmError } from '../errors.ts'
import { BINARY_OPS, COMPARE, UNARY_OPS, compare, specialiseBinary, specialiseBinaryConst, specialiseConstLeft, specialiseSlotOps, specialiseOneSlot, takesRight } from './operators.ts'
import { isP, seq2, seqN, then } from './async.ts'
import type { CExpr, Scope } from './context.ts'
import { fuseNested } from './nested-fusion.ts'
import { compileError } from './context.ts'
import type { Compiler } from './compiler.ts'
import { GLOBAL_VALUES } from '../builtins/globals.ts'
import { deepCopyLiteral } from '../membrane.ts'
import { compileCall, compileMethodCall, compileLambdaOutsideCall } from './calls.ts'
import { compileAssign, compileUpdate } from './assign.ts'
import { regexSupport } from '../builtins/regex-hook.ts'
import { LONG_CHARGE_UNITS, NORMAL, type Frame, type Run } from '../runtime.ts'
import { guestString } from '../builtins/coerce.ts'

type ExprCompiler = (c: Compiler, node: any, scope: Scope) => CExpr

const constant = (value: unknown): CExpr => ({ fn: () => value, cost: NODE_COST, async: false, constant: { value } })

function literal(_c: Compiler, node: { value: unknown }): CExpr {
  const v = node.value
  if (v === null || typeof v !== 'object') return constant(v)
  return { fn: (f) => deepCopyLiteral(f.rt, v), cost: NODE_COST, async: false }
}

function ident(c: Compiler, node: { name: string }, scope: Scope): CExpr {
  const name = node.name
  if (isForbiddenKey(name)) throw compileError('FORBIDDEN_NAME', `Forbidden identifier "${name}"`)
  const b = scope.lookup(name)
  if (b) {
    const slot = b.slot
    return { fn: (f) => f.s[slot], cost: NODE_COST, async: false, slot }
  }
  if (Object.hasOwn(GLOBAL_VALUES, name)) return constant(GLOBAL_VALUES[name])
  throw compileError('UNKNOWN_IDENTIFIER', `Unknown identifier "${name}"` + c.suggest(name, scope))
}

function member(c: Compiler, node: any, scope: Scope): CExpr {
  const obj = c.expr(node.object, scope)
  const o = obj.fn
  if (!node.computed) {
    const name = node.property as string
    if (isForbiddenKey(name)) forbidden(name)
    const a = obj.slot
    if (name === 'length' && !obj.async) return { fn: lengthOf(o, a), cost: NODE_COST + obj.cost, async: false }
    const fn = obj.async ? (f: Frame) => then(o(f), (v) => getNamed(v, name))
      : a !== undefined ? (f: Frame) => getNamed(f.s[a], name) // `x.name`: read the variable in place
      : (f: Frame) => getNamed(o(f), name)
    // `let n = user.name`: the store step reads and stores in one closure.
    const into = a !== undefined && !obj.async ? (d: number) => (f: Frame) => { f.s[d] = getNamed(f.s[a], name); return NORMAL } : undefined
    return { fn, cost: NODE_COST + obj.cost, async: obj.async, into }
  }
  const prop = c.expr(node.property, scope)
  if (prop.constant && typeof prop.constant.value === 'string') {
    const name = prop.constant.value
    if (isForbiddenKey(name)) forbidden(name)
  }
  const p = prop.fn
  const async = obj.async || prop.async
  const a = obj.slot, b = prop.slot
  const fn = async ? (f: Frame) => seq2(o, p, (x, k) => getComputed(f.rt, x, k))(f)
    : a !== undefined && b !== undefined ? (f: Frame) => getComputed(f.rt, f.s[a], f.s[b]) // `xs[i]`
    : (f: Frame) => getComputed(f.rt, o(f), p(f))
  return { fn, cost: NODE_COST + obj.cost + prop.cost, async }
}

/**
 * `x.length`, the most common read (loop bounds): strings and arrays answer
 * it here, where the property load sees only those two kinds of receiver;
 * anything else takes the guarded path.
 */
function lengthOf(o: (f: Frame) => unknown, a: number | undefined): (f: Frame) => unknown {
  return a !== undefined ? (f) => lengthValue(f.s[a]) : (f) => lengthValue(o(f))
}

const lengthValue = (v: unknown): unknown => (typeof v === 'string' || Array.isArray(v) ? v.length : getNamed(v, 'length'))

function binary(c: Compiler, node: any, scope: Scope): CExpr {
  const op = node.op as string
  const impl = BINARY_OPS[op]!
  const left = c.expr(node.left, scope)
  const right = c.expr(node.right, scope)
  const cost = NODE_COST + left.cost + right.cost
  if (left.async || right.async) {
    const fn = (f: Frame) => seq2(left.fn, right.fn, (a, b) => impl(a, b, f))(f)
    return { fn, cost, async: true }
  }
  const rightShape = { slot: right.slot, num: typeof right.constant?.value === 'number' ? right.constant.value : undefined }
  const fused = left.slot !== undefined ? specialiseSlotOps(op, left.slot, rightShape) : undefined
  if (fused) return { fn: fused, cost, async: false, slotOp: { op, a: left.slot!, ...rightShape } }
  const oneSlot = left.slot !== undefined ? specialiseOneSlot(op, left.slot, right.fn, true)
    : right.slot !== undefined && !left.constant ? specialiseOneSlot(op, right.slot, left.fn, false) : undefined
  const special = (right.constant ? specialiseBinaryConst(op, left.fn, right.constant.value, left.slot) : undefined) ?? oneSlot
    ?? (typeof left.constant?.value === 'number' ? specialiseConstLeft(op, left.constant.value, right.fn, right.slot) : undefined)
  const fn = special?.(-1) ?? specialiseBinary(op, left.fn, right.fn) ?? ((f: Frame) => impl(left.fn(f), right.fn(f), f))
  const leftShape = { slot: left.slot, num: typeof left.constant?.value === 'number' ? left.constant.value : undefined }
  const nested = left.slotOp ? fuseNested(op, left.slotOp, rightShape, true, fn)
    : right.slotOp ? fuseNested(op, right.slotOp, leftShape, false, fn) : undefined
  // `let x = <expr>`: the step is the specialised closure's store variant (context.ts CExpr.into).
  return { fn: nested?.(-1) ?? fn, cost, async: false, into: nested ?? special }
}

function logical(c: Compiler, node: any, scope: Scope): CExpr {
  const left = c.expr(node.left, scope)
  const right = c.expr(node.right, scope)
  const l = left.fn, r = right.fn, rc = right.cost
  const takeRight = (f: Frame) => { f.rt.charge(rc); return r(f) }
  const goRight = takesRight(node.op)
  const cost = NODE_COST + left.cost
  if (left.async || right.async) {
    return { fn: (f) => then(l(f), (v) => (goRight(v) ? takeRight(f) : v)), cost, async: true }
  }
  const b = right.slot
  // The right side's static cost is paid inline (as Run.charge: the clock is read after a long charge).
  const long = rc >= LONG_CHARGE_UNITS
  const pay = (f: Frame) => { const rt = f.rt; if ((rt.left -= rc) < 0) rt.outOfFuel(); if (long) rt.checkTime() }
  // The left side is `slot op k` / `slot op slot` (a comparison): read in place, one call fewer (`qty >= 8 && price > 30`).
  const cmp = left.slotOp ? COMPARE[left.slotOp.op] : undefined
  if (cmp !== undefined && b === undefined && (node.op === '&&' || node.op === '||')) {
    const { a, slot: y = -1, num: k = 0 } = left.slotOp!
    const test = (f: Frame): boolean => {
      const s = f.s, x = s[a], z = y < 0 ? k : s[y]
      return typeof x === 'number' && typeof z === 'number' ? compare(cmp, x, z) : l(f)
    }
    return node.op === '&&'
      ? { fn: (f) => { if (!test(f)) return false; pay(f); return r(f) }, cost, async: false }
      : { fn: (f) => { if (test(f)) return true; pay(f); return r(f) }, cost, async: false }
  }
  if (b !== undefined && node.op === '&&') return { fn: (f) => { const v = l(f); if (!v) return v; pay(f); return f.s[b] }, cost, async: false }
  if (b !== undefined && node.op === '||') return { fn: (f) => { const v = l(f); if (v) return v; pay(f); return f.s[b] }, cost, async: false }
  switch (node.op) {
    case '&&': return { fn: (f) => { const v = l(f); if (!v) return v; pay(f); return r(f) }, cost, async: false }
    case '||': return { fn: (f) => { const v = l(f); if (v) return v; pay(f); return r(f) }, cost, async: false }
    default: return { fn: (f) => { const v = l(f); if (v !== null && v !== undefined) return v; pay(f); return r(f) }, cost, async: false }
  }
}

function unary(c: Compiler, node: any, scope: Scope): CExpr {
  const op = node.op as string
  if (op === 'delete') return deleteExpr(c, node, scope)
  if (op === 'typeof' && node.argument?.$expr === 'ident' && !scope.lookup(node.argument.name)
    && !Object.hasOwn(GLOBAL_VALUES, node.argument.name)) {
    return { ...constant('undefined'), cost: 2 * NODE_COST }
  }
  const impl = UNARY_OPS[op]!
  const arg = c.expr(node.argument, scope)
  const a = arg.fn
  const cost = NODE_COST + arg.cost
  if (arg.async) return { fn: (f) => then(a(f), (v) => impl(v, f)), cost, async: true }
  switch (op) {
    case '-': return { fn: (f) => { const v = a(f); return typeof v !== 'number' ? impl(v, f) : -v }, cost, async: false }
    case '!': {
      // `!flag` reads the variable in place (rules-style conditions: `region === 1 && !vip`).
      const slot = arg.slot
      return { fn: slot !== undefined ? (f) => !f.s[slot] : (f) => !a(f), cost, async: false }
    }
    default: return { fn: (f) => impl(a(f), f), cost, async: false }
  }
}

function deleteExpr(c: Compiler, node: any, scope: Scope): CExpr {
  const target = node.argument
  if (!target || target.$expr !== 'member') throw compileError('AST_INVALID', '`delete` needs a member expression')
  const obj = c.expr(target.object, scope)
  const key: CExpr = target.computed ? c.expr(target.property, scope) : constant(target.property)
  if (!target.computed && isForbiddenKey(target.property)) forbidden(target.property)
  const async = obj.async || key.async
  const fn = async ? (f: Frame) => seq2(obj.fn, key.fn, (o, k) => deleteProp(f.rt, o, k))(f) : (f: Frame) => deleteProp(f.rt, obj.fn(f), key.fn(f))
  return { fn, cost: 2 * NODE_COST + obj.cost + (target.computed ? key.cost : 0), async }
}

function conditional(c: Compiler, node: any, scope: Scope): CExpr {
  const test = c.expr(node.test, scope)
  const yes = c.expr(node.consequent, scope)
  const no = c.expr(node.alternate, scope)
  const t = test.fn, y = yes.fn, n = no.fn, yc = yes.cost, nc = no.cost, yk = yes.constant, nk = no.constant
  // The branch's static cost is paid inline (as Run.charge: the clock is read after a long charge).
  // A constant branch (`w > 20 ? 15 : 8`) is read in place, not called.
  const pick = (f: Frame, v: unknown) => {
    const rt = f.rt, c = v ? yc : nc
    if ((rt.left -= c) < 0) rt.outOfFuel()
    if (c >= LONG_CHARGE_UNITS) rt.checkTime()
    return v ? (yk ? yk.value : y(f)) : nk ? nk.value : n(f)
  }
  const async = test.async || yes.async || no.async
  if (test.async) return { fn: (f: Frame) => then(t(f), (v) => pick(f, v)), cost: NODE_COST + test.cost, async }
  // The test is a variable or `x op k`: read it in place (rules-style code is full of these), the
  // comparison by compare() (one closure for every operator: the VM bundle's size).
  const cost = NODE_COST + test.cost
  const b = test.slotOp, k = b?.num !== undefined ? COMPARE[b.op] : undefined, slot = test.slot
  if (k !== undefined) {
    const a = b!.a, m = b!.num!
    return { fn: (f: Frame) => { const x = f.s[a]; return pick(f, typeof x === 'number' ? compare(k, x, m) : t(f)) }, cost, async }
  }
  return { fn: slot !== undefined ? (f: Frame) => pick(f, f.s[slot]) : (f: Frame) => pick(f, t(f)), cost, async }
}

/** Spread of an iterable into an array under construction. */
export function spreadInto(f: Frame, out: unknown[], v: unknown): void {
  if (Array.isArray(v)) {
    f.rt.chargeSlots(v.length)
    for (let i = 0; i < v.length; i++) out.push(v[i])
  } else if (typeof v === 'string') {
    f.rt.chargeSlots(v.length)
    for (const ch of v) out.push(ch)
  } else {
    throw vmError('TYPE_ERROR', `${v === null ? 'null' : typeof v} is not iterable`)
  }
}

/** Compile a list of arguments/elements that may contain spreads into one array-producing closure. */
export function compileList(c: Compiler, items: any[], scope: Scope): CExpr {
  let cost = 0
  let async = false
  const parts = items.map((item) => {
    const spread = item && item.$expr === 'spread'
    const ce = c.expr(spread ? item.argument : item, scope)
    cost += ce.cost + (spread ? NODE_COST : 0)
    async ||= ce.async
    return { spread, fn: ce.fn }
  })
  const fns = parts.map((p) => p.fn)
  const build = (f: Frame, values: unknown[]) => {
    if (!parts.some((p) => p.spread)) return values
    const out: unknown[] = []
    for (let i = 0; i < values.length; i++) {
      if (parts[i]!.spread) spreadInto(f, out, values[i])
      else out.push(values[i])
    }
    return out
  }
  if (async) return { fn: (f) => seqN(fns, (vals) => build(f, vals))(f), cost, async }
  const hasSpread = parts.some((p) => p.spread)
  const n = fns.length
  const fn = hasSpread
    ? (f: Frame) => { const vals = new Array(n); for (let i = 0; i < n; i++) vals[i] = fns[i]!(f); return build(f, vals) }
    : n === 0 ? () => []
    : n === 1 ? (f: Frame) => [fns[0]!(f)]
    : n === 2 ? (f: Frame) => [fns[0]!(f), fns[1]!(f)]
    : (f: Frame) => { const vals = new Array(n); for (let i = 0; i < n; i++) vals[i] = fns[i]!(f); return vals }
  return { fn, cost, async }
}

function array(c: Compiler, node: any, scope: Scope): CExpr {
  const list = compileList(c, node.elements, scope)
  const l = list.fn
  const charge = (f: Frame, a: unknown[]) => { f.rt.chargeSlots(a.length); return a }
  const fn = list.async ? (f: Frame) => then(l(f), (a) => charge(f, a)) : (f: Frame) => charge(f, l(f))
  return { fn, cost: NODE_COST + list.cost, async: list.async }
}

/** Copy own enumerable properties of `src` into `out` (object spread / Object.assign semantics without setters). */
export function spreadProps(f: Frame, out: Record<string, unknown>, src: unknown): void {
  if (src === null || src === undefined) return
  if (typeof src === 'string') {
    // One property per character: paid and size-checked before the object grows.
    chargeProps(f.rt, src.length)
    for (let i = 0; i < src.length; i++) out[i] = src[i]
    return
  }
  if (typeof src !== 'object') return
  const keys = ownKeys(src)
  f.rt.chargeSlots(keys.length)
  for (const k of keys) out[k] = (src as Record<string, unknown>)[k]
}

function object(c: Compiler, node: any, scope: Scope): CExpr {
  let cost = NODE_COST
  let async = false
  type Part = { kind: 'static'; key: string; fn: any; slot: number } | { kind: 'computed'; key: any; fn: any } | { kind: 'spread'; fn: any }
  const parts: Part[] = node.properties.map((p: any): Part => {
    if (p && p.$expr === 'spread') {
      const ce = c.expr(p.argument, scope)
      cost += ce.cost + NODE_COST
      async ||= ce.async
      return { kind: 'spread', fn: ce.fn }
    }
    const value = c.expr(p.value, scope)
    cost += value.cost
    async ||= value.async
    if (p.computed) {
      const key = c.expr(p.key, scope)
      cost += key.cost
      async ||= key.async
      return { kind: 'computed', key: key.fn, fn: value.fn }
    }
    if (isForbiddenKey(p.key)) forbidden(p.key)
    return { kind: 'static', key: p.key, fn: value.fn, slot: value.slot ?? -1 }
  })
  if (!async && parts.every((p) => p.kind === 'static')) {
    const keys = parts.map((p) => (p as { key: string }).key)
    const fns = parts.map((p) => p.fn)
    // A variable's value (`{ band, nights }`, `{ query: query }`) is read from its slot in place, not by its closure.
    const slots = parts.map((p) => (p as { slot: number }).slot)
    const n = keys.length
    const fn = (f: Frame) => {
      const o: Record<string, unknown> = {}
      for (let i = 0; i < n; i++) { const s = slots[i]!; o[keys[i]!] = s >= 0 ? f.s[s] : fns[i](f) }
      f.rt.chargeSlots(n)
      return o
    }
    return { fn, cost, async }
  }
  // General path: evaluate in source order (key before value), with spreads.
  const fns: Array<(f: Frame) => any> = []
  for (const p of parts) {
    if (p.kind === 'computed') fns.push(p.key)
    fns.push(p.fn)
  }
  const build = (f: Frame, vals: unknown[]) => {
    const o: Record<string, unknown> = {}
    let i = 0
    let added = 0
    for (const p of parts) {
      if (p.kind === 'spread') spreadProps(f, o, vals[i++])
      else if (p.kind === 'computed') {
        const k = toKey(f.rt, vals[i++])
        o[k] = vals[i++]
        added++
      } else {
        o[p.key] = vals[i++]
        added++
      }
    }
    f.rt.chargeSlots(added)
    return o
  }
  return { fn: (f) => seqN(fns, (vals) => build(f, vals))(f), cost, async }
}

/** `${v}`: objects take the guarded conversion (see builtins/coerce.ts). */
export function toStringGuest(v: unknown, rt?: Run): string {
  return typeof v === 'object' && v !== null ? guestString(rt, v) : String(v)
}

function template(c: Compiler, node: any, scope: Scope): CExpr {
  const quasis: string[] = node.quasis
  const exprs = (node.expressions as Expr[]).map((e) => c.expr(e, scope))
  const cost = NODE_COST + exprs.reduce((s, e) => s + e.cost, 0)
  const join = (f: Frame, vals: unknown[]) => {
    let s = quasis[0]!
    for (let i = 0; i < vals.length; i++) s += toStringGuest(vals[i], f.rt) + quasis[i + 1]
    return f.rt.chargeString(s)
  }
  const fns = exprs.map((e) => e.fn)
  const async = exprs.some((e) => e.async)
  if (async) return { fn: (f) => seqN(fns, (vals) => join(f, vals))(f), cost, async }
  const n = fns.length
  // A variable (`${name}`) is read from its slot in place, not by its closure.
  const slots = exprs.map((e) => e.slot ?? -1)
  return {
    fn: (f) => {
      let s = quasis[0]!
      for (let i = 0; i < n; i++) { const k = slots[i]!; s += toStringGuest(k >= 0 ? f.s[k] : fns[i]!(f), f.rt) + quasis[i + 1] }
      return f.rt.chargeString(s)
    },
    cost,
    async,
  }
}

function sequence(c: Compiler, node: any, scope: Scope): CExpr {
  const exprs = (node.expressions as Expr[]).map((e) => c.expr(e, scope))
  if (exprs.length === 0) throw compileError('AST_INVALID', 'sequence needs at least one expression')
  const fns = exprs.map((e) => e.fn)
  const async = exprs.some((e) => e.async)
  const cost = NODE_COST + exprs.reduce((s, e) => s + e.cost, 0)
  if (async) return { fn: seqN(fns, (vals) => vals[vals.length - 1]), cost, async }
  return { fn: (f) => { let v; for (const g of fns) v = g(f); return v }, cost, async }
}

function regex(_c: Compiler, node: any): CExpr {
  const pattern = node.pattern, flags = node.flags ?? ''
  // Checked once at compile time; each evaluation is a new value sharing the checked core.
  const checked = regexSupport().make(pattern, flags)
  return { fn: () => checked.again(), cost: NODE_COST, async: false }
}

function spreadOutside(): CExpr {
  throw compileError('AST_INVALID', '`spread` is only valid inside array, object or call arguments')
}

export const EXPR_COMPILERS: Record<string, ExprCompiler> = {
  literal,
  ident,
  member,
  binary,
  logical,
  unary,
  conditional,
  array,
  object,
  template,
  sequence,
  regex,
  spread: spreadOutside,
  call: compileCall,
  methodCall: compileMethodCall,
  lambda: compileLambdaOutsideCall,
  assign: compileAssign,
  update: compileUpdate,
}

export { isP }
