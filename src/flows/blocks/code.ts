/**
 * `code` blocks: Python function bodies compiled by the Python frontend
 * (ajs-lang/python) with the contract's wrapper — `initial` first, then one
 * parameter per `input_schema` field in order — and called as
 * `_block(initial=<global input>, **pipeline_input)`: the Python program
 * binds its arguments by name, so an unexpected or missing key is the
 * TypeError CPython raises for the same call.
 *
 * Each block's program is inlined as helper functions of the flow program
 * (its own helpers renamed `block<N>$name`, so two blocks may both define
 * `def clean(...)`), which keeps one program, one fuel meter and one trace.
 * The Python runtime checks the contract's return rule (a dict, else TypeError).
 */
import type { Expr, Step } from '../../ast/types.ts'
import { walk } from '../../ast/walk.ts'
import { TranspileError } from '../../diagnostics/diagnostic.ts'
import { transpilePython } from '../../python/transpile.ts'
import { problem } from '../problems.ts'
import { callAtom, id, lit, set } from '../runtime/ast.ts'
import type { Block } from './model.ts'
import type { BlockCompileContext } from './compile.ts'
import { node as make } from '../../ast/build.ts'

/** A helper function of the flow program. */
export interface CodeHelper { params: unknown[]; steps: Step[] }

/** A deep copy of `node` (steps or a helper) with `call` callees renamed (the block's own helpers only; literal data untouched). */
function renameCalls<T>(node: T, names: ReadonlyMap<string, string>): T {
  const out = structuredClone(node)
  walk(out, { expr: (e) => { if (e.$expr === 'call' && names.has(e.callee)) e.callee = names.get(e.callee)! } })
  return out
}

export function compileCodeBlock(c: BlockCompileContext, stepId: string, block: Block, input: string, out: string): Step[] {
  const params = ['initial', ...(block.input_schema?.fields.map((f) => f.name) ?? [])]
  let program
  try {
    c.usesPython = true
    program = transpilePython(block.content!, { params, filename: `${stepId}.py`, profile: 'contract' }).ast
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    c.problems.push(problem('InvalidCode', `/blocks/${stepId.replaceAll('~', '~0').replaceAll('/', '~1')}/content`,
      `code block "${stepId}", line ${e.line}, column ${e.column + 1}: ${e.message} (${e.code})\n${e.frame}`, e.hint))
    return []
  }
  const prefix = `block${++c.counter}$`
  const names = new Map(Object.keys(program.functions ?? {}).map((name) => [name, `${prefix}${name}`]))
  for (const [name, fn] of Object.entries(program.functions ?? {})) c.functions[names.get(name)!] = renameCalls(fn as unknown as CodeHelper, names)
  const entry = `${prefix}block`
  c.functions[entry] = { params: [program.params], steps: renameCalls(program.steps, names) }
  // The parameters go along so a wiring mistake is reported as one (FLOW_BLOCK_INPUT), not as an exception to catch.
  const args = callAtom('flowCodeArgs', { step: lit(stepId), input: id(input), initial: id('initial'), params: lit(params.slice(1)), ...(input === 'initial' ? { first: lit(true) } : {}) })
  const call: Expr = make('call', { callee: entry, args: [args] }) as Expr
  return [set(out, call)]
}
