/**
 * The FlowGraph data model, problems, and JSON (de)serialization.
 *
 * A graph is plain JSON: `{ version, name, nodes: [{ id, type, options }],
 * edges: [{ from: [id, port], to: [id, port] }] }`. Scripts, `.flow` text
 * and JSON files all end as this value; after validation they are the same.
 */
import { FLOW_CODES, type FlowCodeName } from '../diagnostics/flowlang-codes.ts'
import { fill } from '../diagnostics/codes.ts'
import { closest, type SuggestBudget } from '../diagnostics/suggest.ts'

export type { SuggestBudget }

export interface FlowNode {
  id: string
  type: string
  options: Record<string, unknown>
}

export interface FlowEdge {
  from: [string, string]
  to: [string, string]
}

export interface FlowGraph {
  version: number
  name: string
  nodes: FlowNode[]
  edges: FlowEdge[]
}

/** One validation problem: a stable code, a JSON pointer into the graph (or source), a message and a fix. */
export interface FlowProblem {
  code: string
  name: FlowCodeName
  /** JSON pointer into the graph (`/edges/3/to/1`), or `line:col` for source problems. */
  path: string
  message: string
  hint: string
  /** 1-based line and 0-based column when the problem comes from source text. */
  line?: number
  column?: number
  /** A code frame around `line:column`. */
  frame?: string
}

/** Build a problem from the registry. */
export function problem(name: FlowCodeName, path: string, params: Record<string, string | number | undefined> = {}): FlowProblem {
  const spec = FLOW_CODES[name]
  const p: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(params)) p[k] = v === undefined ? undefined : String(v)
  return { code: spec.code, name, path, message: fill(spec.message, p), hint: fill(spec.hint, p) }
}

/** JSON pointer escaping (RFC 6901). */
export function pointer(...parts: Array<string | number>): string {
  return parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

/** A graph as stable JSON: nodes `{ id, type, options }`, edges `{ from, to }`, in their order. */
export function serializeFlowGraph(graph: FlowGraph, indent = 2): string {
  return JSON.stringify(toPlainGraph(graph), null, indent)
}

/** The graph as a fresh plain object in canonical key order (what `serializeFlowGraph` writes). */
export function toPlainGraph(graph: FlowGraph): FlowGraph {
  return {
    version: graph.version,
    name: graph.name,
    nodes: graph.nodes.map((n) => ({ id: n.id, type: n.type, options: structuredClone(n.options ?? {}) })),
    edges: graph.edges.map((e) => ({ from: [e.from[0], e.from[1]], to: [e.to[0], e.to[1]] })),
  }
}

/** `id.port` for messages. */
export const endpoint = (e: readonly [string, string]): string => `${e[0]}.${e[1]}`

/**
 * The letter pairs one validation may compare for suggestions. A graph's unknown names are scored
 * against its ids: without a bound that is (unknown ends) x (ids) x (length²). Once spent, problems
 * come without a suggestion (issue 23, class 5).
 */
export const SUGGEST_BUDGET = 2_000_000

/** `Did you mean `x`? ` or an empty string; `budget` (when given) is the validation's, shared by its problems. */
export function suggest(name: string, known: readonly string[], budget?: SuggestBudget): string {
  const best = closest(name, known, { budget })
  return best === undefined ? '' : `Did you mean \`${best}\`? `
}
