/**
 * Which helpers and local functions take a function (function-arguments.ts makes a copy of one for each
 * call giving it one): those with a parameter they only call, pass to a method (`xs.map(f)`), pass on to
 * themselves in the same place, or pass on to another such helper where it takes a function
 * (`apply2(g, x)` calling `twice(g, x)`). The last is a fixed point: a parameter stays while every helper
 * it is passed on to keeps the parameter it lands in. Found by a literal search of each helper's text
 * first (a source passing no functions pays that alone), then by its scopes.
 */
import type { ArrowFunctionExpression, FunctionDeclaration, FunctionExpression, Node, Program, VariableDeclarator } from 'acorn'
import type { LowerContext } from './context.ts'
import { mayDeclareLocal } from './function-text.ts'
import { blockBody, identifier, located, topLevelFunction } from './estree.ts'
import { type Binding, functionScopes, type FunctionScopes, type LocalFunction, MAX_LOCAL_DEPTH, type Reference, referencesByBinding, removeLocalFunction, resolve } from './local-scopes.ts'

type AnyNode = Node & Record<string, any>

/** A function parameter passed on to another helper: that helper's name, and where it lands there. */
export interface PassOn {
  readonly helper: string
  readonly index: number
  /** To a local function of the function passing it, which only calls its parameter there (its copies make that call's). */
  readonly local?: boolean
}

/** A helper or local function some of whose parameters are only called: by position, each such parameter's name. */
export interface Candidate {
  readonly name: string
  /** The function as a declaration (`const h = (...) =>` is read as one). */
  readonly fn: FunctionDeclaration
  readonly params: Map<number, string>
  /** Its function parameters passed on to other helpers, by position: a copy of it holds calls to make copies of in turn. */
  readonly passes: ReadonlyMap<number, readonly PassOn[]>
  /** A local function's: it, and the scope it is declared in (what its free names mean). */
  readonly local?: LocalFunction
  /** What it is across the rounds of function-arguments.ts (a local function's scopes are found again each round): its node. */
  readonly key: Node
  /** Where it is declared: removed once every use of it became a copy's. */
  readonly remove: () => void
}

/** Helpers (top-level functions, module-level `const h = (...) =>`) with a function parameter; never `entry`. */
export function candidatesOf(program: Program, ctx: LowerContext, entry: string | undefined): Map<string, Candidate> {
  const source = ctx.source
  const helpers: Array<{ name: string; fn: FunctionDeclaration; key: Node; remove: () => void }> = []
  program.body.forEach((s) => {
    const fn = topLevelFunction(s)
    if (fn?.id && !fn.generator && fn.id.name !== entry) helpers.push({ name: fn.id.name, fn, key: fn, remove: () => { program.body = program.body.filter((x) => x !== s) } })
    if (s.type === 'VariableDeclaration' && s.kind === 'const') {
      for (const d of s.declarations as VariableDeclarator[]) {
        const init = d.init as AnyNode | null
        if (d.id.type !== 'Identifier' || !init || !(init.type === 'ArrowFunctionExpression' || (init.type === 'FunctionExpression' && !init.generator && !init.id))) continue
        const remove = (): void => {
          s.declarations = s.declarations.filter((x) => x !== d)
          if (s.declarations.length === 0) program.body = program.body.filter((x) => x !== s)
        }
        helpers.push({ name: d.id.name, fn: asDeclaration(d.id.name, init as ArrowFunctionExpression | FunctionExpression), key: init, remove })
      }
    }
  })
  const out = new Map<string, Candidate>()
  // Whether `h` takes more functions than found so far (its entry is replaced): looking at what it passes on to
  // the helpers found since, and at what it passes to its own local functions, only ever adds to what it takes.
  const consider = (h: (typeof helpers)[number], onward: RegExp | null): boolean => {
    // A parameter passed to a call is looked at where the call may be of a local function of the helper's own (`run(f)`).
    const { params, passes } = functionParams(h.name, h.fn, source, onward, mayDeclareLocal(ctx, h.fn))
    if (params.size <= (out.get(h.name)?.params.size ?? 0)) return false
    out.set(h.name, { ...h, params, passes })
    return true
  }
  for (const h of helpers) consider(h, null)
  // Helpers that pass a parameter on to those found (and then to them): `apply2(g, x) { return twice(g, x) }`, and
  // `three(f, x) { const loc = (h) => one(h, x); return loc(f) }`, found by `x` before `one` was. What a helper takes
  // with an `onward` is the same whichever helpers it names (functionParams asks only whether there is one), so
  // each is looked at again once, when it first calls one found: a chain of n helpers costs n looks, not n².
  const lookedOnward = new Set<string>()
  for (let grew = out.size > 0; grew;) {
    grew = false
    const onward = callOf(out.keys())
    for (const h of helpers) {
      if (lookedOnward.has(h.name) || !onward.test(source.slice(h.fn.body.start, h.fn.body.end))) continue
      lookedOnward.add(h.name)
      if (consider(h, onward)) grew = true
    }
  }
  settle(out.values(), (p) => p.local === true || !!out.get(p.helper)?.params.has(p.index))
  for (const [name, c] of out) if (c.params.size === 0) out.delete(name)
  return out
}

/** A call of one of `names` (not a method's): the literal test of a body. */
export const callOf = (names: Iterable<string>): RegExp => new RegExp(`(^|[^\\w$.])(?:${[...names].map((n) => n.replace(/\$/g, '\\$')).join('|')})\\s*\\(`)

/** Drops the parameters passed on where `ok` says no function lands, until none is dropped (a parameter dropped may be where another lands). */
function settle(candidates: Iterable<Candidate>, ok: (p: PassOn) => boolean): void {
  const list = [...candidates]
  for (let dropped = true; dropped;) {
    dropped = false
    for (const c of list) {
      for (const [i, passes] of c.passes) {
        if (c.params.has(i) && !passes.every(ok)) { c.params.delete(i); dropped = true }
      }
    }
  }
}

/** The local functions of a top-level function that have a function parameter, by their binding (passing one on only to a helper of `top`, whose calls `onward` finds). */
export function localCandidates(scopes: FunctionScopes, source: string, top: ReadonlyMap<string, Candidate>, onward: RegExp | null): Map<Binding, Candidate> {
  const out = new Map<Binding, Candidate>()
  for (const lf of scopes.functions) {
    const b = lf.binding
    if (!b || b.fn !== lf || b.writes.length > 0 || lf.depth > MAX_LOCAL_DEPTH) continue
    const fn = lf.node.type === 'FunctionDeclaration' ? lf.node : asDeclaration(lf.name, lf.node)
    const { params, passes } = functionParams(lf.name, fn, source, onward)
    if (params.size === 0) continue
    const c: Candidate = { name: lf.name, fn, params, passes, local: lf, key: lf.node, remove: () => removeLocalFunction(lf) }
    // Its scopes were found alone: a name it passes to is a helper only where nothing around it declares that name.
    settle([c], (p) => p.local === true || (!!lf.scope && resolve(p.helper, lf.scope) === null && !!top.get(p.helper)?.params.has(p.index)))
    if (params.size > 0) out.set(b, c)
  }
  return out
}

/**
 * Function parameters of `fn` (named `name`): those it only calls, passes to a method, passes on to itself
 * in the same place, or passes on to a function named as a helper (`passes`, for the caller to settle).
 * `onward`, a call of a helper taking a function: a parameter only passed on is looked at where the body has
 * one, or where `locals` says the body may declare a local function (which may be the one it is passed to).
 */
function functionParams(name: string, fn: FunctionDeclaration, source: string, onward: RegExp | null, locals = false): { params: Map<number, string>; passes: Map<number, PassOn[]> } {
  const plain: Array<readonly [number, string]> = []
  fn.params.forEach((p, i) => { if (p.type === 'Identifier') plain.push([i, p.name]) })
  // Cheap first: a parameter called (`f(`), or the first argument of a method (`.map(f)`), somewhere in the body; or passed to a call.
  const { start, end } = fn.body
  const maybe = plain.filter(([, p]) => calledIn(source, start, end, p) || ((onward !== null || locals) && passedIn(source, start, end, p)))
  // Most helpers of most sources: nothing allocated for them.
  if (maybe.length === 0) return NONE
  const params = new Map<number, string>()
  const passes = new Map<number, PassOn[]>()
  const scopes = functionScopes(fn)
  const refs = referencesByBinding(scopes.references)
  for (const [i, p] of maybe) {
    const b = scopes.own?.names.get(p)
    const uses = b ? refs.get(b) ?? [] : []
    if (!b || b.writes.length > 0 || uses.length === 0) continue
    const onwards: PassOn[] = []
    if (uses.every((u) => { const use = useOf(u, i, name, scopes, source, onward); if (typeof use === 'object') onwards.push(use); return use !== false })) {
      params.set(i, p)
      if (onwards.length > 0) passes.set(i, onwards)
    }
  }
  return { params, passes }
}

/** No function parameter (never a candidate's, so never changed). */
const NONE = { params: new Map<number, string>(), passes: new Map<number, PassOn[]>() }

const isNameChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13

/** The name at `at` in `source`, a whole word: the code after it (spaces skipped) and the position before it, or null. */
function wordAt(source: string, at: number, name: string): { next: number; back: number } | null {
  if (isNameChar(source.charCodeAt(at - 1)) || isNameChar(source.charCodeAt(at + name.length))) return null
  let after = at + name.length
  while (isSpace(source.charCodeAt(after))) after++
  let back = at - 1
  while (isSpace(source.charCodeAt(back))) back--
  return { next: source.charCodeAt(after), back }
}

/** Whether `source[from, to)` has `name(` or `.method(name,` / `.method(name)`: a literal search, as it runs on every helper of every source. */
function calledIn(source: string, from: number, to: number, name: string): boolean {
  for (let at = source.indexOf(name, from); at >= 0 && at + name.length <= to; at = source.indexOf(name, at + 1)) {
    const w = wordAt(source, at, name)
    if (!w) continue
    if (w.next === 40 /* ( */ && source.charCodeAt(at - 1) !== 46 /* . */) return true
    if (w.next !== 44 /* , */ && w.next !== 41 /* ) */) continue
    let back = w.back
    if (source.charCodeAt(back) !== 40) continue
    back--
    while (isSpace(source.charCodeAt(back))) back--
    let start = back
    while (isNameChar(source.charCodeAt(start))) start--
    if (start < back && source.charCodeAt(start) === 46 /* . */) return true
  }
  return false
}

/** Whether `source[from, to)` has `name` as an argument: `(name,`, `, name)` and the like. */
function passedIn(source: string, from: number, to: number, name: string): boolean {
  for (let at = source.indexOf(name, from); at >= 0 && at + name.length <= to; at = source.indexOf(name, at + 1)) {
    const w = wordAt(source, at, name)
    const before = w && source.charCodeAt(w.back)
    if (w && (w.next === 44 || w.next === 41) && (before === 40 || before === 44)) return true
  }
  return false
}

/**
 * A use of parameter `i` of `helper` that a copy can take over: called, passed to a method, passed on to
 * the helper in the same place (true), or passed to a function named as a helper (where it lands there).
 */
function useOf(u: Reference, i: number, helper: string, scopes: FunctionScopes, source: string, onward: RegExp | null): boolean | PassOn {
  const call = u.parent as AnyNode
  if (u.write || call.type !== 'CallExpression') return false
  if (u.key === 'callee') return true
  if (u.key !== 'arguments') return false
  if (call.callee.type === 'MemberExpression') return true
  if (call.callee.type !== 'Identifier') return false
  if (call.callee.name === helper) return u.index === i
  const spread = call.arguments.findIndex((a: AnyNode) => a.type === 'SpreadElement')
  if (spread >= 0 && spread <= u.index) return false
  const target = resolve(call.callee.name, u.scope)
  if (target === null) return { helper: call.callee.name, index: u.index }
  // A local function of its own (`const run = (h) => h(x); run(g)`) that calls its parameter there.
  const lf = target.fn && scopes.functions.find((f) => f === target.fn)
  if (!lf || target.writes.length > 0) return false
  const local = functionParams(lf.name, lf.node.type === 'FunctionDeclaration' ? lf.node : asDeclaration(lf.name, lf.node), source, onward)
  // (Or passes it on to helpers: whether they take it there is settled when it is a candidate itself, else it is refused as before.)
  return local.params.has(u.index) && (local.passes.get(u.index) ?? []).every((q) => !q.local) ? { helper: lf.name, index: u.index, local: true } : false
}

/** `const h = (a, b) => ...` as `function h(a, b) { ... }` (an expression body returned). */
export function asDeclaration(name: string, f: ArrowFunctionExpression | FunctionExpression): FunctionDeclaration {
  return located('FunctionDeclaration', { id: identifier(name, f), params: f.params, body: blockBody(f.body), async: f.async, generator: false, expression: false }, f) as unknown as FunctionDeclaration
}
