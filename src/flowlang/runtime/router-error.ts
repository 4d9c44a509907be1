/**
 * The error of an MCP server behind the router, in its own module: the
 * FlowLang library's atoms recognise it without importing the router (and
 * with it the MCP SDK).
 */
export class McpRouterError extends Error {
  override name = 'McpRouterError'
  constructor(readonly server: string, message: string) { super(message) }
}
