/**
 * router.mcp: executes neutral tool uses on the host's MCP servers through
 * the official MCP TypeScript SDK (stdio transport; the host names each
 * server and its command). Servers start on first use and stop on close().
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { loadOptional } from '../../host/optional.ts'
import type { McpToolInfo } from './codecs.ts'
import type { McpServerSpec, NeutralToolResult, NeutralToolUse } from './types.ts'

export { McpRouterError } from './router-error.ts'
import { McpRouterError } from './router-error.ts'

interface Connected { name: string; client: Client; tools: McpToolInfo[] }

export class McpRouter {
  private connected?: Promise<Connected[]>
  /** Every client created, connected or still in its handshake (close() must reach both). */
  private readonly clients: Client[] = []
  private closed = false

  constructor(private readonly servers: Record<string, McpServerSpec>, private readonly clientName = 'ajs-flowlang') {}

  /** Start every server (once) and list its tools. */
  private connect(): Promise<Connected[]> {
    if (this.closed) return Promise.reject(new McpRouterError('*', 'the router is closed'))
    this.connected ??= Promise.all(Object.entries(this.servers).map(async ([name, spec]) => {
      // The MCP SDK is an optional dependency, loaded when a flow first routes a tool use.
      const [{ Client }, { StdioClientTransport }] = await loadOptional('mcp', () => Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/stdio.js'),
      ])).catch((e: Error) => { throw new McpRouterError(name, e.message) })
      const client = new Client({ name: this.clientName, version: '1.0.0' })
      this.clients.push(client)
      const transport = new StdioClientTransport({
        command: spec.command, args: spec.args ?? [], cwd: spec.cwd,
        env: { ...(process.env as Record<string, string>), ...(spec.env ?? {}) }, stderr: 'pipe',
      })
      try {
        await client.connect(transport)
        const listed = await client.listTools()
        return { name, client, tools: listed.tools as McpToolInfo[] }
      } catch (e) {
        await client.close().catch(() => {})
        throw new McpRouterError(name, (e as Error).message)
      }
    }))
    return this.connected
  }

  /** Tools of the allowed servers (first server wins a name clash). */
  async tools(allowed?: readonly string[]): Promise<Array<McpToolInfo & { server: string }>> {
    const out: Array<McpToolInfo & { server: string }> = []
    const seen = new Set<string>()
    for (const c of await this.connect()) {
      if (allowed && !allowed.includes(c.name)) continue
      for (const t of c.tools) if (!seen.has(t.name)) { seen.add(t.name); out.push({ ...t, server: c.name }) }
    }
    return out
  }

  /** Run one tool use; an unknown tool gives `undefined` (the caller reports "unsupported tool use"). */
  async call(use: NeutralToolUse, signal: AbortSignal, allowed?: readonly string[]): Promise<NeutralToolResult | undefined> {
    const tool = (await this.tools(allowed)).find((t) => t.name === use.name)
    if (!tool) return undefined
    const conn = (await this.connect()).find((c) => c.name === tool.server)!
    try {
      const res: any = await conn.client.callTool({ name: use.name, arguments: use.arguments }, undefined, { signal })
      const content = Array.isArray(res.content)
        ? res.content.map((c: any) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n')
        : JSON.stringify(res.structuredContent ?? res)
      return { id: use.id, name: use.name, content, isError: res.isError === true }
    } catch (e) {
      if (signal.aborted) throw e
      return { id: use.id, name: use.name, content: `MCP error: ${(e as Error).message}`, isError: true }
    }
  }

  async close(): Promise<void> {
    this.closed = true
    this.connected?.catch(() => {})
    await Promise.all(this.clients.map((c) => c.close().catch(() => {})))
  }
}
