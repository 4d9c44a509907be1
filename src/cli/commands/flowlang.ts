/**
 * `ajsc flowlang validate|run|chat|serve-tools`: FlowLang from the command line.
 *
 * validate <file> [--json]  exit 0 valid, 1 invalid; `--json` adds
 *                           `{ valid, graph, problems }` to the report.
 * run <file> --prompt TEXT  one turn of the flow: --llm/--model override the
 *                           protocol block, each --mcp "<command>" names a
 *                           stdio MCP server; the answer goes to stdout,
 *                           Safe Mode notices and the trace to stderr.
 * chat <file>               many turns on one session: one user turn per
 *                           stdin line (same flags as run; see flowlang-chat.ts).
 * serve-tools --root DIR    our MCP server (stdio): flow_repair, flow_validate.
 */
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { EXIT, readText, usageError, type CliIO } from '../io.ts'
import { Reporter } from '../report.ts'
import { FLOW_CODES } from '../../diagnostics/flowlang-codes.ts'
import { fill } from '../../diagnostics/codes.ts'
import { collect, openCliSession, sessionOptions, toDiagnostic, turnDiagnostic, turnPayload, vars, type SessionFlags } from './flowlang-session.ts'
import { chatCommand } from './flowlang-chat.ts'

interface ValidateOpts { json?: boolean; var?: string[] }

async function validateCommand(file: string, opts: ValidateOpts, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flowlang validate', opts.json === true)
  const text = readText(resolve(io.cwd, file), file)
  const { loadFlowSource } = await import('../../flowlang/sources.ts')
  const result = await loadFlowSource(text, { filename: file, vars: vars(opts.var) })
  reporter.add(...result.problems.map((p) => toDiagnostic(p, file)))
  if (!opts.json) io.err(result.valid ? `${file}: valid (${result.graph.nodes.length} nodes, ${result.graph.edges.length} edges)\n` : `${file}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}\n`)
  return reporter.finish({ valid: result.valid, graph: result.graph, problems: result.problems.map(({ frame: _f, ...p }) => p) }, result.valid ? EXIT.ok : EXIT.failure)
}

interface RunOpts extends SessionFlags {
  prompt?: string
  allowSafeMode?: boolean
}

async function runFlowCommand(file: string, opts: RunOpts, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flowlang run', opts.json === true)
  let prompt = opts.prompt
  if (prompt === undefined) throw usageError('flowlang run needs --prompt <text> (or --prompt - to read stdin)')
  if (prompt === '-') prompt = (await io.readStdin()).trim()
  const { session, takeAnswer } = await openCliSession(file, opts, io)
  try {
    for (const p of session.problems) reporter.add({ ...toDiagnostic(p, file), severity: 'warning' })
    const turn = await session.turn(prompt)
    const answer = takeAnswer()
    if (turn.error) reporter.add(turnDiagnostic(turn.error, file))
    // An answer from the baseline is not an answer from the user's flow: a failure (exit 1) unless accepted.
    const safe = turn.mode === 'safe'
    if (safe) {
      const reason = (turn.notice ?? 'the flow is broken').replace(/^Safe Mode: /, '').replace(/\. Running the baseline[\s\S]*$/, '')
      reporter.add({ severity: opts.allowSafeMode ? 'warning' : 'error', code: FLOW_CODES.SAFE_MODE.code, message: fill(FLOW_CODES.SAFE_MODE.message, { reason }), hint: FLOW_CODES.SAFE_MODE.hint, file })
    }
    if (!opts.json && answer) io.out(`${answer}\n`)
    return reporter.finish({ ...turnPayload(turn, answer, opts.trace), safeMode: safe }, turn.error || (safe && !opts.allowSafeMode) ? EXIT.failure : EXIT.ok)
  } finally {
    await session.close()
  }
}

async function serveToolsCommand(opts: { root?: string; approvePatches?: boolean }, io: CliIO): Promise<number> {
  const { createFlowToolsServer } = await import('../../flowlang/tools-server.ts')
  const server = await createFlowToolsServer({ root: resolve(io.cwd, opts.root ?? '.'), approvePatches: opts.approvePatches === true })
  // Loaded on use: the MCP SDK is an optional dependency (createFlowToolsServer has checked it is there).
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
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
  sessionOptions(flow.command('run')
    .description('run one turn of a flow against a model and MCP servers (Safe Mode when the flow is broken)')
    .argument('<file>', 'the flow file')
    .option('--prompt <text>', 'the user message (- reads stdin)')
    .option('--allow-safe-mode', 'exit 0 when the turn ran in Safe Mode (default: exit 1 with FLOW6007, the answer still printed)'), 'print one JSON report (answer, mode, safeMode, rounds, toolCalls, fuelUsed)')
    .action(async (file: string, opts) => setCode(await runFlowCommand(file, opts, io)))
  sessionOptions(flow.command('chat')
    .description('a conversation with a flow: one user turn per stdin line, all on the same session; /exit or EOF ends it')
    .argument('<file>', 'the flow file')
    .option('--transcript <file>', 'write the whole conversation as JSON to this file at the end'), 'print one JSON line per turn (turn, answer, mode, rounds, toolCalls, error?) and a final report')
    .action(async (file: string, opts) => setCode(await chatCommand(file, opts, io)))
  flow.command('serve-tools')
    .description('serve flow_repair and flow_validate as an MCP server on stdio')
    .option('--root <dir>', 'flow files must be inside this directory (default: the working directory)')
    .option('--approve-patches', 'approve repairs of flows whose advisor.gate gates prePatch')
    .action(async (opts) => setCode(await serveToolsCommand(opts, io)))
}
