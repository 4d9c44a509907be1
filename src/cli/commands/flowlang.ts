/**
 * `ajsc flowlang validate|run|serve-tools`: FlowLang from the command line.
 *
 * validate <file> [--json]  exit 0 valid, 1 invalid; `--json` adds
 *                           `{ valid, graph, problems }` to the report.
 * run <file> --prompt TEXT  one turn of the flow: --llm/--model override the
 *                           protocol block, each --mcp "<command>" names a
 *                           stdio MCP server; the answer goes to stdout,
 *                           Safe Mode notices and the trace to stderr.
 * serve-tools --root DIR    our MCP server (stdio): flow_repair, flow_validate.
 */
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { loadFlowSource } from '../../flowlang/sources.ts'
import { FlowSession } from '../../flowlang/session.ts'
import { createFlowToolsServer } from '../../flowlang/tools-server.ts'
import type { FlowProblem } from '../../flowlang/graph.ts'
import type { McpServerSpec } from '../../flowlang/runtime/types.ts'
import { EXIT, readText, usageError, type CliIO } from '../io.ts'
import { Reporter, type JsonDiagnostic } from '../report.ts'

/** Library hints name options; the terminal user needs the flag. */
const FLAG_HINTS: Record<string, string> = {
  FLOW6001: 'Raise the limit with --timeout <ms>.',
  FLOW6002: 'Raise the budget with --fuel <n>.',
  FLOW6003: 'Raise the limit with --max-rounds <n>, or check the tools answer what the model needs.',
  FLOW6004: 'Check the endpoint and model: --llm URL --model NAME (is the server running?).',
  FLOW6005: 'Name the MCP server that offers the tool with --mcp "<command>".',
  FLOW6006: 'Check the server command given with --mcp "<command>" and its stderr.',
}

function toDiagnostic(p: FlowProblem, file: string): JsonDiagnostic {
  return {
    severity: 'error', code: p.code, message: p.message, hint: FLAG_HINTS[p.code] ?? p.hint, file,
    ...(p.line !== undefined ? { line: p.line, column: (p.column ?? 0) + 1 } : {}),
    ...(p.path && p.line === undefined ? { path: p.path } : {}),
    ...(p.frame ? { frame: p.frame } : {}),
  }
}

/** `k=v` pairs of repeated --var flags. */
function vars(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of list ?? []) {
    const eq = item.indexOf('=')
    if (eq <= 0) throw usageError(`--var takes key=value, got "${item}"`, 'Write e.g. --var provider=ollama')
    out[item.slice(0, eq)] = item.slice(eq + 1)
  }
  return out
}

/** Split a command line into words (single and double quotes group; no shell). */
export function splitCommand(text: string): string[] {
  const words: string[] = []
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g
  for (let m = re.exec(text); m; m = re.exec(text)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2] ?? m[3]!)
  return words
}

const collect = (value: string, prev: string[] = []) => [...prev, value]

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw usageError(`${flag} must be a positive integer, got "${value}"`)
  return n
}

interface ValidateOpts { json?: boolean; var?: string[] }

async function validateCommand(file: string, opts: ValidateOpts, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flowlang validate', opts.json === true)
  const text = readText(resolve(io.cwd, file), file)
  const result = await loadFlowSource(text, { filename: file, vars: vars(opts.var) })
  reporter.add(...result.problems.map((p) => toDiagnostic(p, file)))
  if (!opts.json) io.err(result.valid ? `${file}: valid (${result.graph.nodes.length} nodes, ${result.graph.edges.length} edges)\n` : `${file}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}\n`)
  return reporter.finish({ valid: result.valid, graph: result.graph, problems: result.problems.map(({ frame: _f, ...p }) => p) }, result.valid ? EXIT.ok : EXIT.failure)
}

interface RunOpts {
  prompt?: string
  llm?: string
  model?: string
  mcp?: string[]
  json?: boolean
  trace?: boolean
  timeout?: string
  fuel?: string
  maxRounds?: string
  var?: string[]
}

async function runFlowCommand(file: string, opts: RunOpts, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flowlang run', opts.json === true)
  let prompt = opts.prompt
  if (prompt === undefined) throw usageError('flowlang run needs --prompt <text> (or --prompt - to read stdin)')
  if (prompt === '-') prompt = (await io.readStdin()).trim()
  const mcpServers: Record<string, McpServerSpec> = {}
  ;(opts.mcp ?? []).forEach((cmd, i) => {
    const [command, ...args] = splitCommand(cmd)
    if (!command) throw usageError('--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-everything"')
    mcpServers[`mcp${i + 1}`] = { command, args, cwd: io.cwd }
  })
  const answer: string[] = []
  const session = await FlowSession.open({ path: resolve(io.cwd, file), filename: file, vars: vars(opts.var) }, {
    host: {
      llm: { baseUrl: opts.llm, model: opts.model, apiKey: io.env['AJS_LLM_API_KEY'] },
      mcpServers,
      limits: { timeoutMs: positiveInt(opts.timeout, '--timeout'), fuel: positiveInt(opts.fuel, '--fuel'), maxRounds: positiveInt(opts.maxRounds, '--max-rounds') },
      onMessage: (m) => {
        if (m.role === 'system') { if (!opts.json) io.err(`${m.content}\n`) } else answer.push(m.content ?? '')
      },
      onEvent: (e) => { if (opts.trace && !opts.json) io.err(`${JSON.stringify(e)}\n`) },
      onTrace: (t) => { if (opts.trace && !opts.json) io.err(`trace ${JSON.stringify(t)}\n`) },
    },
  })
  try {
    for (const p of session.problems) reporter.add({ ...toDiagnostic(p, file), severity: 'warning' })
    const turn = await session.turn(prompt)
    if (turn.error) reporter.add({ severity: 'error', code: turn.error.code, message: turn.error.message, hint: FLAG_HINTS[turn.error.code] ?? turn.error.hint, file })
    if (!opts.json && answer.length) io.out(`${answer.join('\n')}\n`)
    return reporter.finish({
      mode: turn.mode, ...(turn.notice ? { notice: turn.notice } : {}), answer: answer.join('\n'), text: turn.text,
      rounds: turn.rounds, toolCalls: turn.toolCalls, fuelUsed: turn.fuelUsed, ...(opts.trace ? { trace: turn.trace } : {}),
    }, turn.error ? EXIT.failure : EXIT.ok)
  } finally {
    await session.close()
  }
}

async function serveToolsCommand(opts: { root?: string; approvePatches?: boolean }, io: CliIO): Promise<number> {
  const server = createFlowToolsServer({ root: resolve(io.cwd, opts.root ?? '.'), approvePatches: opts.approvePatches === true })
  const closed = new Promise<void>((ok) => {
    server.onclose = () => ok()
    process.stdin.once('end', () => ok())
  })
  await server.connect(new StdioServerTransport())
  io.err(`ajsc flowlang serve-tools: serving flow_repair and flow_validate for ${resolve(io.cwd, opts.root ?? '.')} on stdio\n`)
  await closed
  await server.close().catch(() => {})
  return EXIT.ok
}

/** Register `flowlang` and its subcommands on the program. */
export function registerFlowlangCommands(program: Command, io: CliIO, setCode: (code: number) => void): void {
  const flow = program.command('flowlang').description('FlowLang block graphs: validate, run as a model ⇄ MCP tools pipeline, serve flow_repair')
  flow.command('validate')
    .description('validate a flow (.json graph, .flow text or .flow.js/.js script): exit 0 valid, 1 invalid')
    .argument('<file>', 'the flow file')
    .option('--json', 'print one JSON report with { valid, graph, problems }')
    .option('--var <key=value>', 'a variable for .flow `when`/`set` (repeatable)', collect)
    .action(async (file: string, opts) => setCode(await validateCommand(file, opts, io)))
  flow.command('run')
    .description('run one turn of a flow against a model and MCP servers (Safe Mode when the flow is broken)')
    .argument('<file>', 'the flow file')
    .option('--prompt <text>', 'the user message (- reads stdin)')
    .option('--llm <url>', 'model endpoint; wins over the protocol block\'s baseUrl (API key from $AJS_LLM_API_KEY)')
    .option('--model <name>', 'model name; wins over the protocol block\'s model')
    .option('--mcp <command>', 'a stdio MCP server command line (repeatable)', collect)
    .option('--timeout <ms>', 'time limit of the turn (default 60000)')
    .option('--fuel <n>', 'fuel of the turn (default 10000)')
    .option('--max-rounds <n>', 'model rounds per turn (default 8)')
    .option('--var <key=value>', 'a variable for .flow `when`/`set` (repeatable)', collect)
    .option('--trace', 'print events and the turn trace to stderr')
    .option('--json', 'print one JSON report (answer, mode, rounds, toolCalls, fuelUsed)')
    .action(async (file: string, opts) => setCode(await runFlowCommand(file, opts, io)))
  flow.command('serve-tools')
    .description('serve flow_repair and flow_validate as an MCP server on stdio')
    .option('--root <dir>', 'flow files must be inside this directory (default: the working directory)')
    .option('--approve-patches', 'approve repairs of flows whose advisor.gate gates prePatch')
    .action(async (opts) => setCode(await serveToolsCommand(opts, io)))
}
