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

/**
 * Each strongly connected component with a loop is one cycle problem.
 * Linear in the graph (issue 23, class 5): the components are found once
 * (Tarjan's algorithm, iterative), and one cycle is traced inside each
 * component that has one, from its first node in edge order; no search is
 * restarted from every node, and nothing recurses on the host stack.
 */
export function checkCycles(good: readonly GoodEdge[]): FlowProblem[] {
  const edges = good.filter((g) => !isToolReturnLeg(g))
  const next = new Map<string, GoodEdge[]>()
  for (const g of edges) {
    const list = next.get(g.edge.from[0]) ?? []
    list.push(g)
    next.set(g.edge.from[0], list)
  }
  const component = components(next)
  const out: FlowProblem[] = []
  const reported = new Set<number>()
  for (const start of next.keys()) {
    const c = component.get(start)!
    if (reported.has(c)) continue
    const path = findCycle(start, next, (id) => component.get(id) === c)
    if (!path) continue
    reported.add(c)
    const names = [...path.map((g) => g.edge.from[0]), path[0]!.edge.from[0]]
    const tool = path.some((g) => g.fromType === 'tool_use' || g.fromType === 'tool_result')
    const closing = path.reduce((a, b) => (b.index > a.index ? b : a))
    out.push(problem('CYCLE', pointer('edges', closing.index), { kind: tool ? 'tool' : path.every((g) => g.fromType === 'messages') ? 'message' : 'data', cycle: names.join(' → ') }))
  }
  return out
}

/** The strongly connected component of every node (Tarjan, with an explicit stack). */
function components(next: Map<string, GoodEdge[]>): Map<string, number> {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const component = new Map<string, number>()
  let counter = 0
  let count = 0
  const nodes = new Set<string>()
  for (const [from, list] of next) { nodes.add(from); for (const g of list) nodes.add(g.edge.to[0]) }
  for (const root of nodes) {
    if (index.has(root)) continue
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }]
    index.set(root, counter); low.set(root, counter); counter++
    stack.push(root); onStack.add(root)
    while (work.length > 0) {
      const top = work[work.length - 1]!
      const out = next.get(top.node) ?? []
      if (top.edge < out.length) {
        const to = out[top.edge++]!.edge.to[0]
        if (!index.has(to)) {
          index.set(to, counter); low.set(to, counter); counter++
          stack.push(to); onStack.add(to)
          work.push({ node: to, edge: 0 })
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!))
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!))
      }
      if (low.get(top.node) === index.get(top.node)) {
        let n: string
        do { n = stack.pop()!; onStack.delete(n); component.set(n, count) } while (n !== top.node)
        count++
      }
    }
  }
  return component
}

/**
 * A cycle through `start` (its edges in order), if any, staying inside
 * `within` (its component: an edge leaving it never comes back). One
 * depth-first search, each node entered once, with an explicit stack.
 */
function findCycle(start: string, next: Map<string, GoodEdge[]>, within: (id: string) => boolean): GoodEdge[] | undefined {
  const path: GoodEdge[] = []
  const seen = new Set<string>()
  const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }]
  while (work.length > 0) {
    const top = work[work.length - 1]!
    const out = next.get(top.node) ?? []
    if (top.edge >= out.length) {
      work.pop()
      path.pop() // the edge that led here
      continue
    }
    const g = out[top.edge++]!
    const to = g.edge.to[0]
    if (to === start) { path.push(g); return path }
    if (!within(to) || seen.has(to)) continue
    seen.add(to)
    path.push(g)
    work.push({ node: to, edge: 0 })
  }
  return undefined
}

/** Add router.mcp when the graph has none, wired to the codec when there is exactly one. */
export function injectRouter(graph: FlowGraph, good: GoodEdge[]): void {
  if (graph.nodes.some((n) => n.type === 'router.mcp')) return
  let id = INJECTED_ROUTER_ID
  // The ids in a Set: a graph holding router_mcp, router_mcp_2, ... cost each try a walk of every node.
  const ids = new Set(graph.nodes.map((x) => x.id))
  for (let n = 2; ids.has(id); n++) id = `${INJECTED_ROUTER_ID}_${n}`
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
