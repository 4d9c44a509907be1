/**
 * Python source to the subset's tree (ir.ts), with @lezer/python as the
 * parser. Lezer recovers from errors, so every error node becomes a syntax
 * refusal; constructs outside the subset are refused here, located, with a hint.
 */
import { pythonParser } from './parser.ts'
import type { SyntaxNode } from '@lezer/common'
import type { ClassItem, DictItem, Expr, FPart, Gen, Handler, ImportName, Keyword, Loc, Param, Stmt } from './ir.ts'
import { FORBIDDEN_NAMES, type Refuser } from './refuse.ts'
import { MODULES } from './modules.ts'

const kids = (n: SyntaxNode): SyntaxNode[] => {
  const out: SyntaxNode[] = []
  for (let c = n.firstChild; c; c = c.nextSibling) out.push(c)
  return out
}

const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',', ':', ';', '.'])

export class PyParser {
  constructor(private readonly src: string, private readonly r: Refuser) {}

  /** The fields of the dataclasses parsed so far: their positional sub-patterns (`__match_args__`). */
  private readonly matchArgs = new Map<string, string[]>()
  private matchCount = 0

  /** One entry per `def` being parsed: whether its body yields (extended profile: an eager generator). */
  private readonly yields: boolean[] = []

  private text(n: SyntaxNode): string {
    return this.src.slice(n.from, n.to)
  }

  private at(n: SyntaxNode): Loc {
    return this.r.loc(n.from)
  }

  private refuse(name: Parameters<Refuser['error']>[0], params: Record<string, string>, n: SyntaxNode | number): never {
    throw this.r.error(name, params, typeof n === 'number' ? n : n.from)
  }

  private unsupported(what: string, fix: string, n: SyntaxNode): never {
    return this.refuse('PY_UNSUPPORTED', { name: what, fix }, n)
  }

  parseScript(): Stmt[] {
    const tree = pythonParser().parse(this.src)
    let bad: SyntaxNode | null = null
    tree.iterate({
      enter: (ref) => {
        if (bad) return false
        if (ref.type.isError && !emptyPatternGroup(ref.node)) { bad = ref.node; return false }
        return undefined
      },
    })
    if (bad) this.syntaxError(bad)
    return this.statements(kids(tree.topNode))
  }

  private syntaxError(n: SyntaxNode): never {
    const near = this.src.slice(n.from, Math.max(n.to, n.from + 1)).split('\n')[0]!.trim()
    const parentName = n.parent?.name ?? ''
    let fix = 'Check the indentation, colons, brackets and quotes near the marker.'
    const lineStart = this.src.lastIndexOf('\n', n.from - 1) + 1
    const before = this.src.slice(lineStart, n.from)
    const header = /^\s*(if|elif|else|for|while|def|try|except|finally|with|class)\b/.exec(before)
    if (header && !before.trimEnd().endsWith(':')) fix = `Add \`:\` at the end of the \`${header[1]}\` line.`
    else if (/Body|Statement/.test(parentName) && near === '') fix = 'A block needs an indented body; write `pass` for an empty one.'
    return this.refuse('PY_SYNTAX', { detail: near ? `unexpected \`${near.slice(0, 30)}\`` : 'unexpected end of input', fix }, n.from)
  }

  // --- statements -----------------------------------------------------------------

  private statements(nodes: SyntaxNode[]): Stmt[] {
    const out: Stmt[] = []
    for (const n of nodes) this.statement(n, out)
    return out
  }

  private body(n: SyntaxNode | undefined): Stmt[] {
    if (!n || n.name !== 'Body') throw this.r.error('PY_SYNTAX', { detail: 'expected a block', fix: 'Write `:` and an indented block.' }, n ? n.from : this.src.length)
    return this.statements(kids(n).filter((c) => c.name !== ':'))
  }

  private statement(n: SyntaxNode, out: Stmt[]): void {
    const loc = this.at(n)
    const c = kids(n)
    switch (n.name) {
      case 'StatementGroup':
        for (const s of c) if (s.name !== ';') this.statement(s, out)
        return
      case 'ExpressionStatement': {
        const e = this.exprList(c, n)
        out.push({ k: 'expr', e, loc })
        return
      }
      case 'AssignStatement': return void out.push(this.assign(n, c, loc))
      case 'UpdateStatement': {
        const op = c.find((x) => x.name === 'UpdateOp')!
        const target = this.expr(c[0]!)
        this.checkTarget(target, c[0]!, false)
        const value = this.exprList(c.slice(c.indexOf(op) + 1), n)
        out.push({ k: 'aug', target, op: this.text(op).slice(0, -1), value, loc })
        return
      }
      case 'PassStatement': return void out.push({ k: 'pass', loc })
      case 'BreakStatement': return void out.push({ k: 'break', loc })
      case 'ContinueStatement': return void out.push({ k: 'continue', loc })
      case 'ReturnStatement': {
        const rest = c.slice(1)
        out.push({ k: 'return', value: rest.length ? this.exprList(rest, n) : null, loc })
        return
      }
      case 'RaiseStatement': {
        const rest = c.slice(1)
        const from = rest.findIndex((x) => x.name === 'from')
        if (from >= 0) this.unsupported('`raise ... from ...`', 'Raise the exception alone: `raise ValueError("...")`.', rest[from]!)
        if (rest.some((x) => x.name === ',')) this.unsupported('Python 2 `raise E, v`', 'Write `raise E(v)`.', n)
        out.push({ k: 'raise', exc: rest.length ? this.expr(rest[0]!) : null, loc })
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
          return this.refuse('PY_IMPORT', {}, n)
        }
        return void out.push({ k: 'import', names, loc })
      }
      case 'ScopeStatement': {
        const kw = this.text(c[0]!)
        return this.unsupported(`\`${kw}\``, kw === 'global'
          ? 'Code blocks have one function scope: assign the variable directly, or return new values from helpers.'
          : 'Return the new value from the inner function and assign it in the outer one.', n)
      }
      case 'YieldStatement': {
        if (!this.r.extended) throw this.r.extendedOnly('`yield`', 'Build a list and return it instead of yielding.', n.from)
        if (!this.yields.length) this.unsupported('`yield` in the block itself', 'A block returns a dict: put the `yield` in a `def` helper and `return {"items": list(helper())}`.', n)
        this.yields[this.yields.length - 1] = true
        const from = c[1]?.name === 'from'
        const rest = c.slice(from ? 2 : 1)
        const value: Expr = rest.length ? this.exprList(rest, n) : { k: 'const', v: null, loc }
        const sink: Expr = { k: 'name', id: GEN_ITEMS, loc }
        out.push({ k: 'expr', e: { k: 'call', fn: { k: 'attr', obj: sink, name: from ? 'extend' : 'append', loc }, args: [value], kw: [] , loc }, loc })
        return
      }
      case 'PrintStatement': return this.refuse('PY_FORBIDDEN', { name: 'print', fix: FORBIDDEN_NAMES.print! }, n)
      case 'WithStatement':
        if (!this.r.extended) throw this.r.extendedOnly('`with`', 'Code blocks have no files, locks or other resources: write the body without `with`; for setup and cleanup, call them around a `try`/`finally`.', n.from)
        return void out.push(...this.withStatement(c, loc))
      case 'ClassDefinition':
        if (!this.r.extended) throw this.r.extendedOnly('`class`', 'Use dicts for records and `def` helpers for behaviour.', n.from)
        return void out.push(this.classDef(n, c, [], loc))
      case 'DecoratedStatement': {
        const target = c[c.length - 1]!
        if (target.name === 'FunctionDefinition' && this.r.extended) {
          const decorators = c.filter((x) => x.name === 'Decorator')
          const d = this.def(target, kids(target), loc) as Extract<Stmt, { k: 'def' }>
          if (decorators.length !== 1) this.unsupported('Several decorators', 'Keep one `@lru_cache` (or `@cache`) and call other helpers directly.', decorators[1] ?? n)
          return void out.push({ ...d, memo: this.decorator(decorators[0]!, true) })
        }
        if (target.name === 'ClassDefinition' && this.r.extended) {
          const decorators = c.filter((x) => x.name === 'Decorator').map((d) => this.decorator(d))
          const cls = this.classDef(target, kids(target), decorators, loc)
          if (cls.k === 'class' && decorators.some((d) => (d.k === 'name' && d.id === 'dataclass') || (d.k === 'attr' && d.name === 'dataclass'))) {
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
  private withStatement(c: SyntaxNode[], loc: Loc): Stmt[] {
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

  private yieldFix(): string {
    return this.r.extended
      ? 'A generator here only gives values (no `.send()`): write `yield value` as a statement.'
      : 'Build a list and return it instead of yielding.'
  }

  // --- match ------------------------------------------------------------------------

  /** `match s:` as `match$N = s` and an if/elif chain; captures bind with `:=` inside each test. */
  private matchStatement(c: SyntaxNode[], loc: Loc): Stmt[] {
    const bodyAt = c.findIndex((x) => x.name === 'MatchBody')
    const subject = this.exprList(c.slice(1, bodyAt), c[0]!)
    const sv = `match$${++this.matchCount}`
    const clauses = kids(c[bodyAt]!).filter((x) => x.name === 'MatchClause')
    let chain: Stmt[] = []
    for (const cl of clauses.reverse()) {
      const cc = kids(cl)
      const guard = cc.find((x) => x.name === 'Guard')
      const cloc = this.at(cl)
      let test = this.pattern(cc[1]!, { k: 'name', id: sv, loc: cloc })
      if (guard) test = and(test, this.expr(kids(guard)[1]!))
      chain = [{ k: 'if', test, body: this.body(cc.find((x) => x.name === 'Body')), orelse: chain, loc: cloc }]
    }
    return [{ k: 'assign', targets: [{ k: 'name', id: sv, loc }], value: subject, loc }, ...chain]
  }

  /** The test that `s` matches pattern `p` (binding its captures as it goes). */
  private pattern(p: SyntaxNode, s: Expr): Expr {
    const loc = this.at(p)
    const c = kids(p)
    const call = (fn: string, ...args: Expr[]): Expr => ({ k: 'call', fn: { k: 'name', id: fn, loc }, args, kw: [], loc })
    const T: Expr = { k: 'const', v: true, loc }
    switch (p.name) {
      case 'CapturePattern': {
        const id = this.text(c[0]!)
        if (id === '_') return T
        return { k: 'bool', op: 'or', l: { k: 'walrus', id: this.checkName(c[0]!), value: s, loc }, r: T, loc }
      }
      case 'LiteralPattern': {
        const v = c[0]!.name === 'ArithOp' ? { k: 'unary' as const, op: this.text(c[0]!), e: this.expr(c[1]!), loc } : this.expr(c[0]!)
        const isOp = v.k === 'const' && typeof v.v !== 'string'
        return { k: 'cmp', ops: [isOp ? 'is' : '=='], xs: [s, v], loc }
      }
      case 'AttributePattern': return { k: 'cmp', ops: ['=='], xs: [s, this.dotted(c)], loc }
      case 'OrPattern': {
        const alts = c.filter((x) => x.name !== 'LogicOp')
        const last = alts[alts.length - 1]!
        const or = (xs: SyntaxNode[]) => xs.map((x) => this.pattern(x, s)).reduce((a, b) => ({ k: 'bool', op: 'or', l: a, r: b, loc }))
        // @lezer/python reads `a | b as n` as `a | (b as n)`; Python's `as` takes the whole `a | b`.
        const lc = kids(last)
        if (last.name === 'AsPattern' && lc[lc.length - 1]!.name === 'VariableName') {
          return and(or([...alts.slice(0, -1), lc[0]!]), { k: 'bool', op: 'or', l: { k: 'walrus', id: this.checkName(lc[lc.length - 1]!), value: s, loc }, r: T, loc })
        }
        return or(alts)
      }
      case 'AsPattern': {
        const target = c[c.length - 1]!
        if (target.name !== 'VariableName') return this.pattern(target, s)
        return and(this.pattern(c[0]!, s), { k: 'bool', op: 'or', l: { k: 'walrus', id: this.checkName(target), value: s, loc }, r: T, loc })
      }
      case 'SequencePattern': {
        const items = c.filter((x) => x.name !== '(' && x.name !== ')' && x.name !== '[' && x.name !== ']' && x.name !== ',' && !emptyPatternGroup(x))
        if (c[0]!.name === '(' && items.length === 1 && !c.some((x) => x.name === ',')) return this.pattern(items[0]!, s)
        const star = items.findIndex((x) => x.name === 'StarPattern')
        const n = items.length
        const lenTest: Expr = { k: 'cmp', ops: [star < 0 ? '==' : '>='], xs: [call('len', s), { k: 'int', v: String(star < 0 ? n : n - 1), loc }], loc }
        let test = and(call('isinstance', s, { k: 'tuple', elts: [{ k: 'name', id: 'list', loc }, { k: 'name', id: 'tuple', loc }], loc }), lenTest)
        items.forEach((x, i) => {
          if (i === star) {
            const after = n - 1 - i
            const target = kids(x).find((y) => y.name === 'CapturePattern')
            if (!target || this.text(target) === '_') return
            const sl: Expr = { k: 'sub', obj: s, index: { k: 'slice', lo: { k: 'int', v: String(i), loc }, hi: after ? { k: 'int', v: String(-after), loc } : null, step: null, loc }, loc }
            test = and(test, this.pattern(target, call('list', sl)))
            return
          }
          const idx = star >= 0 && i > star ? -(n - i) : i
          test = and(test, this.pattern(x, { k: 'sub', obj: s, index: { k: 'int', v: String(idx), loc }, loc }))
        })
        return test
      }
      case 'MappingPattern': {
        let test: Expr = call('isinstance', s, { k: 'name', id: 'dict', loc })
        const inner = c.slice(1, -1).filter((x) => x.name !== ',')
        const keys: Expr[] = []
        for (let i = 0; i < inner.length; i++) {
          if (inner[i]!.name === '**') {
            const rest = inner[++i]!
            const kv = (id: string): Expr => ({ k: 'name', id, loc })
            const comp: Expr = { k: 'comp', kind: 'dict', elt: kv('k$'), value: kv('v$'), gens: [{ target: { k: 'tuple', elts: [kv('k$'), kv('v$')], loc }, iter: { k: 'call', fn: { k: 'attr', obj: s, name: 'items', loc }, args: [], kw: [], loc }, ifs: [{ k: 'cmp', ops: ['not in'], xs: [kv('k$'), { k: 'tuple', elts: keys, loc }], loc }] }], loc }
            test = and(test, this.pattern(rest, comp))
            continue
          }
          const key = inner[i]!.name === 'LiteralPattern' ? this.literalOf(inner[i]!) : this.dotted(kids(inner[i]!))
          keys.push(key)
          i++ // ':'
          const v = inner[++i]!
          test = and(test, and({ k: 'cmp', ops: ['in'], xs: [key, s], loc }, this.pattern(v, { k: 'sub', obj: s, index: key, loc })))
        }
        return test
      }
      case 'ClassPattern': {
        const cls = c[0]!.name === 'AttributePattern' ? this.dotted(kids(c[0]!)) : this.expr(c[0]!)
        const args = kids(c[1]!).filter((x) => x.name !== '(' && x.name !== ')' && x.name !== ',' && !emptyPatternGroup(x))
        let test = call('isinstance', s, cls)
        const positional = args.filter((x) => x.name !== 'KeywordPattern')
        const clsName = cls.k === 'name' ? cls.id : ''
        const fields = this.matchArgs.get(clsName)
        positional.forEach((x, i) => {
          if (SELF_MATCHING.has(clsName) && positional.length === 1) { test = and(test, this.pattern(x, s)); return }
          if (!fields || i >= fields.length) this.unsupported(`A positional sub-pattern of \`${this.text(c[0]!)}\``, 'Name the attribute: `case Point(x=0, y=y)` (positional sub-patterns work for @dataclass classes of the block and for int(), str(), ...).', x)
          test = and(test, this.pattern(x, { k: 'attr', obj: s, name: fields[i]!, loc }))
        })
        for (const x of args.filter((y) => y.name === 'KeywordPattern')) {
          const kc = kids(x)
          test = and(test, this.pattern(kc[kc.length - 1]!, { k: 'attr', obj: s, name: this.text(kc[0]!), loc: this.at(kc[0]!) }))
        }
        return test
      }
    }
    return this.unsupported(`The pattern \`${this.text(p).slice(0, 30)}\``, 'Use literal, capture, sequence, mapping, class and `|` patterns, or an `if` chain.', p)
  }

  private literalOf(p: SyntaxNode): Expr {
    const c = kids(p)
    return c[0]!.name === 'ArithOp' ? { k: 'unary', op: this.text(c[0]!), e: this.expr(c[1]!), loc: this.at(p) } : this.expr(c[0]!)
  }

  /** `a.b.c` in a pattern (AttributePattern children). */
  private dotted(c: SyntaxNode[]): Expr {
    let e: Expr = this.expr(c[0]!)
    for (let i = 1; i < c.length; i++) if (c[i]!.name !== '.') e = { k: 'attr', obj: e, name: this.text(c[i]!), loc: this.at(c[i]!) }
    return e
  }

  private decorator(d: SyntaxNode, args = false): Expr {
    const c = kids(d).filter((x) => x.name !== 'At' && x.name !== '@')
    let e = this.expr(c[0]!)
    for (let i = 1; i < c.length; i++) {
      if (c[i]!.name === '.') { e = { k: 'attr', obj: e, name: this.text(c[i + 1]!), loc: this.at(c[i + 1]!) }; i++ }
      else if (c[i]!.name === 'ArgList' && args) {
        const call = this.call(c[0]!, c[i]!, this.at(c[i]!))
        if (call.k === 'call') e = { ...call, fn: e }
      } else if (c[i]!.name === 'ArgList') this.unsupported('Decorator arguments', 'Write `@dataclass` without arguments (the generated `__init__`, `__repr__` and `__eq__` are the defaults).', c[i]!)
    }
    return e
  }

  /** `class Name(Base):` with methods and attributes (extended profile). */
  private classDef(n: SyntaxNode, c: SyntaxNode[], decorators: Expr[], loc: Loc): Stmt {
    const name = this.checkName(c.find((x) => x.name === 'VariableName')!)
    const bases: Expr[] = []
    const argList = c.find((x) => x.name === 'ArgList')
    if (argList) {
      for (const a of kids(argList)) {
        if (PUNCT.has(a.name)) continue
        if (a.name === 'AssignOp' || a.name === '*' || a.name === '**') this.unsupported('Class keywords and metaclasses', 'Name one base class: `class Name(Base):`.', a)
        bases.push(this.expr(a))
      }
    }
    if (bases.length > 1) this.unsupported('Multiple inheritance', 'Derive from one class and keep the other as an attribute.', argList!)
    const items: ClassItem[] = []
    const body = c.find((x) => x.name === 'Body')
    if (!body) this.refuse('PY_SYNTAX', { detail: 'expected a block', fix: 'Write `:` and an indented block.' }, n)
    const members = (nodes: SyntaxNode[]) => {
      for (const m of nodes) {
        const mloc = this.at(m)
        switch (m.name) {
          case ':': case 'Comment': case 'PassStatement': continue
          case 'StatementGroup': members(kids(m).filter((x) => x.name !== ';')); continue
          case 'ExpressionStatement': {
            const e = this.exprList(kids(m), m)
            if (e.k === 'const' && typeof e.v === 'string') continue
            break
          }
          case 'FunctionDefinition': {
            const d = this.def(m, kids(m), mloc)
            if (d.k === 'def') {
              const nm = d.name
              if (/^__.*__$/.test(nm) && !CLASS_DUNDERS.has(nm)) {
                this.unsupported(`\`${nm}\``, `Only ${[...CLASS_DUNDERS].map((x) => `\`${x}\``).join(', ')} are called by the runtime; write a plain method (\`def size(self)\`) and call it.`, m)
              }
              if (d.params.length === 0) this.unsupported('A method without `self`', 'Give the method `self` as its first parameter (static and class methods are not supported: use a plain `def` outside the class).', m)
              items.push({ kind: 'def', def: d })
            }
            continue
          }
          case 'DecoratedStatement':
            this.unsupported('Method decorators', '`@staticmethod`, `@classmethod` and `@property` are not supported: use a plain method (`obj.area()`), or a `def` outside the class.', m)
            break
          case 'AssignStatement': {
            const mc = kids(m)
            const t = mc[0]!
            if (t.name !== 'VariableName' || mc.filter((x) => x.name === 'AssignOp').length > 1) break
            const annotated = mc[1]?.name === 'TypeDef'
            const at = mc.findIndex((x) => x.name === 'AssignOp')
            const value = at >= 0 ? this.exprList(mc.slice(at + 1), m) : null
            if (!annotated && !value) break
            items.push({ kind: 'attr', name: this.checkName(t), value, annotated, loc: mloc })
            continue
          }
        }
        this.unsupported('This statement in a class body', 'A class body holds methods (`def`) and attributes (`name = value`, `name: type = value`).', m)
      }
    }
    members(kids(body!))
    return { k: 'class', name, bases, items, decorators, loc }
  }

  private importNames(n: SyntaxNode, c: SyntaxNode[]): ImportName[] {
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

  private assign(n: SyntaxNode, c: SyntaxNode[], loc: Loc): Stmt {
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
    if (groups.some((g) => g.some((x) => x.name === 'YieldExpression'))) this.unsupported('`yield`', this.yieldFix(), n)
    const value = this.exprList(groups[groups.length - 1]!, n)
    const targets = groups.slice(0, -1).map((g) => this.targetList(g, n))
    // `f = lambda x: ...` names a function: it is a def (rebinding f elsewhere is refused).
    if (targets.length === 1 && targets[0]!.k === 'name' && value.k === 'lambda') {
      return { k: 'def', name: targets[0]!.id, params: value.params.map((name, i) => ({ name, dflt: value.defaults[i] ?? null })), body: [{ k: 'return', value: value.body, loc: value.loc }], loc, lambda: true }
    }
    return { k: 'assign', targets, value, loc }
  }

  private ifStatement(c: SyntaxNode[], loc: Loc): Stmt {
    // if test Body (elif test Body)* (else Body)?
    const test = this.expr(c[1]!)
    const body = this.body(c[2])
    let orelse: Stmt[] = []
    const rest = c.slice(3)
    if (rest.length) {
      if (rest[0]!.name === 'elif') orelse = [this.ifStatement([rest[0]!, ...rest.slice(1)], this.at(rest[0]!))]
      else orelse = this.body(rest[1])
    }
    return { k: 'if', test, body, orelse, loc }
  }

  private tryStatement(c: SyntaxNode[], loc: Loc): Stmt {
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

  private def(n: SyntaxNode, c: SyntaxNode[], loc: Loc): Stmt {
    if (c[0]!.name === 'async') this.unsupported('`async def`', 'Use a plain `def`: code blocks do not wait for anything.', c[0]!)
    const name = this.text(c.find((x) => x.name === 'VariableName')!)
    if (c.some((x) => x.name === 'TypeParamList')) this.unsupported('Type parameters', 'Remove the `[T]` list.', n)
    const plist = c.find((x) => x.name === 'ParamList')!
    const params = this.params(kids(plist).filter((x) => x.name !== '(' && x.name !== ')'), plist)
    this.yields.push(false)
    let body: Stmt[]
    try {
      body = this.body(c.find((x) => x.name === 'Body'))
    } finally {
      if (this.yields.pop()) body = generatorBody(body!, loc)
    }
    return { k: 'def', name, params, body: body!, loc }
  }

  private params(c: SyntaxNode[], at: SyntaxNode): Param[] {
    const out: Param[] = []
    let i = 0
    while (i < c.length) {
      const x = c[i]!
      if (x.name === ',') { i++; continue }
      if (x.name === '*' || x.name === '**' || x.name === '/') {
        this.unsupported(`\`${x.name}\` parameters`, 'Take a list or dict parameter instead: `def f(items): ...` called as `f([a, b])`.', x)
      }
      if (x.name !== 'VariableName') this.refuse('PY_SYNTAX', { detail: `unexpected \`${this.text(x)}\` in parameters`, fix: 'Parameters are names, optionally with `= default`.' }, x)
      const name = this.checkName(x)
      i++
      if (c[i]?.name === 'TypeDef') i++
      let dflt: Expr | null = null
      if (c[i]?.name === 'AssignOp') { dflt = this.expr(c[i + 1]!); i += 2 }
      if (out.some((p) => p.name === name)) this.refuse('PY_SYNTAX', { detail: `duplicate argument '${name}'`, fix: 'Give every parameter its own name.' }, x)
      if (!dflt && out.some((p) => p.dflt)) this.refuse('PY_SYNTAX', { detail: 'non-default argument follows default argument', fix: 'Put parameters with defaults last.' }, x)
      out.push({ name, dflt })
    }
    void at
    return out
  }

  // --- targets ----------------------------------------------------------------------

  private targetList(nodes: SyntaxNode[], at: SyntaxNode): Expr {
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
  private exprList(nodes: SyntaxNode[], at: SyntaxNode): Expr {
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

  private checkName(n: SyntaxNode): string {
    const id = this.text(n)
    if (/^__.*__$/.test(id)) this.refuse('PY_DUNDER', { name: id }, n)
    return id
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
        if (inner.name === 'YieldExpression') this.unsupported('`yield`', this.yieldFix(), inner)
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
        return { k: 'lambda', params: params.map((p) => p.name), defaults: params.map((p) => p.dflt), body: this.expr(c[c.length - 1]!), loc }
      }
      case 'CallExpression': return this.call(c[0]!, c[1]!, loc)
      case 'MemberExpression': {
        if (c[0]!.name === 'Number' && c[1]!.name === '.' && c[0]!.to === c[1]!.from && /^\d[\d_]*$/.test(this.text(c[0]!))) {
          this.refuse('PY_SYNTAX', { detail: 'invalid decimal literal', fix: `Wrap the number in parentheses: \`(${this.text(c[0]!)}).${this.text(c[2] ?? c[1]!)}\`.` }, c[0]!)
        }
        const obj = this.expr(c[0]!)
        if (c[1]!.name === '.') {
          const name = this.text(c[2]!)
          // `type(x).__name__` is the one dunder the extended profile reads.
          if (name === '__name__' && !this.r.extended) throw this.r.extendedOnly('Reading `.__name__`', 'Use `isinstance(x, int)` to test a type.', c[2]!.from)
          if (/^__.*__$/.test(name) && name !== '__name__' && !(name === '__init__' && this.r.extended)) this.refuse('PY_DUNDER', { name }, c[2]!)
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

  private elements(c: SyntaxNode[]): Expr[] {
    const out: Expr[] = []
    for (let i = 0; i < c.length; i++) {
      const x = c[i]!
      if (x.name === ',') continue
      if (x.name === '*') { out.push({ k: 'star', e: this.expr(c[++i]!), loc: this.at(x) }); continue }
      out.push(this.expr(x))
    }
    return out
  }

  private dictItems(c: SyntaxNode[]): DictItem[] {
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

  private comprehension(kind: 'list' | 'set' | 'dict' | 'gen', c: SyntaxNode[], loc: Loc): Expr {
    if (c[0]!.name === '*' || c[0]!.name === '**') this.refuse('PY_SYNTAX', { detail: 'iterable unpacking cannot be used in comprehension', fix: 'Remove the `*`.' }, c[0]!)
    const forAt = c.findIndex((x) => x.name === 'for' || x.name === 'async')
    const head = c.slice(0, forAt)
    let elt: Expr, value: Expr | null = null
    if (kind === 'dict') { elt = this.expr(head[0]!); value = this.expr(head[2]!) } else elt = this.expr(head[0]!)
    return { k: 'comp', kind, elt, value, gens: this.clauses(c.slice(forAt)), loc }
  }

  /** Flattened `for ... in ... if ...` clauses. */
  private clauses(c: SyntaxNode[]): Gen[] {
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

  private isBoolOp(n: SyntaxNode): boolean {
    if (n.name !== 'BinaryExpression') return false
    const c = kids(n)
    return c.length === 3 && (c[1]!.name === 'and' || c[1]!.name === 'or' || this.text(c[1]!) === 'and' || this.text(c[1]!) === 'or')
  }

  /** `not` applied to the leftmost operand of an unparenthesized `and`/`or` tree. */
  private notLeftmost(n: SyntaxNode, loc: Loc): Expr {
    const [l, op, r] = kids(n) as [SyntaxNode, SyntaxNode, SyntaxNode]
    const left: Expr = this.isBoolOp(l) ? this.notLeftmost(l, loc) : { k: 'unary', op: 'not', e: this.expr(l), loc }
    return { k: 'bool', op: this.text(op) as 'and' | 'or', l: left, r: this.expr(r), loc }
  }

  private binary(n: SyntaxNode, c: SyntaxNode[], loc: Loc): Expr {
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
    if (op === '@') this.unsupported('The `@` operator', 'Multiply element by element with a comprehension.', opNodes[0]!)
    void n
    return { k: 'bin', op, l: this.expr(c[0]!), r: this.expr(right), loc }
  }

  private subscript(c: SyntaxNode[], n: SyntaxNode): Expr {
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

  private call(fnNode: SyntaxNode, argList: SyntaxNode, loc: Loc): Expr {
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

  // --- literals ---------------------------------------------------------------------

  private number(n: SyntaxNode, loc: Loc): Expr {
    const raw = this.text(n).replace(/_/g, '')
    if (/[jJ]$/.test(raw)) this.unsupported('Complex numbers', 'Use floats.', n)
    if (/^0[xX]/.test(raw)) return { k: 'int', v: BigInt(raw).toString(), loc }
    if (/^0[oO]/.test(raw)) return { k: 'int', v: BigInt('0o' + raw.slice(2)).toString(), loc }
    if (/^0[bB]/.test(raw)) return { k: 'int', v: BigInt(raw).toString(), loc }
    if (/^\d+$/.test(raw)) {
      if (/^0\d/.test(raw) && /[1-9]/.test(raw)) this.refuse('PY_SYNTAX', { detail: 'leading zeros in decimal integer literals are not permitted', fix: 'Remove the leading zeros (use 0o for octal).' }, n)
      return { k: 'int', v: BigInt(raw).toString(), loc }
    }
    return { k: 'float', v: Number(raw), loc }
  }

  private stringLiteral(n: SyntaxNode): string {
    const raw = this.text(n)
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(raw)!
    const prefix = m[1]!.toLowerCase()
    if (prefix.includes('b')) this.unsupported('Bytes literals', 'Use str literals.', n)
    const q = m[2]!
    const body = raw.slice(m[0].length, raw.length - q.length)
    return prefix.includes('r') ? body : this.unescape(body, n.from + m[0].length)
  }

  private unescape(s: string, at: number): string {
    if (!s.includes('\\')) return s
    let out = ''
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!
      if (ch !== '\\') { out += ch; continue }
      const e = s[++i]
      switch (e) {
        case '\n': break
        case '\r': if (s[i + 1] === '\n') i++; break
        case 'n': out += '\n'; break
        case 't': out += '\t'; break
        case 'r': out += '\r'; break
        case '\\': out += '\\'; break
        case "'": out += "'"; break
        case '"': out += '"'; break
        case 'a': out += '\x07'; break
        case 'b': out += '\b'; break
        case 'f': out += '\f'; break
        case 'v': out += '\v'; break
        case 'x': case 'u': case 'U': {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8
          const hex = s.slice(i + 1, i + 1 + len)
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.refuse('PY_SYNTAX', { detail: `truncated \\${e} escape`, fix: `Write \\${e} with ${len} hex digits.` }, at + i)
          const cp = parseInt(hex, 16)
          if (cp > 0x10ffff) this.refuse('PY_SYNTAX', { detail: 'illegal Unicode character', fix: 'Use a code point up to \\U0010ffff.' }, at + i)
          out += String.fromCodePoint(cp)
          i += len
          break
        }
        case 'N': this.unsupported('`\\N{...}` escapes', 'Write the character itself or its \\u escape.', at + i - 1 as unknown as SyntaxNode); break
        default:
          if (e !== undefined && /[0-7]/.test(e)) {
            let oct = e
            while (oct.length < 3 && /[0-7]/.test(s[i + 1] ?? '')) oct += s[++i]
            out += String.fromCodePoint(parseInt(oct, 8))
          } else out += '\\' + (e ?? '')
      }
    }
    return out
  }

  private fstring(n: SyntaxNode): FPart[] {
    const raw = this.text(n)
    const m = /^([a-zA-Z]*)('''|"""|'|")/.exec(raw)!
    const isRaw = m[1]!.toLowerCase().includes('r')
    const start = n.from + m[0].length
    const end = n.to - m[2]!.length
    const parts: FPart[] = []
    let pos = start
    const literal = (from: number, to: number) => {
      if (to <= from) return
      const raw = this.src.slice(from, to)
      const single = /\{\{|\}\}|[{}]/g
      for (let m = single.exec(raw); m; m = single.exec(raw)) {
        if (m[0].length === 1) this.refuse('PY_SYNTAX', { detail: `f-string: single '${m[0]}' is not allowed`, fix: 'Write `{{` and `}}` for literal braces.' }, from + m.index)
      }
      let t = raw.replace(/\{\{/g, '{').replace(/\}\}/g, '}')
      if (!isRaw) t = this.unescape(t, from)
      if (t) parts.push(t)
    }
    for (const r of kids(n)) {
      if (r.name !== 'FormatReplacement') continue
      if (this.src[r.from + 1] === '{') {
        this.refuse('PY_SYNTAX', { detail: 'f-string: `{{` is an escaped brace, so this `}` is single', fix: 'Write `{{` and `}}` for literal braces, or put a space before a dict display: `f"{ {\'a\': 1}[k]}"`.' }, r.from)
      }
      literal(pos, r.from)
      parts.push(...this.replacement(r))
      pos = r.to
    }
    literal(pos, end)
    return parts
  }

  private replacement(r: SyntaxNode): FPart[] {
    const c = kids(r).filter((x) => x.name !== '{' && x.name !== '}')
    const exprNodes: SyntaxNode[] = []
    let conv = ''
    let spec: Expr | null = null
    let selfDoc = false
    for (const x of c) {
      if (x.name === 'FormatConversion') conv = this.text(x).slice(1)
      else if (x.name === 'FormatSelfDoc') selfDoc = true
      else if (x.name === 'FormatSpec') spec = this.formatSpec(x)
      else exprNodes.push(x)
    }
    const e = this.exprList(exprNodes, r)
    const out: FPart[] = []
    if (selfDoc) {
      out.push(this.src.slice(exprNodes[0]!.from - 0, c.find((x) => x.name === 'FormatSelfDoc')!.to).replace(/^\{/, ''))
      if (!conv && !spec) conv = 'r'
    }
    out.push({ e, conv, spec })
    return out
  }

  private formatSpec(x: SyntaxNode): Expr {
    const loc = this.at(x)
    const parts: FPart[] = []
    let pos = x.from + 1
    for (const r of kids(x)) {
      if (r.name !== 'FormatReplacement') continue
      if (r.from > pos) parts.push(this.src.slice(pos, r.from))
      parts.push(...this.replacement(r))
      pos = r.to
    }
    if (x.to > pos) parts.push(this.src.slice(pos, x.to))
    if (parts.every((p) => typeof p === 'string')) return { k: 'const', v: (parts as string[]).join(''), loc }
    return { k: 'fstr', parts, loc }
  }
}

/** The dunder methods a guest class may define (the runtime or the lowering calls them). */
export const CLASS_DUNDERS: ReadonlySet<string> = new Set(['__init__', '__repr__', '__str__', '__eq__', '__lt__', '__le__', '__gt__', '__ge__', '__post_init__', '__enter__', '__exit__'])

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

export { PUNCT }

/** The hidden local an eager generator collects its items in (Python names never contain `$`). */
const GEN_ITEMS = 'gen$items'

/**
 * A generator function, eagerly: its items are appended to a hidden list as the body runs to its end
 * (or to a `return`), and the call returns them as a one-shot iterator named `generator`.
 */
function generatorBody(body: Stmt[], loc: Loc): Stmt[] {
  const done = (at: Loc): Stmt => ({ k: 'return', value: { k: 'rt', fn: 'gen', args: [{ k: 'name', id: GEN_ITEMS, loc: at }, { k: 'const', v: 'generator', loc: at }], loc: at }, loc: at })
  const walk = (xs: Stmt[]): Stmt[] => xs.flatMap((s): Stmt[] => {
    switch (s.k) {
      case 'return': return s.value ? [{ k: 'expr', e: s.value, loc: s.loc }, done(s.loc)] : [done(s.loc)]
      case 'if': case 'while': case 'for': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse) }]
      case 'try': return [{ ...s, body: walk(s.body), orelse: walk(s.orelse), finalbody: walk(s.finalbody), handlers: s.handlers.map((h) => ({ ...h, body: walk(h.body) })) }]
      default: return [s]
    }
  })
  return [{ k: 'assign', targets: [{ k: 'name', id: GEN_ITEMS, loc }], value: { k: 'list', elts: [], loc }, loc }, ...walk(body), done(loc)]
}

const and = (l: Expr, r: Expr): Expr => ({ k: 'bool', op: 'and', l, r, loc: l.loc })

/** Builtin classes whose one positional sub-pattern matches the subject itself (`case int(n)`). */
const SELF_MATCHING = new Set(['bool', 'dict', 'float', 'frozenset', 'int', 'list', 'set', 'str', 'tuple'])

/** @lezer/python marks an empty `()` in a pattern (`case Point():`, `case ():`) as an error inside a LiteralPattern. */
function emptyPatternGroup(n: SyntaxNode): boolean {
  // ... or as an error holding the `)` right after `(` (`case int() | float():`).
  if (n.type.isError && n.parent?.name === 'PatternArgList' && n.prevSibling?.name === '(' && n.to - n.from === 1 && n.nextSibling === null && n.firstChild?.name === ')') return true
  const p = n.type.isError ? n.parent : n
  if (!p || p.name !== 'LiteralPattern') return false
  const only = p.firstChild
  return !!only && only.type.isError && only.from === only.to && only.nextSibling === null && (p.parent?.name === 'PatternArgList' || p.parent?.name === 'SequencePattern')
}
