/** Small builders for the "ajs/1" nodes the Python lowering emits. */
import type { Loc } from './ir.ts'

export type Node = Record<string, unknown>

export const id = (name: string): Node => ({ $expr: 'ident', name })
export const lit = (value: unknown): Node => ({ $expr: 'literal', value })
export const UNDEFINED = id('undefined')
export const arr = (elements: Node[]): Node => ({ $expr: 'array', elements })
export const spread = (argument: Node): Node => ({ $expr: 'spread', argument })
/** A runtime call: `py$<name>(...)`. */
export const rt = (name: string, args: Node[], loc?: Loc): Node => (loc ? { $expr: 'call', callee: `py$${name}`, args, loc } : { $expr: 'call', callee: `py$${name}`, args })
export const call = (callee: string, args: Node[], loc?: Loc): Node => (loc ? { $expr: 'call', callee, args, loc } : { $expr: 'call', callee, args })
export const assign = (name: string, value: Node): Node => ({ $expr: 'assign', op: '=', target: id(name), value })
export const cond = (test: Node, consequent: Node, alternate: Node): Node => ({ $expr: 'conditional', test, consequent, alternate })
export const and = (left: Node, right: Node): Node => ({ $expr: 'logical', op: '&&', left, right })
export const or = (left: Node, right: Node): Node => ({ $expr: 'logical', op: '||', left, right })
export const not = (argument: Node): Node => ({ $expr: 'unary', op: '!', argument })
export const member = (object: Node, index: number): Node => ({ $expr: 'member', object, property: lit(index), computed: true })
export const binary = (op: string, left: Node, right: Node): Node => ({ $expr: 'binary', op, left, right })

export const step = (op: string, fields: Node, loc?: Loc): Node => (loc ? { op, ...fields, loc } : { op, ...fields })
export const setVar = (key: string, value: Node, loc?: Loc): Node => step('varSet', { key, value }, loc)
export const exprStep = (value: Node, loc?: Loc): Node => step('expr', { value }, loc)
