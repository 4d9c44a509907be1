/**
 * A small MCP server for the code mode tests and docs: a few typed tools.
 * stdio by default; `--http` serves streamable HTTP on 127.0.0.1 (a free
 * port, printed as `listening <url>` on stdout).
 */
import { createServer } from 'node:http'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const CITIES: Record<string, { temp: number; conditions: string }> = {
  Faro: { temp: 24, conditions: 'sunny' },
  Oslo: { temp: 3, conditions: 'snow' },
  Lima: { temp: 19, conditions: 'cloudy' },
}

export const TOOLS = [
  {
    name: 'get-weather',
    description: 'Current weather of a city.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. "Faro"' },
        units: { type: 'string', enum: ['c', 'f'], description: 'Temperature unit (default c)' },
      },
      required: ['city'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        temp: { type: 'number', description: 'Temperature in the requested unit' },
        conditions: { type: 'string' },
      },
      required: ['city', 'temp', 'conditions'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'get_weather',
    description: 'Legacy spelling of get-weather (returns text).',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'search.docs',
    description: 'Search the documentation.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 10 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        hits: {
          type: 'array',
          items: {
            type: 'object',
            properties: { title: { type: 'string' }, score: { type: 'number' }, kind: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
            required: ['title', 'score'],
          },
        },
        total: { type: 'integer' },
      },
      required: ['hits', 'total'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'delete',
    description: 'Delete a document by id.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { destructiveHint: true },
  },
  {
    name: 'fail',
    description: 'Always fails with the given reason.',
    inputSchema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
  },
]

export function makeServer(): Server {
  const server = new Server({ name: 'codemode-test', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as any[] }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const args = (req.params.arguments ?? {}) as Record<string, any>
    const text = (t: string, isError = false) => ({ content: [{ type: 'text', text: t }], isError })
    switch (req.params.name) {
      case 'get-weather': {
        const c = CITIES[args.city]
        if (!c) return text(`unknown city: ${args.city}`, true)
        const temp = args.units === 'f' ? Math.round(c.temp * 1.8 + 32) : c.temp
        const out = { city: args.city, temp, conditions: c.conditions }
        return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out }
      }
      case 'get_weather': {
        const c = CITIES[args.city]
        return c ? text(`${args.city}: ${c.temp}C, ${c.conditions}`) : text(`unknown city: ${args.city}`, true)
      }
      case 'search.docs': {
        const titles = ['Fuel', 'Capabilities', 'Custom atoms', 'Workflows', 'Code mode']
        const hits = titles.filter((t) => t.toLowerCase().includes(String(args.query).toLowerCase()))
          .slice(0, args.limit ?? 10).map((title, i) => ({ title, score: 1 / (i + 1), kind: null }))
        const out = { hits, total: hits.length }
        return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out }
      }
      case 'delete': return text(`deleted ${args.id}`)
      case 'fail': return text(String(args.reason), true)
      default: return text(`unknown tool ${req.params.name}`, true)
    }
  })
  return server
}

if (import.meta.main) {
  if (process.argv.includes('--http')) {
    const http = createServer(async (req, res) => {
      // Stateless: one server and transport per request.
      const server = makeServer()
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => { transport.close(); server.close() })
      await server.connect(transport)
      await transport.handleRequest(req, res)
    })
    http.listen(0, '127.0.0.1', () => {
      const addr = http.address() as { port: number }
      process.stdout.write(`listening http://127.0.0.1:${addr.port}/mcp\n`)
    })
  } else {
    await makeServer().connect(new StdioServerTransport())
  }
}
