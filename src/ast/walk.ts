/**
 * One generic walker over "ajs/1" documents, driven by the vocabulary table:
 * each field is entered by its kind (a `value` template, an expression, a
 * list of steps, a pattern, ...), so JSON data (a `literal`'s value, the
 * objects of a value template) is never mistaken for a node.
 *
 * `walk` visits steps and expressions in document order (parents first);
 * a visitor returning `false` skips the node's children. The `path` handed to
 * the visitor is the walker's own key stack (copy it to keep it).
 */
import { CORE_OPS, EXPR_KINDS, type ExprSpec, type FieldKind, type FieldSpec } from './nodes.ts'
import type { AjsProgram, Expr, FunctionDef, PatternNode, Step } from './types.ts'

export type AstPath = Array<string | number>

export interface Visitor {
  step?(step: Step, path: AstPath): void | boolean
  expr?(expr: Expr, path: AstPath): void | boolean
  pattern?(pattern: PatternNode, path: AstPath): void | boolean
}

/** Field kinds whose values hold expressions or steps (what a walker descends into). */
export const CHILD_KINDS: ReadonlySet<FieldKind> = new Set<FieldKind>([
  'value', 'expr', 'steps', 'branches', 'pattern', 'bindings', 'cases',
  'exprs', 'items', 'args', 'keyOrExpr', 'patterns', 'properties', 'lvalue', 'assignTarget',
])

const STEP_META = new Set(['op', 'result', 'loc'])
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k)

type ChildList = ReadonlyArray<readonly [string, FieldKind]>
const childList = (fields: Record<string, FieldSpec>): ChildList =>
  Object.entries(fields).filter(([, f]) => CHILD_KINDS.has(f.kind)).map(([k, f]) => [k, f.kind] as const)
const EXPR_CHILDREN = new Map<string, ChildList>()
for (const [k, spec] of Object.entries(EXPR_KINDS as Record<string, ExprSpec>)) EXPR_CHILDREN.set(k, childList(spec.fields))
const STEP_CHILDREN = new Map<string, ChildList>()
for (const [op, spec] of Object.entries(CORE_OPS)) STEP_CHILDREN.set(op, childList(spec.fields))

/** The child fields (holding expressions, steps or patterns) of an expression kind, from the table. */
export function exprChildren(kind: string): readonly string[] {
  return (EXPR_CHILDREN.get(kind) ?? []).map(([k]) => k)
}

/** The child fields of a step op; a custom atom's fields are all values. */
export function stepChildren(step: { op: string } & Record<string, unknown>): readonly string[] {
  const list = STEP_CHILDREN.get(step.op)
  return list ? list.map(([k]) => k) : Object.keys(step).filter((k) => !STEP_META.has(k))
}

class Walker {
  readonly path: AstPath = []
  constructor(readonly v: Visitor) {}

  at(key: string | number, fn: () => void): void {
    this.path.push(key)
    fn()
    this.path.pop()
  }

  list(v: unknown, fn: (x: unknown) => void): void {
    if (!Array.isArray(v)) return
    for (let i = 0; i < v.length; i++) this.at(i, () => fn(v[i]))
  }

  steps(v: unknown): void {
    this.list(v, (s) => this.step(s))
  }

  step(s: unknown): void {
    if (!isObj(s) || typeof s.op !== 'string') return
    if (this.v.step?.(s as Step, this.path) === false) return
    const list = own(CORE_OPS, s.op) ? STEP_CHILDREN.get(s.op) : undefined
    if (list) {
      for (const [k, kind] of list) if (s[k] !== undefined) this.at(k, () => this.field(kind, s[k], s))
    } else {
      for (const k of Object.keys(s)) if (!STEP_META.has(k)) this.at(k, () => this.value(s[k]))
    }
  }

  expr(e: unknown): void {
    if (!isObj(e) || typeof e.$expr !== 'string') return
    if (this.v.expr?.(e as Expr, this.path) === false) return
    const list = EXPR_CHILDREN.get(e.$expr)
    if (list) for (const [k, kind] of list) if (e[k] !== undefined) this.at(k, () => this.field(kind, e[k], e))
  }

  /** A value: an expression, or JSON whose nested objects and arrays may hold expressions. */
  value(v: unknown): void {
    if (Array.isArray(v)) return this.list(v, (x) => this.value(x))
    if (!isObj(v)) return
    if (typeof v.$expr === 'string') return this.expr(v)
    for (const k of Object.keys(v)) this.at(k, () => this.value(v[k]))
  }

  pattern(p: unknown): void {
    if (!isObj(p) || typeof p.$pattern !== 'string') return
    if (this.v.pattern?.(p as PatternNode, this.path) === false) return
    switch (p.$pattern) {
      case 'object':
        this.at('properties', () => this.list(p.properties, (q) => {
          if (!isObj(q)) return
          if (q.computed) this.at('key', () => this.expr(q.key))
          this.at('value', () => this.pattern(q.value))
        }))
        return
      case 'array':
        this.at('elements', () => this.list(p.elements, (x) => this.pattern(x)))
        if (p.rest !== undefined) this.at('rest', () => this.pattern(p.rest))
        return
      case 'default':
        this.at('target', () => this.pattern(p.target))
        this.at('default', () => this.expr(p.default))
        return
      case 'target':
        this.at('target', () => this.expr(p.target))
    }
  }

  field(kind: FieldKind, v: unknown, node: Record<string, unknown>): void {
    switch (kind) {
      case 'value': return this.value(v)
      case 'expr': case 'lvalue': return this.expr(v)
      case 'exprs': case 'items': case 'args': return this.list(v, (x) => this.expr(x))
      case 'keyOrExpr': if (node.computed) this.expr(v); return
      case 'steps': return this.steps(v)
      case 'branches': return this.list(v, (b) => this.steps(b))
      case 'pattern': return this.pattern(v)
      case 'assignTarget': return isObj(v) && '$pattern' in v ? this.pattern(v) : this.expr(v)
      case 'patterns': return this.list(v, (p) => this.pattern(p))
      case 'bindings': if (isObj(v)) for (const k of Object.keys(v)) this.at(k, () => this.value(v[k])); return
      case 'cases':
        return this.list(v, (c) => {
          if (!isObj(c)) return
          if (c.test != null) this.at('test', () => this.expr(c.test))
          this.at('body', () => this.steps(c.body))
        })
      case 'properties':
        return this.list(v, (p) => {
          if (!isObj(p)) return
          if (p.$expr === 'spread') return this.expr(p)
          if (p.computed) this.at('key', () => this.expr(p.key))
          this.at('value', () => this.expr(p.value))
        })
      default: return
    }
  }
}

/**
 * Walk a node: a program (its steps, parameter pattern and helper functions),
 * a helper function, a step, a list of steps, an expression or a pattern.
 */
export function walk(node: unknown, visitor: Visitor): void {
  const w = new Walker(visitor)
  if (Array.isArray(node)) return w.steps(node)
  if (!isObj(node)) return
  if (typeof node.$expr === 'string') return w.expr(node)
  if (typeof node.$pattern === 'string') return w.pattern(node)
  if (typeof node.op !== 'string' && Array.isArray(node.steps)) {
    // A helper function { params, steps }.
    w.at('params', () => w.list(node.params, (p) => w.pattern(p)))
    w.at('steps', () => w.steps(node.steps))
    return
  }
  if (node.ajs !== undefined) {
    const prog = node as AjsProgram
    if (prog.params !== undefined) w.at('params', () => w.pattern(prog.params))
    w.at('steps', () => w.steps(prog.steps))
    const fns = prog.functions
    if (isObj(fns)) {
      w.at('functions', () => {
        for (const name of Object.keys(fns)) {
          const def = fns[name] as FunctionDef
          w.at(name, () => {
            w.at('params', () => w.list(def?.params, (p) => w.pattern(p)))
            w.at('steps', () => w.steps(def?.steps))
          })
        }
      })
    }
    return
  }
  w.step(node)
}

/** Every expression node under `node`, in document order. */
export function exprsOf(node: unknown): Expr[] {
  const out: Expr[] = []
  walk(node, { expr: (e) => void out.push(e) })
  return out
}
