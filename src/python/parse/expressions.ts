/**
 * Expressions to the tree: names, displays, comprehensions, operators, calls
 * and subscripts, assignment targets, and parameter lists (of `def` and `lambda`).
 */
import type { SyntaxNode } from '@lezer/common'
import type { DictItem, Expr, FPart, Gen, Keyword, Loc, Param } from '../ir.ts'
import { LiteralParser } from './literals.ts'
import { kids, trailingPointFloat } from './lezer.ts'

export abstract class ExprParser extends LiteralParser {

  protected targetList(nodes: SyntaxNode[], at: SyntaxNode): Expr {
    const t = this.exprList(nodes, at)
    this.checkTarget(t, nodes[0] ?? at, true)
    return t
  }

  checkTarget(t: Expr, n: SyntaxNode, allowTuple: boolean): void {
    switch (t.k) {
      case 'name': case 'sub': return
      case 'tuple': case 'list':
        if (!allowTuple) this.refuse('PY_TARGET', { name: 'a tuple with an augmented assignment' }, n)
        if (t.elts.filter((e) => e.k === 'star').length > 1) this.refuse('PY_SYNTAX', { detail: 'multiple starred expressions in assignment', fix: 'Use one `*rest` per unpacking.' }, n)
        for (const e of t.elts) this.checkTarget(e.k === 'star' ? e.e : e, n, true)
        return
      case 'attr':
        if (this.r.extended) return
        throw this.r.extendedOnly(`Assigning the attribute \`.${t.name}\``, 'Use a dict: `d["key"] = value`.', n.from)
      default: this.refuse('PY_TARGET', { name: describe(t) }, n)
    }
  }


  // --- expressions ------------------------------------------------------------------

  /** A comma-separated list: one expression, or a tuple when there is a comma. */
  protected exprList(nodes: SyntaxNode[], at: SyntaxNode): Expr {
    const items = nodes.filter((x) => x.name !== ',')
    const tupleForm = nodes.some((x) => x.name === ',')
    const elts: Expr[] = []
    for (let i = 0; i < items.length; i++) {
      const x = items[i]!
      if (x.name === '*') { elts.push({ k: 'star', e: this.expr(items[++i]!), loc: this.at(x) }); continue }
      elts.push(this.expr(x))
    }
    if (!tupleForm && elts.length === 1) {
      if (elts[0]!.k === 'star') this.refuse('PY_SYNTAX', { detail: "can't use starred expression here", fix: 'Use `*x` only inside a list, tuple, set or call, or add a comma: `*x,`.' }, items[0]!)
      return elts[0]!
    }
    if (elts.length === 0) return this.refuse('PY_SYNTAX', { detail: 'expected an expression', fix: 'Write a value here.' }, at)
    return { k: 'tuple', elts, loc: elts[0]!.loc }
  }


  expr(n: SyntaxNode): Expr {
    const loc = this.at(n)
    const c = kids(n)
    switch (n.name) {
      case 'VariableName': return { k: 'name', id: this.checkName(n), loc }
      case 'Boolean': return { k: 'const', v: this.text(n) === 'True', loc }
      case 'None': return { k: 'const', v: null, loc }
      case 'Number': return this.number(n, loc)
      case 'String': return { k: 'const', v: this.stringLiteral(n), loc }
      case 'FormatString': return { k: 'fstr', parts: this.fstring(n), loc }
      case 'ContinuedString': {
        const parts: FPart[] = []
        for (const s of c) {
          if (s.name === 'String') parts.push(this.stringLiteral(s))
          else parts.push(...this.fstring(s))
        }
        if (parts.every((p) => typeof p === 'string')) return { k: 'const', v: (parts as string[]).join(''), loc }
        return { k: 'fstr', parts, loc }
      }
      case 'ParenthesizedExpression': {
        const inner = c[1]!
        if (inner.name === 'YieldExpression') {
          const hoisted = this.hoisted.get(inner.from)
          if (hoisted !== undefined) return { k: 'name', id: hoisted, loc }
          this.unsupported('`yield`', this.yieldFix(), inner)
        }
        if (inner.name === '*') this.refuse('PY_SYNTAX', { detail: 'cannot use starred expression here', fix: 'Remove the `*`.' }, inner)
        return this.expr(inner)
      }
      case 'TupleExpression': return { k: 'tuple', elts: this.elements(c.slice(1, -1)), loc }
      case 'ArrayExpression': return { k: 'list', elts: this.elements(c.slice(1, -1)), loc }
      case 'SetExpression': return { k: 'set', elts: this.elements(c.slice(1, -1)), loc }
      case 'DictionaryExpression': return { k: 'dict', items: this.dictItems(c.slice(1, -1)), loc }
      case 'ComprehensionExpression': return this.comprehension('gen', c.slice(1, -1), loc)
      case 'ArrayComprehensionExpression': return this.comprehension('list', c.slice(1, -1), loc)
      case 'SetComprehensionExpression': return this.comprehension('set', c.slice(1, -1), loc)
      case 'DictionaryComprehensionExpression': return this.comprehension('dict', c.slice(1, -1), loc)
      case 'BinaryExpression': return this.binary(n, c, loc)
      case 'UnaryExpression': {
        const op = this.text(c[0]!)
        // @lezer/python parses `not a or b` as `not (a or b)`; Python's `not` binds tighter than `and`/`or`.
        if (op === 'not' && this.isBoolOp(c[1]!)) return this.notLeftmost(c[1]!, loc)
        return { k: 'unary', op, e: this.expr(c[1]!), loc }
      }
      case 'ConditionalExpression':
        return { k: 'ifexp', body: this.expr(c[0]!), test: this.expr(c[2]!), orelse: this.expr(c[4]!), loc }
      case 'LambdaExpression': {
        const plist = c.find((x) => x.name === 'ParamList')
        const params = plist ? this.params(kids(plist), plist) : []
        if (params.some((p) => p.dflt) && !this.r.extended) throw this.r.extendedOnly('Lambda defaults', 'Use a `def` helper with a default, or capture the value in a variable.', n.from)
        const lam: Expr = { k: 'lambda', params: params.map((p) => p.name), defaults: params.map((p) => p.dflt), body: this.expr(c[c.length - 1]!), loc }
        // `lambda *args, **kw: ...` (extended): its def (lift.ts) takes them as a def does.
        if (params.some((p) => p.kind)) lam.kinds = params.map((p) => p.kind)
        return lam
      }
      case 'CallExpression': return this.call(c[0]!, c[1]!, loc)
      case 'MemberExpression': {
        if (c[0]!.name === 'Number' && c[1]!.name === '.' && c[0]!.to === c[1]!.from && /^\d[\d_]*$/.test(this.text(c[0]!))) {
          // `5.` and `1.e3`: floats written with a trailing point, which @lezer/python reads as an attribute access.
          const digits = this.text(c[0]!).replace(/_/g, ''), after = c[2]
          if (!after || trailingPointFloat(after)) return { k: 'float', v: Number(digits), loc }
          if (after.name === 'PropertyName' && after.from === c[1]!.to && /^[eE]\d[\d_]*$/.test(this.text(after))) return { k: 'float', v: Number(`${digits}e${this.text(after).slice(1).replace(/_/g, '')}`), loc }
          // `1.e` without the exponent's digits (`1.e-3` itself is one literal by then: parse/exponent.ts).
          if (after.name === 'PropertyName' && after.from === c[1]!.to && /^[eE]$/.test(this.text(after))) this.refuse('PY_SYNTAX', { detail: 'invalid decimal literal', fix: `Write the exponent's digits right after \`e\`: \`${digits}.e-3\`, \`${digits}.e5\`.` }, c[0]!)
          this.refuse('PY_SYNTAX', { detail: 'invalid decimal literal', fix: `Wrap the number in parentheses: \`(${this.text(c[0]!)}).${this.text(c[2] ?? c[1]!)}\`.` }, c[0]!)
        }
        const obj = this.expr(c[0]!)
        if (c[1]!.name === '.') {
          const name = this.text(c[2]!)
          // `type(x).__name__` is the one dunder the extended profile reads.
          if (name === '__name__' && !this.r.extended) throw this.r.extendedOnly('Reading `.__name__`', 'Use `isinstance(x, int)` to test a type.', c[2]!.from)
          // `super().__setattr__(name, value)` / `super().__getattr__(name)` / `super().__delattr__(name)` /
          // `super().__getattribute__(name)`: a base's hook, or the plain store, delete or read, as
          // `object.__setattr__(self, name, value)` is.
          const ofSuper = (obj.k === 'call' && obj.fn.k === 'name' && obj.fn.id === 'super' && ATTR_HOOKS.has(name)) ||
            (obj.k === 'name' && obj.id === 'object' && name !== '__getattr__' && ATTR_HOOKS.has(name))
          if (/^__.*__$/.test(name) && name !== '__name__' && !((name === '__init__' || ofSuper) && this.r.extended)) this.refuse('PY_DUNDER', { name }, c[2]!)
          return { k: 'attr', obj, name, loc: this.at(c[2]!) }
        }
        return { k: 'sub', obj, index: this.subscript(c.slice(2, -1), n), loc }
      }
      case 'NamedExpression': {
        if (c[0]!.name !== 'VariableName') this.refuse('PY_TARGET', { name: 'this expression with `:=`' }, c[0]!)
        return { k: 'walrus', id: this.checkName(c[0]!), value: this.expr(c[2]!), loc }
      }
      case 'AwaitExpression': return this.unsupported('`await`', 'Remove `await`: code blocks do not wait for anything.', n)
      case 'YieldExpression': return this.unsupported('`yield`', this.yieldFix(), n)
      case 'Ellipsis': return this.unsupported('`...`', 'Write `pass` or a real value.', n)
    }
    return this.unsupported(`\`${this.text(n).slice(0, 20)}\``, 'Rewrite it with the expressions listed in docs/python.md.', n)
  }

  protected elements(c: SyntaxNode[]): Expr[] {
    const out: Expr[] = []
    for (let i = 0; i < c.length; i++) {
      const x = c[i]!
      if (x.name === ',') continue
      if (x.name === '*') { out.push({ k: 'star', e: this.expr(c[++i]!), loc: this.at(x) }); continue }
      out.push(this.expr(x))
    }
    return out
  }

  protected dictItems(c: SyntaxNode[]): DictItem[] {
    const out: DictItem[] = []
    let i = 0
    while (i < c.length) {
      const x = c[i]!
      if (x.name === ',') { i++; continue }
      if (x.name === '**') { out.push({ spread: this.expr(c[i + 1]!) }); i += 2; continue }
      out.push({ key: this.expr(x), value: this.expr(c[i + 2]!) })
      i += 3
    }
    return out
  }

  protected comprehension(kind: 'list' | 'set' | 'dict' | 'gen', c: SyntaxNode[], loc: Loc): Expr {
    if (c[0]!.name === '*' || c[0]!.name === '**') this.refuse('PY_SYNTAX', { detail: 'iterable unpacking cannot be used in comprehension', fix: 'Remove the `*`.' }, c[0]!)
    const forAt = c.findIndex((x) => x.name === 'for' || x.name === 'async')
    const head = c.slice(0, forAt)
    let elt: Expr, value: Expr | null = null
    if (kind === 'dict') { elt = this.expr(head[0]!); value = this.expr(head[2]!) } else elt = this.expr(head[0]!)
    return { k: 'comp', kind, elt, value, gens: this.clauses(c.slice(forAt)), loc }
  }

  /** Flattened `for ... in ... if ...` clauses. */
  protected clauses(c: SyntaxNode[]): Gen[] {
    const gens: Gen[] = []
    let i = 0
    while (i < c.length) {
      const x = c[i]!
      if (x.name === 'async') this.unsupported('`async for`', 'Use a plain comprehension.', x)
      if (x.name === 'for') {
        const inAt = c.findIndex((y, j) => j > i && y.name === 'in')
        const target = this.targetList(c.slice(i + 1, inAt), x)
        const iter = this.expr(c[inAt + 1]!)
        gens.push({ target, iter, ifs: [] })
        i = inAt + 2
      } else if (x.name === 'if') {
        gens[gens.length - 1]!.ifs.push(this.expr(c[i + 1]!))
        i += 2
      } else this.refuse('PY_SYNTAX', { detail: 'Generator expression must be parenthesized', fix: 'Wrap the generator in parentheses: `f((x for x in xs), key=len)`.' }, x)
    }
    return gens
  }

  protected isBoolOp(n: SyntaxNode): boolean {
    if (n.name !== 'BinaryExpression') return false
    const c = kids(n)
    return c.length === 3 && (c[1]!.name === 'and' || c[1]!.name === 'or' || this.text(c[1]!) === 'and' || this.text(c[1]!) === 'or')
  }

  /** `not` applied to the leftmost operand of an unparenthesized `and`/`or` tree. */
  protected notLeftmost(n: SyntaxNode, loc: Loc): Expr {
    const [l, op, r] = kids(n) as [SyntaxNode, SyntaxNode, SyntaxNode]
    const left: Expr = this.isBoolOp(l) ? this.notLeftmost(l, loc) : { k: 'unary', op: 'not', e: this.expr(l), loc }
    return { k: 'bool', op: this.text(op) as 'and' | 'or', l: left, r: this.expr(r), loc }
  }

  protected binary(n: SyntaxNode, c: SyntaxNode[], loc: Loc): Expr {
    const opNodes = c.slice(1, -1)
    const op = opNodes.map((x) => this.text(x)).join(' ')
    const right = c[c.length - 1]!
    if (op === 'and' || op === 'or') return { k: 'bool', op, l: this.expr(c[0]!), r: this.expr(right), loc }
    if (CMP_OPS.has(op)) {
      // a < b < c is one chain: flatten left-nested comparisons that were not parenthesized.
      const left = c[0]!
      const l = this.expr(left)
      if (left.name === 'BinaryExpression' && l.k === 'cmp') return { k: 'cmp', ops: [...l.ops, op === '<>' ? '!=' : op], xs: [...l.xs, this.expr(right)], loc }
      if (op === '<>') this.refuse('PY_SYNTAX', { detail: '`<>` is not Python 3', fix: 'Write `!=`.' }, opNodes[0]!)
      return { k: 'cmp', ops: [op], xs: [l, this.expr(right)], loc }
    }
    // `a @ b` is the program's own classes' `__matmul__` (extended); no builtin type defines it.
    if (op === '@' && !this.r.extended) throw this.r.extendedOnly('The `@` operator', 'Multiply element by element with a comprehension.', opNodes[0]!.from)
    void n
    return { k: 'bin', op, l: this.expr(c[0]!), r: this.expr(right), loc }
  }

  protected subscript(c: SyntaxNode[], n: SyntaxNode): Expr {
    const groups: SyntaxNode[][] = [[]]
    for (const x of c) {
      if (x.name === ',') groups.push([])
      else groups[groups.length - 1]!.push(x)
    }
    if (groups[groups.length - 1]!.length === 0 && groups.length > 1) groups.pop()
    const items = groups.map((g) => {
      if (!g.some((x) => x.name === ':')) return this.expr(g[0]!)
      const parts: Array<Expr | null> = [null]
      for (const x of g) {
        if (x.name === ':') parts.push(null)
        else parts[parts.length - 1] = this.expr(x)
      }
      return { k: 'slice', lo: parts[0] ?? null, hi: parts[1] ?? null, step: parts[2] ?? null, loc: this.at(g[0]!) } as Expr
    })
    if (items.length === 1 && !c.some((x) => x.name === ',')) return items[0]!
    if (items.some((x) => x.k === 'slice')) this.unsupported('Multi-dimensional slices', 'Slice one level at a time: `rows[a:b]`, then each row.', n)
    return { k: 'tuple', elts: items, loc: items[0]!.loc }
  }

  protected call(fnNode: SyntaxNode, argList: SyntaxNode, loc: Loc): Expr {
    const fn = this.expr(fnNode)
    const c = kids(argList).slice(1, -1)
    const args: Expr[] = []
    const kw: Keyword[] = []
    const forAt = c.findIndex((x) => x.name === 'for' || x.name === 'async')
    if (forAt >= 0) {
      // A bare generator argument: its `for` targets may hold commas, so it is the whole list.
      if (c.slice(0, forAt).some((x) => x.name === ',')) this.refuse('PY_SYNTAX', { detail: 'Generator expression must be parenthesized', fix: 'Wrap the generator in parentheses: `f(a, (x for x in xs))`.' }, c[0]!)
      args.push({ k: 'comp', kind: 'gen', elt: this.expr(c[0]!), value: null, gens: this.clauses(c.slice(forAt)), loc: this.at(c[0]!) })
      return { k: 'call', fn, args, kw, loc }
    }
    const groups: SyntaxNode[][] = [[]]
    for (const x of c) {
      if (x.name === ',') groups.push([])
      else groups[groups.length - 1]!.push(x)
    }
    for (const g of groups) {
      if (g.length === 0) continue
      const first = g[0]!
      if (first.name === '**') { kw.push({ name: null, value: this.expr(g[1]!), loc: this.at(first) }); continue }
      if (first.name === '*') {
        if (kw.length) this.refuse('PY_SYNTAX', { detail: 'iterable argument unpacking follows keyword argument unpacking', fix: 'Put `*args` before keyword arguments.' }, first)
        args.push({ k: 'star', e: this.expr(g[1]!), loc: this.at(first) })
        continue
      }
      if (g[1]?.name === 'AssignOp') {
        if (this.text(g[1]!) === ':=') { args.push({ k: 'walrus', id: this.checkName(first), value: this.expr(g[2]!), loc: this.at(first) }); continue }
        if (first.name !== 'VariableName') this.refuse('PY_SYNTAX', { detail: 'expression cannot contain assignment', fix: 'Write `name=value` with a plain name.' }, first)
        kw.push({ name: this.text(first), value: this.expr(g[2]!), loc: this.at(first) })
        continue
      }
      if (kw.length) this.refuse('PY_SYNTAX', { detail: 'positional argument follows keyword argument', fix: 'Put positional arguments first.' }, first)
      args.push(this.expr(first))
    }
    return { k: 'call', fn, args, kw, loc }
  }


  protected params(c: SyntaxNode[], at: SyntaxNode): Param[] {
    const out: Param[] = []
    let i = 0
    let kwonly = false
    while (i < c.length) {
      const x = c[i]!
      if (x.name === ',') { i++; continue }
      let kind: Param['kind']
      if (x.name === '*' || x.name === '**' || x.name === '/') {
        // `*args`, `**kwargs` and keyword-only parameters (extended profile).
        if (x.name === '/' || !this.r.extended) {
          const fix = 'Take a list or dict parameter instead: `def f(items): ...` called as `f([a, b])`.'
          if (x.name !== '/' && !this.r.extended) throw this.r.extendedOnly(`\`${x.name}\` parameters`, fix, x.from)
          this.unsupported(`\`${x.name}\` parameters`, x.name === '/' ? 'Remove the `/`: the parameters can be passed by name too.' : fix, x)
        }
        if (out.some((p) => p.kind === 'kwstar')) this.refuse('PY_SYNTAX', { detail: 'arguments cannot follow var-keyword argument', fix: 'Put `**kwargs` last.' }, x)
        i++
        if (x.name === '*' && c[i]?.name !== 'VariableName') {
          if (kwonly) this.refuse('PY_SYNTAX', { detail: '* argument may appear only once', fix: 'Keep one `*`.' }, x)
          kwonly = true
          continue
        }
        if (x.name === '*' && kwonly) this.refuse('PY_SYNTAX', { detail: '* argument may appear only once', fix: 'Keep one `*`.' }, x)
        kind = x.name === '*' ? 'star' : 'kwstar'
        if (kind === 'star') kwonly = true
      } else if (kwonly) kind = 'kwonly'
      const v = c[i]
      if (v?.name !== 'VariableName') this.refuse('PY_SYNTAX', { detail: `unexpected \`${this.text(v ?? x)}\` in parameters`, fix: 'Parameters are names, optionally with `= default`.' }, v ?? x)
      const name = this.checkName(v!)
      i++
      if (c[i]?.name === 'TypeDef') i++
      let dflt: Expr | null = null
      if (c[i]?.name === 'AssignOp') {
        if (kind === 'star' || kind === 'kwstar') this.refuse('PY_SYNTAX', { detail: 'var-positional and var-keyword arguments cannot have default values', fix: 'Remove the `= ...`.' }, c[i]!)
        dflt = this.expr(c[i + 1]!); i += 2
      }
      if (out.some((p) => p.name === name)) this.refuse('PY_SYNTAX', { detail: `duplicate argument '${name}'`, fix: 'Give every parameter its own name.' }, v!)
      if (!kind && !dflt && out.some((p) => p.dflt)) this.refuse('PY_SYNTAX', { detail: 'non-default argument follows default argument', fix: 'Put parameters with defaults last.' }, v!)
      out.push(kind ? { name, dflt, kind } : { name, dflt })
    }
    void at
    return out
  }
}

/** The attribute hooks a program reaches through `super()` (and, but for `__getattr__`, through `object`). */
const ATTR_HOOKS: ReadonlySet<string> = new Set(['__getattribute__', '__getattr__', '__setattr__', '__delattr__'])
const CMP_OPS = new Set(['<', '>', '==', '>=', '<=', '!=', '<>', 'in', 'not in', 'is', 'is not'])

function describe(e: Expr): string {
  switch (e.k) {
    case 'call': return 'a function call'
    case 'const': case 'int': case 'float': case 'fstr': return 'a literal'
    case 'comp': return 'a comprehension'
    case 'dict': case 'set': return `a ${e.k} display`
    default: return 'this expression'
  }
}
