/**
 * Functions that make functions, as models write comparators and mappers:
 *   const byKey = (k) => (a, b) => a[k] - b[k]        ...   items.sort(byKey('price'))
 *   function scaleBy(f) { return (x) => x * f }       ...   xs.map(scaleBy(rate))
 * AJS functions are not values, so a factory's call cannot give one. Where the call is an argument of
 * a call (the callback of an array method, a function handed to a helper), the function it returns is
 * written there instead, each of the factory's parameters replaced by the call's argument:
 * `items.sort((a, b) => a['price'] - b['price'])`. JavaScript reads an argument once, at the call; the
 * function written there reads it where it runs: the same value, as each argument is a literal, a
 * variable nothing assigns (a parameter, a `const`, a `let` never assigned) or a function's name
 * (`xs.map(compose(double, inc))`). The factory is an arrow
 * whose body is the function, or one `return` of it, with plain parameters; the names the function
 * reads besides them must mean the same at the call (none declared again in between), and none of its
 * own may hide a variable passed. A factory every use of which is such a call is dropped. A call that
 * cannot be written out is AJS2072, naming why; a call anywhere else (`const cmp = byKey('price')`) is
 * AJS2073: functions are not values.
 */
import type { ArrowFunctionExpression, CallExpression, FunctionDeclaration, FunctionExpression, Identifier, Node, Pattern, Program } from 'acorn'
import type { LowerContext } from './context.ts'
import { forEachChild, parentsOf, topLevelFunction } from './estree.ts'
import { asDeclaration } from './function-argument-candidates.ts'
import { CALLBACK_METHODS } from './globals.ts'
import { type Binding, functionScopes, type FunctionScopes, type LocalScope, referencesByBinding, removeLocalFunction, resolve } from './local-scopes.ts'
import { copyBudget } from './copy-budget.ts'
import { collectNames } from './lower/patterns.ts'

type AnyNode = Node & Record<string, any>
type Made = ArrowFunctionExpression | FunctionExpression
type FactoryNode = FunctionDeclaration | ArrowFunctionExpression | FunctionExpression

/** The text test before any walk: a function whose value is a function (`=> (a, b) =>`, `=> x =>`, `return (x) =>`, `return function`). */
const MAKES_FUNCTION = /(?:=>|\breturn)\s*(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>|\breturn\s+function\b/

/** Global names an argument may be (they hold one value everywhere). */
const CONSTANT_GLOBALS: ReadonlySet<string> = new Set(['undefined', 'NaN', 'Infinity'])

/** The function `fn` makes, when it is a factory: its expression body, or its one `return`'s value. */
function madeBy(fn: FactoryNode): Made | undefined {
  if (fn.async || fn.generator || !fn.params.every((p) => p.type === 'Identifier')) return undefined
  const body = fn.body as AnyNode
  const v = body.type !== 'BlockStatement' ? body : body.body.length === 1 && body.body[0].type === 'ReturnStatement' ? body.body[0].argument : null
  return v && (v.type === 'ArrowFunctionExpression' || (v.type === 'FunctionExpression' && !v.id)) && !v.generator ? v as Made : undefined
}

/** A factory: the function it makes, its parameters' bindings, and the scopes its text was read with. */
interface Factory {
  readonly made: Made
  readonly params: readonly Binding[]
  readonly scopes: FunctionScopes
  /** Where it is declared: removed once every use of it is a call written out. */
  readonly remove: () => void
}

const within = (n: Node, outer: Node): boolean => n.start >= outer.start && n.end <= outer.end

/** `fn` as a factory, its parameters bound in `own` (the scope of its parameters): undefined when it is none, or assigns one. */
function factoryOf(fn: FactoryNode, own: LocalScope | null | undefined, scopes: FunctionScopes, remove: () => void): Factory | undefined {
  const made = madeBy(fn)
  if (!made || !own) return undefined
  const params: Binding[] = []
  for (const p of fn.params as Identifier[]) {
    const b = own.names.get(p.name)
    if (!b || b.writes.length > 0) return undefined
    params.push(b)
  }
  return { made, params, scopes, remove }
}

/** Why a call cannot be written out: the message's end, and the hint's fix. */
interface Refusal { why: string; fix: string }

/** Each call writes the made function out again: together they may not be many times the source (copy-budget.ts). */
const OVER_BUDGET: Refusal = {
  why: 'the functions it makes, written out at each of its calls, would be more than four times the source',
  fix: 'call it in fewer places (one call inside a loop over the arguments), or write one function that reads the argument from data',
}

/**
 * Why the call `call` of `f`, at `scope`, cannot be written out, or undefined when it can: its arguments
 * are literals or variables nothing assigns, none hidden inside the function made, and what that function
 * reads besides its parameters means the same at the call (`local`: the factory is read with the call's scopes).
 */
function refusal(f: Factory, call: CallExpression, scope: LocalScope, local: boolean, helperNames: ReadonlySet<string>): Refusal | undefined {
  if (call.arguments.length !== f.params.length) {
    return { why: `it takes ${f.params.length} argument${f.params.length === 1 ? '' : 's'} and is given ${call.arguments.length}`, fix: 'give it one argument per parameter' }
  }
  const inner = declaredInside(f.made)
  for (const a of call.arguments as AnyNode[]) {
    if (a.type === 'Literal' && !a.regex) continue
    if (a.type === 'TemplateLiteral' && a.expressions.length === 0) continue
    if (a.type === 'UnaryExpression' && a.operator === '-' && a.argument.type === 'Literal' && typeof a.argument.value === 'number') continue
    if (a.type !== 'Identifier') return { why: 'an argument is an expression, which the function would compute again each time it runs', fix: 'keep the argument in a `const` before the call and pass that' }
    if (inner.has(a.name)) return { why: `the function it makes declares \`${a.name}\`, the name of a variable passed`, fix: `rename \`${a.name}\` here or in the function it makes` }
    const b = resolve(a.name, scope)
    // A helper's name passes the helper (`compose(double, inc)`: the function made calls it).
    if (b ? b.writes.length > 0 : !CONSTANT_GLOBALS.has(a.name) && !helperNames.has(a.name)) return { why: `\`${a.name}\` is ${b ? 'assigned after it is declared' : 'not a variable here'}, and the function reads it each time it runs`, fix: `pass a \`const\` copy (\`const ${a.name}Now = ${a.name}\` before the call)` }
  }
  // What the function made reads from around the factory: the same binding at the call (for a helper: none, as there).
  for (const r of f.scopes.references) {
    if (!within(r.id, f.made)) continue
    const b = resolve(r.id.name, r.scope)
    if (b && (within(b.id, f.made) || f.params.includes(b))) continue
    const there = resolve(r.id.name, scope)
    if (b ? !local || there !== b : there !== null) return { why: `the function it makes reads \`${r.id.name}\`, which is another variable here`, fix: `rename this \`${r.id.name}\`` }
  }
  return undefined
}

/**
 * Every name declared inside the function made (its parameters, its variables, catch parameters, and those of
 * the functions in it), read or not: an argument of one of these names would be that variable where it is written.
 */
function declaredInside(made: Made): Set<string> {
  const out = new Set<string>()
  const bind = (p: AnyNode | null): void => {
    const names: Array<{ name: string; node: Node }> = []
    collectNames(p as Pattern | null, names)
    for (const n of names) out.add(n.name)
  }
  const walk = (n: AnyNode): void => {
    if (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration') {
      if (n.id) out.add(n.id.name)
      for (const p of n.params) bind(p)
    } else if (n.type === 'VariableDeclarator') bind(n.id)
    else if (n.type === 'CatchClause') bind(n.param)
    forEachChild(n, walk)
  }
  walk(made as AnyNode)
  return out
}

/** A copy of the function made, each parameter read replaced by a copy of the call's argument. */
function writtenOut(f: Factory, call: CallExpression): Made {
  const args = new Map<Node, AnyNode>()
  const reads = referencesByBinding(f.scopes.references)
  f.params.forEach((b, i) => { for (const r of reads.get(b) ?? []) if (within(r.id, f.made)) args.set(r.id, call.arguments[i] as AnyNode) })
  const copy = (n: AnyNode): AnyNode => {
    const arg = args.get(n)
    if (arg) return structuredClone(arg)
    const out: AnyNode = { ...n }
    for (const key of Object.keys(n)) {
      const v = n[key]
      if (Array.isArray(v)) out[key] = v.map((x) => (x && typeof x.type === 'string' ? copy(x) : x))
      else if (v && typeof v === 'object' && typeof v.type === 'string') out[key] = copy(v)
      else if (v && typeof v === 'object') out[key] = structuredClone(v)
    }
    // `{ k }` with `k` replaced: the key stays, its value is the argument.
    if (n.type === 'Property' && n.shorthand && args.has(n.value)) out.shorthand = false
    return out
  }
  const out = copy(f.made as AnyNode)
  // `function (i) { ... }` is written as the arrow it is in AJS (which has neither `this` nor `arguments`), as a callback is.
  if (out.type === 'FunctionExpression') { out.type = 'ArrowFunctionExpression'; out.expression = false }
  return out as Made
}

/** Whether `call`, an argument of `outer`, is where a function goes: an array method's callback, or a function handed to a helper or a local function. */
function takesFunction(outer: AnyNode, scope: LocalScope, helperNames: ReadonlySet<string>): boolean {
  const callee = outer.callee as AnyNode
  if (callee.type === 'MemberExpression') return !callee.computed && callee.property.type === 'Identifier' && CALLBACK_METHODS.has(callee.property.name)
  if (callee.type !== 'Identifier') return false
  const b = resolve(callee.name, scope)
  return b ? !!b.fn : helperNames.has(callee.name)
}

/** Module-level factories: `function f(k) { return ... }` and `const f = (k) => ...`, by name, each read with its own scopes. */
function helperFactories(program: Program): Map<string, Factory> {
  const out = new Map<string, Factory>()
  for (const s of program.body) {
    const fn = topLevelFunction(s)
    if (fn?.id) {
      if (!madeBy(fn)) continue
      const scopes = functionScopes(fn)
      const f = factoryOf(fn, scopes.own, scopes, () => { program.body = program.body.filter((x) => x !== s) })
      if (f) out.set(fn.id.name, f)
      continue
    }
    if (s.type !== 'VariableDeclaration' || s.kind !== 'const') continue
    for (const d of s.declarations) {
      const init = d.init as AnyNode | null
      if (d.id.type !== 'Identifier' || (init?.type !== 'ArrowFunctionExpression' && init?.type !== 'FunctionExpression') || !madeBy(init as FactoryNode)) continue
      const scopes = functionScopes(asDeclaration(d.id.name, init as ArrowFunctionExpression | FunctionExpression))
      const f = factoryOf(init as FactoryNode, scopes.own, scopes, () => {
        s.declarations = s.declarations.filter((x) => x !== d)
        if (s.declarations.length === 0) program.body = program.body.filter((x) => x !== s)
      })
      if (f) out.set(d.id.name, f)
    }
  }
  return out
}

export function writeOutFunctionFactories(program: Program, ctx: LowerContext): void {
  if (!MAKES_FUNCTION.test(ctx.source)) return
  const tops = program.body.map(topLevelFunction).filter((f): f is FunctionDeclaration => !!f?.id)
  const helpers = helperFactories(program)
  const helperNames = new Set(tops.map((f) => f.id!.name))
  for (const s of program.body) if (s.type === 'VariableDeclaration') for (const d of s.declarations) if (d.id.type === 'Identifier') helperNames.add(d.id.name)
  // A helper factory named outside the functions (a module-level declaration reads it): kept as written.
  const named = new Set<string>()
  for (const s of program.body) {
    if (topLevelFunction(s)) continue
    // Each declarator apart: a module-level factory's own names itself.
    const parts: Node[] = s.type === 'VariableDeclaration' ? s.declarations : [s]
    for (const part of parts) {
      const text = ctx.source.slice(part.start, part.end)
      const own = part.type === 'VariableDeclarator' && (part as AnyNode).id.type === 'Identifier' ? (part as AnyNode).id.name as string : undefined
      for (const n of helpers.keys()) if (n !== own && text.includes(n)) named.add(n)
    }
  }
  const helperUses = new Map<string, { calls: number; written: number }>()
  const pending: Array<() => void> = []
  let budget = copyBudget(ctx.source)
  for (const top of tops) {
    const text = ctx.source.slice(top.body.start, top.body.end)
    const names = [...helpers.keys()].filter((n) => text.includes(n))
    if (names.length === 0 && !MAKES_FUNCTION.test(text)) continue
    const scopes = functionScopes(top)
    // Local factories, by their binding.
    const locals = new Map<Binding, Factory>()
    for (const lf of scopes.functions) {
      const b = lf.binding
      if (!b || b.fn !== lf || b.writes.length > 0) continue
      const f = factoryOf(lf.node, lf.scope, scopes, () => removeLocalFunction(lf))
      if (f) locals.set(b, f)
    }
    if (locals.size === 0 && names.length === 0) continue
    // Calls inside a function a factory makes are copied with it, as written.
    const makers = [...locals.values(), ...(helpers.get(top.id!.name) ? [helpers.get(top.id!.name)!] : [])]
    let parents: Map<Node, AnyNode> | undefined
    const written = new Map<Binding, number>()
    for (const r of scopes.references) {
      const b = resolve(r.id.name, r.scope)
      const f = b ? locals.get(b) : helpers.get(r.id.name)
      if (!f) continue
      let use: { calls: number; written: number } | undefined
      if (!b) {
        use = helperUses.get(r.id.name) ?? { calls: 0, written: 0 }
        helperUses.set(r.id.name, use)
        use.calls++
      }
      const call = r.parent as CallExpression
      if (r.key !== 'callee' || call.type !== 'CallExpression' || call.optional || makers.some((g) => within(call, g.made))) continue
      parents ??= parentsOf(top)
      const outer = parents.get(call)
      const at = outer?.type === 'CallExpression' && takesFunction(outer, r.scope, helperNames) ? (outer.arguments as Node[]).indexOf(call) : -1
      if (at < 0) ctx.fail('FACTORY_VALUE', call, { name: r.id.name })
      const refused = refusal(f, call, r.scope, !!b, helperNames)
      if (refused) ctx.fail('FACTORY_CALL', call, { name: r.id.name, ...refused })
      if ((budget -= f.made.end - f.made.start) < 0) ctx.fail('FACTORY_CALL', call, { name: r.id.name, ...OVER_BUDGET })
      pending.push(() => { outer!.arguments[at] = writtenOut(f, call) })
      if (use) use.written++
      else written.set(b!, (written.get(b!) ?? 0) + 1)
    }
    // A local factory every use of which is written out goes.
    const uses = referencesByBinding(scopes.references)
    for (const [b, n] of written) if ((uses.get(b)?.length ?? 0) === n) pending.push(locals.get(b)!.remove)
  }
  for (const [name, use] of helperUses) if (use.calls === use.written && use.written > 0 && !named.has(name)) pending.push(helpers.get(name)!.remove)
  for (const p of pending) p()
}
