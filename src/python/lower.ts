/**
 * Statements and functions to "ajs/1": the block is the program's entry;
 * every `def` and comprehension becomes a helper in `functions`, taking its
 * enclosing variables as hidden trailing parameters.
 */
import { LIBRARIES } from '../ast/libraries.ts'
import type { Expr, ExprOf, Loc, Stmt, StmtOf } from './ir.ts'
import type { AjsProgram, FunctionDef, Step } from '../ast/types.ts'
import { type Node, arr, assign, binary, call, exprStep, id, lit, member, methodCall, not, rt, setVar, step, UNDEFINED } from './nodes.ts'
import { DISPATCH, FnCtx, lowerExpr, lowerTest, resolve, sliceParts, store, type VarRef } from './lower-expr.ts'
import { hiddenName, mangle, targetNames, type Analysis, type DefInfo, type FnScope } from './scope.ts'
import type { Refuser } from './refuse.ts'
import type { ClassInfo } from './classes.ts'
import type { PythonExternal } from './lower-external.ts'
import { generatorFunction } from './lower-generator.ts'
import { addClassHelpers, augAttrSteps, classDispatchSteps, delAttrSteps, setAttrSteps } from './lower-class.ts'

export interface LowerOptions {
  /** The program returns `json.dumps(result, sort_keys=True)` text instead of data (exact floats and big ints). */
  jsonText: boolean
  /** The program's classes and imports (extended profile). */
  classes?: ClassInfo
  /** The host's functions the program may call (lower-external.ts). */
  externals?: ReadonlyMap<string, PythonExternal>
  /** The hint for a call of an unknown name: how the host offers more functions. */
  externalsHint?: string
  /** The program may return any JSON data (a workflow), not only a dict (a code block). */
  anyResult?: boolean
}

export class Lowerer {
  private ids = 0
  readonly functions: Record<string, FunctionDef> = {}
  /** Generator expressions that are call arguments (the only place they are accepted). */
  readonly genAllowed = new Set<object>()
  /** Defs used as values (extended profile), numbered for the dispatcher. */
  private readonly functionIds = new Map<DefInfo, number>()
  /** Set when a value is called: the program gets the `call$dispatch` helper. */
  usesDispatch = false
  /** The class lowering's helpers this program needs (lower-class.ts). */
  readonly helpersUsed = new Set<string>()

  constructor(readonly r: Refuser, readonly a: Analysis, readonly options: LowerOptions) {}

  nextId(): number {
    return ++this.ids
  }

  /** CPython's `__qualname__` of a def or lambda (what its call errors name): `_block.<locals>.f`. */
  qualname(d: DefInfo): string {
    const own = (n: string) => (n.startsWith('lambda$') ? '<lambda>' : n)
    const parts = [d.node.lambda ? '<lambda>' : own(d.name)]
    for (let s = d.scope.parent; s; s = s.parent) {
      if (s.kind === 'comp') continue
      const owner = s.kind === 'block' ? '_block' : [...this.a.defOf.values()].find((x) => x.scope === s)?.name
      if (owner) parts.unshift(`${own(owner)}.<locals>`)
    }
    return parts.join('.')
  }

  functionId(d: DefInfo): number {
    let n = this.functionIds.get(d)
    if (n === undefined) this.functionIds.set(d, (n = this.functionIds.size))
    return n
  }

  /**
   * `call$dispatch(f, args, kw)`: a call of a function value. The program's own functions are
   * numbers: bind the arguments (py$bindcall appends the enclosing variables the value carries)
   * and call the helper; builtins, types and bound methods go to the runtime.
   */
  private dispatcher(): void {
    const steps: Step[] = [
      step('varsLet', { vars: { $i: rt('fid', [id('$f')]), $b: UNDEFINED, ...(this.options.classes?.count ? { $o: UNDEFINED, $m: UNDEFINED } : {}) } }),
      ...classDispatchSteps(this, DISPATCH),
      ...this.partialSteps(),
      step('if', { condition: binary('<', id('$i'), lit(0)), then: [step('return', { value: rt('callnative', [id('$f'), id('$a'), id('$kw')]) })] }),
      setVar('$b', rt('bindcall', [id('$f'), id('$a'), id('$kw')])),
    ]
    for (const [d, n] of this.functionIds) {
      const count = d.params.length + hiddenParams(d.scope).length
      const args = Array.from({ length: count }, (_, i) => member(id('$b'), i))
      steps.push(step('if', { condition: binary('===', id('$i'), lit(n)), then: [step('return', { value: call(d.helper, args) })] }))
    }
    steps.push(step('return', { value: lit(null) }))
    this.functions[DISPATCH] = { params: ['$f', '$a', '$kw'], steps }
  }

  /** A `functools.partial` value (fid -3): call its function with its arguments and the call's. */
  private partialSteps(): Step[] {
    const imports = this.options.classes?.imports
    if (!imports || ![...imports.values()].some((i) => i.module === 'functools')) return []
    const p = (i: number) => member(id('$p'), i)
    return [step('if', {
      condition: binary('===', id('$i'), lit(-3)),
      then: [step('varsLet', { vars: { $p: rt('partialcall', [id('$f'), id('$a'), id('$kw')]) } }), step('return', { value: call(DISPATCH, [p(0), p(1), p(2)]) })],
    })]
  }

  lambdaParams(s: FnScope): ReadonlySet<string> {
    return this.a.lambdaParamsOf.get(s) ?? EMPTY
  }

  /** Values for a callee's hidden parameters, as seen from the caller. */
  hiddenArgs(cx: FnCtx, callee: FnScope): Node[] {
    return hiddenParams(callee).map(([hidden, name, owner]) => id(owner === cx.scope ? mangle(name) : hidden))
  }

  // --- the entry ------------------------------------------------------------------

  program(body: Stmt[], params: string[], defaults: Array<Expr | null>, file: string | undefined): AjsProgram {
    const cx = new FnCtx(this, this.a.block, true)
    for (const p of params) cx.definite.add(p)
    const steps: Step[] = []
    steps.push(setVar('$args', rt('bind', [id('$args'), lit(params), lit(defaults.filter((d) => d).length)])))
    params.forEach((p, i) => {
      steps.push(setVar(mangle(p), member(id('$args'), i)))
      const d = defaults[i]
      if (d) steps.push(step('if', { condition: binary('===', id(mangle(p)), UNDEFINED), then: [setVar(mangle(p), lowerExpr(cx, d))] }))
    })
    steps.push(...boxParams(cx.scope, params))
    steps.push(...this.statements(cx, body))
    steps.push(step('return', { value: this.result(lit(null)) }))
    if (this.usesDispatch || this.functionIds.size) this.dispatcher()
    addClassHelpers(this, DISPATCH)
    const root: AjsProgram = {
      ajs: 1,
      op: 'seq',
      libraries: { python: LIBRARIES.python.version },
      params: { $pattern: 'object', properties: [], rest: '$args' },
      functions: this.functions,
      steps: [this.declarations(cx, new Set()), ...steps],
    }
    if (file) root.file = file
    return root
  }

  private result(value: Node): Node {
    return rt(this.options.jsonText ? 'dumps' : this.options.anyResult ? 'data' : 'result', [value])
  }

  /** `varsLet` of every local and temporary not bound otherwise. */
  private declarations(cx: FnCtx, bound: ReadonlySet<string>): Step {
    const vars: Record<string, Node> = {}
    for (const name of cx.scope.locals) if (!bound.has(name)) vars[mangle(name)] = cx.scope.cells.has(name) ? arr([UNDEFINED]) : UNDEFINED
    for (const t of cx.temps) vars[t] = UNDEFINED
    return step('varsLet', { vars })
  }

  // --- functions ------------------------------------------------------------------

  private defStatement(cx: FnCtx, st: StmtOf<'def'>): Step[] {
    const info = this.a.defOf.get(st)!
    const out: Step[] = []
    st.params.forEach((p, i) => {
      const holder = info.defaultHolders[i]
      if (holder && p.dflt) out.push(setVar(holder, lowerExpr(cx, p.dflt), p.dflt.loc))
    })
    const inner = new FnCtx(this, info.scope, false)
    for (const p of st.params) inner.definite.add(p.name)
    // A generator's variables start undefined on its kept frame (lower-generator.ts): its cells are made as its body starts.
    const cells = st.gen ? [...info.scope.cells].filter((n) => !st.params.some((p) => p.name === n)).map((n) => setVar(mangle(n), arr([UNDEFINED]))) : []
    const body = [...boxParams(info.scope, st.params.map((p) => p.name)), ...cells, ...this.statements(inner, st.body)]
    const params = [...st.params.map((p) => mangle(p.name)), ...hiddenParams(info.scope).map(([h]) => h)]
    const declarations = this.declarations(inner, new Set(st.params.map((p) => p.name)))
    if (st.gen) {
      this.generator(info.helper, this.qualname(info), params, declarations, body)
      return out
    }
    this.functions[info.helper] = { params, steps: [declarations, ...body] }
    return out
  }

  /** A comprehension: a helper whose first parameter is the outermost iterable (evaluated by the caller, as in Python). */
  comprehension(cx: FnCtx, e: ExprOf<'comp'>): Node {
    const acc = '$acc'
    const init = e.kind === 'dict' ? rt('dict', [arr([])]) : e.kind === 'set' ? rt('setb', []) : arr([])
    return this.comprehensionHelper(cx, e, `comp$${this.a.scopeOf.get(e)!.id}`, (inner) => [exprStep(this.addToAccumulator(inner, e, acc), e.elt.loc)], (loops) => [setVar(acc, init), ...loops, step('return', { value: id(acc) })])
  }

  /**
   * A generator expression read lazily (extended): a generator function of its own (lower-generator.ts),
   * called at once with the outermost iterable, as CPython evaluates it.
   */
  genexp(cx: FnCtx, e: ExprOf<'comp'>): Node {
    const helper = `genexp$${this.a.scopeOf.get(e)!.id}`
    return this.comprehensionHelper(cx, e, helper, (inner) => [exprStep(rt('yield', [lowerExpr(inner, e.elt)]), e.elt.loc)], (loops) => loops, true)
  }

  /**
   * `any(<genexp>)` / `all(<genexp>)`: the generator expression as a loop that returns as soon as the
   * answer is known. The same as reading the generator lazily (nothing runs between two items), in
   * one helper call.
   */
  anyAll(cx: FnCtx, e: ExprOf<'comp'>, any: boolean): Node {
    const helper = `${any ? 'any' : 'all'}$${this.a.scopeOf.get(e)!.id}`
    return this.comprehensionHelper(cx, e, helper, (inner) => {
      const t = lowerTest(inner, e.elt)
      return [step('if', { condition: any ? t : not(t), then: [step('return', { value: lit(any) })] }, e.elt.loc)]
    }, (loops) => [...loops, step('return', { value: lit(!any) })])
  }

  private comprehensionHelper(cx: FnCtx, e: ExprOf<'comp'>, helper: string, element: (inner: FnCtx) => Step[], wrap: (loops: Step[]) => Step[], lazy = false): Node {
    const scope = this.a.scopeOf.get(e)!
    const inner = new FnCtx(this, scope, false)
    for (const g of e.gens) for (const n of targetNames(g.target)) inner.definite.add(n)
    let innermost: Step[] = element(inner)
    for (let i = e.gens.length - 1; i >= 0; i--) {
      const g = e.gens[i]!
      let body = innermost
      for (let j = g.ifs.length - 1; j >= 0; j--) body = [step('if', { condition: lowerTest(inner, g.ifs[j]!), then: body })]
      const iterable = i === 0 ? id('$iter') : lowerExpr(inner, g.iter)
      innermost = this.forEach(inner, g.target, rt('iter', [iterable], g.iter.loc), body, g.iter.loc)
    }
    const lambdaParams = [...this.lambdaParams(scope)].map(mangle)
    const params = ['$iter', ...hiddenParams(scope).map(([h]) => h), ...lambdaParams]
    const declarations = this.declarations(inner, new Set())
    if (lazy) this.generator(helper, '<genexpr>', params, declarations, innermost)
    else this.functions[helper] = { params, steps: [declarations, ...wrap(innermost)] }
    // The outermost iterable is iterated at once for a generator (`iter()`: a TypeError shows here).
    const first = lazy ? rt('iter', [lowerExpr(cx, e.gens[0]!.iter)], e.gens[0]!.iter.loc) : lowerExpr(cx, e.gens[0]!.iter)
    return call(helper, [first, ...this.hiddenArgs(cx, scope), ...lambdaParams.map((p) => id(p))], e.loc)
  }

  /** A generator function's helpers (lower-generator.ts): the function, its resumable body and its eager twin. */
  private generator(helper: string, qualname: string, params: string[], declarations: Step, body: Step[]): void {
    const locals = Object.keys((declarations as unknown as { vars: Record<string, unknown> }).vars)
    const g = generatorFunction(helper, qualname, params, locals, body)
    this.functions[helper] = { params, steps: g.entry }
    this.functions[`${helper}$resume`] = g.resume
    this.functions[`${helper}$eager`] = g.eager
  }

  private addToAccumulator(cx: FnCtx, e: ExprOf<'comp'>, acc: string): Node {
    if (e.kind === 'dict') return rt('setitem', [lowerExpr(cx, e.value!), id(acc), lowerExpr(cx, e.elt)])
    if (e.kind === 'set') return rt('m', [id(acc), lit('add'), arr([lowerExpr(cx, e.elt)]), lit(null)])
    return methodCall(id(acc), 'push', [lowerExpr(cx, e.elt)])
  }

  // --- statements -----------------------------------------------------------------

  statements(cx: FnCtx, body: Stmt[]): Step[] {
    const out: Step[] = []
    for (const st of body) {
      out.push(...this.statement(cx, st))
      if (st.k === 'assign') for (const t of st.targets) for (const n of targetNames(t)) cx.definite.add(n)
      if (st.k === 'del') for (const t of st.targets) if (t.k === 'name') unbind(cx, t.id)
      if (st.k === 'try') for (const h of st.handlers) if (h.name) unbind(cx, h.name)
    }
    return out
  }

  /** A block that may not run: what it binds is not certainly bound after it. */
  private branch(cx: FnCtx, stmts: Stmt[], bound: string[] = []): Step[] {
    const saved = cx.definite, from = cx.unbound.length
    cx.definite = new Set([...saved, ...bound])
    try {
      return this.statements(cx, stmts)
    } finally {
      cx.definite = saved
      for (const n of cx.unbound.slice(from)) saved.delete(n)
    }
  }

  private statement(cx: FnCtx, st: Stmt): Step[] {
    const loc = st.loc
    switch (st.k) {
      case 'pass': return []
      case 'expr': return [exprStep(lowerExpr(cx, st.e), loc)]
      case 'assign': {
        const value = lowerExpr(cx, st.value)
        if (st.targets.length === 1) return this.assignTo(cx, st.targets[0]!, value, loc)
        const t = cx.temp()
        return [setVar(t, value, loc), ...st.targets.flatMap((target) => this.assignTo(cx, target, id(t), loc))]
      }
      case 'aug': return this.augAssign(cx, st)
      case 'if': {
        const s: Step = step('if', { condition: lowerTest(cx, st.test), then: this.branch(cx, st.body) }, loc)
        if (st.orelse.length) s.else = this.branch(cx, st.orelse)
        return [s]
      }
      case 'while': return this.loop(cx, st.orelse, loc, (body) => [step('while', { condition: lowerTest(cx, st.test), body: body(st.body) }, loc)])
      case 'for': return this.forStatement(cx, st)
      case 'break': {
        const flag = cx.loops[cx.loops.length - 1]
        if (flag === undefined) throw this.r.error('PY_SYNTAX', { detail: "'break' outside loop", fix: 'Use `break` inside a `for` or `while` loop.' }, loc)
        return flag ? [setVar(flag, lit(true)), step('break', {}, loc)] : [step('break', {}, loc)]
      }
      case 'continue':
        if (cx.loops.length === 0) throw this.r.error('PY_SYNTAX', { detail: "'continue' not properly in loop", fix: 'Use `continue` inside a `for` or `while` loop.' }, loc)
        return [step('continue', {}, loc)]
      case 'return': {
        const value = st.value ? lowerExpr(cx, st.value) : lit(null)
        return [step('return', { value: cx.isBlock ? this.result(value) : value }, loc)]
      }
      case 'raise': {
        if (!st.exc) {
          const current = cx.handlers[cx.handlers.length - 1]
          const value = current ? id(current) : rt('exc', [lit('RuntimeError'), arr([lit('No active exception to reraise')])])
          return [step('throw', { value }, loc)]
        }
        return [step('throw', { value: rt('raise', [lowerExpr(cx, st.exc)]) }, loc)]
      }
      case 'assert': {
        const args = st.msg ? [lowerExpr(cx, st.msg)] : []
        return [step('if', { condition: not(lowerTest(cx, st.test)), then: [step('throw', { value: rt('exc', [lit('AssertionError'), arr(args)]) }, loc)] }, loc)]
      }
      case 'del': return st.targets.flatMap((t) => this.deleteTarget(cx, t, loc))
      case 'try': return this.tryStatement(cx, st)
      case 'def': return this.defStatement(cx, st)
      case 'nonlocal': return []
      case 'class': case 'import':
        if (st.k === 'import' && this.r.extended) return [] // a compile-time binding (classes.ts)
        throw this.r.error('PY_UNSUPPORTED', { name: `\`${st.k}\``, fix: 'Use the extended profile.' }, loc)
    }
  }

  private assignTo(cx: FnCtx, target: Expr, value: Node, loc: Loc): Step[] {
    switch (target.k) {
      case 'name': {
        const r = resolve(cx, target.id)
        if (r.kind !== 'var') throw this.r.error('PY_TARGET', { name: `\`${target.id}\`` }, target.loc)
        return [storeStep(r, value, loc)]
      }
      case 'sub': {
        const obj = lowerExpr(cx, target.obj)
        if (target.index.k === 'slice') return [exprStep(rt('setslice', [value, obj, ...sliceParts(cx, target.index)]), loc)]
        return [exprStep(rt('setitem', [value, obj, lowerExpr(cx, target.index)]), loc)]
      }
      case 'tuple': case 'list': {
        const t = cx.temp()
        const star = target.elts.findIndex((x) => x.k === 'star')
        const n = target.elts.length
        const unpack = star < 0 ? rt('unpack', [value, lit(n)]) : rt('unpackstar', [value, lit(star), lit(n - star - 1)])
        const out: Step[] = [setVar(t, unpack, loc)]
        target.elts.forEach((x, i) => out.push(...this.assignTo(cx, x.k === 'star' ? x.e : x, member(id(t), i), loc)))
        return out
      }
      case 'attr': return setAttrSteps(cx, target, value, loc)
    }
    throw this.r.error('PY_TARGET', { name: 'this expression' }, target.loc)
  }

  private augAssign(cx: FnCtx, st: StmtOf<'aug'>): Step[] {
    const op = lit(st.op)
    const t = st.target
    if (t.k === 'name') {
      const r = resolve(cx, t.id)
      if (r.kind !== 'var') throw this.r.error('PY_TARGET', { name: `\`${t.id}\`` }, t.loc)
      const read = lowerExpr(cx, t)
      const fast = FAST_INPLACE[st.op]
      return [storeStep(r, fast ? rt(fast, [read, lowerExpr(cx, st.value)], st.loc) : rt('iop', [op, read, lowerExpr(cx, st.value)], st.loc), st.loc)]
    }
    if (t.k === 'sub') {
      const o = cx.temp()
      const obj = setVar(o, lowerExpr(cx, t.obj), st.loc)
      if (t.index.k === 'slice') {
        const parts = sliceParts(cx, t.index)
        const names = parts.map((p) => { const n = cx.temp(); return [n, p] as const })
        const read = rt('getslice', [id(o), ...names.map(([n]) => id(n))])
        return [obj, ...names.map(([n, p]) => setVar(n, p)), exprStep(rt('setslice', [rt('iop', [op, read, lowerExpr(cx, st.value)], st.loc), id(o), ...names.map(([n]) => id(n))]), st.loc)]
      }
      const k = cx.temp()
      const key = setVar(k, lowerExpr(cx, t.index), st.loc)
      const read = rt('getitem', [id(o), id(k)], st.loc)
      return [obj, key, exprStep(rt('setitem', [rt('iop', [op, read, lowerExpr(cx, st.value)], st.loc), id(o), id(k)]), st.loc)]
    }
    if (t.k === 'attr') return augAttrSteps(cx, t, st.op, st.value, st.loc)
    throw this.r.error('PY_TARGET', { name: 'this expression with an augmented assignment' }, t.loc)
  }

  private deleteTarget(cx: FnCtx, t: Expr, loc: Loc): Step[] {
    if (t.k === 'name') {
      const r = resolve(cx, t.id)
      if (r.kind !== 'var') throw this.r.error('PY_TARGET', { name: `\`${t.id}\` with del` }, t.loc)
      return [storeStep(r, UNDEFINED, loc)]
    }
    if (t.k === 'sub') {
      const obj = lowerExpr(cx, t.obj)
      if (t.index.k === 'slice') return [exprStep(rt('delslice', [obj, ...sliceParts(cx, t.index)]), loc)]
      return [exprStep(rt('delitem', [obj, lowerExpr(cx, t.index)]), loc)]
    }
    if (t.k === 'attr') return delAttrSteps(cx, t, loc)
    throw this.r.error('PY_TARGET', { name: 'this expression with del' }, t.loc)
  }

  /** A loop with Python's `else`: the else block runs unless the loop was left by `break`. */
  private loop(cx: FnCtx, orelse: Stmt[], loc: Loc, make: (body: (stmts: Stmt[], bound?: string[]) => Step[]) => Step[]): Step[] {
    const flag = orelse.length ? cx.temp() : null
    cx.loops.push(flag)
    let steps: Step[]
    try {
      steps = make((stmts, bound) => this.branch(cx, stmts, bound))
    } finally { cx.loops.pop() }
    if (!flag) return steps
    return [setVar(flag, lit(false), loc), ...steps, step('if', { condition: not(id(flag)), then: this.branch(cx, orelse) }, loc)]
  }

  /** `for target in iterable`: the VM's forOf over the items; unpacking inside the body. */
  private forEach(cx: FnCtx, target: Expr, items: Node, body: Step[], loc: Loc): Step[] {
    if (target.k === 'name') {
      const r = resolve(cx, target.id)
      if (r.kind === 'var' && !r.cell) return [step('forOf', { target: r.vm, iterable: items, body }, loc)]
    }
    const t = cx.temp()
    return [step('forOf', { target: t, iterable: items, body: [...this.assignTo(cx, target, id(t), loc), ...body] }, loc)]
  }

  private forStatement(cx: FnCtx, st: StmtOf<'for'>): Step[] {
    const fast = this.rangeLoop(cx, st)
    if (fast) return fast
    if (this.freshGenerator(cx, st.iter)) {
      // `for x in gen():` the loop holds the only reference, so when it ends early (break, return,
      // raise) the generator is closed there, as CPython's reference counting does: its `finally` runs.
      const t = cx.temp()
      const loop = this.loop(cx, st.orelse, st.loc, (body) => this.forEach(cx, st.target, id(t), body(st.body, targetNames(st.target)), st.loc))
      return [setVar(t, rt('iter', [lowerExpr(cx, st.iter)], st.iter.loc), st.loc), step('try', { try: loop, finally: [exprStep(rt('gclose', [id(t)]))] }, st.loc)]
    }
    return this.loop(cx, st.orelse, st.loc, (body) => this.forEach(cx, st.target, rt('iter', [lowerExpr(cx, st.iter)], st.iter.loc), body(st.body, targetNames(st.target)), st.loc))
  }

  /** A call of one of the program's generator functions (its result is referenced nowhere else). */
  private freshGenerator(cx: FnCtx, e: Expr): boolean {
    if (e.k !== 'call' || e.fn.k !== 'name') return false
    const r = resolve(cx, e.fn.id)
    return r.kind === 'def' && cx.scope.findDef(e.fn.id)?.node.gen === true
  }

  /** `for i in range(a, b[, c])` with a literal step: a counting loop, no list. */
  private rangeLoop(cx: FnCtx, st: StmtOf<'for'>): Step[] | undefined {
    const it = st.iter
    if (it.k !== 'call' || it.fn.k !== 'name' || it.fn.id !== 'range' || resolve(cx, 'range').kind !== 'builtin') return undefined
    if (it.kw.length || it.args.length < 1 || it.args.length > 3 || it.args.some((a) => a.k === 'star')) return undefined
    if (st.target.k !== 'name') return undefined
    const targetVar = resolve(cx, st.target.id)
    if (targetVar.kind !== 'var' || targetVar.cell) return undefined
    let stepValue = 1
    if (it.args.length === 3) {
      const s = it.args[2]!
      const v = s.k === 'int' ? Number(s.v) : s.k === 'unary' && s.op === '-' && s.e.k === 'int' ? -Number(s.e.v) : NaN
      if (!Number.isSafeInteger(v) || v === 0) return undefined
      stepValue = v
    }
    const counter = cx.temp(), end = cx.temp()
    const target = targetVar.vm
    const [startNode, endNode] = it.args.length === 1 ? [lit(0), lowerExpr(cx, it.args[0]!)] : [lowerExpr(cx, it.args[0]!), lowerExpr(cx, it.args[1]!)]
    const setup = [setVar(counter, rt('index', [startNode], it.loc), st.loc), setVar(end, rt('index', [endNode], it.loc), st.loc)]
    return this.loop(cx, st.orelse, st.loc, (body) => [...setup, step('for', {
      condition: binary(stepValue > 0 ? '<' : '>', id(counter), id(end)),
      update: assign(counter, lit(stepValue), '+='),
      body: [setVar(target, id(counter)), ...body(st.body, targetNames(st.target))],
    }, st.loc)])
  }

  private tryStatement(cx: FnCtx, st: StmtOf<'try'>): Step[] {
    let body = this.branch(cx, st.body)
    const ok = st.orelse.length ? cx.temp() : null
    if (ok) body = [...body, setVar(ok, lit(true))]
    let core: Step[]
    if (st.handlers.length) {
      const e = `$e${this.nextId()}`
      cx.handlers.push(e)
      let chain: Step[] = [step('throw', { value: id(e) })]
      try {
        for (let i = st.handlers.length - 1; i >= 0; i--) {
          const h = st.handlers[i]!
          const handler = this.branch(cx, h.body, h.name ? [h.name] : [])
          let then = handler
          if (h.name) {
            // CPython ends `except E as e:` with `e = None; del e` in a `finally`: the name is
            // unbound however the handler is left (falling off, raise, break, continue).
            const v = resolveVar(cx, h.name, h.loc, this.r)
            then = [storeStep(v, id(e), h.loc), step('try', { try: handler, finally: [storeStep(v, UNDEFINED)] }, h.loc)]
          }
          if (!h.type) { chain = then; continue }
          chain = [step('if', { condition: rt('match', [id(e), lowerExpr(cx, h.type)], h.loc), then, else: chain }, h.loc)]
        }
      } finally { cx.handlers.pop() }
      core = [step('try', { try: body, catchParam: e, catch: [setVar(e, rt('caught', [id(e)])), ...chain] }, st.loc)]
    } else core = body
    if (ok) core = [setVar(ok, lit(false)), ...core, step('if', { condition: id(ok), then: this.branch(cx, st.orelse) })]
    if (st.finalbody.length) core = [step('try', { try: core, finally: this.branch(cx, st.finalbody) }, st.loc)]
    return core
  }
}

/** A name no longer certainly bound, here and after every enclosing block. */
function unbind(cx: FnCtx, name: string): void {
  cx.definite.delete(name)
  cx.unbound.push(name)
}

function resolveVar(cx: FnCtx, name: string, loc: Loc, r: Refuser): VarRef {
  const v = resolve(cx, name)
  if (v.kind !== 'var') throw r.error('PY_TARGET', { name: `\`${name}\`` }, loc)
  return v
}

/** An assignment of a variable as a step (through its cell when it has one). */
function storeStep(v: VarRef, value: Node, loc?: Loc): Step {
  return v.cell ? exprStep(store(v, value), loc) : setVar(v.vm, value, loc)
}

/** A function's parameters that are cells (scope.ts): boxed as the function starts. */
function boxParams(s: FnScope, params: readonly string[]): Step[] {
  return params.filter((p) => s.cells.has(p)).map((p) => setVar(mangle(p), arr([id(mangle(p))])))
}

const EMPTY: ReadonlySet<string> = new Set()
const FAST_INPLACE: Record<string, string> = { '+': 'iadd', '-': 'isub', '*': 'imul' }

/** A function's hidden parameters, in a stable order: [hidden name, python name, owner]. */
export function hiddenParams(s: FnScope): Array<[string, string, FnScope]> {
  return [...s.free.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([h, [n, o]]) => [h, n, o])
}

export { hiddenName }
