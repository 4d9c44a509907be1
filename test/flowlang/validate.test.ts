/**
 * Validation cases of our own, data-driven: each case mutates a known-good
 * graph and lists every problem it must give (code name and JSON pointer),
 * or the normalized graph it must produce.
 */
import { describe, expect, test } from 'bun:test'
import { FLOW_CODES, serializeFlowGraph, validateFlowGraph, type FlowGraph } from '../../src/flowlang/index.ts'

const base = (): FlowGraph => ({
  version: 1,
  name: 'base',
  nodes: [
    { id: 'f', type: 'family.qwen3', options: {} },
    { id: 'p', type: 'protocol.openai', options: { baseUrl: 'http://127.0.0.1:1/v1' } },
    { id: 'x', type: 'codec.mcp_over_functions', options: {} },
    { id: 'r', type: 'router.mcp', options: {} },
    { id: 's', type: 'sink.ui.messages', options: {} },
  ],
  edges: [
    { from: ['f', 'messages.out'], to: ['p', 'messages.in'] },
    { from: ['p', 'stream.delta'], to: ['x', 'stream.delta'] },
    { from: ['x', 'tool_use.neutral'], to: ['r', 'tool_use.neutral'] },
    { from: ['r', 'tool_result.neutral'], to: ['x', 'tool_result.neutral'] },
    { from: ['x', 'messages.out'], to: ['s', 'messages.out'] },
  ],
})

type Case = [string, (g: any) => unknown, string[]]
const node = (g: any, id: string) => g.nodes.find((n: any) => n.id === id)
const edge = (from: string, to: string) => ({ from: from.split(/\.(.*)/s).slice(0, 2), to: to.split(/\.(.*)/s).slice(0, 2) })

const CASES: Case[] = [
  ['the base graph is valid', () => {}, []],
  ['not an object', () => 'graph', ['SHAPE ']],
  ['an array', () => [], ['SHAPE ']],
  ['null', () => null, ['SHAPE ']],
  ['version missing', (g) => { delete g.version }, ['SHAPE /version']],
  ['version 0', (g) => { g.version = 0 }, ['SHAPE /version']],
  ['version 1.5', (g) => { g.version = 1.5 }, ['SHAPE /version']],
  ['version as a string', (g) => { g.version = '1' }, ['SHAPE /version']],
  ['empty name', (g) => { g.name = '' }, ['SHAPE /name']],
  ['no nodes', (g) => { g.nodes = [] }, ['SHAPE /nodes']],
  ['nodes not an array', (g) => { g.nodes = {} }, ['SHAPE /nodes']],
  ['no edges', (g) => { g.edges = [] }, ['SHAPE /edges']],
  ['unknown top-level field', (g) => { g.nodez = [] }, ['UNKNOWN_FIELD /nodez']],
  ['node without type', (g) => { delete g.nodes[0].type }, ['SHAPE /nodes/0/type']],
  ['node with an empty id', (g) => { g.nodes[4].id = '' }, ['SHAPE /nodes/4/id', 'UNKNOWN_NODE /edges/4/to/0']],
  ['node options null', (g) => { g.nodes[0].options = null }, ['SHAPE /nodes/0/options']],
  ['node options an array', (g) => { g.nodes[0].options = [] }, ['SHAPE /nodes/0/options']],
  ['unknown node field', (g) => { g.nodes[0].label = 'Qwen' }, ['UNKNOWN_FIELD /nodes/0/label']],
  ['ports metadata is accepted and dropped', (g) => { g.nodes[3].ports = { inputs: ['tool_use.neutral'], outputs: ['tool_result.neutral'] } }, []],
  ['edge end with one item', (g) => { g.edges[4].to = ['s'] }, ['SHAPE /edges/4/to']],
  ['edge end with three items', (g) => { g.edges[4].to = ['s', 'messages.out', 'x'] }, ['SHAPE /edges/4/to']],
  ['edge without from', (g) => { delete g.edges[4].from }, ['SHAPE /edges/4/from']],
  ['unknown edge field', (g) => { g.edges[4].label = 'final' }, ['UNKNOWN_FIELD /edges/4/label']],
  ['duplicate node id', (g) => { g.nodes.push({ id: 's', type: 'sink.plain.events' }) }, ['DUPLICATE_ID /nodes/5/id']],
  ['unknown block type', (g) => { g.nodes[4].type = 'sink.ui.mesages' }, ['UNKNOWN_BLOCK /nodes/4/type']],
  ['edge to an unknown node', (g) => { g.edges[4].to[0] = 'sink' }, ['UNKNOWN_NODE /edges/4/to/0']],
  ['edge from an unknown node', (g) => { g.edges[0].from[0] = 'fam' }, ['UNKNOWN_NODE /edges/0/from/0']],
  ['unknown output port', (g) => { g.edges[4].from[1] = 'message.out' }, ['UNKNOWN_PORT /edges/4/from/1']],
  ['unknown input port', (g) => { g.edges[4].to[1] = 'ui.messages' }, ['UNKNOWN_PORT /edges/4/to/1']],
  ['edge from an input port', (g) => { g.edges.push(edge('x.stream.delta', 's.events.out')) }, ['PORT_DIRECTION /edges/5/from/1']],
  ['edge into an output port', (g) => { g.edges.push(edge('x.events.out', 'p.stream.delta')) }, ['PORT_DIRECTION /edges/5/to/1']],
  ['stream.delta into messages.in (the seed\'s mismatch)', (g) => { g.edges.push(edge('p.stream.delta', 'f.messages.in')) }, ['PORT_TYPE_MISMATCH /edges/5']],
  ['tool results into a sink\'s messages input', (g) => { g.edges.push(edge('r.tool_result.neutral', 's.messages.out')) }, ['PORT_TYPE_MISMATCH /edges/5']],
  ['messages into an events input are accepted', (g) => { g.edges[4].to[1] = 'events.out' }, []],
  ['usage into a plain events sink', (g) => { g.nodes.push({ id: 'e', type: 'sink.plain.events' }); g.edges.push(edge('p.usage.out', 'e.usage.out')) }, []],
  ['two writers into one input', (g) => { g.nodes.push({ id: 'f2', type: 'family.qwen3' }); g.edges.push(edge('f2.messages.out', 'p.messages.in')) }, ['MULTIPLE_WRITERS /edges/5']],
  ['a message cycle through two shapers', (g) => {
    g.nodes.push({ id: 'a', type: 'advisor.deliberate' })
    g.edges[0] = edge('a.messages.out', 'p.messages.in')
    g.edges.push(edge('f.messages.out', 'a.messages.in'), edge('a.messages.out', 'f.messages.in'))
  }, ['CYCLE /edges/6']],
  ['a self loop', (g) => { g.nodes.push({ id: 'a', type: 'advisor.deliberate' }); g.edges.push(edge('a.messages.out', 'a.messages.in')) }, ['CYCLE /edges/5']],
  ['the codec ⇄ router round trip is not a cycle', () => {}, []],
  ['unknown option', (g) => { node(g, 'p').options.baseURL = 'http://x' }, ['UNKNOWN_OPTION /nodes/1/options/baseURL']],
  ['option of the wrong type', (g) => { node(g, 'p').options.temperature = 'hot' }, ['OPTION_TYPE /nodes/1/options/temperature']],
  ['option outside its values', (g) => { g.nodes.push({ id: 'g', type: 'advisor.gate', options: { threshold: 'extreme' } }) }, ['OPTION_TYPE /nodes/5/options/threshold']],
  ['list option with a bad item', (g) => { g.nodes.push({ id: 'g', type: 'advisor.gate', options: { when: ['preTool', 'later'] } }) }, ['OPTION_TYPE /nodes/5/options/when']],
  ['boolean option as a string', (g) => { node(g, 'f').options.thinking = 'yes' }, ['OPTION_TYPE /nodes/0/options/thinking']],
  ['negotiation switched off on a codec', (g) => { node(g, 'x').options.negotiation = false }, ['NEGOTIATION_DISABLED /nodes/2/options/negotiation']],
  ['cap_probe switched off on the tools block', (g) => { g.nodes.push({ id: 't', type: 'tools.negotiation_advertise', options: { cap_probe: false } }) }, ['NEGOTIATION_DISABLED /nodes/5/options/cap_probe']],
  ['negotiation: true is accepted (and dropped)', (g) => { node(g, 'x').options.autodetect = true }, []],
  ['no protocol', (g) => { g.nodes.splice(1, 1); g.edges.splice(0, 2) }, ['KERNEL_COUNT /nodes']],
  ['two codecs', (g) => { g.nodes.push({ id: 'x2', type: 'codec.auto' }) }, ['KERNEL_COUNT /nodes/5']],
  ['two routers', (g) => { g.nodes.push({ id: 'r2', type: 'router.mcp' }) }, ['KERNEL_COUNT /nodes/5']],
  ['protocol not feeding the codec', (g) => { g.edges.splice(1, 1) }, ['KERNEL_WIRING /nodes/2']],
  ['tool uses bypassing the router', (g) => { g.edges.splice(2, 1) }, ['KERNEL_WIRING /nodes/2']],
  ['tool results not coming back', (g) => { g.edges.splice(3, 1) }, ['KERNEL_WIRING /nodes/3']],
  ['router.mcp is injected and wired when missing', (g) => { g.nodes.splice(3, 1); g.edges.splice(2, 2) }, []],
]

describe('validateFlowGraph: cases', () => {
  test('there are at least 40 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(40))
  for (const [name, mutate, expected] of CASES) {
    test(name, () => {
      const g = base()
      const replaced = mutate(g)
      const { problems, valid } = validateFlowGraph(replaced === undefined ? g : replaced)
      expect(problems.map((p) => `${p.name} ${p.path}`)).toEqual(expected)
      expect(valid).toBe(expected.length === 0)
      for (const p of problems) {
        expect(p.code).toBe(FLOW_CODES[p.name].code)
        expect(p.message.length).toBeGreaterThan(5)
        expect(p.hint.length).toBeGreaterThan(5)
      }
    })
  }
})

describe('validateFlowGraph: normalization', () => {
  test('defaults applied, aliases renamed, ports dropped, switches dropped', () => {
    const g: any = base()
    g.nodes[1] = { id: 'p', type: 'protocol.ollama', options: { base: 'http://127.0.0.1:2' }, ports: { inputs: [] } }
    g.nodes.push({ id: 'g', type: 'advisor.gate' })
    g.nodes[2].options.negotiation = true
    const { graph, problems } = validateFlowGraph(g)
    expect(problems).toEqual([])
    expect(graph.nodes[1]).toEqual({ id: 'p', type: 'protocol.ollama', options: { baseUrl: 'http://127.0.0.1:2' } })
    expect(graph.nodes[2]!.options).toEqual({})
    expect(graph.nodes[5]).toEqual({ id: 'g', type: 'advisor.gate', options: { threshold: 'medium', when: ['preTool'] } })
  })

  test('the injected router has a deterministic id and both legs of the round trip', () => {
    const g: any = base()
    g.nodes.splice(3, 1)
    g.edges.splice(2, 2)
    const { graph } = validateFlowGraph(g)
    expect(graph.nodes.at(-1)).toEqual({ id: 'router_mcp', type: 'router.mcp', options: {} })
    expect(graph.edges.slice(-2)).toEqual([
      { from: ['x', 'tool_use.neutral'], to: ['router_mcp', 'tool_use.neutral'] },
      { from: ['router_mcp', 'tool_result.neutral'], to: ['x', 'tool_result.neutral'] },
    ])
  })

  test('validation does not mutate its input', () => {
    const g: any = base()
    g.nodes.splice(3, 1)
    const before = JSON.stringify(g)
    validateFlowGraph(g)
    expect(JSON.stringify(g)).toBe(before)
  })

  test('serialize → validate is the identity on a normalized graph', () => {
    const { graph } = validateFlowGraph(base())
    const again = validateFlowGraph(JSON.parse(serializeFlowGraph(graph)))
    expect(again.graph).toEqual(graph)
    expect(serializeFlowGraph(again.graph)).toBe(serializeFlowGraph(graph))
  })

  test('a hint suggests the closest name', () => {
    const g: any = base()
    g.nodes[4].type = 'sink.ui.mesages'
    expect(validateFlowGraph(g).problems[0]!.hint).toContain('`sink.ui.messages`')
  })
})
