/**
 * The compiler: turns a validated "ajs/1" program into closures, once.
 * Dispatch is table-driven (EXPR_COMPILERS, STEP_COMPILERS); anything not in
 * the tables is an atom step. The result is cached per AST by the VM.
 */
import type { AjsProgram, FunctionDef, Loc, Step } from '../../ast/types.ts'
import { VmError, vmError } from '../errors.ts'
import { Frame, RETURN, NORMAL, isPromise, type Run, type Completion, type HelperFrame, type ProgramHelpers } from '../runtime.ts'
import { FnCtx, Scope, compileError, type CExpr, type CStep } from './context.ts'
import { EXPR_COMPILERS } from './expressions.ts'
import { compilePattern, type CPattern, type PatternKind } from './patterns.ts'
import { STEP_COMPILERS } from './statements.ts'
import { compileAtomStep } from './atom-steps.ts'
import type { AtomDef, AtomTable } from '../atoms/types.ts'
import { isP } from './async.ts'
import { didYouMean } from '../suggest.ts'
import { wrapTrace } from './trace.ts'
import { helperKinds, runsLoops } from './async-scan.ts'

export interface CStepInfo {
  run: CStep
  async: boolean
  /**
   * Static micro-fuel of the step (its own STEP_COST plus the expressions it
   * always evaluates). Not charged by `run`: the enclosing block charges the
   * sum for all its steps once, on entry (see fuel.ts).
   */
  cost: number
}

export interface HelperRef {
  invoke: (f: Frame, args: unknown[]) => unknown
  /** A synchronous call on a frame the caller keeps between calls (see Run.callHelper). */
  kept: (rt: Run, args: unknown[], keep: HelperFrame) => unknown
  /**
   * A call whose arguments are plain expressions (no spread): each argument is evaluated straight
   * into the callee's new slots, no argument array (same order, same fuel as `invoke`).
   */
  direct: (argFns: ReadonlyArray<(f: Frame) => unknown>) => (f: Frame) => unknown
  async: boolean
}

interface HelperState {
  slots?: unknown[]
  ctx: FnCtx
  body: ((f: Frame, args: unknown[]) => unknown) | null
  /** The parameters' slots when every parameter is a plain name (the direct call path), else null. */
  params: number[] | null
  /** The body's steps (for the direct call path). */
  run: CStep | null
  async: boolean
}

export interface CompiledProgram {
  /** Run the entry with the given (already copied-in) args; returns the return value. */
  run: (rt: Run, args: unknown) => unknown
  nslots: number
}

/**
 * A synchronous function a host adds to the VM (`AgentVMOptions.functions`), called by name from
 * `call` expressions with the evaluated arguments. It charges fuel for its work through the run
 * (`charge(units)`, `chargeSlots(n)`, `chargeString(s)`) and throws `VmError`s to fail.
 */
export type GuestFunction = ((rt: Run, args: unknown[]) => unknown) & {
  /**
   * Optional: build a call with plain, synchronous arguments once, at compile time, from its
   * arguments' closures (a constant argument's value readable), instead of being called with an
   * argument array each time; undefined to be called plainly. `cost`: micro-fuel added per call.
   */
  compile?: (args: readonly GuestArg[]) => { fn: (f: Frame) => unknown; cost?: number } | undefined
}

/** An argument as a guest function's `compile` sees it. */
export interface GuestArg {
  readonly fn: (f: Frame) => unknown
  readonly constant?: { value: unknown }
  readonly slot?: number
}

export interface CompileOptions {
  trace: boolean
  functions?: Readonly<Record<string, GuestFunction>>
}

export class Compiler {
  private readonly helpers = new Map<string, HelperState>()
  private ids = 0
  /** > 0 while compiling an array-method callback (its caller expects a plain value). */
  private lambdaDepth = 0
  private readonly asyncHelpers: Set<string>
  private readonly loopingHelpers: Set<string>
  readonly file: string | undefined
  /** The custom atoms the program says it calls (its `atoms` metadata). */
  readonly neededAtoms: ReadonlySet<string>

  constructor(readonly program: AjsProgram, readonly atoms: AtomTable, readonly options: CompileOptions) {
    this.file = typeof program.file === 'string' ? program.file : undefined
    this.neededAtoms = new Set(Array.isArray(program.atoms) ? program.atoms : [])
    const kinds = helperKinds(program, atoms)
    this.asyncHelpers = kinds.async
    this.loopingHelpers = kinds.looping
  }

  /** Whether a loop compiled in this scope may pause (return a Promise) between time slices. */
  canSuspend(scope: Scope): boolean {
    return scope.fn.suspendable && this.lambdaDepth === 0
  }

  /** Whether a callback runs loops (its own, or a looping helper's): see compileHofCall. */
  callbackLoops(node: unknown): boolean {
    return runsLoops(node, this.atoms, new Set(this.helperNames()), this.loopingHelpers)
  }

  /** Compile an array-method callback's body: loops inside cannot pause. */
  inLambda<T>(compile: () => T): T {
    this.lambdaDepth++
    try {
      return compile()
    } finally {
      this.lambdaDepth--
    }
  }

  /** A number unique within this program (e.g. to key a memoize step's cache). */
  nextId(): number {
    return ++this.ids
  }

  // --- expressions ---------------------------------------------------------

  expr(node: any, scope: Scope): CExpr {
    // validateAst checked the node (AgentVM.compile validates first): its kind is one of EXPR_COMPILERS' (own keys only).
    const compile = (Object.hasOwn(EXPR_COMPILERS, node.$expr) ? EXPR_COMPILERS[node.$expr] : undefined) as (typeof EXPR_COMPILERS)[string]
    const loc = node.loc as Loc | undefined
    if (!loc) return compile(this, node, scope)
    let ce: CExpr
    try {
      ce = compile(this, node, scope)
    } catch (e) {
      if (e instanceof VmError && !e.loc) { e.loc = loc; e.file = this.file }
      throw e
    }
    // Calls are where run-time errors usually start: point at the call, not just its step.
    return (node.$expr === 'call' || node.$expr === 'methodCall') && !ce.selfLocated ? { ...ce, ...locateCall(ce, loc, this.file) } : ce
  }

  pattern(p: unknown, scope: Scope, kind: PatternKind): CPattern {
    return compilePattern(this, p, scope, kind)
  }

  // --- steps ---------------------------------------------------------------

  /** A block: its own lexical scope. */
  block(steps: unknown, scope: Scope): CStepInfo {
    return this.sequence(steps, scope.child())
  }

  /** Steps in the given scope, run in order (a list validateAst checked). */
  sequence(list: unknown, scope: Scope): CStepInfo {
    const steps = list as any[]
    const infos = steps.map((s) => this.step(s, scope))
    const async = infos.some((i) => i.async)
    const locs = steps.map((s: any) => (Array.isArray(s?.loc) ? (s.loc as Loc) : undefined))
    const ops = steps.map((s: any) => s.op as string)
    const cost = infos.reduce((t, i) => t + i.cost, 0)
    return { run: runSequence(infos.map((i) => i.run), cost, locs, ops, this.file), async, cost: 0 }
  }

  step(node: any, scope: Scope): CStepInfo {
    const loc = node.loc as Loc | undefined
    let info: CStepInfo
    try {
      const special = Object.hasOwn(STEP_COMPILERS, node.op) ? STEP_COMPILERS[node.op] : undefined
      info = special ? special(this, node as Step, scope) : compileAtomStep(this, node as Step, scope)
    } catch (e) {
      if (e instanceof VmError) {
        if (!e.loc && loc) { e.loc = loc; e.file = this.file }
        e.op ??= node.op
      }
      throw e
    }
    if (this.options.trace) info = { ...info, run: wrapTrace(info.run, node.op, loc, this.file, info.cost) }
    return info
  }

  /** Where a step's `result` (or varSet's key) goes: an existing binding, else a function-scope variable. */
  resultSlot(name: string, scope: Scope): number {
    return scope.lookupForWrite(name)?.slot ?? scope.varScope().declare(name, 'var').slot
  }

  // --- resolution ------------------------------------------------------------

  /**
   * A helper, as called from `scope`: a looping helper called where a Promise
   * is welcome gets its pausing variant (compiled once per variant).
   */
  helper(name: string, scope: Scope): HelperRef | undefined {
    const defs = this.program.functions
    if (!defs || !Object.hasOwn(defs, name)) return undefined
    const pausing = this.loopingHelpers.has(name) && this.canSuspend(scope)
    const key = pausing ? `${name}:pausing` : name
    let state = this.helpers.get(key)
    if (!state) {
      state = { ctx: new FnCtx(name), body: null, params: null, run: null, async: this.asyncHelpers.has(name) || pausing }
      state.ctx.suspendable = state.async
      this.helpers.set(key, state)
      // A helper's own loops pause or not by the helper, not by where it was first called from.
      const outer = this.lambdaDepth
      this.lambdaDepth = 0
      try {
        state.body = this.compileFunction(defs[name]!, state.ctx, state)
      } finally {
        this.lambdaDepth = outer
      }
    }
    const st = state
    const invoke = (f: Frame, args: unknown[]): unknown => {
      const rt = f.rt
      rt.enter()
      // One template per function, copied per call (cheaper than building).
      const frame = new Frame(freshSlots(st.slots ??= newSlots(st.ctx.nslots)), rt)
      let r: unknown
      try {
        r = st.body!(frame, args)
      } catch (e) {
        rt.leave()
        throw e
      }
      if (isP(r)) return leaveAfter(r, rt)
      rt.leave()
      return r
    }
    // A frame the caller keeps (Run.callHelper's `keep`): the first call binds the arguments; later
    // calls run the body again on the variables as the last call left them.
    const kept = (rt: Run, args: unknown[], keep: HelperFrame): unknown => {
      if (keep.slots === undefined) {
        keep.slots = freshSlots(st.slots ??= newSlots(st.ctx.nslots))
        rt.enter()
        try {
          return st.body!(new Frame(keep.slots, rt), args)
        } finally {
          rt.leave()
        }
      }
      if (st.run === null) throw vmError('AST_INVALID', `"${name}": a kept frame needs plain parameters`)
      rt.enter()
      try {
        const frame = new Frame(keep.slots, rt)
        return returned(frame, st.run(frame) as Completion)
      } finally {
        rt.leave()
      }
    }
    return {
      async: st.async,
      invoke,
      kept,
      direct: (argFns) => {
        const m = argFns.length
        return (f) => {
          const ps = st.params
          if (ps === null) {
            const args = new Array(m)
            for (let i = 0; i < m; i++) args[i] = argFns[i]!(f)
            return invoke(f, args)
          }
          const n = ps.length
          const s = freshSlots(st.slots ??= newSlots(st.ctx.nslots))
          // The arguments, in order, before the call is entered (as `invoke`'s caller does).
          for (let i = 0; i < m; i++) {
            const v = argFns[i]!(f)
            if (i < n) s[ps[i]!] = v
          }
          const rt = f.rt
          rt.enter()
          const frame = new Frame(s, rt)
          let code: Completion | Promise<Completion>
          try {
            code = st.run!(frame)
          } catch (e) {
            rt.leave()
            throw e
          }
          if (typeof code === 'number') {
            rt.leave()
            return returned(frame, code)
          }
          return leaveAfter(code, rt, frame)
        }
      },
    }
  }

  helperNames(): string[] {
    return Object.keys(this.program.functions ?? {})
  }

  expressionAtom(name: string): AtomDef | undefined {
    const a = this.atoms.get(name)
    return a && a.expression !== false ? a : undefined
  }

  expressionAtomNames(): string[] {
    return [...this.atoms.values()].filter((a) => a.expression !== false).map((a) => a.op)
  }

  suggest(name: string, scope: Scope): string {
    const names: string[] = []
    for (let s: Scope | null = scope; s; s = s.parent) names.push(...s.names.keys())
    return didYouMean(name, names)
  }

  // --- functions -------------------------------------------------------------

  private compileFunction(def: FunctionDef, ctx: FnCtx, state?: HelperState): (f: Frame, args: unknown[]) => unknown {
    const scope = ctx.root
    const params = Array.isArray(def.params) ? def.params : []
    const binders = params.map((p) => this.pattern(p, scope, 'param'))
    const body = this.sequence(def.steps, scope.child())
    const run = body.run
    if (params.every((p) => typeof p === 'string')) {
      // Plain named parameters (the common case): store the arguments straight into their slots.
      const slots = (params as string[]).map((p) => scope.lookup(p)!.slot)
      if (state) { state.params = slots; state.run = run }
      const n = slots.length
      return (f, args) => {
        for (let i = 0; i < n; i++) f.s[slots[i]!] = args[i]
        const code = run(f)
        return typeof code === 'number' ? returned(f, code) : returnedLater(code, f)
      }
    }
    return (f, args) => {
      let pending: unknown
      for (let i = 0; i < binders.length; i++) {
        const b = binders[i]!
        if (pending !== undefined) { const k = i; pending = (pending as Promise<unknown>).then(() => b.bind(f, args[k])); continue }
        const r = b.bind(f, args[i])
        if (isP(r)) pending = r
      }
      const go = () => {
        const code = run(f)
        return isPromise(code) ? returnedLater(code, f) : returned(f, code)
      }
      return pending !== undefined ? (pending as Promise<unknown>).then(go) : go()
    }
  }

  /**
   * The helpers as library functions call them back (Run.callHelper): compiled on first call, in
   * their variant that never pauses (the library function waits for the answer).
   */
  private programHelpers(): ProgramHelpers {
    const host = new FnCtx('<library>').root
    const refs = new Map<string, HelperRef>()
    return {
      waits: (name) => this.asyncHelpers.has(name),
      call: (rt, name, args, keep) => {
        let ref = refs.get(name)
        if (!ref) {
          ref = this.helper(name, host)
          if (!ref) throw vmError('UNKNOWN_FUNCTION', `Unknown function "${name}"`)
          refs.set(name, ref)
        }
        if (ref.async) throw vmError('HELPER_WAITS', `"${name}" may wait for an atom: it cannot answer at once here`)
        return keep ? ref.kept(rt, args, keep) : ref.invoke(new Frame(NO_SLOTS, rt), args)
      },
    }
  }

  compileProgram(): CompiledProgram {
    const ctx = new FnCtx('<entry>')
    ctx.suspendable = true
    const scope = ctx.root
    const params = this.program.params !== undefined ? this.pattern(this.program.params, scope, 'param') : undefined
    const body = this.sequence(this.program.steps, scope.child())
    const run = body.run
    let template: unknown[] | undefined
    const helpers = this.programHelpers()
    return {
      nslots: ctx.nslots,
      run: (rt, args) => {
        rt.program = helpers
        const f = new Frame(freshSlots(template ??= newSlots(ctx.nslots)), rt)
        const go = () => {
          const code = run(f)
          return isPromise(code) ? returnedLater(code, f) : returned(f, code)
        }
        if (!params) return go()
        const r = params.bind(f, args)
        return isP(r) ? r.then(go) : go()
      },
    }
  }
}

/**
 * The call's closure, stamping its errors with the call's location; stored by `let x = call(...)`,
 * the store is in the same closure (`into`: one call fewer, same errors, same fuel).
 */
function locateCall(ce: CExpr, loc: Loc, file: string | undefined): Pick<CExpr, 'fn' | 'into'> {
  const fn = ce.fn
  const stamp = (e: unknown) => {
    if (e instanceof VmError) {
      if (!e.loc) { e.loc = loc; e.file = file }
      // A host function located the error itself (inside the call, same program): only the file is ours.
      else e.file ??= file
    }
    return e
  }
  if (!ce.async) {
    return {
      fn: (f) => {
        try {
          return fn(f)
        } catch (e) {
          throw stamp(e)
        }
      },
      into: (d) => (f) => {
        try {
          f.s[d] = fn(f)
        } catch (e) {
          throw stamp(e)
        }
        return NORMAL
      },
    }
  }
  return {
    fn: (f) => {
      try {
        const r = fn(f)
        return isP(r) ? r.catch((e) => { throw stamp(e) }) : r
      } catch (e) {
        throw stamp(e)
      }
    },
    into: undefined,
  }
}

const NO_SLOTS: unknown[] = []

/**
 * Slot arrays all start as HOLEY_ELEMENTS (filled with undefined), so every
 * frame of every program has the same elements kind and the slot loads and
 * stores in the shared closures stay monomorphic.
 */
function newSlots(n: number): unknown[] {
  const a: unknown[] = []
  for (let i = 0; i < n; i++) a.push(undefined)
  return a
}

/**
 * A new frame's slots, all undefined, with the template's elements kind (PACKED_ELEMENTS): an
 * array literal for the small frames (1-5 slots) most helpers have (several times cheaper than the
 * `slice()` builtin call), a copy of the template for larger ones.
 */
function freshSlots(template: unknown[]): unknown[] {
  const u = undefined, n = template.length
  return n === 1 ? [u] : n === 2 ? [u, u] : n === 3 ? [u, u, u] : n === 4 ? [u, u, u, u] : n === 5 ? [u, u, u, u, u] : template.slice()
}

/** A function's value once its body completed with `code`. */
function returned(f: Frame, code: Completion): unknown {
  return code === RETURN ? f.ret : undefined
}

/*
 * The continuations of a call that returned a Promise, as functions of their own: an arrow inside a
 * hot closure that captures its locals (f, rt, frame) makes V8 allocate a context on every call of
 * that closure, whichever path it takes.
 */
function returnedLater(code: Promise<Completion>, f: Frame): Promise<unknown> {
  return code.then((c) => returned(f, c))
}

/** Leave the call once `p` settles; with `frame`, `p` is the body's completion and the value is what it returned. */
function leaveAfter(p: Promise<unknown>, rt: Run, frame?: Frame): Promise<unknown> {
  return p.then((v) => { rt.leave(); return frame ? returned(frame, v as Completion) : v }, (e) => { rt.leave(); throw e })
}

/** A sequence's step `k` returned a Promise: go on from step k + 1 once it settles. */
function goOnAfter(c: Promise<Completion>, f: Frame, k: number, from: (f: Frame, start: number) => Completion | Promise<Completion>, stamp: (e: unknown, i: number) => unknown): Promise<Completion> {
  return c.then((code) => (code !== NORMAL ? code : from(f, k + 1)), (e) => { throw stamp(e, k) })
}

/**
 * Run compiled steps in order, stopping at the first abrupt completion. The
 * block's static cost is charged once on entry. An error escaping a step is
 * stamped with that step's location (the innermost block stamps first), so
 * steps need no wrappers of their own.
 */
export function runSequence(runs: CStep[], cost: number, locs: Array<Loc | undefined>, ops: string[], file: string | undefined): CStep {
  const n = runs.length
  const stamp = (e: unknown, i: number) => {
    if (e instanceof VmError && !e.loc) {
      const loc = locs[i]
      if (loc) { e.loc = loc; e.file = file }
      e.op ??= ops[i]
    }
    return e
  }
  // Called by the block with `f` only: charges the block, runs from the first step. Called with
  // `start` to go on after an async step (no charge): one closure for both, so entering a block is
  // one call, not a charging closure calling the loop.
  const from = (f: Frame, start?: number): Completion | Promise<Completion> => {
    let i = 0
    if (start === undefined) {
      const rt = f.rt
      if ((rt.left -= cost) < 0) rt.outOfFuel()
    } else i = start
    try {
      for (; i < n; i++) {
        const c = runs[i]!(f)
        if (c !== NORMAL) {
          if (typeof c !== 'number') return goOnAfter(c, f, i, from, stamp)
          return c
        }
      }
    } catch (e) {
      throw stamp(e, i)
    }
    return NORMAL
  }
  if (n === 0) return cost === 0 ? () => NORMAL : (f) => { const rt = f.rt; if ((rt.left -= cost) < 0) rt.outOfFuel(); return NORMAL }
  if (n === 1) {
    const only = runs[0]!
    return (f) => {
      const rt = f.rt
      if ((rt.left -= cost) < 0) rt.outOfFuel()
      try {
        const c = only(f)
        return typeof c === 'number' ? c : c.catch((e) => { throw stamp(e, 0) })
      } catch (e) {
        throw stamp(e, 0)
      }
    }
  }
  if (n === 2) {
    const a = runs[0]!, b = runs[1]!
    return (f) => {
      const rt = f.rt
      if ((rt.left -= cost) < 0) rt.outOfFuel()
      let c: Completion | Promise<Completion>
      try {
        c = a(f)
      } catch (e) {
        throw stamp(e, 0)
      }
      if (c !== NORMAL) return typeof c === 'number' ? c : goOnAfter(c, f, 0, from, stamp)
      try {
        c = b(f)
      } catch (e) {
        throw stamp(e, 1)
      }
      return typeof c === 'number' ? c : c.catch((e) => { throw stamp(e, 1) })
    }
  }
  if (n <= 4) {
    // Three or four steps: a call site per step, not one site shared by all steps in a loop
    // (helper-fib's body: 0.66-0.73 of the loop's time). Two steps keep their own closure above,
    // which measured faster for them than this one.
    const [a, b, c, d] = runs as [CStep, CStep, CStep, CStep?]
    return (f) => {
      const rt = f.rt
      if ((rt.left -= cost) < 0) rt.outOfFuel()
      let i = 0, r: Completion | Promise<Completion>
      try {
        if ((r = a(f)) === NORMAL && (i = 1, r = b(f)) === NORMAL && (i = 2, r = c(f)) === NORMAL && d) { i = 3; r = d(f) }
      } catch (e) {
        throw stamp(e, i)
      }
      return typeof r === 'number' ? r : goOnAfter(r, f, i, from, stamp)
    }
  }
  return from
}

export { vmError }
