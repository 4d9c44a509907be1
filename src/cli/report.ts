/**
 * Diagnostics of every `ajsc` command in one shape (`JsonDiagnostic`),
 * printed as text on stderr (`file:line:col: error CODE: message`, code
 * frame, hint) or collected into the one `--json` report on stdout. See the
 * conventions at the top of io.ts. Converters take each kind of error the
 * commands meet: transpile errors and warnings, AST problems, run errors
 * (AgentError) and the CLI's own errors.
 */
import type { Diagnostic, TranspileError } from '../diagnostics/index.ts'
import type { AgentError } from '../vm/errors.ts'
import type { AstProblem } from '../ast/validate.ts'
import { codeFrame } from '../diagnostics/format.ts'
import { palette, type Palette } from './colors.ts'
import type { JsonSyntaxAt } from './json-text.ts'
import { CliError, EXIT, type CliIO } from './io.ts'
import { CLI_CODES } from '../diagnostics/cli-codes.ts'

/** One diagnostic, as text and as JSON. `line` and `column` are 1-based. */
export interface JsonDiagnostic {
  severity: 'error' | 'warning'
  code: string
  message: string
  hint?: string
  file?: string
  line?: number
  column?: number
  /** JSON pointer into an AST (AST validation). */
  path?: string
  /** The op (atom) of the failing step (run errors). */
  op?: string
  /** Code frame of the source around the position. */
  frame?: string
}

export function fromTranspileError(e: TranspileError): JsonDiagnostic[] {
  return e.errors.map((x) => ({ ...located(x.diagnostic), frame: x.frame }))
}

/** What the library's hint leaves out on the command line: the flag that fixes it. */
const TRANSPILE_FLAG_HINTS: Readonly<Record<string, string>> = {
  AJS3002: 'If the host provides it as a custom atom, declare it: --atoms ./atoms.mjs (a module of defineAtom atoms) or --atoms name.',
  // A .py input (python-source.ts): a body reads the --args object as `args`, a whole def takes its fields by name.
  AJS7006: 'In a .py file for ajsc, --args is `args` (args["name"]), or write the block as def f(name): to take its fields by name.',
  AJS7011: 'In a .py file for ajsc, write the block as def f(a, b=1): (each parameter a field of --args) or as a body that reads `args`.',
}

/** A transpiler diagnostic (warnings), 0-based column made 1-based. */
export function located(d: Diagnostic): JsonDiagnostic {
  // A call of the entry or of a function declared after it (a function of this very source, which
  // transpiler/lower/names.ts's hint says) is no host atom: --atoms would mislead.
  const flag = d.code === 'AJS3002' && d.hint?.includes(' is the entry or declared after it') ? undefined : TRANSPILE_FLAG_HINTS[d.code]
  // TypeScript given as a program: its annotations are syntax errors to a JavaScript parser.
  const ts = d.code === 'AJS1001' && d.file !== undefined && /\.[cm]?ts$/.test(d.file)
    ? ' AJS is JavaScript: remove the type annotations (JSDoc comments such as `@param {string} name` may give the types).' : ''
  const base = flag ? `${d.hint} ${flag}` : d.hint
  const hint = ts ? `${base ?? ''}${ts}`.trim() : base
  return { severity: d.severity, code: d.code, message: d.message, hint, file: d.file, line: d.line, column: d.column + 1 }
}

export function fromAstProblems(problems: ReadonlyArray<AstProblem | { path: string; message: string; code?: string; at?: JsonSyntaxAt }>, file: string): JsonDiagnostic[] {
  return problems.map((p) => {
    // Text that is not JSON: the place of the syntax error instead of a JSON pointer.
    if ('at' in p && p.at) return { severity: 'error', code: p.code ?? 'AST_INVALID', message: p.message, hint: 'Fix the JSON syntax at the marker, or rebuild the AST with `ajsc build`.', file, ...p.at }
    return {
      severity: 'error',
      code: p.code ?? 'AST_INVALID',
      message: p.message,
      hint: 'Rebuild the AST with `ajsc build`, or fix the node at this JSON pointer.',
      file,
      path: p.path || '/',
    }
  })
}

export interface RunContext {
  /** The target as the user named it. */
  file: string
  /** The program's source text, for a code frame. */
  source?: string
  fuel?: number
  timeoutMs?: number
  /** The fields the program's entry declares, for the --args hint. */
  params?: readonly string[]
}

/** A run error, with the hint a terminal user can act on (a flag, not a library option). */
export function fromAgentError(error: AgentError, ctx: RunContext): JsonDiagnostic {
  // A capability's message ends with its own hint (`(hint: the connection failed; ...)`): it becomes the
  // hint, unless a flag fixes the error (its hint may speak of options: `add the host to allowedHosts`).
  const inner = / \(hint: (.*)\)$/s.exec(error.message)
  const message = inner ? error.message.slice(0, inner.index) : error.message
  const d: JsonDiagnostic = { severity: 'error', code: error.code, message }
  const hint = cliHint(error, ctx) ?? inner?.[1] ?? error.hint
  if (hint) d.hint = hint
  d.file = error.file ?? ctx.file
  if (error.line !== undefined) d.line = error.line
  if (error.column !== undefined) d.column = error.column
  if (error.path !== undefined) d.path = error.path
  if (error.op) d.op = error.op
  if (ctx.source !== undefined && error.line !== undefined && error.column !== undefined) d.frame = codeFrame(ctx.source, error.line, error.column - 1)
  return d
}

export function fromCliError(e: CliError): JsonDiagnostic {
  return { severity: 'error', code: e.code, message: e.message, hint: e.hint, ...(e.file ? { file: e.file } : {}), ...(e.line !== undefined ? { line: e.line } : {}), ...(e.column !== undefined ? { column: e.column } : {}), ...(e.frame ? { frame: e.frame } : {}) }
}

/**
 * Library hints speak of options (`fuel`, `timeoutMs`, `allowedHosts`); the
 * terminal user needs the flag. Keyed by error code, or by the capability
 * code a CAPABILITY_ERROR carries (`value.code`, also `[FETCH_HOST_DENIED]` in the message).
 */
const FLAG_HINTS: Record<string, (ctx: RunContext, e: AgentError) => string | undefined> = {
  FUEL_EXHAUSTED: (ctx) => `Raise the budget with --fuel (this run had ${ctx.fuel ?? 1000}), or make the agent do less work.`,
  TIMEOUT: (ctx) => `Raise the limit with --timeout <ms>${ctx.timeoutMs !== undefined ? ` (this run had ${ctx.timeoutMs} ms)` : ''}, or make capabilities answer faster.`,
  CAPABILITY_MISSING: (_ctx, e) =>
    e.message.includes('fetch') ? 'ajsc run has no network by default: grant hosts with --allow-fetch host[,host]'
      : e.message.includes('llm') ? 'point ajsc run at an OpenAI-compatible endpoint with --llm URL --model NAME'
        : undefined,
  FETCH_HOST_DENIED: () => 'grant the host with --allow-fetch host[,host] (exact host, *.domain or *)',
  FETCH_PRIVATE_ADDRESS: () => 'private and loopback addresses are refused; allow a local service with --allow-private host (e.g. --allow-private 127.0.0.1)',
  FETCH_TIMEOUT: () => 'the request was too slow; raise the run limit with --timeout <ms> if the service is slow on purpose',
  LLM_TIMEOUT: () => 'the model took longer than 120 s; raise the run limit with --timeout <ms> or use a smaller model',
  LLM_NETWORK: () => 'the --llm endpoint is not reachable; is the server (LM Studio, Ollama, vLLM) running?',
  LLM_HTTP: () => 'the --llm endpoint answered with an error; check the URL, --model and $AJS_LLM_API_KEY',
  ARGS_INVALID: (ctx) => `Pass the arguments the program declares with --args '{${(ctx.params?.length ? ctx.params : ['name']).map((p) => `"${p}": ...`).join(', ')}}' (a JSON object), --args @file.json or --args - (stdin).`,
  PROCEDURE_NOT_FOUND: () => 'A proc_ token lives in the --procedures file of the run that stored it, until its TTL ends: pass that file, or run the program that calls storeProcedure again.',
  QUOTA_EXCEEDED: () => 'ajsc run sets no quotas; this quota comes from the program',
  HEAP_LIMIT: () => 'the program held too much data at once; build smaller values',
  UNKNOWN_ATOM: () => 'install the atoms on ajsc\'s VM: --atoms ./atoms.mjs (a module exporting them, made with defineAtom)',
  LIBRARY_MISSING: (_ctx, e) => libraryFlagHint(e.message),
  LIBRARY_VERSION: () => 'this ajsc is older than the compiler of the program: npm install ajs-lang@latest (or recompile the program with this version)',
}

/** ajsc run loads every library a module provides; what is left is another engine's program, or an unknown library. */
function libraryFlagHint(message: string): string {
  if (message.includes('"workflow"')) return 'a workflow module runs on the workflow engine: ajsc workflow run <module.ajs> (or POST /v1/workflows on ajsc serve)'
  if (message.includes('"flowlang"')) return 'a FlowLang turn runs in a FlowLang session: ajsc flowlang run <graph.flow> (or ajsc flowlang chat)'
  return 'this ajsc does not provide that library: upgrade ajs-lang (npm install ajs-lang@latest), or run the program on the host it was compiled for'
}

/** The field names an entry's parameter pattern takes from --args (`function f({ a, b = 1 })` -> a, b). */
export function paramNames(program: unknown): string[] {
  const params = (program as { params?: { $pattern?: string; properties?: Array<{ key?: unknown }> } } | null)?.params
  if (params?.$pattern !== 'object' || !Array.isArray(params.properties)) return []
  return params.properties.flatMap((p) => (typeof p.key === 'string' ? [p.key] : []))
}

export function cliHint(e: AgentError, ctx: RunContext): string | undefined {
  const value = e.value as { code?: unknown } | undefined
  const inner = typeof value?.code === 'string' ? value.code : /\[([A-Z_]+)\]/.exec(e.message)?.[1]
  return FLAG_HINTS[e.code]?.(ctx, e) ?? (inner ? FLAG_HINTS[inner]?.(ctx, e) : undefined)
}

/** The text form: `file:line:col: error CODE: message`, then frame and hint. The AST op that failed only without a source line (the frame shows the place better than the VM's name for the step). */
export function formatDiagnostic(d: JsonDiagnostic, c: Palette): string {
  const where = d.file === undefined ? '' : d.line !== undefined ? `${d.file}:${d.line}:${d.column ?? 1}: ` : `${d.file}: `
  const severity = d.severity === 'error' ? c.red(c.bold('error')) : c.yellow('warning')
  let text = `${where}${severity} ${c.bold(d.code)}: ${d.path ? `${d.path}: ` : ''}${d.message}${d.op && d.line === undefined ? c.dim(` (in ${d.op})`) : ''}\n`
  if (d.frame) text += `${c.dim(d.frame)}\n`
  if (d.hint) text += `${c.cyan('hint:')} ${d.hint}\n`
  return text
}

/** Where a usage error sends the user: the help of the command they typed (`command` as reports name it: 'run', 'flow run'). */
export function usageHint(command: string): string {
  return command === 'ajsc' ? 'Run `ajsc --help` for the commands.' : `Run \`ajsc ${command} --help\` for the options.`
}

/**
 * Collects a command's diagnostics: each one is printed on stderr as it
 * arrives (text mode), or all go into the JSON report `finish` prints.
 */
export class Reporter {
  readonly diagnostics: JsonDiagnostic[] = []
  private readonly c: Palette

  constructor(private readonly io: CliIO, readonly command: string, readonly json: boolean) {
    this.c = palette(io.color)
  }

  add(...ds: JsonDiagnostic[]): void {
    for (const given of ds) {
      // The registry's default CLI_USAGE hint cannot know the command; name the one typed.
      const d = given.code === 'CLI_USAGE' && given.hint === CLI_CODES.CLI_USAGE.hint ? { ...given, hint: usageHint(this.command) } : given
      this.diagnostics.push(d)
      if (!this.json) this.io.err(formatDiagnostic(d, this.c))
    }
  }

  get errors(): number {
    return this.diagnostics.filter((d) => d.severity === 'error').length
  }

  get warnings(): number {
    return this.diagnostics.length - this.errors
  }

  /** Print the JSON report (with `--json`); returns the exit code (1 when any error, unless given). */
  finish(payload: Record<string, unknown> = {}, exitCode: number = this.errors > 0 ? EXIT.failure : EXIT.ok): number {
    if (this.json) this.io.out(`${JSON.stringify({ command: this.command, ok: exitCode === 0, exitCode, ...payload, diagnostics: this.diagnostics })}\n`)
    return exitCode
  }
}
