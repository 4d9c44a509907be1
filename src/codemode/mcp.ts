/**
 * mcpAtoms: an MCP server's tools as typed atoms. Connects (stdio or
 * streamable HTTP, through the MCP SDK, loaded on first use), lists the
 * tools and defines one atom per tool whose input and output schemas are the
 * tool's JSON Schemas. A call sends the plain-data input as the tool's
 * arguments; the result comes back as plain data (the tool's
 * `structuredContent`, else its text, else its content blocks); a tool error
 * (`isError`) or a protocol error is thrown with the tool's message, so a
 * program can catch it.
 */
import { defineAtom } from '../vm/atoms/define.ts'
import type { AtomDef, AtomEffects, JsonSchema } from '../vm/atoms/types.ts'
import { packageVersion } from '../host/version.ts'
import { mapToolNames, type Rename } from './names.ts'

/** A tool as `tools/list` describes it (the fields code mode reads). */
export interface McpTool {
  name: string
  title?: string
  description?: string
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean }
}

/** What mcpAtoms needs of a connected MCP client (the SDK's `Client` has it). */
export interface McpClientLike {
  listTools(params?: { cursor?: string }): Promise<{ tools: unknown[]; nextCursor?: string }>
  callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: undefined, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>
  close(): Promise<void>
  getServerVersion?(): { name: string; version: string } | undefined
}

/** Start a server as a child process and talk to it over stdio. */
export interface McpStdioSpec { command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string }
/** A streamable HTTP endpoint. */
export interface McpHttpSpec { url: string | URL; headers?: Record<string, string> }
export type McpSource = McpClientLike | McpStdioSpec | McpHttpSpec

/** An atom made from an MCP tool. */
export type McpAtom = AtomDef & { op: string; mcp: { server: string; tool: string; annotations?: McpTool['annotations'] } }

export interface McpAtomsOptions {
  /** Put before every atom name (e.g. `github_`). */
  prefix?: string
  /** Names already used by the VM's other atoms: a tool mapped to one is renamed. */
  taken?: Iterable<string>
  /** Only these tools (by the server's name). */
  include?: readonly string[]
  /** Per-call time limit in ms (default 60,000; 0 for only the run's deadline). */
  timeoutMs?: number
  /** Fuel per call (default 1). */
  cost?: number
  /** Tag tools `pure` (default `io` for all): by tool name, or a function. */
  effects?: Readonly<Record<string, AtomEffects>> | ((tool: McpTool) => AtomEffects)
  /** Name this client gives the server (default `ajs-codemode`). */
  clientName?: string
  /**
   * Which tools' calls wait for approval (`requiresApproval`): `'destructive'` (the default: tools
   * annotated `destructiveHint: true`), `'all'`, `'none'`, a list of tool names, or a function.
   */
  approval?: 'destructive' | 'all' | 'none' | readonly string[] | ((tool: McpTool) => boolean)
}

/** Whether a tool's calls wait for approval under an `approval` option. */
export function toolRequiresApproval(tool: McpTool, approval: McpAtomsOptions['approval'] = 'destructive'): boolean {
  if (typeof approval === 'function') return approval(tool) === true
  if (Array.isArray(approval)) return approval.includes(tool.name)
  if (approval === 'all') return true
  if (approval === 'none') return false
  return tool.annotations?.destructiveHint === true
}

export interface McpAtomSet {
  /** The atoms by name: `new AgentVM(set.atoms)`, `transpile(src, { atoms: set.atoms })`. */
  atoms: Record<string, McpAtom>
  /** Tools whose atom name differs from the tool name, and why. */
  renamed: Rename[]
  /** The tools as listed. */
  tools: McpTool[]
  /** The server's name (from the handshake, else `mcp`). */
  server: string
  client: McpClientLike
  /** Close the connection when mcpAtoms opened it (a client passed in is left open). */
  close(): Promise<void>
}

const isClient = (x: McpSource): x is McpClientLike => typeof (x as McpClientLike).callTool === 'function'

async function connect(source: McpStdioSpec | McpHttpSpec, clientName: string): Promise<McpClientLike> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const client = new Client({ name: clientName, version: packageVersion() })
  if ('url' in source) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
    const transport = new StreamableHTTPClientTransport(new URL(String(source.url)), source.headers ? { requestInit: { headers: source.headers } } : undefined)
    try {
      await client.connect(transport)
    } catch (e) {
      await client.close().catch(() => {})
      throw new Error(`mcpAtoms: cannot connect to ${String(source.url)}: ${(e as Error).message}`)
    }
    return client as unknown as McpClientLike
  }
  if (typeof source.command !== 'string' || source.command === '') throw new TypeError('mcpAtoms: `command` must be a non-empty string')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: source.command, args: [...(source.args ?? [])], cwd: source.cwd,
    env: { ...(process.env as Record<string, string>), ...(source.env ?? {}) }, stderr: 'pipe',
  })
  // Keep the last few KiB of the server's stderr for the error message; never let the pipe fill.
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4096) })
  try {
    await client.connect(transport)
  } catch (e) {
    await client.close().catch(() => {})
    const tail = stderr.trim() ? `\n${stderr.trim()}` : ''
    throw new Error(`mcpAtoms: cannot start ${[source.command, ...(source.args ?? [])].join(' ')}: ${(e as Error).message}${tail}`)
  }
  return client as unknown as McpClientLike
}

/** Every tool, following `nextCursor` (at most 100 pages). */
export async function listMcpTools(client: McpClientLike): Promise<McpTool[]> {
  const out: McpTool[] = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const res = await client.listTools(cursor ? { cursor } : undefined)
    out.push(...(res.tools as McpTool[]))
    cursor = res.nextCursor
    if (!cursor) break
  }
  return out
}

/** A tool result as plain data: structuredContent, else the text, else the content blocks. */
export function mcpResultData(res: unknown): unknown {
  const r = (res ?? {}) as { structuredContent?: unknown; content?: Array<{ type: string; text?: string }>; toolResult?: unknown }
  if (r.structuredContent !== undefined) return r.structuredContent
  if (!Array.isArray(r.content)) return r.toolResult ?? null
  if (r.content.every((c) => c.type === 'text')) return r.content.map((c) => c.text ?? '').join('\n')
  return r.content
}

function errorText(res: unknown): string {
  const d = mcpResultData(res)
  return typeof d === 'string' ? d : JSON.stringify(d)
}

/** The tool's JSON Schema for the atom's input (an object schema; a missing one accepts any object). */
function inputSchemaOf(tool: McpTool): JsonSchema {
  const s = tool.inputSchema
  return s && typeof s === 'object' ? s : { type: 'object' }
}

/**
 * Connect to an MCP server (or use a connected client) and return its tools
 * as atoms. Close the set when done.
 */
export async function mcpAtoms(source: McpSource, options: McpAtomsOptions = {}): Promise<McpAtomSet> {
  if (!source || typeof source !== 'object') throw new TypeError('mcpAtoms: pass an MCP client, { command, args } or { url }')
  const owned = !isClient(source)
  const client = isClient(source) ? source : await connect(source, options.clientName ?? 'ajs-codemode')
  try {
    let tools = await listMcpTools(client)
    if (options.include) {
      const include = new Set(options.include)
      tools = tools.filter((t) => include.has(t.name))
    }
    const server = client.getServerVersion?.()?.name ?? 'mcp'
    const { names, renamed } = mapToolNames(tools.map((t) => t.name), { prefix: options.prefix, taken: options.taken })
    const atoms: Record<string, McpAtom> = {}
    tools.forEach((tool, i) => {
      const op = names[i]!
      const effects = typeof options.effects === 'function' ? options.effects(tool) : options.effects?.[tool.name] ?? 'io'
      const docs = tool.description ?? tool.title ?? tool.annotations?.title
      const def = defineAtom(op, inputSchemaOf(tool), tool.outputSchema, async (input: Record<string, unknown>, ctx) => {
        const res = await client.callTool({ name: tool.name, arguments: input }, undefined, { signal: ctx.signal })
        if ((res as { isError?: boolean }).isError) throw new Error(errorText(res))
        return mcpResultData(res)
      }, { docs, cost: options.cost ?? 1, timeoutMs: options.timeoutMs ?? 60_000, effects, ...(toolRequiresApproval(tool, options.approval) ? { requiresApproval: true } : {}) })
      atoms[op] = Object.assign(def, { mcp: { server, tool: tool.name, ...(tool.annotations ? { annotations: tool.annotations } : {}) } })
    })
    return {
      atoms, renamed, tools, server, client,
      close: async () => { if (owned) await client.close().catch(() => {}) },
    }
  } catch (e) {
    if (owned) await client.close().catch(() => {})
    throw e
  }
}
