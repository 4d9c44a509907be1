/**
 * Calls: nested `def` helpers (arguments matched to parameters at compile
 * time, defaults and enclosing variables appended), the builtins, exception
 * classes and methods. `key=` functions become VM lambdas mapped over the
 * items, so the runtime sorts by precomputed keys.
 */
import type { Expr, ExprOf } from './ir.ts'
import { type Node, arr, assign, binary, call, cond, id, lambda, lit, methodCall as methodCallNode, rt } from './nodes.ts'
import { type FnCtx, dynamicCall, elements, functionValue, kwDict, lowerExpr, resolve, unknownName } from './lower-expr.ts'
import { EXTENDED_HINT } from './refuse.ts'
import { ALL_METHODS, BUILTIN_TYPES } from './builtins-table.ts'
import { closest as closestName } from '../diagnostics/suggest.ts'
import { mangle } from './scope.ts'
import { classMethodCall, importedCall, prepText, textEntry } from './lower-class.ts'
import { externalCall, hostPrint } from './lower-external.ts'

function argError(cx: FnCtx, name: string, detail: string, fix: string, e: Expr): never {
  throw cx.L.r.error('PY_ARGUMENTS', { name, detail, fix }, e.loc)
}


function noKw(cx: FnCtx, name: string, e: ExprOf<'call'>, allowed: string[] = []): Map<string, Expr> {
  const out = new Map<string, Expr>()
  for (const k of e.kw) {
    if (k.name === null || !allowed.includes(k.name)) {
      argError(cx, name, k.name === null ? '`**` arguments are not accepted here' : `unexpected keyword argument '${k.name}'`,
        allowed.length ? `${name}() takes the keyword arguments ${allowed.join(', ')}.` : `Pass the arguments of ${name}() by position.`, e)
    }
    out.set(k.name!, k.value)
  }
  return out
}

function count(cx: FnCtx, name: string, e: ExprOf<'call'>, min: number, max: number): void {
  if (e.args.some((a) => a.k === 'star')) return
  const n = e.args.length
  if (n < min || n > max) {
    argError(cx, name, `takes ${min === max ? min : `${min} to ${max}`} positional argument${max === 1 ? '' : 's'}, got ${n}`, `Call it as shown in docs/python.md (builtins).`, e)
  }
}

/** Positional arguments, with `*x` spread. */
const positional = (cx: FnCtx, e: ExprOf<'call'>): Node[] => elements(cx, e.args)

/**
 * A VM lambda computing the key of one item (`key=` of sorted/min/max/list.sort, the function of
 * map/filter). In the extended profile any value can be the function: it is evaluated once into a
 * temporary (`pre`, to assign before the items are mapped) and called through the dispatcher.
 */
export function keyLambda(cx: FnCtx, k: Expr, pre?: Node[]): Node | null {
  if (k.k === 'const' && k.v === null) return null
  const param = `$k${cx.L.nextId()}`
  const item: Expr = { k: 'name', id: param, loc: k.loc }
  let body: Node
  const saved = cx.shadow
  if (k.k === 'lambda') {
    if (k.params.length !== 1) argError(cx, 'key', `the key function takes ${k.params.length} parameters`, 'A key function takes one item: `key=lambda x: ...`.', k)
    cx.shadow = new Set([...saved, k.params[0]!])
    try {
      body = lowerExpr(cx, k.body)
    } finally { cx.shadow = saved }
    return lambda([mangle(k.params[0]!)], body)
  }
  cx.shadow = new Set([...saved, param])
  try {
    // A variable may hold None (`key=None` passed along, as `def top(xs, key=None): sorted(xs, key=key)`).
    const variable = k.k === 'name' && cx.L.r.extended && pre !== undefined && resolve(cx, k.id).kind === 'var'
    if (variable) {
      const f = cx.temp()
      cx.shadow = saved
      pre.push(assign(f, lowerExpr(cx, k)))
      cx.shadow = new Set([...saved, param])
      body = cond(binary('===', id(f), lit(null)), id(param), dynamicCall(cx, id(f), arr([id(param)]), lit(null), k.loc))
    } else if (k.k === 'name' || (k.k === 'attr' && k.obj.k === 'name' && BUILTIN_TYPES.has(k.obj.id))) {
      body = lowerCall(cx, { k: 'call', fn: k, args: [item], kw: [], loc: k.loc })
    } else if (cx.L.r.extended && pre) {
      const f = cx.temp()
      cx.shadow = saved
      pre.push(assign(f, lowerExpr(cx, k)))
      cx.shadow = new Set([...saved, param])
      body = dynamicCall(cx, id(f), arr([id(param)]), lit(null), k.loc)
    } else {
      throw cx.L.r.extendedOnly('This key function', 'Pass a lambda, a `def` helper or a builtin by name: `key=lambda x: x[1]`, `key=len`.', k.loc)
    }
  } finally { cx.shadow = saved }
  return lambda([param], body)
}

/** `$t = items; $t.map(key)` pieces: the items expression (assigning a temp) and the keys expression. */
function keyed(cx: FnCtx, items: Node, key: Expr | undefined): [Node, Node] {
  const pre: Node[] = []
  const lam = key ? keyLambda(cx, key, pre) : null
  if (!lam) return [items, lit(null)]
  const t = cx.temp()
  return [pre.length ? rt('first', [assign(t, items), ...pre]) : assign(t, items), methodCallNode(id(t), 'map', [lam])]
}

export function lowerCall(cx: FnCtx, e: ExprOf<'call'>): Node {
  const fn = e.fn
  if (!lazyGenArgs(cx, fn)) for (const a of e.args) if (a.k === 'comp' && a.kind === 'gen') cx.L.genAllowed.add(a)
  const dyn = () => dynamicCall(cx, lowerExpr(cx, fn), arr(positional(cx, e)), kwDict(cx, e.kw), e.loc)
  if (fn.k === 'attr') return (cx.L.r.extended ? importedCall(cx, e) : undefined) ?? methodCall(cx, e, fn)
  if (fn.k !== 'name') {
    if (cx.L.r.extended) return dyn()
    throw cx.L.r.extendedOnly('Calling a computed value', 'Call a function by its name: `helper(x)`, or a method: `s.strip()`.', e.loc)
  }
  const r = resolve(cx, fn.id)
  switch (r.kind) {
    case 'def': return helperCall(cx, e, r.name)
    case 'var':
      if (cx.L.r.extended) return dyn()
      throw cx.L.r.extendedOnly(`Calling the variable \`${fn.id}\``, 'Only functions defined with `def`, builtins and methods can be called.', e.loc)
    case 'unknown': return importedCall(cx, e) ?? externalCall(cx, e, fn.id) ?? unknownName(cx, fn.id, fn.loc, true)
  }
  return builtinCall(cx, e, fn.id)
}

/** Builtins and builtin-type methods that read their whole argument at once: a generator expression passed to them is a list. */
const DRAINING_BUILTINS: ReadonlySet<string> = new Set(['sum', 'min', 'max', 'sorted', 'list', 'tuple', 'set', 'frozenset', 'dict'])
const DRAINING_METHODS: ReadonlySet<string> = new Set(['join', 'extend', 'update', 'union', 'intersection', 'difference', 'symmetric_difference', 'issubset', 'issuperset', 'isdisjoint', 'fromkeys'])

/**
 * Whether a generator expression passed to this callee must stay a generator (extended): every
 * callee but the builtins and methods that read their argument to its end at once (where a list is
 * the same and faster) may stop early (`any`, `next`, `islice`, ...) or interleave (`zip`, the
 * program's own functions).
 */
function lazyGenArgs(cx: FnCtx, fn: Expr): boolean {
  if (!cx.L.r.extended) return false
  if (fn.k === 'attr') return !DRAINING_METHODS.has(fn.name)
  if (fn.k !== 'name') return true
  const r = resolve(cx, fn.id)
  return !((r.kind === 'builtin' || r.kind === 'type') && DRAINING_BUILTINS.has(fn.id))
}

function helperCall(cx: FnCtx, e: ExprOf<'call'>, name: string): Node {
  const def = cx.scope.findDef(name)!
  const params0 = def.params
  const mismatched = e.args.length > params0.length || e.kw.some((k) => !params0.some((p) => p.name === k.name))
    || params0.some((p, i) => i >= e.args.length && !p.dflt && !e.kw.some((k) => k.name === p.name))
    || e.kw.some((k) => params0.findIndex((p) => p.name === k.name) < e.args.length)
  // `*args`/`**kwargs`/keyword-only parameters are bound at run time too (extended profile).
  if (e.args.some((a) => a.k === 'star') || e.kw.some((k) => k.name === null) || (cx.L.r.extended && mismatched) || params0.some((p) => p.kind)) {
    // The extended profile binds them at run time, as CPython does (a wrong call is a TypeError there).
    if (cx.L.r.extended) return dynamicCall(cx, functionValue(cx, name, e.loc), arr(positional(cx, e)), kwDict(cx, e.kw), e.loc)
    argError(cx, name, '`*`/`**` arguments are not accepted for helpers', `Pass the arguments of ${name}() one by one. ${EXTENDED_HINT}`, e)
  }
  const params = def.params
  if (e.args.length > params.length) argError(cx, name, `takes ${params.length} positional arguments but ${e.args.length} were given`, `Call ${name}() with at most ${params.length} arguments.`, e)
  const slots: Array<Node | undefined> = e.args.map((a) => lowerExpr(cx, a))
  for (const k of e.kw) {
    const i = params.findIndex((p) => p.name === k.name)
    if (i < 0) argError(cx, name, `got an unexpected keyword argument '${k.name}'`, `${name}() takes ${params.map((p) => p.name).join(', ')}.`, e)
    if (slots[i] !== undefined) argError(cx, name, `got multiple values for argument '${k.name}'`, 'Pass each argument once.', e)
    slots[i] = lowerExpr(cx, k.value)
  }
  // Keyword arguments are evaluated in source order above; fill the rest from defaults.
  const args = params.map((p, i) => {
    if (slots[i] !== undefined) return slots[i]!
    const holder = def.defaultHolders[i]
    if (!holder) argError(cx, name, `missing required argument '${p.name}'`, `Pass ${p.name} to ${name}().`, e)
    return lowerExpr(cx, { k: 'name', id: holder!, loc: e.loc })
  })
  return call(def.helper, [...args, ...cx.L.hiddenArgs(cx, def.scope)], e.loc)
}

function builtinCall(cx: FnCtx, e: ExprOf<'call'>, name: string): Node {
  const pos = () => positional(cx, e)
  const kwv = (kw: Map<string, Expr>, k: string): Node | undefined => (kw.has(k) ? lowerExpr(cx, kw.get(k)!) : undefined)
  switch (name) {
    case 'len': case 'abs': case 'reversed':
      noKw(cx, name, e); count(cx, name, e, 1, 1)
      return rt(name, pos(), e.loc)
    case 'bool': case 'float': case 'str': case 'list': case 'tuple': case 'set': {
      noKw(cx, name, e); count(cx, name, e, 0, 1)
      const fnName = name === 'float' ? 'floatb' : name === 'str' ? 'strb' : name === 'tuple' ? 'tupleb' : name === 'set' ? 'setb' : name
      if (name === 'str') return rt(textEntry(cx, 'strb'), pos().map((a) => prepText(cx, a)), e.loc)
      return rt(fnName, pos(), e.loc)
    }
    case 'int': {
      const kw = noKw(cx, name, e, ['base']); count(cx, name, e, 0, 2)
      const args = pos()
      const base = kwv(kw, 'base')
      if (base) args.push(...(args.length ? [] : [lit(0)]), base)
      return rt('intb', args, e.loc)
    }
    case 'isinstance':
      noKw(cx, name, e); count(cx, name, e, 2, 2)
      return rt('isinstance', pos(), e.loc)
    case 'range':
      noKw(cx, name, e); count(cx, name, e, 1, 3)
      return rt('range', pos(), e.loc)
    case 'round': {
      const kw = noKw(cx, name, e, ['ndigits']); count(cx, name, e, 1, 2)
      const args = pos()
      const nd = kwv(kw, 'ndigits')
      if (nd) args.push(nd)
      return rt('round', args, e.loc)
    }
    case 'sum':
    case 'enumerate': {
      // Both take one iterable and an optional `start`, positional or by keyword.
      const kw = noKw(cx, name, e, ['start']); count(cx, name, e, 1, 2)
      const args = pos()
      const st = kwv(kw, 'start')
      if (st) args.push(st)
      return rt(name, args, e.loc)
    }
    case 'zip': {
      const strict = kwv(noKw(cx, name, e, ['strict']), 'strict')
      return strict ? rt('zipstrict', [strict, ...pos()], e.loc) : rt('zip', pos(), e.loc)
    }
    case 'dict': {
      count(cx, name, e, 0, 1)
      const args = pos()
      return rt('dictb', [args[0] ?? id('undefined'), kwDict(cx, e.kw)], e.loc)
    }
    case 'sorted': {
      const kw = noKw(cx, name, e, ['key', 'reverse']); count(cx, name, e, 1, 1)
      const [items, keys] = keyed(cx, rt('items', pos()), kw.get('key'))
      return rt('sorted', [items, keys, kwv(kw, 'reverse') ?? lit(false)], e.loc)
    }
    case 'min': case 'max': {
      const kw = noKw(cx, name, e, ['key', 'default'])
      if (e.args.length === 0) argError(cx, name, 'expected at least 1 argument, got 0', `Call ${name}(iterable) or ${name}(a, b, ...).`, e)
      const single = e.args.length === 1 && e.args[0]!.k !== 'star'
      if (!single && kw.has('default')) argError(cx, name, 'Cannot specify a default with multiple positional arguments', `Pass one iterable: ${name}(items, default=...).`, e)
      const items = single ? rt('items', pos()) : arr(pos())
      const [its, keys] = keyed(cx, items, kw.get('key'))
      const dflt = kwv(kw, 'default')
      return rt('minmax', [lit(name), its, keys, lit(dflt !== undefined), dflt ?? lit(null)], e.loc)
    }
  }
  const ext = extendedCall(cx, e, name)
  if (ext) return ext
  // Exception classes.
  noKw(cx, name, e)
  return rt('exc', [lit(name), arr(pos())], e.loc)
}

function methodCall(cx: FnCtx, e: ExprOf<'call'>, fn: ExprOf<'attr'>): Node {
  const name = fn.name
  const viaClass = classMethodCall(cx, e, fn)
  if (viaClass) return viaClass
  if (fn.obj.k === 'name' && BUILTIN_TYPES.has(fn.obj.id) && resolve(cx, fn.obj.id).kind === 'type') {
    // `str.lower(x)`, `dict.fromkeys(keys, v)`: the method of a builtin type, called on its first argument.
    if (fn.obj.id === 'dict' && name === 'fromkeys') {
      noKw(cx, 'dict.fromkeys', e); count(cx, 'dict.fromkeys', e, 1, 2)
      const [keys, value] = [lowerExpr(cx, e.args[0]!), e.args[1] ? lowerExpr(cx, e.args[1]) : lit(null)]
      return rt('fromkeys', [keys, value], e.loc)
    }
    if (e.args.length === 0) argError(cx, `${fn.obj.id}.${name}`, 'needs the value as its first argument', `Call it on the value: \`x.${name}()\`.`, e)
    // `set.intersection(*sets)`: the receiver comes from the unpacked items: call the method as a value.
    if (e.args[0]!.k === 'star') {
      if (!cx.L.r.extended) throw cx.L.r.extendedOnly(`\`${fn.obj.id}.${name}(*...)\``, 'Call the method on the first item: `items[0].' + name + '(*items[1:])`.', e.loc)
      return dynamicCall(cx, lowerExpr(cx, fn), arr(positional(cx, e)), kwDict(cx, e.kw), e.loc)
    }
    const [self, ...rest] = e.args
    return methodCall(cx, { ...e, args: rest }, { k: 'attr', obj: self!, name, loc: fn.loc })
  }
  if (!ALL_METHODS.has(name)) {
    const near = closestName(name, ALL_METHODS)
    throw cx.L.r.error('PY_ATTRIBUTE', { name, fix: `${near ? `Did you mean \`.${near}()\`? ` : ''}The methods listed in docs/python.md are available: those of str, list, dict and set, and of the modules\' values (Decimal, Fraction, dates, regex matches, ...).` }, fn.loc)
  }
  const obj = lowerExpr(cx, fn.obj)
  // The two commonest methods skip the argument list and the method table when the receiver is a dict / list.
  if (e.kw.length === 0 && !e.args.some((a) => a.k === 'star')) {
    if (name === 'get' && (e.args.length === 1 || e.args.length === 2)) return rt('mget', [obj, lowerExpr(cx, e.args[0]!), e.args[1] ? lowerExpr(cx, e.args[1]) : lit(null)], e.loc)
    if (name === 'append' && e.args.length === 1) return rt('mappend', [obj, lowerExpr(cx, e.args[0]!)], e.loc)
  }
  if (name === 'sort') {
    const kw = noKw(cx, 'sort', e, ['key', 'reverse']); count(cx, 'sort', e, 0, 0)
    const [items, keys] = keyed(cx, obj, kw.get('key'))
    return rt('sortkeyed', [items, keys, kw.has('reverse') ? lowerExpr(cx, kw.get('reverse')!) : lit(false)], e.loc)
  }
  return rt('m', [obj, lit(name), arr(positional(cx, e)), kwDict(cx, e.kw)], e.loc)
}

const mapNode = (items: Node, lam: Node): Node => methodCallNode(items, 'map', [lam])

/** The extended profile's builtins. */
function extendedCall(cx: FnCtx, e: ExprOf<'call'>, name: string): Node | undefined {
  const pos = () => positional(cx, e)
  switch (name) {
    case 'slice': noKw(cx, name, e); return rt('slicemk', pos(), e.loc)
    case 'frozenset': noKw(cx, name, e); count(cx, name, e, 0, 1); return rt('frozenset', pos(), e.loc)
    case 'repr':
      noKw(cx, name, e); count(cx, name, e, 1, 1)
      return rt(textEntry(cx, 'repr'), pos().map((a) => prepText(cx, a)), e.loc)
    case 'format': {
      noKw(cx, name, e); count(cx, name, e, 1, 2)
      const [value, spec] = pos()
      return rt(textEntry(cx, 'fmt'), [prepText(cx, value!), spec ?? lit(''), lit('')], e.loc)
    }
    case 'any': case 'all': case 'ascii': case 'chr': case 'ord': case 'hex': case 'oct': case 'bin': case 'hash': {
      noKw(cx, name, e); count(cx, name, e, 1, 1)
      const only = e.args[0]!
      // `any(x > 0 for x in xs)`: a loop that stops at the answer, as reading the generator would.
      if ((name === 'any' || name === 'all') && only.k === 'comp' && only.kind === 'gen') return cx.L.anyAll(cx, only, name === 'any')
      return rt(name, pos(), e.loc)
    }
    case 'iter':
      noKw(cx, name, e); count(cx, name, e, 1, 1)
      return rt('iterb', pos(), e.loc)
    case 'type':
      noKw(cx, name, e); count(cx, name, e, 1, 1)
      return rt('typeof', pos(), e.loc)
    case 'getattr': case 'hasattr': case 'setattr':
      return attrCall(cx, e, name)
    case 'divmod':
      noKw(cx, name, e); count(cx, name, e, 2, 2)
      return rt('divmod', pos(), e.loc)
    case 'pow': {
      const kw = noKw(cx, name, e, ['mod']); count(cx, name, e, 2, 3)
      const args = pos()
      if (kw.has('mod')) args.push(lowerExpr(cx, kw.get('mod')!))
      return rt('pow3', args, e.loc)
    }
    case 'next': {
      noKw(cx, name, e); count(cx, name, e, 1, 2)
      const args = pos()
      return rt('next', [args[0]!, lit(args.length > 1), args[1] ?? lit(null)], e.loc)
    }
    case 'print': {
      noKw(cx, name, e, ['sep', 'end', 'flush'])
      const args = [arr(pos().map((a) => (a.$expr === 'spread' ? a : prepText(cx, a)))), kwDict(cx, e.kw)]
      // A host that takes printed lines (a workflow's `log`) gets the line print would write.
      const host = cx.L.options.externals?.get('print')
      if (host) return hostPrint(cx, e, host, rt(textEntry(cx, 'printline'), args, e.loc))
      return rt(textEntry(cx, 'print'), args, e.loc)
    }
    case 'map': case 'filter': {
      noKw(cx, name, e)
      if (e.args.length < 2 || (name === 'filter' && e.args.length !== 2) || e.args.some((a) => a.k === 'star')) {
        argError(cx, name, name === 'map' ? 'takes a function and at least one iterable' : 'takes a function and one iterable', `Call it as ${name}(function, items).`, e)
      }
      const f = e.args[0]!
      const t = cx.temp()
      // The function is evaluated before the items, as in CPython; `py$first(a, ...)` evaluates all in order and gives a.
      let fnTemp: string | null = null
      let pre: Node | null = null
      const byName = f.k === 'name' || (f.k === 'attr' && f.obj.k === 'name' && BUILTIN_TYPES.has(f.obj.id))
      if (f.k !== 'lambda' && !byName && !(f.k === 'const' && f.v === null)) {
        fnTemp = cx.temp()
        pre = assign(fnTemp, lowerExpr(cx, f))
      }
      if (e.args.length > 2 && !fnTemp) {
        fnTemp = cx.temp()
        pre = assign(fnTemp, lowerExpr(cx, f))
      }
      const source = e.args.length === 2 ? lowerExpr(cx, e.args[1]!) : rt('zip', e.args.slice(1).map((a) => lowerExpr(cx, a)), e.loc)
      const lam = fnTemp ? callLambda(cx, id(fnTemp), e.args.length > 2, f) : keyLambda(cx, f)
      if (name === 'map' && !lam) argError(cx, name, "'NoneType' object is not callable", 'Pass a function.', e)
      const setSource = pre ? rt('last', [pre, assign(t, source)]) : assign(t, source)
      const toItems = assign(t, rt('items', [id(t)]))
      const eager = name === 'filter'
        ? rt('filterby', [rt('last', [toItems, id(t)]), lam ? mapNode(id(t), lam) : id(t)], e.loc)
        : rt('gen', [rt('last', [toItems, mapNode(id(t), lam!)]), lit('map')], e.loc)
      // A lambda written in the call is compiled in place (a VM lambda), not a value: read at once.
      if (f.k === 'lambda') return rt('last', [setSource, eager])
      // Over a generator (or another lazy iterator) the items are made as they are asked for, the
      // function called back through the dispatcher (runtime/generators.ts), as CPython's map/filter.
      cx.L.usesDispatch = true
      const fnValue = fnTemp ? id(fnTemp) : f.k === 'const' && f.v === null ? lit(null) : lowerExpr(cx, f)
      const lazy = rt('lazymap', [fnValue, id(t), lit(name), lit(e.args.length > 2)], e.loc)
      return rt('last', [setSource, cond(rt('pullable', [id(t)]), lazy, eager)])
    }
  }
  return undefined
}

/** A VM lambda calling the value `f` on an item (on the members of a tuple item: map over several iterables). */
function callLambda(cx: FnCtx, f: Node, spreadItem: boolean, at: Expr): Node {
  const param = `$k${cx.L.nextId()}`
  const args = spreadItem ? id(param) : arr([id(param)])
  return lambda([param], dynamicCall(cx, f, args, lit(null), at.loc))
}

/** `getattr`/`hasattr`/`setattr` on the program's own objects (runtime/attrs.ts); a literal special name is refused here. */
function attrCall(cx: FnCtx, e: ExprOf<'call'>, name: string): Node {
  noKw(cx, name, e)
  if (name === 'getattr') count(cx, name, e, 2, 3)
  else count(cx, name, e, name === 'setattr' ? 3 : 2, name === 'setattr' ? 3 : 2)
  if (e.args.some((a) => a.k === 'star')) argError(cx, name, '`*` arguments are not accepted here', `Pass the arguments of ${name}() by position.`, e)
  const key = e.args[1]
  if (key?.k === 'const' && typeof key.v === 'string' && /^__.+__$/.test(key.v)) {
    argError(cx, name, `cannot reach the special attribute '${key.v}'`, 'Code blocks reach only ordinary attributes of their own objects; use a method or a field.', e)
  }
  const args = positional(cx, e)
  if (name === 'getattr') return rt('ogetattr', [args[0]!, args[1]!, lit(args.length > 2), args[2] ?? lit(null)], e.loc)
  return rt(name === 'hasattr' ? 'ohasattr' : 'osetattr', args, e.loc)
}
