/**
 * `match` to the tree: the subject in a hidden variable and an if/elif chain,
 * each pattern turned into a test that binds its captures with `:=`.
 */
import type { SyntaxNode } from '@lezer/common'
import type { Expr, Loc, Stmt } from '../ir.ts'
import { ExprParser } from './expressions.ts'
import { emptyPatternGroup, kids } from './lezer.ts'

export abstract class PatternParser extends ExprParser {

  /** `match s:` as `match$N = s` and an if/elif chain; captures bind with `:=` inside each test. */
  protected matchStatement(c: SyntaxNode[], loc: Loc): Stmt[] {
    const bodyAt = c.findIndex((x) => x.name === 'MatchBody')
    const subject = this.exprList(c.slice(1, bodyAt), c[0]!)
    const sv = `match$${++this.matchCount}`
    const clauses = kids(c[bodyAt]!).filter((x) => x.name === 'MatchClause')
    let chain: Stmt[] = []
    for (const cl of clauses.reverse()) {
      const cc = kids(cl)
      const guard = cc.find((x) => x.name === 'Guard')
      const cloc = this.at(cl)
      // `case a, *rest:` (an open sequence): @lezer/python gives its items as the clause's own children.
      const end = cc.findIndex((x) => x.name === 'Guard' || x.name === 'Body')
      const head = cc.slice(1, end < 0 ? cc.length : end)
      const subject: Expr = { k: 'name', id: sv, loc: cloc }
      let test = head.some((x) => x.name === ',') ? this.sequenceTest(head.filter((x) => x.name !== ','), subject, cloc) : this.pattern(cc[1]!, subject)
      if (guard) test = and(test, this.expr(kids(guard)[1]!))
      chain = [{ k: 'if', test, body: this.body(cc.find((x) => x.name === 'Body')), orelse: chain, loc: cloc }]
    }
    return [{ k: 'assign', targets: [{ k: 'name', id: sv, loc }], value: subject, loc }, ...chain]
  }

  /** The test that `s` matches pattern `p` (binding its captures as it goes). */
  protected pattern(p: SyntaxNode, s: Expr): Expr {
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
        return this.sequenceTest(items, s, loc)
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
          const name = this.text(kc[0]!)
          const sub = this.pattern(kc[kc.length - 1]!, { k: 'attr', obj: s, name, loc: this.at(kc[0]!) })
          // An instance of a class of the program without the attribute does not match (CPython swallows the AttributeError).
          test = and(test, this.programClasses.has(clsName) ? and(call('hasattr', s, { k: 'const', v: name, loc }), sub) : sub)
        }
        return test
      }
    }
    return this.unsupported(`The pattern \`${this.text(p).slice(0, 30)}\``, 'Use literal, capture, sequence, mapping, class and `|` patterns, or an `if` chain.', p)
  }

  /** The test that `s` is a list or tuple whose items match `items` (one of them may be a `*star`). */
  protected sequenceTest(items: SyntaxNode[], s: Expr, loc: Loc): Expr {
    const call = (fn: string, ...args: Expr[]): Expr => ({ k: 'call', fn: { k: 'name', id: fn, loc }, args, kw: [], loc })
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

  protected literalOf(p: SyntaxNode): Expr {
    const c = kids(p)
    return c[0]!.name === 'ArithOp' ? { k: 'unary', op: this.text(c[0]!), e: this.expr(c[1]!), loc: this.at(p) } : this.expr(c[0]!)
  }

  /** `a.b.c` in a pattern (AttributePattern children). */
  protected dotted(c: SyntaxNode[]): Expr {
    let e: Expr = this.expr(c[0]!)
    for (let i = 1; i < c.length; i++) if (c[i]!.name !== '.') e = { k: 'attr', obj: e, name: this.text(c[i]!), loc: this.at(c[i]!) }
    return e
  }
}

const and = (l: Expr, r: Expr): Expr => ({ k: 'bool', op: 'and', l, r, loc: l.loc })

/** Builtin classes whose one positional sub-pattern matches the subject itself (`case int(n)`). */
const SELF_MATCHING = new Set(['bool', 'dict', 'float', 'frozenset', 'int', 'list', 'set', 'str', 'tuple'])
