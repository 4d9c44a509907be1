/**
 * Helpers given a Map or a Set: `function addEdge(graph, a, b) { graph.get(a).push(b) }` called as
 * `addEdge(graph, x, y)` with `const graph = new Map()`. A Map or a Set is the array of its entries or
 * members, which the VM passes to a helper as it is (one array, shared, within a run: the host-side
 * index of src/vm/builtins/ordered-index.ts is keyed by it), so a helper that changes it changes the
 * caller's, as in JavaScript. The lowering knows a variable holds one from its declaration; a parameter
 * holds one when every call of its helper passes one, found here before the helpers are lowered: each
 * call of a helper by name, with what each argument is (a variable declared holding a Map or Set,
 * `new Map(...)`, `new Set(...)`, `m.set(...)`, `s.add(...)` of one, or a parameter of the function the
 * call is in, known once that function's calls are: a fixpoint, so recursion and helpers passing it on
 * work). Names are resolved by their declarations in the function (a name declared twice, once as a Map
 * and once as something else, is something else): the lowering checks each call again by its own scopes
 * (lower/helper-collections.ts), so a guess here that is wrong is a located refusal, never wrong code.
 *
 * A parameter holds no Map or Set when it is not a plain name (a default, a pattern, a rest parameter),
 * when its helper is used other than by a call (a callback, `storeProcedure({ ast })`: it gets other
 * values there), or when a call passes something else for it (what lower/helper-collections.ts refuses
 * where a Map or Set is passed, naming the other call).
 */
import type { CallExpression, Expression, FunctionDeclaration, Identifier, Node, Pattern } from 'acorn'
import { SET_MERGE_METHODS, SET_MERGES } from './set-methods.ts'
import { forEachChild } from './estree.ts'

export type CollectionKind = 'map' | 'set'

/** Why a parameter holds no Map or Set though some call passes one: the node to name, and what it is. */
export interface NotCollection {
  readonly at: Node
  readonly why: 'other' | 'use' | 'pattern' | 'missing'
  /** For 'other': the kind it is given there, when a Map where another call passes a Set (or the reverse). */
  readonly kind?: CollectionKind
}

export interface CollectionParams {
  /** Per helper, per parameter: the kind every call passes, where all pass the same. */
  readonly kinds: ReadonlyMap<string, ReadonlyArray<CollectionKind | undefined>>
  /** Per helper, per parameter that some call passes a Map or Set and that holds none: why (the first reason found). */
  readonly not: ReadonlyMap<string, ReadonlyArray<NotCollection | undefined>>
  /** Where the first call passing each helper parameter its Map or Set is. */
  readonly first: ReadonlyMap<string, ReadonlyArray<Node | undefined>>
  /** Arguments passed for a Map or Set parameter from a function nothing calls (their calls never run: not checked). */
  readonly unchecked: WeakSet<Node>
  /** Each function's parameters, by its name (what a refusal names). */
  readonly params: ReadonlyMap<string, readonly Pattern[]>
}

type AnyNode = Node & Record<string, any>
/** What an argument is: a kind, something else, or the parameter of that index of the function it is in. */
type Arg = CollectionKind | 'other' | number
type State = CollectionKind | 'other' | undefined

interface Site { readonly call: CallExpression; readonly helper: string; readonly from: string; readonly args: readonly Arg[] }

/** Text that any program passing a Map or Set to a helper has (the analysis is skipped for the others). */
const MAY_HAVE = /\bnew\s+(?:Map|Set)\b/

/** `= new Map`, `= new Set`, `= a.union(` ...: where a name is given a Map or Set (the name is the word before). */
const GIVEN = new RegExp(`=\\s*(?:new\\s+(?:Map|Set)\\b|[\\w$]+\\.(?:${SET_MERGE_METHODS.join('|')})\\s*\\()`, 'g')

/** `= t`, a name given another's value (`const t = s`): an alias, when `s` holds a Map or Set. */
const ALIAS = /=\s*([A-Za-z_$][\w$]*)\s*(?=[;,)\n]|$)/g

/** The name given a value at `at` (an `=`), or undefined where the `=` gives no name (`===`, `!==`, `<=`). */
function nameBefore(source: string, at: number): string | undefined {
  if (source[at - 1] === '=' || source[at - 1] === '!' || source[at - 1] === '<' || source[at - 1] === '>' || source[at + 1] === '=') return undefined
  let end = at
  while (end > 0 && /\s/.test(source[end - 1]!)) end--
  let start = end
  while (start > 0 && /[\w$]/.test(source[start - 1]!)) start--
  return start < end ? source.slice(start, end) : undefined
}

/**
 * Whether the source passes a Map or Set anywhere, by its text: a name given one (`const seen = new Set()`,
 * or an alias, `const t = seen`) written as an argument (`f(seen)`, `f(x, seen.add(y))`), or `new Map`/
 * `new Set` written as one. Most programs with a Map pass it to no function: the scan is skipped for them.
 * A call it misses (an alias of an alias of an alias) is refused as before, where it is lowered (AJS2045, AJS2055).
 */
function passesCollection(source: string): boolean {
  const names = new Set<string>()
  for (const m of source.matchAll(GIVEN)) {
    const name = nameBefore(source, m.index)
    if (name) names.add(name)
  }
  const aliases: Array<[string, string]> = []
  if (names.size > 0) for (const m of source.matchAll(ALIAS)) {
    const name = nameBefore(source, m.index)
    if (name) aliases.push([name, m[1]!])
  }
  for (let round = 0; round < 2; round++) for (const [name, of] of aliases) if (names.has(of)) names.add(name)
  const listed = [...names].map((n) => n.replace(/\$/g, '\\$')).join('|')
  const passed = new RegExp(`[(,]\\s*(?:new\\s+(?:Map|Set)\\b${listed ? `|(?:${listed})\\s*(?:[,)]|\\.(?:set|add|${SET_MERGE_METHODS.join('|')})\\s*\\()` : ''})`)
  return passed.test(source)
}

/** The parameter kinds of `helpers` (all top-level functions are `fns`; `entry` is called by no one). Undefined when no helper can get a Map or Set. */
export function collectionParams(source: string, fns: readonly FunctionDeclaration[], entry: FunctionDeclaration, helpers: ReadonlySet<string>): CollectionParams | undefined {
  // A literal search first: the pattern's \b before `new` keeps V8 from skipping ahead, a pass of ~7 µs over a 260-line source.
  if (helpers.size === 0 || !(source.includes('Map') || source.includes('Set')) || !MAY_HAVE.test(source) || !passesCollection(source)) return undefined
  const sites: Site[] = []
  const state = new Map<string, State[]>()
  const not = new Map<string, Array<NotCollection | undefined>>()
  const first = new Map<string, Array<Node | undefined>>()
  const uses = new Map<string, Node>()
  const params = new Map<string, readonly Pattern[]>()
  for (const fn of fns) {
    const name = fn.id.name
    params.set(name, fn.params)
    // The entry's parameters are the run's input; any other function's are what its calls pass.
    state.set(name, fn.params.map((p) => (fn === entry || p.type !== 'Identifier' ? 'other' : undefined)))
    not.set(name, [])
    first.set(name, [])
  }
  for (const fn of fns) scan(fn, helpers, sites, uses)
  for (const [helper, at] of uses) state.set(helper, state.get(helper)!.map(() => 'other'))
  const unchecked = new WeakSet<Node>()
  const firstKinds = new Map<Node, CollectionKind>()
  const argOf = (site: Site, i: number): State => {
    const a = site.args[i]
    return typeof a === 'number' ? state.get(site.from)![a] : a
  }
  // A parameter moves from nothing to a kind to 'other', never back: this ends after at most two moves each.
  for (let changed = true; changed;) {
    changed = false
    for (const site of sites) {
      const kinds = state.get(site.helper)!
      for (let i = 0; i < kinds.length; i++) {
        const a = i < site.args.length ? argOf(site, i) : 'other'
        if (a === undefined || a === kinds[i]) continue
        const next = kinds[i] === undefined ? a : 'other'
        if (next === kinds[i]) continue
        kinds[i] = next
        changed = true
      }
    }
  }
  // Reasons, for the refusals: each parameter some call passes a Map or Set, that holds none.
  for (const site of sites) {
    const kinds = state.get(site.helper)!, firsts = first.get(site.helper)!
    for (let i = 0; i < kinds.length; i++) {
      const a = i < site.args.length ? argOf(site, i) : 'other'
      if ((a === 'map' || a === 'set') && firsts[i] === undefined) {
        firsts[i] = site.call.arguments[i]!
        firstKinds.set(firsts[i]!, a)
      }
      else if (a === undefined) unchecked.add(site.call.arguments[i]!)
    }
  }
  for (const [helper, kinds] of state) {
    const reasons = not.get(helper)!, ps = params.get(helper)!, firsts = first.get(helper)!
    for (let i = 0; i < kinds.length; i++) {
      if (kinds[i] !== 'other' || firsts[i] === undefined) continue
      const use = uses.get(helper)
      if (use) reasons[i] = { at: use, why: 'use' }
      else if (ps[i]!.type !== 'Identifier') reasons[i] = { at: ps[i]!, why: 'pattern' }
      else reasons[i] = otherCall(sites, helper, i, firstKinds.get(firsts[i]!), argOf)
    }
  }
  const kinds = new Map<string, Array<CollectionKind | undefined>>()
  for (const [helper, ks] of state) kinds.set(helper, ks.map((k) => (k === 'other' ? undefined : k)))
  return { kinds, not, first, unchecked, params }
}

/** The first call passing parameter `i` of `helper` something other than `kind` (or too few arguments: 'missing'). */
function otherCall(sites: readonly Site[], helper: string, i: number, kind: State, argOf: (site: Site, i: number) => State): NotCollection | undefined {
  for (const site of sites) {
    if (site.helper !== helper) continue
    // Missing, or after a spread: what it gets is not a Map or Set either.
    if (i >= site.args.length) return site.call.arguments[i] ? { at: site.call.arguments[i]!, why: 'other' } : { at: site.call, why: 'missing' }
    const a = argOf(site, i)
    if (a !== undefined && a !== kind) return { at: site.call.arguments[i]!, why: 'other', kind: a === 'other' ? undefined : a }
  }
  return undefined
}

/** The names a function (or an arrow, a callback inside it) declares, by name: each declaration's value, or its parameter index, or null (something else). */
interface Frame { readonly parent: Frame | null; readonly names: Map<string, Decl[]> }
type Decl = Expression | number | null

function lookup(name: string, frame: Frame): { list: Decl[]; frame: Frame } | undefined {
  for (let f: Frame | null = frame; f; f = f.parent) {
    const list = f.names.get(name)
    if (list) return { list, frame: f }
  }
  return undefined
}

/**
 * The calls of helpers in `fn`, and the helpers it names other than as a callee (`uses`). Names resolve to
 * their declarations in the function or the arrow they are declared in (blocks are not told apart: a name
 * declared twice there is each of its values at once, so a Map only if both are).
 */
function scan(fn: FunctionDeclaration, helpers: ReadonlySet<string>, sites: Site[], uses: Map<string, Node>): void {
  let frame: Frame = { parent: null, names: new Map() }
  const calls: Array<{ call: CallExpression; frame: Frame }> = []
  // A helper's name read other than as a callee, unless a variable of that name is declared there (found once all are).
  const named: Array<{ id: Identifier; frame: Frame }> = []
  const declare = (id: Identifier, what: Decl): void => {
    const list = frame.names.get(id.name)
    if (list) list.push(what)
    else frame.names.set(id.name, [what])
  }
  const names = (p: AnyNode | null): void => {
    if (!p) return
    switch (p.type) {
      case 'Identifier': declare(p as Identifier, null); return
      case 'ObjectPattern': for (const q of p.properties) names(q.type === 'RestElement' ? q.argument : q.value); return
      case 'ArrayPattern': for (const q of p.elements) names(q); return
      case 'RestElement': names(p.argument); return
      case 'AssignmentPattern': names(p.left)
    }
  }
  fn.params.forEach((p, i) => (p.type === 'Identifier' ? declare(p, i) : names(p as AnyNode)))
  const walk = (n: AnyNode): void => {
    switch (n.type) {
      case 'VariableDeclarator':
        if (n.id.type === 'Identifier') declare(n.id, n.init ?? null)
        else names(n.id)
        if (n.init) walk(n.init)
        return
      case 'ArrowFunctionExpression': case 'FunctionExpression': case 'FunctionDeclaration': {
        if (n.id && n.type === 'FunctionDeclaration') declare(n.id, null)
        const outer = frame
        frame = { parent: outer, names: new Map() }
        if (n.id && n.type === 'FunctionExpression') declare(n.id, null)
        for (const p of n.params) names(p)
        walk(n.body)
        frame = outer
        return
      }
      case 'CatchClause': names(n.param); walk(n.body); return
      case 'ClassDeclaration': if (n.id) declare(n.id, null); break
      case 'CallExpression':
        if (n.callee.type !== 'Identifier' || !helpers.has(n.callee.name)) break
        calls.push({ call: n as CallExpression, frame })
        for (const a of n.arguments) walk(a)
        return
      case 'Identifier':
        if (helpers.has(n.name) && !uses.has(n.name)) named.push({ id: n as Identifier, frame })
        return
      case 'MemberExpression':
        walk(n.object)
        if (n.computed) walk(n.property)
        return
      case 'Property': case 'MethodDefinition': case 'PropertyDefinition':
        if (n.computed) walk(n.key)
        if (n.value) walk(n.value)
        return
      case 'LabeledStatement': walk(n.body); return
      case 'BreakStatement': case 'ContinueStatement': return
    }
    forEachChild(n, walk)
  }
  for (const s of fn.body.body) walk(s as AnyNode)
  for (const { id, frame: at } of named) if (!uses.has(id.name) && !lookup(id.name, at)) uses.set(id.name, id)

  const busy = new Set<Decl[]>()
  // A parameter index is the function's own only: an arrow's parameters are something else.
  const kindOf = (e: AnyNode, at: Frame): Arg => {
    if (e.type === 'NewExpression') {
      const c = e.callee
      return c.type === 'Identifier' && (c.name === 'Map' || c.name === 'Set') && !lookup(c.name, at) && !helpers.has(c.name) ? (c.name === 'Map' ? 'map' : 'set') : 'other'
    }
    if (e.type === 'Identifier') {
      const found = lookup(e.name, at)
      if (!found || busy.has(found.list)) return 'other'
      busy.add(found.list)
      try {
        const kinds = new Set(found.list.map((d) => (d === null ? 'other' : typeof d === 'number' ? d : kindOf(d as AnyNode, found.frame))))
        return kinds.size === 1 ? [...kinds][0]! : 'other'
      } finally {
        busy.delete(found.list)
      }
    }
    if (e.type !== 'CallExpression' || e.callee.type !== 'MemberExpression' || e.callee.computed || e.callee.property.type !== 'Identifier') return 'other'
    const method = e.callee.property.name, object = kindOf(e.callee.object, at)
    if (method === 'set') return object === 'map' ? 'map' : 'other'
    return object === 'set' && (method === 'add' || SET_MERGES.has(method)) ? 'set' : 'other'
  }
  for (const { call, frame: at } of calls) {
    const name = (call.callee as Identifier).name
    // A local name hides the helper: not its call (the lowering refuses calling a variable).
    if (lookup(name, at)) continue
    const args: Arg[] = []
    for (const a of call.arguments) {
      if (a.type === 'SpreadElement') break // what falls after a spread is not known here
      args.push(kindOf(a as AnyNode, at))
    }
    sites.push({ call, helper: name, from: fn.id.name, args })
  }
}


