/**
 * Graph helpers over a SavedFlow: the entry node, outgoing edges in
 * document order, and the reference traversal (`walkBfs`): breadth-first
 * from the entry with a visited set, so cycles terminate and nodes not
 * reachable from the entry are never visited (spec §4.1).
 */
import type { FlowEdge, FlowNode, SavedFlow } from './model.ts'

/** The flow's entry node, or undefined for a template/fragment. */
export function entryNode(flow: SavedFlow): FlowNode | undefined {
  return flow.flow.nodes.find((n) => n.node_type === 'entry')
}

/** Outgoing edges of every node, in document order. */
export function outgoingEdges(flow: SavedFlow): Map<string, FlowEdge[]> {
  const out = new Map<string, FlowEdge[]>()
  for (const edge of flow.flow.edges) {
    const list = out.get(edge.source)
    if (list) list.push(edge)
    else out.set(edge.source, [edge])
  }
  return out
}

/** Node ids in the reference runtime's visiting order (entry first); [] without an entry. */
export function walkBfs(flow: SavedFlow): string[] {
  const entry = entryNode(flow)
  if (!entry) return []
  const edges = outgoingEdges(flow)
  const visited = new Set<string>([entry.id])
  const order: string[] = []
  const queue = [entry.id]
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!
    order.push(id)
    for (const edge of edges.get(id) ?? []) {
      if (!visited.has(edge.target)) {
        visited.add(edge.target)
        queue.push(edge.target)
      }
    }
  }
  return order
}
