/**
 * Objects of functions, as models write dispatch tables inside a function:
 *   const tools = { search: async (q) => ..., add: (a, b) => a + b }
 *   const r = await tools[step.tool](step.args)
 * AJS functions are not values, so each function becomes a local function of its own
 * (`tools_search`, lifted by local-functions.ts), and the object's uses are rewritten where that is exact:
 * `tools.add(x)` calls it, `tools[k](x)` calls the one `k` names (`k === 'search' ? tools_search(x) : ...`,
 * a TypeError for any other key, as JavaScript's "is not a function"; a key computed by a call or an expression,
 * `tools[pick(s)](x)`, is computed once, before the arguments, into a variable of its own), `k in tools` and a test of
 * `tools[k]` ask whether `k` is one of its keys, and `Object.keys(tools)` lists them. Any other use
 * (the object handed on, a function read as a value) is AJS2061; a key it does not have AJS2062.
 * The object must be a `const` whose properties are all functions under plain keys.
 */
import type { Expression, FunctionDeclaration, Identifier, Node, Program, VariableDeclaration, VariableDeclarator } from 'acorn'
import type { LowerContext } from './context.ts'
import { TranspileError } from '../diagnostics/diagnostic.ts'
import { type Binding, functionScopes, type Reference, resolve } from './local-scopes.ts'
import { didYouMean } from './suggest.ts'
import { blockBody, forEachChild, identifier, located, stringLiteral, topLevelFunction } from './estree.ts'
import { mayHoldFunctionUnderKey } from './function-text.ts'
import { copyBudget } from './copy-budget.ts'

type AnyNode = Node & Record<string, any>

interface Table {
  readonly declarator: VariableDeclarator
  readonly declaration: VariableDeclaration
  readonly keys: string[]
  readonly values: Expression[]
}


export function liftFunctionTables(program: Program, ctx: LowerContext): void {
  for (const s of program.body) {
    const fn = topLevelFunction(s)
    if (!fn || !mayHoldFunctionUnderKey(ctx, fn)) continue
    const tables = new Map<Node, Table>()
    findTables(fn.body as AnyNode, tables)
    if (tables.size > 0) liftFrom(fn, tables, ctx)
  }
}

/** `const t = { k: (…) => …, … }` declarators anywhere in `node`, by their declared name. */
function findTables(node: AnyNode, out: Map<Node, Table>): void {
  if (node.type === 'VariableDeclaration' && node.kind === 'const') {
    for (const d of node.declarations as VariableDeclarator[]) {
      const table = tableOf(d, node as VariableDeclaration)
      if (table) out.set(d.id, table)
    }
  }
  forEachChild(node, (x) => findTables(x, out))
}

function tableOf(d: VariableDeclarator, declaration: VariableDeclaration): Table | undefined {
  const init = d.init as AnyNode | null
  if (d.id.type !== 'Identifier' || init?.type !== 'ObjectExpression' || init.properties.length === 0) return undefined
  const keys: string[] = []
  const values: Expression[] = []
  for (const p of init.properties as AnyNode[]) {
    if (p.type !== 'Property' || p.computed || p.kind !== 'init') return undefined
    const key = p.key.type === 'Identifier' ? p.key.name : typeof p.key.value === 'string' ? p.key.value : undefined
    const v = p.value as AnyNode
    const fn = v.type === 'ArrowFunctionExpression' || (v.type === 'FunctionExpression' && !v.id && !v.generator)
    if (key === undefined || !fn || keys.includes(key)) return undefined
    keys.push(key)
    values.push(v as Expression)
  }
  return { declarator: d, declaration, keys, values }
}

function liftFrom(fn: FunctionDeclaration, tables: Map<Node, Table>, ctx: LowerContext): void {
  const s = functionScopes(fn)
  const found = new Map<Binding, Table>()
  for (const r of s.references) {
    const b = resolve(r.id.name, r.scope)
    const t = b && tables.get(b.id)
    if (t && b.writes.length === 0) found.set(b, t)
  }
  const names = new Map<Binding, string[]>()
  for (const [b, t] of found) {
    checkWrittenOut(b, t, s.references, ctx)
    names.set(b, t.keys.map((k) => fresh(`${b.name}_${k.replace(/[^\w$]/g, '_')}`, s.names)))
  }
  const temps: Temps = { taken: s.names, fn, within: undefined }
  // Last first: a use inside another's arguments or key is rewritten before those are copied into each branch.
  // A refused use changes nothing, so the others go on, and the first refused in the source is the one reported.
  let refused: TranspileError | undefined
  for (let i = s.references.length - 1; i >= 0; i--) {
    const r = s.references[i]!
    const b = resolve(r.id.name, r.scope)
    const t = b && found.get(b)
    try {
      if (t) rewrite(r, b.name, t, names.get(b)!, temps, ctx)
    } catch (e) {
      if (!(e instanceof TranspileError)) throw e
      refused = e
    }
  }
  if (refused) throw refused
  for (const [b, t] of found) {
    const at = t.declaration.declarations.indexOf(t.declarator)
    t.declaration.declarations.splice(at, 1, ...t.values.map((v, i) => ({ type: 'VariableDeclarator', id: identifier(names.get(b)![i]!, t.declarator.id), init: v, start: v.start, end: v.end }) as VariableDeclarator))
  }
}

/**
 * A call by a computed key is written out once per function, its arguments copied into each branch (and the last, unknown key's): what that
 * writes is bounded by the source's own size (a few small tables are far below it), so a source cannot make the
 * transpiler build more than a few times what it was given.
 */
function checkWrittenOut(b: Binding, t: Table, refs: Reference[], ctx: LowerContext): void {
  let chars = 0
  for (const r of refs) {
    const m = r.parent as AnyNode
    const holder = r.outer?.parent as AnyNode | undefined
    if (r.key !== 'object' || m.type !== 'MemberExpression' || !m.computed || m.property.type === 'Literal' || holder?.type !== 'CallExpression' || r.outer!.key !== 'callee') continue
    if (resolve(r.id.name, r.scope) !== b) continue
    chars += (t.keys.length + 1) * (holder.end - m.end + 32)
  }
  if (chars > copyBudget(ctx.source)) ctx.fail('TABLE_TOO_LARGE', t.declarator, { name: b.name, count: String(t.keys.length) })
}

function fresh(base: string, taken: Set<string>): string {
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
  taken.add(name)
  return name
}


/** Turn `node` into `fresh` in place (every holder of it sees the new node). */
function replace(node: Node, fresh: Record<string, any>): void {
  const n = node as AnyNode
  for (const k of Object.keys(n)) if (k !== 'start' && k !== 'end') delete n[k]
  Object.assign(n, fresh, { start: node.start, end: node.end })
}

/** `[keys].includes(key)`. */
function hasKey(t: Table, key: Expression, at: Node): Record<string, any> {
  return methodCall(located('ArrayExpression', { elements: t.keys.map((k) => stringLiteral(k, at)) }, at), 'includes', [key], at)
}

/** `object.method(...args)`. */
const methodCall = (object: Node, method: string, args: Node[], at: Node) =>
  located('CallExpression', { callee: located('MemberExpression', { object, property: identifier(method, at), computed: false, optional: false }, at), arguments: args, optional: false }, at)

/** Whether an expression reads only names and literals (the key of `t[k](…)`, copied into each branch). */
function readOnlyKey(e: AnyNode): boolean {
  if (e.type === 'Identifier' || e.type === 'Literal') return true
  return e.type === 'MemberExpression' && readOnlyKey(e.object) && (!e.computed || readOnlyKey(e.property))
}


/**
 * `k === 'a' ? t_a(…) : k === 'b' ? t_b(…) : [… the arguments, throw TypeError(message)]`, `key(i)` the key the test
 * of the i-th reads: for a key it does not have, the arguments are evaluated and then the TypeError thrown, as JavaScript does.
 */
function dispatch(holder: AnyNode, key: (i: number) => Node, t: Table, names: string[], message: string): Record<string, any> {
  const thrower = located('ThrowStatement', { argument: located('NewExpression', { callee: identifier('TypeError', holder), arguments: [stringLiteral(message, holder)] }, holder) }, holder)
  const throwing = located('ArrowFunctionExpression', { id: null, params: [], body: located('BlockStatement', { body: [thrower] }, holder), expression: false, async: false, generator: false }, holder)
  // `[''].map(() => { throw … })[0]`: an expression that throws (a callback is where a block may stand).
  const fail = located('MemberExpression', { object: methodCall(located('ArrayExpression', { elements: [stringLiteral('', holder)] }, holder), 'map', [throwing], holder), property: located('Literal', { value: 0, raw: '0' }, holder), computed: true, optional: false }, holder)
  let chain: Record<string, any> = holder.arguments.length === 0 ? fail : located('ArrayExpression', { elements: [...structuredClone(holder.arguments), fail] }, holder)
  for (let i = t.keys.length - 1; i >= 0; i--) {
    const test = located('BinaryExpression', { operator: '===', left: key(i), right: stringLiteral(t.keys[i]!, holder) }, holder)
    const branch = located('CallExpression', { callee: identifier(names[i]!, holder), arguments: i === 0 ? holder.arguments : structuredClone(holder.arguments), optional: false }, holder)
    chain = located('ConditionalExpression', { test, consequent: branch, alternate: chain }, holder)
  }
  return chain
}

/** The variables computed keys are kept in, declared first in the function they are computed in. */
interface Temps {
  readonly taken: Set<string>
  /** The top-level function whose uses are rewritten. */
  readonly fn: FunctionDeclaration
  /** Each call by a computed key in `fn`, with the innermost function it is in (found when first needed). */
  within: Map<Node, AnyNode> | undefined
}

/** A fresh `let` for the key of the call `holder`, declared first in the body of the function it is in. */
function declareTemp(table: string, holder: Node, temps: Temps, ctx: LowerContext): string {
  temps.within ??= callsByKey(temps.fn)
  const f = temps.within.get(holder)!
  // A parameter's default is computed before the body, where the variable would be declared.
  if (holder.start < f.body.start) ctx.fail('UNSUPPORTED', holder, { name: `A call of \`${table}\` by a key computed in a parameter's default value (compute the key in the body: \`const key = …\`)` })
  const name = fresh(`${table}_key`, temps.taken)
  const declarator = { type: 'VariableDeclarator', id: identifier(name, holder), init: null, start: holder.start, end: holder.start }
  if (f.body.type !== 'BlockStatement') {
    // `(s) => t[pick(s)](s)` takes a block: `(s) => { let t_key; return (t_key = pick(s)) === … }`.
    f.body = blockBody(f.body)
    f.expression = false
  }
  f.body.body.unshift(located('VariableDeclaration', { kind: 'let', declarations: [declarator] }, declarator))
  return name
}

/** The calls `x[k](…)` in `fn`, by the innermost function each is in. */
function callsByKey(fn: FunctionDeclaration): Map<Node, AnyNode> {
  const out = new Map<Node, AnyNode>()
  const walk = (node: AnyNode, within: AnyNode): void => {
    if (node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && node.callee.computed) out.set(node, within)
    const inner = node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression' || node.type === 'FunctionDeclaration' ? node : within
    forEachChild(node, (x) => walk(x, inner))
  }
  walk(fn as AnyNode, fn as AnyNode)
  return out
}

function rewrite(r: Reference, name: string, t: Table, names: string[], temps: Temps, ctx: LowerContext): void {
  const parent = r.parent as AnyNode
  if (r.key === 'object' && parent.type === 'MemberExpression') {
    const outer = r.outer!
    const holder = outer.parent as AnyNode
    const called = holder.type === 'CallExpression' && outer.key === 'callee'
    const key: string | undefined = !parent.computed ? parent.property.name : parent.property.type === 'Literal' && typeof parent.property.value === 'string' ? parent.property.value : undefined
    if (key !== undefined) {
      const i = t.keys.indexOf(key)
      if (i < 0) return ctx.fail('TABLE_KEY', parent.property, { name, key, suggest: didYouMean(key, t.keys) })
      if (!called) return ctx.fail('TABLE_USE', parent, { name })
      return replace(parent, identifier(names[i]!, parent))
    }
    const k = parent.property as Expression
    if (called) {
      const message = `${name}[${ctx.source.slice(k.start, k.end)}] is not a function`
      // A name or literal is read again by each branch; any other key is computed once, before the arguments
      // as in JavaScript, into a variable of its own by the first test: `(tools_key = pick(s)) === 'a' ? … : tools_key === 'b' …`
      // (the chain stays a conditional, which `await` awaits whichever call of).
      if (readOnlyKey(k)) return replace(holder, dispatch(holder, () => structuredClone(k), t, names, message))
      const temp = declareTemp(name, holder, temps, ctx)
      const assign = located('AssignmentExpression', { operator: '=', left: identifier(temp, k), right: k }, k)
      return replace(holder, dispatch(holder, (i) => i === 0 ? assign : identifier(temp, k), t, names, message))
    }
    // A test of `t[k]` (`if (t[k])`, `!t[k]`, `t[k] && …`): whether k (computed once) is one of its keys, as a function is truthy.
    const tested = (holder.type === 'IfStatement' || holder.type === 'WhileStatement' || holder.type === 'ConditionalExpression') && outer.key === 'test' ||
      (holder.type === 'UnaryExpression' && holder.operator === '!') || (holder.type === 'LogicalExpression' && holder.operator === '&&' && outer.key === 'left')
    if (!tested) return ctx.fail('TABLE_USE', parent, { name })
    return replace(parent, hasKey(t, k, parent))
  }
  if (parent.type === 'BinaryExpression' && parent.operator === 'in' && r.key === 'right') return replace(parent, hasKey(t, parent.left, parent))
  const callee = parent.type === 'CallExpression' && r.key === 'arguments' ? parent.callee as AnyNode : undefined
  if (callee?.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'Object' && !callee.computed && callee.property.name === 'keys' && parent.arguments.length === 1) {
    return replace(parent, { type: 'ArrayExpression', elements: t.keys.map((k) => stringLiteral(k, parent)) })
  }
  return ctx.fail('TABLE_USE', r.id, { name })
}

