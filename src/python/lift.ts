/**
 * The extended profile's lambdas as values: a lambda anywhere but where the lowering compiles it in
 * place (`key=` of sorted/min/max/list.sort, the function of map/filter) becomes a `def` named
 * `lambda$<n>` placed just before the statement that contains it, and the lambda becomes that
 * name. Its defaults are evaluated there (once per run of the statement) and it reads enclosing
 * variables like any nested def.
 */
import type { Expr, Stmt } from './ir.ts'

const INLINE_KEY = new Set(['sorted', 'min', 'max'])

export function liftLambdas(body: Stmt[]): Stmt[] {
  let n = 0
  const inline = new Set<Expr>()

  const liftStmts = (stmts: Stmt[]): Stmt[] => {
    const out: Stmt[] = []
    for (const st of stmts) {
      const before: Stmt[] = []
      const ex = (e: Expr): Expr => liftExpr(e, before)
      const exn = (e: Expr | null): Expr | null => (e ? ex(e) : null)
      switch (st.k) {
        case 'expr': st.e = ex(st.e); break
        case 'assign': st.value = ex(st.value); st.targets = st.targets.map(ex); break
        case 'aug': st.target = ex(st.target); st.value = ex(st.value); break
        case 'if': case 'while': st.test = ex(st.test); st.body = liftStmts(st.body); st.orelse = liftStmts(st.orelse); break
        case 'for': st.iter = ex(st.iter); st.target = ex(st.target); st.body = liftStmts(st.body); st.orelse = liftStmts(st.orelse); break
        case 'return': st.value = exn(st.value); break
        case 'raise': st.exc = exn(st.exc); break
        case 'assert': st.test = ex(st.test); st.msg = exn(st.msg); break
        case 'del': st.targets = st.targets.map(ex); break
        case 'try':
          st.body = liftStmts(st.body)
          for (const h of st.handlers) { h.type = h.type ? ex(h.type) : null; h.body = liftStmts(h.body) }
          st.orelse = liftStmts(st.orelse); st.finalbody = liftStmts(st.finalbody)
          break
        case 'def':
          for (const p of st.params) p.dflt = exn(p.dflt)
          st.body = liftStmts(st.body)
          break
      }
      out.push(...before, st)
    }
    return out
  }

  const liftExpr = (e: Expr, before: Stmt[]): Expr => {
    const ex = (x: Expr): Expr => liftExpr(x, before)
    switch (e.k) {
      case 'lambda': {
        if (inline.has(e) && e.params.length === 1 && e.defaults.every((d) => !d) && !e.kinds) {
          e.body = ex(e.body)
          return e
        }
        const name = `lambda$${++n}`
        const params = e.params.map((p, i) => ({ name: p, dflt: e.defaults[i] ? ex(e.defaults[i]!) : null, ...(e.kinds?.[i] ? { kind: e.kinds[i] } : {}) }))
        const def: Stmt = { k: 'def', name, params, body: liftStmts([{ k: 'return', value: e.body, loc: e.body.loc }]), loc: e.loc }
        before.push(def)
        return { k: 'name', id: name, loc: e.loc }
      }
      case 'call': {
        const fname = e.fn.k === 'name' ? e.fn.id : e.fn.k === 'attr' ? `.${e.fn.name}` : ''
        if (INLINE_KEY.has(fname) || fname === '.sort') for (const k of e.kw) if (k.name === 'key') inline.add(k.value)
        if ((fname === 'map' || fname === 'filter') && e.args[0]) inline.add(e.args[0])
        e.fn = ex(e.fn)
        e.args = e.args.map(ex)
        for (const k of e.kw) k.value = ex(k.value)
        return e
      }
      case 'fstr': for (const p of e.parts) if (typeof p !== 'string') { p.e = ex(p.e); if (p.spec) p.spec = ex(p.spec) } return e
      case 'list': case 'tuple': case 'set': e.elts = e.elts.map(ex); return e
      case 'dict': for (const it of e.items) { if ('spread' in it) it.spread = ex(it.spread); else { it.key = ex(it.key); it.value = ex(it.value) } } return e
      case 'bin': case 'bool': e.l = ex(e.l); e.r = ex(e.r); return e
      case 'unary': e.e = ex(e.e); return e
      case 'cmp': e.xs = e.xs.map(ex); return e
      case 'ifexp': e.test = ex(e.test); e.body = ex(e.body); e.orelse = ex(e.orelse); return e
      case 'attr': e.obj = ex(e.obj); return e
      case 'sub': e.obj = ex(e.obj); e.index = ex(e.index); return e
      case 'slice': if (e.lo) e.lo = ex(e.lo); if (e.hi) e.hi = ex(e.hi); if (e.step) e.step = ex(e.step); return e
      case 'comp':
        for (const g of e.gens) { g.iter = ex(g.iter); g.ifs = g.ifs.map(ex) }
        e.elt = ex(e.elt)
        if (e.value) e.value = ex(e.value)
        return e
      case 'walrus': e.value = ex(e.value); return e
      case 'star': e.e = ex(e.e); return e
      case 'rt': e.args = e.args.map(ex); return e
    }
    return e
  }

  return liftStmts(body)
}
