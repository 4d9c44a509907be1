/**
 * Lowering of guest classes and imported modules (extended profile; see classes.ts and modules.ts).
 * The runtime never calls guest code: a method call, a constructor, a user `__eq__`/`__lt__` or
 * `__repr__`/`__str__` is a call of the program's own helpers (`call$dispatch`, `m$call`,
 * `cmp$dispatch`, `text$prep`), which ask the runtime what to call and hand it the results.
 */
import { preludeName } from './functools.ts'
import type { Expr, ExprOf, Loc } from './ir.ts'
import type { Step } from '../ast/types.ts'
import { type Node, arr, assign, binary, call, cond, exprStep, id, lambda, lit, member, methodCall as methodCallNode, not, rt, setVar, step, UNDEFINED } from './nodes.ts'
import { type FnCtx, dynamicCall, elements, kwDict, lowerExpr, resolve } from './lower-expr.ts'
import type { Lowerer } from './lower.ts'
import { ALL_METHODS, BUILTIN_TYPES } from './builtins-table.ts'
import { MISSING_MEMBER_FIX, MODULES } from './modules.ts'
import { CMP_HELPER } from './runtime/values.ts'
import type { ClassInfo } from './classes.ts'
import type { DefInfo, FnScope } from './scope.ts'

const M_CALL = 'm$call'
const CMP_DISPATCH = CMP_HELPER
const TEXT_PREP = 'text$prep'

const infoOf = (cx: FnCtx): ClassInfo | undefined => cx.L.options.classes

/** A frontend-built runtime call (`{ k: 'rt' }`). */
export function lowerRt(cx: FnCtx, e: ExprOf<'rt'>): Node {
  if (e.fn === '') return UNDEFINED
  return rt(e.fn, e.args.map((a) => lowerExpr(cx, a)), e.loc)
}


// --- modules -----------------------------------------------------------------------

/** What an imported name stands for: a module (`import math`) or a member (`from math import pi`). */
function imported(cx: FnCtx, name: string): { module: string; member: string | null } | undefined {
  if (resolve(cx, name).kind !== 'unknown') return undefined
  const i = infoOf(cx)?.imports.get(name)
  return i ? { module: i.module, member: i.name } : undefined
}

function memberValue(cx: FnCtx, module: string, name: string, loc: Loc): Node {
  const kind = MODULES[module]?.[name]
  if (kind === undefined) {
    throw cx.L.r.error('PY_ATTRIBUTE', { name, fix: MISSING_MEMBER_FIX[`${module}.${name}`] ?? `The ${module} module here has ${Object.keys(MODULES[module] ?? {}).join(', ')}.` }, loc)
  }
  if (kind === 'const') return rt('modconst', [lit(`${module}.${name}`)], loc)
  if (kind === 'fn') return rt('builtin', [lit(`${module}.${name}`)], loc)
  if (kind === 'prelude') return lowerExpr(cx, { k: 'name', id: preludeName(module, name), loc })
  throw cx.L.r.error('PY_UNSUPPORTED', { name: `\`${name}\` as a value`, fix: kind === 'annotation' ? `\`${name}\` is only for annotations, which are ignored at run time.` : `Use \`@${name}\` on a class.` }, loc)
}

/** A name that an import bound, as a value (undefined: not imported). */
export function importedName(cx: FnCtx, e: ExprOf<'name'>): Node | undefined {
  const i = imported(cx, e.id)
  if (!i) return undefined
  if (i.member === null) throw cx.L.r.error('PY_UNSUPPORTED', { name: `The module \`${e.id}\` as a value`, fix: `Use its members: \`${e.id}.name\`.` }, e.loc)
  return memberValue(cx, i.module, i.member, e.loc)
}

/** `module.name` read as a value (undefined: the object is not a module). */
export function moduleAttr(cx: FnCtx, e: ExprOf<'attr'>): Node | undefined {
  // `datetime.timezone.utc` after `import datetime`: a constant of a module's class.
  if (e.obj.k === 'attr' && e.obj.obj.k === 'name') {
    const i = imported(cx, e.obj.obj.id)
    const q = `${e.obj.name}.${e.name}`
    return i && i.member === null && MODULES[i.module]?.[q] === 'const' ? memberValue(cx, i.module, q, e.loc) : undefined
  }
  if (e.obj.k !== 'name') return undefined
  const i = imported(cx, e.obj.id)
  if (!i) return undefined
  // `timezone.utc` after `from datetime import timezone`.
  if (i.member !== null) return MODULES[i.module]?.[`${i.member}.${e.name}`] === 'const' ? memberValue(cx, i.module, `${i.member}.${e.name}`, e.loc) : undefined
  return memberValue(cx, i.module, e.name, e.loc)
}

function moduleCallNode(cx: FnCtx, qualified: string, e: ExprOf<'call'>): Node {
  return rt('modcall', [lit(qualified), arr(elements(cx, e.args)), kwDict(cx, e.kw)], e.loc)
}

/** A call of an imported function: `sqrt(x)`, `math.sqrt(x)` (undefined: not one). */
export function importedCall(cx: FnCtx, e: ExprOf<'call'>): Node | undefined {
  const fn = e.fn
  let module: string, name: string
  if (fn.k === 'name') {
    const i = imported(cx, fn.id)
    if (!i) return undefined
    if (i.member === null) throw cx.L.r.error('PY_UNSUPPORTED', { name: `Calling the module \`${fn.id}\``, fix: `Call one of its functions: \`${fn.id}.name(...)\`.` }, e.loc)
    module = i.module; name = i.member
  } else if (fn.k === 'attr' && fn.obj.k === 'name') {
    const i = imported(cx, fn.obj.id)
    if (!i) return undefined
    if (i.member !== null) {
      // `datetime.now()` after `from datetime import datetime`: a function of an imported class.
      const q = `${i.member}.${fn.name}`
      if (MODULES[i.module]?.[q] !== 'fn') return undefined
      return moduleCallNode(cx, `${i.module}.${q}`, e)
    }
    module = i.module; name = fn.name
  } else if (fn.k === 'attr' && fn.obj.k === 'attr' && fn.obj.obj.k === 'name') {
    // `datetime.datetime.now()` after `import datetime`.
    const i = imported(cx, fn.obj.obj.id)
    if (!i || i.member !== null) return undefined
    const q = `${fn.obj.name}.${fn.name}`
    if (MODULES[i.module]?.[q] !== 'fn') return undefined
    return moduleCallNode(cx, `${i.module}.${q}`, e)
  } else return undefined
  const kind = MODULES[module]?.[name]
  if (kind === 'prelude') return lowerExpr(cx, { ...e, fn: { k: 'name', id: preludeName(module, name), loc: fn.loc } })
  if (kind !== 'fn') return lowerDynamic(cx, memberValue(cx, module, name, fn.loc), e)
  if (module === 'collections' && name === 'defaultdict') return factoryTemplate(cx, e) ?? moduleCallNode(cx, 'collections.defaultdict', e)
  return moduleCallNode(cx, `${module}.${name}`, e)
}

/** `module.name` of a callee that an import bound (`Counter`, `collections.Counter`), or undefined. */
function importedQualified(cx: FnCtx, fn: Expr): string | undefined {
  if (fn.k === 'name') { const i = imported(cx, fn.id); return i?.member ? `${i.module}.${i.member}` : undefined }
  if (fn.k === 'attr' && fn.obj.k === 'name') { const i = imported(cx, fn.obj.id); return i && i.member === null ? `${i.module}.${fn.name}` : undefined }
  return undefined
}

const TEMPLATE_CLASSES = new Set(['collections.defaultdict', 'collections.Counter', 'collections.OrderedDict', 'collections.deque'])

/** The value of a lifted `lambda: <value>` without parameters, and its scope (undefined: not one). */
function lambdaValue(scope: FnScope, f: Expr): { value: Expr; scope: FnScope } | undefined {
  if (f.k !== 'name' || !f.id.startsWith('lambda$')) return undefined
  const d = scope.findDef(f.id)
  if (!d || d.params.length) return undefined
  // Its own lambdas were lifted into it, before the return.
  const body = d.node.body
  const ret = body[body.length - 1]
  if (ret?.k !== 'return' || !ret.value || body.slice(0, -1).some((st) => st.k !== 'def' || !st.name.startsWith('lambda$'))) return undefined
  return { value: ret.value, scope: d.scope }
}

/**
 * An expression that makes a fresh value from literals and constructors alone (`0`, `[]`,
 * `{"n": 0, "total": 0.0}`, `set()`, `defaultdict(int)`, `Counter()`, `defaultdict(lambda: [0, 0])`),
 * with its own such lambdas inlined as templates; undefined when it is not one. Evaluating it once
 * and copying the value is then the same as evaluating it again.
 */
function template(cx: FnCtx, scope: FnScope, x: Expr): Expr | undefined {
  const all = (xs: Expr[]): Expr[] | undefined => { const out = xs.map((y) => template(cx, scope, y)); return out.every((y) => y) ? out as Expr[] : undefined }
  const isType = (f: Expr) => (f.k === 'name' && BUILTIN_TYPES.has(f.id) && resolve(cx, f.id).kind === 'type') || TEMPLATE_CLASSES.has(importedQualified(cx, f) ?? '')
  switch (x.k) {
    case 'const': case 'int': case 'float': return x
    case 'unary': return x.op === '-' && (x.e.k === 'int' || x.e.k === 'float') ? x : undefined
    case 'list': case 'tuple': case 'set': { const elts = all(x.elts); return elts && { ...x, elts } }
    case 'dict': {
      const items = x.items.map((it) => ('spread' in it ? undefined : all([it.key, it.value])))
      return items.every((it) => it) ? { ...x, items: items.map((it) => ({ key: it![0]!, value: it![1]! })) } : undefined
    }
    case 'call': {
      if (x.kw.length || !isType(x.fn)) return undefined
      const args: Expr[] = []
      for (const a of x.args) {
        if (isType(a)) { args.push(a); continue }
        const lv = lambdaValue(scope, a)
        const t = lv ? template(cx, lv.scope, lv.value) : template(cx, scope, a)
        if (!t) return undefined
        args.push(lv ? { k: 'rt', fn: 'ddtemplate', args: [t], loc: a.loc } : t)
      }
      return { ...x, args }
    }
  }
  return undefined
}

/**
 * `defaultdict(lambda: {"n": 0, "items": []})`: the runtime never calls the program's functions, so a
 * lambda that only builds a fresh value is evaluated once here and its value copied for each missing key.
 */
function factoryTemplate(cx: FnCtx, e: ExprOf<'call'>): Node | undefined {
  const lv = e.args[0] ? lambdaValue(cx.scope, e.args[0]) : undefined
  const body = lv && template(cx, lv.scope, lv.value)
  if (!body) return undefined
  const t: Expr = { k: 'rt', fn: 'ddtemplate', args: [body], loc: e.args[0]!.loc }
  return moduleCallNode(cx, 'collections.defaultdict', { ...e, args: [t, ...e.args.slice(1)] })
}

function lowerDynamic(cx: FnCtx, f: Node, e: ExprOf<'call'>): Node {
  return dynamicCall(cx, f, arr(elements(cx, e.args)), kwDict(cx, e.kw), e.loc)
}

// --- classes -------------------------------------------------------------------------

/** `obj.name(...)` when obj may be a guest object (undefined: the builtin method path). */
export function classMethodCall(cx: FnCtx, e: ExprOf<'call'>, fn: ExprOf<'attr'>): Node | undefined {
  const info = infoOf(cx)
  if (!info || info.count === 0) return undefined
  if (fn.obj.k === 'name' && BUILTIN_TYPES.has(fn.obj.id) && resolve(cx, fn.obj.id).kind === 'type') return undefined
  const name = fn.name
  const textArgs = () => arr(elements(cx, e.args).map((a) => (a.$expr === 'spread' ? a : prepText(cx, a))))
  // With a `__getattr__` or `__getattribute__` in the program any name may be a guest object's, and
  // `obj.name` is read once, before the arguments (the direct path reads it a second time when it is
  // not a method, and never through `__getattribute__`).
  const hooked = info.methodNames.has('__getattr__') || info.methodNames.has('__getattribute__')
  if (!hooked && !info.methodNames.has(name) && ALL_METHODS.has(name)) {
    if (name !== 'format' || !info.text) return undefined
    return rt('txm', [lowerExpr(cx, fn.obj), lit(name), textArgs(), kwDict(cx, e.kw)], e.loc)
  }
  const obj = lowerExpr(cx, fn.obj)
  if (ALL_METHODS.has(name)) {
    cx.L.helpersUsed.add(M_CALL)
    cx.L.usesDispatch = true
    const args = name === 'format' && info.text ? textArgs() : arr(elements(cx, e.args))
    if (!hooked) return call(M_CALL, [obj, lit(name), args, kwDict(cx, e.kw)], e.loc)
    // An object whose class has hooks: `obj.name` is read (maybe by `__getattribute__` / `__getattr__`) before the arguments.
    const o = cx.temp(), f = cx.temp()
    return rt('last', [
      assign(o, obj), assign(f, rt('hookget', [id(o), lit(name)], fn.loc)),
      cond(binary('!==', id(f), UNDEFINED), dynamicCall(cx, id(f), arr(elements(cx, e.args)), kwDict(cx, e.kw), e.loc), call(M_CALL, [id(o), lit(name), args, kwDict(cx, e.kw)], e.loc)),
    ], e.loc)
  }
  return (hooked ? undefined : directMethodCall(cx, e, name, obj)) ?? dynamicCall(cx, rt('getattr', [obj, lit(name)], fn.loc), arr(elements(cx, e.args)), kwDict(cx, e.kw), e.loc)
}

/** The program's methods named `name` (helpers `Class.name`) that a call with n positional arguments can call directly. */
function directMethods(cx: FnCtx, name: string, n: number): DefInfo[] {
  const out: DefInfo[] = []
  const seen = new Set<string>()
  for (let s: FnScope | null = cx.scope; s; s = s.parent) {
    for (const [defName, d] of s.defs) {
      const dot = defName.indexOf('.')
      if (dot < 0 || defName.slice(dot + 1) !== name || seen.has(defName)) continue
      seen.add(defName)
      // Exactly self and the arguments given; the enclosing variables it reads are the caller's too,
      // each assigned once (a method carries them as they were when its class statement ran).
      const visible = [...d.scope.free].every(([hidden, [py, owner]]) => (owner === cx.scope || cx.scope.free.has(hidden)) && (owner.assigned.get(py) ?? 0) <= 1)
      if (d.params.length === n + 1 && !d.params.some((p) => p.kind) && visible) out.push(d)
    }
  }
  return out
}

/**
 * `obj.method(a, b)`: py$mfast finds the number of the function `obj.method` is, on an instance of
 * the program's classes (no bound method, no argument arrays; a missing attribute raises there, before
 * the arguments, as CPython), and a method of the program called with exactly its parameters goes
 * straight to its helper; anything else (an instance attribute, defaults, another object) through the
 * dispatcher.
 */
function directMethodCall(cx: FnCtx, e: ExprOf<'call'>, name: string, obj: Node): Node | undefined {
  if (e.kw.length || e.args.some((a) => a.k === 'star')) return undefined
  const ds = directMethods(cx, name, e.args.length)
  if (!ds.length || ds.length > 4) return undefined
  const o = cx.temp()
  const f = cx.temp()
  const temps = e.args.map(() => cx.temp())
  const steps: Node[] = [assign(o, obj), assign(f, rt('mfast', [id(o), lit(name)], e.loc)), ...e.args.map((a, i) => assign(temps[i]!, lowerExpr(cx, a)))]
  const args = temps.map((t) => id(t))
  let out: Node = dynamicCall(cx, rt('getattr', [id(o), lit(name)], e.loc), arr(args), lit(null), e.loc)
  for (const d of ds.reverse()) out = cond(binary('===', id(f), lit(cx.L.functionId(d))), call(d.helper, [id(o), ...args, ...cx.L.hiddenArgs(cx, d.scope)], e.loc), out)
  return rt('last', [...steps, out], e.loc)
}

/** `obj.name = value`. */
export function setAttrSteps(cx: FnCtx, target: ExprOf<'attr'>, value: Node, loc: Loc): Step[] {
  return [exprStep(rt('setattr', [value, lowerExpr(cx, target.obj), lit(target.name)], target.loc), loc)]
}

/** `obj.name op= value`. */
export function augAttrSteps(cx: FnCtx, target: ExprOf<'attr'>, op: string, value: Expr, loc: Loc): Step[] {
  // `self.n += 1`, `self.total -= amount`: one runtime call when the value cannot raise or run code
  // (so reading the attribute after it is the same as before).
  const simple = value.k === 'const' || value.k === 'int' || value.k === 'float' || (value.k === 'name' && cx.definite.has(value.id))
  if (simple) return [exprStep(rt('iattr', [lowerExpr(cx, target.obj), lit(target.name), lit(op), lowerExpr(cx, value)], target.loc), loc)]
  const o = cx.temp()
  const read = rt('getattr', [id(o), lit(target.name)], target.loc)
  return [setVar(o, lowerExpr(cx, target.obj), loc), exprStep(rt('setattr', [rt('iop', [lit(op), read, lowerExpr(cx, value)], loc), id(o), lit(target.name)], loc), loc)]
}

export function delAttrSteps(cx: FnCtx, target: ExprOf<'attr'>, loc: Loc): Step[] {
  return [exprStep(rt('delattr', [lowerExpr(cx, target.obj), lit(target.name)], target.loc), loc)]
}

/** A comparison that may call a guest `__eq__`/`__lt__`/...; undefined: the plain runtime comparison. */
export function classCompare(cx: FnCtx, op: string, l: Node, r: Node, loc: Loc): Node | undefined {
  const info = infoOf(cx)
  if (!info) return undefined
  const eqOp = op === '==' || op === '!='
  if (!(eqOp ? info.eq || info.ne : (info.order && (op === '<' || op === '<=' || op === '>' || op === '>=')))) return undefined
  cx.L.helpersUsed.add(CMP_DISPATCH)
  cx.L.usesDispatch = true
  // With a `__ne__` in the program, `!=` is its own comparison (a class without one negates its `__eq__`).
  if (op === '!=' && info.ne) return call(CMP_DISPATCH, [lit('!='), l, r], loc)
  const c = call(CMP_DISPATCH, [lit(op === '!=' ? '==' : op), l, r], loc)
  return op === '!=' ? not(rt('truth', [c])) : c
}

/** A value about to be converted to text: the program calls its guest `__repr__`/`__str__` first. */
export function prepText(cx: FnCtx, value: Node): Node {
  if (!infoOf(cx)?.text) return value
  cx.L.helpersUsed.add(TEXT_PREP)
  cx.L.usesDispatch = true
  return call(TEXT_PREP, [value])
}

/** The runtime entry converting text: its `tx` form unwraps what prepText made. */
export function textEntry(cx: FnCtx, name: string): string {
  return infoOf(cx)?.text ? `tx${name}` : name
}

/** The dispatcher's branch for a class: construct, then call `__init__` (or `__post_init__`). */
export function classDispatchSteps(L: Lowerer, dispatch: string): Step[] {
  const info = L.options.classes
  if (!info || info.count === 0) return []
  const m = (i: number) => member(id('$m'), i)
  return [step('if', {
    condition: binary('===', id('$i'), lit(-2)),
    then: [
      setVar('$o', rt('new', [id('$f'), id('$a'), id('$kw')])),
      setVar('$m', rt('initcall', [id('$f'), id('$o'), id('$a'), id('$kw')])),
      step('if', { condition: not(binary('===', id('$m'), lit(null))), then: [exprStep(rt('initret', [call(dispatch, [m(0), m(1), m(2)])]))] }),
      step('return', { value: id('$o') }),
    ],
  })]
}

/** The helpers the class lowering used. */
export function addClassHelpers(L: Lowerer, dispatch: string): void {
  const d = (f: Node, args: Node[]) => call(dispatch, [f, arr(args), lit(null)])
  if (L.helpersUsed.has(M_CALL)) {
    L.functions[M_CALL] = {
      params: ['$o', '$n', '$a', '$kw'],
      steps: [
        step('if', { condition: rt('isobj', [id('$o')]), then: [step('return', { value: call(dispatch, [rt('getattr', [id('$o'), id('$n')]), id('$a'), id('$kw')]) })] }),
        step('return', { value: rt(L.options.classes?.text ? 'txm' : 'm', [id('$o'), id('$n'), id('$a'), id('$kw')]) }),
      ],
    }
  }
  // Also made when a class orders its instances: the runtime calls it back to sort them.
  if (L.helpersUsed.has(CMP_DISPATCH) || L.options.classes?.order || L.options.classes?.eq || L.options.classes?.ne) {
    const attempt = (x: string, y: string, stage: number): Step[] => [
      setVar('$m', rt('cmpof', [id(x), id(y), id('$op'), lit(stage)])),
      step('if', {
        condition: not(binary('===', id('$m'), lit(null))),
        then: [
          setVar('$r', d(id('$m'), [id(y)])),
          step('if', { condition: not(rt('isni', [id('$r')])), then: [step('return', { value: L.options.classes?.ne ? rt('cmpres', [id('$op'), id('$m'), id('$r')]) : id('$r') })] }),
        ],
      }),
    ]
    L.functions[CMP_DISPATCH] = {
      params: ['$op', '$x', '$y'],
      steps: [
        step('varsLet', { vars: { $m: UNDEFINED, $r: UNDEFINED } }),
        // A class derived from another: the right operand's reflection goes first when its class is a
        // subclass of the left one's (stage 2), as CPython's do_richcompare.
        ...(L.options.classes?.inherits ? attempt('$y', '$x', 2) : []),
        ...attempt('$x', '$y', 0),
        ...attempt('$y', '$x', 1),
        step('return', { value: rt('cmpnative', [id('$op'), id('$x'), id('$y')]) }),
      ],
    }
  }
  if (L.helpersUsed.has(TEXT_PREP)) {
    const each = lambda(['$q'], d(rt('getattr', [member(id('$q'), 0), member(id('$q'), 1)]), []))
    L.functions[TEXT_PREP] = {
      params: ['$x'],
      steps: [
        step('varsLet', { vars: { $p: rt('pending', [id('$x')]), $t: UNDEFINED } }),
        step('if', { condition: binary('===', id('$p'), lit(null)), then: [step('return', { value: id('$x') })] }),
        setVar('$t', methodCallNode(id('$p'), 'map', [each])),
        step('return', { value: rt('texted', [id('$x'), id('$p'), id('$t')]) }),
      ],
    }
  }
  void assign
}
