// A minimal stdio MCP server for bench/codemode.mjs: one tool, `add`, with
// typed input and structured output (what a real tool returns), nothing else.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const server = new Server({ name: 'bench-add', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  }],
}))
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const { a, b } = req.params.arguments ?? {}
  const out = { sum: a + b }
  return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out }
})
await server.connect(new StdioServerTransport())
