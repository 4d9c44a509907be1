/**
 * Our MCP server (`ajsc flowlang serve-tools`): `flow_repair` and
 * `flow_validate` over the flow files under one root directory.
 *
 * flow_repair `{ path, patch: { nodes?, edges? } }` reads the flow at
 * `path` (JSON graph, `.flow` text or script), applies the guarded patch
 * (see repair.ts) and, when adopted, writes the repaired graph as JSON: a
 * `.json` flow is rewritten in place; a `.flow` or script flow — code the
 * user owns — is left as it is and the graph goes to `<path>.json`. A
 * session opened on that file reloads it on its next turn.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { loadOptional } from '../host/optional.ts'
import { packageVersion } from '../host/version.ts'
import { problem, serializeFlowGraph, type FlowProblem } from './graph.ts'
import { applyFlowRepair } from './repair.ts'
import { flowSourceKind, loadFlowSource } from './sources.ts'
import { parseFlowText } from './text.ts'

export interface FlowToolsOptions {
  /** Flow files must be inside this directory. */
  root: string
  /** Whether repairs of flows with an `advisor.gate` (prePatch) are approved (default false: refused). */
  approvePatches?: boolean
}

const NODE_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, type: { type: 'string' }, options: { type: 'object' } },
  required: ['id', 'type'],
}
const EDGE_END = { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 }

export const FLOW_TOOLS = [
  {
    name: 'flow_repair',
    description: 'Repair a FlowLang flow: `patch.nodes` / `patch.edges` replace those lists. Kernel blocks (router.mcp, protocol → codec → router wiring), credentials and base URLs cannot change; the result is re-validated before it is written.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'flow file, relative to the served root' },
        patch: {
          type: 'object',
          properties: {
            nodes: { type: 'array', items: NODE_SCHEMA },
            edges: { type: 'array', items: { type: 'object', properties: { from: EDGE_END, to: EDGE_END }, required: ['from', 'to'] } },
          },
        },
      },
      required: ['path', 'patch'],
    },
  },
  {
    name: 'flow_validate',
    description: 'Validate a FlowLang flow file and list every problem (code, JSON pointer, message, hint).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    annotations: { readOnlyHint: true },
  },
] as const

/** Resolve a flow path inside the root, or a problem. */
function inside(root: string, path: unknown): string | FlowProblem {
  if (typeof path !== 'string' || !path) return problem('REPAIR_PATH', '/path', { detail: '`path` must name a flow file' })
  const full = resolve(root, path)
  const rel = relative(root, full)
  if (rel.startsWith('..') || isAbsolute(rel)) return problem('REPAIR_PATH', '/path', { detail: `\`${path}\` is outside the served directory` })
  return full
}

const reply = (value: unknown, isError: boolean) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], isError })

/** Run one tool call (the MCP handler; also usable in-process). */
export async function callFlowTool(name: string, args: Record<string, unknown>, options: FlowToolsOptions) {
  const root = resolve(options.root)
  const file = inside(root, args.path)
  if (typeof file !== 'string') return reply({ adopted: false, problems: [file] }, true)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return reply({ adopted: false, problems: [problem('REPAIR_PATH', '/path', { detail: `Cannot read \`${String(args.path)}\`` })] }, true)
  }
  const kind = flowSourceKind(file)
  if (name === 'flow_validate') {
    const v = await loadFlowSource(text, { filename: file })
    return reply({ valid: v.valid, problems: v.problems.map(({ frame: _frame, ...p }) => p) }, false)
  }
  if (name !== 'flow_repair') return reply({ error: `unknown tool ${name}` }, true)
  let current: unknown
  if (kind === 'json') {
    try { current = JSON.parse(text) } catch { current = {} }
  } else if (kind === 'text') current = parseFlowText(text).graph
  else current = (await loadFlowSource(text, { filename: file })).graph
  const gated = (current as any)?.nodes?.some?.((n: any) => n?.type === 'advisor.gate' && Array.isArray(n.options?.when) && n.options.when.includes('prePatch'))
  if (gated && !options.approvePatches) return reply({ adopted: false, problems: [problem('REPAIR_DENIED', '/patch')] }, true)
  const result = applyFlowRepair(current, args.patch)
  if (!result.adopted) return reply({ adopted: false, problems: result.problems }, true)
  const target = kind === 'json' ? file : `${file}.json`
  writeFileSync(target, `${serializeFlowGraph(result.graph)}\n`)
  return reply({ adopted: true, written: relative(root, target), graph: result.graph }, false)
}

/**
 * The MCP server (connect it to a transport: stdio for `ajsc flowlang serve-tools`). Async: the MCP
 * SDK is an optional dependency of ajs-lang, loaded here (a MissingDependencyError names it).
 */
export async function createFlowToolsServer(options: FlowToolsOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await loadOptional('mcp', () => Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/types.js'),
  ]))
  const server = new Server({ name: 'ajs-flowlang-tools', version: packageVersion() }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: FLOW_TOOLS as unknown as any[] }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => callFlowTool(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, options))
  return server
}
