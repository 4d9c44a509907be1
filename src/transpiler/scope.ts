/**
 * Lexical scopes for name resolution at transpile time.
 *
 * AJS resolves every name statically: reads of undeclared names, assignment
 * to constants and uses before a declaration (the temporal dead zone) are
 * transpile errors rather than runtime surprises. Each block pre-declares
 * its `let`/`const` names as `tdz`; a declaration turns them live as it is
 * lowered, so a use before it is caught in one pass.
 */

/**
 * - `let`, `const`, `param`: live bindings (`param` and `let` are assignable)
 * - `tdz`: declared later in this block
 * - `tdzCase`: declared in another `case` of the enclosing switch
 * - `date`, `dateConst`: a `let` / `const` holding a Date (its time value; lower/dates.ts)
 * - `map`, `mapConst`: a `let` / `const` holding a Map (its entries; lower/maps.ts)
 * - `set`, `setConst`: a `let` / `const` holding a Set (its members; lower/set-vars.ts)
 * - `numberFormat`, `dateTimeFormat`: a `const` (or `let`, never reassigned) holding an `Intl.NumberFormat` /
 *   `Intl.DateTimeFormat` (its locales and options; lower/intl-vars.ts)
 */
export type BindingKind = 'let' | 'const' | 'param' | 'tdz' | 'tdzCase' | 'date' | 'dateConst' | 'map' | 'mapConst' | 'set' | 'setConst' | 'numberFormat' | 'dateTimeFormat'

/** The kinds of a variable holding a Date, Map, Set or Intl formatter: a local function lifted to a helper gets it as a parameter of the same kind. */
export const TYPED_KINDS: ReadonlySet<BindingKind> = new Set<BindingKind>(['date', 'dateConst', 'map', 'mapConst', 'set', 'setConst', 'numberFormat', 'dateTimeFormat'])

export class Scope {
  readonly vars = new Map<string, BindingKind>()
  constructor(
    readonly parent: Scope | null,
    /** The body of a `Promise.all(xs.map(...))` callback: each run has its own copy of the outer names. */
    readonly isolated = false,
  ) {}

  /** True when `name` is bound outside an isolated scope this one is inside. */
  boundOutsideIsolation(name: string): boolean {
    let crossed = false
    for (let s: Scope | null = this; s; s = s.parent) {
      if (s.vars.has(name)) return crossed
      if (s.isolated) crossed = true
    }
    return false
  }

  /** The scope that binds `name`, seen from here. */
  bindingScope(name: string): Scope | null {
    for (let s: Scope | null = this; s; s = s.parent) if (s.vars.has(name)) return s
    return null
  }

  lookup(name: string): BindingKind | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const kind = s.vars.get(name)
      if (kind !== undefined) return kind
    }
    return undefined
  }

  /** Every live name visible from here (for "did you mean"). */
  visible(): string[] {
    const names = new Set<string>()
    for (let s: Scope | null = this; s; s = s.parent) {
      for (const [name, kind] of s.vars) if (kind !== 'tdz' && kind !== 'tdzCase') names.add(name)
    }
    return [...names]
  }
}
