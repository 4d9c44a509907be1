/**
 * Local functions: `function f(x) {}` or `const f = (x) => ...` inside a function, as models write
 * them. AJS functions are not values, so each becomes a top-level helper before the program is
 * lowered, and the variables of the function around it that it reads (its captures) become its first
 * parameters, passed at each call: `f(x)` is `f(k, x)`. JavaScript reads a closure's variables when
 * it runs, and so does this, as long as the local function never assigns them (AJS2051) and, when it
 * is async, they do not change while it waits (AJS2053). A local function may be called, called by
 * another local function (whose captures then include its own), or passed as a callback
 * (`xs.map(f)`, as `(x) => f(k, x)`); any other use is AJS2050. One inside another local function is
 * lifted too, to any depth up to MAX_LOCAL_DEPTH (AJS2064): it reads the variables of every function
 * around it, and the one around it passes them, so reads them itself. Where a call would pass another
 * variable of a captured name (`xs.map((k) => f(k))` when `f` reads the `k` around it, or the entry's
 * own `K` where a helper reads the module's), the captured variable is renamed to a fresh internal name
 * everywhere (or, when it is a parameter the function is called with, the variable in between is),
 * so the call passes the variable JavaScript's closure reads.
 */
import type { ArrowFunctionExpression, BlockStatement, CallExpression, Expression, FunctionDeclaration, Identifier, Node, Pattern, Program } from 'acorn'
import type { LowerContext } from './context.ts'
import { callbackArity } from './lower/calls.ts'
import { blockBody, identifier, parentsOf, topLevelFunction } from './estree.ts'
import { mayDeclareLocal, mayHoldFunctionUnderKey } from './function-text.ts'
import { type Binding, functionScopes, type FunctionScopes, inside, type LocalFunction, type LocalScope, MAX_LOCAL_DEPTH, type Reference, referencesByBinding, renameBinding, resolve } from './local-scopes.ts'

type AnyNode = Node & Record<string, any>

/** Captures a local function may have: each is a parameter of its helper and an argument of each call. */
const MAX_CAPTURES = 64

/** A helper made of a local function: the name it was declared with, and what it reads around it (its first parameters), each by where it is declared. */
export interface LiftedFunction {
  readonly name: string
  readonly captures: ReadonlyArray<{ readonly name: string; readonly declared: Node }>
}

/** The helpers made of local functions, by their new names (the program's helpers now; lower/program.ts lowers them after the rest). */
export function liftLocalFunctions(program: Program, ctx: LowerContext, keep?: Node): Map<string, LiftedFunction> {
  const lifted = new Map<string, LiftedFunction>()
  const tops: Array<{ at: number; fn: FunctionDeclaration }> = []
  program.body.forEach((s, at) => {
    const fn = topLevelFunction(s)
    if (fn?.id) tops.push({ at, fn })
  })
  const scopes = tops.map(({ fn }) => (mayDeclareFunctions(ctx, fn) || ctx.rewrittenFunctions?.has(fn) ? functionScopes(fn) : NO_SCOPES))
  if (scopes.every((s) => s.functions.length === 0)) return lifted
  for (const { tooDeep: f } of scopes) {
    if (f) ctx.fail('LOCAL_FUNCTION_DEPTH', f.declarator?.id ?? (f.node as FunctionDeclaration).id ?? f.node, { name: f.name, max: String(MAX_LOCAL_DEPTH) })
  }
  // How many top-level functions use each name (a top-level function's own name counts too).
  const users = new Map<string, number>()
  for (const { fn } of tops) users.set(fn.id.name, (users.get(fn.id.name) ?? 0) + 1)
  for (const s of scopes) for (const n of s.names) users.set(n, (users.get(n) ?? 0) + 1)
  const inserts = new Map<number, FunctionDeclaration[]>()
  scopes.forEach((s, i) => {
    const made = liftFrom(s, tops[i]!.fn, ctx, users, lifted, keep)
    if (made.length > 0) inserts.set(tops[i]!.at, made)
  })
  // Each before the function it came from: the entry stays the last function.
  const body: Program['body'] = []
  program.body.forEach((s, at) => { body.push(...(inserts.get(at) ?? []), s) })
  program.body = body
  return lifted
}

const NO_SCOPES: FunctionScopes = { references: [], functions: [], names: new Set(), own: null, shorthands: new Map(), tooDeep: null }

/**
 * Whether the text of `fn`'s body has what a local function's declaration starts with, or a function
 * under a key (an object of functions, function-tables.ts): the scopes are built only then (most
 * programs have none, and a transpile of a small one is a few dozen µs). Tested once per function
 * for the three rewrites that ask (function-text.ts).
 */
function mayDeclareFunctions(ctx: LowerContext, fn: FunctionDeclaration): boolean {
  return mayDeclareLocal(ctx, fn) || mayHoldFunctionUnderKey(ctx, fn)
}

function liftFrom(s: FunctionScopes, top: FunctionDeclaration, ctx: LowerContext, users: Map<string, number>, lifted: Map<string, LiftedFunction>, keep?: Node): FunctionDeclaration[] {
  const fns = s.functions.filter((f) => f.node !== keep && f.binding?.fn === f && !(f.declarator && f.binding.writes.length > 0))
  if (fns.length === 0) return []
  const liftable = new Set(fns)
  const found = capturesOf(fns, liftable, s.references, ctx)
  // What a call is made with stays as it is: the function's parameters, and the entry's in the module (`keep`).
  const fixed = new Set<LocalScope | null | undefined>([s.own, s.functions.find((f) => f.node === keep)?.scope])
  // Where each is named (called, passed), found once: unshadow and the rewrite read them.
  const uses: Array<{ r: Reference; f: LocalFunction }> = []
  for (const r of s.references) {
    const f = resolve(r.id.name, r.scope)?.fn
    if (f && liftable.has(f)) uses.push({ r, f })
  }
  unshadow(s, uses, liftable, found, fixed, ctx)
  let parents: Map<Node, AnyNode> | undefined
  const captures = checkedCaptures(fns, found, ctx, (f, b) => awaitedAtOnce(f, b, uses, liftable, top, parents ??= parentsOf(top)))
  const bindings = bindingsByName(s)
  const names = new Map<LocalFunction, string>()
  const nextSuffix = new Map<string, number>()
  for (const f of fns) {
    // Its own name when nothing else has it (what the author reads in a trace); else one after the function it is in.
    const keep = bindings.get(f.name) === 1 && users.get(f.name) === 1 && !lifted.has(f.name)
    let around = f.outer
    while (around && !names.has(around)) around = around.outer
    const prefix = around ? names.get(around)! : top.id!.name
    const base = `${prefix}_${f.name}`
    let name = keep ? f.name : base
    // A number once taken stays taken: the search for a base goes on where it last stopped (k functions of one name were k² tries).
    let n = nextSuffix.get(base) ?? 2
    for (; !keep && (users.has(name) || lifted.has(name)); n++) name = `${base}_${n}`
    if (!keep) nextSuffix.set(base, n)
    lifted.set(name, { name: f.name, captures: captures.get(f)!.map((b) => ({ name: b.name, declared: b.id })) })
    names.set(f, name)
  }
  for (const { r, f } of uses) rewriteUse(r, f, names.get(f)!, captures.get(f)!, ctx)
  return fns.map((f) => {
    remove(f)
    return helperOf(f, names.get(f)!, captures.get(f)!)
  })
}

/** How many bindings each name has in the function (Infinity when it also reaches a helper, atom or global). */
function bindingsByName(s: FunctionScopes): Map<string, number> {
  const seen = new Map<string, Set<Binding> | null>()
  for (const r of s.references) {
    const b = resolve(r.id.name, r.scope)
    const set = seen.get(r.id.name)
    if (set === null) continue
    if (!b) seen.set(r.id.name, null)
    else if (set) set.add(b)
    else seen.set(r.id.name, new Set([b]))
  }
  for (const f of s.functions) {
    const set = seen.get(f.name)
    if (set === undefined && f.binding) seen.set(f.name, new Set([f.binding]))
    else if (set && f.binding) set.add(f.binding)
  }
  const out = new Map<string, number>()
  for (const [name, set] of seen) out.set(name, set === null ? Infinity : set.size)
  return out
}

/**
 * The variables each local function reads from the functions around it: its own and those of the local
 * functions it calls, to a fixed point (a worklist: a function grows, its callers are looked at again).
 * A read inside a function that stays where it is (a callback) is the read of the local function it is in.
 * Refuses a local function that assigns one.
 */
function capturesOf(fns: LocalFunction[], liftable: Set<LocalFunction>, refs: Reference[], ctx: LowerContext): Map<LocalFunction, Set<Binding>> {
  const all = new Map<LocalFunction, Set<Binding>>()
  const callers = new Map<LocalFunction, Set<LocalFunction>>()
  for (const f of fns) { all.set(f, new Set()); callers.set(f, new Set()) }
  const add = (f: LocalFunction, b: Binding): boolean => {
    const mine = all.get(f)!
    if (mine.has(b) || inside(b.scope, f)) return false
    if (mine.size >= MAX_CAPTURES) ctx.fail('LOCAL_FUNCTION_CAPTURES', f.node, { name: f.name, max: String(MAX_CAPTURES) })
    mine.add(b)
    return true
  }
  for (const r of refs) {
    let f = r.scope.within
    while (f && !liftable.has(f)) f = f.outer
    const b = f ? resolve(r.id.name, r.scope) : null
    if (!f || !b) continue
    // A call of one declared inside it too: what that one reads around `f` is read by `f`.
    if (b.fn && liftable.has(b.fn)) { callers.get(b.fn)!.add(f); continue }
    if (inside(b.scope, f)) continue
    if (r.write) ctx.fail('LOCAL_FUNCTION_ASSIGNS', r.id, { name: f.name, target: b.name })
    add(f, b)
  }
  const work = [...fns]
  while (work.length > 0) {
    const g = work.pop()!
    for (const f of callers.get(g)!) {
      let grew = false
      for (const b of all.get(g)!) grew = add(f, b) || grew
      if (grew) work.push(f)
    }
  }
  return all
}

/**
 * Where a call of a local function would pass another variable for one it reads (`xs.map((k) => f(k))`, `f`
 * reading the `k` around it), or a function reads two variables of one name, one of them gets a fresh name: the
 * captured one (every call then passes it), or, when it is a parameter of `fixed`, the one in between.
 * Only a `var`, a class or a function that is not lifted cannot be renamed: AJS2052 (refused anyway).
 */
function unshadow(s: FunctionScopes, uses: ReadonlyArray<{ r: Reference; f: LocalFunction }>, liftable: Set<LocalFunction>, captures: Map<LocalFunction, Set<Binding>>, fixed: Set<LocalScope | null | undefined>, ctx: LowerContext): void {
  let refsOf: Map<Binding, Reference[]> | undefined
  const renamable = (b: Binding): boolean =>
    b.kind === 'const' || b.kind === 'let' || b.kind === 'catch' || (b.kind === 'param' && !fixed.has(b.scope)) || (b.kind === 'function' && !!b.fn && liftable.has(b.fn))
  const rename = (b: Binding): void => {
    refsOf ??= referencesByBinding(s.references)
    renameBinding(b, ctx.temp(`${b.name}_`), refsOf.get(b) ?? [], s.shorthands)
  }
  for (const { r, f } of uses) {
    for (const b of captures.get(f)!) {
      for (let c = resolve(b.name, r.scope); c !== b; c = resolve(b.name, r.scope)) {
        if (renamable(b)) rename(b)
        else if (c && renamable(c)) rename(c)
        else ctx.fail('LOCAL_FUNCTION_SHADOWED', r.id, { name: f.name, target: b.name, kind: c?.kind ?? 'global' })
      }
    }
  }
  for (const [f, caps] of captures) {
    const seen = new Map<string, Binding>()
    for (const b of caps) {
      const other = seen.get(b.name)
      if (other) {
        const moved = renamable(b) ? b : renamable(other) ? other : ctx.fail('LOCAL_FUNCTION_SHADOWED', f.node, { name: f.name, target: b.name, kind: b.kind })
        rename(moved)
        seen.set(moved.name, moved)
      }
      seen.set(b.name, b)
    }
  }
}

/**
 * Each local function's captures, in the order of their names; an async one may read only variables
 * that do not change, unless `exact` shows that it reads them as JavaScript's closure would.
 */
function checkedCaptures(fns: LocalFunction[], found: Map<LocalFunction, Set<Binding>>, ctx: LowerContext, exact: (f: LocalFunction, b: Binding) => boolean): Map<LocalFunction, Binding[]> {
  const out = new Map<LocalFunction, Binding[]>()
  // The deepest first: the one that reads the variable itself is named, not the one calling it.
  for (const f of [...fns].sort((a, b) => b.depth - a.depth)) {
    const list = [...found.get(f)!].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const changing = f.node.async ? list.find((b) => b.writes.length > 0 && !exact(f, b)) : undefined
    // A copy of a helper given a function, or that function, is named as the helper, at the call.
    const copy = changing && ctx.functionArgumentCopies?.get(f.node)
    if (copy) ctx.fail('FUNCTION_ARGUMENT_ASYNC_READS', copy.call, { name: copy.helper, target: changing.name })
    if (changing) ctx.fail('LOCAL_FUNCTION_ASYNC_READS', f.node, { name: f.name, target: changing.name })
    out.set(f, list)
  }
  return out
}

/**
 * Whether every use of the async local function `f` is a call awaited at once (`total += await f(x)`) in
 * the function declaring `b`, or in an async local function called so (itself checked for `b`, which it
 * reads through `f`): while `f` runs, the only code that may assign `b` waits for it, and no callback of
 * `Promise.all` or a method runs beside it, so `f` reads the value it was called with, as JavaScript's
 * closure would read it. A use as a callback, or a call in a function that stays where it is, is not.
 * Only asked where AJS2053 would refuse (the parents are found then).
 */
function awaitedAtOnce(f: LocalFunction, b: Binding, uses: ReadonlyArray<{ r: Reference; f: LocalFunction }>, liftable: Set<LocalFunction>, top: FunctionDeclaration, parents: Map<Node, AnyNode>): boolean {
  const declaring = b.scope.within?.node ?? top
  const lifted = new Set<Node>([...liftable].map((l) => l.node))
  const mine = uses.filter((u) => u.f === f)
  return mine.length > 0 && mine.every(({ r }) => {
    const call = r.parent as AnyNode
    if (r.key !== 'callee' || call.type !== 'CallExpression' || call.optional) return false
    let node: AnyNode = call
    let up = parents.get(node)
    if (up?.type !== 'AwaitExpression') return false
    for (; up; node = up, up = parents.get(node)) {
      if (up === declaring) return true
      if (/Function/.test(up.type) && !lifted.has(up)) return false
    }
    return declaring === top
  })
}

/** A call gets the captures first; a method's callback becomes `(a, b) => f(captures, a, b)`; anything else is refused. */
function rewriteUse(r: Reference, f: LocalFunction, name: string, caps: Binding[], ctx: LowerContext): void {
  // Every capture's name means the captured variable here (unshadow).
  const parent = r.parent as AnyNode
  if ((parent.type === 'CallExpression') && r.key === 'callee') {
    r.id.name = name
    ;(parent as CallExpression).arguments.unshift(...captureArguments(caps, r.id, ctx))
    return
  }
  // A method's argument: a callback (which methods take one is the lowering's to say).
  if (parent.type === 'CallExpression' && r.key === 'arguments' && parent.callee.type === 'MemberExpression') {
    r.id.name = name
    if (caps.length === 0) return
    // As many as it declares; with a rest parameter, every argument the method passes (it gathers the rest).
    const rest = f.node.params.some((p) => p.type === 'RestElement')
    const method = parent.callee.property.type === 'Identifier' ? parent.callee.property.name : ''
    const count = rest ? callbackArity(method) : f.node.params.length
    const params = Array.from({ length: count }, (_, i) => identifier(ctx.temp(`${f.name}Arg${i}`), r.id))
    const call = { type: 'CallExpression', callee: identifier(name, r.id), arguments: [...captureArguments(caps, r.id, ctx), ...params.map((p) => identifier(p.name, r.id))], optional: false, start: r.id.start, end: r.id.end }
    const arrow = { type: 'ArrowFunctionExpression', id: null, params, body: call, expression: true, async: false, generator: false, start: r.id.start, end: r.id.end }
    parent.arguments[r.index] = arrow as unknown as ArrowFunctionExpression
    return
  }
  // One that reads nothing around it is a helper like any other: the lowering says where one may stand
  // (`storeProcedure({ ast: f })`) and refuses it elsewhere (AJS3006).
  if (caps.length === 0) { r.id.name = name; return }
  ctx.fail('LOCAL_FUNCTION_VALUE', r.id, { name: f.name })
}

/** The arguments a call passes for the captures (marked: a Date, Map or Set variable may be passed there). */
function captureArguments(caps: Binding[], at: Node, ctx: LowerContext): Identifier[] {
  return caps.map((b) => {
    const arg = identifier(b.name, at)
    ctx.captureArguments.add(arg)
    return arg
  })
}

/** The declaration goes: the statement, or the declarator (with its statement when it was the last). */
function remove(f: LocalFunction): void {
  const empty = { type: 'EmptyStatement', start: f.declaration.start, end: f.declaration.end } as Node
  if (!f.declarator) {
    const i = f.container.indexOf(f.declaration)
    if (i >= 0) f.container[i] = empty
    return
  }
  const decl = f.declaration as AnyNode
  decl.declarations = decl.declarations.filter((d: Node) => d !== f.declarator)
  if (decl.declarations.length === 0) {
    const i = f.container.indexOf(f.declaration)
    if (i >= 0) f.container[i] = empty
  }
}

function helperOf(f: LocalFunction, name: string, caps: Binding[]): FunctionDeclaration {
  const n = f.node
  const body = blockBody(n.body)
  const params = [...caps.map((b) => identifier(b.name, n) as Pattern), ...n.params]
  return { type: 'FunctionDeclaration', id: identifier(name, f.declarator?.id ?? (n as FunctionDeclaration).id ?? n), params, body, async: n.async, generator: false, expression: false, start: n.start, end: n.end } as FunctionDeclaration
}
