/**
 * What every `ajsc` command loads before it knows which command runs (issue 28, cold start): the
 * static import graph of dist/cli.js. The code of the heavy commands (flows with the Python
 * frontend and runtime, FlowLang, the workflow engine, the server's config and inspector, code
 * mode's MCP client) loads in their actions, so `ajsc run x.ajs` starts without it. Counted in
 * bytes and by source directory from esbuild's metafile (no timing).
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBuilt, ROOT } from './built.ts'

interface Meta { outputs: Record<string, { bytes: number; imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, { bytesInOutput: number }> }> }

/** dist/ outputs reached from `entry` by static imports, and the source files inside them. */
function staticGraph(meta: Meta, entry: string): { outputs: string[]; bytes: number; sources: string[] } {
  const seen = new Set([entry])
  const queue = [entry]
  while (queue.length > 0) {
    for (const im of meta.outputs[queue.shift()!]?.imports ?? []) {
      if (im.kind !== 'import-statement' || im.external || seen.has(im.path)) continue
      seen.add(im.path)
      queue.push(im.path)
    }
  }
  const outputs = [...seen]
  const sources = outputs.flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}).map((s) => s.replace(/^.*?(?=src\/|node_modules\/)/, '')))
  return { outputs, bytes: outputs.reduce((n, o) => n + (meta.outputs[o]?.bytes ?? 0), 0), sources }
}

/**
 * Bytes of our code dist/cli.js loads statically (the VM core layer apart): 958 KB before the heavy commands loaded on use, 311 KB after.
 * 375,000: the transpiler every command uses grew by what it compiles (local functions +10.3 KB, Set variables and their
 * shared index +9 KB, new codes +2.3 KB, the CLI's args checks +2.4 KB): 336,695 B at 4601768 -> 361,185 B at df78cbe by
 * esbuild's metafile (the sources in the static graph of dist/cli.js); no heavy command moved into it.
 */
// 385,000: 375,464 B at the commit after 7280efa (this test's count): kept Intl formatters (+2.8 KB), module declarations, rest parameters, schema-error wording.
// 400,000: 392,445 B at b0064a1 (this test's count, each revision's own build): 381,437 B at 4205b7a, 383,417 B at a702892
// after local functions nest (+2.0 KB), then functions passed to helpers (transpiler/function-arguments.ts, +9.0 KB).
// 420,000: 413,461 B at 61bace6 (this test's count): a Map or Set passed to a helper (collection-params.ts, lower/helper-collections.ts),
// functions passed on through helpers (function-argument-candidates.ts, copies to a fixed point, AJS2068-AJS2071), function-text.ts.
const MAX_STATIC_BYTES = 420_000

/** Source directories only some commands need: none of them may load with every `ajsc`. */
const ON_USE = ['src/python/', 'src/flowlang/', 'src/flows/', 'src/workflows/engine/', 'src/workflows/drivers/local.ts', 'src/server/', 'src/codemode/mcp']
/** ... but for WorkflowError (its class and codes, ~5 KB), which the workflow commands' reports test with instanceof. */
const STATIC_ANYWAY = new Set(['src/workflows/engine/errors.ts'])

describe('dist/cli.js: what every ajsc command loads', () => {
  ensureBuilt()
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'meta.json'), 'utf8')) as Meta
  const graph = staticGraph(meta, 'dist/cli.js')

  test(`at most ${MAX_STATIC_BYTES} bytes of dist/ before a command runs`, () => {
    console.log(`dist/cli.js: ${graph.outputs.length} files, ${graph.bytes} bytes statically`)
    expect(graph.outputs.length).toBeGreaterThan(1)
    expect(graph.bytes).toBeLessThanOrEqual(MAX_STATIC_BYTES)
  })

  test('no code of the flow, FlowLang, workflow, serve, inspect or MCP commands', () => {
    const heavy = graph.sources.filter((s) => ON_USE.some((dir) => s.startsWith(dir)) && !STATIC_ANYWAY.has(s))
    expect(heavy).toEqual([])
    // ... while the CLI still reaches them on use (a dynamic import each).
    const dynamic = graph.outputs.flatMap((o) => meta.outputs[o]!.imports.filter((im) => im.kind === 'dynamic-import' && !im.external).map((im) => im.path))
    const reachable = staticGraph({ outputs: { ...meta.outputs, 'entry:dynamic': { bytes: 0, inputs: {}, imports: dynamic.map((path) => ({ path, kind: 'import-statement' })) } } }, 'entry:dynamic').sources
    for (const dir of ['src/python/', 'src/flowlang/', 'src/workflows/engine/', 'src/server/inspector/']) expect([dir, reachable.some((s) => s.startsWith(dir))]).toEqual([dir, true])
  })
})
