/**
 * Problems found in a flow document, and the error that carries them.
 *
 * Validation reports every problem, never only the first: an editor or an
 * LLM fixing a flow needs the whole list. Each problem names the rule it
 * breaks (the spec's own names for SavedFlow v1), a JSON pointer into the
 * document and a message; when the document came as text, `locateProblems`
 * adds the line and column of that pointer so tools can show a code frame.
 */
import { codeFrame, headerLine } from '../diagnostics/format.ts'
import { SourceLocator } from '../diagnostics/location.ts'
import { AjsError } from '../diagnostics/diagnostic.ts'
import { locateJson } from '../diagnostics/json-locate.ts'

/** One problem of a flow document. */
export interface FlowProblem {
  /** The rule broken, e.g. `DanglingEdgeTarget`, `MissingField`, `UnknownStep`. */
  rule: string
  /** JSON pointer of the offending value (or of its parent for a missing field). */
  path: string
  message: string
  /** A suggested fix, when there is an obvious one. */
  hint?: string
  /** 1-based line of `path` in the source text (only when parsed from text). */
  line?: number
  /** 0-based column of `path` in the source text. */
  column?: number
}

/** Thrown by the `parse*` functions: the document is not a valid flow. */
export class FlowError extends AjsError {
  override name = 'FlowError'
  /** Always `FLOW_INVALID`; the individual rules are in `problems`. */
  readonly code = 'FLOW_INVALID'
  constructor(readonly problems: readonly FlowProblem[], readonly file?: string, readonly source?: string) {
    super(`${problems.length === 1 ? 'The flow has a problem' : `The flow has ${problems.length} problems`}: ${problems.map((p) => `${p.rule} at ${p.path || '/'}: ${p.message}`).join('; ')}`)
  }

  /** Every problem as `file:line:col: error Rule: message` with a code frame when there is source. */
  override toString(): string {
    return formatProblems(this.problems, this.file ?? '<flow>', this.source)
  }
}

export const problem = (rule: string, path: string, message: string, hint?: string): FlowProblem =>
  hint ? { rule, path, message, hint } : { rule, path, message }

/** Add `line`/`column` to problems found in a document parsed from `text`. */
export function locateProblems(problems: FlowProblem[], text: string): FlowProblem[] {
  if (problems.length === 0) return problems
  const locations = locateJson(text)
  const lines = new SourceLocator(text)
  return problems.map((p) => {
    const offset = p.rule === 'ParseError' && locations.syntaxError ? locations.syntaxError.offset : locations.offsetOf(p.path)
    const { line, column } = lines.position(offset)
    return { ...p, line, column }
  })
}

/** Human text for problems: a header line per problem, a code frame when the source is known, the hint. */
export function formatProblems(problems: readonly FlowProblem[], file: string, source?: string): string {
  const lines = source === undefined ? undefined : new SourceLocator(source)
  return problems.map((p) => {
    const at = p.line !== undefined ? headerLine(file, p.line, p.column ?? 0, 'error', p.rule, p.message)
      : `${file}: error ${p.rule}: ${p.message} (at ${p.path || '/'})`
    const frame = lines && p.line !== undefined ? `\n${codeFrame(lines, p.line, p.column ?? 0)}` : ''
    return `${at}${frame}${p.hint ? `\nhint: ${p.hint}` : ''}`
  }).join('\n')
}

/** JSON text → value; a syntax error is a `FlowError` with one located `ParseError`. */
export function parseJsonText(text: string, file?: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new FlowError(locateProblems([problem('ParseError', '', `not JSON: ${(e as Error).message}`, 'fix the JSON syntax at the marker')], text), file, text)
  }
}
