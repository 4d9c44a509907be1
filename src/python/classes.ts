/**
 * Guest classes and imports (extended profile), rewritten before scope analysis into what the
 * lowering already compiles: each method becomes a nested `def` named `Class.method` placed where the
 * class statement was, followed by `Class = py$class(...)` and `py$methods(Class, [...])` (methods are
 * attached after the class is bound, so they can name it). Imports are compile-time bindings
 * (see modules.ts) and leave no statement behind.
 */
import type { ClassItem, Expr, ExprOf, ImportName, Stmt, StmtOf } from './ir.ts'
import type { Refuser } from './refuse.ts'
import { MISSING_MEMBER_FIX, MODULES } from './modules.ts'

export interface ClassInfo {
  /** Classes defined by the program. */
  count: number
  /** Method names of every class (a call `x.name()` of one of them goes through the dispatcher). */
  methodNames: Set<string>
  /** Some class defines `__repr__` or `__str__` (conversions call them first). */
  text: boolean
  /** Some class defines `__eq__`. */
  eq: boolean
  /** Some class defines `__ne__` (`!=` then calls it, or the negated `__eq__`). */
  ne: boolean
  /** Some class names a base (a comparison then tries a subclass's reflection first). */
  inherits: boolean
  /** Some class defines `__lt__`, `__le__`, `__gt__` or `__ge__`. */
  order: boolean
  /** Imported names: alias -> what it names. */
  imports: Map<string, ImportName>
}

const rt = (fn: string, args: Expr[], loc: Stmt['loc']): Expr => ({ k: 'rt', fn, args, loc })
const name = (id: string, loc: Stmt['loc']): Expr => ({ k: 'name', id, loc })
const str = (v: string, loc: Stmt['loc']): Expr => ({ k: 'const', v, loc })

export function desugarClasses(body: Stmt[], r: Refuser): { body: Stmt[]; info: ClassInfo } {
  const info: ClassInfo = { count: 0, methodNames: new Set(), text: false, eq: false, ne: false, inherits: false, order: false, imports: new Map() }

  const importFrom = (st: StmtOf<'import'>) => {
    for (const n of st.names) {
      const mod = MODULES[n.module]
      if (!mod) throw r.error('PY_IMPORT', { fix: `\`${n.module}\` cannot be imported here; the modules a block can import are ${Object.keys(MODULES).join(', ')}. For the rest, use the allowed builtins and str/list/dict methods.` }, st.loc)
      if (n.name !== null && !Object.prototype.hasOwnProperty.call(mod, n.name)) {
        throw r.error('PY_UNSUPPORTED', { name: `\`${n.module}.${n.name}\``, fix: MISSING_MEMBER_FIX[`${n.module}.${n.name}`] ?? `The ${n.module} module here has ${Object.keys(mod).join(', ')}.` }, n.loc)
      }
      const prev = info.imports.get(n.alias)
      if (prev && (prev.module !== n.module || prev.name !== n.name)) throw r.error('PY_UNSUPPORTED', { name: `Importing \`${n.alias}\` twice`, fix: 'Use `as` to give the second one another name.' }, n.loc)
      info.imports.set(n.alias, n)
    }
  }

  const isImported = (e: Expr, module: string, member: string): boolean => {
    if (e.k === 'name') { const i = info.imports.get(e.id); return !!i && i.module === module && i.name === member }
    if (e.k === 'attr' && e.obj.k === 'name' && e.name === member) { const i = info.imports.get(e.obj.id); return !!i && i.module === module && i.name === null }
    return false
  }

  const stmts = (list: Stmt[], path: string[]): Stmt[] => {
    const out: Stmt[] = []
    for (const st of list) {
      switch (st.k) {
        // Kept (lowered to nothing): the scope analysis needs to know which function binds the name (`nonlocal`).
        case 'import': importFrom(st); break
        case 'class': out.push(...classStmt(st, path)); continue
        case 'def': st.body = stmts(st.body, [...path, st.name]); break
        case 'if': case 'while': case 'for': st.body = stmts(st.body, path); st.orelse = stmts(st.orelse, path); break
        case 'try':
          st.body = stmts(st.body, path)
          for (const h of st.handlers) h.body = stmts(h.body, path)
          st.orelse = stmts(st.orelse, path); st.finalbody = stmts(st.finalbody, path)
          break
      }
      out.push(st)
    }
    return out
  }

  const classStmt = (st: StmtOf<'class'>, path: string[]): Stmt[] => {
    info.count++
    if (st.bases.length) info.inherits = true
    const loc = st.loc
    let dataclass = false
    let order = false
    for (const d of st.decorators) {
      if (isImported(d, 'dataclasses', 'dataclass')) dataclass = true
      else if (d.k === 'call' && isImported(d.fn, 'dataclasses', 'dataclass')) {
        dataclass = true
        order = dataclassOptions(d, r)
      } else throw r.error('PY_UNSUPPORTED', { name: 'This decorator', fix: 'Only `@dataclass` (from dataclasses import dataclass) is accepted on a class.' }, d.loc)
    }
    if (order) info.order = true
    const qual = [...path.flatMap((p) => [p, '<locals>']), st.name].join('.')
    const out: Stmt[] = []
    const attrs: Expr[] = []
    const fields: string[] = []
    const defaults: Expr[] = []
    const methods: Expr[] = []
    const seen = new Set<string>()
    const props = new Set<string>()
    for (const item of st.items as ClassItem[]) {
      if (item.kind === 'def') {
        const d = item.def
        const m = d.name
        const setter = d.descriptor === 'setter'
        if (setter && !props.has(m)) throw r.error('PY_UNSUPPORTED', { name: `\`@${m}.setter\` without the property`, fix: `Define \`@property def ${m}(self)\` just above the setter.` }, d.loc)
        if (d.descriptor === 'property') props.add(m)
        if (!setter && seen.has(m)) throw r.error('PY_UNSUPPORTED', { name: `Redefining the method \`${m}\``, fix: 'Give each method its own name.' }, d.loc)
        seen.add(m)
        info.methodNames.add(m)
        if (m === '__repr__' || m === '__str__') info.text = true
        if (m === '__eq__') info.eq = true
        if (m === '__ne__') info.ne = true
        if (m === '__lt__' || m === '__le__' || m === '__gt__' || m === '__ge__') info.order = true
        const helper = setter ? `${st.name}.${m}.setter` : `${st.name}.${m}`
        d.name = helper
        d.body = stmts(d.body, [...path, `${st.name}.${m}`])
        if (d.params.length) replaceSuper(d.body, st.name, d.params[0]!.name)
        out.push(d)
        // A decorated method is held by the class wrapped (runtime classes.ts PyDescriptor).
        methods.push(str(m, d.loc), d.descriptor ? rt('desc', [str(d.descriptor, d.loc), name(helper, d.loc)], d.loc) : name(helper, d.loc))
        continue
      }
      if (dataclass && item.annotated) {
        let dflt: Expr = rt('', [], item.loc)
        let classValue: Expr | null = item.value
        const v = item.value
        if (v && v.k === 'call' && isImported(v.fn, 'dataclasses', 'field')) {
          classValue = null
          if (v.args.length) throw r.error('PY_ARGUMENTS', { name: 'field', detail: 'takes keyword arguments only', fix: 'Write `field(default=0)` or `field(default_factory=list)`.' }, v.loc)
          for (const k of v.kw) {
            if (k.name === 'default') { dflt = k.value; classValue = k.value }
            else if (k.name === 'default_factory') dflt = rt('factory', [k.value], k.loc)
            else throw r.error('PY_ARGUMENTS', { name: 'field', detail: `the keyword argument '${k.name}' is not supported`, fix: 'Use `default=` or `default_factory=`.' }, k.loc)
          }
        } else if (v) dflt = v
        fields.push(item.name)
        defaults.push(dflt)
        if (classValue) attrs.push(str(item.name, item.loc), classValue)
        continue
      }
      if (item.value) attrs.push(str(item.name, item.loc), item.value)
    }
    const config: Expr = dataclass ? str(JSON.stringify(order ? { fields, order } : fields), loc) : { k: 'const', v: null, loc }
    const cls = rt('class', [str(st.name, loc), str(qual, loc), { k: 'tuple', elts: st.bases, loc }, { k: 'list', elts: attrs, loc }, config, { k: 'list', elts: defaults, loc }], loc)
    out.push({ k: 'assign', targets: [name(st.name, loc)], value: cls, loc })
    if (methods.length) out.push({ k: 'expr', e: rt('methods', [name(st.name, loc), { k: 'list', elts: methods, loc }], loc), loc })
    return out
  }

  return { body: stmts(body, ['_block']), info }
}

/**
 * The arguments of `@dataclass(...)`: `order=` (True: instances order by their fields), and `eq=True`,
 * `init=True`, `repr=True` (the defaults). Whether the class orders its instances.
 */
function dataclassOptions(d: ExprOf<'call'>, r: Refuser): boolean {
  const fix = 'Write `@dataclass` or `@dataclass(order=True)`; the generated `__init__`, `__repr__` and `__eq__` are always made.'
  if (d.args.length) throw r.error('PY_UNSUPPORTED', { name: 'Positional arguments of `@dataclass(...)`', fix }, d.loc)
  let order = false
  for (const k of d.kw) {
    const v = k.value.k === 'const' && typeof k.value.v === 'boolean' ? k.value.v : undefined
    if (v === undefined) throw r.error('PY_UNSUPPORTED', { name: `\`${k.name ?? '**'}=\` of \`@dataclass\` with a computed value`, fix }, k.loc)
    if (k.name === 'order') order = v
    else if (!((k.name === 'eq' || k.name === 'init' || k.name === 'repr') && v)) throw r.error('PY_UNSUPPORTED', { name: `\`@dataclass(${k.name}=${v ? 'True' : 'False'})\``, fix }, k.loc)
  }
  return order
}

/** `super()` in a method: `py$super(Class, self)`. */
function replaceSuper(body: Stmt[], cls: string, self: string): void {
  const fix = (e: Expr): Expr => {
    if (e.k === 'call' && e.fn.k === 'name' && e.fn.id === 'super') {
      const args = e.args.length === 0 ? [name(cls, e.loc), name(self, e.loc)] : e.args
      return rt('super', args, e.loc)
    }
    walkExpr(e, fix)
    return e
  }
  walkStmts(body, fix)
}

/** Replace every direct child expression of the statements (not inside nested defs) with f(child). */
function walkStmts(list: Stmt[], f: (e: Expr) => Expr): void {
  const o = (e: Expr | null) => (e ? f(e) : null)
  for (const st of list) {
    switch (st.k) {
      case 'expr': st.e = f(st.e); break
      case 'assign': st.value = f(st.value); st.targets = st.targets.map(f); break
      case 'aug': st.target = f(st.target); st.value = f(st.value); break
      case 'if': case 'while': st.test = f(st.test); walkStmts(st.body, f); walkStmts(st.orelse, f); break
      case 'for': st.iter = f(st.iter); walkStmts(st.body, f); walkStmts(st.orelse, f); break
      case 'return': st.value = o(st.value); break
      case 'raise': st.exc = o(st.exc); break
      case 'assert': st.test = f(st.test); st.msg = o(st.msg); break
      case 'del': st.targets = st.targets.map(f); break
      case 'try':
        walkStmts(st.body, f)
        for (const h of st.handlers) walkStmts(h.body, f)
        walkStmts(st.orelse, f); walkStmts(st.finalbody, f)
        break
    }
  }
}

function walkExpr(e: Expr, f: (e: Expr) => Expr): void {
  switch (e.k) {
    case 'fstr': for (const p of e.parts) if (typeof p !== 'string') { p.e = f(p.e); if (p.spec) p.spec = f(p.spec) } return
    case 'list': case 'tuple': case 'set': e.elts = e.elts.map(f); return
    case 'dict': for (const it of e.items) { if ('spread' in it) it.spread = f(it.spread); else { it.key = f(it.key); it.value = f(it.value) } } return
    case 'bin': case 'bool': e.l = f(e.l); e.r = f(e.r); return
    case 'unary': e.e = f(e.e); return
    case 'cmp': e.xs = e.xs.map(f); return
    case 'ifexp': e.test = f(e.test); e.body = f(e.body); e.orelse = f(e.orelse); return
    case 'call': e.fn = f(e.fn); e.args = e.args.map(f); for (const k of e.kw) k.value = f(k.value); return
    case 'attr': e.obj = f(e.obj); return
    case 'sub': e.obj = f(e.obj); e.index = f(e.index); return
    case 'slice': if (e.lo) e.lo = f(e.lo); if (e.hi) e.hi = f(e.hi); if (e.step) e.step = f(e.step); return
    case 'comp': for (const g of e.gens) { g.iter = f(g.iter); g.ifs = g.ifs.map(f) } e.elt = f(e.elt); if (e.value) e.value = f(e.value); return
    case 'lambda': e.body = f(e.body); return
    case 'walrus': e.value = f(e.value); return
    case 'star': e.e = f(e.e); return
    case 'rt': e.args = e.args.map(f); return
  }
}
