/**
 * The guard of `flow_repair`: `{ path, patch: { nodes?, edges? } }`.
 *
 * A patch's `nodes` and `edges`, when given, replace those lists (so a
 * repair can remove a bad edge); nothing else of the graph can change. The
 * patched graph is refused when it
 * - removes router.mcp (the kernel block is never re-injected to mask a
 *   removal) or leaves no protocol or codec,
 * - changes an immutable option (provider credentials, base URLs) of the
 *   protocol: every protocol node of the patch must carry the values of the
 *   current protocol (the node with its id, else the only one),
 * - or fails validation (shape, ports, cycles, kernel wiring) — the graph
 *   is re-validated before anything is adopted.
 */
import { blockSpec } from './catalog.ts'
import { problem, type FlowGraph, type FlowProblem } from './graph.ts'
import { validateFlowGraph } from './validate.ts'

export interface FlowRepairPatch {
  nodes?: unknown[]
  edges?: unknown[]
}

export type FlowRepairResult =
  | { adopted: true; graph: FlowGraph; problems: [] }
  | { adopted: false; problems: FlowProblem[] }

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Check a patch against the current graph (raw or normalized, valid or not) and validate the result. */
export function applyFlowRepair(current: unknown, patch: unknown): FlowRepairResult {
  const refuse = (...problems: FlowProblem[]): FlowRepairResult => ({ adopted: false, problems })
  if (!isObject(patch)) return refuse(problem('REPAIR_PATCH', '/patch', { detail: 'The patch must be an object `{ nodes?, edges? }`' }))
  const extra = Object.keys(patch).filter((k) => k !== 'nodes' && k !== 'edges')
  if (extra.length) return refuse(problem('REPAIR_PATCH', `/patch/${extra[0]}`, { detail: `A patch may only change nodes and edges (and their options), not \`${extra[0]}\`` }))
  if (patch.nodes === undefined && patch.edges === undefined) return refuse(problem('REPAIR_PATCH', '/patch', { detail: 'The patch changes nothing: give `nodes`, `edges` or both' }))
  for (const key of ['nodes', 'edges'] as const) {
    if (patch[key] !== undefined && !Array.isArray(patch[key])) return refuse(problem('REPAIR_PATCH', `/patch/${key}`, { detail: `\`${key}\` must be an array (it replaces the graph's ${key})` }))
  }
  const cur = isObject(current) ? current : {}
  const curNodes: Record<string, any>[] = Array.isArray(cur.nodes) ? cur.nodes.filter(isObject) : []
  const candidate = { ...cur, nodes: patch.nodes ?? cur.nodes, edges: patch.edges ?? cur.edges }
  const newNodes: Record<string, any>[] = Array.isArray(candidate.nodes) ? candidate.nodes.filter(isObject) : []

  const guard: FlowProblem[] = []
  const role = (n: Record<string, any>) => blockSpec(String(n.type))?.role
  for (const r of curNodes.filter((n) => n.type === 'router.mcp')) {
    if (!newNodes.some((n) => n.id === r.id && n.type === 'router.mcp')) {
      guard.push(problem('REPAIR_KERNEL', '/patch/nodes', { detail: `The patch removes the kernel block router.mcp \`${r.id}\`` }))
    }
  }
  for (const kernelRole of ['protocol', 'codec'] as const) {
    if (curNodes.some((n) => role(n) === kernelRole) && !newNodes.some((n) => role(n) === kernelRole)) {
      guard.push(problem('REPAIR_KERNEL', '/patch/nodes', { detail: `The patch removes the ${kernelRole}: protocol → codec → router.mcp must stay` }))
    }
  }
  const curProtocols = curNodes.filter((n) => role(n) === 'protocol')
  for (const p of newNodes.filter((n) => role(n) === 'protocol')) {
    const before = curProtocols.find((c) => c.id === p.id) ?? (curProtocols.length === 1 ? curProtocols[0] : undefined)
    if (!before) continue
    const a = immutableValues(before)
    const b = immutableValues(p)
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (a[name] !== b[name]) guard.push(problem('REPAIR_IMMUTABLE', `/patch/nodes/${newNodes.indexOf(p)}/options/${name}`, { name, id: String(p.id), type: String(p.type) }))
    }
  }
  if (guard.length) return refuse(...guard)
  const validation = validateFlowGraph(candidate)
  if (!validation.valid) return refuse(...validation.problems)
  return { adopted: true, graph: validation.graph, problems: [] }
}

/** The immutable options of a protocol node as the runtime would see them (aliases and defaults applied). */
function immutableValues(node: Record<string, any>): Record<string, unknown> {
  const spec = blockSpec(String(node.type))
  const out: Record<string, unknown> = {}
  if (!spec) return out
  const given: Record<string, unknown> = isObject(node.options) ? node.options : {}
  for (const [name, opt] of Object.entries(spec.options)) {
    if (!opt.immutable) continue
    const value = given[name] ?? (opt.alias ? given[opt.alias] : undefined) ?? opt.default
    if (value !== undefined) out[name] = value
  }
  return out
}
