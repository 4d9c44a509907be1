/** The "ajs/1" nodes the Python lowering emits, made with the one node kit (src/ast/build.ts). */
import type { AssignOp, BinaryOp, CoreOp, Expr, Json, Pattern, Step, StepOf } from '../ast/types.ts'
import * as b from '../ast/build.ts'
import type { Loc } from './ir.ts'

/** An expression node (what the lowering of a Python expression gives). */
export type Node = Expr

export const id = b.id
export const lit = (value: unknown): Node => b.lit(value as Json)
export const UNDEFINED = b.UNDEFINED
export const arr = (elements: Node[]): Node => b.array(elements)
export const spread = b.spread
/** A runtime call: `py$<name>(...)`. */
export const rt = (name: string, args: Node[], loc?: Loc): Node => b.call(`py$${name}`, args, loc)
export const call = (callee: string, args: Node[], loc?: Loc): Node => b.call(callee, args, loc)
export const assign = (name: string, value: Node, op: AssignOp = '='): Node => b.assign(name, value, op)
export const cond = b.cond
export const and = b.and
export const or = b.or
export const not = b.not
export const lambda = (params: Pattern[], body: Node): Node => b.lambda(params, body)
export const methodCall = (object: Node, method: string, args: Node[]): Node => b.methodCall(object, method, args)
export const member = (object: Node, index: number): Node => b.member(object, index)
/** `object[index] = value` (a cell's assignment). */
export const assignItem = (object: Node, index: number, value: Node): Node => b.assign(b.member(object, index), value)
export const binary = (op: BinaryOp, left: Node, right: Node): Node => b.binary(op, left, right)

/** A step of a core op, typed by the vocabulary table. */
export const step = <K extends CoreOp>(op: K, fields: Omit<StepOf<K>, 'op'>, loc?: Loc): Step => b.at(b.step(op, fields), loc)
export const setVar = (key: string, value: Node, loc?: Loc): Step => b.varSet(key, value, loc)
export const exprStep = (value: Node, loc?: Loc): Step => b.exprStep(value, loc)
