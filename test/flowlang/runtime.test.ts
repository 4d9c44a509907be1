/**
 * Runtime pieces: the one-active-tool-channel gate, XML tool calls, the
 * message shapers, advisor.gate approvals, and the per-turn limits (time,
 * fuel, rounds) — each turn traced.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FlowSession, parseXmlToolCalls, type ApprovalRequest, type FlowHost } from '../../src/flowlang/index.ts'
import { gateRound } from '../../src/flowlang/runtime/codecs.ts'
import { SHAPERS, gateApplies, toolRisk } from '../../src/flowlang/runtime/shapers.ts'
import { startFakeOpenAI, type FakeLlm, type ToolFormat } from './fake-llm.ts'
import { chainGraph, recordingHost } from './helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'flowlang-rt-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => { for (const c of cleanups.splice(0)) await c() })
async function fake(format: ToolFormat, options: { hang?: boolean } = {}): Promise<FakeLlm> {
  const llm = await startFakeOpenAI(format, options)
  cleanups.push(() => llm.close())
  return llm
}
async function open(graph: unknown, host: FlowHost) {
  const s = await FlowSession.open({ graph }, { host })
  cleanups.push(() => s.close())
  return s
}

const XML = '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'

describe('the one-active-tool-channel gate', () => {
  const ids = () => { let n = 0; return () => `id${++n}` }
  const both = { text: `ok ${XML}`, native: [{ id: 'c1', name: 'add', argumentsText: '{"a":1,"b":2}' }] }
  test('a fixed functions channel drops xml calls', () => {
    const g = gateRound(both, 'functions', 'functions', ids())
    expect(g.uses.map((u) => `${u.channel}:${u.name}:${u.id}`)).toEqual(['functions:add:c1'])
    expect(g.dropped.map((u) => u.channel)).toEqual(['xml'])
    expect(g.visible).toBe('ok')
  })
  test('a fixed xml channel drops native calls', () => {
    const g = gateRound(both, 'xml', 'functions', ids())
    expect(g.uses.map((u) => `${u.channel}:${u.name}`)).toEqual(['xml:add'])
    expect(g.uses[0]!.arguments).toEqual({ a: 1, b: 2 })
    expect(g.dropped.map((u) => u.channel)).toEqual(['functions'])
  })
  test('auto: prefer breaks a tie; one channel alone is taken', () => {
    expect(gateRound(both, undefined, 'xml', ids()).active).toBe('xml')
    expect(gateRound({ text: XML, native: [] }, undefined, 'functions', ids()).active).toBe('xml')
    expect(gateRound({ text: 'hi', native: [] }, undefined, 'functions', ids()).active).toBeUndefined()
  })
  test('a call id repeated within a round runs once', () => {
    const twice = { text: '', native: [{ id: 'c1', name: 'add', argumentsText: '{}' }, { id: 'c1', name: 'add', argumentsText: '{}' }] }
    expect(gateRound(twice, 'functions', 'functions', ids()).uses).toHaveLength(1)
  })
  test('xml tool calls: several, string arguments, malformed ones reported', () => {
    const r = parseXmlToolCalls(`a <tool_call>{"name":"x","arguments":"{\\"k\\":1}"}</tool_call> b <tool_call>{oops}</tool_call> ${XML}`)
    expect(r.calls).toEqual([{ name: 'x', arguments: { k: 1 } }, { name: 'add', arguments: { a: 1, b: 2 } }])
    expect(r.malformed).toEqual(['{oops}'])
    expect(r.visible).toBe('a  b')
  })
})

describe('message shapers', () => {
  test('family.qwen3: one leading system message, <think> stripped from history, /no_think switch', () => {
    const out = SHAPERS['family.qwen3']!([
      { role: 'system', content: 'A' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: '<think>hmm</think>\nanswer' },
      { role: 'system', content: 'B' },
      { role: 'user', content: 'q2' },
    ], { thinking: false })
    expect(out).toEqual([
      { role: 'system', content: 'A\n\nB' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'q2 /no_think' },
    ])
    expect(SHAPERS['family.qwen3']!([{ role: 'user', content: 'q /think' }], { thinking: true })).toEqual([{ role: 'user', content: 'q /think' }])
  })
  test('advisor.deliberate adds its prompt to the system message', () => {
    expect(SHAPERS['advisor.deliberate']!([{ role: 'user', content: 'q' }], { prompt: 'Say why.' })).toEqual([{ role: 'system', content: 'Say why.' }, { role: 'user', content: 'q' }])
  })
  test('risk from MCP annotations, and thresholds', () => {
    expect(toolRisk({ name: 'a', inputSchema: {}, annotations: { readOnlyHint: true } })).toBe('low')
    expect(toolRisk({ name: 'a', inputSchema: {} })).toBe('medium')
    expect(toolRisk({ name: 'a', inputSchema: {}, annotations: { destructiveHint: true } })).toBe('high')
    expect([gateApplies('low', 'low'), gateApplies('medium', 'low'), gateApplies('medium', 'medium'), gateApplies('high', 'medium'), gateApplies('high', 'high')]).toEqual([true, false, true, false, true])
  })
  test('the shaper chain runs in wiring order into the protocol', async () => {
    const llm = await fake('none')
    const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
    g.nodes.push({ id: 'd', type: 'advisor.deliberate', options: { prompt: 'Think first.' } } as any)
    g.edges[0] = { from: ['d', 'messages.out'], to: ['p', 'messages.in'] }
    g.edges.push({ from: ['f', 'messages.out'], to: ['d', 'messages.in'] })
    ;(g.nodes[0]!.options as Record<string, unknown>) = { thinking: false }
    const s = await open(g, { ...recordingHost(dir).host, system: 'You are terse.' })
    expect((await s.turn('hi')).text).toBe('Hello.')
    expect(llm.requests[0].messages).toEqual([{ role: 'system', content: 'You are terse.\n\nThink first.' }, { role: 'user', content: 'hi /no_think' }])
  })
})

describe('scheduler.idle_nudge', () => {
  test('an empty round gets one nudge, then the answer', async () => {
    const llm = await fake('silent')
    const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
    g.nodes.push({ id: 'n', type: 'scheduler.idle_nudge', options: {} })
    g.edges[0] = { from: ['n', 'messages.out'], to: ['p', 'messages.in'] }
    g.edges.push({ from: ['f', 'messages.out'], to: ['n', 'messages.in'] })
    const s = await open(g, recordingHost(dir).host)
    const turn = await s.turn('hi')
    expect(turn.text).toBe('Hello.')
    expect(turn.rounds).toBe(2)
    expect(llm.requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'Please continue and give your answer.' })
    expect(turn.trace.filter((e) => e.kind === 'nudge')).toHaveLength(1)
  })
  test('without the block an empty round is the (empty) answer', async () => {
    const llm = await fake('silent')
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), recordingHost(dir).host)
    const turn = await s.turn('hi')
    expect([turn.text, turn.rounds]).toEqual(['', 1])
  })
})

describe('advisor.gate (prePatch)', () => {
  test('a repair of a gated flow needs the host\'s approval', async () => {
    const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1')
    g.nodes.push({ id: 'g', type: 'advisor.gate', options: { when: ['prePatch'] } })
    const asked: ApprovalRequest[] = []
    let answer = false
    const s = await open(g, { approve: (r) => { asked.push(r); return answer } })
    const patch = { edges: g.edges.slice(0, 4) }
    expect((await s.repair(patch)).problems.map((p) => p.name)).toEqual(['REPAIR_DENIED'])
    answer = true
    expect((await s.repair(patch)).adopted).toBe(true)
    expect(asked.map((a) => a.kind)).toEqual(['patch', 'patch'])
  })
})

describe('advisor.gate (preTool)', () => {
  function gated(url: string, threshold: string) {
    const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', url)
    g.nodes.push({ id: 'g', type: 'advisor.gate', options: { threshold, when: ['preTool'] } } as any)
    return g
  }
  test('asks the host before a tool at or above the threshold; a refusal reaches the model, nothing runs', async () => {
    const llm = await fake('functions')
    const asked: ApprovalRequest[] = []
    const t = recordingHost(dir, { approve: (r) => { asked.push(r); return false } })
    const s = await open(gated(llm.url, 'low'), t.host)
    const turn = await s.turn('2 + 3?')
    expect(asked.map((a) => a.kind === 'tool' && `${a.use.name} ${a.risk}`)).toEqual(['add low'])
    expect(t.executed()).toEqual([])
    expect(turn.text).toBe('The sum is The tool call was not approved (advisor.gate g)..')
  })
  test('approved, or below the threshold: the tool runs', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir, { approve: () => true })
    expect((await (await open(gated(llm.url, 'low'), t.host)).turn('2 + 3?')).text).toBe('The sum is 5.')
    const u = recordingHost(dir)
    expect((await (await open(gated(llm.url, 'medium'), u.host)).turn('2 + 3?')).text).toBe('The sum is 5.')
    expect(u.executed()).toHaveLength(1)
  })
})

describe('turn limits and trace', () => {
  test('time: a model that never answers ends the turn with the VM\'s TIMEOUT', async () => {
    const llm = await fake('functions', { hang: true })
    // Room for the MCP tool listing on a loaded machine: only the model never answers, so the limit ends the model round.
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), recordingHost(dir, { limits: { timeoutMs: 1_500 } }).host)
    const started = Date.now()
    const turn = await s.turn('hi')
    expect(turn.error).toMatchObject({ name: 'AgentError', code: 'TIMEOUT', op: 'flowModelRound', hint: 'Raise `limits.timeoutMs` (CLI: --timeout).' })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(turn.trace.at(-1)).toMatchObject({ kind: 'error', detail: { code: 'TIMEOUT' } })
  })
  test('time: an MCP server that never completes its handshake cannot hold the turn', async () => {
    const llm = await fake('functions')
    const host = recordingHost(dir, { limits: { timeoutMs: 300 }, mcpServers: { mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } } }).host
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), host)
    const started = Date.now()
    expect((await s.turn('hi')).error?.code).toBe('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  test('fuel is the VM\'s: 100 per model round, 10 per tool call, 1 for the tool list, plus the program\'s steps', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir)
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), t.host)
    const ok = await s.turn('2 + 3?')
    // two model rounds (2 × 100), one tool call (10), the tool list (1), the codec/shaper atoms and the turn's own steps
    expect(ok.fuelUsed).toBeGreaterThan(2 * 100 + 10 + 1)
    expect(ok.fuelUsed).toBeLessThan(2 * 100 + 10 + 1 + 10)
    const poor = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), recordingHost(dir, { limits: { fuel: 150 } }).host)
    const out = await poor.turn('2 + 3?')
    expect(out.error).toMatchObject({ name: 'AgentError', code: 'FUEL_EXHAUSTED', hint: 'Raise `limits.fuel` (CLI: --fuel), or ask for less work per turn.' })
    expect(out.fuelUsed).toBeLessThanOrEqual(150)
  })
  test('rounds: a model that keeps asking for tools stops at maxRounds', async () => {
    const llm = await fake('functions')
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), recordingHost(dir, { limits: { maxRounds: 1 } }).host)
    expect((await s.turn('2 + 3?')).error?.code).toBe('FLOW6003')
  })
  test('an unreachable model endpoint is FLOW6004, and the trace has every step with its node', async () => {
    const traced: string[] = []
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1'), recordingHost(dir, { onTrace: (e) => traced.push(`${e.node}:${e.kind}`) }).host)
    const turn = await s.turn('hi')
    expect(turn.error?.code).toBe('FLOW6004')
    expect(traced).toEqual(['r:tools', 'p:request', 'p:error'])
  })
})
