/**
 * Hand-written AST builders for the VM tests. They only save typing: each
 * returns exactly the JSON node of docs/ast.md, nothing is inferred.
 */
import { AgentVM } from '../../src/vm/index.ts'
import type { RunOptions, RunResult } from '../../src/vm/index.ts'

type N = Record<string, any>

export const lit = (value: unknown): N => ({ $expr: 'literal', value })
export const id = (name: string): N => ({ $expr: 'ident', name })
export const mem = (object: N, property: string | N, extra: N = {}): N =>
  typeof property === 'string' && !extra.computed
    ? { $expr: 'member', object, property, ...extra }
    : { $expr: 'member', object, property, computed: true, ...extra }
export const idx = (object: N, property: N): N => ({ $expr: 'member', object, property, computed: true })
export const bin = (op: string, left: N, right: N): N => ({ $expr: 'binary', op, left, right })
export const logic = (op: string, left: N, right: N): N => ({ $expr: 'logical', op, left, right })
export const un = (op: string, argument: N): N => ({ $expr: 'unary', op, argument })
export const cond = (test: N, consequent: N, alternate: N): N => ({ $expr: 'conditional', test, consequent, alternate })
export const arr = (...elements: N[]): N => ({ $expr: 'array', elements })
export const obj = (props: Record<string, N>): N => ({
  $expr: 'object',
  properties: Object.entries(props).map(([key, value]) => ({ key, value })),
})
export const objP = (...properties: N[]): N => ({ $expr: 'object', properties })
export const spread = (argument: N): N => ({ $expr: 'spread', argument })
export const tpl = (quasis: string[], ...expressions: N[]): N => ({ $expr: 'template', quasis, expressions })
export const call = (callee: string, ...args: N[]): N => ({ $expr: 'call', callee, args })
export const mcall = (object: N, method: string, ...args: N[]): N => ({ $expr: 'methodCall', object, method, args })
export const lam = (params: unknown[], body: N): N => ({ $expr: 'lambda', params, body })
export const lamSteps = (params: unknown[], steps: N[]): N => ({ $expr: 'lambda', params, steps })
export const assign = (target: N, value: N, op = '='): N => ({ $expr: 'assign', op, target, value })
export const upd = (op: '++' | '--', argument: N, prefix = false): N => ({ $expr: 'update', op, prefix, argument })
export const seqx = (...expressions: N[]): N => ({ $expr: 'sequence', expressions })
export const re = (pattern: string, flags = ''): N => ({ $expr: 'regex', pattern, flags })

// steps
export const ret = (value?: unknown): N => (value === undefined ? { op: 'return' } : { op: 'return', value })
export const let_ = (vars: Record<string, unknown>): N => ({ op: 'varsLet', vars })
export const const_ = (key: string, value: unknown): N => ({ op: 'constSet', key, value })
export const set = (key: string, value: unknown): N => ({ op: 'varSet', key, value })
export const ex = (value: unknown, result?: string): N => (result ? { op: 'expr', value, result } : { op: 'expr', value })
export const if_ = (condition: N, then: N[], els?: N[]): N => (els ? { op: 'if', condition, then, else: els } : { op: 'if', condition, then })
export const while_ = (condition: N, body: N[], label?: string): N => (label ? { op: 'while', condition, body, label } : { op: 'while', condition, body })
export const brk = (label?: string): N => (label ? { op: 'break', label } : { op: 'break' })
export const cont = (label?: string): N => (label ? { op: 'continue', label } : { op: 'continue' })
export const inc = (name: string): N => ex(upd('++', id(name)))

/** A whole program. */
export const prog = (steps: N[], extra: N = {}): any => ({ ajs: 1, op: 'seq', steps, ...extra })
/** A program whose args object is destructured into the given names. */
export const progArgs = (names: string[], steps: N[], extra: N = {}): any => prog(steps, {
  params: { $pattern: 'object', properties: names.map((n) => ({ key: n, value: n })) },
  ...extra,
})

export const vm = new AgentVM()

/** Run and expect success; returns the result value. */
export async function value(ast: unknown, args: unknown = {}, options?: RunOptions, machine: AgentVM = vm): Promise<any> {
  const r = await machine.run(ast, args, options)
  if (r.error) throw new Error(`unexpected error ${r.error.code}: ${r.error.message}`)
  return r.result
}

/** Run and return the whole RunResult. */
export function run(ast: unknown, args: unknown = {}, options?: RunOptions, machine: AgentVM = vm): Promise<RunResult<any>> {
  return machine.run(ast, args, options)
}

/** The value of one expression (evaluated in an empty program). */
export const evalExpr = (e: N, args: unknown = {}, options?: RunOptions) => value(prog([ret(e)]), args, options)

/** Run and return the error code (or 'OK'). */
export async function code(ast: unknown, args: unknown = {}, options?: RunOptions, machine: AgentVM = vm): Promise<string> {
  const r = await machine.run(ast, args, options)
  return r.error?.code ?? 'OK'
}

/** Like evalExpr, but keeps `undefined` (a top-level undefined result is reported as null). */
export const evalU = async (e: N, args: unknown = {}, options?: RunOptions) => (await value(prog([ret(arr(e))]), args, options))[0]
