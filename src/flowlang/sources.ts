/**
 * One entry for every kind of flow source: JSON graphs, `.flow` text and
 * flow scripts. Problems of text sources are located on their lines (with
 * a code frame), whatever stage found them.
 */
import { codeFrame } from '../diagnostics/format.ts'
import { problem, type FlowProblem } from './graph.ts'
import { parseFlowText } from './text.ts'
import { runFlowScript, type FlowScriptOptions } from './script.ts'
import { validateFlowGraph, type FlowValidation } from './validate.ts'

export type FlowSourceKind = 'json' | 'text' | 'script'

export interface LoadFlowOptions extends FlowScriptOptions {
  /** What the source is (default: from `filename`: `.json` JSON, `.flow` text, otherwise a script). */
  kind?: FlowSourceKind
  /** Variables for `.flow` text (`when`/`set`). */
  vars?: Record<string, string>
}

/** The kind of a flow file by its name. */
export function flowSourceKind(filename: string): FlowSourceKind {
  if (/\.json$/i.test(filename)) return 'json'
  if (/\.flow$/i.test(filename)) return 'text'
  return 'script'
}

/** Load any flow source to a validated, normalized graph. Never throws. */
export async function loadFlowSource(source: string, options: LoadFlowOptions = {}): Promise<FlowValidation> {
  const filename = options.filename ?? '<flow>'
  const kind = options.kind ?? flowSourceKind(filename)
  if (kind === 'script') return runFlowScript(source, options)
  if (kind === 'json') {
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch (e) {
      const { line, column } = jsonErrorPosition(source, e)
      const p = problem('SHAPE', `${line}:${column}`, { detail: `Invalid JSON: ${(e as Error).message}` })
      return { graph: { version: 1, name: '', nodes: [], edges: [] }, valid: false, problems: [{ ...p, line, column, frame: codeFrame(source, line, column) }] }
    }
    return validateFlowGraph(value)
  }
  const name = filename.replace(/^.*[\\/]/, '').replace(/\.flow$/i, '')
  const text = parseFlowText(source, { name, vars: options.vars })
  const result = validateFlowGraph(text.graph)
  const located = (p: FlowProblem): FlowProblem => {
    if (p.line !== undefined) return { ...p, frame: codeFrame(source, p.line, p.column ?? 0) }
    const m = /^\/(nodes|edges)\/(\d+)(?:\/(from|to))?/.exec(p.path)
    const line = m ? text.lines[m[1] as 'nodes' | 'edges'][Number(m[2])] : undefined
    const column = m?.[3] ? text.lines.edgeColumns[Number(m[2])]![m[3] as 'from' | 'to'] : 0
    return line === undefined ? p : { ...p, line, column, frame: codeFrame(source, line, column) }
  }
  const problems = [...text.problems, ...result.problems].map(located)
  return { graph: result.graph, problems, valid: problems.length === 0 }
}

function jsonErrorPosition(source: string, e: unknown): { line: number; column: number } {
  const m = /position (\d+)/.exec(String((e as Error)?.message))
  if (!m) return { line: 1, column: 0 }
  const before = source.slice(0, Number(m[1]))
  const lines = before.split('\n')
  return { line: lines.length, column: lines.at(-1)!.length }
}
