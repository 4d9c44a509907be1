/**
 * MCP servers of `ajsc serve` (config `mcp`, `--mcp`): their tools are atoms
 * of every tenant (narrowed by a tenant's `atoms` allowlist, like custom
 * atoms).
 *
 * The host connects to each server once, at start-up, and closes it on exit.
 * Pool workers do not connect: their atoms are proxies that send the call to
 * the host over the host bridge (`mcp.call`), and the host calls the tool.
 * Why not one connection per worker: a stdio server is a child process, so N
 * workers would start N copies of every server (and a worker terminated for
 * ignoring its interrupt would orphan its children); a server with state (a
 * session, a cache, a browser) would see N unrelated clients; and the host
 * already owns the other shared things a run reaches (stores, procedures).
 * A proxied call costs one BroadcastChannel message each way, small beside
 * the MCP round trip. The worker still checks the input against the tool's
 * schema before sending, and the host checks the tenant may call the tool.
 */
import { mcpAtoms, type McpAtom, type McpAtomSet } from '../codemode/mcp.ts'
import { defineAtom } from '../vm/atoms/define.ts'
import type { AtomContext, AtomEffects, JsonSchema } from '../vm/atoms/types.ts'
import { HostStartError } from '../host/start-error.ts'
import type { McpServerConfig } from './config.ts'

/** A tool as a pool worker learns it (plain data: it crosses the thread boundary). */
export interface McpToolInfo {
  op: string
  inputSchema?: JsonSchema
  outputSchema?: JsonSchema
  docs?: string
  cost: number
  timeoutMs: number
  effects: AtomEffects
  requiresApproval?: boolean
  mcp: { server: string; tool: string }
}

export interface ServerMcp {
  /** The tools as atoms (host side: they call the servers). */
  atoms: McpAtom[]
  /** What the pool workers make their proxies from. */
  tools: McpToolInfo[]
  /** Call a tool by its atom name (the bridge's `mcp.call`). */
  call(op: string, input: Record<string, unknown>): Promise<unknown>
  close(): Promise<void>
}

const label = (c: McpServerConfig) => c.url ?? [c.command, ...(c.args ?? [])].join(' ')

/** Connect to every server in order (a later tool named like an earlier atom is renamed); CLI_MCP when one fails. */
export async function openServerMcp(configs: readonly McpServerConfig[], taken: Iterable<string> = []): Promise<ServerMcp> {
  const sets: McpAtomSet[] = []
  const used = new Set(taken)
  const close = async () => { await Promise.all(sets.map((s) => s.close())) }
  try {
    for (const c of configs) {
      const source = c.url !== undefined ? { url: c.url, ...(c.headers ? { headers: c.headers } : {}) } : { command: c.command!, args: c.args ?? [], ...(c.env ? { env: c.env } : {}), ...(c.cwd ? { cwd: c.cwd } : {}) }
      let set: McpAtomSet
      try {
        set = await mcpAtoms(source, { taken: used, ...(c.prefix ? { prefix: c.prefix } : {}), ...(c.include ? { include: c.include } : {}), ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}), ...(c.approval ? { approval: c.approval } : {}), clientName: 'ajs-serve' })
      } catch (e) {
        throw new HostStartError('CLI_MCP', `MCP server ${label(c)}: ${(e as Error).message}`)
      }
      sets.push(set)
      for (const op of Object.keys(set.atoms)) used.add(op)
    }
  } catch (e) {
    await close()
    throw e
  }
  const atoms = sets.flatMap((s) => Object.values(s.atoms))
  const byOp = new Map(atoms.map((a) => [a.op, a]))
  const tools = atoms.map((a): McpToolInfo => ({
    op: a.op, inputSchema: a.inputSchema, outputSchema: a.outputSchema, docs: a.docs,
    cost: typeof a.cost === 'number' ? a.cost : 1, timeoutMs: a.timeoutMs ?? 60_000, effects: a.effects ?? 'io',
    ...(a.requiresApproval === true ? { requiresApproval: true } : {}),
    mcp: { server: a.mcp.server, tool: a.mcp.tool },
  }))
  return {
    atoms, tools, close,
    async call(op, input) {
      const atom = byOp.get(op)
      if (!atom) throw new Error(`no MCP tool ${op}`)
      const limit = atom.timeoutMs ?? 0
      const signal = limit > 0 ? AbortSignal.timeout(limit) : new AbortController().signal
      return atom.fn(input, { op, signal } as AtomContext)
    },
  }
}

/** A pool worker's atoms for the tools: each call goes to the host (`send`), which calls the server. */
export function mcpProxyAtoms(tools: readonly McpToolInfo[], send: (op: string, input: Record<string, unknown>) => Promise<unknown>) {
  return tools.map((t) => Object.assign(defineAtom(t.op, t.inputSchema ?? { type: 'object' }, t.outputSchema, (input: Record<string, unknown>) => send(t.op, input), {
    docs: t.docs, cost: t.cost, timeoutMs: t.timeoutMs, effects: t.effects, ...(t.requiresApproval ? { requiresApproval: true } : {}),
  }), { mcp: t.mcp }))
}
