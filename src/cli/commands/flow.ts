/**
 * `ajsc flow validate|fmt|compile|run|schedule`: flow documents (SavedFlow
 * v1 and Block flows, the format detected) from the command line, with the
 * conventions of io.ts: the product on stdout, diagnostics on stderr (each
 * problem as `file:line:col: error Rule: message`, code frame, hint), one
 * JSON report with `--json`, exit 0 valid / ran, 1 invalid / failed, 2 usage.
 */
import { resolve } from 'node:path'
import { writeFileSync } from 'node:fs'
import { FlowError, type FlowProblem } from '../../flows/problems.ts'
import { checkFlow, compileFlow, flowFormatOf, readFlowDocument, runFlow, type CompileFlowOptions } from '../../flows/run.ts'
import { serializeSavedFlow, parseSavedFlow } from '../../flows/saved-flow/parse.ts'
import { parseBlockFlow, serializeBlockFlow } from '../../flows/blocks/parse.ts'
import type { FlowEvent } from '../../flows/runtime/events.ts'
import { loadFlowStore } from '../../flows/schedule/store.ts'
import { FlowScheduler, type ScheduleLogEntry } from '../../flows/schedule/scheduler.ts'
import { codeFrame } from '../../diagnostics/format.ts'
import { CliError, EXIT, readText, usageError, type CliIO } from '../io.ts'
import { fromAgentError, Reporter, type JsonDiagnostic } from '../report.ts'
import { intOption, jsonObjectFlag, numberOption, timeoutOption } from '../options.ts'
import { loadCliAtoms, type AtomsFlag } from '../atoms-module.ts'
import { palette } from '../colors.ts'
import { DEFAULT_RUN_TIMEOUT_MS, runAtoms, setupFromFlags } from './run.ts'

export interface FlowCommandOptions {
  json?: boolean
  write?: boolean
  pretty?: boolean
  semantics?: string
  maxVisits?: string
  atoms?: AtomsFlag
  input?: string
  /** `--args`: the same as `--input`. */
  args?: string
  fuel?: string
  timeout?: string
  trace?: boolean
  llm?: string
  model?: string
  allowFetch?: string
  allowPrivate?: string
  duration?: string
  timezone?: string
}

/** A flow problem as a CLI diagnostic (1-based column, code frame when the text is known). */
function fromProblem(p: FlowProblem, file: string, source: string | undefined): JsonDiagnostic {
  const d: JsonDiagnostic = { severity: 'error', code: p.rule, message: p.message, file, path: p.path || '/' }
  if (p.hint) d.hint = p.hint
  if (p.line !== undefined) {
    d.line = p.line
    d.column = (p.column ?? 0) + 1
    if (source !== undefined) d.frame = codeFrame(source, p.line, p.column ?? 0)
  }
  return d
}

const problemsJson = (problems: readonly FlowProblem[]) => problems.map((p) => ({
  rule: p.rule, path: p.path, message: p.message, ...(p.hint ? { hint: p.hint } : {}), ...(p.line !== undefined ? { line: p.line, column: (p.column ?? 0) + 1 } : {}),
}))

function compileOptions(opts: FlowCommandOptions, file: string, atomNames: readonly string[] = []): CompileFlowOptions {
  const semantics = opts.semantics
  if (semantics !== undefined && semantics !== 'extended' && semantics !== 'reference') throw usageError(`--semantics must be extended or reference, got "${semantics}"`)
  const maxVisits = intOption(opts.maxVisits, '--max-visits', 1)
  return { file, ...(semantics ? { semantics } : {}), ...(maxVisits !== undefined ? { maxVisits } : {}), atoms: atomNames }
}

function readFlowFile(file: string, io: CliIO): string {
  return readText(resolve(io.cwd, file), file)
}

/** `ajsc flow validate <file>`: every problem compile and run would refuse, located (one checker: checkFlow). */
export function flowValidate(file: string, opts: FlowCommandOptions, io: CliIO): number {
  const reporter = new Reporter(io, 'flow validate', opts.json === true)
  const text = readFlowFile(file, io)
  const { atoms: _atoms, ...options } = compileOptions(opts, file)
  const { format, problems } = checkFlow(text, options)
  reporter.add(...problems.map((p) => fromProblem(p, file, text)))
  if (!opts.json && problems.length === 0) io.err(`${file}: valid ${format} flow\n`)
  return reporter.finish({ valid: problems.length === 0, format: format ?? null, problems: problemsJson(problems) })
}

/** `ajsc flow fmt <file>`: the normalized document on stdout, or written back with --write. */
export function flowFmt(file: string, opts: FlowCommandOptions, io: CliIO): number {
  const reporter = new Reporter(io, 'flow fmt', opts.json === true)
  const text = readFlowFile(file, io)
  let formatted: string
  try {
    const format = flowFormatOf(readFlowDocument(text, file))
    formatted = format === 'saved-flow' ? serializeSavedFlow(parseSavedFlow(text, { file })) : serializeBlockFlow(parseBlockFlow(text, { file }))
  } catch (e) {
    if (!(e instanceof FlowError)) throw e
    reporter.add(...e.problems.map((p) => fromProblem(p, file, text)))
    return reporter.finish({ changed: false })
  }
  const changed = formatted !== text
  if (opts.write) {
    if (changed) {
      try {
        writeFileSync(resolve(io.cwd, file), formatted)
      } catch (e) {
        throw new CliError('CLI_WRITE', `${file}: ${(e as Error).message}`, { file })
      }
    }
    if (!opts.json) io.err(`${file}: ${changed ? 'formatted' : 'already formatted'}\n`)
  } else if (!opts.json) io.out(formatted)
  return reporter.finish({ changed, ...(opts.write ? {} : { document: JSON.parse(formatted) as unknown }) })
}

/** `ajsc flow compile <file>`: the ajs/1 AST on stdout. */
export async function flowCompile(file: string, opts: FlowCommandOptions, io: CliIO): Promise<number> {
  const reporter = new Reporter(io, 'flow compile', opts.json === true)
  const text = readFlowFile(file, io)
  const options = compileOptions(opts, file, (await loadCliAtoms(opts.atoms, io.cwd)).names)
  try {
    const { ast, format } = compileFlow(text, options)
    if (!opts.json) io.out(`${JSON.stringify(ast, null, opts.pretty ? 2 : undefined)}\n`)
    return reporter.finish({ format, ast })
  } catch (e) {
    if (!(e instanceof FlowError)) throw e
    reporter.add(...e.problems.map((p) => fromProblem(p, file, text)))
    return reporter.finish({ ast: null })
  }
}

/** `--input` (or `--args`, its name in run, eval and workflow run): inline JSON (malformed: usage error), `@file.json` or `-` for stdin. */
function readInput(opts: { input?: string; args?: string }, io: CliIO): Promise<Record<string, unknown>> {
  if (opts.input !== undefined && opts.args !== undefined) throw usageError('--args and --input are the same flag; give the flow input once')
  return opts.args !== undefined ? jsonObjectFlag(opts.args, '--args', io) : jsonObjectFlag(opts.input, '--input', io)
}

/** The flow events as an aligned table for `--trace`. */
export function formatFlowEvents(events: readonly FlowEvent[]): string {
  const rows = events.map((e) => {
    const step = 'step' in e ? e.step : e.flow
    const detail = e.type === 'step_completed' ? `fuel ${e.fuel}${e.tokens ? `, ${e.tokens.total} tokens` : ''}, ${e.ms} ms`
      : e.type === 'step_failed' ? `${e.error.code}: ${e.error.message}`
        : e.type === 'flow_completed' ? `${e.status}, fuel ${e.fuelUsed}, ${e.ms} ms`
          : e.type === 'step_started' ? e.kind : ''
    return [e.type, step, detail]
  })
  const widths = [0, 1].map((col) => Math.max(...rows.map((r) => r[col]!.length)))
  return rows.map((r) => `${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`.trimEnd()).join('\n') + '\n'
}

/** Flow run errors whose library hint names an option: the flag instead. */
const FLOW_FLAG_HINTS: Record<string, string> = {
  FLOW_VISIT_BUDGET: 'Give the cycle a branch that leaves it, or raise --max-visits (default 100).',
  FLOW_UNKNOWN_NODE_TYPE: 'Vendor node types and tools run custom atoms: export them from a module (`export const send = defineAtom(\'vendor:name\', …)`) and pass it with --atoms ./atoms.mjs.',
  FLOW_LLM_OUTPUT: 'Simplify the output_schema or describe its fields; or pick a model with structured output via --model.',
}

/** `ajsc flow run <file>`: the result on stdout (or the RunResult and events with --json). */
export async function flowRun(file: string, opts: FlowCommandOptions, io: CliIO): Promise<number> {
  const fuel = numberOption(opts.fuel, '--fuel')
  const timeoutMs = timeoutOption(opts.timeout, DEFAULT_RUN_TIMEOUT_MS)
  const atoms = await runAtoms(opts.atoms, io)
  const options = compileOptions(opts, file, atoms.names)
  const input = await readInput(opts, io)
  const { capabilities } = setupFromFlags(opts, io)
  const reporter = new Reporter(io, 'flow run', opts.json === true)
  const text = readFlowFile(file, io)
  try {
    compileFlow(text, options) // located problems before running
  } catch (e) {
    if (!(e instanceof FlowError)) throw e
    reporter.add(...e.problems.map((p) => fromProblem(p, file, text)))
    return reporter.finish({ result: null, fuelUsed: 0, events: [] })
  }
  const result = await runFlow(text, input, { ...options, atoms: atoms.atoms, capabilities, timeoutMs, ...(fuel !== undefined ? { fuel } : {}), trace: opts.trace === true })
  if (opts.trace && !opts.json) io.err(formatFlowEvents(result.events))
  if (!opts.json) for (const w of result.warnings ?? []) io.err(`${palette(io.color).yellow('warning')}: ${w}\n`)
  if (result.error) {
    const d = fromAgentError(result.error, { file, fuel: fuel ?? 1000, timeoutMs })
    reporter.add(FLOW_FLAG_HINTS[result.error.code] ? { ...d, hint: FLOW_FLAG_HINTS[result.error.code] } : d)
  }
  else if (!opts.json) io.out(`${JSON.stringify(result.result, null, 2)}\n`)
  return reporter.finish({
    result: result.result ?? null,
    fuelUsed: result.fuelUsed,
    ...(result.error ? { error: result.error } : {}),
    events: result.events,
    ...(result.warnings ? { warnings: result.warnings } : {}),
    ...(result.trace ? { trace: result.trace } : {}),
  })
}

function logLine(e: ScheduleLogEntry): string {
  const at = new Date(e.at).toISOString()
  switch (e.event) {
    case 'scheduled': return `[${at}] ${e.flow}: ${e.schedule}${e.next !== null ? `, next run ${new Date(e.next).toISOString()}` : ' (runs only when started by hand)'}`
    case 'started': return `[${at}] ${e.flow}: run ${e.run} started`
    case 'completed': return `[${at}] ${e.flow}: run ${e.run} completed in ${e.ms} ms (fuel ${e.fuelUsed})`
    case 'failed': return `[${at}] ${e.flow}: run ${e.run} failed after ${e.ms} ms: ${e.code}: ${e.message}`
    case 'skipped': return `[${at}] ${e.flow}: skipped (${e.reason})`
  }
}

/** `ajsc flow schedule <dir>`: run the enabled flows of an fs store on their schedules until Ctrl-C (or --duration). */
export async function flowSchedule(dir: string, opts: FlowCommandOptions, io: CliIO, signal?: AbortSignal): Promise<number> {
  const fuel = numberOption(opts.fuel, '--fuel')
  const timeoutMs = timeoutOption(opts.timeout, DEFAULT_RUN_TIMEOUT_MS)
  const duration = numberOption(opts.duration, '--duration')
  const atoms = await runAtoms(opts.atoms, io)
  const options = compileOptions(opts, dir, atoms.names)
  const { capabilities } = setupFromFlags(opts, io)
  const c = palette(io.color)
  let store
  try {
    store = loadFlowStore(resolve(io.cwd, dir))
  } catch (e) {
    throw new CliError((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'CLI_NOT_FOUND' : 'CLI_READ', `${dir}: ${(e as Error).message}`, { file: dir })
  }
  const emit = (entry: Record<string, unknown>, text: string) => (opts.json ? io.out(`${JSON.stringify(entry)}\n`) : io.err(`${text}\n`))
  for (const r of store.rejected) {
    for (const p of r.problems) emit({ event: 'rejected', file: r.file, ...p }, `${c.yellow('skipped')} ${r.file}: ${p.rule}: ${p.message}`)
  }
  for (const id of store.disabled) emit({ event: 'disabled', flow: id }, `${id}: disabled (enabled: false)`)
  if (store.flows.length === 0) {
    emit({ event: 'idle', message: 'no enabled flow to schedule' }, `${dir}: no enabled flow to schedule`)
    return store.rejected.length > 0 ? EXIT.failure : EXIT.ok
  }
  const scheduler = new FlowScheduler({
    flows: store.flows,
    ...(opts.timezone ? { timezone: opts.timezone } : {}),
    log: (e) => emit(e, logLine(e)),
    run: (stored) => runFlow(stored.flow, {}, { ...options, atoms: atoms.atoms, capabilities, timeoutMs, ...(fuel !== undefined ? { fuel } : {}) }),
  })
  scheduler.start()
  await new Promise<void>((done) => {
    const stop = () => {
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', stop)
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      done()
    }
    const timer = duration !== undefined ? setTimeout(stop, duration) : undefined
    signal?.addEventListener('abort', stop, { once: true })
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await scheduler.stop()
  return EXIT.ok
}
