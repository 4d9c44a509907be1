// A small MCP server (stdio) for the code-mode example: a shop's support tools.
// `refund` is annotated destructive, so a call to it waits for approval.
// Run alone: bun examples/code-mode/tools-server.ts (speaks MCP on stdin/stdout)
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const CUSTOMERS = [
  { id: 'c1', email: 'ana@example.com', name: 'Ana', tier: 'gold' },
  { id: 'c2', email: 'bo@example.com', name: 'Bo', tier: 'standard' },
]
const ORDERS = [
  { id: 'o-101', customerId: 'c1', total: 40, status: 'late' },
  { id: 'o-102', customerId: 'c1', total: 250, status: 'late' },
  { id: 'o-103', customerId: 'c1', total: 15, status: 'delivered' },
  { id: 'o-201', customerId: 'c2', total: 30, status: 'late' },
]

const order = { type: 'object', properties: { id: { type: 'string' }, total: { type: 'number', description: 'In euros' }, status: { type: 'string', enum: ['late', 'delivered', 'refunded'] } }, required: ['id', 'total', 'status'] }
const TOOLS = [
  {
    name: 'customers.find', description: 'Find a customer by email.',
    inputSchema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
    outputSchema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, tier: { type: 'string', enum: ['gold', 'standard'] } }, required: ['id', 'name', 'tier'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'orders.list', description: 'The orders of a customer, optionally of one status.',
    inputSchema: { type: 'object', properties: { customerId: { type: 'string' }, status: { type: 'string', enum: ['late', 'delivered', 'refunded'] } }, required: ['customerId'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { orders: { type: 'array', items: order } }, required: ['orders'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'refund', description: 'Refund (part of) an order. Moves money: needs approval.',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' }, amount: { type: 'number', minimum: 0 }, reason: { type: 'string' } }, required: ['orderId', 'amount', 'reason'] },
    outputSchema: { type: 'object', properties: { refundId: { type: 'string' }, amount: { type: 'number' } }, required: ['refundId', 'amount'] },
    annotations: { destructiveHint: true },
  },
  {
    name: 'notify', description: 'Send the customer a message.',
    inputSchema: { type: 'object', properties: { customerId: { type: 'string' }, message: { type: 'string' } }, required: ['customerId', 'message'] },
    outputSchema: { type: 'object', properties: { sent: { type: 'boolean' } }, required: ['sent'] },
  },
]

const server = new Server({ name: 'shop-support', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as any[] }))
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = (req.params.arguments ?? {}) as Record<string, any>
  const data = (out: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(out) }], structuredContent: out })
  const error = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true })
  switch (req.params.name) {
    case 'customers.find': {
      const c = CUSTOMERS.find((x) => x.email === args.email)
      return c ? data({ id: c.id, name: c.name, tier: c.tier }) : error(`no customer with email ${args.email}`)
    }
    case 'orders.list':
      return data({ orders: ORDERS.filter((o) => o.customerId === args.customerId && (!args.status || o.status === args.status)).map(({ customerId: _, ...o }) => o) })
    case 'refund': {
      const o = ORDERS.find((x) => x.id === args.orderId)
      if (!o) return error(`no order ${args.orderId}`)
      if (args.amount > o.total) return error(`cannot refund ${args.amount}: order ${o.id} is ${o.total}`)
      return data({ refundId: `r-${o.id}`, amount: args.amount })
    }
    case 'notify': return data({ sent: true })
    default: return error(`unknown tool ${req.params.name}`)
  }
})
await server.connect(new StdioServerTransport())
