/** Scope analysis over the parsed tree (see scope.ts for the model). */
import type { Expr, ImportName, Stmt } from './ir.ts'
import { FnScope, hiddenName, mangle, targetNames, type Analysis, type DefInfo } from './scope.ts'
import type { Refuser } from './refuse.ts'
import { preludeName } from './functools.ts'
import { collectNonlocals, resolveNonlocals } from './nonlocal.ts'

/** `moduleLevel`: the program's top level is a script (a workflow's), not a function body (a code block's `_block`). */
export function analyze(body: Stmt[], params: string[], r: Refuser, imports?: ReadonlyMap<string, ImportName>, moduleLevel = false): Analysis {
  let ids = 0
  const scopes: FnScope[] = []
  const scopeOf = new Map<object, FnScope>()
  const defOf = new Map<object, DefInfo>()
  const helperNames = new Set<string>()
  const newScope = (kind: FnScope['kind'], parent: FnScope | null) => {
    const s = new FnScope(ids++, kind, parent)
    scopes.push(s)
    return s
  }
  const helperName = (base: string) => {
    let name = mangle(base)
    for (let i = 2; helperNames.has(name); i++) name = `${mangle(base)}$${i}`
    helperNames.add(name)
    return name
  }

  const block = newScope('block', null)
  for (const p of params) block.locals.add(p)

  // Imported names and modules, to find the block-level helper def an imported function stands for
  // (`groupby(...)`, `itertools.groupby(...)`: functools.ts's preludes), whose defaults its callers pass.
  const importedAs: ReadonlyMap<string, ImportName> = imports ?? new Map()
  const bind = (s: FnScope, name: string) => {
    s.assigned.set(name, (s.assigned.get(name) ?? 0) + 1)
    if (!s.nonlocals.has(name)) s.locals.add(name)
  }

  // Pass 1: locals of every scope, and the scopes of defs and comprehensions.
  const declareExpr = (e: Expr | null, s: FnScope): void => {
    if (!e) return
    switch (e.k) {
      case 'walrus': bind(s, e.id); declareExpr(e.value, s); return
      case 'comp': {
        declareExpr(e.gens[0]!.iter, s)
        const c = newScope('comp', s)
        scopeOf.set(e, c)
        helperNames.add(`comp$${c.id}`)
        e.gens.forEach((g, i) => {
          for (const n of targetNames(g.target)) bind(c, n)
          if (i > 0) declareExpr(g.iter, c)
          for (const cond of g.ifs) declareExpr(cond, c)
        })
        declareExpr(e.elt, c)
        declareExpr(e.value, c)
        return
      }
      case 'lambda': declareLambda(e, s); return
    }
    forEachChild(e, (x) => declareExpr(x, s))
  }
  const declareLambda = (e: Expr & { k: 'lambda' }, s: FnScope) => {
    const walk = (x: Expr): void => {
      if (x.k === 'walrus') throw r.error('PY_UNSUPPORTED', { name: '`:=` inside a lambda', fix: 'Assign the value before the lambda.' }, x.loc)
      if (x.k === 'comp' || x.k === 'lambda') { declareExpr(x, s); return }
      forEachChild(x, walk)
    }
    walk(e.body)
  }
  const declare = (stmts: Stmt[], s: FnScope): void => {
    for (const st of stmts) {
      switch (st.k) {
        case 'expr': declareExpr(st.e, s); break
        case 'assign': for (const t of st.targets) { for (const n of targetNames(t)) bind(s, n); declareExpr(t, s) } declareExpr(st.value, s); break
        case 'aug': for (const n of targetNames(st.target)) bind(s, n); declareExpr(st.target, s); declareExpr(st.value, s); break
        case 'for': for (const n of targetNames(st.target)) bind(s, n); declareExpr(st.target, s); declareExpr(st.iter, s); declare(st.body, s); declare(st.orelse, s); break
        case 'while': declareExpr(st.test, s); declare(st.body, s); declare(st.orelse, s); break
        case 'if': declareExpr(st.test, s); declare(st.body, s); declare(st.orelse, s); break
        case 'return': declareExpr(st.value, s); break
        case 'raise': declareExpr(st.exc, s); break
        case 'assert': declareExpr(st.test, s); declareExpr(st.msg, s); break
        case 'del': for (const t of st.targets) { if (t.k === 'name') bind(s, t.id); else declareExpr(t, s) } break
        case 'import': for (const n of st.names) s.imported.add(n.alias); break
        case 'try':
          declare(st.body, s)
          for (const h of st.handlers) { declareExpr(h.type, s); if (h.name) bind(s, h.name); declare(h.body, s) }
          declare(st.orelse, s); declare(st.finalbody, s)
          break
        case 'def': {
          if (s.nonlocals.has(st.name)) throw r.error('PY_UNSUPPORTED', { name: `A \`def\` of the nonlocal \`${st.name}\``, fix: 'Give the nested function its own name and assign it to the variable.' }, st.loc)
          if (s.defs.has(st.name)) throw r.error('PY_UNSUPPORTED', { name: `Redefining \`${st.name}\``, fix: 'Give each helper function its own name.' }, st.loc)
          bind(s, st.name)
          const f = newScope('def', s)
          for (const p of st.params) f.locals.add(p.name)
          const info: DefInfo = {
            name: st.name, helper: helperName(st.name), params: st.params, scope: f, node: st,
            defaultHolders: st.params.map((p, i) => (p.dflt ? `${mangle(st.name)}$d${f.id}_${i}` : null)),
          }
          for (const h of info.defaultHolders) if (h) s.locals.add(h)
          for (const p of st.params) declareExpr(p.dflt, s)
          s.defs.set(st.name, info)
          scopeOf.set(st, f)
          defOf.set(st, info)
          collectNonlocals(st.body, st.params, f, r, moduleLevel)
          declare(st.body, f)
          break
        }
      }
    }
  }
  collectNonlocals(body, params.map((name) => ({ name })), block, r, moduleLevel)
  declare(body, block)

  for (const s of scopes) {
    for (const [name] of s.defs) {
      if ((s.assigned.get(name) ?? 0) > 1) {
        const d = s.defs.get(name)!
        throw r.error('PY_UNSUPPORTED', { name: `Rebinding the function name \`${name}\``, fix: 'Use another variable name for the value; functions keep their names.' }, d.node.loc)
      }
    }
  }

  resolveNonlocals(scopes, r)

  // Pass 2: free variables read directly, and call edges.
  const useName = (s: FnScope, name: string) => {
    const owner = s.owner(name)
    if (owner && owner !== s) s.free.set(hiddenName(name, owner), [name, owner])
  }
  /** The def a name or `module.name` stands for in scope s (an imported function written in Python included). */
  const defNamed = (s: FnScope, e: Expr, shadow: ReadonlySet<string>): DefInfo | undefined => {
    if (e.k === 'name') {
      if (shadow.has(e.id)) return undefined
      const d = s.findDef(e.id)
      if (d || s.owner(e.id)) return d
      const i = importedAs.get(e.id)
      return i?.name ? block.defs.get(preludeName(i.module, i.name)) : undefined
    }
    if (e.k === 'attr' && e.obj.k === 'name' && !shadow.has(e.obj.id) && !s.owner(e.obj.id)) {
      const i = importedAs.get(e.obj.id)
      return i && i.name === null ? block.defs.get(preludeName(i.module, e.name)) : undefined
    }
    return undefined
  }
  const useExpr = (e: Expr | null, s: FnScope, shadow: ReadonlySet<string>): void => {
    if (!e) return
    switch (e.k) {
      case 'name':
        if (shadow.has(e.id)) return
        useName(s, e.id)
        // A def used as a value (extended profile) carries its defaults and enclosing variables.
        { const d = defNamed(s, e, shadow); if (d) { s.calls.add(d.scope); d.defaultHolders.forEach((h) => { if (h) useName(s, h) }) } }
        return
      case 'attr': {
        const d = defNamed(s, e, shadow)
        if (d) { s.calls.add(d.scope); d.defaultHolders.forEach((h) => { if (h) useName(s, h) }) }
        break
      }
      case 'call': {
        const d = defNamed(s, e.fn, shadow)
        if (d) d.defaultHolders.forEach((h) => { if (h) useName(s, h) })
        break
      }
      case 'comp': {
        const c = scopeOf.get(e)!
        useExpr(e.gens[0]!.iter, s, shadow)
        s.calls.add(c)
        // Lambda parameters around a comprehension are variables of this frame: the comprehension receives them.
        e.gens.forEach((g, i) => {
          if (i > 0) useExpr(g.iter, c, shadowIn(c, shadow))
          for (const cond of g.ifs) useExpr(cond, c, shadowIn(c, shadow))
        })
        useExpr(e.elt, c, shadowIn(c, shadow))
        useExpr(e.value, c, shadowIn(c, shadow))
        for (const name of shadow) if (!c.locals.has(name)) lambdaParamsOf.get(c)?.add(name) ?? lambdaParamsOf.set(c, new Set([name]))
        return
      }
      case 'lambda': {
        const inner = new Set(shadow)
        for (const p of e.params) inner.add(p)
        useExpr(e.body, s, inner)
        return
      }
    }
    forEachChild(e, (x) => useExpr(x, s, shadow))
  }
  const lambdaParamsOf = new Map<FnScope, Set<string>>()
  const shadowIn = (c: FnScope, shadow: ReadonlySet<string>) => new Set([...shadow].filter((n) => !c.locals.has(n)))
  const use = (stmts: Stmt[], s: FnScope): void => {
    const none = new Set<string>()
    for (const st of stmts) {
      switch (st.k) {
        case 'expr': useExpr(st.e, s, none); break
        case 'assign': useExpr(st.value, s, none); for (const t of st.targets) useExpr(t, s, none); break
        case 'aug': useExpr(st.target, s, none); useExpr(st.value, s, none); break
        case 'for': useExpr(st.iter, s, none); useExpr(st.target, s, none); use(st.body, s); use(st.orelse, s); break
        case 'while': case 'if': useExpr(st.test, s, none); use(st.body, s); use(st.orelse, s); break
        case 'return': useExpr(st.value, s, none); break
        case 'raise': useExpr(st.exc, s, none); break
        case 'assert': useExpr(st.test, s, none); useExpr(st.msg, s, none); break
        case 'del': for (const t of st.targets) useExpr(t, s, none); break
        case 'try':
          use(st.body, s)
          for (const h of st.handlers) { useExpr(h.type, s, none); use(h.body, s) }
          use(st.orelse, s); use(st.finalbody, s)
          break
        case 'def': {
          for (const p of st.params) useExpr(p.dflt, s, none)
          use(st.body, scopeOf.get(st)!)
          break
        }
      }
    }
  }
  use(body, block)

  // Pass 3: a caller must pass what its callees read from enclosing scopes.
  for (let changed = true; changed;) {
    changed = false
    for (const s of scopes) {
      for (const callee of s.calls) {
        for (const [hidden, [name, owner]] of callee.free) {
          if (owner !== s && !s.free.has(hidden)) { s.free.set(hidden, [name, owner]); changed = true }
        }
      }
    }
  }
  return { block, scopes, scopeOf, defOf, helperNames, lambdaParamsOf } as Analysis
}

/** Visit the direct child expressions of an expression. */
export function forEachChild(e: Expr, f: (x: Expr) => void): void {
  switch (e.k) {
    case 'fstr': for (const p of e.parts) if (typeof p !== 'string') { f(p.e); if (p.spec) f(p.spec) } return
    case 'list': case 'tuple': case 'set': e.elts.forEach(f); return
    case 'dict': for (const it of e.items) { if ('spread' in it) f(it.spread); else { f(it.key); f(it.value) } } return
    case 'bin': case 'bool': f(e.l); f(e.r); return
    case 'unary': f(e.e); return
    case 'cmp': e.xs.forEach(f); return
    case 'ifexp': f(e.test); f(e.body); f(e.orelse); return
    case 'call': f(e.fn); e.args.forEach(f); for (const k of e.kw) f(k.value); return
    case 'attr': f(e.obj); return
    case 'sub': f(e.obj); f(e.index); return
    case 'slice': if (e.lo) f(e.lo); if (e.hi) f(e.hi); if (e.step) f(e.step); return
    case 'comp': f(e.gens[0]!.iter); return
    case 'lambda': f(e.body); return
    case 'walrus': f(e.value); return
    case 'star': f(e.e); return
    case 'rt': e.args.forEach(f); return
  }
}
