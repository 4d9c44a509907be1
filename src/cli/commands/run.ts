/**
 * `ajsc run`: run a program on the built-in VM with the embedded default
 * setup (see ../setup.ts). The target is a source file, an AST `.json` file
 * (with its `--minify` source map `<file>.map` applied when present), `-`
 * for a program on stdin, or a `proc_` token (with `--procedures`).
 * Arguments come only from `--args` (JSON, `@file.json` or `-` for stdin):
 * stdin is never read unless asked.
 *
 * stdout gets only the result as JSON (or the `--json` report, io.ts);
 * diagnostics, warnings and the `--trace` table go to stderr. `--watch`
 * runs again whenever the target file changes.
 */
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { TranspileError } from '../../diagnostics/index.ts'
import type { AjsProgram } from '../../ast/types.ts'
import { PROCEDURE_TOKEN_PREFIX } from '../../vm/procedures.ts'
import { CliError, EXIT, readText, usageError, type CliIO } from '../io.ts'
import { compileSource, isAstPath, isAstSourceMap, loadAst, preparePython, restoreLocations, sourceMapPath, splitList } from '../compile.ts'
import { fromAgentError, fromAstProblems, fromTranspileError, located, paramNames, Reporter } from '../report.ts'
import { formatTrace } from '../trace.ts'
import { createRunSetup, type RunSetup } from '../setup.ts'
import { FileProcedureStore } from '../procedure-file.ts'
import { palette } from '../colors.ts'
import { intOption, jsonObjectFlag, llmUrlOption, numberOption, timeoutOption } from '../options.ts'
import { clock } from './build.ts'
import { watchInputs } from '../watch.ts'
import { loadCliAtoms, type AtomsFlag, type CliAtoms } from '../atoms-module.ts'
import { openMcp, usesMcp, type CliMcp, type McpFlags } from '../mcp.ts'
import { approvalGate, type ApprovalMode } from '../approvals.ts'
import { unknownArgKeys } from '../args-keys.ts'

/**
 * Wall-clock limit of `ajsc run` when `--timeout` is not given: long enough
 * for a real local model call (an `llmPredict` may take 120 s), short enough
 * that a stuck program still ends.
 */
export const DEFAULT_RUN_TIMEOUT_MS = 300_000

/** The flags that shape the run setup (shared by run, eval and repl). */
export interface SetupFlags {
  allowFetch?: string
  allowPrivate?: string
  llm?: string
  model?: string
  procedures?: string
}

/** The embedded run setup for these flags (with the atoms of `--atoms` modules, loaded by the caller). */
export function setupFromFlags(opts: SetupFlags, io: CliIO, atoms: CliAtoms['atoms'] = []): RunSetup {
  if (opts.model && !opts.llm) throw usageError('--model needs --llm <url>')
  return createRunSetup({
    allowFetch: splitList(opts.allowFetch),
    allowPrivate: splitList(opts.allowPrivate),
    llmUrl: llmUrlOption(opts.llm),
    model: opts.model,
    apiKey: io.env['AJS_LLM_API_KEY'],
    procedures: opts.procedures ? new FileProcedureStore(resolve(io.cwd, opts.procedures)) : undefined,
    atoms,
  })
}

/** The guest's console output as it happens, on stderr (run, eval, repl); its warnings come at the end (printWarnings). */
export function guestConsole(io: CliIO): (line: { level: string; message: string }) => void {
  const c = palette(io.color)
  return ({ level, message }) => { if (level !== 'warn') io.err(`${level === 'error' ? c.red('console.error') + ': ' : ''}${message}\n`) }
}

/** The run's warnings (its console.warn lines), on stderr. */
export function printWarnings(io: CliIO, warnings: readonly string[] | undefined): void {
  const c = palette(io.color)
  for (const w of warnings ?? []) io.err(`${c.yellow('warning')}: ${w}\n`)
}

export interface RunCommandOptions extends McpFlags {
  /** Calls of atoms that require approval: all approved, all denied (default: asked on a TTY, else denied). */
  approveAll?: boolean
  denyAll?: boolean
  args?: string
  fuel?: string
  timeout?: string
  trace?: boolean
  json?: boolean
  allowFetch?: string
  allowPrivate?: string
  llm?: string
  model?: string
  procedures?: string
  stdinFilename?: string
  maxErrors?: string
  watch?: boolean
  atoms?: AtomsFlag
}

interface Loaded {
  program: AjsProgram | string
  source?: string
  /** The parameter `--args` is bound to as a whole (a Python block body's `args`). */
  argsParam?: string
}

/** The program to run, or undefined after reporting why it cannot run. */
async function loadProgram(target: string, opts: RunCommandOptions, io: CliIO, reporter: Reporter, maxErrors: number, atomNames: readonly string[], typed?: Record<string, unknown>): Promise<Loaded | undefined> {
  if (target.startsWith(PROCEDURE_TOKEN_PREFIX)) return { program: target }
  const fromStdin = target === '-'
  const name = fromStdin ? opts.stdinFilename ?? '<stdin>' : target
  const path = fromStdin ? undefined : resolve(io.cwd, target)
  const text = fromStdin ? await io.readStdin() : readText(path!, target)
  const asAst = fromStdin ? (opts.stdinFilename ? isAstPath(opts.stdinFilename) : text.trimStart().startsWith('{')) : isAstPath(path!)
  await preparePython([name])
  if (asAst) {
    const loaded = loadAst(text)
    if (!loaded.ast) {
      reporter.add(...fromAstProblems(loaded.problems, name))
      return undefined
    }
    const mapFile = path && sourceMapPath(path)
    if (mapFile && existsSync(mapFile)) {
      const map: unknown = JSON.parse(readFileSync(mapFile, 'utf8'))
      if (isAstSourceMap(map)) {
        const restored = restoreLocations(loaded.ast, map)
        const sourceFile = map.file ? resolve(io.cwd, map.file) : undefined
        return { program: restored, ...(sourceFile && existsSync(sourceFile) ? { source: readFileSync(sourceFile, 'utf8') } : {}) }
      }
    }
    return { program: loaded.ast }
  }
  try {
    const { ast, warnings, argsParam } = compileSource(text, name, atomNames, maxErrors, typed)
    reporter.add(...warnings.map(located))
    return { program: ast, source: text, ...(argsParam ? { argsParam } : {}) }
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    reporter.add(...fromTranspileError(e))
    return undefined
  }
}

export async function runCommand(target: string, opts: RunCommandOptions, io: CliIO): Promise<number> {
  const fuel = numberOption(opts.fuel, '--fuel')
  const timeoutMs = timeoutOption(opts.timeout, DEFAULT_RUN_TIMEOUT_MS)
  const maxErrors = intOption(opts.maxErrors, '--max-errors', 1) ?? 50
  if (opts.model && !opts.llm) throw usageError('--model needs --llm <url>')
  const isToken = target.startsWith(PROCEDURE_TOKEN_PREFIX)
  if (isToken && !opts.procedures) throw usageError(`running a ${PROCEDURE_TOKEN_PREFIX} token needs --procedures <file>`, 'Tokens live only as long as their store: run the program that stores it with the same --procedures file.')
  if (target === '-' && opts.args === '-') throw usageError('stdin cannot hold both the program (`run -`) and its arguments (`--args -`)', 'Pass the arguments inline (--args \'{...}\') or from a file (--args @args.json).')
  if (opts.stdinFilename && target !== '-') throw usageError('--stdin-filename needs `-` (stdin) as the target')
  if (opts.watch && (isToken || target === '-')) throw usageError('--watch needs a program file to watch')
  if (opts.approveAll && opts.denyAll) throw usageError('--approve-all and --deny-all cannot be used together')
  const args = await jsonObjectFlag(opts.args, '--args', io)
  const atoms = await runAtoms(opts.atoms, io)
  const approval: ApprovalMode = opts.approveAll ? 'approve' : opts.denyAll ? 'deny' : 'ask'
  // MCP servers stay open for the whole command (every --watch run) and are closed when it ends.
  const mcp: CliMcp | undefined = usesMcp(opts) ? await openMcp(opts, io.cwd, atoms.atoms.map((a) => a.op)) : undefined
  if (mcp) for (const note of mcp.notes) io.err(`note: ${note}\n`)
  const typed = mcp ? { ...Object.fromEntries(atoms.atoms.map((a) => [a.op, a])), ...mcp.atoms } : undefined
  const offered = approvalGate([...atoms.atoms, ...Object.values(mcp?.atoms ?? {})], approval, io)

  const once = async (): Promise<number> => {
    const c = palette(io.color)
    const reporter = new Reporter(io, 'run', opts.json === true)
    const loaded = await loadProgram(target, opts, io, reporter, maxErrors, [...atoms.names, ...Object.keys(mcp?.atoms ?? {})], typed)
    if (!loaded) return reporter.finish({ result: null, fuelUsed: 0 })
    if (!loaded.argsParam) reporter.add(...unknownArgKeys(loaded.program, args))
    const { vm, capabilities } = setupFromFlags(opts, io, offered)
    const result = await vm.run(loaded.program, loaded.argsParam ? { [loaded.argsParam]: args } : args, {
      capabilities,
      ...(fuel !== undefined ? { fuel } : {}),
      timeoutMs,
      trace: opts.trace === true,
      onLog: guestConsole(io),
    })
    if (opts.trace && result.trace && !opts.json) io.err(formatTrace(result.trace, result.fuelUsed, c))
    if (!opts.json) printWarnings(io, result.warnings)
    if (result.error) reporter.add(fromAgentError(result.error, { file: target === '-' ? opts.stdinFilename ?? '<stdin>' : target, source: loaded.source, fuel: fuel ?? 1000, timeoutMs, params: loaded.argsParam ? [] : paramNames(loaded.program) }))
    else if (!opts.json) io.out(`${JSON.stringify(result.result, null, 2)}\n`)
    return reporter.finish({
      result: result.result ?? null,
      fuelUsed: result.fuelUsed,
      ...(result.warnings ? { warnings: result.warnings } : {}),
      ...(result.trace ? { trace: result.trace } : {}),
    })
  }

  try {
    const first = await once().catch((e) => {
      if (!opts.watch || !(e instanceof CliError)) throw e
      io.err(`${palette(io.color).red('error')}: ${e.message}\n`)
      return EXIT.failure
    })
    if (!opts.watch) return first
    return await watchRuns(target, io, once)
  } finally {
    await mcp?.close()
  }
}

function watchRuns(target: string, io: CliIO, once: () => Promise<number>): Promise<number> {
  return watchInputs([target], io, {
    onChange: async (changed) => {
      if (!changed.has(resolve(io.cwd, target))) return
      io.err(`[${clock()}] ${target} changed; running again\n`)
      try {
        await once()
      } catch (e) {
        if (!(e instanceof CliError)) throw e
        io.err(`${palette(io.color).red('error')}: ${e.message}\n`)
      }
    },
    onDelete: (path) => { if (path === resolve(io.cwd, target)) io.err(`[${clock()}] ${target} was deleted; waiting for it to come back\n`) },
  })
}

/**
 * The atoms of `--atoms` for a run: only modules make sense here, since the
 * VM needs the atoms' code; bare names would compile and then stop the run
 * (UNKNOWN_ATOM), so they are a usage error with the module form as hint.
 */
export async function runAtoms(flag: AtomsFlag, io: CliIO): Promise<CliAtoms> {
  const loaded = await loadCliAtoms(flag, io.cwd)
  const named = loaded.names.filter((n) => !loaded.atoms.some((a) => a.op === n))
  if (named.length > 0) {
    throw usageError(`--atoms ${named.join(',')}: a run needs the atoms themselves, not only their names`, `Export them from a module (\`export const ${named[0]} = defineAtom('${named[0]}', ...)\`) and pass it: --atoms ./atoms.mjs`)
  }
  return loaded
}
