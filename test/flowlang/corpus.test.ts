/**
 * The FlowLang corpus (test/fixtures/vendor/flowlang, see PROVENANCE.md): every file comes out
 * exactly as its manifest says, and where the seed is inconsistent the test
 * pins what we decided (see docs/flowlang.md, "The seed's inconsistencies").
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadFlowSource, parseFlowText, serializeFlowGraph, validateFlowGraph } from '../../src/flowlang/index.ts'

const DIR = resolve(import.meta.dir, '../fixtures/vendor/flowlang')
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as { files: Array<{ file: string; expect: string }> }
const read = (f: string) => readFileSync(join(DIR, f), 'utf8')

/** Every problem each file gives, by code name and JSON pointer. */
const EXPECTED: Record<string, string[]> = {
  'ollama-qwen.flow': [],
  'advisor-gate.flow': [],
  'lmstudio-auto.flow': [],
  'conditional-provider.flow': [],
  'graph-json/valid/lmstudio-qwen-functions.graph.json': [],
  'graph-json/invalid/unknown-block.graph.json': ['UNKNOWN_BLOCK /nodes/6/type'],
  'graph-json/invalid/unknown-port.graph.json': ['UNKNOWN_PORT /edges/4/from/1'],
  'graph-json/invalid/port-type-mismatch.graph.json': ['PORT_TYPE_MISMATCH /edges/1'],
  'graph-json/invalid/multiple-writers.graph.json': ['MULTIPLE_WRITERS /edges/6', 'KERNEL_COUNT /nodes/6'],
  // The manifest names the cycle; the same file also wires two writers (f and a) into p.messages.in.
  'graph-json/invalid/message-cycle.graph.json': ['MULTIPLE_WRITERS /edges/6', 'CYCLE /edges/6'],
  'graph-json/invalid/empty-edges.graph.json': ['SHAPE /edges'],
  'graph-json/invalid/bad-version.graph.json': ['SHAPE /version'],
}

describe('FlowLang corpus', () => {
  test('the manifest lists exactly the files this test expects', () => {
    expect(manifest.files.map((f) => f.file).sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const entry of manifest.files) {
    test(`${entry.file}: ${entry.expect.slice(0, 70)}`, async () => {
      const result = await loadFlowSource(read(entry.file), { filename: entry.file })
      expect(result.problems.map((p) => `${p.name} ${p.path}`)).toEqual(EXPECTED[entry.file]!)
      expect(result.valid).toBe(EXPECTED[entry.file]!.length === 0)
    })
  }

  test('ollama-qwen.flow: `sink.ui.messages` is an implicit node wired to the port named like the source port', () => {
    const { graph } = parseFlowText(read('ollama-qwen.flow'))
    expect(graph.nodes.find((n) => n.id === 'sink.ui.messages')).toEqual({ id: 'sink.ui.messages', type: 'sink.ui.messages', options: {} })
    expect(graph.edges.at(-1)).toEqual({ from: ['x', 'messages.out'], to: ['sink.ui.messages', 'messages.out'] })
    expect(graph.nodes.find((n) => n.id === 'tools.negotiation_advertise')?.type).toBe('tools.negotiation_advertise')
  })

  test('advisor-gate.flow: csv values become lists, by the catalog option type', async () => {
    const { graph } = await loadFlowSource(read('advisor-gate.flow'), { filename: 'advisor-gate.flow' })
    expect(graph.nodes.find((n) => n.id === 'g')!.options).toEqual({ threshold: 'medium', when: ['preTool', 'prePatch'] })
  })

  test('lmstudio-auto.flow: `base=` is the baseUrl alias and codec.auto gets its default', async () => {
    const { graph } = await loadFlowSource(read('lmstudio-auto.flow'), { filename: 'lmstudio-auto.flow' })
    expect(graph.nodes.find((n) => n.id === 'p')!.options).toEqual({ baseUrl: 'http://localhost:1234/v1' })
    expect(graph.nodes.find((n) => n.id === 'a')).toEqual({ id: 'a', type: 'codec.auto', options: { prefer: 'functions' } })
  })

  test('conditional-provider.flow: provider=ollama declares p and x; provider=lmstudio leaves x undeclared', async () => {
    const ollama = parseFlowText(read('conditional-provider.flow'))
    expect(ollama.vars.provider).toBe('ollama')
    expect(ollama.graph.nodes.map((n) => `${n.id}:${n.type}`).slice(0, 2)).toEqual(['p:protocol.ollama', 'x:codec.mcp_over_xml'])
    const lm = await loadFlowSource(read('conditional-provider.flow'), { filename: 'conditional-provider.flow', vars: { provider: 'lmstudio' } })
    expect(lm.problems.map((p) => `${p.name} ${p.path} line ${p.line}`)).toEqual([
      'UNKNOWN_NODE /edges/1/to/0 line 15', 'UNKNOWN_NODE /edges/2/from/0 line 16', 'UNKNOWN_NODE /edges/3/to/0 line 17', 'UNKNOWN_NODE /edges/4/from/0 line 18',
      'KERNEL_WIRING /nodes/1 line 9', 'KERNEL_WIRING /nodes/1 line 9', 'KERNEL_WIRING /nodes/2 line 11',
    ])
    expect(lm.problems[0]!.frame).toContain('> 15 | link p.stream.delta -> x.stream.delta')
  })

  test('the valid graph keeps the seed\'s wiring: sink port `events.out`, an unwired tools block, the x ⇄ r round trip', () => {
    const input = JSON.parse(read('graph-json/valid/lmstudio-qwen-functions.graph.json'))
    const { graph, problems } = validateFlowGraph(input)
    expect(problems).toEqual([])
    expect(graph.edges).toEqual(input.edges)
    // JSON ⇄ graph is lossless: serializing and validating again gives the same graph.
    expect(validateFlowGraph(JSON.parse(serializeFlowGraph(graph))).graph).toEqual(graph)
  })

  test('the .flow examples and the JSON graph agree after validation (same blocks, same wires)', async () => {
    const text = await loadFlowSource(read('lmstudio-auto.flow'), { filename: 'lmstudio-auto.flow' })
    const types = text.graph.nodes.map((n) => n.type).sort()
    expect(types).toEqual(['codec.auto', 'family.qwen3', 'protocol.openai', 'router.mcp', 'sink.ui.messages', 'tools.negotiation_advertise'])
  })
})
