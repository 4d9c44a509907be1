/**
 * `validateSavedFlow`: every problem of a SavedFlow v1 document.
 *
 * Two passes, like the reference importer (which deserializes, then
 * validates): first the shape (`MissingField`, `WrongType`, every one of
 * them), and only on a well-shaped document the spec's rules, in document
 * order: `UnsupportedSpecVersion`, `InvalidFlowId`, per node
 * `DuplicateNodeId` / `InvalidVendorNamespace`, `MultipleEntryNodes`, per
 * edge `DuplicateEdgeId` / `DanglingEdgeSource` / `DanglingEdgeTarget`.
 * Never throws, whatever the value.
 */
import { problem, type FlowProblem } from '../problems.ts'
import {
  FLOW_ID, SHAPES, SUPPORTED_SPEC_VERSIONS, VENDOR_NAMESPACE, isCoreNodeType,
  type FieldRule, type SavedFlow, type ShapeName,
} from './model.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const describe = (v: unknown): string => v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`
const pointer = (base: string, key: string | number): string => `${base}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`

const TYPE_WORDS: Record<FieldRule['type'], string> = {
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  position: 'an [x, y] pair of numbers',
  nullableString: 'a string or null',
  nodes: 'an array of nodes',
  edges: 'an array of edges',
  flow: 'an object with nodes and edges',
}

function checkShape(value: Record<string, unknown>, shape: ShapeName, at: string, out: FlowProblem[]): void {
  for (const [key, rule] of Object.entries(SHAPES[shape])) {
    const path = pointer(at, key)
    if (!Object.hasOwn(value, key) || value[key] === undefined) {
      if (rule.required) out.push(problem('MissingField', path, `missing field "${key}"`, `add "${key}" (${TYPE_WORDS[rule.type]})`))
      continue
    }
    const v = value[key]
    const wrong = () => out.push(problem('WrongType', path, `"${key}" must be ${TYPE_WORDS[rule.type]}, not ${describe(v)}`))
    switch (rule.type) {
      case 'string': if (typeof v !== 'string') wrong(); break
      case 'boolean': if (typeof v !== 'boolean') wrong(); break
      case 'object': if (!isObject(v)) wrong(); break
      case 'nullableString': if (v !== null && typeof v !== 'string') wrong(); break
      case 'position':
        if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => typeof n === 'number' && Number.isFinite(n))) wrong()
        break
      case 'flow':
        if (isObject(v)) checkShape(v, 'definition', path, out)
        else wrong()
        break
      case 'nodes':
      case 'edges':
        if (!Array.isArray(v)) { wrong(); break }
        v.forEach((item, i) => {
          if (isObject(item)) checkShape(item, rule.type === 'nodes' ? 'node' : 'edge', pointer(path, i), out)
          else out.push(problem('WrongType', pointer(path, i), `${rule.type === 'nodes' ? 'a node' : 'an edge'} must be an object, not ${describe(item)}`))
        })
        break
    }
  }
}

/** The spec's rules, on a document whose shape is already known to be right. */
function checkRules(flow: SavedFlow, out: FlowProblem[]): void {
  const version = flow.spec_version ?? '1'
  if (!SUPPORTED_SPEC_VERSIONS.includes(version)) {
    out.push(problem('UnsupportedSpecVersion', '/spec_version', `spec_version ${JSON.stringify(version)} is not supported (this importer reads "1")`,
      'convert the flow to spec_version "1", or load it with a runtime that reads this version'))
  }
  if (!FLOW_ID.test(flow.id)) {
    out.push(problem('InvalidFlowId', '/id', `flow id ${JSON.stringify(flow.id)} must be 1-64 characters of A-Z, a-z, 0-9 and "-"`,
      `rename it, e.g. ${JSON.stringify(flow.id.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || 'my-flow')}`))
  }
  const seenNodes = new Set<string>()
  const entries: Array<{ id: string; index: number }> = []
  flow.flow.nodes.forEach((node, i) => {
    const at = `/flow/nodes/${i}`
    if (seenNodes.has(node.id)) out.push(problem('DuplicateNodeId', `${at}/id`, `node id ${JSON.stringify(node.id)} is used more than once`, 'give every node a unique id'))
    seenNodes.add(node.id)
    const type = node.node_type
    if (type === 'entry') entries.push({ id: node.id, index: i })
    if (isCoreNodeType(type)) return
    const colon = type.indexOf(':')
    if (colon < 0) {
      out.push(problem('InvalidVendorNamespace', `${at}/node_type`,
        `node ${JSON.stringify(node.id)}: bare ${JSON.stringify(type)} is not a v1 core type (entry, prompt, branch, branch_tool) and has no vendor namespace`,
        `use a core type, or namespace it as "vendor:${type}"`))
    } else if (!VENDOR_NAMESPACE.test(type.slice(0, colon))) {
      out.push(problem('InvalidVendorNamespace', `${at}/node_type`,
        `node ${JSON.stringify(node.id)}: vendor namespace ${JSON.stringify(type.slice(0, colon))} of ${JSON.stringify(type)} must match ^[a-z][a-z0-9_-]{0,31}$`,
        'start the namespace with a lower-case letter and keep it to 32 characters of a-z, 0-9, "_" and "-"'))
    }
  })
  if (entries.length > 1) {
    out.push(problem('MultipleEntryNodes', `/flow/nodes/${entries[1]!.index}`,
      `${entries.length} entry nodes (${entries.map((e) => JSON.stringify(e.id)).join(', ')}); a flow has at most one`,
      'keep one entry node and connect the others\' successors to it'))
  }
  const seenEdges = new Set<string>()
  flow.flow.edges.forEach((edge, i) => {
    const at = `/flow/edges/${i}`
    if (seenEdges.has(edge.id)) out.push(problem('DuplicateEdgeId', `${at}/id`, `edge id ${JSON.stringify(edge.id)} is used more than once`, 'give every edge a unique id'))
    seenEdges.add(edge.id)
    if (!seenNodes.has(edge.source)) {
      out.push(problem('DanglingEdgeSource', `${at}/source`, `edge ${JSON.stringify(edge.id)}: source ${JSON.stringify(edge.source)} is not a node of this flow`))
    }
    if (!seenNodes.has(edge.target)) {
      out.push(problem('DanglingEdgeTarget', `${at}/target`, `edge ${JSON.stringify(edge.id)}: target ${JSON.stringify(edge.target)} is not a node of this flow`))
    }
  })
}

/**
 * Every problem of a SavedFlow v1 document (an empty array when it is
 * valid). Accepts any value: `null`, a string or a number is one problem.
 */
export function validateSavedFlow(value: unknown): FlowProblem[] {
  const out: FlowProblem[] = []
  if (!isObject(value)) {
    out.push(problem('WrongType', '', `a SavedFlow must be a JSON object, not ${describe(value)}`))
    return out
  }
  checkShape(value, 'savedFlow', '', out)
  if (out.length === 0) checkRules(value as unknown as SavedFlow, out)
  return out
}
