// Code mode (issue 25): what the runtime adds around real tools.
//
//   1. MCP tool calls through atoms vs the MCP client directly: one stdio MCP
//      server (bench/lib/mcp-add-server.mjs), one connected SDK client, N
//      sequential calls of its `add` tool made by the client itself and by an
//      AJS program calling the tool's atom (mcpAtoms over the same client) in a
//      loop. Rounds interleave; the ratio and the overhead per call are of the
//      medians.
//   2. Declarations for a prompt: describeAtoms over 100 and 1,000 synthetic
//      tools (typed inputs with descriptions, bounds, enums, optional arrays
//      and nested objects; typed outputs), time per render and its size in
//      bytes (TypeScript and JSON formats).
//
// Standalone: `node bench/codemode.mjs [--quick]`; `npm run bench --
// --sections codemode` runs it as a section of the full benchmark.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { benchDir, buildDir, repoDir } from './lib/paths.mjs'
import { median, now } from './lib/timing.mjs'

async function loadOurs() {
  const outfile = join(buildDir, 'ajs-codemode.mjs')
  await build({
    absWorkingDir: repoDir,
    entryPoints: [join(benchDir, 'codemode-entry.ts')],
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'warning', packages: 'external',
  })
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)
}

/** Synthetic tool `i` as an MCP server would list it: what a typical API tool's schemas hold. */
export function syntheticTool(i) {
  return {
    name: `tool_${i}`,
    description: `Search collection ${i} and return the matching records, best first.`,
    inputSchema: {
      type: 'object',
      required: ['query'],
      properties: {
        query: { type: 'string', description: 'Words to match, e.g. "refund policy"' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Most records to return' },
        mode: { type: 'string', enum: ['exact', 'prefix', 'fuzzy'], description: 'How words match' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Only records with all these tags' },
        filter: {
          type: 'object',
          properties: { field: { type: 'string' }, value: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
          required: ['field', 'value'],
        },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['items', 'total'],
      properties: {
        items: { type: 'array', items: { type: 'object', required: ['id', 'score'], properties: { id: { type: 'string' }, score: { type: 'number' }, title: { type: 'string' } } } },
        total: { type: 'integer', description: 'All matches, also those past `limit`' },
      },
    },
  }
}

async function timed(fn) {
  const t0 = now()
  await fn()
  return now() - t0
}

export async function runCodemodeBench({ quick = false, log = console.log } = {}) {
  const w = await loadOurs()
  const rounds = quick ? 3 : 9
  const calls = quick ? 200 : 1000
  const out = { mcp: {}, describe: [] }

  // 1. MCP calls: the same connected client, directly and through atoms.
  const client = new Client({ name: 'ajs-bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(benchDir, 'lib', 'mcp-add-server.mjs')], stderr: 'inherit' }))
  try {
    const tools = await w.mcpAtoms(client)
    const vm = new w.AgentVM(Object.values(tools.atoms))
    const ast = w.transpile(`function loop({ n }) {
  let total = 0
  for (let i = 0; i < n; i++) total += add({ a: i, b: 1 }).sum
  return total
}`, { atoms: tools.atoms }).ast
    const expected = (calls * (calls - 1)) / 2 + calls
    const direct = async () => {
      let total = 0
      for (let i = 0; i < calls; i++) total += (await client.callTool({ name: 'add', arguments: { a: i, b: 1 } })).structuredContent.sum
      if (total !== expected) throw new Error(`direct: ${total}`)
    }
    const atoms = async () => {
      const r = await vm.run(ast, { n: calls }, { fuel: 1e7, timeoutMs: 600_000 })
      if (r.result !== expected) throw new Error(`atoms: ${JSON.stringify(r.error ?? r.result)}`)
    }
    await direct()
    await atoms() // warm-up: connections, JIT, the compiled program
    const d = []
    const a = []
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) { d.push(await timed(direct)); a.push(await timed(atoms)) } else { a.push(await timed(atoms)); d.push(await timed(direct)) }
    }
    const dMs = median(d)
    const aMs = median(a)
    out.mcp = {
      calls, rounds,
      directMs: +dMs.toFixed(1), atomsMs: +aMs.toFixed(1),
      directUsPerCall: +((dMs * 1000) / calls).toFixed(1), atomsUsPerCall: +((aMs * 1000) / calls).toFixed(1),
      overheadUsPerCall: +(((aMs - dMs) * 1000) / calls).toFixed(1),
      ratio: +(aMs / dMs).toFixed(3),
    }
    log(`  MCP tool calls over stdio, ${calls} sequential calls (median of ${rounds} interleaved rounds)`)
    log(`    MCP client directly:        ${dMs.toFixed(1).padStart(8)} ms  (${out.mcp.directUsPerCall} µs per call)`)
    log(`    AJS program, tool as atom:  ${aMs.toFixed(1).padStart(8)} ms  (${out.mcp.atomsUsPerCall} µs per call)`)
    log(`    ratio ${out.mcp.ratio}, overhead ${out.mcp.overheadUsPerCall} µs per call`)
  } finally {
    await client.close()
  }

  // 2. describeAtoms over synthetic tools.
  log(`  describeAtoms over synthetic tools (median of ${quick ? 5 : 21} renders)`)
  for (const n of [100, 1000]) {
    const atoms = Array.from({ length: n }, (_, i) => {
      const t = syntheticTool(i)
      return w.defineAtom(t.name, t.inputSchema, t.outputSchema, async () => null, { docs: t.description })
    })
    const ts = w.describeAtoms(atoms)
    const json = JSON.stringify(w.describeAtoms(atoms, { format: 'json' }))
    for (let r = 0; r < 3; r++) w.describeAtoms(atoms) // warm-up (JIT)
    const xs = []
    for (let r = 0; r < (quick ? 5 : 21); r++) xs.push(await timed(() => w.describeAtoms(atoms)))
    const ms = median(xs)
    const row = { tools: n, ms: +ms.toFixed(2), usPerTool: +((ms * 1000) / n).toFixed(1), tsBytes: Buffer.byteLength(ts), tsBytesPerTool: Math.round(Buffer.byteLength(ts) / n), jsonBytes: Buffer.byteLength(json) }
    out.describe.push(row)
    log(`    ${String(n).padStart(5)} tools: ${ms.toFixed(2).padStart(8)} ms (${row.usPerTool} µs/tool); TypeScript ${row.tsBytes} B (${row.tsBytesPerTool} B/tool), JSON ${row.jsonBytes} B`)
  }
  return out
}

/** The section's Markdown for bench/results. */
export function renderCodemode(r) {
  const m = r.mcp
  const rows = r.describe.map((d) => `| ${d.tools} | ${d.ms} | ${d.usPerTool} | ${d.tsBytes} (${d.tsBytesPerTool}/tool) | ${d.jsonBytes} |`)
  return `\n## 11. Code mode\n\n${m.calls} sequential MCP tool calls over stdio (median of ${m.rounds} interleaved rounds): the MCP client directly ${m.directMs} ms (${m.directUsPerCall} µs/call), an AJS program calling the tool's atom ${m.atomsMs} ms (${m.atomsUsPerCall} µs/call): ratio ${m.ratio}, overhead ${m.overheadUsPerCall} µs per call.\n\n| tools | describeAtoms ms | µs/tool | TypeScript bytes | JSON bytes |\n| --- | --- | --- | --- | --- |\n${rows.join('\n')}\n`
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCodemodeBench({ quick: process.argv.includes('--quick') })
}
