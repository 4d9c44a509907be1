/**
 * What `ajsc flowlang run` and `ajsc flowlang chat` share: their flags, the
 * session they open from them (model, MCP servers, limits, where messages,
 * events and the trace go) and how one turn is reported. Kept apart from
 * the commands so chat reuses run's setup instead of copying it.
 */
import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { FlowSession, SessionTurn } from '../../flowlang/session.ts'
import type { FlowProblem } from '../../flowlang/graph.ts'
import type { McpServerSpec } from '../../flowlang/runtime/types.ts'
import { readText, usageError, type CliIO } from '../io.ts'
import type { JsonDiagnostic } from '../report.ts'
import { llmUrlOption } from '../options.ts'

/** Library hints name options; the terminal user needs the flag. */
export const FLAG_HINTS: Record<string, string> = {
  TIMEOUT: 'Raise the limit with --timeout <ms>.',
  FUEL_EXHAUSTED: 'Raise the budget with --fuel <n>.',
  FLOW6003: 'Raise the limit with --max-rounds <n>, or check the tools answer what the model needs.',
  FLOW6004: 'Check the endpoint and model: --llm URL --model NAME (is the server running?).',
  FLOW6005: 'Name the MCP server that offers the tool with --mcp "<command>".',
  FLOW6006: 'Check the server command given with --mcp "<command>" and its stderr.',
}

export function toDiagnostic(p: FlowProblem, file: string): JsonDiagnostic {
  return {
    severity: 'error', code: p.code, message: p.message, hint: FLAG_HINTS[p.code] ?? p.hint, file,
    ...(p.line !== undefined ? { line: p.line, column: (p.column ?? 0) + 1 } : {}),
    ...(p.path && p.line === undefined ? { path: p.path } : {}),
    ...(p.frame ? { frame: p.frame } : {}),
  }
}

/** `k=v` pairs of repeated --var flags. */
export function vars(list: string[] | undefined): Record<string, string> {
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

export const collect = (value: string, prev: string[] = []) => [...prev, value]

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw usageError(`${flag} must be a positive integer, got "${value}"`)
  return n
}

/** The flags of a session (run and chat). */
export interface SessionFlags {
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

/** Declare the session flags on a command (`json` describes what its --json prints). */
export function sessionOptions(cmd: Command, json: string): Command {
  return cmd
    .option('--llm <url>', 'model endpoint; wins over the protocol block\'s baseUrl (API key from $AJS_LLM_API_KEY)')
    .option('--model <name>', 'model name; wins over the protocol block\'s model')
    .option('--mcp <command>', 'a stdio MCP server command line (repeatable)', collect)
    .option('--timeout <ms>', 'time limit of each turn (default 60000)')
    .option('--fuel <n>', 'fuel of each turn (default 10000)')
    .option('--max-rounds <n>', 'model rounds per turn (default 8)')
    .option('--var <key=value>', 'a variable for .flow `when`/`set` (repeatable)', collect)
    .option('--trace', 'print events and the turn trace to stderr')
    .option('--json', json)
}

/** Check the flags that need no session (usage errors come before any server starts). */
export function sessionSettings(opts: SessionFlags, io: CliIO) {
  const mcpServers: Record<string, McpServerSpec> = {}
  ;(opts.mcp ?? []).forEach((cmd, i) => {
    const [command, ...args] = splitCommand(cmd)
    if (!command) throw usageError('--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-everything"')
    mcpServers[`mcp${i + 1}`] = { command, args, cwd: io.cwd }
  })
  const limits = { timeoutMs: positiveInt(opts.timeout, '--timeout'), fuel: positiveInt(opts.fuel, '--fuel'), maxRounds: positiveInt(opts.maxRounds, '--max-rounds') }
  return { mcpServers, limits, vars: vars(opts.var) }
}

export interface CliSession {
  session: FlowSession
  /** Assistant messages the sinks delivered since the last `takeAnswer()`. */
  takeAnswer(): string
}

/**
 * Open the session the flags describe. Assistant messages are collected
 * for the caller; Safe Mode notices, events and the trace go to stderr
 * (not with --json: the notice is in the turn's JSON).
 */
export async function openCliSession(file: string, opts: SessionFlags, io: CliIO, settings = sessionSettings(opts, io)): Promise<CliSession> {
  // A missing or unreadable file is the user's CLI_NOT_FOUND / CLI_READ, not an internal error.
  readText(resolve(io.cwd, file), file)
  let answer: string[] = []
  // The FlowLang runtime loads when a session opens, not with every `ajsc` (this module's flag helpers are used by other commands).
  const { FlowSession } = await import('../../flowlang/session.ts')
  const session = await FlowSession.open({ path: resolve(io.cwd, file), filename: file, vars: settings.vars }, {
    host: {
      llm: { baseUrl: llmUrlOption(opts.llm), model: opts.model, apiKey: io.env['AJS_LLM_API_KEY'] },
      mcpServers: settings.mcpServers,
      limits: settings.limits,
      onMessage: (m) => {
        if (m.role === 'system') { if (!opts.json) io.err(`${m.content}\n`) } else answer.push(m.content ?? '')
      },
      onEvent: (e) => { if (opts.trace && !opts.json) io.err(`${JSON.stringify(e)}\n`) },
      onTrace: (t) => { if (opts.trace && !opts.json) io.err(`trace ${JSON.stringify(t)}\n`) },
    },
  })
  return {
    session,
    takeAnswer: () => {
      const text = answer.join('\n')
      answer = []
      return text
    },
  }
}

/** A failed turn as a diagnostic, its hint naming the flag that fixes it. */
export function turnDiagnostic(error: NonNullable<SessionTurn['error']>, file: string): JsonDiagnostic {
  return { severity: 'error', code: error.code, message: error.message, hint: FLAG_HINTS[error.code] ?? error.hint, file }
}

/** The JSON fields of one turn (run's report, each chat line). */
export function turnPayload(turn: SessionTurn, answer: string, trace: boolean | undefined): Record<string, unknown> {
  return {
    mode: turn.mode, ...(turn.notice ? { notice: turn.notice } : {}), answer, text: turn.text,
    rounds: turn.rounds, toolCalls: turn.toolCalls, fuelUsed: turn.fuelUsed, ...(trace ? { trace: turn.trace } : {}),
  }
}
