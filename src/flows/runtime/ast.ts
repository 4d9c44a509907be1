/**
 * Small constructors for the ajs/1 nodes the flow compilers emit. Data from
 * flow documents always enters the AST as `literal` nodes (never as bare
 * value templates), so a `$expr` key inside a vendor's `data` stays data.
 */
import type { Expr, Step } from '../../ast/types.ts'

export const lit = (value: unknown): Expr => ({ $expr: 'literal', value } as Expr)
export const id = (name: string): Expr => ({ $expr: 'ident', name })
export const member = (object: Expr, property: string | Expr): Expr =>
  (typeof property === 'string' ? { $expr: 'member', object, property } : { $expr: 'member', object, property, computed: true }) as Expr
export const objectOf = (entries: Record<string, Expr>): Expr =>
  ({ $expr: 'object', properties: Object.entries(entries).map(([key, value]) => ({ key, value })) } as Expr)
export const arrayOf = (elements: Expr[]): Expr => ({ $expr: 'array', elements } as Expr)
export const binary = (op: string, left: Expr, right: Expr): Expr => ({ $expr: 'binary', op, left, right } as Expr)
export const callAtom = (callee: string, input: Record<string, Expr>): Expr =>
  ({ $expr: 'call', callee, args: [objectOf(input)] } as Expr)
export const methodCall = (object: Expr, method: string, args: Expr[]): Expr => ({ $expr: 'methodCall', object, method, args } as Expr)

export const let_ = (vars: Record<string, Expr>): Step => ({ op: 'varsLet', vars } as Step)
export const set = (key: string, value: Expr): Step => ({ op: 'varSet', key, value } as Step)
export const exprStep = (value: Expr): Step => ({ op: 'expr', value } as Step)
export const ret = (value: Expr): Step => ({ op: 'return', value } as Step)
export const if_ = (condition: Expr, then: Step[], else_?: Step[]): Step =>
  ({ op: 'if', condition, then, ...(else_ ? { else: else_ } : {}) } as Step)
/** `{ op: atom, ...fields }` with every field a literal (vendor atoms, whose names are not identifiers). */
export const atomStep = (op: string, fields: Record<string, unknown>, result: string): Step =>
  ({ op, ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, lit(v)])), result } as Step)
export const fail = (code: string, message: string): Step => exprStep(callAtom('flowFail', { code: lit(code), message: lit(message) }))
