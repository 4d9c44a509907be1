/**
 * An acorn plugin that makes redeclaration checks O(1) in large scopes.
 *
 * acorn keeps each scope's declared names in plain arrays and checks every
 * new declaration with `indexOf`, so a function with n `let`s costs O(n²):
 * a generated 12,000-line agent spent a third of its parse there. Here a
 * scope that grows past SMALL_SCOPE names gets NameLists: the same arrays
 * (acorn also reads `lexical[0]`), with a Set answering the "is it there?"
 * question acorn asks through `indexOf`. Small scopes (nearly all of them)
 * keep acorn's plain arrays: a scan of a few names is cheaper than building
 * three Array subclasses and Sets per scope, which was an eighth of the
 * transpile time of a 10-line agent.
 */
import { Parser } from 'acorn'

// acorn's constants (not exported): a `var`-style binding, and the scopes that end its walk up.
const BIND_VAR = 1
const SCOPE_VAR = 1 | 2 | 256 // SCOPE_TOP | SCOPE_FUNCTION | SCOPE_CLASS_STATIC_BLOCK

/** Names a scope holds before its lists are upgraded (a linear scan of this many is a few ns). */
const SMALL_SCOPE = 16

/** An array of names whose `indexOf` consults a Set first (a miss, the usual answer, is O(1)). */
class NameList extends Array<string> {
  private readonly seen = new Set<string>()

  // acorn pushes one name at a time: indexed stores, not super.push's generic path for a subclass (~15 ns a name).
  override push(...names: string[]): number {
    for (const name of names) {
      this.seen.add(name)
      this[this.length] = name
    }
    return this.length
  }

  override indexOf(name: string, from?: number): number {
    return this.seen.has(name) ? super.indexOf(name, from) : -1
  }
}

function upgrade(names: string[]): string[] {
  if (names instanceof NameList) return names
  const list = new NameList()
  for (const name of names) list.push(name)
  return list
}

interface ScopeLike {
  flags: number
  var: string[]
  lexical: string[]
  functions: string[]
}

interface ScopedParser {
  scopeStack: ScopeLike[]
  declareName(name: string, bindingType: number, pos: number): void
}

/** Give `scope` NameLists once it holds more than SMALL_SCOPE names (a scope only grows). */
function upgradeIfLarge(scope: ScopeLike): void {
  if (scope.var.length + scope.lexical.length + scope.functions.length < SMALL_SCOPE) return
  scope.var = upgrade(scope.var)
  scope.lexical = upgrade(scope.lexical)
  scope.functions = upgrade(scope.functions)
}

/** acorn's Parser with NameList scopes where they pay. */
export const LinearScopeParser: typeof Parser = Parser.extend((Base) => {
  const Scoped = Base as unknown as new (...args: any[]) => ScopedParser
  class WithNameLists extends Scoped {
    override declareName(name: string, bindingType: number, pos: number): void {
      const stack = this.scopeStack
      // A `var` (or parameter) is pushed to every scope up to the function's: check those too.
      for (let i = stack.length - 1; i >= 0; i--) {
        upgradeIfLarge(stack[i]!)
        if (bindingType !== BIND_VAR || stack[i]!.flags & SCOPE_VAR) break
      }
      super.declareName(name, bindingType, pos)
    }
  }
  return WithNameLists as unknown as typeof Parser
})
