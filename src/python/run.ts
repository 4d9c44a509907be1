/** Running Python programs: a VM with the Python runtime, and the one-call `runPythonBlock`. */
import { AgentVM, type AgentVMOptions } from '../vm/agent-vm.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import type { RunOptions } from '../vm/limits.ts'
import type { AgentError } from '../vm/errors.ts'
import type { TraceEntry } from '../vm/result.ts'
import { pythonLibrary } from './library.ts'
import { transpilePython, type TranspilePythonOptions } from './transpile.ts'
import { assembleVM } from '../host/assemble.ts'

/** VM options that add the Python runtime library; spread into your own: `new AgentVM(atoms, { ...pythonVmOptions() })`. */
export function pythonVmOptions(): Pick<AgentVMOptions, 'libraries'> {
  return { libraries: [pythonLibrary] }
}

/** A VM that runs Python programs (and everything else an AgentVM runs). */
export function createPythonVM(atoms: Record<string, AtomDef> | AtomDef[] = {}, options: AgentVMOptions = {}): AgentVM {
  return assembleVM({ atoms, vmOptions: options, libraries: [...(options.libraries ?? []), pythonLibrary] })
}

/** An uncaught Python exception, as the run reports it. */
export interface PythonError extends AgentError {
  /** The exception class: `ZeroDivisionError`, `KeyError`, ... */
  pythonType?: string
}

export interface PythonRunResult<T = Record<string, unknown>> {
  result: T | null
  error?: PythonError
  fuelUsed: number
  warnings?: string[]
  /** With `trace: true`: one entry per step, located at `<file>:<line>:<column>` of the body. */
  trace?: TraceEntry[]
}

/**
 * A run error with Python's view: an uncaught exception becomes `PY_EXCEPTION` with `pythonType`
 * and the message `Type: text`; too deep a recursion keeps `STACK_OVERFLOW` with `pythonType:
 * 'RecursionError'`; other errors (fuel, timeout, ...) are returned unchanged.
 */
export function pythonError(error: AgentError | undefined): PythonError | undefined {
  if (!error) return undefined
  if (error.code === 'STACK_OVERFLOW') return { ...error, pythonType: 'RecursionError' }
  const v = error.value as { pyType?: unknown; message?: unknown } | undefined
  if (error.code !== 'THROWN' || !v || typeof v.pyType !== 'string') return error
  const text = typeof v.message === 'string' ? v.message : ''
  const out: PythonError = { ...error, code: 'PY_EXCEPTION', pythonType: v.pyType, message: text ? `${v.pyType}: ${text}` : v.pyType }
  out.hint = 'Catch it with try/except in the block, or fix the condition that raises it.'
  delete out.value
  return out
}

export interface RunPythonBlockOptions extends TranspilePythonOptions, RunOptions {
  /** The flow's global input, passed as `initial`. */
  initial?: unknown
  /** The pipeline input: its keys are the block's parameters after `initial`. */
  input?: Record<string, unknown>
  /**
   * The pipeline input as JSON text (instead of `input`): read as `json.loads` reads it, so `2.0`
   * arrives as a float and big ints are exact. (JS objects cannot tell `2.0` from `2`: there a
   * whole number is an int.)
   */
  inputText?: string
  /** A VM made with createPythonVM (default: a shared one). */
  vm?: AgentVM
}

let shared: AgentVM | undefined

/**
 * Transpile and run a code block as the contract calls it: `_block(initial=initial, **input)`.
 * Resolves with the block's dict as JSON data, or an error (never rejects for guest errors;
 * a refused source throws the TranspileError).
 */
export async function runPythonBlock<T = Record<string, unknown>>(body: string, options: RunPythonBlockOptions = {}): Promise<PythonRunResult<T>> {
  const { initial = {}, input = {}, inputText, vm, params, filename, jsonText, profile, ...run } = options
  const keys = inputText === undefined ? Object.keys(input) : Object.keys(JSON.parse(inputText) as object)
  const { ast } = transpilePython(body, { params: params ?? ['initial', ...keys], filename, jsonText, profile })
  const machine = vm ?? (shared ??= createPythonVM())
  const args = inputText === undefined ? { ...input, initial } : { initial, $json: inputText }
  const r = await machine.run<T>(ast, args, run)
  const out: PythonRunResult<T> = { result: r.result, fuelUsed: r.fuelUsed }
  if (r.error) out.error = pythonError(r.error)
  if (r.warnings) out.warnings = r.warnings
  if (r.trace) out.trace = r.trace
  return out
}
