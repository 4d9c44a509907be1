/**
 * Functions passed to helpers, as models write them: `await withRetry(() => fetchJson(url), 3)`,
 * `apply(xs, double)`, `twice((v) => v + k, 1)`, `walk(tree, (n) => seen.push(n.id))`. AJS functions are
 * not values, so each such call gets its own copy of the helper, declared beside the call as a local
 * function (lifted with what it reads by local-functions.ts): the function argument is no longer passed
 * but declared in the copy, `const fn = () => fetchJson(url)` (a name passed, `double`, is called by
 * that name instead), and the copy's calls of the helper passing the same parameter on call the copy.
 * JavaScript's closure reads the caller's variables when it runs, and so does the copy: it is a local
 * function of the caller, with local-functions.ts's rules (assigning a caller's variable is AJS2051).
 * A call in an expression-bodied arrow (`xs.map((x) => withRetry(() => get(x), 3))`) has its copy declared
 * outside the arrow, passed the arrow's variables the functions read, so that the arrow stays the call
 * Promise.all waits for.
 *
 * A parameter qualifies when the helper only calls it, passes it to a method (`xs.map(fn)`) or passes
 * it on in the same place to itself. Everything else (a helper called with data there, a parameter
 * stored or returned) is left as it was, to be lowered or refused as before. What the copies write
 * out is bounded by the source's own size (AJS2065).
 */
import type { ArrowFunctionExpression, BlockStatement, CallExpression, FunctionDeclaration, FunctionExpression, Identifier, Node, Program, ReturnStatement, Statement, VariableDeclarator } from 'acorn'
import type { LowerContext } from './context.ts'
import { blockBody, identifier, located, parentsOf, topLevelFunction } from './estree.ts'
import { type Binding, functionScopes, type FunctionScopes, inside, type LocalFunction, type LocalScope, MAX_LOCAL_DEPTH, referencesByBinding, renameBinding, resolve } from './local-scopes.ts'

type AnyNode = Node & Record<string, any>
type FunctionArgument = ArrowFunctionExpression | FunctionExpression | Identifier

/** A helper or local function some of whose parameters are only called: by position, each such parameter's name. */
interface Candidate {
  readonly name: string
  /** The function as a declaration (`const h = (...) =>` is read as one). */
  readonly fn: FunctionDeclaration
  readonly params: ReadonlyMap<number, string>
  /** A local function's: it, and the scope it is declared in (what its free names mean). */
  readonly local?: LocalFunction
  /** Where it is declared: removed once every use of it became a copy's. */
  readonly remove: () => void
}

/** Characters the copies may write out: four per source character, at least 64 K (as function-tables.ts's bound). */
const copyBudget = (source: string): number => Math.max(65_536, source.length * 4)

/** A local function declared: `function`, or `= (...) =>`, `= x =>`, `= async` (local-functions.ts's test, less objects of functions). */
const DECLARES_LOCAL = /\bfunction\b|[^=!<>]=\s*(?:async\b|\((?:[^()]|\([^()]*\))*\)\s*=>|[^\s=(),;]+\s*=>)/

export function specializeFunctionArguments(program: Program, ctx: LowerContext): void {
  const tops = program.body.map(topLevelFunction).filter((f): f is FunctionDeclaration => !!f?.id)
  const top = candidatesOf(program, ctx.source)
  // The entry is called with the run's arguments, never with functions: `export default`, else the last function.
  const exported = program.body.find((s) => s.type === 'ExportDefaultDeclaration')
  const entry = (exported && topLevelFunction(exported)) ?? tops[tops.length - 1]
  if (entry?.id) top.delete(entry.id.name)
  // The functions to look into: those calling a candidate, or declaring a local function (which may be one).
  // The candidates' own bodies first, so that a copy of one holds the copies made inside it.
  const calls = top.size === 0 ? null : new RegExp(`(^|[^\\w$.])(?:${[...top.keys()].map((n) => n.replace(/\$/g, '\\$')).join('|')})\\s*\\(`)
  const order: FunctionDeclaration[] = []
  for (const first of [true, false]) {
    for (const f of tops) {
      if (top.has(f.id!.name) !== first) continue
      const body = ctx.source.slice(f.body.start + 1, f.end)
      if (calls?.test(body) || ((body.includes('=>') || body.includes('function')) && DECLARES_LOCAL.test(body))) order.push(f)
    }
  }
  if (order.length === 0) return
  // The async functions of the module (`async function f`, `const f = async (...) =>`), by name.
  const asyncTop = new Set(tops.filter((f) => f.async).map((f) => f.id!.name))
  for (const st of program.body) if (st.type === 'VariableDeclaration') for (const d of st.declarations) if (d.id.type === 'Identifier' && (d.init as AnyNode | null)?.async) asyncTop.add(d.id.name)
  let taken: Set<string> | undefined
  let budget = copyBudget(ctx.source)
  let count = 0
  const fresh = (base: string): string => {
    taken ??= new Set(ctx.source.match(/[A-Za-z_$][\w$]*/g))
    let name: string
    do name = `${base}$${++count}`
    while (taken.has(name))
    taken.add(name)
    return name
  }
  // Per candidate, the uses that stay its own (a call left as it was, a use as a value) and the calls made copies.
  const kept = new Map<Candidate, number>()
  const copied = new Map<Candidate, number>()
  const bump = (m: Map<Candidate, number>, c: Candidate): void => { m.set(c, (m.get(c) ?? 0) + 1) }
  for (const f of order) {
    const scopes = functionScopes(f)
    const locals = localCandidates(scopes, ctx.source)
    let parents: Map<Node, AnyNode> | undefined
    for (const r of scopes.references) {
      const b = resolve(r.id.name, r.scope)
      const c = b ? locals.get(b) : top.get(r.id.name)
      if (!c) continue
      // Its own calls are the copies' business (recursion, in copyFor).
      if (c.local ? inside(r.scope, c.local) : c.fn === f) continue
      const call = r.parent as CallExpression
      const args = r.key === 'callee' && call.type === 'CallExpression' ? functionArguments(call, c, r.scope, scopes, tops, asyncTop) : undefined
      if (!args) {
        bump(kept, c)
        continue
      }
      budget -= c.fn.end - c.fn.start
      if (budget < 0) ctx.fail('FUNCTION_ARGUMENT_COPIES', call, { name: c.name })
      // The parents are taken before the first call loses its arguments: a function passed may hold a call made a copy later, declared in it.
      parents ??= parentsOf(f)
      const out = outward(call, args, r.scope, parents)
      const head = headRead(call, args, r.scope, parents, out)
      if (head) ctx.fail('FUNCTION_ARGUMENT_HEAD', head.at, { name: c.name, target: head.target })
      const passed = out.passed.map((b) => b.name)
      const copy = copyFor(c, args, fresh(c.name), call, r.scope, ctx, passed)
      call.callee = identifier(copy.id!.name, call.callee)
      call.arguments = [...passed.map((p) => identifier(p, call)), ...call.arguments.filter((_, i) => !c.params.has(i))]
      declareBefore(call, copy, parents, out.through)
      ctx.functionArgumentCopies ??= new Map()
      for (const n of [copy, ...args.values()]) if (n.type !== 'Identifier') ctx.functionArgumentCopies.set(n, { helper: c.name, call })
      ctx.rewrittenFunctions ??= new Set()
      ctx.rewrittenFunctions.add(f)
      bump(copied, c)
    }
    for (const c of locals.values()) if (copied.has(c) && !kept.has(c)) c.remove()
  }
  for (const c of top.values()) if (copied.has(c) && !kept.has(c) && usedOnlyInFunctions(program, c, ctx.source)) c.remove()
}

/** Function parameters of `fn` (named `name`): those it only calls, passes to a method or passes on to itself in the same place. */
function functionParams(name: string, fn: FunctionDeclaration, source: string): Map<number, string> {
  const params = new Map<number, string>()
  const plain: Array<readonly [number, string]> = []
  fn.params.forEach((p, i) => { if (p.type === 'Identifier') plain.push([i, p.name]) })
  if (plain.length === 0) return params
  // Cheap first: a parameter called (`f(`), or the first argument of a method (`.map(f)`), somewhere in the body.
  const maybe = plain.filter(([, p]) => calledIn(source, fn.body.start, fn.body.end, p))
  if (maybe.length === 0) return params
  const scopes = functionScopes(fn)
  const refs = referencesByBinding(scopes.references)
  for (const [i, p] of maybe) {
    const b = scopes.own?.names.get(p)
    const uses = b ? refs.get(b) ?? [] : []
    if (b && b.writes.length === 0 && uses.length > 0 && uses.every((u) => onlyCalled(u, i, name))) params.set(i, p)
  }
  return params
}

const isNameChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13
/** Whether `source[from, to)` has `name(` or `.method(name,` / `.method(name)`: a literal search, as it runs on every helper of every source. */
function calledIn(source: string, from: number, to: number, name: string): boolean {
  for (let at = source.indexOf(name, from); at >= 0 && at + name.length <= to; at = source.indexOf(name, at + 1)) {
    const before = source.charCodeAt(at - 1)
    let after = at + name.length
    if (isNameChar(before) || isNameChar(source.charCodeAt(after))) continue
    while (isSpace(source.charCodeAt(after))) after++
    const next = source.charCodeAt(after)
    if (next === 40 /* ( */ && before !== 46 /* . */) return true
    if (next !== 44 /* , */ && next !== 41 /* ) */) continue
    let back = at - 1
    while (isSpace(source.charCodeAt(back))) back--
    if (source.charCodeAt(back) !== 40) continue
    back--
    while (isSpace(source.charCodeAt(back))) back--
    let start = back
    while (isNameChar(source.charCodeAt(start))) start--
    if (start < back && source.charCodeAt(start) === 46 /* . */) return true
  }
  return false
}

/** Helpers (top-level functions, module-level `const h = (...) =>`) with a function parameter. */
function candidatesOf(program: Program, source: string): Map<string, Candidate> {
  const out = new Map<string, Candidate>()
  const consider = (name: string, fn: FunctionDeclaration, remove: () => void): void => {
    const params = functionParams(name, fn, source)
    if (params.size > 0) out.set(name, { name, fn, remove, params })
  }
  program.body.forEach((s) => {
    const fn = topLevelFunction(s)
    if (fn?.id && !fn.generator) consider(fn.id.name, fn, () => { program.body = program.body.filter((x) => x !== s) })
    if (s.type === 'VariableDeclaration' && s.kind === 'const') {
      for (const d of s.declarations as VariableDeclarator[]) {
        const init = d.init as AnyNode | null
        if (d.id.type !== 'Identifier' || !init || !(init.type === 'ArrowFunctionExpression' || (init.type === 'FunctionExpression' && !init.generator && !init.id))) continue
        const remove = (): void => {
          s.declarations = s.declarations.filter((x) => x !== d)
          if (s.declarations.length === 0) program.body = program.body.filter((x) => x !== s)
        }
        consider(d.id.name, asDeclaration(d.id.name, init as ArrowFunctionExpression | FunctionExpression), remove)
      }
    }
  })
  return out
}

/** The local functions of a top-level function that have a function parameter, by their binding. */
function localCandidates(scopes: FunctionScopes, source: string): Map<Binding, Candidate> {
  const out = new Map<Binding, Candidate>()
  for (const lf of scopes.functions) {
    const b = lf.binding
    if (!b || b.fn !== lf || b.writes.length > 0 || lf.depth > MAX_LOCAL_DEPTH) continue
    const fn = lf.node.type === 'FunctionDeclaration' ? lf.node : asDeclaration(lf.name, lf.node)
    const params = functionParams(lf.name, fn, source)
    if (params.size === 0) continue
    const remove = (): void => {
      const list = lf.container as Node[]
      if (lf.declarator) {
        const d = lf.declaration as AnyNode
        d.declarations = d.declarations.filter((x: Node) => x !== lf.declarator)
        if (d.declarations.length > 0) return
      }
      list.splice(list.indexOf(lf.declaration), 1)
    }
    out.set(b, { name: lf.name, fn, params, local: lf, remove })
  }
  return out
}

/** A use of parameter `i` of helper `helper` that a copy can take over: called, passed to a method, or passed on to the helper in the same place. */
function onlyCalled(u: { parent: Node; key: string; index: number; write: boolean }, i: number, helper: string): boolean {
  const call = u.parent as AnyNode
  if (u.write || call.type !== 'CallExpression') return false
  if (u.key === 'callee') return true
  if (u.key !== 'arguments') return false
  if (call.callee.type === 'MemberExpression') return true
  return call.callee.type === 'Identifier' && call.callee.name === helper && u.index === i
}

/** `const h = (a, b) => ...` as `function h(a, b) { ... }` (an expression body returned). */
function asDeclaration(name: string, f: ArrowFunctionExpression | FunctionExpression): FunctionDeclaration {
  return located('FunctionDeclaration', { id: identifier(name, f), params: f.params, body: blockBody(f.body), async: f.async, generator: false, expression: false }, f) as unknown as FunctionDeclaration
}

/**
 * The function arguments of `call` at the candidate's parameters, each a function written there or the
 * name of one (a top-level function, or a local function the caller can see), or undefined when any is not.
 */
function functionArguments(call: CallExpression, c: Candidate, scope: LocalScope, scopes: FunctionScopes, tops: readonly FunctionDeclaration[], asyncTop: ReadonlySet<string>): Map<number, FunctionArgument> | undefined {
  const out = new Map<number, FunctionArgument>()
  const spread = call.arguments.findIndex((a) => a.type === 'SpreadElement')
  for (const i of c.params.keys()) {
    if (spread >= 0 && spread <= i) return undefined
    const a = call.arguments[i] as AnyNode | undefined
    if (!a) return undefined
    if (a.type === 'ArrowFunctionExpression' || (a.type === 'FunctionExpression' && !a.generator)) out.set(i, awaitingCall(a as ArrowFunctionExpression, scope, asyncTop))
    else if (a.type === 'Identifier' && namesFunction(a.name, scope, scopes, tops)) out.set(i, a as Identifier)
    else return undefined
  }
  return out
}

/**
 * `() => lookup(key)` of an async function `lookup`, as models pass it to a retry wrapper, returns its
 * promise, which the helper awaits; an AJS call of an async function is awaited where it is made
 * (AJS2039), so the arrow is `async () => await lookup(key)`: the same value, or the same rejection.
 * A block body's `return lookup(key)` is `return await lookup(key)` alike, unless it is in a `try`
 * (there JavaScript's `catch` and `finally` do not wait for the promise returned: left as it was, AJS2039).
 */
function awaitingCall(a: ArrowFunctionExpression | FunctionExpression, scope: LocalScope, asyncTop: ReadonlySet<string>): FunctionArgument {
  if (a.async || a.generator) return a
  const isAsyncCall = (e: AnyNode | null | undefined): e is CallExpression => {
    if (e?.type !== 'CallExpression' || e.callee.type !== 'Identifier') return false
    const b = resolve(e.callee.name, scope)
    return b ? !!b.fn?.node.async : asyncTop.has(e.callee.name)
  }
  const body = a.body as AnyNode
  if (body.type !== 'BlockStatement') {
    if (a.type !== 'ArrowFunctionExpression' || !isAsyncCall(body) || a.params.some((p) => p.type === 'Identifier' && p.name === (body.callee as Identifier).name)) return a
    a.async = true
    a.body = located('AwaitExpression', { argument: body }, body) as unknown as ArrowFunctionExpression['body']
    return a
  }
  const returns = awaitableReturns(body as BlockStatement, isAsyncCall)
  if (returns.length === 0) return a
  // A name the function declares itself (a parameter, a variable) is not the async function around it.
  const own = functionScopes(asDeclaration('', a))
  const mine = new Set(returns.map((r) => r.argument!.callee))
  if (own.references.some((r) => mine.has(r.id) && resolve(r.id.name, r.scope) !== null)) return a
  a.async = true
  for (const r of returns) r.argument = located('AwaitExpression', { argument: r.argument }, r.argument) as unknown as CallExpression
  return a
}

/** The `return f(...)` statements of a block body, `f` async, outside any `try` and any function inside it. */
function awaitableReturns(body: BlockStatement, isAsyncCall: (e: AnyNode | null | undefined) => e is CallExpression): Array<ReturnStatement & { argument: CallExpression }> {
  const out: Array<ReturnStatement & { argument: CallExpression }> = []
  const walk = (n: AnyNode): void => {
    if (n.type === 'ReturnStatement') { if (isAsyncCall(n.argument)) out.push(n as ReturnStatement & { argument: CallExpression }); return }
    if (n.type === 'TryStatement' || /Function|Class/.test(n.type) || !/Statement$|^SwitchCase$/.test(n.type)) return
    for (const key of ['body', 'consequent', 'alternate', 'cases']) {
      const v = n[key]
      if (Array.isArray(v)) for (const x of v) walk(x)
      else if (v && typeof v.type === 'string') walk(v)
    }
  }
  walk(body as AnyNode)
  return out
}

function namesFunction(name: string, scope: LocalScope, scopes: FunctionScopes, tops: readonly FunctionDeclaration[]): boolean {
  const b: Binding | null = resolve(name, scope)
  if (b) return !!b.fn || scopes.functions.some((f) => f.binding === b)
  return tops.some((f) => f.id!.name === name)
}

/**
 * The copy of the helper for one call: its function parameters gone, a function written at the call
 * declared first in its body under the parameter's name, a name passed called by that name, and its
 * calls of the helper that pass those parameters on calling the copy. The names the functions passed
 * read are theirs, not the copy's: a variable of the copy by such a name is renamed. A name the copy
 * reads that the caller declares again where it calls is AJS2066.
 */
function copyFor(c: Candidate, args: ReadonlyMap<number, FunctionArgument>, name: string, call: CallExpression, callScope: LocalScope, ctx: LowerContext, passed: readonly string[]): FunctionDeclaration {
  const copy = structuredClone(c.fn) as FunctionDeclaration
  copy.id = identifier(name, c.fn.id ?? c.fn)
  const scopes = functionScopes(copy)
  const refs = referencesByBinding(scopes.references)
  // What the helper reads from outside itself (helpers, atoms, globals, module constants): the caller must not hide it.
  const declaredIn = c.local?.binding?.scope ?? null
  for (const r of scopes.references) {
    if (r.id.name === c.name || resolve(r.id.name, r.scope) !== null) continue
    const hidden = resolve(r.id.name, callScope)
    if (hidden !== resolve(r.id.name, declaredIn)) ctx.fail('FUNCTION_ARGUMENT_HIDDEN', call, { name: c.name, target: r.id.name, kind: hidden?.kind ?? 'variable' })
  }
  const rename = (b: Binding): void => renameBinding(b, ctx.temp(`${b.name}_`), refs.get(b) ?? [], scopes.shorthands)
  // The function parameters' bindings, taken before any renaming: a function passed may read a name like one of them (`rec((y) => y + f, n)`), which renames it.
  const own = new Map([...c.params].map(([i, p]) => [i, scopes.own!.names.get(p)!]))
  // Declared once every parameter has its final name: a name passed that a function parameter of the copy has (`h((v) => v * 2, f, k)` for `h(f, g, x)`) renames it.
  const declared: Array<readonly [Binding, ArrowFunctionExpression | FunctionExpression]> = []
  for (const [i, arg] of args) {
    const b = own.get(i)!
    if (arg.type === 'Identifier') {
      // Each call of the parameter becomes a call of the function named: nothing of the copy's may hide that name there.
      for (const r of refs.get(b) ?? []) {
        const hides = resolve(arg.name, r.scope)
        if (hides && hides !== b) rename(hides)
      }
      for (const r of refs.get(b) ?? []) r.id.name = arg.name
      // The parameter is gone: a function passed at another parameter reading its old name must not rename these calls (`comp(double, (i) => i + f, k)`).
      b.scope.names.delete(b.name)
      continue
    }
    // The function is declared at the top of the copy's body, where the copy's parameters and top-level names would hide what it reads.
    for (const free of freeNames(arg)) {
      const hides = scopes.own!.names.get(free)
      if (hides) rename(hides)
    }
    declared.push([b, arg])
  }
  // Recursion: the helper called with its own function parameters passed on is this copy.
  for (const r of scopes.references) {
    const inner = r.parent as CallExpression
    if (r.key !== 'callee' || r.id.name !== c.name || resolve(c.name, r.scope) !== null || inner.type !== 'CallExpression') continue
    const passesOn = [...c.params.keys()].every((i) => {
      const a = inner.arguments[i] as AnyNode | undefined
      const b = own.get(i)!
      return a?.type === 'Identifier' && a.name === (args.get(i)!.type === 'Identifier' ? (args.get(i) as Identifier).name : b.name)
    })
    if (!passesOn) continue
    // It passes on what the call passes (outward's variables): a variable of the copy's of such a name there is renamed.
    for (const p of passed) {
      const hides = resolve(p, r.scope)
      if (hides) rename(hides)
    }
    inner.callee = identifier(name, inner.callee)
    inner.arguments = [...passed.map((p) => identifier(p, inner)), ...inner.arguments.filter((_, i) => !c.params.has(i))]
  }
  // The variables of the arrows the copy is declared outside of come first (the helper's defaults and rest stay where they were).
  copy.params = [...passed.map((p) => identifier(p, copy)), ...copy.params.filter((_, i) => !c.params.has(i))]
  const consts = declared.map(([b, arg]) => located('VariableDeclaration', { kind: 'const', declarations: [located('VariableDeclarator', { id: identifier(b.name, arg), init: arg }, arg)] }, arg) as Statement)
  copy.body = { ...copy.body, body: [...consts, ...copy.body.body] } as BlockStatement
  return copy
}

/** The names a function written at a call reads from around it (its own parameters and variables aside). */
function freeNames(f: ArrowFunctionExpression | FunctionExpression): Set<string> {
  const s = functionScopes(asDeclaration('', f))
  return new Set(s.references.filter((r) => resolve(r.id.name, r.scope) === null).map((r) => r.id.name))
}

const STATEMENT_LISTS: Record<string, string> = { BlockStatement: 'body', SwitchCase: 'consequent' }

/**
 * Declare `copy` where the call can see it: before the statement holding the call, in its list of
 * statements. A statement standing alone (the body of an `if` or a loop) becomes a block of the two,
 * and an arrow's expression body a block returning it, so the copy sees the variables the call sees.
 */
function declareBefore(call: Node, copy: FunctionDeclaration, parents: Map<Node, AnyNode>, through: ReadonlySet<Node>): void {
  let node: AnyNode = call as AnyNode
  for (let up = parents.get(node); up; node = up, up = parents.get(node)) {
    // The nodes made here are recorded as parents too: a later call under them is declared in them.
    if (up.type === 'ArrowFunctionExpression' && up.body === node && !through.has(up)) {
      const ret = located('ReturnStatement', { argument: node }, node)
      const block = located('BlockStatement', { body: [copy, ret] }, node)
      up.body = block
      up.expression = false
      parents.set(block, up).set(ret, block).set(node, ret)
      return
    }
    const list = STATEMENT_LISTS[up.type]
    // A `case`'s test is not one of its statements: the copy goes before the `switch`.
    if (list && (up[list] as Node[]).includes(node)) {
      const body = up[list] as Node[]
      body.splice(body.indexOf(node), 0, copy)
      return
    }
    if (/Statement$|Declaration$/.test(node.type) && isStatementSlot(up, node)) {
      const block = located('BlockStatement', { body: [copy, node] }, node)
      for (const key of Object.keys(up)) if (up[key] === node) up[key] = block
      parents.set(block, up).set(node, block)
      return
    }
  }
}

/**
 * The expression-bodied arrows around the call that its copy may be declared outside of, and the
 * variables of theirs the functions passed read, which the copy is then passed. Declared inside, the
 * arrow would take a block, and `Promise.all(xs.map((x) => withRetry(() => get(x), 3)))` would no longer
 * be a call of an async function that Promise.all waits for (AJS2039). A variable assigned in the arrow
 * keeps the copy inside it: the copy reads it when the function passed runs, not when it is called.
 */
function outward(call: Node, args: ReadonlyMap<number, FunctionArgument>, scope: LocalScope, parents: Map<Node, AnyNode>): { through: Set<Node>; passed: Binding[] } {
  const through = new Set<Node>()
  const passed: Binding[] = []
  let reads: Binding[] | undefined
  let node = call as AnyNode
  for (let up = parents.get(node); up; node = up, up = parents.get(node)) {
    if (up.type === 'ArrowFunctionExpression' && up.body === node) {
      reads ??= [...args.values()].flatMap((a) => a.type === 'Identifier' ? [] : [...freeNames(a)].map((n) => resolve(n, scope)).filter((b): b is Binding => !!b))
      const own = reads.filter((b) => b.id.start >= up!.start && b.id.start < up!.body.start)
      if (own.some((b) => b.writes.length > 0)) break
      through.add(up)
      for (const b of own) if (!passed.includes(b)) passed.push(b)
      continue
    }
    const list = STATEMENT_LISTS[up.type]
    if ((list && (up[list] as Node[]).includes(node)) || (/Statement$|Declaration$/.test(node.type) && isStatementSlot(up, node))) break
  }
  return { through, passed }
}

/**
 * A variable of a loop's head or of a parameter list holding the call that a function passed reads
 * (`for (let i = 0; i < count((x) => x > i); i++)`, `(x, y = apply((z) => z + x, 1)) => y`): the copy
 * is declared before that loop or function (declareBefore), where the name is another variable or none.
 */
function headRead(call: Node, args: ReadonlyMap<number, FunctionArgument>, scope: LocalScope, parents: Map<Node, AnyNode>, { through, passed }: ReturnType<typeof outward>): { target: string; at: Node } | undefined {
  const heads: Array<readonly [number, number]> = []
  let node = call as AnyNode
  // The same walk as declareBefore's, up to where it declares the copy.
  for (let up = parents.get(node); up; node = up, up = parents.get(node)) {
    if (up.type === 'ArrowFunctionExpression' && up.body === node && !through.has(up)) break
    const list = STATEMENT_LISTS[up.type]
    if (list && (up[list] as Node[]).includes(node)) break
    if (/Statement$|Declaration$/.test(node.type) && isStatementSlot(up, node)) break
    if (/^For(In|Of)?Statement$/.test(up.type) || (/Function/.test(up.type) && up.params.includes(node))) heads.push([up.start, up.body.start])
  }
  if (heads.length === 0) return undefined
  for (const arg of args.values()) {
    if (arg.type === 'Identifier') continue
    for (const name of freeNames(arg)) {
      const b = resolve(name, scope)
      // A variable of an arrow the copy is declared outside of is passed to it.
      if (b && !passed.includes(b) && heads.some(([from, to]) => b.id.start >= from && b.id.start < to)) return { target: name, at: arg }
    }
  }
  return undefined
}

/** Whether `node` is held alone where a statement goes (an `if`'s branch, a loop's body, a label's statement). */
function isStatementSlot(up: AnyNode, node: AnyNode): boolean {
  return up.consequent === node || up.alternate === node || (up.body === node && up.type !== 'ArrowFunctionExpression' && up.type !== 'FunctionExpression' && up.type !== 'FunctionDeclaration')
}

/** Whether the helper is read only inside top-level functions (a module-level `const x = h(...)` or arrow reading it keeps it). */
function usedOnlyInFunctions(program: Program, c: Candidate, source: string): boolean {
  const re = new RegExp(`(^|[^\\w$.])${c.name.replace(/\$/g, '\\$')}(?![\\w$])`)
  return program.body.every((s) => s.type !== 'VariableDeclaration' || (s.declarations as VariableDeclarator[]).every((d) =>
    (d.id.type === 'Identifier' && d.id.name === c.name) || !d.init || !re.test(source.slice(d.init.start, d.init.end))))
}
