/**
 * `ajsc eval '<code>'`: run AJS statements (or one expression) given on the
 * command line, as `node -e` / `node -p` do. The code becomes the body of an
 * entry function; with `-p` the value of the last expression statement is
 * printed as JSON. Errors point into the code as typed (line and column of
 * the argument, not of the wrapper).
 */
import type { Command } from 'commander'
import { TranspileError } from '../../diagnostics/index.ts'
import type { CliIO } from '../io.ts'
import { compileSource } from '../compile.ts'
import { fromAgentError, fromTranspileError, Reporter, type JsonDiagnostic } from '../report.ts'
import { runAtomsOption, jsonObjectFlag, numberOption, timeoutOption } from '../options.ts'
import { DEFAULT_RUN_TIMEOUT_MS, guestConsole, printWarnings, runAtoms, setupFromFlags, type SetupFlags } from './run.ts'
import type { AtomsFlag } from '../atoms-module.ts'
import { bodyWithValue, typedBack } from '../snippet.ts'
import { valueText } from '../value-text.ts'
import { argKeyWarnings, argKeysRead } from '../args-keys.ts'

export interface EvalOptions extends SetupFlags {
  print?: boolean
  args?: string
  fuel?: string
  timeout?: string
  json?: boolean
  atoms?: AtomsFlag
}

/**
 * `async function evaluate(...) { ` + code on the same line, so lines of the
 * code keep their numbers; async, so `await` works at the top level as at a
 * prompt.
 */
const PREFIX = 'async function evaluate(args) { '
/** The key the wrapper's own completion returns the last value under; any other result is the code's own `return`. */
const VALUE_KEY = '__ajscEvalValue'


export async function evalCommand(code: string, opts: EvalOptions, io: CliIO): Promise<number> {
  const fuel = numberOption(opts.fuel, '--fuel')
  const timeoutMs = timeoutOption(opts.timeout, DEFAULT_RUN_TIMEOUT_MS)
  const reporter = new Reporter(io, 'eval', opts.json === true)
  const args = await jsonObjectFlag(opts.args, '--args', io)
  const atoms = await runAtoms(opts.atoms, io)
  const body = opts.print ? bodyWithValue(code) : { source: code, hasValue: false }
  // Diagnostics point at the code as typed, not at the wrapper.
  const unwrap = (d: JsonDiagnostic): JsonDiagnostic => typedBack({ ...d, file: '<eval>' }, code, PREFIX.length, body)
  const source = `${PREFIX}${body.source}\n${body.hasValue ? `return { ${VALUE_KEY}: __value }` : 'return {}'}\n}\n`
  let ast
  try {
    ast = compileSource(source, '<eval>', atoms.names, 50).ast
  } catch (e) {
    if (!(e instanceof TranspileError)) throw e
    reporter.add(...fromTranspileError(e).map(unwrap))
    return reporter.finish({ result: null, fuelUsed: 0 })
  }
  const reads = argKeysRead(ast)
  reporter.add(...argKeyWarnings(reads && { entry: 'the code', keys: reads, reads: true }, args))
  const { vm, capabilities } = setupFromFlags(opts, io, atoms.atoms)
  const result = await vm.run(ast, { args }, { capabilities, timeoutMs, ...(fuel !== undefined ? { fuel } : {}), onLog: guestConsole(io) })
  if (!opts.json) printWarnings(io, result.warnings)
  if (result.error) reporter.add(unwrap(fromAgentError(result.error, { file: '<eval>', fuel: fuel ?? 1000, timeoutMs })))
  const value = body.hasValue && !result.error ? printedValue(result.result) : null
  if (opts.print && !opts.json && !result.error) io.out(`${valueText(value)}\n`)
  // The report stays strict JSON: an undefined value is null there.
  return reporter.finish({ result: value ?? null, fuelUsed: result.fuelUsed })
}

/** The value -p prints: the last expression's (undefined after a declaration, as node -p), or what the code returned itself (`if (x) return y`). */
function printedValue(result: unknown): unknown {
  const own = result !== null && typeof result === 'object' && !Array.isArray(result) && Object.hasOwn(result, VALUE_KEY)
  return own ? (result as Record<string, unknown>)[VALUE_KEY] : result
}

export function registerEvalCommand(program: Command, io: CliIO, setCode: (code: number) => void): void {
  program.command('eval')
    .description('run AJS statements or an expression given as an argument (like node -e; -p prints the last value)')
    .argument('<code>', 'AJS statements, e.g. \'let xs = [1, 2, 3]; xs.map(x => x * 2)\'')
    .option('-p, --print', 'print the value of the last expression (as JSON, with NaN, Infinity, -0 and undefined as JavaScript writes them)')
    .option('-a, --args <json>', 'a JSON object the code can read as `args` (inline, @file.json or - for stdin)')
    .option('--fuel <n>', 'fuel budget (default 1000)')
    .option('--timeout <ms>', `wall-clock limit in ms (default ${DEFAULT_RUN_TIMEOUT_MS})`)
    .option('--json', 'print one JSON report (result, fuelUsed, diagnostics) on stdout')
    .option('--allow-fetch <hosts>', 'grant httpFetch for these hosts')
    .option('--allow-private <hosts>', 'allow these private or loopback hosts')
    .option('--llm <url>', 'OpenAI-compatible endpoint for llmPredict')
    .option('--model <name>', 'model name for --llm')
    .addOption(runAtomsOption())
    .action(async (code: string, opts: EvalOptions) => setCode(await evalCommand(code, opts, io)))
}
