/**
 * What every part of the Python parser shares: the source, the refuser, the
 * state carried across statements (dataclass fields for `match`, the counter
 * for hidden names, the open `def`s that yield) and the refusal helpers.
 * The parser is one class split by concern: base, literals, expressions,
 * patterns, definitions, statements, then PyParser (../parse.ts).
 */
import type { SyntaxNode } from '@lezer/common'
import type { Expr, Loc, Stmt } from '../ir.ts'
import type { Refuser } from '../refuse.ts'

export abstract class ParserBase {
  constructor(protected readonly src: string, protected readonly r: Refuser) {}

  /** The fields of the dataclasses parsed so far: their positional sub-patterns (`__match_args__`). */
  protected readonly matchArgs = new Map<string, string[]>()
  /** The classes the program defined so far (a keyword sub-pattern of one tests the attribute first). */
  protected readonly programClasses = new Set<string>()
  protected matchCount = 0

  /** One entry per `def` being parsed: whether its body yields (extended profile: an eager generator). */
  protected readonly yields: boolean[] = []

  /** Yields inside a larger expression, hoisted to statements before it (parse/yields.ts): their variable, by position. */
  protected readonly hoisted = new Map<number, string>()

  protected text(n: SyntaxNode): string {
    return this.src.slice(n.from, n.to)
  }

  protected at(n: SyntaxNode): Loc {
    return this.r.loc(n.from)
  }

  protected refuse(name: Parameters<Refuser['error']>[0], params: Record<string, string>, n: SyntaxNode | number): never {
    throw this.r.error(name, params, typeof n === 'number' ? n : n.from)
  }

  protected unsupported(what: string, fix: string, n: SyntaxNode): never {
    return this.refuse('PY_UNSUPPORTED', { name: what, fix }, n)
  }

  protected checkName(n: SyntaxNode): string {
    const id = this.text(n)
    if (/^__.*__$/.test(id)) this.refuse('PY_DUNDER', { name: id }, n)
    return id
  }

  protected yieldFix(): string {
    return this.r.extended
      ? 'Here the `yield` would no longer run after the code before it in the statement (a call, a subscript, an attribute read) or would run where it may not (`and`, `or`, `if`): write `x = yield value` on its own line first, then use `x`.'
      : 'Build a list and return it instead of yielding.'
  }

  /** An indented block (statements.ts). */
  protected abstract body(n: SyntaxNode | undefined): Stmt[]

  /** A comma-separated list of expressions (expressions.ts). */
  protected abstract exprList(nodes: SyntaxNode[], at: SyntaxNode): Expr
}
