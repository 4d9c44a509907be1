/**
 * The state of one lowering pass: source, file name, name tables, the
 * current scope, collected warnings, and the error raising helpers that
 * turn an ESTree node into a located diagnostic.
 */

import type { Node } from 'acorn'
import type { AjsProgram, Loc } from '../ast/types.ts'
import { FORBIDDEN_NAMES } from '../ast/nodes.ts'
import type { CodeName } from '../diagnostics/codes.ts'
import { makeDiagnostic, transpileError, TranspileError, type Diagnostic } from '../diagnostics/diagnostic.ts'
import { SourceLocator } from '../diagnostics/location.ts'
import type { AtomInfo } from './globals.ts'
import type { CollectionParams } from './collection-params.ts'
import type { BodyTextTests } from './function-text.ts'
import { GLOBAL_VALUES } from './globals.ts'
import { Scope, TYPED_KINDS, type BindingKind } from './scope.ts'

type Params = Record<string, string | undefined>

/** The empty default of the name sets lowerProgram replaces (one shared set, not three per context). */
const NO_NAMES: ReadonlySet<string> = new Set()

/**
 * Every N for which `source` holds `marker` + N (`all$12` holds `all$1` and
 * `all$12`): what `source.includes(marker + N)` answers, from one scan.
 * temp() asked includes() for each name it made, a scan of the whole source
 * every time: a program with thousands of `Promise.all` statements took seconds.
 */
function numbersAfter(source: string, marker: string): Set<string> {
  const taken = new Set<string>()
  for (let i = source.indexOf(marker); i !== -1; i = source.indexOf(marker, i + 1)) {
    const from = i + marker.length
    for (let end = from; end < source.length && source.charCodeAt(end) >= 48 && source.charCodeAt(end) <= 57;) taken.add(source.slice(from, ++end))
  }
  return taken
}

export class LowerContext {
  scope: Scope = new Scope(null)
  readonly warnings: Diagnostic[] = []
  readonly locator: SourceLocator
  /** Names of the program's helper functions (empty for expressions). */
  helpers: ReadonlySet<string> = NO_NAMES
  /**
   * Refusals collected so far when the caller asked for several
   * (`maxErrors` > 1): a refused statement is recorded and skipped, and
   * lowering goes on with the next one, as tsc reports a whole file.
   */
  readonly errors: TranspileError[] = []
  maxErrors = 1
  /** Every top-level function, the entry included (never late-bound atoms). */
  functionNames: ReadonlySet<string> = NO_NAMES
  /**
   * No atom table was given (`ajs`, `transpile(src)`): a call to an unknown
   * name compiles to a call of a custom atom the running VM must provide.
   */
  lateBound = false
  /** The AST names its `file` (transpile leaves it out when no `filename` was given). */
  fileInAst = true
  /** Refuse `a < b < c` (the builder's condition strings, as the seed's condition grammar does). */
  refuseChainedComparisons = false
  /** Helpers some function calls (the others get an "unused" warning). */
  readonly calledHelpers = new Set<string>()
  /**
   * The program of helper `name` as a procedure AST (the helper as entry,
   * the other helpers with it), for `storeProcedure({ ast: name })`. Set by
   * lowerProgram; undefined while lowering a lone expression.
   */
  procedureOf: ((name: string, at: Node) => AjsProgram) | undefined = undefined
  /** Custom (non-core) atoms the program calls, in order of first call. */
  readonly customAtoms = new Set<string>()
  /** Nesting of the expression being lowered (see MAX_EXPR_NESTING). */
  exprDepth = 0
  /** Nesting of the statement being lowered (see MAX_STATEMENT_NESTING). */
  statementDepth = 0
  /** `varsLet` objects made so far (lower/vars-object.ts). */
  varsObjects = 0
  /** Variables declared holding a Date so far, counted by declare: while none, no name needs the Date check (lower/dates.ts). */
  dateVars = 0
  /** Variables (and helper parameters) declared holding a Map so far, counted by declare (lower/maps.ts). */
  mapVars = 0
  /** The helpers' parameters that hold a Map or Set, every call passing one (collection-params.ts); undefined when none can. */
  collectionParams: CollectionParams | undefined = undefined
  /** Helpers declared `async`: a call of one must be awaited, as in JS it gives a Promise. */
  asyncHelpers: ReadonlySet<string> = NO_NAMES
  /** Helpers with a rest parameter, by name: its index (a call passes what falls there as one array). */
  restHelpers: ReadonlyMap<string, number> = new Map()
  /** The function being lowered is `async` (its `return` of a promise resolves it). */
  inAsyncFunction = false
  /** Calls whose value JS would await: under `await`, returned from an async function, or run by `Promise.all`. */
  readonly awaited = new WeakSet<Node>()
  private temps = 0
  /** Per temp() prefix, the numbers the source already has after it (made on first use). */
  private takenTemps: Map<string, Set<string>> | undefined = undefined

  /** Lower the body of a function (`async` or not), restoring the enclosing one's state after. */
  inFunction<T>(isAsync: boolean, lower: () => T): T {
    const saved = this.inAsyncFunction
    this.inAsyncFunction = isAsync
    try {
      return lower()
    } finally {
      this.inAsyncFunction = saved
    }
  }

  /** A fresh variable name for a value the lowering keeps (never a name of the source). */
  temp(prefix: string): string {
    this.takenTemps ??= new Map()
    let taken = this.takenTemps.get(prefix)
    if (taken === undefined) this.takenTemps.set(prefix, (taken = numbersAfter(this.source, `${prefix}$`)))
    let n: string
    do n = String(++this.temps)
    while (taken.has(n))
    return `${prefix}$${n}`
  }

  constructor(
    readonly source: string,
    readonly file: string,
    readonly atoms: ReadonlyMap<string, AtomInfo>,
  ) {
    this.locator = new SourceLocator(source)
  }

  /**
   * `[line, column]` of a node. Sources are parsed without acorn's
   * `locations` (three objects per node, a third of the parse time): the
   * position is found from the node's start offset, only for nodes that
   * carry a `loc` or raise a diagnostic.
   */
  loc(node: Node): Loc {
    const at = this.locator.position(node.start)
    return [at.line, at.column]
  }

  /** Throw a located TranspileError for `node`. */
  fail(name: CodeName, node: Node | Loc, params: Params = {}): never {
    const [line, column] = Array.isArray(node) ? node : this.loc(node)
    throw transpileError(name, params, this.locator, this.file, line, column)
  }

  /**
   * Run `lower` for one statement; in collecting mode a refusal is recorded
   * and the statement skipped (its names become live so later uses do not
   * cascade into more errors). Rethrows once `maxErrors` are collected.
   */
  recover(lower: () => void, declared: () => readonly string[] = () => []): void {
    if (this.maxErrors <= 1) return lower()
    const depth = this.statementDepth
    try {
      lower()
    } catch (e) {
      this.statementDepth = depth
      if (!(e instanceof TranspileError) || this.errors.includes(e)) throw e
      this.errors.push(e)
      if (this.errors.length >= this.maxErrors) throw e
      for (const name of declared()) this.scope.vars.set(name, 'let')
    }
  }

  warn(name: CodeName, node: Node | Loc, params: Params = {}): void {
    const [line, column] = Array.isArray(node) ? node : this.loc(node)
    this.warnings.push(makeDiagnostic(name, params, this.file, line, column))
  }

  pushScope(): Scope {
    this.scope = new Scope(this.scope)
    return this.scope
  }

  popScope(): void {
    this.scope = this.scope.parent!
  }

  /** Refuse names that can never be bound or accessed. */
  checkName(name: string, node: Node): void {
    if (FORBIDDEN_NAMES.has(name)) this.fail('FORBIDDEN_NAME', node, { name })
  }

  /** Bind `name` in the current scope (it may have been pre-declared as `tdz`). */
  declare(name: string, kind: BindingKind, node: Node): void {
    this.checkName(name, node)
    if (name === 'arguments') this.fail('ARGUMENTS', node)
    if (GLOBAL_VALUES.has(name)) this.fail('INVALID_TARGET', node, { name })
    this.scope.vars.set(name, kind)
    if (TYPED_KINDS.has(kind)) {
      this.typedDeclarations.set(node, kind)
      if (kind === 'date' || kind === 'dateConst') this.dateVars++
      else if (kind === 'map' || kind === 'mapConst') this.mapVars++
    }
  }

  /** The declaring names of Date, Map and Set variables, with their kinds (read by lower/program.ts for local functions). */
  readonly typedDeclarations = new WeakMap<Node, BindingKind>()
  /** Top-level functions a source rewrite gave local functions their text does not show (function-arguments.ts): local-functions.ts looks into them. */
  rewrittenFunctions?: Set<Node>
  /** What the text of top-level functions' bodies shows, tested once per function for the rewrites that ask (function-text.ts). */
  bodyTextTests?: Map<number, BodyTextTests>
  /** The spans (start and end) of expressions whose value is dropped, and of those only tested for truth (lower/unused.ts). */
  unusedSpans?: Set<number>
  testedSpans?: Set<number>
  /** The copies function-arguments.ts made and the functions passed declared in them, by node: the helper copied and the call (what a refusal of one names). */
  functionArgumentCopies?: Map<Node, { readonly helper: string; readonly call: Node }>
  /**
   * What a local function lifted to a helper reads around it (local-functions.ts): the arguments its calls pass
   * for them, where a Date, Map or Set variable may be passed (lower/names.ts), and, while the helper is lowered,
   * its scope and those parameters' names (a Date setter there would change only its copy: lower/dates.ts).
   */
  readonly captureArguments = new WeakSet<Node>()
  captures: { scope: Scope; names: ReadonlySet<string>; fn: string } | null = null
}
