/** The `ajsc flow …` subcommands: options and help (the work is in flow.ts). */
import type { Command } from 'commander'
import type { CliIO } from '../io.ts'
import { DEFAULT_RUN_TIMEOUT_MS } from './run.ts'
import { atomsOption } from '../options.ts'

/** The flow commands' code (the flow compiler, its runtime, the Python frontend, the scheduler): loaded when one runs, not by every `ajsc`. */
const flowCode = () => import('./flow.ts')

export function registerFlowCommands(program: Command, io: CliIO, setCode: (code: number) => void): void {
  const flow = program.command('flow')
    .description('flow documents (Flow Specification v1 SavedFlow JSON, Block flows): validate, format, compile, run, schedule')
  const semantics = (c: Command) => c
    .option('--semantics <mode>', 'SavedFlow: extended (default: branches, tools, vendor atoms, cycles) or reference (reachable prompts in BFS order only)')
    .option('--max-visits <n>', 'SavedFlow: node visits allowed in one run (default 100)')
  const running = (c: Command) => c
    .option('--fuel <n>', 'fuel budget per run (default 1000)')
    .option('--timeout <ms>', `wall-clock limit per run in ms (default ${DEFAULT_RUN_TIMEOUT_MS})`)
    .option('--llm <url>', 'OpenAI-compatible endpoint for prompts and llm blocks, e.g. http://127.0.0.1:1234/v1 (API key from $AJS_LLM_API_KEY)')
    .option('--model <name>', 'model name for --llm (default "default")')
    .option('--allow-fetch <hosts>', 'grant httpFetch for these hosts (comma-separated)')
    .option('--allow-private <hosts>', 'also allow these hosts to be private or loopback addresses')
    .addOption(atomsOption('custom atoms for vendor node types and tools: a module of defineAtom exports (./atoms.mjs); repeatable'))

  semantics(flow.command('validate')
    .description('report every problem compile and run would refuse a flow document for (file:line:col: error Rule: message)')
    .argument('<file>', 'a SavedFlow or Block flow .json file (the format is detected)')
    .option('--json', 'print { valid, format, problems: [{ rule, path, message }] } (plus the usual report fields) on stdout'))
    .action(async (file: string, opts) => setCode((await flowCode()).flowValidate(file, opts, io)))

  flow.command('fmt')
    .description('print the normalized document (spec key order, defaults applied, unknown keys kept)')
    .argument('<file>', 'a flow .json file')
    .option('--write', 'rewrite the file instead of printing it')
    .option('--json', 'print one JSON report (changed, document) on stdout')
    .action(async (file: string, opts) => setCode((await flowCode()).flowFmt(file, opts, io)))

  semantics(flow.command('compile')
    .description('compile a flow document to an ajs/1 AST (printed on stdout)')
    .argument('<file>', 'a flow .json file')
    .addOption(atomsOption('custom atoms the running VM will have (vendor node types, tools): a module of defineAtom exports (./atoms.mjs) or comma-separated names; repeatable'))
    .option('--pretty', 'indent the JSON')
    .option('--json', 'print one JSON report (format, ast) on stdout'))
    .action(async (file: string, opts) => setCode(await (await flowCode()).flowCompile(file, opts, io)))

  running(semantics(flow.command('run')
    .description('run a flow document and print its result as JSON')
    .argument('<file>', 'a flow .json file')
    .option('-i, --input <json>', 'the flow input: a JSON object, @file.json, or - for stdin (default {})')
    .option('-a, --args <json>', 'the same as --input, under the name ajsc run, eval and workflow run use')
    .option('--trace', 'print the flow events (steps with fuel and tokens) to stderr')
    .option('--json', 'print one JSON report (result, fuelUsed, error, events, diagnostics) on stdout')))
    .action(async (file: string, opts) => setCode(await (await flowCode()).flowRun(file, opts, io)))

  running(semantics(flow.command('schedule')
    .description('run the enabled flows of a directory ({id}.json files) on their entry schedules until Ctrl-C')
    .argument('<dir>', 'the flow store directory')
    .option('--duration <ms>', 'stop after this long (default: run until interrupted)')
    .option('--timezone <tz>', 'IANA time zone for cron schedules (default: the machine\'s)')
    .option('--json', 'print the log as JSON lines on stdout')))
    .action(async (dir: string, opts) => setCode(await (await flowCode()).flowSchedule(dir, opts, io)))
}
