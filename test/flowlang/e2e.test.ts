/**
 * End to end on 127.0.0.1: a fake model server asks for the `add` tool, a
 * real MCP server process (built with the SDK, test/flowlang/fixtures)
 * executes it, the result goes back to the model, and the final answer
 * reaches the sink — through each codec, codec.auto, and a model that mixes
 * formats (the tool runs exactly once).
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlowSession, type FlowEvent, type FlowHost } from '../../src/flowlang/index.ts'
import { startFakeOllama, startFakeOpenAI, type FakeLlm, type ToolFormat } from './fake-llm.ts'
import { chainGraph, recordingHost } from './helpers.ts'
const dir = mkdtempSync(join(tmpdir(), 'flowlang-e2e-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let cleanups: Array<() => Promise<void>> = []
afterEach(async () => { for (const c of cleanups.splice(0)) await c() })

/** The chain graph plus two plain event sinks: the codec's events and the router's. */
function graph(protocol: 'protocol.openai' | 'protocol.ollama', codec: string, baseUrl: string) {
  const g = chainGraph(protocol, codec, baseUrl, `${protocol} ${codec}`)
  g.nodes.push({ id: 'events', type: 'sink.plain.events', options: {} }, { id: 'results', type: 'sink.plain.events', options: {} })
  g.edges.push({ from: ['x', 'events.out'], to: ['events', 'events.out'] }, { from: ['r', 'events.out'], to: ['results', 'events.out'] })
  return g
}
const host = () => {
  const t = recordingHost(dir)
  return { ...t, h: t.host }
}

async function fake(kind: 'openai' | 'ollama', format: ToolFormat): Promise<FakeLlm> {
  const llm = kind === 'openai' ? await startFakeOpenAI(format) : await startFakeOllama(format)
  cleanups.push(() => llm.close())
  return llm
}

async function open(g: unknown, h: FlowHost): Promise<FlowSession> {
  const session = await FlowSession.open({ graph: g }, { host: h })
  cleanups.push(() => session.close())
  return session
}

describe('FlowLang end to end', () => {
  test('protocol.openai (SSE) + codec.mcp_over_functions: tool_calls → MCP → tool message → answer at the sink', async () => {
    const llm = await fake('openai', 'functions')
    const t = host()
    const session = await open(graph('protocol.openai', 'codec.mcp_over_functions', llm.url), t.h)
    expect(session.mode).toBe('normal')
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.error).toBeUndefined()
    expect(turn.text).toBe('The sum is 5.')
    expect(t.messages).toEqual([{ role: 'assistant', content: 'The sum is 5.' }])
    expect(t.executed()).toEqual(['add {"a":2,"b":3}'])
    expect(llm.requests[0].tools.map((x: any) => x.function.name)).toEqual(['add', 'wipe'])
    expect(llm.requests[0].stream).toBe(true)
    const second = llm.requests[1].messages
    expect(second.at(-2)).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_fake_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }] })
    expect(second.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_fake_1', name: 'add', content: '5' })
    expect(turn.rounds).toBe(2)
    expect(turn.toolCalls).toBe(1)
    expect(turn.trace.map((e) => e.kind)).toEqual(['tools', 'request', 'response', 'tool_use', 'tool_result', 'request', 'response', 'final'])
    expect(t.events.map((e) => e.type)).toEqual(['tool_use', 'tool_result'])
  })

  test('protocol.ollama (NDJSON) + codec.mcp_over_xml: <tool_call> text → MCP → <tool_response> → answer', async () => {
    const llm = await fake('ollama', 'xml')
    const t = host()
    const session = await open(graph('protocol.ollama', 'codec.mcp_over_xml', llm.url), t.h)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.error).toBeUndefined()
    expect(turn.text).toBe('The sum is 5.')
    expect(t.messages.at(-1)).toEqual({ role: 'assistant', content: 'The sum is 5.' })
    expect(t.executed()).toEqual(['add {"a":2,"b":3}'])
    const first = llm.requests[0]
    expect(first.tools).toBeUndefined()
    expect(first.messages[0].role).toBe('system')
    expect(first.messages[0].content).toContain('<tools>')
    expect(first.messages[0].content).toContain('"name":"add"')
    expect(llm.requests[1].messages.at(-1)).toEqual({ role: 'user', content: '<tool_response>\n5\n</tool_response>' })
  })

  test('protocol.ollama + codec.mcp_over_functions: Ollama\'s whole tool_calls, arguments sent back as objects', async () => {
    const llm = await fake('ollama', 'functions')
    const t = host()
    const session = await open(graph('protocol.ollama', 'codec.mcp_over_functions', llm.url), t.h)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.text).toBe('The sum is 5.')
    expect(t.executed()).toHaveLength(1)
    const back = llm.requests[1].messages
    expect(back.at(-2).tool_calls).toEqual([{ function: { name: 'add', arguments: { a: 2, b: 3 } } }])
    expect(back.at(-1)).toEqual({ role: 'tool', content: '5', tool_name: 'add' })
  })

  test('codec.auto detects the xml channel and keeps it for the session', async () => {
    const llm = await fake('openai', 'xml')
    const t = host()
    const session = await open(graph('protocol.openai', 'codec.auto', llm.url), t.h)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.text).toBe('The sum is 5.')
    expect(t.executed()).toEqual(['add {"a":2,"b":3}'])
    expect(turn.trace.find((e) => e.kind === 'detect')?.detail).toEqual({ channel: 'xml' })
    expect(llm.requests[1].messages.at(-1).content).toBe('<tool_response>\n5\n</tool_response>')
    const again = await session.turn('And again?')
    expect(again.trace.some((e) => e.kind === 'detect')).toBe(false)
    expect(t.executed()).toHaveLength(2)
  })

  for (const kind of ['openai', 'ollama'] as const) {
    test(`a model mixing formats (${kind}) gets the tool executed exactly once`, async () => {
      const llm = await fake(kind, 'mixed')
      const t = host()
      const session = await open(graph(kind === 'openai' ? 'protocol.openai' : 'protocol.ollama', 'codec.auto', llm.url), t.h)
      const turn = await session.turn('What is 2 + 3?')
      expect(turn.text).toBe('The sum is 5.')
      expect(t.executed()).toEqual(['add {"a":2,"b":3}'])
      expect(turn.toolCalls).toBe(1)
      const gate = t.events.find((e) => e.type === 'gate') as Extract<FlowEvent, { type: 'gate' }>
      expect(gate.active).toBe('functions')
      expect(gate.dropped.map((u) => `${u.channel}:${u.name}`)).toEqual(['xml:add'])
      expect(t.messages.at(-1)!.content).toBe('The sum is 5.')
    })
  }

  test('a functions codec facing a mixed model also runs the tool once (xml calls dropped)', async () => {
    const llm = await fake('openai', 'mixed')
    const t = host()
    const session = await open(graph('protocol.openai', 'codec.mcp_over_functions', llm.url), t.h)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.text).toBe('The sum is 5.')
    expect(t.executed()).toHaveLength(1)
    expect(session.mode).toBe('normal')
  })
})
