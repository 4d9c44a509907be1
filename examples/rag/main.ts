// RAG pipeline: battery atoms (storeVectorAdd, storeSearch, llmPredictBattery)
// over the in-memory vector store. Offline by default: a tiny local embedder
// and an extractive "model" stand in for the LLM. Set LLM_URL (and LLM_MODEL)
// to use a real OpenAI-compatible endpoint such as LM Studio or Ollama.
// Run: bun examples/rag/main.ts
import { readFileSync } from 'node:fs'
import { AgentVM, createMemoryStore } from 'ajs-lang'
import { batteryAtoms, createBatteryLLM } from 'ajs-lang/batteries'

export const docs = [
  { id: 'fuel', title: 'Fuel', text: 'Every step of a program costs fuel; a run stops when its fuel budget is spent.' },
  { id: 'caps', title: 'Capabilities', text: 'Programs have no network or storage unless the host passes capabilities such as fetch and store.' },
  { id: 'procs', title: 'Procedures', text: 'A stored procedure is an AST kept under a proc_ token with a time to live.' },
]

/** Bag-of-words embedding into 64 dimensions (deterministic, no model needed). */
export function embedText(text: string): number[] {
  const v = new Array<number>(64).fill(0)
  for (const word of text.toLowerCase().match(/[a-z_]+/g) ?? []) {
    let h = 0
    for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    v[h % 64]! += 1
  }
  return v
}

/** Stand-in model: answers with the first context line (the closest document). */
const localLLM = {
  async embed(input: string | string[]) {
    return Array.isArray(input) ? input.map(embedText) : embedText(input)
  },
  async predict(prompt: string) {
    const first = prompt.split('\n').find((line) => line.startsWith('['))
    return first ?? 'I do not know.'
  },
}

const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8')

export async function main(question = 'How do programs get network access?') {
  const vm = new AgentVM(batteryAtoms)
  const llm = process.env['LLM_URL'] ? createBatteryLLM({ baseUrl: process.env['LLM_URL'], model: process.env['LLM_MODEL'] ?? 'default' }) : localLLM
  const capabilities = { store: createMemoryStore(), llm }
  const ingested = await vm.run(read('./ingest.ajs'), { docs }, { capabilities })
  if (ingested.error) throw new Error(ingested.error.message)
  const run = await vm.run(read('./answer.ajs'), { question }, { capabilities })
  if (run.error) throw new Error(`${run.error.code}: ${run.error.message}`)
  return { ingested: ingested.result, ...(run.result as object), fuelUsed: run.fuelUsed }
}

if (import.meta.main) console.log(JSON.stringify(await main(process.argv[2]), null, 2))
