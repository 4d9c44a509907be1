/**
 * `validateFlowGraph(graph)` → `{ graph, problems }`: every problem of a
 * graph, each with a code and a JSON pointer, and the graph normalized
 * (option aliases renamed, catalog defaults applied, `ports` metadata
 * dropped, router.mcp injected when missing). Never throws.
 *
 * Order of checks and why: shape first (a node or edge with a broken shape
 * is left out of the later checks), then blocks and options, then each edge
 * (an edge with an unknown end or mismatched types is reported once and
 * left out of writers, cycles and kernel wiring, so one mistake gives one
 * problem), then the graph rules. Cycles and kernel wiring need a graph
 * whose shape is sound: on a graph without edges they would only repeat
 * the shape problem.
 */
import { blockSpec, BLOCK_TYPES, NEGOTIATION_SWITCHES, portAccepts, portOf, type BlockSpec, type OptionSpec } from './catalog.ts'
import { problem, pointer, suggest, SUGGEST_BUDGET, type FlowEdge, type FlowGraph, type FlowNode, type FlowProblem, type SuggestBudget } from './graph.ts'
import { checkShape } from './shape.ts'
import { checkCycles, checkKernel, checkWriters, injectRouter, type GoodEdge } from './rules.ts'

export interface FlowValidation {
  /** The normalized graph (best effort when there are problems). */
  graph: FlowGraph
  problems: FlowProblem[]
  /** True when `problems` is empty. */
  valid: boolean
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Validate and normalize a FlowGraph (JSON value, script result or parsed `.flow` text). */
export function validateFlowGraph(input: unknown): FlowValidation {
  const shape = checkShape(input)
  const problems = [...shape.problems]
  const raw = isObject(input) ? input : {}
  const rawNodes = Array.isArray(raw.nodes) ? raw.nodes : []
  const rawEdges = Array.isArray(raw.edges) ? raw.edges : []

  const nodes: FlowNode[] = []
  const specs = new Map<string, { spec: BlockSpec; index: number }>()
  const ids = new Set<string>()
  for (const i of shape.goodNodes) {
    const node = rawNodes[i] as { id: string; type: string; options?: Record<string, unknown> }
    if (ids.has(node.id)) {
      problems.push(problem('DUPLICATE_ID', pointer('nodes', i, 'id'), { id: node.id }))
      continue
    }
    ids.add(node.id)
    const spec = blockSpec(node.type)
    if (!spec) problems.push(problem('UNKNOWN_BLOCK', pointer('nodes', i, 'type'), { type: node.type, suggest: suggest(node.type, BLOCK_TYPES) }))
    const options = spec ? normalizeOptions(node, spec, i, problems) : { ...(node.options ?? {}) }
    if (spec) specs.set(node.id, { spec, index: i })
    nodes.push({ id: node.id, type: node.type, options })
  }

  // Ends naming a node whose own shape is broken (or a broken node list) were reported there already.
  const nodesUsable = Array.isArray(raw.nodes) && raw.nodes.length > 0
  rawNodes.forEach((n, i) => { if (!shape.goodNodes.has(i) && isObject(n) && typeof n.id === 'string') ids.add(n.id) })
  const edges: FlowEdge[] = []
  const good: GoodEdge[] = []
  const known = new KnownIds(ids)
  for (const i of shape.goodEdges) {
    const edge = rawEdges[i] as FlowEdge
    const e: FlowEdge = { from: [edge.from[0], edge.from[1]], to: [edge.to[0], edge.to[1]] }
    edges.push(e)
    const checked = nodesUsable ? checkEdge(e, i, known, specs, problems) : undefined
    if (checked) good.push(checked)
  }

  problems.push(...checkWriters(good))
  const graph: FlowGraph = {
    version: typeof raw.version === 'number' ? raw.version : 1,
    name: typeof raw.name === 'string' ? raw.name : '',
    nodes,
    edges,
  }
  if (shape.problems.length === 0) {
    injectRouter(graph, good)
    problems.push(...checkCycles(good), ...checkKernel(graph, good))
  }
  return { graph, problems, valid: problems.length === 0 }
}

/**
 * The graph's node ids for the edge checks: membership, and one bounded
 * suggestion per unknown name (the id list made once, suggestions memoized and
 * drawn from one budget for the whole graph, so a graph of many edges to
 * unknown nodes costs near-linear work, not edges x ids x length²).
 */
class KnownIds {
  private list: string[] | undefined
  private readonly memo = new Map<string, string>()
  private readonly budget: SuggestBudget = { left: SUGGEST_BUDGET }
  constructor(private readonly ids: Set<string>) {}
  has(id: string): boolean { return this.ids.has(id) }
  suggest(id: string): string {
    let s = this.memo.get(id)
    if (s === undefined) {
      s = suggest(id, (this.list ??= [...this.ids]), this.budget)
      this.memo.set(id, s)
    }
    return s
  }
}

/** Check one edge's ends; returns it with its port types when both ends are sound. */
function checkEdge(
  e: FlowEdge,
  i: number,
  ids: KnownIds,
  specs: Map<string, { spec: BlockSpec; index: number }>,
  problems: FlowProblem[],
): GoodEdge | undefined {
  const ends = [
    { side: 'from' as const, id: e.from[0], port: e.from[1], direction: 'out' as const },
    { side: 'to' as const, id: e.to[0], port: e.to[1], direction: 'in' as const },
  ]
  const types = []
  for (const end of ends) {
    if (!ids.has(end.id)) {
      problems.push(problem('UNKNOWN_NODE', pointer('edges', i, end.side, 0), { id: end.id, suggest: ids.suggest(end.id) }))
      continue
    }
    const known = specs.get(end.id)
    if (!known) continue // unknown block type: reported once on the node
    const type = portOf(known.spec, end.port, end.direction)
    if (type) { types.push(type); continue }
    const blockType = typeNameOf(known.spec)
    const other = portOf(known.spec, end.port, end.direction === 'in' ? 'out' : 'in')
    if (other) {
      problems.push(problem('PORT_DIRECTION', pointer('edges', i, end.side, 1), {
        port: end.port, type: blockType, actual: end.direction === 'in' ? 'output' : 'input', direction: end.direction === 'in' ? 'input' : 'output',
      }))
      continue
    }
    const names = Object.keys(end.direction === 'in' ? known.spec.inputs : known.spec.outputs)
    problems.push(problem('UNKNOWN_PORT', pointer('edges', i, end.side, 1), {
      type: blockType, port: end.port, direction: end.direction === 'in' ? 'input' : 'output',
      suggest: suggest(end.port, names), ports: names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none',
    }))
  }
  if (types.length !== 2) return undefined
  const [fromType, toType] = types as [NonNullable<ReturnType<typeof portOf>>, NonNullable<ReturnType<typeof portOf>>]
  if (!portAccepts(toType, fromType)) {
    problems.push(problem('PORT_TYPE_MISMATCH', pointer('edges', i), {
      from: `${e.from[0]}.${e.from[1]}`, fromType, to: `${e.to[0]}.${e.to[1]}`, toType,
    }))
    return undefined
  }
  return { edge: e, index: i, fromType, toType, fromSpec: specs.get(e.from[0])!.spec, toSpec: specs.get(e.to[0])!.spec }
}

function typeNameOf(spec: BlockSpec): string {
  return BLOCK_TYPES.find((t) => blockSpec(t) === spec) ?? '?'
}

/** Rename aliases, check names and types, apply defaults. */
function normalizeOptions(node: { id: string; type: string; options?: Record<string, unknown> }, spec: BlockSpec, i: number, problems: FlowProblem[]): Record<string, unknown> {
  const given = node.options ?? {}
  const out: Record<string, unknown> = {}
  const names = Object.keys(spec.options)
  for (const [key, value] of Object.entries(given)) {
    const at = pointer('nodes', i, 'options', key)
    if ((NEGOTIATION_SWITCHES as readonly string[]).includes(key)) {
      if (value === false) problems.push(problem('NEGOTIATION_DISABLED', at, { name: key, id: node.id }))
      continue
    }
    const name = names.find((n) => n === key) ?? names.find((n) => spec.options[n]!.alias === key)
    if (!name) {
      problems.push(problem('UNKNOWN_OPTION', at, { type: node.type, name: key, suggest: suggest(key, names), options: names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none' }))
      continue
    }
    if (name !== key && Object.prototype.hasOwnProperty.call(given, name)) continue // the canonical name wins
    const opt = spec.options[name]!
    const bad = optionProblem(value, opt)
    if (bad) problems.push(problem('OPTION_TYPE', at, { name, type: node.type, expected: bad, example: example(opt) }))
    out[name] = value
  }
  for (const name of names) {
    const opt = spec.options[name]!
    if (out[name] === undefined && opt.default !== undefined) out[name] = structuredClone(opt.default)
  }
  return out
}

function optionProblem(value: unknown, opt: OptionSpec): string | undefined {
  const oneOf = opt.values ? ` (one of ${opt.values.map((v) => `"${v}"`).join(', ')})` : ''
  switch (opt.type) {
    case 'string':
      if (typeof value !== 'string' || (opt.values && !opt.values.includes(value))) return `a string${oneOf}`
      return undefined
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'a finite number'
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'true or false'
    case 'string[]':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && (!opt.values || opt.values.includes(v)))) return `a list of strings${oneOf}`
      return undefined
  }
}

function example(opt: OptionSpec): string {
  const first = opt.values?.[0]
  switch (opt.type) {
    case 'string': return JSON.stringify(first ?? 'text')
    case 'number': return '1'
    case 'boolean': return 'true'
    case 'string[]': return JSON.stringify([first ?? 'name'])
  }
}
