// FlowLang flows in the three source forms: `.flow` text, a flow script run in
// the AgentVM sandbox, and a JSON graph with a mistake. Validation gives every
// problem with its code and JSON pointer, and a guarded repair fixes the JSON one.
// Run: bun examples/flowlang/main.ts
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyFlowRepair, loadFlowSource } from 'ajs-lang/flowlang'

const here = dirname(fileURLToPath(import.meta.url))

export async function main(): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const file of ['ollama-qwen.flow', 'lmstudio-qwen-functions.flow.js', 'broken.graph.json']) {
    const result = await loadFlowSource(readFileSync(join(here, file), 'utf8'), { filename: file })
    out[file] = result.valid ? 'valid' : result.problems.map((p) => `${p.code} ${p.path}`).join(', ')
  }
  const broken = JSON.parse(readFileSync(join(here, 'broken.graph.json'), 'utf8'))
  const edges = broken.edges.map((e: { from: string[]; to: string[] }) => (e.from[1] === 'message.out' ? { ...e, from: [e.from[0], 'messages.out'] } : e))
  out.repair = applyFlowRepair(broken, { edges }).adopted ? 'adopted' : 'refused'
  return out
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
