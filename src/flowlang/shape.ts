/**
 * The shape check of a FlowGraph, with tosijs-schema. The seed's Zod schema
 * (`version` int ≥ 1, non-empty `name`, ≥ 1 node, ≥ 1 edge, node `options`
 * default `{}`) is written once here as JSON-Schema builders; each part is
 * checked on its own so that every shape problem is reported, not only the
 * first, each with a JSON pointer.
 */
import { s, validate } from 'tosijs-schema'
import { problem, pointer, type FlowProblem } from './graph.ts'

const EdgeEnd = s.tuple([s.string.min(1), s.string.min(1)])
const EdgeSchema = s.object({ from: EdgeEnd, to: EdgeEnd })
const NodeSchema = s.object({ id: s.string.min(1), type: s.string.min(1), options: s.record(s.any).optional })
const GraphFields = {
  version: s.integer.min(1),
  name: s.string.min(1),
  nodes: s.array(s.any).min(1),
  edges: s.array(s.any).min(1),
}
/** The whole graph as a JSON Schema, for editors and other tools. */
export const FLOW_GRAPH_JSON_SCHEMA: Record<string, unknown> = s.object({ ...GraphFields, nodes: s.array(NodeSchema).min(1), edges: s.array(EdgeSchema).min(1) }).schema as Record<string, unknown>

const GRAPH_KEYS = new Set(Object.keys(GraphFields))
const NODE_KEYS = new Set(['id', 'type', 'options', 'ports'])
const EDGE_KEYS = new Set(['from', 'to'])

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Check one value against a schema; every reported failure becomes a FLOW1001 problem under `base`. */
function check(value: unknown, schema: Parameters<typeof validate>[1], base: string[], what: string, out: FlowProblem[]): boolean {
  return validate(value, schema, {
    strict: true,
    onError: (path, msg) => {
      const parts = path === 'root' || path === '' ? [] : path.split('.')
      const missing = /^Missing (\S+)/.exec(msg)
      if (missing) parts.push(missing[1]!)
      const at = pointer(...base, ...parts)
      const field = parts.at(-1) ?? base.at(-1)
      out.push(problem('SHAPE', at, { detail: `${what}${parts.length ? ` \`${parts.join('.')}\`` : ''} ${describe(msg, field)}` }))
    },
  })
}

function describe(msg: string, field: string | undefined): string {
  if (field === 'version' && (msg === 'Value < min' || msg === 'Expected integer')) return 'must be an integer ≥ 1'
  if (msg === 'Array too short') return field === 'nodes' || field === 'edges' ? 'needs at least one item' : 'needs two items: [nodeId, port]'
  if (msg === 'Array too long') return 'needs two items: [nodeId, port]'
  if (msg === 'len < min' || /too short/i.test(msg)) return 'must not be empty'
  return `is invalid (${msg.charAt(0).toLowerCase()}${msg.slice(1)})`
}

export interface ShapeResult {
  problems: FlowProblem[]
  /** Indices of nodes/edges whose own shape is sound (others are left out of later checks). */
  goodNodes: Set<number>
  goodEdges: Set<number>
}

/** Check the graph's shape; never throws, whatever `graph` is. */
export function checkShape(graph: unknown): ShapeResult {
  const problems: FlowProblem[] = []
  const goodNodes = new Set<number>()
  const goodEdges = new Set<number>()
  if (!isObject(graph)) {
    problems.push(problem('SHAPE', '', { detail: `A flow graph must be an object, got ${graph === null ? 'null' : Array.isArray(graph) ? 'an array' : typeof graph}` }))
    return { problems, goodNodes, goodEdges }
  }
  for (const key of Object.keys(graph)) {
    if (!GRAPH_KEYS.has(key)) problems.push(problem('UNKNOWN_FIELD', pointer(key), { name: key }))
  }
  for (const [key, schema] of Object.entries(GraphFields)) {
    if (graph[key] === undefined) problems.push(problem('SHAPE', pointer(key), { detail: `The graph has no \`${key}\`` }))
    else check(graph[key], schema, [key], `\`${key}\``, problems)
  }
  if (Array.isArray(graph.nodes)) {
    graph.nodes.forEach((node, i) => {
      let ok = check(node, NodeSchema, ['nodes', String(i)], `node ${i}`, problems)
      if (ok && isObject(node)) {
        if (node.options === null) {
          problems.push(problem('SHAPE', pointer('nodes', i, 'options'), { detail: `node ${i} options: must be an object (omit it for {})` }))
          ok = false
        }
        for (const key of Object.keys(node)) if (!NODE_KEYS.has(key)) problems.push(problem('UNKNOWN_FIELD', pointer('nodes', i, key), { name: key }))
      }
      if (ok) goodNodes.add(i)
    })
  }
  if (Array.isArray(graph.edges)) {
    graph.edges.forEach((edge, i) => {
      const ok = check(edge, EdgeSchema, ['edges', String(i)], `edge ${i}`, problems)
      if (ok && isObject(edge)) {
        for (const key of Object.keys(edge)) if (!EDGE_KEYS.has(key)) problems.push(problem('UNKNOWN_FIELD', pointer('edges', i, key), { name: key }))
        goodEdges.add(i)
      }
    })
  }
  return { problems, goodNodes, goodEdges }
}
