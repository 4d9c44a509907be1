/**
 * ajs-lang/python: Python code blocks on the AgentVM. `transpilePython`
 * compiles a block body (the Python subset of the Block Runtime Contract) to
 * an "ajs/1" program; the Python runtime it calls loads with this entry
 * only, so `ajs-lang/vm` does not grow. Re-exports only.
 */
export { transpilePython, type TranspilePythonOptions, type TranspilePythonResult } from './transpile.ts'
export {
  runPythonBlock, createPythonVM, pythonVmOptions, pythonError,
  type RunPythonBlockOptions, type PythonRunResult, type PythonError,
} from './run.ts'
export { PYTHON_FUNCTIONS } from './runtime/functions.ts'
export type { PythonExternal } from './lower-external.ts'
