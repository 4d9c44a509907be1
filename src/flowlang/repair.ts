/**
 * The guard of `flow_repair`: `{ path, patch: { nodes?, edges? } }`.
 *
 * A patch's `nodes` and `edges`, when given, replace those lists (so a
 * repair can remove a bad edge); nothing else of the graph can change. The
 * patched graph is refused when it
 * - removes router.mcp (the kernel block is never re-injected to mask a
 *   removal) or leaves no protocol or codec,
 * - changes an immutable option (provider credentials, base URLs) of any
 *   block — the rule is one entry (`immutableProblems`) every node of the
 *   patched graph goes through, on the *normalized* graphs the runtime runs
 *   (aliases, canonical-name precedence and defaults applied by the same
 *   validateFlowGraph): a node with immutable options must carry the values
 *   of the current node with its id and role; without one, the values of a
 *   current node of the same role; and when the current graph has no node of
 *   that role, the values of the baseline the session runs instead (the
 *   caller's `baseline`, else the block's defaults). Round 3 closed the
 *   bypasses of the old per-protocol check: a new id beside two current
 *   protocols, a protocol added to a flow that named none (issue 23, class 8),
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

export interface FlowRepairOptions {
  /**
   * What runs when the current graph names no protocol (a session's last good
   * or configured baseline): a patch adding a protocol must keep its
   * immutable values. Default: the block's own defaults.
   */
  baseline?: { type: string; options?: Record<string, unknown> }
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Check a patch against the current graph (raw or normalized, valid or not) and validate the result. */
export function applyFlowRepair(current: unknown, patch: unknown, options: FlowRepairOptions = {}): FlowRepairResult {
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
  const validation = validateFlowGraph(candidate)
  const rawIndex = (id: string) => (Array.isArray(candidate.nodes) ? candidate.nodes : []).findIndex((n: unknown) => isObject(n) && n.id === id)
  guard.push(...immutableProblems(validateFlowGraph(current).graph, validation.graph, options.baseline, rawIndex))
  if (guard.length) return refuse(...guard)
  if (!validation.valid) return refuse(...validation.problems)
  return { adopted: true, graph: validation.graph, problems: [] }
}

/**
 * The one rule for immutable options, over normalized graphs: every node of
 * `next` whose block has immutable options keeps the values it has in `before`
 * (see the module comment for how its counterpart is found).
 */
function immutableProblems(before: FlowGraph, next: FlowGraph, baseline: FlowRepairOptions['baseline'], rawIndex: (id: string) => number): FlowProblem[] {
  const out: FlowProblem[] = []
  const roleOf = (type: string) => blockSpec(type)?.role
  for (const node of next.nodes) {
    const spec = blockSpec(node.type)
    if (!spec || !Object.values(spec.options).some((o) => o.immutable)) continue
    const values = immutableValues(node.type, node.options ?? {})
    const sameRole = before.nodes.filter((n) => roleOf(n.type) === spec.role)
    const byId = sameRole.find((n) => n.id === node.id)
    let candidates: Array<Record<string, unknown>>
    if (byId) candidates = [immutableValues(byId.type, byId.options ?? {})]
    else if (sameRole.length > 0) candidates = sameRole.map((n) => immutableValues(n.type, n.options ?? {}))
    else candidates = [baselineValues(spec.role, baseline)]
    // Kept when some counterpart has exactly these values; otherwise name what differs from the first.
    const differs = (a: Record<string, unknown>) => [...new Set([...Object.keys(a), ...Object.keys(values)])].filter((k) => a[k] !== values[k])
    if (candidates.some((a) => differs(a).length === 0)) continue
    for (const name of differs(candidates[0]!)) {
      out.push(problem('REPAIR_IMMUTABLE', `/patch/nodes/${rawIndex(node.id)}/options/${name}`, { name, id: String(node.id), type: String(node.type) }))
    }
  }
  return out
}

/** The immutable values of what runs for `role` when the graph names no such block. */
function baselineValues(role: string, baseline: FlowRepairOptions['baseline']): Record<string, unknown> {
  if (role !== 'protocol') return {}
  const type = baseline?.type ?? 'protocol.openai'
  const options = baseline?.options ?? {}
  const spec = blockSpec(type)
  if (!spec) return {}
  // Normalized as any node is: canonical names, then aliases, then defaults.
  const normalized: Record<string, unknown> = {}
  for (const [name, opt] of Object.entries(spec.options)) {
    const v = Object.hasOwn(options, name) ? options[name] : opt.alias && Object.hasOwn(options, opt.alias) ? options[opt.alias] : opt.default
    if (v !== undefined) normalized[name] = v
  }
  return immutableValues(type, normalized)
}

/** The immutable options of a normalized node (aliases and defaults already applied by validateFlowGraph). */
function immutableValues(type: string, options: Record<string, unknown>): Record<string, unknown> {
  const spec = blockSpec(type)
  const out: Record<string, unknown> = {}
  if (!spec) return out
  for (const [name, opt] of Object.entries(spec.options)) {
    if (!opt.immutable) continue
    if (Object.hasOwn(options, name) && options[name] !== undefined) out[name] = options[name]
  }
  return out
}
