/**
 * `ajsc check`: diagnostics only. Source files are transpiled (nothing is
 * written); `.json` files are validated as ASTs. Text output is
 * `file:line:col: error CODE: message` with a code frame; `--json` prints
 * one object with every diagnostic. Exit 1 when any file has an error.
 */
import { TranspileError, type Diagnostic } from '../../diagnostics/index.ts'
import { readText, type CliIO } from '../io.ts'
import { expandInputs } from '../inputs.ts'
import { compileSource, isAstPath, loadAst, splitList } from '../compile.ts'
import { formatTranspileError, formatWarning, transpileErrorJson } from '../report.ts'
import { palette } from '../colors.ts'

export interface CheckOptions {
  json?: boolean
  atoms?: string
}

type JsonDiagnostic = Omit<Partial<Diagnostic>, 'severity'> & { severity: string; message: string; file: string; path?: string; frame?: string }

export async function checkCommand(inputs: string[], opts: CheckOptions, io: CliIO): Promise<number> {
  const c = palette(io.color)
  const atoms = splitList(opts.atoms)
  const files = expandInputs(inputs, io.cwd)
  const results: Array<{ file: string; ok: boolean; diagnostics: JsonDiagnostic[] }> = []
  let errors = 0
  let warnings = 0
  for (const file of files) {
    const name = file.display
    const diagnostics: JsonDiagnostic[] = []
    const text = readText(file.path)
    if (isAstPath(file.path)) {
      for (const p of loadAst(text).problems) {
        diagnostics.push({ severity: 'error', code: 'code' in p && p.code ? p.code : 'AST_INVALID', file: name, path: p.path, message: p.message })
        if (!opts.json) io.err(`${name}: ${c.red(c.bold('error'))} ${'code' in p && p.code ? p.code : 'AST_INVALID'}: ${p.path || '/'}: ${p.message}\n`)
      }
    } else {
      try {
        for (const w of compileSource(text, name, atoms).warnings) {
          diagnostics.push(w)
          if (!opts.json) io.err(formatWarning(w, c))
        }
      } catch (e) {
        if (!(e instanceof TranspileError)) throw e
        diagnostics.push(transpileErrorJson(e))
        if (!opts.json) io.err(formatTranspileError(e, c))
      }
    }
    const fileErrors = diagnostics.filter((d) => d.severity === 'error').length
    errors += fileErrors
    warnings += diagnostics.length - fileErrors
    results.push({ file: name, ok: fileErrors === 0, diagnostics })
  }
  if (opts.json) io.out(`${JSON.stringify({ files: results, errors, warnings })}\n`)
  else io.err(`${files.length} file${files.length === 1 ? '' : 's'} checked: ${errors ? c.red(`${errors} error${errors === 1 ? '' : 's'}`) : c.green('no errors')}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`)
  return errors > 0 ? 1 : 0
}
