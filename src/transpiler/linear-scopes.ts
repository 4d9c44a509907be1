/**
 * An acorn plugin that makes redeclaration checks O(1).
 *
 * acorn keeps each scope's declared names in plain arrays and checks every
 * new declaration with `indexOf`, so a function with n `let`s costs O(n²):
 * a generated 12,000-line agent spent a third of its parse there. Here the
 * arrays are NameLists: the same arrays (acorn also reads `lexical[0]`), with
 * a Set answering the "is it there?" question acorn asks through `indexOf`.
 */
import { Parser } from 'acorn'

/** An array of names whose `indexOf` consults a Set first (a miss, the usual answer, is O(1)). */
class NameList extends Array<string> {
  private readonly seen = new Set<string>()

  override push(...names: string[]): number {
    for (const name of names) this.seen.add(name)
    return super.push(...names)
  }

  override indexOf(name: string, from?: number): number {
    return this.seen.has(name) ? super.indexOf(name, from) : -1
  }
}

interface ScopeLike {
  var: string[]
  lexical: string[]
  functions: string[]
}

interface ScopedParser {
  enterScope(flags: number): void
  currentScope(): ScopeLike
}

/** acorn's Parser with NameList scopes. */
export const LinearScopeParser: typeof Parser = Parser.extend((Base) => {
  const Scoped = Base as unknown as new (...args: any[]) => ScopedParser
  class WithNameLists extends Scoped {
    override enterScope(flags: number): void {
      super.enterScope(flags)
      const scope = this.currentScope()
      scope.var = new NameList()
      scope.lexical = new NameList()
      scope.functions = new NameList()
    }
  }
  return WithNameLists as unknown as typeof Parser
})
