/**
 * Flow scripts: AJS modules run on the AgentVM with the catalog as their
 * only capability. The seed's authoring example runs as written; problems
 * are located; the sandbox has fuel, a time limit and no I/O.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { loadFlowSource, runFlowScript, serializeFlowGraph, validateFlowGraph } from '../../src/flowlang/index.ts'

const SEED_EXAMPLE = readFileSync(resolve(import.meta.dir, '../../examples/flowlang/lmstudio-qwen-functions.flow.js'), 'utf8')
const JSON_GRAPH = JSON.parse(readFileSync(resolve(import.meta.dir, '../fixtures/vendor/flowlang/graph-json/valid/lmstudio-qwen-functions.graph.json'), 'utf8'))

const wrap = (body: string) => `export default function build({ blocks }) {\n${body}\n}\n`
const names = async (source: string) => (await runFlowScript(source)).problems.map((p) => `${p.name} ${p.path}`)

describe('runFlowScript', () => {
  test('the seed\'s authoring example gives the corpus graph (ids aside), with deterministic ids', async () => {
    const a = await runFlowScript(SEED_EXAMPLE)
    expect(a.problems).toEqual([])
    expect(a.graph.nodes.map((n) => n.id)).toEqual(['family_qwen3_1', 'protocol_openai_1', 'codec_mcp_over_functions_1', 'router_mcp_1', 'tools_negotiation_advertise_1', 'sink_ui_messages_1'])
    const rename: Record<string, string> = { family_qwen3_1: 'f', protocol_openai_1: 'p', codec_mcp_over_functions_1: 'x', router_mcp_1: 'r', tools_negotiation_advertise_1: 't', sink_ui_messages_1: 'sink' }
    const renamed = JSON.parse(serializeFlowGraph(a.graph).replace(/"(\w+_\d)"/g, (m, id) => JSON.stringify(rename[id] ?? id)))
    expect(renamed).toEqual(validateFlowGraph(JSON_GRAPH).graph)
    const b = await runFlowScript(SEED_EXAMPLE)
    expect(serializeFlowGraph(b.graph)).toBe(serializeFlowGraph(a.graph))
  })

  test('helpers above the default export, loops and conditions work', async () => {
    const source = `
function wire(a, pa, b, pb) { return { from: [a.id, pa], to: [b.id, pb] } }
export default function build({ blocks }) {
  const useXml = true
  const p = blocks.protocol.ollama({ baseUrl: 'http://127.0.0.1:11434' })
  const x = useXml ? blocks.codec.mcp_over_xml() : blocks.codec.mcp_over_functions()
  const r = blocks.router.mcp()
  const sinks = [blocks.sink.ui.messages(), blocks.sink.plain.events()]
  const edges = [wire(p, 'stream.delta', x, 'stream.delta'), wire(x, 'tool_use.neutral', r, 'tool_use.neutral'), wire(r, 'tool_result.neutral', x, 'tool_result.neutral')]
  for (const s of sinks) edges.push(wire(x, 'messages.out', s, 'messages.out'))
  return { version: 1, name: 'ollama xml', nodes: [p, x, r, ...sinks], edges }
}`
    const r = await runFlowScript(source)
    expect(r.problems).toEqual([])
    expect(r.graph.nodes.map((n) => n.id)).toEqual(['protocol_ollama_1', 'codec_mcp_over_xml_1', 'router_mcp_1', 'sink_ui_messages_1', 'sink_plain_events_1'])
  })

  test('blocks carry their ports, as the seed describes', async () => {
    const r = await runFlowScript(wrap(`const x = blocks.router.mcp()\n  return { version: 1, name: 'n', nodes: [{ id: 'a', type: 'family.qwen3', options: { thinking: x.ports.inputs.length === 1 } }], edges: [] }`))
    expect(r.graph.nodes[0]!.options).toEqual({ thinking: true })
  })

  test('an unknown block is refused before running, at its call', async () => {
    const r = await runFlowScript(wrap(`  const c = blocks.codec.mcp_over_funtions()\n  return c`))
    expect(r.problems.map((p) => `${p.name} ${p.path}`)).toEqual(['SCRIPT_BLOCK_CALL 2:12'])
    expect(r.problems[0]!.message).toContain('Did you mean `codec.mcp_over_functions`?')
    expect(r.problems[0]!.frame).toContain('> 2 |   const c = blocks.codec.mcp_over_funtions()')
  })

  test('the atom behind blocks, called by name, checks the type as well', async () => {
    const r = await runFlowScript(wrap(`  return flowBlock({ type: 'nope', options: {} })`))
    expect(r.problems.map((p) => `${p.name} ${p.path}`)).toEqual(['SCRIPT_RUNTIME 2:9'])
    expect(r.problems[0]!.message).toContain('`nope` is not a block of the catalog')
  })

  test('a block call takes one options object', async () => {
    expect(await names(wrap(`  return blocks.router.mcp({}, 2)`))).toEqual(['SCRIPT_BLOCK_CALL 2:9'])
  })

  test('syntax errors and refused constructs are located', async () => {
    expect(await names(wrap(`  const x = {`))).toEqual(['SCRIPT_SYNTAX 4:0'])
    const refused = await runFlowScript(wrap(`  class A {}\n  return {}`))
    expect(refused.problems[0]!.name).toBe('SCRIPT_SYNTAX')
    expect(refused.problems[0]!.message).toContain('AJS2001')
    expect(refused.problems[0]!.line).toBe(2)
  })

  test('the module shape: a default export function, last, importing nothing', async () => {
    expect(await names('function build({ blocks }) { return {} }')).toEqual(['SCRIPT_EXPORT 1:0'])
    expect(await names(`import fs from 'node:fs'\n${wrap('return {}')}`)).toEqual(['SCRIPT_EXPORT 1:0'])
    expect(await names(`${wrap('return {}')}function after() { return 1 }`)).toEqual(['SCRIPT_EXPORT 1:0'])
    expect(await names('export default 42')).toEqual(['SCRIPT_EXPORT 1:0'])
    const anonymous = await runFlowScript(`export default function ({ blocks }) {\n  return blocks.router.mcp()\n}`)
    // An anonymous default export runs too; it returned a block, not a graph.
    expect(anonymous.problems.map((p) => `${p.name} ${p.path}`)).toContain('SHAPE /version')
    expect(anonymous.problems.map((p) => `${p.name} ${p.path}`)).toContain('UNKNOWN_FIELD /ports')
  })

  test('the sandbox has no I/O: httpFetch has no capability', async () => {
    const r = await runFlowScript(wrap(`  const page = httpFetch({ url: 'http://127.0.0.1:9/' })\n  return page`))
    expect(r.problems.map((p) => p.name)).toEqual(['SCRIPT_RUNTIME'])
    expect(r.problems[0]!.message).toContain('CAPABILITY_MISSING')
  })

  test('fuel and time are bounded (default 1,000 ms, 1,000 fuel)', async () => {
    const spin = wrap(`  let i = 0\n  while (true) { i++ }\n  return i`)
    const byFuel = await runFlowScript(spin)
    expect(byFuel.problems[0]!.message).toContain('FUEL_EXHAUSTED')
    const started = Date.now()
    const byTime = await runFlowScript(spin, { fuel: 1e12, timeoutMs: 100 })
    expect(byTime.problems[0]!.message).toContain('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  test('a thrown error is a located SCRIPT_RUNTIME problem', async () => {
    const r = await runFlowScript(wrap(`  throw new Error('nope')`))
    expect(r.problems.map((p) => `${p.name} ${p.path}`)).toEqual(['SCRIPT_RUNTIME 2:2'])
    expect(r.problems[0]!.message).toContain('nope')
  })

  test('loadFlowSource picks the frontend by file name; JSON errors are located', async () => {
    expect((await loadFlowSource(SEED_EXAMPLE, { filename: 'x.flow.js' })).valid).toBe(true)
    const bad = await loadFlowSource('{\n  "version": 1,\n  oops\n}', { filename: 'g.json' })
    expect(bad.problems.map((p) => p.name)).toEqual(['SHAPE'])
    expect(bad.problems[0]!.message).toContain('Invalid JSON')
  })
})
