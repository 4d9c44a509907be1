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
 * A parameter qualifies when the helper only calls it, passes it to a method (`xs.map(fn)`), passes
 * it on in the same place to itself, or to another such helper (function-argument-candidates.ts).
 * Everything else (a helper called with data there, a parameter stored or returned) is left as it was,
 * to be lowered or refused as before. A copy of a helper passing its function on holds a call giving
 * a local function, the function passed: a next round over the caller makes that call a copy in turn,
 * inside the first, until no copy made holds one. A call inside copies of the helper it calls, given
 * the same functions, calls the copy around it (recursion, `walk` and `walkKids` passing `visit` to each
 * other); given a function written there, it would need a copy per level: AJS2069. Copies nest at most
 * MAX_COPY_DEPTH deep (AJS2070), and what they write out is bounded by the source's own size (AJS2065).
 */
import type { ArrowFunctionExpression, BlockStatement, CallExpression, FunctionDeclaration, FunctionExpression, Identifier, Node, Program, ReturnStatement, Statement, VariableDeclarator } from 'acorn'
import type { LowerContext } from './context.ts'
import { identifier, located, parentsOf, topLevelFunction } from './estree.ts'
import { asDeclaration, callOf, type Candidate, candidatesOf, localCandidates } from './function-argument-candidates.ts'
import { bodyText, mayDeclareLocal } from './function-text.ts'
import { type Binding, functionScopes, type FunctionScopes, inside, type LocalFunction, type LocalScope, type Reference, referencesByBinding, renameBinding, resolve } from './local-scopes.ts'
import { copyBudget } from './copy-budget.ts'

type AnyNode = Node & Record<string, any>
type FunctionArgument = ArrowFunctionExpression | FunctionExpression | Identifier

/** How deep copies may nest, each made in the one before (a helper passing a function on to another). */
export const MAX_COPY_DEPTH = 16

/** A copy made: of which candidate (its key), given which functions (by position: the function's node, or a helper's name), passed which variables first. */
interface Copy {
  readonly of: Node
  readonly fns: ReadonlyMap<number, Node | string>
  readonly passed: readonly string[]
}


export function specializeFunctionArguments(program: Program, ctx: LowerContext): void {
  const tops = program.body.map(topLevelFunction).filter((f): f is FunctionDeclaration => !!f?.id)
  // The entry is called with the run's arguments, never with functions: `export default`, else the last function.
  const exported = program.body.find((s) => s.type === 'ExportDefaultDeclaration')
  const entry = (exported && topLevelFunction(exported)) ?? tops[tops.length - 1]
  const top = candidatesOf(program, ctx, entry?.id?.name)
  // The functions to look into: those calling a candidate, or declaring a local function (which may be one).
  // The candidates' own bodies first, so that a copy of one holds the copies made inside it.
  const calls = top.size === 0 ? null : callOf(top.keys())
  const order: FunctionDeclaration[] = []
  for (const first of [true, false]) {
    for (const f of tops) {
      if (top.has(f.id!.name) !== first) continue
      if (calls?.test(bodyText(ctx.source, f)) || mayDeclareLocal(ctx, f)) order.push(f)
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
  // Per candidate (its key), the uses that stay its own (a call left as it was, a use as a value) and the calls made copies.
  const kept = new Map<Node, number>()
  const copied = new Map<Node, number>()
  const bump = (m: Map<Node, number>, c: Candidate): void => { m.set(c.key, (m.get(c.key) ?? 0) + 1) }
  // A candidate passing its function parameter on to a helper: the helper stays if the candidate does.
  const passesOn: Array<readonly [Candidate, Candidate]> = []
  const copies = new Map<Node, Copy>()
  const copiesOf = new Map<Node, Node[]>()
  // The helpers a local function of a helper given functions passes its function on to, as written: kept while that helper is.
  const inCandidates = new Map<Candidate, Set<Candidate>>()
  // The candidates holding a call that only their copies can make (passingOn).
  const deferring = new Set<Node>()
  for (const f of order) {
    // The local candidates of every round, by key: the last round's removes them.
    const localsSeen = new Map<Node, Candidate>()
    // The copies the last round made that hold calls to make copies of: the next round looks only into them.
    let within: ReadonlySet<Node> | null = null
    while (true) {
      const scopes = functionScopes(f)
      const locals = localCandidates(scopes, ctx.source, top, calls)
      for (const c of locals.values()) localsSeen.set(c.key, c)
      const around = within && scopes.functions.filter((lf) => within!.has(lf.node))
      const next = new Set<Node>()
      let parents: Map<Node, AnyNode> | undefined
      let refs: Map<Binding, Reference[]> | undefined
      for (const r of scopes.references) {
        if (around && !around.some((lf) => inside(r.scope, lf))) continue
        const b = resolve(r.id.name, r.scope)
        const c = b ? locals.get(b) : top.get(r.id.name)
        if (!c) continue
        // Its own calls are the copies' business (recursion, in copyFor).
        if (c.local ? inside(r.scope, c.local) : c.fn === f) continue
        const call = r.parent as CallExpression
        const isCall = r.key === 'callee' && call.type === 'CallExpression'
        // A candidate passing its own function parameter on: its copies give the function (a later round).
        const from = isCall ? passingOn(call, c, r.scope, scopes, f, top, locals) : undefined
        if (from) {
          passesOn.push([from, c])
          // Its copies made already hold this call: the next round looks into them.
          if (!deferring.has(from.key)) for (const made of copiesOf.get(from.key) ?? []) next.add(made)
          deferring.add(from.key)
          continue
        }
        const args = isCall ? functionArguments(call, c, r.scope, scopes, tops, asyncTop) : undefined
        if (!args) {
          bump(kept, c)
          continue
        }
        // Inside copies of this candidate: the one given the same functions is called; a function written here would need a copy per level.
        const fns = new Map([...args].map(([i, a]) => [i, a.type === 'Identifier' ? resolve(a.name, r.scope)?.fn?.node ?? a.name : a] as const))
        let depth = 0
        let same: LocalFunction | undefined
        for (let lf = r.scope.within; lf && !same; lf = lf.outer) {
          const made = copies.get(lf.node)
          if (!made) continue
          if (++depth >= MAX_COPY_DEPTH) ctx.fail('FUNCTION_ARGUMENT_DEPTH', call, { name: c.name, max: String(MAX_COPY_DEPTH) })
          if (made.of !== c.key) continue
          if ([...fns].every(([i, fn]) => made.fns.get(i) === fn)) same = lf
          // A function made inside this copy (written here, or declared in it): each level would make another.
          else if ([...args.values()].some((a) => { const fb = a.type === 'Identifier' ? resolve(a.name, r.scope) : null; return a.type !== 'Identifier' || (!!fb && inside(fb.scope, lf)) })) ctx.fail('FUNCTION_ARGUMENT_RECURSION', call, { name: c.name })
        }
        if (same) {
          const passed = copies.get(same.node)!.passed
          // What it passes first are the copy's parameters: a variable between of such a name is renamed.
          for (const p of passed) {
            for (let hides = resolve(p, r.scope); hides && hides.scope !== same.scope; hides = resolve(p, r.scope)) {
              renameBinding(hides, ctx.temp(`${p}_`), (refs ??= referencesByBinding(scopes.references)).get(hides) ?? [], scopes.shorthands)
            }
          }
          call.callee = identifier(same.name, call.callee)
          call.arguments = [...passed.map((p) => identifier(p, call)), ...call.arguments.filter((_, i) => !c.params.has(i))]
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
        const { copy, recurs } = copyFor(c, args, fresh(c.name), call, r.scope, ctx, passed)
        call.callee = identifier(copy.id!.name, call.callee)
        call.arguments = [...passed.map((p) => identifier(p, call)), ...call.arguments.filter((_, i) => !c.params.has(i))]
        declareBefore(call, copy, parents, out.through)
        copies.set(copy, { of: c.key, fns, passed })
        copiesOf.set(c.key, [...copiesOf.get(c.key) ?? [], copy])
        if (c.passes.size > 0 || recurs || deferring.has(c.key)) next.add(copy)
        ctx.functionArgumentCopies ??= new Map()
        for (const n of [copy, ...args.values()]) if (n.type !== 'Identifier') ctx.functionArgumentCopies.set(n, { helper: c.name, call })
        ctx.rewrittenFunctions ??= new Set()
        ctx.rewrittenFunctions.add(f)
        bump(copied, c)
      }
      if (next.size === 0) break
      within = next
    }
    // A local candidate that stays (and is not inside one that goes) passes its function on as written: what it passes it to stays too.
    const going = new Set([...localsSeen.values()].filter((c) => copied.has(c.key) && !kept.has(c.key)).map((c) => c.key))
    const owner = top.get(f.id!.name)
    const stays = (c: Candidate): boolean => {
      for (let lf: LocalFunction | null | undefined = c.local; lf; lf = lf.outer) if (going.has(lf.node)) return false
      return true
    }
    for (let more = true; more;) {
      more = false
      for (const [from, to] of passesOn) {
        if (!from.local || localsSeen.get(from.key) === undefined || !stays(from) || kept.has(to.key)) continue
        // In a helper given functions, it stays only if the helper does (decided last, with the helpers).
        if (owner && !to.local) { inCandidates.set(to, (inCandidates.get(to) ?? new Set()).add(owner)); continue }
        bump(kept, to)
        going.delete(to.key)
        more = true
      }
    }
    for (const c of localsSeen.values()) if (going.has(c.key)) c.remove()
  }
  // Those every use of which became a copy's go, unless a module-level declaration that stays reads one, or one
  // that stays passes its function on to it as written: the largest such set (one going may let another go).
  const going = new Set([...top.values()].filter((c) => copied.has(c.key) && !kept.has(c.key)))
  for (let dropped = true; dropped;) {
    dropped = false
    const names = new Set([...going].map((c) => c.name))
    for (const c of going) {
      if (usedOnlyInFunctions(program, c, ctx.source, names) && passesOn.every(([from, to]) => to.key !== c.key || from.local || going.has(from)) && [...inCandidates.get(c) ?? []].every((o) => going.has(o))) continue
      going.delete(c)
      dropped = true
    }
  }
  for (const c of going) c.remove()
}

/**
 * The candidate around `call` whose own function parameter `call` passes to `c` where it takes a function,
 * or calls in a function written there as awaitingCall would await it (`withRetry((i) => g(0, i), 3)`:
 * whether `g` is async is known in the candidate's copies), if any: the copies make the call's.
 */
function passingOn(call: CallExpression, c: Candidate, scope: LocalScope, scopes: FunctionScopes, f: FunctionDeclaration, top: ReadonlyMap<string, Candidate>, locals: ReadonlyMap<Binding, Candidate>): Candidate | undefined {
  for (const i of c.params.keys()) {
    const a = call.arguments[i] as AnyNode | undefined
    if (!a) continue
    const names = a.type === 'Identifier' ? [a.name as string] : (a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression') && !a.async ? calledNames(a as ArrowFunctionExpression) : []
    for (const name of names) {
      const b = resolve(name, scope)
      if (b?.kind !== 'param') continue
      const lf = b.scope.within
      const from = b.scope === scopes.own ? top.get(f.id!.name) : lf && lf.scope === b.scope && lf.binding ? locals.get(lf.binding) : undefined
      if (from && (from.local ? true : from.fn === f) && [...from.params.values()].includes(b.name)) return from
    }
  }
  return undefined
}

const namedCall = (e: AnyNode | null | undefined): e is CallExpression => e?.type === 'CallExpression' && e.callee.type === 'Identifier'

/** The names a function returns a call of (`() => g(x)`, `{ return g(x) }`): those awaitingCall may await. */
function calledNames(a: ArrowFunctionExpression | FunctionExpression): string[] {
  const body = a.body as AnyNode
  if (body.type !== 'BlockStatement') return namedCall(body) ? [(body.callee as Identifier).name] : []
  return awaitableReturns(body as BlockStatement, namedCall).map((r) => (r.argument.callee as Identifier).name)
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
function copyFor(c: Candidate, args: ReadonlyMap<number, FunctionArgument>, name: string, call: CallExpression, callScope: LocalScope, ctx: LowerContext, passed: readonly string[]): { copy: FunctionDeclaration; recurs: boolean } {
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
  // Recursion: the helper called with its own function parameters passed on is this copy; called otherwise, a next round looks at the call.
  let recurs = false
  for (const r of scopes.references) {
    const inner = r.parent as CallExpression
    if (r.key !== 'callee' || r.id.name !== c.name || resolve(c.name, r.scope) !== null || inner.type !== 'CallExpression') continue
    const passesOn = [...c.params.keys()].every((i) => {
      const a = inner.arguments[i] as AnyNode | undefined
      const b = own.get(i)!
      return a?.type === 'Identifier' && a.name === (args.get(i)!.type === 'Identifier' ? (args.get(i) as Identifier).name : b.name)
    })
    if (!passesOn) { recurs = true; continue }
    // It passes on what the call passes (outward's variables): a variable of the copy's of such a name there is renamed.
    for (const p of passed) for (let hides = resolve(p, r.scope); hides; hides = resolve(p, r.scope)) rename(hides)
    inner.callee = identifier(name, inner.callee)
    inner.arguments = [...passed.map((p) => identifier(p, inner)), ...inner.arguments.filter((_, i) => !c.params.has(i))]
  }
  // The variables of the arrows the copy is declared outside of come first (the helper's defaults and rest stay where they were).
  copy.params = [...passed.map((p) => identifier(p, copy)), ...copy.params.filter((_, i) => !c.params.has(i))]
  const consts = declared.map(([b, arg]) => located('VariableDeclaration', { kind: 'const', declarations: [located('VariableDeclarator', { id: identifier(b.name, arg), init: arg }, arg)] }, arg) as Statement)
  copy.body = { ...copy.body, body: [...consts, ...copy.body.body] } as BlockStatement
  return { copy, recurs }
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

/** Whether the helper is read only inside top-level functions (a module-level `const x = h(...)` or arrow reading it keeps it, unless it is one of `going`). */
function usedOnlyInFunctions(program: Program, c: Candidate, source: string, going: ReadonlySet<string>): boolean {
  const re = new RegExp(`(^|[^\\w$.])${c.name.replace(/\$/g, '\\$')}(?![\\w$])`)
  return program.body.every((s) => s.type !== 'VariableDeclaration' || (s.declarations as VariableDeclarator[]).every((d) =>
    (d.id.type === 'Identifier' && (d.id.name === c.name || going.has(d.id.name))) || !d.init || !re.test(source.slice(d.init.start, d.init.end))))
}
