/**
 * Graph rules over the edges whose two ends are sound: one writer per
 * input, no cycles, and the kernel rules.
 *
 * The cycle rule, precisely: a cycle is an error, except through the tool
 * round trip's return leg. Edges from `router.mcp`'s `tool_result.neutral`
 * to a codec's `tool_result.neutral` are left out of cycle detection: they
 * carry results into the *next* model round, which the runtime's turn loop
 * starts (bounded by `limits.maxRounds`), so they never form a loop inside
 * one round. Every other cycle — on message, stream, tool or event wires —
 * is reported once, with its path.
 *
 * Kernel rules: `router.mcp` is injected when missing (wired to the codec
 * when there is exactly one); there must be exactly one protocol, one codec
 * and one router; and the protocol's `stream.delta` must feed the codec,
 * whose `tool_use.neutral` must feed the router, whose
 * `tool_result.neutral` must come back to the codec.
 */
import type { BlockSpec, PortType } from './catalog.ts'
import { blockSpec } from './catalog.ts'
import { endpoint, problem, pointer, type FlowEdge, type FlowGraph, type FlowProblem } from './graph.ts'

export interface GoodEdge {
  edge: FlowEdge
  /** Index in the input's `edges` (for JSON pointers); -1 for injected edges. */
  index: number
  fromType: PortType
  toType: PortType
  fromSpec: BlockSpec
  toSpec: BlockSpec
}

export const INJECTED_ROUTER_ID = 'router_mcp'

export function checkWriters(good: readonly GoodEdge[]): FlowProblem[] {
  const byInput = new Map<string, GoodEdge[]>()
  for (const g of good) {
    const key = endpoint(g.edge.to)
    const list = byInput.get(key) ?? []
    list.push(g)
    byInput.set(key, list)
  }
  const out: FlowProblem[] = []
  for (const [to, list] of byInput) {
    if (list.length < 2) continue
    out.push(problem('MULTIPLE_WRITERS', pointer('edges', list[1]!.index), {
      to, count: list.length, writers: list.map((g) => endpoint(g.edge.from)).join(', '),
    }))
  }
  return out
}

const isToolReturnLeg = (g: GoodEdge): boolean =>
  g.fromSpec.role === 'router' && g.toSpec.role === 'codec' && g.edge.from[1] === 'tool_result.neutral' && g.edge.to[1] === 'tool_result.neutral'

/** Each strongly connected component with a loop is one cycle problem. */
export function checkCycles(good: readonly GoodEdge[]): FlowProblem[] {
  const edges = good.filter((g) => !isToolReturnLeg(g))
  const next = new Map<string, GoodEdge[]>()
  for (const g of edges) {
    const list = next.get(g.edge.from[0]) ?? []
    list.push(g)
    next.set(g.edge.from[0], list)
  }
  const out: FlowProblem[] = []
  const reported = new Set<string>()
  for (const start of next.keys()) {
    if (reported.has(start)) continue
    const path = findCycle(start, next)
    if (!path) continue
    for (const g of path) reported.add(g.edge.from[0])
    const names = [...path.map((g) => g.edge.from[0]), path[0]!.edge.from[0]]
    const tool = path.some((g) => g.fromType === 'tool_use' || g.fromType === 'tool_result')
    const closing = path.reduce((a, b) => (b.index > a.index ? b : a))
    out.push(problem('CYCLE', pointer('edges', closing.index), { kind: tool ? 'tool' : path.every((g) => g.fromType === 'messages') ? 'message' : 'data', cycle: names.join(' → ') }))
  }
  return out
}

/** A cycle through `start` (its edges in order), if any. Bounded by the edge count. */
function findCycle(start: string, next: Map<string, GoodEdge[]>): GoodEdge[] | undefined {
  const stack: GoodEdge[] = []
  const seen = new Set<string>()
  const visit = (node: string): boolean => {
    for (const g of next.get(node) ?? []) {
      stack.push(g)
      const to = g.edge.to[0]
      if (to === start) return true
      if (!seen.has(to)) {
        seen.add(to)
        if (visit(to)) return true
      }
      stack.pop()
    }
    return false
  }
  return visit(start) ? stack : undefined
}

/** Add router.mcp when the graph has none, wired to the codec when there is exactly one. */
export function injectRouter(graph: FlowGraph, good: GoodEdge[]): void {
  if (graph.nodes.some((n) => n.type === 'router.mcp')) return
  let id = INJECTED_ROUTER_ID
  for (let n = 2; graph.nodes.some((x) => x.id === id); n++) id = `${INJECTED_ROUTER_ID}_${n}`
  graph.nodes.push({ id, type: 'router.mcp', options: {} })
  const codecs = graph.nodes.filter((n) => blockSpec(n.type)?.role === 'codec')
  if (codecs.length !== 1) return
  const codec = codecs[0]!
  const router = blockSpec('router.mcp')!
  const codecSpec = blockSpec(codec.type)!
  const legs: FlowEdge[] = [
    { from: [codec.id, 'tool_use.neutral'], to: [id, 'tool_use.neutral'] },
    { from: [id, 'tool_result.neutral'], to: [codec.id, 'tool_result.neutral'] },
  ]
  for (const leg of legs) {
    if (good.some((g) => endpoint(g.edge.to) === endpoint(leg.to))) continue
    graph.edges.push(leg)
    const toRouter = leg.to[0] === id
    good.push({
      edge: leg, index: -1,
      fromType: toRouter ? 'tool_use' : 'tool_result', toType: toRouter ? 'tool_use' : 'tool_result',
      fromSpec: toRouter ? codecSpec : router, toSpec: toRouter ? router : codecSpec,
    })
  }
}

export function checkKernel(graph: FlowGraph, good: readonly GoodEdge[]): FlowProblem[] {
  const out: FlowProblem[] = []
  const index = (id: string) => graph.nodes.findIndex((n) => n.id === id)
  const byRole = (role: string) => graph.nodes.filter((n) => blockSpec(n.type)?.role === role)
  const roles = [['protocol', byRole('protocol')], ['codec', byRole('codec')], ['router', byRole('router')]] as const
  let counted = true
  for (const [role, list] of roles) {
    if (list.length === 1) continue
    counted = false
    const at = list.length ? pointer('nodes', index(list[1]!.id)) : pointer('nodes')
    out.push(problem('KERNEL_COUNT', at, { role: role === 'router' ? 'router.mcp' : role, count: list.length, list: list.length ? ` (${list.map((n) => n.id).join(', ')})` : '' }))
  }
  if (!counted) return out
  const [p, c, r] = roles.map(([, list]) => list[0]!) as [FlowGraph['nodes'][0], FlowGraph['nodes'][0], FlowGraph['nodes'][0]]
  const has = (from: [string, string], to: [string, string]) => good.some((g) => endpoint(g.edge.from) === endpoint(from) && endpoint(g.edge.to) === endpoint(to))
  const wires: Array<[[string, string], [string, string], string, string]> = [
    [[p.id, 'stream.delta'], [c.id, 'stream.delta'], c.id, `Protocol \`${p.id}\` must feed codec \`${c.id}\` (\`${p.id}.stream.delta\` → \`${c.id}.stream.delta\`)`],
    [[c.id, 'tool_use.neutral'], [r.id, 'tool_use.neutral'], c.id, `Codec \`${c.id}\` must feed router.mcp \`${r.id}\` (\`${c.id}.tool_use.neutral\` → \`${r.id}.tool_use.neutral\`); tool uses cannot bypass the router`],
    [[r.id, 'tool_result.neutral'], [c.id, 'tool_result.neutral'], r.id, `Tool results of \`${r.id}\` must come back to codec \`${c.id}\` (\`${r.id}.tool_result.neutral\` → \`${c.id}.tool_result.neutral\`)`],
  ]
  for (const [from, to, at, detail] of wires) {
    if (!has(from, to)) out.push(problem('KERNEL_WIRING', pointer('nodes', index(at)), { detail }))
  }
  return out
}
