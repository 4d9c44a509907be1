/**
 * Statements to the tree: the dispatch over every statement kind, blocks,
 * assignments, `if`, `try`, `with` and `import`; refusals for the rest.
 */
import type { SyntaxNode } from '@lezer/common'
import type { Expr, Handler, ImportName, Loc, Stmt } from '../ir.ts'
import { CONTRACT_IMPORT_FIX, FORBIDDEN_NAMES } from '../refuse.ts'
import { MODULES } from '../modules.ts'
import { DefinitionParser } from './definitions.ts'
import { kids } from './lezer.ts'
import { hoistableYields } from './yields.ts'

/** The expression inside parentheses (`(yield)`), else the node itself. */
const unparen = (n: SyntaxNode): SyntaxNode => {
  const c = n.name === 'ParenthesizedExpression' ? kids(n) : []
  return c.length === 3 && c[1]!.name === 'YieldExpression' ? c[1]! : n
}

/** What `x = yield` assigns: the value the generator was resumed with (`send(v)`; None for `next`). */
const sent = (loc: Loc): Expr => ({ k: 'rt', fn: 'gsent', args: [], loc })

/**
 * Branches one `if` may chain. Each `elif` nests the next in the program's AST: a VM with the default
 * limits runs ~500 of them (AST_TOO_DEEP past that; a host may raise `maxAstDepth`), and beyond this
 * bound the passes after the parser would walk deeper than a host stack goes.
 */
const MAX_ELIF_CHAIN = 1_000

export abstract class StatementParser extends DefinitionParser {

  protected statements(nodes: SyntaxNode[]): Stmt[] {
    const out: Stmt[] = []
    for (const n of nodes) this.statement(n, out)
    return out
  }

  protected body(n: SyntaxNode | undefined): Stmt[] {
    if (!n || n.name !== 'Body') throw this.r.error('PY_SYNTAX', { detail: 'expected a block', fix: 'Write `:` and an indented block.' }, n ? n.from : this.src.length)
    return this.statements(kids(n).filter((c) => c.name !== ':'))
  }

  protected statement(n: SyntaxNode, out: Stmt[]): void {
    const loc = this.at(n)
    const c = kids(n)
    switch (n.name) {
      case 'StatementGroup':
        for (const s of c) if (s.name !== ';') this.statement(s, out)
        return
      case 'ExpressionStatement': {
        this.hoistYields(c, loc, out)
        const e = this.exprList(c, n)
        out.push({ k: 'expr', e, loc })
        return
      }
      case 'AssignStatement': {
        // `x = yield v` (extended): the yield point, then the value `send()` gave (lower-generator.ts).
        // `x = (yield v)` too: the parentheses CPython's docs write around it.
        const last = unparen(c[c.length - 1]!)
        if (last.name === 'YieldExpression' && c[c.length - 2]?.name === 'AssignOp') {
          this.yieldPoint(last, kids(last), loc, out)
          return void out.push(this.assign(n, c, loc, sent(loc)))
        }
        // Python runs the value first, then the targets; an annotation is not run.
        const cut = c.map((x) => x.name).lastIndexOf('AssignOp')
        this.hoistYields([...c.slice(cut + 1), ...c.slice(0, cut).filter((x) => x.name !== 'AssignOp' && x.name !== 'TypeDef')], loc, out)
        return void out.push(this.assign(n, c, loc))
      }
      case 'UpdateStatement': {
        const op = c.find((x) => x.name === 'UpdateOp')!
        if (this.text(op) === '@=' && !this.r.extended) throw this.r.extendedOnly('The `@=` operator', 'Multiply element by element with a comprehension.', op.from)
        const target = this.expr(c[0]!)
        this.checkTarget(target, c[0]!, false)
        const rhs = c.slice(c.indexOf(op) + 1).map(unparen)
        if (rhs.length === 1 && rhs[0]!.name === 'YieldExpression') this.yieldPoint(rhs[0]!, kids(rhs[0]!), loc, out)
        else this.hoistYields([c[0]!, ...rhs], loc, out)
        const value = rhs.length === 1 && rhs[0]!.name === 'YieldExpression' ? sent(loc) : this.exprList(rhs, n)
        out.push({ k: 'aug', target, op: this.text(op).slice(0, -1), value, loc })
        return
      }
      case 'PassStatement': return void out.push({ k: 'pass', loc })
      case 'BreakStatement': return void out.push({ k: 'break', loc })
      case 'ContinueStatement': return void out.push({ k: 'continue', loc })
      case 'ReturnStatement': {
        const rest = c.slice(1)
        this.hoistYields(rest, loc, out)
        out.push({ k: 'return', value: rest.length ? this.exprList(rest, n) : null, loc })
        return
      }
      case 'RaiseStatement': {
        const rest = c.slice(1)
        // `raise E from cause`: the cause is only shown by a traceback (`__cause__` is out of reach), so E is raised alone.
        const from = rest.findIndex((x) => x.name === 'from')
        const exc = from >= 0 ? rest.slice(0, from) : rest
        if (exc.some((x) => x.name === ',')) this.unsupported('Python 2 `raise E, v`', 'Write `raise E(v)`.', n)
        out.push({ k: 'raise', exc: exc.length ? this.expr(exc[0]!) : null, loc })
        return
      }
      case 'AssertStatement': {
        const parts = c.slice(1).filter((x) => x.name !== ',')
        out.push({ k: 'assert', test: this.expr(parts[0]!), msg: parts[1] ? this.expr(parts[1]) : null, loc })
        return
      }
      case 'DeleteStatement': {
        const targets = c.slice(1).filter((x) => x.name !== ',').map((x) => {
          const t = this.expr(x)
          if (t.k !== 'name' && t.k !== 'sub' && !(t.k === 'attr' && this.r.extended)) this.refuse('PY_TARGET', { name: 'this expression with `del`' }, x)
          return t
        })
        out.push({ k: 'del', targets, loc })
        return
      }
      case 'IfStatement': return void out.push(this.ifStatement(c, loc))
      case 'WhileStatement': {
        const test = this.expr(c[1]!)
        const body = this.body(c[2])
        const orelse = c[3]?.name === 'else' ? this.body(c[4]) : []
        out.push({ k: 'while', test, body, orelse, loc })
        return
      }
      case 'ForStatement': {
        if (c[0]!.name === 'async') this.unsupported('`async for`', 'Use a plain `for` loop.', c[0]!)
        const inAt = c.findIndex((x) => x.name === 'in')
        const bodyAt = c.findIndex((x) => x.name === 'Body')
        const target = this.targetList(c.slice(1, inAt), n)
        const iter = this.exprList(c.slice(inAt + 1, bodyAt), n)
        const body = this.body(c[bodyAt])
        const orelse = c[bodyAt + 1]?.name === 'else' ? this.body(c[bodyAt + 2]) : []
        out.push({ k: 'for', target, iter, body, orelse, loc })
        return
      }
      case 'TryStatement': return void out.push(this.tryStatement(c, loc))
      case 'FunctionDefinition': return void out.push(this.def(n, c, loc))
      case 'ImportStatement':
      {
        const names = this.importNames(n, c)
        if (!this.r.extended) {
          if (names.length && names.every((x) => Object.prototype.hasOwnProperty.call(MODULES, x.module))) {
            throw this.r.extendedOnly(`\`import ${names[0]!.module}\``, 'Code blocks have no modules; use the allowed builtins and str/list/dict methods.', n.from)
          }
          return this.refuse('PY_IMPORT', { fix: CONTRACT_IMPORT_FIX }, n)
        }
        return void out.push({ k: 'import', names, loc })
      }
      case 'ScopeStatement': {
        const kw = this.text(c[0]!)
        if (kw === 'global') return this.unsupported('`global`', 'Code blocks have one function scope: assign the variable directly, or return new values from helpers.', n)
        const fix = 'Return the new value from the inner function and assign it in the outer one.'
        if (!this.r.extended) throw this.r.extendedOnly('`nonlocal`', fix, n.from)
        return void out.push({ k: 'nonlocal', names: c.filter((x) => x.name === 'VariableName').map((x) => this.checkName(x)), loc })
      }
      case 'YieldStatement': return this.yieldPoint(n, c, loc, out)
      case 'PrintStatement': return this.refuse('PY_FORBIDDEN', { name: 'print', fix: FORBIDDEN_NAMES.print! }, n)
      case 'WithStatement':
        if (!this.r.extended) throw this.r.extendedOnly('`with`', 'Code blocks have no files, locks or other resources: write the body without `with`; for setup and cleanup, call them around a `try`/`finally`.', n.from)
        return void out.push(...this.withStatement(c, loc))
      case 'ClassDefinition':
        if (!this.r.extended) throw this.r.extendedOnly('`class`', 'Use dicts for records and `def` helpers for behaviour.', n.from)
        return void out.push(this.programClass(this.classDef(n, c, [], loc)))
      case 'DecoratedStatement': {
        const target = c[c.length - 1]!
        if (target.name === 'FunctionDefinition' && this.r.extended) {
          const decorators = c.filter((x) => x.name === 'Decorator')
          const d = this.def(target, kids(target), loc) as Extract<Stmt, { k: 'def' }>
          if (decorators.length !== 1) this.unsupported('Several decorators', 'Keep one `@lru_cache` (or `@cache`) and call other helpers directly.', decorators[1] ?? n)
          return void out.push({ ...d, memo: this.decorator(decorators[0]!, true) })
        }
        if (target.name === 'ClassDefinition' && this.r.extended) {
          // A class decorator may take arguments (`@dataclass(order=True)`; classes.ts checks them).
          const decorators = c.filter((x) => x.name === 'Decorator').map((d) => this.decorator(d, true))
          const cls = this.programClass(this.classDef(target, kids(target), decorators, loc))
          const named = (d: Expr): boolean => (d.k === 'name' && d.id === 'dataclass') || (d.k === 'attr' && d.name === 'dataclass') || (d.k === 'call' && named(d.fn))
          if (cls.k === 'class' && decorators.some(named)) {
            const base = cls.bases[0]?.k === 'name' ? this.matchArgs.get(cls.bases[0].id) ?? [] : []
            const own = cls.items.flatMap((i) => (i.kind === 'attr' && i.annotated ? [i.name] : []))
            this.matchArgs.set(cls.name, [...base, ...own.filter((f) => !base.includes(f))])
          }
          return void out.push(cls)
        }
        return this.unsupported('Decorators', this.r.extended
          ? 'Only `@dataclass` on a class is accepted; remove the decorator and call the helper directly.'
          : 'Remove the decorator and call the helper directly.', n)
      }
      case 'MatchStatement':
        if (!this.r.extended) throw this.r.extendedOnly('`match`', 'Use `if`/`elif` chains.', n.from)
        return void out.push(...this.matchStatement(c, loc))
      case 'TypeDefinition': return this.unsupported('`type` aliases', 'Remove the type alias; annotations are not needed.', n)
      case 'Comment': return
    }
    return this.unsupported(`\`${n.name}\``, 'Rewrite it with the statements listed in docs/python.md.', n)
  }

  /**
   * `with m as t: body` over the program's own context managers (classes with `__enter__`/`__exit__`):
   * `__enter__` before, `__exit__(type, exc, None)` when the body raises (a true result swallows the
   * exception), `__exit__(None, None, None)` however else the body ends (`return`, `break`, its end).
   */
  protected withStatement(c: SyntaxNode[], loc: Loc): Stmt[] {
    const bodyAt = c.findIndex((x) => x.name === 'Body')
    const items: SyntaxNode[][] = [[]]
    for (const x of c.slice(1, bodyAt)) {
      if (x.name === ',') items.push([])
      else items[items.length - 1]!.push(x)
    }
    let body = this.body(c[bodyAt])
    for (const item of items.reverse()) {
      const k = ++this.matchCount
      const mgr = `with$${k}`, exc = `exc$${k}`, ok = `ok$${k}`
      const at = this.at(item[0]!)
      const name = (id: string): Expr => ({ k: 'name', id, loc: at })
      const method = (m: string, args: Expr[]): Expr => ({ k: 'call', fn: { k: 'attr', obj: name(mgr), name: m, loc: at }, args, kw: [], loc: at })
      const none: Expr = { k: 'const', v: null, loc: at }
      const asAt = item.findIndex((x) => x.name === 'as')
      const enter = method('__enter__', [])
      const head: Stmt[] = [
        { k: 'assign', targets: [name(mgr)], value: this.expr(item[0]!), loc: at },
        asAt >= 0 ? { k: 'assign', targets: [this.targetList(item.slice(asAt + 1), item[asAt]!)], value: enter, loc: at } : { k: 'expr', e: enter, loc: at },
        { k: 'assign', targets: [name(ok)], value: { k: 'const', v: true, loc: at }, loc: at },
      ]
      const handler: Stmt[] = [
        { k: 'assign', targets: [name(ok)], value: { k: 'const', v: false, loc: at }, loc: at },
        { k: 'if', test: { k: 'unary', op: 'not', e: method('__exit__', [{ k: 'call', fn: name('type'), args: [name(exc)], kw: [], loc: at }, name(exc), none]), loc: at }, body: [{ k: 'raise', exc: null, loc: at }], orelse: [], loc: at },
      ]
      body = [...head, {
        k: 'try', body, handlers: [{ type: name('BaseException'), name: exc, body: handler, loc: at }], orelse: [],
        finalbody: [{ k: 'if', test: name(ok), body: [{ k: 'expr', e: method('__exit__', [none, none, none]), loc: at }], orelse: [], loc: at }], loc: at,
      }]
    }
    void loc
    return body
  }


  private programClass(cls: Stmt): Stmt {
    if (cls.k === 'class') this.programClasses.add(cls.name)
    return cls
  }

  protected importNames(n: SyntaxNode, c: SyntaxNode[]): ImportName[] {
    const out: ImportName[] = []
    const dotted = (from: number): [string, number] => {
      let name = this.text(c[from]!)
      let i = from + 1
      while (c[i]?.name === '.') { name += '.' + this.text(c[i + 1]!); i += 2 }
      return [name, i]
    }
    if (c[0]!.name === 'from') {
      if (c[1]!.name === '.') this.unsupported('Relative imports', 'Import one of the modules listed in docs/python.md by name.', c[1]!)
      const [module, after] = dotted(1)
      for (let i = after + 1; i < c.length; i++) {
        const x = c[i]!
        if (x.name === '*') this.unsupported('`from ... import *`', `Name what you use: \`from ${module} import name\`.`, x)
        if (x.name !== 'VariableName') continue
        let alias = this.text(x)
        if (c[i + 1]?.name === 'as') { alias = this.text(c[i + 2]!); i += 2 }
        out.push({ module, name: this.text(x), alias, loc: this.at(x) })
      }
      return out
    }
    for (let i = 1; i < c.length; i++) {
      if (c[i]!.name !== 'VariableName') continue
      const at = this.at(c[i]!)
      const [module, after] = dotted(i)
      let alias = module
      i = after - 1
      if (c[after]?.name === 'as') { alias = this.text(c[after + 1]!); i = after + 1 }
      else if (module.includes('.')) this.unsupported('Dotted imports', `Write \`import ${module} as name\`.`, n)
      out.push({ module, name: null, alias, loc: at })
    }
    return out
  }

  /**
   * A yield point (`yield v`, `yield from g`, a bare `yield`), as a statement of its own: the
   * generator's lowering (lower-generator.ts) suspends there.
   */
  protected yieldPoint(n: SyntaxNode, c: SyntaxNode[], loc: Loc, out: Stmt[]): void {
    if (!this.r.extended) throw this.r.extendedOnly('`yield`', 'Build a list and return it instead of yielding.', n.from)
    if (!this.yields.length) this.unsupported('`yield` in the block itself', 'A block returns a dict: put the `yield` in a `def` helper and `return {"items": list(helper())}`.', n)
    this.yields[this.yields.length - 1] = true
    const from = c[1]?.name === 'from'
    // A bare `yield` is an empty error node after the keyword (parse.ts lets it through).
    const rest = c.slice(from ? 2 : 1).filter((x) => !x.type.isError)
    const value: Expr = rest.length ? this.exprList(rest, n) : { k: 'const', v: null, loc }
    out.push({ k: 'expr', e: { k: 'rt', fn: from ? 'yieldfrom' : 'yield', args: [value], loc }, loc })
  }

  /**
   * Yields inside the statement's expressions (`parts`, in the order Python runs them) become yield
   * points before it, each value kept in a variable the expression reads (parse/yields.ts says when).
   */
  protected hoistYields(parts: SyntaxNode[], loc: Loc, out: Stmt[]): void {
    const ys = hoistableYields(parts)
    if (!ys) return
    for (const y of ys) {
      this.yieldPoint(y, kids(y), loc, out)
      const id = `yield$${this.hoisted.size + 1}`
      this.hoisted.set(y.from, id)
      out.push({ k: 'assign', targets: [{ k: 'name', id, loc }], value: sent(loc), loc })
    }
  }

  /** `value` given: the assignment of a `yield` expression's value (the last group is the yield). */
  protected assign(n: SyntaxNode, c: SyntaxNode[], loc: Loc, value0?: Expr): Stmt {
    const groups: SyntaxNode[][] = [[]]
    let annotated = false
    for (const x of c) {
      if (x.name === 'AssignOp') groups.push([])
      else if (x.name === 'TypeDef') annotated = true
      else groups[groups.length - 1]!.push(x)
    }
    if (groups.length === 1) {
      // `x: int` alone declares nothing at run time.
      if (annotated) return { k: 'pass', loc }
      return this.refuse('PY_SYNTAX', { detail: 'incomplete assignment', fix: 'Write `name = value`.' }, n)
    }
    if (groups.slice(0, value0 ? -1 : undefined).some((g) => g.some((x) => x.name === 'YieldExpression'))) this.unsupported('`yield`', this.yieldFix(), n)
    const value = value0 ?? this.exprList(groups[groups.length - 1]!, n)
    const targets = groups.slice(0, -1).map((g) => this.targetList(g, n))
    // `f = lambda x: ...` names a function: it is a def (rebinding f elsewhere is refused).
    if (targets.length === 1 && targets[0]!.k === 'name' && value.k === 'lambda') {
      return { k: 'def', name: targets[0]!.id, params: value.params.map((name, i) => ({ name, dflt: value.defaults[i] ?? null })), body: [{ k: 'return', value: value.body, loc: value.loc }], loc, lambda: true }
    }
    return { k: 'assign', targets, value, loc }
  }

  /**
   * if test Body (elif test Body)* (else Body)?, each `elif` an `if` in the `else` of the one before.
   * The links are read in a loop: a chain of k was k host frames, each copying the rest of the
   * children (k²: 4,000 elifs took 2.8 s, 16,000 a minute and then a RangeError).
   */
  protected ifStatement(c: SyntaxNode[], loc: Loc): Stmt {
    const first: Extract<Stmt, { k: 'if' }> = { k: 'if', test: this.expr(c[1]!), body: this.body(c[2]), orelse: [], loc }
    let last = first
    let i = 3
    for (let links = 1; c[i]?.name === 'elif'; i += 3) {
      if (++links > MAX_ELIF_CHAIN) {
        this.unsupported(`An \`if\` with more than ${MAX_ELIF_CHAIN.toLocaleString('en')} branches`, 'Look the value up in a dict instead (`names = {0: "zero", 1: "one"}` then `names.get(x, "other")`), or split the chain into functions.', c[i]!)
      }
      const link: Extract<Stmt, { k: 'if' }> = { k: 'if', test: this.expr(c[i + 1]!), body: this.body(c[i + 2]), orelse: [], loc: this.at(c[i]!) }
      last.orelse = [link]
      last = link
    }
    if (i < c.length) last.orelse = this.body(c[i + 1])
    return first
  }

  protected tryStatement(c: SyntaxNode[], loc: Loc): Stmt {
    const body = this.body(c[1])
    const handlers: Handler[] = []
    let orelse: Stmt[] = []
    let finalbody: Stmt[] = []
    let i = 2
    while (i < c.length) {
      const kw = c[i]!
      if (kw.name === 'except') {
        const hloc = this.at(kw)
        let j = i + 1
        if (c[j]?.name === '*') this.unsupported('`except*`', 'Use a plain `except`.', c[j]!)
        let type: Expr | null = null
        let name: string | null = null
        if (c[j] && c[j]!.name !== 'Body') { type = this.expr(c[j]!); j++ }
        if (c[j]?.name === 'as' || c[j]?.name === ',') { name = this.text(c[j + 1]!); j += 2 }
        handlers.push({ type, name, body: this.body(c[j]), loc: hloc })
        i = j + 1
      } else if (kw.name === 'else') { orelse = this.body(c[i + 1]); i += 2 } else if (kw.name === 'finally') { finalbody = this.body(c[i + 1]); i += 2 } else i++
    }
    return { k: 'try', body, handlers, orelse, finalbody, loc }
  }
}
