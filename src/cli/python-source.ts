/**
 * A `.py` input of `ajsc run`, `check` and `build`: a Python block body whose parameter is `args` (the
 * run's `--args` object, as `ajsc workflow run x.py` compiles one), or a whole `def` whose parameters
 * take the arguments by name. Any JSON result is allowed. Loaded by compile.ts's preparePython only
 * when an input is a `.py` file, so no other command loads the Python frontend.
 */
import { TranspileError } from '../diagnostics/diagnostic.ts'
import { transpilePython, type TranspilePythonResult } from '../python/transpile.ts'
import type { CliCompiled } from './compile.ts'

export function compilePythonSource(source: string, filename: string): CliCompiled {
  let out: TranspilePythonResult
  try {
    out = transpilePython(source, { params: ['args'], filename, anyResult: true })
  } catch (e) {
    // AJS7011: a whole def whose parameters are not (args): compiled with its own parameters instead.
    if (!(e instanceof TranspileError) || e.code !== 'AJS7011') throw e
    out = transpilePython(source, { filename, anyResult: true })
  }
  const { ast, params, def } = out
  const signature = { name: def ?? filename, kind: 'named' as const, params: params.map((name) => ({ name, required: true, type: 'any', schema: {} })) }
  return { ast, signature, warnings: [], ...(def === undefined ? { argsParam: 'args' } : {}) }
}
