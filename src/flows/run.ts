/**
 * `compileFlow` and `runFlow`: any flow document (format detected) → an
 * ajs/1 program → a run on the AgentVM with fuel, capabilities, context,
 * timeouts, the VM trace, and the flow's own events.
 *
 * `runFlow` never throws for anything the document, the input or the model
 * does: an invalid document is a result with `error.code` `FLOW_INVALID`
 * and every problem in `error.details`, like an invalid AST.
 */
import { AgentVM } from '../vm/agent-vm.ts'
import type { AtomDef } from '../vm/atoms/types.ts'
import type { AgentError } from '../vm/errors.ts'
import type { RunOptions } from '../vm/limits.ts'
import type { RunResult } from '../vm/result.ts'
import type { AjsProgram } from '../ast/types.ts'
import { FLOW_RUN_CODES } from '../diagnostics/flow-codes.ts'
import { FlowError, locateProblems, parseJsonText, problem, type FlowProblem } from './problems.ts'
import { detectFlowFormat, type FlowFormat } from './detect.ts'
import { compileSavedFlow, type CompileSavedFlowOptions } from './saved-flow/compile.ts'
import { compileBlockFlow, type CompileBlockFlowOptions } from './blocks/compile.ts'
import { FLOW_ATOM_NAMES } from './runtime/atoms.ts'
import { flowLibrary } from './library.ts'
import { pythonLibrary } from '../python/library.ts'
import { assembleVM } from '../host/assemble.ts'
import { FlowEventSink, type FlowEvent } from './runtime/events.ts'
import { pythonError } from '../python/run.ts'

export interface CompileFlowOptions extends Omit<CompileSavedFlowOptions, 'atoms'>, CompileBlockFlowOptions {
  /** Force the format instead of detecting it. */
  format?: FlowFormat
  /** Names of custom atoms available to vendor node types and tools. */
  atoms?: Iterable<string>
  /** File name for messages. */
  file?: string
}

export interface CompiledFlow {
  format: FlowFormat
  /** The flow's name (SavedFlow `id`, Block flow `name`). */
  name: string
  ast: AjsProgram
}

/** Parse JSON text (located ParseError) or pass a value through. */
export function readFlowDocument(document: unknown, file?: string): unknown {
  return typeof document === 'string' ? parseJsonText(document, file) : document
}

/** Detect the format of a document (text or value); FlowError when it is neither. */
export function flowFormatOf(value: unknown, forced?: FlowFormat): FlowFormat {
  const format = forced ?? detectFlowFormat(value)
  if (!format) {
    throw new FlowError([problem('WrongType', '', 'not a flow document: a SavedFlow has "flow" (nodes and edges), a Block flow has "steps" and "blocks"')])
  }
  return format
}

/** Compile a flow document of either format to an ajs/1 program (throws FlowError, located when given text). */
export function compileFlow(document: unknown, options: CompileFlowOptions = {}): CompiledFlow {
  const text = typeof document === 'string' ? document : undefined
  const value = readFlowDocument(document, options.file)
  const format = flowFormatOf(value, options.format)
  try {
    const ast = format === 'saved-flow'
      ? compileSavedFlow(value, { semantics: options.semantics, maxVisits: options.maxVisits, atoms: options.atoms })
      : compileBlockFlow(value, options)
    const v = value as Record<string, unknown>
    return { format, name: String(format === 'saved-flow' ? v['id'] : v['name'] ?? 'flow'), ast }
  } catch (e) {
    if (e instanceof FlowError && text !== undefined) throw new FlowError(locateProblems([...e.problems], text), options.file, text)
    throw e
  }
}

/** What `checkFlow` finds: the format (when detected) and every problem, located when given text. */
export interface FlowCheck {
  format?: FlowFormat
  problems: FlowProblem[]
}

/**
 * Every problem `compileFlow` and `runFlow` would refuse the document for, without running it:
 * the shape, the spec's rules and the compile-time checks (conditions, Python code blocks, the
 * wiring of code blocks, branch handles). `ajsc flow validate`, `flow compile` and `flow run`
 * all go through this one checker, so a flow `validate` accepts is one `run` starts.
 */
export function checkFlow(document: unknown, options: Omit<CompileFlowOptions, 'atoms'> = {}): FlowCheck {
  let format: FlowFormat | undefined
  try {
    format = flowFormatOf(readFlowDocument(document, options.file), options.format)
    compileFlow(document, options)
    return { format, problems: [] }
  } catch (e) {
    if (!(e instanceof FlowError)) throw e
    return { ...(format ? { format } : {}), problems: [...e.problems] }
  }
}

export interface FlowRunOptions extends RunOptions, Omit<CompileFlowOptions, 'atoms'> {
  /** Custom atoms: vendor node types (`defineAtom('slack:send_message', …)`) and `branch_tool` tools. */
  atoms?: readonly AtomDef[] | Record<string, AtomDef>
}

/** A RunResult plus the flow's events. */
export interface FlowRunResult<T = unknown> extends RunResult<T> {
  events: FlowEvent[]
}

const RUN_OPTION_KEYS = ['fuel', 'timeoutMs', 'signal', 'capabilities', 'context', 'costOverrides', 'quotas', 'maxHeapBytes', 'trace', 'limits', 'random', 'now', 'uuid'] as const

function failed(code: keyof typeof FLOW_RUN_CODES | 'OPTIONS_INVALID', message: string, details?: AgentError['details']): FlowRunResult {
  const hint = code === 'OPTIONS_INVALID' ? 'Check the option names and types against the FlowRunOptions documentation.' : FLOW_RUN_CODES[code].hint
  return { result: null, fuelUsed: 0, events: [], error: { name: 'AgentError', code, message, hint, ...(details ? { details } : {}) } }
}

/** An error inside a code block points into that block's Python body (`blocks/<id>.py:line:col`). */
function locateCodeError(error: AgentError, sink: FlowEventSink): AgentError {
  const open = sink.innermost()
  if (open?.kind !== 'code' || error.line === undefined) return error
  const file = `blocks/${open.step}.py`
  return { ...error, file, location: `${file}:${error.line}:${error.column ?? 1}` }
}

/** The refusal of a flow whose vendor node types or tools no atom of this VM implements (checked before it starts). */
function unboundNodeTypes(ast: AjsProgram, vm: AgentVM): AgentError {
  const missing = (ast.atoms ?? []).filter((name) => !vm.atoms.has(name))
  const list = missing.map((n) => `"${n}"`).join(', ')
  return {
    name: 'AgentError', code: 'FLOW_UNKNOWN_NODE_TYPE',
    message: `the flow calls ${missing.length === 1 ? 'a node type or tool' : 'node types or tools'} no atom of this VM implements: ${list} (checked before the run starts)`,
    hint: FLOW_RUN_CODES.FLOW_UNKNOWN_NODE_TYPE.hint,
  }
}

/** Run a flow document of either format with `input`; resolves to a FlowRunResult, never rejects. */
export async function runFlow<T = unknown>(document: unknown, input: Record<string, unknown> = {}, options: FlowRunOptions = {}): Promise<FlowRunResult<T>> {
  const custom = options.atoms === undefined ? [] : Array.isArray(options.atoms) ? options.atoms : Object.values(options.atoms)
  const clash = custom.find((a) => FLOW_ATOM_NAMES.has(a?.op))
  if (clash) return failed('OPTIONS_INVALID', `atom "${clash.op}" has the name of a flow atom`) as FlowRunResult<T>
  let compiled: CompiledFlow
  try {
    compiled = compileFlow(document, { ...options, atoms: custom.map((a) => a.op) })
  } catch (e) {
    if (!(e instanceof FlowError)) return failed('OPTIONS_INVALID', (e as Error).message) as FlowRunResult<T>
    return failed('FLOW_INVALID', e.message, e.problems.map((p) => ({ path: p.path, message: `${p.rule}: ${p.message}` }))) as FlowRunResult<T>
  }
  let vm: AgentVM
  try {
    // The flow and Python libraries are installed up front: the program declares the ones it uses.
    vm = assembleVM({ atoms: custom, libraries: [flowLibrary, pythonLibrary] })
  } catch (e) {
    return failed('OPTIONS_INVALID', (e as Error).message) as FlowRunResult<T>
  }
  const sink = new FlowEventSink()
  const now = options.now ?? Date.now
  const runOptions: RunOptions = {}
  for (const key of RUN_OPTION_KEYS) if (options[key] !== undefined) (runOptions as Record<string, unknown>)[key] = options[key]
  runOptions.capabilities = { ...options.capabilities, flowEvents: sink }
  const started = now()
  sink.emit({ type: 'run_started', flow: compiled.name, format: compiled.format, at: started, input })
  const result = await vm.run<T>(compiled.ast, input, runOptions)
  if (result.error?.code === 'UNKNOWN_ATOM' && result.fuelUsed === 0) result.error = unboundNodeTypes(compiled.ast, vm)
  if (result.error) result.error = locateCodeError(pythonError(result.error)!, sink)
  const ended = now()
  if (result.error) sink.failOpen(result.error, ended)
  sink.emit({
    type: 'flow_completed', flow: compiled.name, status: result.error ? 'failed' : 'ok', at: ended, ms: ended - started, fuelUsed: result.fuelUsed,
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
  })
  return { ...result, events: sink.events }
}
