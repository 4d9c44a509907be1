/**
 * `ajsc build`: compile AJS sources to `.json` ASTs ahead of time, with
 * esbuild's output conventions: `--outfile` for one input (or stdin),
 * `--outdir` keeping the layout below the inputs' common directory, next to
 * each source otherwise; `-` compiles stdin to stdout (`--stdin-filename`
 * names it in messages and in the AST).
 *
 * Each input is compiled on its own; a failing file is reported with every
 * refusal in it (up to `--max-errors`), its stale output is removed, and the
 * others still build (exit 1 if any failed). `--watch` rebuilds on change.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { TranspileError } from '../../diagnostics/index.ts'
import { CliError, EXIT, readText, usageError, type CliIO } from '../io.ts'
import { commonBase, displayPath, expandInputs, type InputFile } from '../inputs.ts'
import { compileSource, preparePython, serializeAst, sourceMapPath } from '../compile.ts'
import { loadCliAtoms, type AtomsFlag } from '../atoms-module.ts'
import { openMcp, usesMcp, type McpFlags } from '../mcp.ts'
import { fromCliError, fromTranspileError, located, Reporter } from '../report.ts'
import { palette } from '../colors.ts'
import { intOption } from '../options.ts'
import { watchInputs } from '../watch.ts'

export interface BuildOptions extends McpFlags {
  outfile?: string
  outdir?: string
  stdinFilename?: string
  pretty?: boolean
  minify?: boolean
  sourcemap?: boolean
  watch?: boolean
  json?: boolean
  atoms?: AtomsFlag
  maxErrors?: string
}

interface BuiltFile {
  input: string
  output?: string
  bytes?: number
  ok: boolean
}

/** Where an input's AST goes: `--outfile`, under `--outdir` keeping the layout below `base`, or next to it. */
export function outputPath(file: InputFile, opts: BuildOptions, base: string, cwd: string): string {
  if (opts.outfile) return resolve(cwd, opts.outfile)
  const name = relative(base, file.path).replace(/\.(ajs|js|mjs|py)$/, '') + '.json'
  return opts.outdir ? join(resolve(cwd, opts.outdir), name) : join(dirname(file.path), name.split(/[\\/]/).pop()!)
}

export async function buildCommand(inputs: string[], opts: BuildOptions, io: CliIO): Promise<number> {
  if (opts.pretty && opts.minify) throw usageError('--pretty and --minify cannot be used together')
  if (opts.outfile && opts.outdir) throw usageError('--outfile and --outdir cannot be used together', 'Use --outfile for one input, --outdir for several.')
  if (opts.sourcemap && !opts.minify) throw usageError('--sourcemap only applies to --minify builds', 'Without --minify the AST keeps its source positions; add --minify.')
  const maxErrors = intOption(opts.maxErrors, '--max-errors', 1) ?? 50
  const loadedAtoms = await loadCliAtoms(opts.atoms, io.cwd)
  // With MCP servers: their tools are atoms, and every program is type-checked against their schemas.
  const mcp = usesMcp(opts) ? await openMcp(opts, io.cwd, loadedAtoms.names) : undefined
  if (mcp) for (const note of mcp.notes) io.err(`note: ${note}\n`)
  await mcp?.close()
  const atoms = [...loadedAtoms.names, ...Object.keys(mcp?.atoms ?? {})]
  const typed = mcp ? { ...Object.fromEntries(loadedAtoms.atoms.map((a) => [a.op, a])), ...mcp.atoms } : undefined
  const reporter = new Reporter(io, 'build', opts.json === true)

  if (inputs.includes('-')) {
    if (inputs.length > 1) throw usageError('`-` (stdin) cannot be combined with other inputs')
    if (opts.watch) throw usageError('--watch cannot read stdin')
    if (opts.outdir) throw usageError('stdin has one output: use --outfile (or stdout without it)')
    const name = opts.stdinFilename ?? '<stdin>'
    const source = await io.readStdin()
    await preparePython([name])
    try {
      const { ast, warnings } = compileSource(source, name, atoms, maxErrors, typed)
      reporter.add(...warnings.map(located))
      const { text, map } = serializeAst(ast, opts)
      if (!opts.outfile) {
        if (opts.json) return reporter.finish({ files: [{ input: name, ok: true, ast }] })
        io.out(text)
        return EXIT.ok
      }
      const output = resolve(io.cwd, opts.outfile)
      write(output, text, map)
      return reporter.finish({ files: [{ input: name, output: displayPath(io.cwd, output), bytes: Buffer.byteLength(text), ok: true }] })
    } catch (e) {
      if (!(e instanceof TranspileError)) throw e
      reporter.add(...fromTranspileError(e))
      if (opts.outfile) removeStale(resolve(io.cwd, opts.outfile))
      return reporter.finish({ files: [{ input: name, ok: false }] })
    }
  }
  if (opts.stdinFilename) throw usageError('--stdin-filename needs `-` (stdin) as the input')

  const files = expandInputs(inputs, io.cwd)
  await preparePython([...inputs, ...files.map((f) => f.path)])
  if (opts.outfile && files.length > 1) {
    throw usageError(`--outfile takes one input; got ${files.length} files`, 'Use --outdir <dir> for several inputs.')
  }
  const base = commonBase(files)

  const buildOne = (file: InputFile): BuiltFile => {
    const output = outputPath(file, opts, base, io.cwd)
    if (output === file.path) throw usageError(`${file.display}: the output would overwrite the input`, 'Build .ajs sources, or name another --outfile/--outdir.')
    const shown = { input: file.display, output: displayPath(io.cwd, output) }
    try {
      const { ast, warnings } = compileSource(readText(file.path, file.display), file.display, atoms, maxErrors, typed)
      reporter.add(...warnings.map(located))
      const { text, map } = serializeAst(ast, opts)
      write(output, text, map)
      return { ...shown, bytes: Buffer.byteLength(text), ok: true }
    } catch (e) {
      if (e instanceof TranspileError) reporter.add(...fromTranspileError(e))
      else if (e instanceof CliError) reporter.add(fromCliError(e))
      else throw e
      // A failed build leaves no stale output behind (a later step must not pick up the old AST).
      removeStale(output)
      return { input: file.display, ok: false }
    }
  }

  const summarize = (built: BuiltFile[]) => {
    const failed = built.filter((b) => !b.ok).length
    if (!opts.json) {
      const c = palette(io.color)
      io.err(`${opts.watch ? `[${clock()}] ` : ''}${failed ? `${c.red(`${failed} failed`)}, ` : ''}${c.green(`${built.length - failed} built`)}\n`)
    }
    return failed
  }

  const built = files.map(buildOne)
  summarize(built)
  const code = reporter.finish({ files: built })
  if (!opts.watch) return code
  return watchInputs(inputs, io, {
    onChange: (changed) => {
      reporter.diagnostics.length = 0
      const now = expandInputs(inputs, io.cwd, { allowMissing: true }).filter((f) => changed.has(f.path))
      const rebuilt = now.map(buildOne)
      summarize(rebuilt)
      reporter.finish({ files: rebuilt })
    },
    onDelete: (path) => {
      const file = { path, display: displayPath(io.cwd, path) }
      const output = outputPath(file, opts, base, io.cwd)
      removeStale(output)
      if (!opts.json) io.err(`[${clock()}] ${file.display} was deleted; removed ${displayPath(io.cwd, output)}\n`)
    },
  })
}

/** `HH:MM:SS` for watch messages. */
export const clock = (): string => new Date().toTimeString().slice(0, 8)

function write(output: string, text: string, map: string | undefined): void {
  try {
    mkdirSync(dirname(output), { recursive: true })
    writeFileSync(output, text)
    if (map !== undefined) writeFileSync(sourceMapPath(output), map)
    else rmSync(sourceMapPath(output), { force: true })
  } catch (e) {
    throw new CliError('CLI_WRITE', `${output}: ${(e as Error).message}`)
  }
}

function removeStale(output: string): void {
  if (existsSync(output)) rmSync(output, { force: true })
  rmSync(sourceMapPath(output), { force: true })
}
