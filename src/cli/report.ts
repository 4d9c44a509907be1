/**
 * Human-readable diagnostics for the terminal: transpile errors and
 * warnings (`file:line:col: error CODE: message`, code frame, hint) and
 * run errors. Pure functions from data to text.
 */
import type { Diagnostic, TranspileError } from '../diagnostics/index.ts'
import type { AgentError } from '../vm/index.ts'
import type { Palette } from './colors.ts'
import { codeFrame } from '../diagnostics/format.ts'

/** A transpile error as the compiler prints it, colored when asked. */
export function formatTranspileError(e: TranspileError, c: Palette): string {
  const head = `${e.file}:${e.line}:${e.column + 1}: ${c.red(c.bold('error'))} ${c.bold(e.code)}: ${e.message}`
  return `${head}\n${c.dim(e.frame)}\n${c.cyan('hint:')} ${e.hint}\n`
}

export function formatWarning(d: Diagnostic, c: Palette): string {
  return `${d.file}:${d.line}:${d.column + 1}: ${c.yellow('warning')} ${d.code}: ${d.message}\n${c.cyan('hint:')} ${d.hint}\n`
}

/**
 * A run error: `location: error CODE: message` (location falls back to the
 * file), with a code frame when the source text is at hand.
 */
export function formatAgentError(error: AgentError, fallbackFile: string, c: Palette, source?: string): string {
  const where = error.location ?? fallbackFile
  let text = `${where}: ${c.red(c.bold('error'))} ${c.bold(error.code)}: ${error.message}${error.op ? c.dim(` (in ${error.op})`) : ''}\n`
  if (source !== undefined && error.line !== undefined && error.column !== undefined) {
    text += `${c.dim(codeFrame(source, error.line, error.column))}\n`
  }
  const hint = cliHint(error) ?? error.hint
  if (hint) text += `${c.cyan('hint:')} ${hint}\n`
  for (const d of error.details?.slice(1, 6) ?? []) text += `  ${d.path || '/'}: ${d.message}\n`
  return text
}

/** In the terminal, a missing capability is a missing flag. */
function cliHint(error: AgentError): string | undefined {
  if (error.code !== 'CAPABILITY_MISSING') return undefined
  if (error.message.includes('capabilities.fetch')) return 'ajsc run has no network by default: grant hosts with --allow-fetch host[,host]'
  if (error.message.includes('capabilities.llm')) return 'point ajsc run at an OpenAI-compatible endpoint with --llm URL --model NAME'
  return undefined
}

/** JSON form of a transpile error (for `--json`). */
export function transpileErrorJson(e: TranspileError) {
  return { ...e.diagnostic, severity: 'error', frame: e.frame }
}
