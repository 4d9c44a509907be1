/**
 * The `ajsc` command line (commander 14): options and help for each command,
 * and the mapping of every outcome to an exit code and, with `--json`, to
 * the one JSON report (conventions: io.ts). `runCli` returns the code; only
 * main.ts exits.
 */
import { Command, CommanderError, Option } from 'commander'
import { CliError, EXIT, type CliIO } from './io.ts'
import { fromCliError, Reporter, usageHint } from './report.ts'
import { packageVersion } from '../host/version.ts'
import { atomsOption, runAtomsOption } from './options.ts'
import { toCliError } from './atoms-module.ts'
import { buildCommand } from './commands/build.ts'
import { checkCommand } from './commands/check.ts'
import { migrateCommand } from './commands/migrate.ts'
import { DEFAULT_RUN_TIMEOUT_MS, runCommand } from './commands/run.ts'
import { registerFlowlangCommands } from './commands/flowlang.ts'
import { registerFlowCommands } from './commands/flow-program.ts'
import { registerWorkflowCommands } from './commands/workflow.ts'
import { registerServeCommands, untilSignal } from './commands/serve.ts'
import { registerInspectCommand } from './commands/inspect.ts'
import { registerEvalCommand } from './commands/eval.ts'
import { registerReplCommand } from './commands/repl.ts'
import { registerInitCommand } from './commands/init.ts'
import { registerAtomsCommand } from './commands/atoms.ts'
import { mcpOption, mcpUrlOption } from './mcp.ts'
import { helpTopic } from './help-topic.ts'

export { EXIT } from './io.ts'

const maxErrorsOption = () => new Option('--max-errors <n>', 'report up to n refusals per file in one pass (default 50; 1 stops at the first)')
const COMPILE_ATOMS = 'custom atoms the source may call: a module of defineAtom exports (./atoms.mjs) or comma-separated names; repeatable'

function createProgram(io: CliIO, setCode: (code: number) => void, json: boolean): Command {
  const program = new Command('ajsc')
    .description('Compile, check and run AJS agent programs (safe JavaScript for AI agents).')
    .version(packageVersion(), '-v, --version', 'print the ajs-lang version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      // Help asked for by an error (a command group without its subcommand); never into a --json report.
      writeErr: (s) => { if (!json) io.err(s) },
      // runCli reports commander's usage errors as CLI_USAGE diagnostics, like every other error.
      outputError: () => {},
    })

  program.command('build')
    .description('compile .ajs sources to .json ASTs ahead of time')
    .argument('<inputs...>', 'files, directories (every .ajs inside) or globs ("flows/**/*.ajs"); - reads stdin')
    .option('-o, --outfile <file>', 'write the AST of the one input (or of stdin) to this file')
    .option('--outdir <dir>', 'write ASTs under this directory, keeping the layout below the inputs\' common directory (default: next to each source)')
    .option('--stdin-filename <name>', 'name of the source read from - (shown in messages, stored as the AST\'s file)')
    .option('--pretty', 'indent the JSON')
    .option('--minify', 'compact JSON without source positions (smallest output)')
    .option('--sourcemap', 'with --minify: also write <output>.map, so run errors still point at file:line:col')
    .option('-w, --watch', 'rebuild when sources change, appear or are deleted (Ctrl-C to stop)')
    .option('--json', 'print one JSON report (files, diagnostics) on stdout')
    .addOption(maxErrorsOption())
    .addOption(atomsOption(COMPILE_ATOMS))
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .action(async (inputs: string[], opts) => setCode(await buildCommand(inputs, opts, io)))

  program.command('run')
    .description('run a program on the built-in VM (in-memory store; no network unless granted) and print its result as JSON')
    .argument('<target>', 'a source file (.ajs/.js), an AST (.json), - for a program on stdin, or a proc_ token (with --procedures)')
    .option('-a, --args <json>', 'arguments: a JSON object, @file.json, or - for stdin (default {})')
    .option('--fuel <n>', 'fuel budget (default 1000)')
    .option('--timeout <ms>', `wall-clock limit in ms (default ${DEFAULT_RUN_TIMEOUT_MS}: room for slow local model calls)`)
    .option('--trace', 'print each step with its fuel to stderr')
    .option('--json', 'print one JSON report (result, fuelUsed, diagnostics, trace) on stdout')
    .option('--allow-fetch <hosts>', 'grant httpFetch for these hosts (comma-separated; *.example.com, *); private addresses stay blocked')
    .option('--allow-private <hosts>', 'also allow these hosts to be private or loopback addresses (e.g. 127.0.0.1 for a local service)')
    .option('--llm <url>', 'OpenAI-compatible endpoint for llmPredict and the batteries, e.g. http://127.0.0.1:1234/v1 (API key from $AJS_LLM_API_KEY)')
    .option('--model <name>', 'model name for --llm (default "default")')
    .option('--procedures <file>', 'keep stored procedures in this JSON file (needed to run a proc_ token)')
    .option('--stdin-filename <name>', 'name of the program read from - (a .json name reads an AST)')
    .option('-w, --watch', 'run again whenever the program file changes (Ctrl-C to stop)')
    .addOption(maxErrorsOption())
    .addOption(runAtomsOption())
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .option('--approve-all', 'approve every call that needs approval (MCP tools marked destructive, atoms with requiresApproval) without asking')
    .option('--deny-all', 'reject every call that needs approval (it throws APPROVAL_REJECTED) without asking')
    .action(async (target: string, opts) => setCode(await runCommand(target, opts, io)))

  program.command('check')
    .description('report diagnostics (file:line:col: error CODE: message + code frame) without writing anything')
    .argument('<inputs...>', 'source files, directories, globs, or .json ASTs to validate')
    .option('--json', 'print one JSON report (files, diagnostics) on stdout')
    .addOption(maxErrorsOption())
    .addOption(atomsOption(COMPILE_ATOMS))
    .addOption(mcpOption())
    .addOption(mcpUrlOption())
    .option('--typecheck', 'check calls and results against the atoms\' schemas (module atoms; on with --mcp)')
    .option('--plan', 'print each program\'s plan as JSON: the atoms it may call, call sites, bounds of calls, effects, what it can reach')
    .action(async (inputs: string[], opts) => setCode(await checkCommand(inputs, opts, io)))

  program.command('migrate')
    .description('rewrite ASTs of the seed\'s dialect (no "ajs" marker) to ajs/1 in place, reporting every construct changed')
    .argument('<inputs...>', 'AST files (.json) or globs ("agents/**/*.json")')
    .option('-o, --outfile <file>', 'write the migrated AST of the one input to this file instead')
    .option('--check', 'write nothing; fail (CLI_MIGRATE_NEEDED) when an input still needs migrating')
    .option('--json', 'print one JSON report (files with their changes, diagnostics) on stdout')
    .action((inputs: string[], opts) => setCode(migrateCommand(inputs, opts, io)))

  registerFlowlangCommands(program, io, setCode)
  registerFlowCommands(program, io, setCode)
  registerWorkflowCommands(program, io, setCode)
  registerServeCommands(program, io, setCode)
  registerInspectCommand(program, io, setCode, untilSignal)
  registerEvalCommand(program, io, setCode)
  registerReplCommand(program, io, setCode)
  registerInitCommand(program, io, setCode)
  registerAtomsCommand(program, io, setCode)

  return program
}

/**
 * The command argv names, subcommand included (`flow run`), as the reports
 * of commands name themselves; 'ajsc' when it names none. Used for errors
 * raised before or outside a command's own reporter.
 */
function commandOf(argv: readonly string[], program: Command): string {
  const names: string[] = []
  let group: Command = program
  for (const word of argv) {
    if (word.startsWith('-')) continue
    const sub = group.commands.find((c) => c.name() === word)
    if (!sub) break
    names.push(word)
    group = sub
  }
  return names.length > 0 ? names.join(' ') : 'ajsc'
}

/** commander's message as one line of ours: `unknown option '--fuell' (did you mean --fuel?)`. */
function commanderMessage(e: CommanderError): string {
  return e.message.replace(/^error: /, '').replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)').replace(/\.\s*$/, '')
}

/** Run `ajsc` with user arguments (without `node` and the script path); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let code: number = EXIT.ok
  const json = argv.includes('--json')
  const program = createProgram(io, (c) => { code = c }, json)
  try {
    const topic = helpTopic(argv, program)
    if (topic instanceof CliError) throw topic
    await program.parseAsync([...topic ?? argv], { from: 'user' })
    return code
  } catch (thrown) {
    // A host module's loader error (e.g. from the server's own start-up) is reported as the CLI's.
    const e = toCliError(thrown)
    const command = commandOf(argv, program)
    const reporter = new Reporter(io, command, json)
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return EXIT.ok
      // A command group typed without its subcommand: commander printed the group's help on stderr.
      if (e.code === 'commander.help') {
        if (json) reporter.add({ severity: 'error', code: 'CLI_USAGE', message: command === 'ajsc' ? '`ajsc` needs a command' : `\`ajsc ${command}\` needs a subcommand`, hint: usageHint(command) })
        return reporter.finish({}, EXIT.usage)
      }
      reporter.add({ severity: 'error', code: 'CLI_USAGE', message: commanderMessage(e), hint: usageHint(command) })
      return reporter.finish({}, EXIT.usage)
    }
    if (e instanceof CliError) {
      reporter.add(fromCliError(e))
      return reporter.finish({}, e.exitCode)
    }
    reporter.add({ severity: 'error', code: 'CLI_INTERNAL', message: (e as Error)?.stack ?? String(e), hint: 'Please report it with the command line that caused it.' })
    return reporter.finish({}, EXIT.failure)
  }
}
