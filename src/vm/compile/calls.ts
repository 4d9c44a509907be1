/**
 * Calls: helper functions, atoms used as expressions, global builtins,
 * namespace statics (`Math.max`), allowlisted instance methods, and lambdas
 * (arrow callbacks, valid only as arguments of array methods).
 */
import { NODE_COST } from '../fuel.ts'
import { toVmError, vmError } from '../errors.ts'
import { isForbiddenKey } from '../guards.ts'
import type { Frame } from '../runtime.ts'
import { RETURN, isPromise } from '../runtime.ts'
import type { CExpr, Scope } from './context.ts'
import { compileError } from './context.ts'
import type { Compiler, GuestFunction } from './compiler.ts'
import { compileList } from './expressions.ts'
import { isP, seq2, seqN, then } from './async.ts'
import { GLOBAL_FUNCTIONS, NAMESPACES } from '../builtins/globals.ts'
import { partStatic } from '../builtins/part-statics.ts'
import { HOF_METHODS, type Callable } from '../builtins/array-hof.ts'
import type { CallbackMethodName } from '../../ast/globals.ts'
import { INSTANCE_METHOD_NAMES, methodDispatcher } from '../builtins/methods.ts'
import { numArg } from './operators.ts'
import { invokeAtom } from './atom-invoke.ts'
import { didYouMean } from '../suggest.ts'

/** `call`: helper > atom > global function, resolved at compile time. */
export function compileCall(c: Compiler, node: any, scope: Scope): CExpr {
  const name = node.callee as string
  if (isForbiddenKey(name)) throw compileError('FORBIDDEN_NAME', `Forbidden function name "${name}"`)
  const argNodes: unknown[] = node.args ?? []
  // A host-added function (AgentVMOptions.functions) may come from another bundle: its errors are read by shape.
  const guest = Object.hasOwn(c.options.functions ?? {}, name) ? c.options.functions![name]! : undefined
  // Plain arguments (no spread) of a helper call are evaluated straight into the callee's slots; a host function with a compile hook gets them as closures.
  const plain = Array.isArray(argNodes) && !argNodes.some((a: any) => a?.$expr === 'spread') && (Object.hasOwn(c.program.functions ?? {}, name) || guest?.compile !== undefined)
  const items = plain ? argNodes.map((a) => c.expr(a, scope)) : undefined
  const itemFns = items?.map((e) => e.fn)
  const args = items ? { fn: (f: Frame) => seqN(itemFns!, (vals) => vals)(f), cost: items.reduce((t, e) => t + e.cost, 0), async: items.some((e) => e.async) } : compileList(c, argNodes, scope)
  const cost = NODE_COST + args.cost
  const helper = c.helper(name, scope)
  if (helper) {
    const a = args.fn
    const fn = items && !args.async ? helper.direct(itemFns!)
      : args.async ? (f: Frame) => then(a(f), (vals) => helper.invoke(f, vals)) : (f: Frame) => helper.invoke(f, a(f))
    // Errors inside the helper are located by its own steps.
    return { fn, cost, async: args.async || helper.async, selfLocated: true }
  }
  const atom = c.expressionAtom(name)
  if (atom) {
    if ((node.args ?? []).length > 1) throw compileError('AST_INVALID', `Atom "${name}" takes one object argument`)
    const loc = node.loc
    const a = args.fn
    const call = (f: Frame, vals: unknown[]) => {
      const input = vals.length === 0 ? {} : vals[0]
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        throw vmError('ATOM_INPUT_INVALID', `Atom "${name}" takes one object argument`, { op: name })
      }
      return invokeAtom(f, atom, input as Record<string, unknown>, loc)
    }
    const fn = args.async ? (f: Frame) => then(a(f), (vals) => call(f, vals)) : (f: Frame) => call(f, a(f))
    return { fn, cost, async: true }
  }
  const global: GuestFunction | undefined = guest ? (rt, v) => { try { return guest(rt, v) } catch (e) { throw toVmError(e) } } : GLOBAL_FUNCTIONS[name]
  if (global) {
    const compiled = guest?.compile && items && !args.async ? guest.compile(items) : undefined
    if (compiled) {
      const g = compiled.fn, loc = node.loc, file = c.file
      // One wrapper instead of two: its errors read by shape, then located at the call as Compiler.expr's wrapper does for other calls.
      const fn = (f: Frame) => {
        try {
          return g(f)
        } catch (e) {
          const v = toVmError(e)
          if (loc) { if (!v.loc) { v.loc = loc; v.file = file } else v.file ??= file }
          throw v
        }
      }
      return { fn, cost: cost + (compiled.cost ?? 0), async: false, selfLocated: true }
    }
    const a = args.fn
    const fn = args.async ? (f: Frame) => then(a(f), (vals) => global(f.rt, vals)) : (f: Frame) => global(f.rt, a(f))
    return { fn, cost, async: args.async }
  }
  const known = [...c.helperNames(), ...c.expressionAtomNames(), ...Object.keys(GLOBAL_FUNCTIONS)]
  // A name the transpiler compiled as a late-bound atom (listed in the AST's `atoms`) is a missing atom.
  if (c.neededAtoms.has(name)) throw compileError('UNKNOWN_ATOM', `Unknown atom "${name}": this VM has no atom of that name${didYouMean(name, known)}`)
  throw compileError('UNKNOWN_FUNCTION', `Unknown function "${name}"${didYouMean(name, known)}`)
}

const MATH1: Record<string, (x: number) => number> = {
  floor: Math.floor, ceil: Math.ceil, round: Math.round, abs: Math.abs, sqrt: Math.sqrt, trunc: Math.trunc, sign: Math.sign,
}
const MATH2: Record<string, (x: number, y: number) => number> = { min: Math.min, max: Math.max, pow: Math.pow }

/** `Math.f(x)` / `Math.f(x, y)` without spreads: direct calls, no argument array. */
/**
 * An object argument takes the guarded ToPrimitive (native coercion of a shared nested array is
 * exponential), a long text is paid first (operators.ts numArg); a number passes with one type test.
 */
const P = (f: Frame, v: any): any => (typeof v === 'number' ? v : numArg(f, v))

function fastMath(c: Compiler, method: string, argNodes: any[], scope: Scope): CExpr | undefined {
  if (argNodes.some((a) => a?.$expr === 'spread')) return undefined
  const one = argNodes.length === 1 ? MATH1[method] : undefined
  const two = argNodes.length === 2 ? MATH2[method] : undefined
  if (!one && !two) return undefined
  const args = argNodes.map((a) => c.expr(a, scope))
  if (args.some((a) => a.async)) return undefined
  const cost = 2 * NODE_COST + args.reduce((t, a) => t + a.cost, 0)
  const x = args[0]!.fn
  if (one) {
    switch (method) {
      case 'floor': return { fn: (f) => Math.floor(P(f, x(f))), cost, async: false, selfLocated: true }
      case 'round': return { fn: (f) => Math.round(P(f, x(f))), cost, async: false, selfLocated: true }
      default: return { fn: (f) => one(P(f, x(f))), cost, async: false, selfLocated: true }
    }
  }
  const y = args[1]!.fn
  // A number constant bound (`Math.min(25, w)`, `Math.max(x, 0)`) is read in place, not called.
  const kx = args[0]!.constant?.value, ky = args[1]!.constant?.value
  const k = typeof kx === 'number' ? kx : ky, other = typeof kx === 'number' ? y : x
  if (typeof k === 'number' && (method === 'min' || method === 'max')) {
    return { fn: method === 'min' ? (f) => Math.min(k, P(f, other(f))) : (f) => Math.max(k, P(f, other(f))), cost, async: false, selfLocated: true }
  }
  switch (method) {
    case 'min': return { fn: (f) => Math.min(P(f, x(f)), P(f, y(f))), cost, async: false, selfLocated: true }
    case 'max': return { fn: (f) => Math.max(P(f, x(f)), P(f, y(f))), cost, async: false, selfLocated: true }
    default: return { fn: (f) => two!(P(f, x(f)), P(f, y(f))), cost, async: false, selfLocated: true }
  }
}

function isLambda(node: any): boolean {
  return node && node.$expr === 'lambda'
}

/** `methodCall`: namespace statics are bound at compile time; instance methods dispatch on the value's type. */
export function compileMethodCall(c: Compiler, node: any, scope: Scope): CExpr {
  const method = node.method as string
  if (isForbiddenKey(method)) throw compileError('FORBIDDEN_NAME', `Forbidden method name "${method}"`)
  const argNodes: any[] = node.args ?? []
  const objNode = node.object
  if (objNode?.$expr === 'ident' && !scope.lookup(objNode.name) && Object.hasOwn(NAMESPACES, objNode.name)) {
    const ns = NAMESPACES[objNode.name]!
    const impl = Object.hasOwn(ns, method) ? ns[method] : partStatic(objNode.name, method)
    if (!impl) {
      throw compileError('METHOD_NOT_ALLOWED', `${objNode.name}.${method} is not available${didYouMean(method, Object.keys(ns))}`)
    }
    if (argNodes.some(isLambda)) throw compileError('AST_INVALID', `${objNode.name}.${method} does not take a callback`)
    const fast = objNode.name === 'Math' ? fastMath(c, method, argNodes, scope) : undefined
    if (fast) return fast
    const args = compileList(c, argNodes, scope)
    const a = args.fn
    const fn = args.async ? (f: Frame) => then(a(f), (vals) => impl(f.rt, vals)) : (f: Frame) => impl(f.rt, a(f))
    return { fn, cost: 2 * NODE_COST + args.cost, async: args.async }
  }
  const obj = c.expr(objNode, scope)
  const optional = node.optional === true
  if (argNodes.some(isLambda)) return compileHofCall(c, node, obj, scope)
  if (!INSTANCE_METHOD_NAMES.has(method)) {
    throw compileError('METHOD_NOT_ALLOWED', `Method "${method}" is not available${didYouMean(method, [...INSTANCE_METHOD_NAMES])}`)
  }
  const args = compileList(c, argNodes, scope)
  const dispatch = methodDispatcher(method)
  const invoke = optional
    ? (f: Frame, target: unknown, vals: unknown[]) => (target === null || target === undefined ? undefined : dispatch(f.rt, target, vals))
    : (f: Frame, target: unknown, vals: unknown[]) => dispatch(f.rt, target, vals)
  const async = obj.async || args.async
  const o = obj.fn, a = args.fn, s = obj.slot
  // `t.toUpperCase()`, `picked.join(', ')`: the receiver read from its slot in place (and no closure for no arguments).
  const fn = async ? (f: Frame) => seq2(o, a, (t, vals) => invoke(f, t, vals))(f)
    : optional ? (f: Frame) => invoke(f, o(f), a(f))
    : s === undefined ? (f: Frame) => dispatch(f.rt, o(f), a(f))
    : argNodes.length === 0 ? (f: Frame) => dispatch(f.rt, f.s[s], [])
    : (f: Frame) => dispatch(f.rt, f.s[s], a(f))
  return { fn, cost: NODE_COST + obj.cost + args.cost, async }
}

function compileHofCall(c: Compiler, node: any, obj: CExpr, scope: Scope): CExpr {
  const method = node.method as string
  // Own names only: a hostile AST's `toString` or `valueOf` must not find Object.prototype's.
  const hof = Object.hasOwn(HOF_METHODS, method) ? HOF_METHODS[method as CallbackMethodName] : undefined
  if (!hof) throw compileError('METHOD_NOT_ALLOWED', `Method "${method}" does not take a callback${didYouMean(method, Object.keys(HOF_METHODS))}`)
  const all: any[] = node.args
  const at = hof.callbackAt ?? 0
  if (!isLambda(all[at]) || all.some((a, i) => i !== at && isLambda(a))) {
    throw compileError('AST_INVALID', `${method} takes the callback as its ${at === 0 ? 'first' : 'second'} argument`)
  }
  // The callback first, then the method's other arguments (`extra`), in their order.
  const argNodes = [all[at], ...all.filter((_, i) => i !== at)]
  // A callback that loops may pause between time slices, where the method can wait for it and a promise is welcome here.
  const pausing = !hof.syncOnly && c.canSuspend(scope) && c.callbackLoops(argNodes[0])
  const lambda = pausing ? compileLambda(c, argNodes[0], scope, true) : c.inLambda(() => compileLambda(c, argNodes[0], scope))
  const rest = compileList(c, argNodes.slice(1), scope)
  if (lambda.async && hof.syncOnly) throw compileError('AST_INVALID', `The callback of ${method} must answer at once: it cannot call atoms, or helpers that call them`)
  const optional = node.optional === true
  const o = obj.fn, r = rest.fn
  const invoke = (f: Frame, target: unknown, extra: unknown[]) => {
    if (optional && (target === null || target === undefined)) return undefined
    if (hof.text ? typeof target !== 'string' : !Array.isArray(target)) {
      throw vmError('TYPE_ERROR', `${method} with a callback needs ${hof.text ? 'a string' : 'an array'}, got ${target === null ? 'null' : typeof target}`)
    }
    return hof.run(f, target as unknown[], lambda, extra)
  }
  const async = obj.async || rest.async || lambda.async
  const fn = obj.async || rest.async
    ? (f: Frame) => seq2(o, r, (t, extra) => invoke(f, t, extra))(f)
    : (f: Frame) => invoke(f, o(f), r(f))
  return { fn, cost: NODE_COST + obj.cost + rest.cost, async }
}

/** Compile a lambda into a callable bound to the enclosing function's frame. */
export function compileLambda(c: Compiler, node: any, scope: Scope, pausing = false): Callable {
  const inner = scope.child()
  const params = (node.params ?? []) as unknown[]
  if (params.length > 4) throw compileError('AST_INVALID', 'An array-method callback takes at most 4 parameters')
  const binders = params.map((p) => c.pattern(p, inner, 'param'))
  const bindAsync = binders.some((b) => b.async)
  const bindCost = binders.reduce((s, b) => s + b.cost, 0)
  // Plain named parameters go straight into their slots; patterns use their binders.
  const slots = params.every((p) => typeof p === 'string') ? (params as string[]).map((p) => inner.lookup(p)!.slot) : null
  const n = params.length
  const bindAll = (f: Frame, a: unknown, b: unknown, cc: unknown, d: unknown): unknown => {
    const args = [a, b, cc, d]
    if (slots) {
      for (let i = 0; i < n; i++) f.s[slots[i]!] = args[i]
      return undefined
    }
    let pending: any
    for (let i = 0; i < n; i++) {
      if (pending !== undefined) { const k = i; pending = pending.then(() => binders[k]!.bind(f, args[k])); continue }
      const r = binders[i]!.bind(f, args[i])
      if (isP(r)) pending = r
    }
    return pending
  }
  if (node.body !== undefined) {
    const body = c.expr(node.body, inner)
    const b = body.fn
    const cost = body.cost + bindCost
    const async = body.async || bindAsync || pausing
    if (slots && !async) {
      const [s0 = -1, s1 = -1, s2 = -1, s3 = -1] = slots
      const call = (f: Frame, a?: unknown, bb?: unknown, cc?: unknown, d?: unknown) => {
        const rt = f.rt
        if ((++rt.ticks & 1023) === 0) rt.checkTime()
        if ((rt.left -= cost) < 0) rt.outOfFuel()
        if (s0 >= 0) {
          f.s[s0] = a
          if (s1 >= 0) {
            f.s[s1] = bb
            if (s2 >= 0) { f.s[s2] = cc; if (s3 >= 0) f.s[s3] = d }
          }
        }
        return b(f)
      }
      return { call, async }
    }
    const call = (f: Frame, a?: unknown, bb?: unknown, cc?: unknown, d?: unknown) => {
      f.rt.tick()
      f.rt.charge(cost)
      return then(bindAll(f, a, bb, cc, d), () => b(f))
    }
    return { call, async }
  }
  const block = c.block(node.steps ?? [], inner)
  const steps = block.run
  const readReturn = (f: Frame, code: number) => {
    if (code === RETURN) { const v = f.ret; f.ret = undefined; return v }
    return undefined
  }
  const call = (f: Frame, a?: unknown, bb?: unknown, cc?: unknown, d?: unknown) => {
    f.rt.tick()
    f.rt.charge(bindCost)
    return then(bindAll(f, a, bb, cc, d), () => {
      const code = steps(f)
      return isPromise(code) ? code.then((k) => readReturn(f, k)) : readReturn(f, code)
    })
  }
  return { call, async: block.async || bindAsync || pausing }
}

export function compileLambdaOutsideCall(): CExpr {
  throw compileError('AST_INVALID', 'A lambda can only be the callback argument of an array method')
}
