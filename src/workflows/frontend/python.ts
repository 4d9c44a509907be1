/**
 * A Python workflow (`ajsc workflow run orders.py`, `startWorkflow(source, { sourceName: 'orders.py' })`):
 * a Python block body whose parameter is `args`, compiled by `transpilePython` (extended profile) to
 * the same "ajs/1" shape a workflow module compiles to. The workflow globals are host functions of the
 * program (`agent(prompt, options)`, `sleep(durationMs)`, `signal(name, timeoutMs)`, `log(*values)`,
 * `phase(name)`, ...; `print` writes a line to the workflow's log), and so is every custom atom the run is given (`charge(order=1)` →
 * `charge({ input: { order: 1 }, site })`): each call carries its call site, so the engine journals
 * it and a resumed run, in any process, gets the journaled result instead of calling again.
 */
import { LIBRARIES } from '../../ast/libraries.ts'
import { sha256Hex } from '../../vm/atoms/sha256.ts'
import { transpilePython } from '../../python/transpile.ts'
import type { PythonExternal } from '../../python/lower-external.ts'
// The Python runtime library, registered for the VM the engine builds (its programs declare it).
import '../../python/library.ts'
import { canonicalJson } from '../engine/codec.ts'
import type { WorkflowProgram } from '../engine/program.ts'
import type { CustomAtomTable } from './atom-table.ts'
import { CALLS } from './rewrite.ts'

/** Whether a workflow source is Python: by its file name. */
export const isPythonSource = (sourceName: string | undefined): boolean => sourceName !== undefined && /\.py$/i.test(sourceName)

/** The workflow globals and the custom atoms, as the program's host functions. */
function externals(custom: CustomAtomTable): Record<string, PythonExternal> {
  const out: Record<string, PythonExternal> = {}
  for (const [name, c] of Object.entries(CALLS)) out[name] = { fields: c.fields, min: c.min, site: c.site, ...(c.rest ? { rest: true } : {}) }
  for (const name of custom.keys()) out[name] = { input: true, site: true }
  // `print` writes to the workflow's log, as `log(...)` does (CPython: stdout).
  out.print = { atom: 'log', fields: ['values'] }
  return out
}

/** Compile a Python workflow; throws the located `TranspileError` of transpilePython (AJS7xxx). */
export function compilePythonWorkflow(source: string, sourceName: string, custom: CustomAtomTable): WorkflowProgram {
  const table = externals(custom)
  const externalsHint = 'A custom atom is called by name once the run is given it: `ajsc workflow run|resume --atoms ./atoms.mjs`, or startWorkflow(source, { atoms }).'
  const { ast } = transpilePython(source, { params: ['args'], filename: sourceName, externals: table, externalsHint, anyResult: true })
  // The custom atoms the program calls (the engine refuses a run not given them), read off the AST.
  const called = new Set<string>()
  collectCalls(ast.functions ?? {}, custom, called)
  collectCalls(ast.steps, custom, called)
  const { file: _file, libraries: _libraries, ...hashed } = ast
  const atoms = Object.freeze([...called].sort())
  ast.libraries = { workflow: LIBRARIES.workflow.version, python: LIBRARIES.python.version }
  if (atoms.length > 0) ast.atoms = [...atoms]
  return Object.freeze({ format: 'ajs-workflow/1', ast, meta: {}, astHash: sha256Hex(canonicalJson(hashed)), sourceName, atoms })
}

function collectCalls(node: unknown, custom: CustomAtomTable, out: Set<string>): void {
  if (node === null || typeof node !== 'object') return
  if (Array.isArray(node)) { for (const x of node) collectCalls(x, custom, out); return }
  const o = node as Record<string, unknown>
  if (o['$expr'] === 'call' && typeof o['callee'] === 'string' && custom.has(o['callee'])) out.add(o['callee'])
  for (const k in o) collectCalls(o[k], custom, out)
}
