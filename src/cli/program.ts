/**
 * The `ajsc` command line (commander 14): options and help for each command,
 * and the mapping of every outcome to an exit code. `runCli` returns the
 * code; only main.ts exits.
 *
 * Exit codes: 0 success, 1 program or diagnostic error, 2 usage error.
 */
import { Command, CommanderError, Option } from 'commander'
import { CliError, type CliIO } from './io.ts'
import { palette } from './colors.ts'
import { packageVersion } from './version.ts'
import { buildCommand } from './commands/build.ts'
import { checkCommand } from './commands/check.ts'
import { runCommand } from './commands/run.ts'

export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2 })

function createProgram(io: CliIO, setCode: (code: number) => void): Command {
  const c = palette(io.color)
  const program = new Command('ajsc')
    .description('Compile, check and run AJS agent programs (safe JavaScript for AI agents).')
    .version(packageVersion(), '-v, --version', 'print the ajs-lang version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      outputError: (s, write) => write(c.red(s)),
    })

  const atomsOption = new Option('--atoms <names>', 'comma-separated custom atom names the source may call')

  program.command('build')
    .description('compile .ajs (and .js agent sources) to .json ASTs ahead of time')
    .argument('<inputs...>', 'files, directories (every .ajs inside) or globs ("flows/**/*.ajs"); - reads stdin and writes stdout')
    .option('-o, --outdir <dir>', 'write ASTs under this directory (default: next to each source)')
    .option('--pretty', 'indent the JSON')
    .option('--minify', 'compact JSON without source positions (smallest output)')
    .option('-w, --watch', 'rebuild a file whenever it changes (Ctrl-C to stop)')
    .option('--json', 'print a JSON summary of outputs and errors on stdout')
    .addOption(atomsOption)
    .exitOverride()
    .action(async (inputs: string[], opts) => setCode(await buildCommand(inputs, opts, io)))

  program.command('run')
    .description('run a program on the built-in VM (in-memory store; no network unless granted) and print its result as JSON')
    .argument('<target>', 'a source file (.ajs/.js), an AST (.json) or a proc_ token (with --procedures)')
    .option('-a, --args <json>', 'arguments: a JSON object, @file.json, or - for stdin (default: piped stdin, else {})')
    .option('--fuel <n>', 'fuel budget (default 1000)')
    .option('--timeout <ms>', 'wall-clock limit in ms (default: fuel x 10 ms)')
    .option('--trace', 'print each step with its fuel to stderr')
    .option('--json', 'print the whole RunResult (result, error, fuelUsed, trace) as JSON')
    .option('--allow-fetch <hosts>', 'grant httpFetch for these hosts (comma-separated; *.example.com, *); private addresses stay blocked')
    .option('--allow-private <hosts>', 'also allow these hosts to be private or loopback addresses (e.g. 127.0.0.1 for a local service)')
    .option('--llm <url>', 'OpenAI-compatible endpoint for llmPredict and the batteries, e.g. http://127.0.0.1:1234/v1 (API key from $AJS_LLM_API_KEY)')
    .option('--model <name>', 'model name for --llm (default "default")')
    .option('--procedures <file>', 'keep stored procedures in this JSON file (needed to run a proc_ token)')
    .exitOverride()
    .action(async (target: string, opts) => setCode(await runCommand(target, opts, io)))

  program.command('check')
    .description('report diagnostics (file:line:col: error CODE: message + code frame) without writing anything')
    .argument('<inputs...>', 'source files, directories, globs, or .json ASTs to validate')
    .option('--json', 'print every diagnostic as JSON on stdout')
    .addOption(new Option('--atoms <names>', 'comma-separated custom atom names the source may call'))
    .exitOverride()
    .action(async (inputs: string[], opts) => setCode(await checkCommand(inputs, opts, io)))

  return program
}

/** Run `ajsc` with user arguments (without `node` and the script path); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let code: number = EXIT.ok
  const program = createProgram(io, (c) => { code = c })
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return code
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage
    if (e instanceof CliError) {
      io.err(`${palette(io.color).red('error')}: ${e.message}\n`)
      return e.exitCode
    }
    io.err(`ajsc: internal error: ${(e as Error)?.stack ?? String(e)}\n`)
    return EXIT.failure
  }
}
