/**
 * `ajsc run`: run a program on the built-in VM with the embedded default
 * setup (see ../setup.ts). The target is a source file, an AST `.json` file
 * or a `proc_` token (with `--procedures`). Arguments come from `--args`
 * (JSON, `@file.json` or `-` for stdin) or from piped stdin.
 *
 * stdout gets only the result as JSON (or the whole RunResult with
 * `--json`); diagnostics and the `--trace` table go to stderr.
 */
import { resolve } from 'node:path'
import { TranspileError } from '../../diagnostics/index.ts'
import type { AjsProgram } from '../../ast/types.ts'
import { PROCEDURE_TOKEN_PREFIX } from '../../vm/procedures.ts'
import { CliError, readText, type CliIO } from '../io.ts'
import { compileSource, isAstPath, loadAst, splitList } from '../compile.ts'
import { formatAgentError, formatTranspileError, transpileErrorJson } from '../report.ts'
import { formatTrace } from '../trace.ts'
import { createRunSetup } from '../setup.ts'
import { FileProcedureStore } from '../procedure-file.ts'
import { palette } from '../colors.ts'

export interface RunCommandOptions {
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
}

/** A non-negative number option, or a usage error. */
function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new CliError(`${name} must be a non-negative number, got "${value}"`)
  return n
}

function parseArgs(text: string, from: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new CliError(`${from} is not valid JSON: ${(e as Error).message}`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliError(`${from} must be a JSON object`)
  return value
}

async function readArgs(opt: string | undefined, io: CliIO): Promise<unknown> {
  if (opt === undefined) return io.stdinHasData() ? parseArgs((await io.readStdin()).trim() || '{}', 'stdin') : {}
  if (opt === '-') return parseArgs(await io.readStdin(), 'stdin')
  if (opt.startsWith('@')) {
    const path = resolve(io.cwd, opt.slice(1))
    let text: string
    try {
      text = readText(path)
    } catch {
      throw new CliError(`--args ${opt}: no such file`)
    }
    return parseArgs(text, opt.slice(1))
  }
  return parseArgs(opt, '--args')
}

export async function runCommand(target: string, opts: RunCommandOptions, io: CliIO): Promise<number> {
  const c = palette(io.color)
  const fuel = numberOption(opts.fuel, '--fuel')
  const timeoutMs = numberOption(opts.timeout, '--timeout')
  if (opts.model && !opts.llm) throw new CliError('--model needs --llm <url>')
  const isToken = target.startsWith(PROCEDURE_TOKEN_PREFIX)
  if (isToken && !opts.procedures) throw new CliError(`running a ${PROCEDURE_TOKEN_PREFIX} token needs --procedures <file> (tokens live only as long as their store)`)
  const args = await readArgs(opts.args, io)

  let program: AjsProgram | string = target
  let sourceText: string | undefined
  if (!isToken) {
    const path = resolve(io.cwd, target)
    const text = readText(path)
    if (!isAstPath(path)) sourceText = text
    if (isAstPath(path)) {
      const loaded = loadAst(text)
      if (!loaded.ast) {
        const first = loaded.problems[0]!
        io.err(`${target}: ${c.red(c.bold('error'))} AST_INVALID: ${first.path || '/'}: ${first.message}\n`)
        return 1
      }
      program = loaded.ast
    } else {
      try {
        program = compileSource(text, target).ast
      } catch (e) {
        if (!(e instanceof TranspileError)) throw e
        if (opts.json) io.out(`${JSON.stringify({ result: null, error: { ...transpileErrorJson(e), name: 'TranspileError' }, fuelUsed: 0 })}\n`)
        else io.err(formatTranspileError(e, c))
        return 1
      }
    }
  }

  const { vm, capabilities } = createRunSetup({
    allowFetch: splitList(opts.allowFetch),
    allowPrivate: splitList(opts.allowPrivate),
    llmUrl: opts.llm,
    model: opts.model,
    apiKey: io.env['AJS_LLM_API_KEY'],
    procedures: opts.procedures ? new FileProcedureStore(resolve(io.cwd, opts.procedures)) : undefined,
  })
  const result = await vm.run(program, args, {
    capabilities,
    ...(fuel !== undefined ? { fuel } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    trace: opts.trace === true,
  })
  if (opts.trace && result.trace) io.err(formatTrace(result.trace, result.fuelUsed, c))
  for (const w of result.warnings ?? []) io.err(`${c.yellow('warning')}: ${w}\n`)
  if (opts.json) {
    io.out(`${JSON.stringify(result)}\n`)
  } else if (result.error) {
    io.err(formatAgentError(result.error, target, c, sourceText))
  } else {
    io.out(`${JSON.stringify(result.result, null, 2)}\n`)
  }
  return result.error ? 1 : 0
}
