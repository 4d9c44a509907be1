/**
 * `ajsc check`: diagnostics only. Source files are transpiled (nothing is
 * written) with every refusal of a file reported in one pass (up to
 * `--max-errors` per file); `.json` files are validated as ASTs. Text output
 * is `file:line:col: error CODE: message` with a code frame on stderr;
 * `--json` prints the one report (io.ts) on stdout. Exit 1 when any file has
 * an error.
 */
import { TranspileError } from '../../diagnostics/index.ts'
import { CliError, type CliIO } from '../io.ts'
import { expandInputs } from '../inputs.ts'
import { compileSource, isAstPath, isPythonPath, loadAst, preparePython } from '../compile.ts'
import { loadCliAtoms, type AtomsFlag, type CliAtoms } from '../atoms-module.ts'
import { fromAgentError, fromAstProblems, fromCliError, fromTranspileError, located, Reporter, type JsonDiagnostic } from '../report.ts'
import { createRunSetup } from '../setup.ts'
import { VmError } from '../../vm/errors.ts'
import type { AjsProgram } from '../../ast/types.ts'
import { palette } from '../colors.ts'
import { intOption } from '../options.ts'
import { readText } from '../io.ts'
import { atomNames } from '../compile.ts'
import { transpile } from '../../transpiler/index.ts'
import { openMcp, type McpFlags } from '../mcp.ts'
import { analyzeProgram, type ProgramPlan } from '../../codemode/plan.ts'

export interface CheckOptions extends McpFlags {
  json?: boolean
  atoms?: AtomsFlag
  maxErrors?: string
  /** Check programs against the atoms' schemas (on with --mcp / --mcp-url). */
  typecheck?: boolean
  /** Print each program's plan (analyzeProgram): atoms, call sites, bounds, reach. */
  plan?: boolean
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * What `ajsc run` would refuse an AST for before its first step: a call of an
 * atom ajsc's VM has not (core, batteries, --atoms modules). Atoms named with
 * `--atoms name` are the host's; an AST that declares runtime libraries
 * (Python, flows) gets their atoms when it runs, so it is not checked here.
 */
function unknownAtoms(ast: AjsProgram, file: string, moduleAtoms: CliAtoms['atoms'], named: readonly string[]): JsonDiagnostic[] {
  if (ast.libraries && Object.keys(ast.libraries).length > 0) return []
  try {
    createRunSetup({ atoms: moduleAtoms }).vm.compile(ast)
    return []
  } catch (e) {
    if (!(e instanceof VmError) || e.code !== 'UNKNOWN_ATOM' || named.some((n) => e.op === n || e.message.startsWith(`Unknown atom "${n}"`))) return []
    return [fromAgentError(e.toAgentError(), { file })]
  }
}

export async function checkCommand(inputs: string[], opts: CheckOptions, io: CliIO): Promise<number> {
  const c = palette(io.color)
  const maxErrors = intOption(opts.maxErrors, '--max-errors', 1) ?? 50
  const loaded = await loadCliAtoms(opts.atoms, io.cwd)
  const atoms = loaded.names
  const usesMcp = (opts.mcp?.length ?? 0) + (opts.mcpUrl?.length ?? 0) > 0
  const mcp = usesMcp ? await openMcp(opts, io.cwd, atoms) : undefined
  if (mcp) for (const note of mcp.notes) io.err(`note: ${note}\n`)
  await mcp?.close()
  // The type check reads the atoms' schemas: module atoms and MCP tools (names alone check nothing).
  const typed = opts.typecheck === true || usesMcp
    ? { ...Object.fromEntries(atomNames(atoms).map((n) => [n, true])), ...Object.fromEntries(loaded.atoms.map((a) => [a.op, a])), ...(mcp?.atoms ?? {}) }
    : undefined
  const reporter = new Reporter(io, 'check', opts.json === true)
  const files = expandInputs(inputs, io.cwd)
  await preparePython([...inputs, ...files.map((f) => f.path)])
  const results: Array<{ file: string; ok: boolean; errors: number; warnings: number; plan?: ProgramPlan }> = []
  for (const file of files) {
    const before = reporter.diagnostics.length
    const errorsBefore = reporter.errors
    let plan: ProgramPlan | undefined
    try {
      const text = readText(file.path, file.display)
      if (isAstPath(file.path)) {
        const ast = loadAst(text)
        reporter.add(...fromAstProblems(ast.problems, file.display))
        if (ast.ast) reporter.add(...unknownAtoms(ast.ast, file.display, loaded.atoms, atoms))
      }
      else {
        const out = typed && !isPythonPath(file.path) ? transpile(text, { filename: file.display, atoms: typed, maxErrors, typecheck: true }) : compileSource(text, file.display, atoms, maxErrors)
        reporter.add(...out.warnings.map(located))
        if (opts.plan) plan = analyzeProgram(out.ast, { ...Object.fromEntries(loaded.atoms.map((a) => [a.op, a])), ...(mcp?.atoms ?? {}) })
      }
    } catch (e) {
      if (e instanceof TranspileError) reporter.add(...fromTranspileError(e))
      else if (e instanceof CliError) reporter.add(fromCliError(e))
      else throw e
    }
    const errors = reporter.errors - errorsBefore
    results.push({ file: file.display, ok: errors === 0, errors, warnings: reporter.diagnostics.length - before - errors, ...(plan ? { plan } : {}) })
    if (plan && !opts.json) io.out(`${JSON.stringify({ file: file.display, plan }, null, 2)}\n`)
  }
  if (!opts.json) {
    const errors = reporter.errors
    io.err(`${plural(files.length, 'file')} checked: ${errors ? c.red(plural(errors, 'error')) : c.green('no errors')}, ${plural(reporter.warnings, 'warning')}\n`)
  }
  return reporter.finish({ files: results, errors: reporter.errors, warnings: reporter.warnings })
}
