/**
 * The scopes of one top-level function, as JavaScript binds them: every declared name, every
 * reference resolved to its binding (or to none: a helper, atom or global), and the local functions
 * it declares (`function f() {}` or `const f = (x) => ...` inside it). Read by local-functions.ts,
 * which lifts those functions to helpers. Only names are resolved here; the lowering checks the rest.
 * Local functions nest (each knows the one it is in), but only MAX_LOCAL_DEPTH deep are looked into, so a
 * long chain of them costs no more than its text. renameBinding gives a variable a fresh name where it is
 * declared and read, for a local function's call that would otherwise pass another of that name.
 */
import type { ArrowFunctionExpression, FunctionDeclaration, FunctionExpression, Identifier, Node, Pattern, VariableDeclarator } from 'acorn'
import { forEachChild } from './estree.ts'

export interface LocalScope {
  readonly parent: LocalScope | null
  readonly names: Map<string, Binding>
  /** The local function whose body this scope is in (the innermost one, when they nest), if any. */
  readonly within: LocalFunction | null
}

export interface Binding {
  /** Its name (renamed when a local function's call would otherwise pass another variable of that name: renameBinding). */
  name: string
  /** The name where it is declared. */
  readonly id: Identifier
  readonly scope: LocalScope
  readonly kind: string
  /** References that assign it (`x = ...`, `x++`, `[x] = ...`). */
  readonly writes: Reference[]
  /** Set when the binding names a local function. */
  fn?: LocalFunction
}

export interface Reference {
  readonly id: Identifier
  readonly scope: LocalScope
  readonly write: boolean
  /** The node holding `id`, and where: `parent[key]`, or `parent[key][index]`. */
  readonly parent: Node
  readonly key: string
  readonly index: number
  /** For the object of a member expression (`id.x`, `id[k]`): where that member expression is held. */
  readonly outer?: { readonly parent: Node; readonly key: string; readonly index: number }
}

export type FunctionNode = FunctionDeclaration | ArrowFunctionExpression | FunctionExpression

export interface LocalFunction {
  readonly name: string
  readonly node: FunctionNode
  /** `const f = ...`: the declarator (its declaration is `declaration`); else the statement itself. */
  readonly declarator?: VariableDeclarator
  readonly declaration: Node
  /** The statement list holding `declaration`. */
  readonly container: Node[]
  binding?: Binding
  /** Its own scope (parameters and body). */
  scope?: LocalScope
  /** The local function it is declared in, if any, and how many levels deep it is (1: in the function itself). */
  readonly outer: LocalFunction | null
  readonly depth: number
}

/** How deep local functions may nest, one inside another: deeper ones are not looked into (FunctionScopes.tooDeep). */
export const MAX_LOCAL_DEPTH = 32

export interface FunctionScopes {
  readonly references: Reference[]
  readonly functions: LocalFunction[]
  /** Every name this function declares or reads. */
  readonly names: Set<string>
  /** The function's own scope (its parameters): what it is called with, never renamed. */
  readonly own: LocalScope | null
  /** The properties written `{ x }` (or `{ x = 1 }` in a pattern), by their identifier: renaming it writes them out. */
  readonly shorthands: Map<Identifier, Node & { shorthand: boolean }>
  /** The first local function nested deeper than MAX_LOCAL_DEPTH (its body is not looked into). */
  readonly tooDeep: LocalFunction | null
}

type AnyNode = Node & Record<string, any>

const isFunction = (n: AnyNode | null | undefined): n is AnyNode & FunctionNode =>
  !!n && (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration')

export function resolve(name: string, scope: LocalScope | null): Binding | null {
  for (let s = scope; s; s = s.parent) {
    const b = s.names.get(name)
    if (b) return b
  }
  return null
}

/** Whether `scope` is `fn`'s own scope or inside it (a walk of the local functions around it, at most MAX_LOCAL_DEPTH). */
export function inside(scope: LocalScope, fn: LocalFunction): boolean {
  for (let f = scope.within; f; f = f.outer) if (f === fn) return true
  return false
}

/** Give `b` the name `name` where it is declared and everywhere it is read or assigned (`refs`: those of `b`). */
export function renameBinding(b: Binding, name: string, refs: readonly Reference[], shorthands: FunctionScopes['shorthands']): void {
  b.scope.names.delete(b.name)
  b.scope.names.set(name, b)
  b.name = name
  for (const id of [b.id, ...refs.map((r) => r.id)]) {
    id.name = name
    const property = shorthands.get(id)
    if (property) property.shorthand = false
  }
}

/** Take `lf`'s declaration out of the statements holding it (its declarator only, where it declares others too). */
export function removeLocalFunction(lf: LocalFunction): void {
  if (lf.declarator) {
    const d = lf.declaration as AnyNode
    d.declarations = d.declarations.filter((x: Node) => x !== lf.declarator)
    if (d.declarations.length > 0) return
  }
  const list = lf.container as Node[]
  list.splice(list.indexOf(lf.declaration), 1)
}

/** The references of each binding (resolved once each). */
export function referencesByBinding(references: readonly Reference[]): Map<Binding, Reference[]> {
  const out = new Map<Binding, Reference[]>()
  for (const r of references) {
    const b = resolve(r.id.name, r.scope)
    if (!b) continue
    const list = out.get(b)
    if (list) list.push(r)
    else out.set(b, [r])
  }
  return out
}

/** The scopes of `fn`, a top-level function (its own name is not bound here: it is a helper). */
export function functionScopes(fn: FunctionDeclaration): FunctionScopes {
  const references: Reference[] = []
  const functions: LocalFunction[] = []
  const names = new Set<string>()
  const shorthands: FunctionScopes['shorthands'] = new Map()
  let tooDeep: LocalFunction | null = null
  let own: LocalScope | null = null
  let within: LocalFunction | null = null
  const scopeOf = (parent: LocalScope | null): LocalScope => ({ parent, names: new Map(), within })

  const declare = (scope: LocalScope, id: Identifier, kind: string): Binding => {
    names.add(id.name)
    const had = scope.names.get(id.name)
    if (had) return had
    const b: Binding = { name: id.name, id, scope, kind, writes: [] }
    scope.names.set(id.name, b)
    return b
  }
  const patternNames = (p: AnyNode | null, out: Identifier[]): Identifier[] => {
    if (!p) return out
    switch (p.type) {
      case 'Identifier': out.push(p as Identifier); break
      case 'ObjectPattern': for (const q of p.properties) patternNames(q.type === 'RestElement' ? q.argument : q.value, out); break
      case 'ArrayPattern': for (const q of p.elements) patternNames(q, out); break
      case 'RestElement': patternNames(p.argument, out); break
      case 'AssignmentPattern': patternNames(p.left, out); break
    }
    return out
  }
  /** Block-scoped declarations of a statement list, bound before its statements run (hoisting and the dead zone). */
  const hoist = (scope: LocalScope, body: AnyNode[]): void => {
    for (const s of body) {
      if (s.type === 'VariableDeclaration') {
        for (const d of s.declarations) for (const id of patternNames(d.id, [])) declare(scope, id, s.kind)
      } else if ((s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') && s.id) {
        declare(scope, s.id, s.type === 'FunctionDeclaration' ? 'function' : 'class')
      }
    }
  }
  const ref = (id: Identifier, scope: LocalScope, parent: Node, key: string, index = -1, write = false, outer?: Reference['outer']): void => {
    names.add(id.name)
    references.push(outer ? { id, scope, write, parent, key, index, outer } : { id, scope, write, parent, key, index })
  }

  /** A pattern being bound (`declared`) or assigned: its identifiers are not reads; its defaults and computed keys are. */
  const pattern = (p: AnyNode | null, scope: LocalScope, parent: Node, key: string, index: number, assigns: boolean): void => {
    if (!p) return
    switch (p.type) {
      case 'Identifier': if (assigns) ref(p as Identifier, scope, parent, key, index, true); return
      case 'ObjectPattern':
        for (const q of p.properties) {
          if (q.type === 'RestElement') { pattern(q.argument, scope, q, 'argument', -1, assigns); continue }
          if (q.computed) expr(q.key, scope, q, 'key')
          if (q.shorthand) shorthands.set(q.value.type === 'AssignmentPattern' ? q.value.left : q.value, q)
          pattern(q.value, scope, q, 'value', -1, assigns)
        }
        return
      case 'ArrayPattern': p.elements.forEach((q: AnyNode | null, i: number) => pattern(q, scope, p, 'elements', i, assigns)); return
      case 'RestElement': pattern(p.argument, scope, p, 'argument', -1, assigns); return
      case 'AssignmentPattern': pattern(p.left, scope, p, 'left', -1, assigns); expr(p.right, scope, p, 'right'); return
      default: expr(p, scope, parent, key, index) // a member expression as an assignment target
    }
  }

  const func = (n: AnyNode & FunctionNode, scope: LocalScope, local?: LocalFunction): void => {
    const saved = within
    if (local) within = local
    const mine = scopeOf(scope)
    own ??= mine
    if (local) local.scope = mine
    if (n.type === 'FunctionExpression' && n.id) declare(mine, n.id, 'function')
    for (const p of n.params) for (const id of patternNames(p as AnyNode, [])) declare(mine, id, 'param')
    n.params.forEach((p: Pattern, i: number) => pattern(p as AnyNode, mine, n, 'params', i, false))
    if (n.body.type === 'BlockStatement') {
      hoist(mine, n.body.body as AnyNode[])
      statements(n.body.body as AnyNode[], mine)
    } else {
      expr(n.body as AnyNode, mine, n, 'body')
    }
    within = saved
  }

  const statements = (body: AnyNode[], scope: LocalScope): void => {
    for (const s of body) statement(s, scope, body)
  }

  const localFunction = (node: FunctionNode, declaration: Node, container: Node[], declarator?: VariableDeclarator): LocalFunction => {
    const name = declarator ? (declarator.id as Identifier).name : (node as FunctionDeclaration).id!.name
    const lf: LocalFunction = { name, node, declaration, container, declarator, outer: within, depth: (within?.depth ?? 0) + 1 }
    functions.push(lf)
    if (lf.depth > MAX_LOCAL_DEPTH) tooDeep ??= lf
    return lf
  }
  /** A local function's parameters and body; not those of one too deep (refused: a chain of them would only cost). */
  const localBody = (n: AnyNode & FunctionNode, scope: LocalScope, lf: LocalFunction | undefined): void => {
    if (!lf || lf.depth <= MAX_LOCAL_DEPTH) func(n, scope, lf)
  }

  const statement = (s: AnyNode, scope: LocalScope, container: AnyNode[]): void => {
    switch (s.type) {
      case 'FunctionDeclaration': {
        const lf = s.id && !s.generator ? localFunction(s as FunctionDeclaration, s, container) : undefined
        if (lf) (lf.binding = resolve(s.id.name, scope) ?? undefined) && (lf.binding.fn = lf)
        localBody(s as AnyNode & FunctionNode, scope, lf)
        return
      }
      case 'VariableDeclaration':
        for (const d of s.declarations as VariableDeclarator[]) {
          pattern(d.id as AnyNode, scope, d, 'id', -1, false)
          const init = d.init as AnyNode | null
          if (d.id.type === 'Identifier' && (s.kind === 'const' || s.kind === 'let') && isFunction(init) && !(init.type === 'FunctionExpression' && (init.id || init.generator))) {
            const lf = localFunction(init as FunctionNode, s, container, d)
            lf.binding = resolve(d.id.name, scope)!
            lf.binding.fn = lf
            localBody(init, scope, lf)
          } else if (init) {
            expr(init, scope, d, 'init')
          }
        }
        return
      case 'BlockStatement': {
        const inner = scopeOf(scope)
        hoist(inner, s.body)
        statements(s.body, inner)
        return
      }
      case 'ForStatement': case 'ForInStatement': case 'ForOfStatement': {
        const head = scopeOf(scope)
        const init = s.type === 'ForStatement' ? s.init : s.left
        if (init?.type === 'VariableDeclaration') {
          hoist(head, [init])
          for (const d of init.declarations) { pattern(d.id, head, d, 'id', -1, false); if (d.init) expr(d.init, head, d, 'init') }
        } else if (init) {
          if (s.type === 'ForStatement') expr(init, head, s, 'init')
          else pattern(init, head, s, 'left', -1, true)
        }
        if (s.type === 'ForStatement') { if (s.test) expr(s.test, head, s, 'test'); if (s.update) expr(s.update, head, s, 'update') }
        else expr(s.right, head, s, 'right')
        statement(s.body, head, [])
        return
      }
      case 'SwitchStatement': {
        expr(s.discriminant, scope, s, 'discriminant')
        const inner = scopeOf(scope)
        for (const c of s.cases) hoist(inner, c.consequent)
        for (const c of s.cases) { if (c.test) expr(c.test, inner, c, 'test'); statements(c.consequent, inner) }
        return
      }
      case 'TryStatement': {
        statement(s.block, scope, [])
        if (s.handler) {
          const inner = scopeOf(scope)
          for (const id of patternNames(s.handler.param, [])) declare(inner, id, 'catch')
          if (s.handler.param) pattern(s.handler.param, inner, s.handler, 'param', -1, false)
          statement(s.handler.body, inner, [])
        }
        if (s.finalizer) statement(s.finalizer, scope, [])
        return
      }
      case 'LabeledStatement': statement(s.body, scope, container); return
      case 'IfStatement': expr(s.test, scope, s, 'test'); statement(s.consequent, scope, []); if (s.alternate) statement(s.alternate, scope, []); return
      case 'WhileStatement': case 'DoWhileStatement': expr(s.test, scope, s, 'test'); statement(s.body, scope, []); return
      case 'BreakStatement': case 'ContinueStatement': case 'EmptyStatement': case 'DebuggerStatement': return
      default: children(s, scope)
    }
  }

  const expr = (e: AnyNode | null, scope: LocalScope, parent: Node, key: string, index = -1): void => {
    if (!e) return
    switch (e.type) {
      case 'Identifier': ref(e as Identifier, scope, parent, key, index); return
      case 'MemberExpression':
        if (e.object.type === 'Identifier') ref(e.object, scope, e, 'object', -1, false, { parent, key, index })
        else expr(e.object, scope, e, 'object')
        if (e.computed) expr(e.property, scope, e, 'property')
        return
      case 'ObjectExpression':
        for (const p of e.properties) {
          if (p.type === 'SpreadElement') { expr(p.argument, scope, p, 'argument'); continue }
          if (p.computed) expr(p.key, scope, p, 'key')
          if (p.shorthand) shorthands.set(p.value, p)
          if (isFunction(p.value)) func(p.value, scope)
          else expr(p.value, scope, p, 'value')
        }
        return
      case 'ArrowFunctionExpression': case 'FunctionExpression': func(e as AnyNode & FunctionNode, scope); return
      case 'AssignmentExpression': pattern(e.left, scope, e, 'left', -1, true); expr(e.right, scope, e, 'right'); return
      case 'UpdateExpression':
        if (e.argument.type === 'Identifier') ref(e.argument, scope, e, 'argument', -1, true)
        else expr(e.argument, scope, e, 'argument')
        return
      case 'MetaProperty': case 'Literal': case 'ThisExpression': case 'Super': case 'TemplateElement': return
      default: children(e, scope)
    }
  }

  /** Any other node: its child expressions and statements, in order. */
  const children = (n: AnyNode, scope: LocalScope): void => forEachChild(n, (x, key, i) => visit(x, scope, n, key, i))
  const visit = (x: AnyNode, scope: LocalScope, parent: AnyNode, key: string, index: number): void => {
    if (x.type.endsWith('Statement') || x.type.endsWith('Declaration')) statement(x, scope, [])
    else if (x.type === 'ClassBody' || x.type === 'MethodDefinition' || x.type === 'PropertyDefinition' || x.type === 'StaticBlock') children(x, scope)
    else expr(x, scope, parent, key, index)
  }

  func(fn as AnyNode & FunctionNode, scopeOf(null))
  for (const r of references) if (r.write) resolve(r.id.name, r.scope)?.writes.push(r)
  return { references, functions, names, own, shorthands, tooDeep }
}
