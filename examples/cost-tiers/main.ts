// Cost overrides per user tier: one program, one fuel budget, and atom costs
// that depend on who is calling (a fixed number or a function of the input).
// Run: bun examples/cost-tiers/main.ts
import { AgentVM, ajs } from 'ajs-lang'

export const program = ajs`function research({ topics }) {
  const notes = []
  for (const topic of topics) {
    notes.push(llmPredict({ prompt: 'Summarize ' + topic }))
  }
  storeSet({ key: 'notes', value: notes })
  return { notes }
}`

/** Fuel prices per tier: free users pay more per model call, enterprise pays per byte stored. */
export const TIERS = {
  free: { llmPredict: 300 },
  pro: { llmPredict: 60 },
  enterprise: { llmPredict: 20, storeSet: (input: { value?: unknown }) => JSON.stringify(input.value ?? null).length * 0.01 },
} as const

const capabilities = {
  llm: { predict: async (prompt: string) => `summary of ${prompt.slice('Summarize '.length)}` },
  store: { set: async () => null },
}

export async function main() {
  const vm = new AgentVM()
  const args = { topics: ['fuel', 'capabilities', 'procedures'] }
  const out: Record<string, unknown> = {}
  for (const [tier, costOverrides] of Object.entries(TIERS)) {
    const run = await vm.run(program, args, { fuel: 800, costOverrides, capabilities, context: { tier } })
    out[tier] = run.error ? { error: run.error.code, fuelUsed: run.fuelUsed } : { notes: (run.result as { notes: string[] }).notes.length, fuelUsed: run.fuelUsed }
  }
  return out
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
