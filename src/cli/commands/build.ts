/**
 * `ajsc build`: compile AJS sources to `.json` ASTs ahead of time.
 *
 * Each input is compiled on its own; a failing file is reported and the
 * others still build (exit 1 if any failed). `-` compiles stdin to stdout.
 * `--watch` rebuilds a file when it changes and runs until interrupted.
 */
import { mkdirSync, watch, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { TranspileError } from '../../diagnostics/index.ts'
import type { AjsProgram } from '../../ast/types.ts'
import { CliError, readText, type CliIO } from '../io.ts'
import { expandInputs, type InputFile } from '../inputs.ts'
import { compileSource, splitList, stripLocations } from '../compile.ts'
import { formatTranspileError, formatWarning, transpileErrorJson } from '../report.ts'
import { palette } from '../colors.ts'

export interface BuildOptions {
  outdir?: string
  pretty?: boolean
  minify?: boolean
  watch?: boolean
  json?: boolean
  atoms?: string
}

interface Outcome {
  input: string
  output?: string
  bytes?: number
  error?: ReturnType<typeof transpileErrorJson>
  warnings: number
}

export function serializeAst(ast: AjsProgram, opts: BuildOptions): string {
  const value = opts.minify ? stripLocations(ast) : ast
  return opts.pretty ? `${JSON.stringify(value, null, 2)}\n` : `${JSON.stringify(value)}\n`
}

/** Where an input's AST goes: next to it, or under `outdir` keeping the relative layout. */
export function outputPath(file: InputFile, outdir: string | undefined, cwd: string): string {
  const name = file.rel.replace(/\.(ajs|js|mjs)$/, '') + '.json'
  return outdir ? join(resolve(cwd, outdir), name) : join(dirname(file.path), name.split('/').pop()!)
}

export async function buildCommand(inputs: string[], opts: BuildOptions, io: CliIO): Promise<number> {
  if (opts.pretty && opts.minify) throw new CliError('--pretty and --minify cannot be used together')
  const c = palette(io.color)
  const atoms = splitList(opts.atoms)

  if (inputs.length === 1 && inputs[0] === '-') {
    if (opts.watch) throw new CliError('--watch cannot read stdin')
    try {
      const { ast, warnings } = compileSource(await io.readStdin(), '<stdin>', atoms)
      for (const w of warnings) io.err(formatWarning(w, c))
      io.out(serializeAst(ast, opts))
      return 0
    } catch (e) {
      if (!(e instanceof TranspileError)) throw e
      io.err(opts.json ? `${JSON.stringify(transpileErrorJson(e))}\n` : formatTranspileError(e, c))
      return 1
    }
  }
  if (inputs.includes('-')) throw new CliError('`-` (stdin) cannot be combined with other inputs')

  const files = expandInputs(inputs, io.cwd)
  const buildOne = (file: InputFile): Outcome => {
    const display = file.display
    try {
      const { ast, warnings } = compileSource(readText(file.path), display, atoms)
      const output = outputPath(file, opts.outdir, io.cwd)
      const text = serializeAst(ast, opts)
      mkdirSync(dirname(output), { recursive: true })
      writeFileSync(output, text)
      if (!opts.json) for (const w of warnings) io.err(formatWarning(w, c))
      return { input: display, output, bytes: Buffer.byteLength(text), warnings: warnings.length }
    } catch (e) {
      if (e instanceof TranspileError) {
        if (!opts.json) io.err(formatTranspileError(e, c))
        return { input: display, error: transpileErrorJson(e), warnings: 0 }
      }
      if (e instanceof CliError) {
        if (!opts.json) io.err(`${c.red('error')}: ${e.message}\n`)
        return { input: display, error: { message: e.message } as never, warnings: 0 }
      }
      throw e
    }
  }
  const report = (outcomes: Outcome[]) => {
    const failed = outcomes.filter((o) => o.error).length
    if (opts.json) io.out(`${JSON.stringify({ outputs: outcomes, failed })}\n`)
    else io.err(`${failed ? c.red(`${failed} failed`) + ', ' : ''}${c.green(`${outcomes.length - failed} built`)}\n`)
    return failed
  }

  const failed = report(files.map(buildOne))
  if (!opts.watch) return failed > 0 ? 1 : 0
  return watchFiles(files, (file) => { report([buildOne(file)]) }, io)
}

/** Rebuild on change until SIGINT/SIGTERM; resolves to exit code 0. */
function watchFiles(files: InputFile[], rebuild: (f: InputFile) => void, io: CliIO): Promise<number> {
  return new Promise((resolveExit) => {
    const pending = new Map<string, ReturnType<typeof setTimeout>>()
    // Editors write in several steps: wait for the events of one save to settle.
    const watchers = files.map((file) => watch(file.path, () => {
      clearTimeout(pending.get(file.path))
      pending.set(file.path, setTimeout(() => rebuild(file), 50))
    }))
    io.err(`watching ${files.length} file${files.length === 1 ? '' : 's'} (Ctrl-C to stop)\n`)
    const stop = () => {
      for (const w of watchers) w.close()
      for (const t of pending.values()) clearTimeout(t)
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolveExit(0)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
