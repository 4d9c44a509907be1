// Rule engine: the rules are JSON data, the engine is an AJS program.
// Run: bun examples/rule-engine/main.ts
import { readFileSync } from 'node:fs'
import { AgentVM, transpile } from 'ajs-lang'

export const rules = [
  { name: 'blocked-country', when: [{ field: 'country', op: 'in', value: ['XX'] }], discount: 0, stop: true },
  { name: 'vip', when: [{ field: 'tier', op: 'eq', value: 'vip' }], discount: 0.2 },
  { name: 'bulk', when: [{ field: 'amount', op: 'gte', value: 1000 }], discount: 0.1 },
  { name: 'first-order', when: [{ field: 'orders', op: 'eq', value: 0 }, { field: 'amount', op: 'gt', value: 50 }], discount: 0.05 },
]

export async function main() {
  const source = readFileSync(new URL('./rules.ajs', import.meta.url), 'utf8')
  const { ast } = transpile(source, { filename: 'rules.ajs' })
  const vm = new AgentVM()
  const orders = [
    { id: 'a', country: 'PT', tier: 'vip', amount: 1200, orders: 3 },
    { id: 'b', country: 'PT', tier: 'basic', amount: 80, orders: 0 },
    { id: 'c', country: 'XX', tier: 'vip', amount: 5000, orders: 9 },
  ]
  const out: Record<string, unknown> = {}
  for (const order of orders) {
    const run = await vm.run(ast, { order, rules })
    if (run.error) throw new Error(`${run.error.code}: ${run.error.message}`)
    out[order.id] = run.result
  }
  return out
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
