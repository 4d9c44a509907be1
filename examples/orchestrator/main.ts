// Orchestrator: stores worker agents as procedures (proc_ tokens) and fans
// tasks out to them with agentRun. Sub-agents share the caller's fuel and
// deadline, and run with the caller's capabilities.
// Run: bun examples/orchestrator/main.ts
import { AgentVM, ajs } from 'ajs-lang'

/** Workers: small agents, each a self-contained AST. */
export const workers = {
  wordCount: ajs`function wordCount({ text }) {
    return { words: text.split(' ').filter((w) => w.length > 0).length }
  }`,
  shout: ajs`function shout({ text }) {
    return { text: text.toUpperCase() + '!' }
  }`,
  sum: ajs`function sum({ numbers }) {
    return { total: numbers.reduce((a, b) => a + b, 0) }
  }`,
}

/** The orchestrator registers the workers, dispatches every task, then releases them. */
export const orchestrator = ajs`function orchestrate({ workers, tasks }) {
  const tokens = {}
  for (const name of Object.keys(workers)) {
    tokens[name] = storeProcedure({ ast: workers[name], ttl: 60000 })
  }
  const results = tasks.map((t) => ({ task: t.worker, output: agentRun({ agentId: tokens[t.worker], input: t.input }) }))
  for (const name of Object.keys(tokens)) releaseProcedure({ token: tokens[name] })
  return { results, workers: Object.keys(tokens).length }
}`

export async function main() {
  const vm = new AgentVM()
  const tasks = [
    { worker: 'wordCount', input: { text: 'agents as data are portable' } },
    { worker: 'shout', input: { text: 'fan out' } },
    { worker: 'sum', input: { numbers: [1, 2, 3, 4] } },
  ]
  const run = await vm.run(orchestrator, { workers, tasks }, { fuel: 500 })
  if (run.error) throw new Error(`${run.error.code}: ${run.error.message}`)

  // The host can store a procedure too, and run it by token.
  const stored = await vm.run(ajs`function keep({ ast }) { return { token: storeProcedure({ ast }) } }`, { ast: workers.shout })
  const token = (stored.result as { token: string }).token
  const byToken = await vm.run(token, { text: 'by token' })
  return { ...(run.result as object), fuelUsed: run.fuelUsed, tokenPrefix: token.slice(0, 5), byToken: byToken.result }
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
