/**
 * The ajs/1 nodes the flow compilers emit, made with the one node kit
 * (src/ast/build.ts). Data from flow documents always enters the AST as
 * `literal` nodes (never as bare value templates), so a `$expr` key inside a
 * vendor's `data` stays data.
 */
import type { Expr, Json, Step } from '../../ast/types.ts'
import * as b from '../../ast/build.ts'

export { id, member, binary, callAtom, methodCall, exprStep, ret } from '../../ast/build.ts'

/** Flow data (any JSON the document holds) as a literal. */
export const lit = (value: unknown): Expr => b.lit(value as Json)
export const objectOf = (entries: Record<string, Expr>): Expr => b.object(entries)
export const arrayOf = (elements: Expr[]): Expr => b.array(elements)
export const let_ = (vars: Record<string, Expr>): Step => b.varsLet(vars)
export const set = (key: string, value: Expr): Step => b.varSet(key, value)
export const if_ = (condition: Expr, then: Step[], else_?: Step[]): Step => b.if_(condition, then, else_)
/** `{ op: atom, ...fields }` with every field a literal (vendor atoms, whose names are not identifiers). */
export const atomStep = (op: string, fields: Record<string, unknown>, result: string): Step =>
  b.atomStep(op, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, lit(v)])), result)
export const fail = (code: string, message: string): Step => b.exprStep(b.callAtom('flowFail', { code: lit(code), message: lit(message) }))
