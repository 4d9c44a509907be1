/**
 * FlowLang on the AgentVM: a turn is an "ajs/1" program (valid by
 * validateAst) whose fuel, time limit, cancellation, trace and errors are
 * the VM's, and whose tool calls go through a capability the host controls.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { validateAst } from '../../src/ast/validate.ts'
import { AgentVM } from '../../src/vm/agent-vm.ts'
import { FlowSession, baselineGraph, compileTurnProgram, flowlangLibrary, validateFlowGraph, type FlowHost, type McpCapability } from '../../src/flowlang/index.ts'
import { startFakeOpenAI, type FakeLlm, type ToolFormat } from './fake-llm.ts'
import { chainGraph, recordingHost } from './helpers.ts'

const dir = mkdtempSync(join(tmpdir(), 'flowlang-vm-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => { for (const c of cleanups.splice(0)) await c() })
async function fake(format: ToolFormat): Promise<FakeLlm> {
  const llm = await startFakeOpenAI(format)
  cleanups.push(() => llm.close())
  return llm
}
async function open(graph: unknown, host: FlowHost) {
  const s = await FlowSession.open({ graph }, { host })
  cleanups.push(() => s.close())
  return s
}

const ADD = { name: 'add', description: 'a + b', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }

/** A tools capability of the host's own: no MCP server, every call recorded. */
function addTool(run: (args: Record<string, unknown>, signal: AbortSignal) => Promise<string> | string = (a) => String(Number(a.a) + Number(a.b))) {
  const calls: Array<{ name: string; arguments: Record<string, unknown>; signal: AbortSignal }> = []
  const mcp: McpCapability = {
    tools: () => [ADD],
    async call(use, { signal }) {
      calls.push({ name: use.name, arguments: use.arguments, signal })
      if (use.name !== 'add') return undefined
      return { id: use.id, name: use.name, content: await run(use.arguments, signal), isError: false }
    },
  }
  return { mcp, calls }
}

function graphs(url: string) {
  const full = chainGraph('protocol.openai', 'codec.auto', url, 'full')
  full.nodes.push(
    { id: 'n', type: 'scheduler.idle_nudge', options: {} },
    { id: 'g', type: 'advisor.gate', options: { threshold: 'high', when: ['preTool'] } },
    { id: 't', type: 'tools.negotiation_advertise', options: { tools: ['add'] } },
  )
  full.edges[0] = { from: ['n', 'messages.out'], to: ['p', 'messages.in'] }
  full.edges.push({ from: ['g', 'messages.out'], to: ['n', 'messages.in'] }, { from: ['f', 'messages.out'], to: ['g', 'messages.in'] })
  return {
    functions: chainGraph('protocol.openai', 'codec.mcp_over_functions', url),
    xml: chainGraph('protocol.ollama', 'codec.mcp_over_xml', url),
    full,
  }
}

describe('the turn program', () => {
  test('every graph compiles to an ajs/1 program that passes validateAst', () => {
    const all = { ...graphs('http://127.0.0.1:9/v1'), baseline: baselineGraph({ type: 'protocol.openai' }) }
    for (const [name, raw] of Object.entries(all)) {
      const v = validateFlowGraph(raw)
      expect({ name, problems: v.problems }).toEqual({ name, problems: [] })
      const program = compileTurnProgram(v.graph)
      expect({ name, problems: validateAst(program) }).toEqual({ name, problems: [] })
      expect(program).toMatchObject({ ajs: 1, op: 'seq' })
      expect(program.atoms).toContain('flowModelRound')
      expect(program.atoms).toContain('flowToolCall')
      // JSON all the way: it survives a round trip unchanged.
      expect(JSON.parse(JSON.stringify(program))).toEqual(program)
    }
  })

  test('it declares the flowlang runtime library: a VM without it refuses the program before running it', async () => {
    const program = compileTurnProgram(validateFlowGraph(chainGraph('protocol.openai', 'codec.auto', 'http://127.0.0.1:9/v1')).graph)
    expect(program.libraries).toEqual({ flowlang: 1 })
    const args = { history: [], input: 'hi', turn: 1, channel: null, maxRounds: 8, system: null }
    const bare = await new AgentVM().run(program, args)
    expect(bare.error).toMatchObject({ name: 'AgentError', code: 'LIBRARY_MISSING' })
    expect(bare.fuelUsed).toBe(0)
    // With the library but without the host's capabilities, the first block fails cleanly.
    const noHost = await new AgentVM([], { libraries: [flowlangLibrary] }).run(program, args)
    expect(noHost.error?.op).toBe('flowTools')
  })

  test('a session exposes the program its turns run', async () => {
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1'), {})
    expect(validateAst(s.program!)).toEqual([])
  })
})

describe('tool calls go through the host\'s tools capability', () => {
  test('a host-provided `mcp` capability answers the tool call; no MCP server is started', async () => {
    const llm = await fake('functions')
    const tools = addTool()
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), { mcp: tools.mcp })
    const turn = await s.turn('2 + 3?')
    expect(turn.error).toBeUndefined()
    expect(turn.text).toBe('The sum is 5.')
    expect(tools.calls.map((c) => [c.name, c.arguments])).toEqual([['add', { a: 2, b: 3 }]])
    expect(llm.requests[0].tools.map((t: any) => t.function.name)).toEqual(['add'])
  })

  test('a tool the capability does not offer is an unsupported tool use (Safe Mode), never executed', async () => {
    const llm = await startFakeOpenAI('functions', { call: { name: 'wipe', arguments: {} } })
    cleanups.push(() => llm.close())
    const tools = addTool()
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), { mcp: tools.mcp })
    const turn = await s.turn('wipe it')
    expect(turn.unsupported).toContain('wipe')
    expect(turn.mode).toBe('safe')
    expect(tools.calls).toEqual([])
  })

  test('a capability that throws fails the turn with the VM\'s CAPABILITY_ERROR', async () => {
    const llm = await fake('functions')
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), { mcp: { tools: () => [ADD], call: () => { throw new Error('policy says no') } } })
    const turn = await s.turn('2 + 3?')
    expect(turn.error).toMatchObject({ name: 'AgentError', code: 'CAPABILITY_ERROR', op: 'flowToolCall' })
    expect(turn.error?.message).toContain('policy says no')
    expect(s.history).toEqual([])
  })
})

describe('fuel, time, cancellation and trace are the VM\'s', () => {
  test('a turn\'s fuel is the VM meter\'s: deterministic, costOverrides apply, exhaustion is FUEL_EXHAUSTED', async () => {
    const llm = await fake('functions')
    const graph = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
    const a = await (await open(graph, { mcp: addTool().mcp })).turn('2 + 3?')
    const b = await (await open(graph, { mcp: addTool().mcp })).turn('2 + 3?')
    expect(a.fuelUsed).toBe(b.fuelUsed)
    const cheap = await (await open(graph, { mcp: addTool().mcp, costOverrides: { flowModelRound: 0, flowToolCall: 0 } })).turn('2 + 3?')
    expect(cheap.text).toBe('The sum is 5.')
    expect(a.fuelUsed - cheap.fuelUsed).toBeCloseTo(2 * 100 + 10, 6)
    const tools = addTool()
    const poor = await (await open(graph, { mcp: tools.mcp, limits: { fuel: 150 } })).turn('2 + 3?')
    expect(poor.error).toMatchObject({ name: 'AgentError', code: 'FUEL_EXHAUSTED' })
    expect(poor.error?.hint).toContain('--fuel')
    expect(poor.rounds).toBe(1)
    // 150 fuel: the first round (100), the tool list (1) and the tool call (10) ran; the second round's 100 did not fit.
    expect(tools.calls).toHaveLength(1)
  })

  test('an AbortSignal cancels a turn in the middle of a tool call: ABORTED, and the tool sees the abort', async () => {
    const llm = await fake('functions')
    const controller = new AbortController()
    let sawAbort = false
    const tools = addTool((_args, signal) => new Promise((resolve) => {
      setTimeout(() => controller.abort(), 20)
      signal.addEventListener('abort', () => { sawAbort = true; resolve('too late') })
    }))
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), { mcp: tools.mcp })
    const started = Date.now()
    const turn = await s.turn('2 + 3?', { signal: controller.signal })
    expect(turn.error).toMatchObject({ name: 'AgentError', code: 'ABORTED', op: 'flowToolCall' })
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(sawAbort).toBe(true)
    expect(llm.requests).toHaveLength(1)
    expect(turn.trace.map((e) => e.kind)).toEqual(['tools', 'request', 'response', 'tool_use', 'error'])
    expect(s.history).toEqual([])
  })

  test('the time limit stops a tool call that never answers: TIMEOUT', async () => {
    const llm = await fake('functions')
    let sawAbort = false
    const tools = addTool((_args, signal) => new Promise(() => { signal.addEventListener('abort', () => { sawAbort = true }) }))
    const s = await open(chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url), { mcp: tools.mcp, limits: { timeoutMs: 200 } })
    const turn = await s.turn('2 + 3?')
    expect(turn.error).toMatchObject({ name: 'AgentError', code: 'TIMEOUT', op: 'flowToolCall' })
    expect(sawAbort).toBe(true)
  })

  test('with host.trace the turn carries the VM trace: every step with its fuel, the atoms included', async () => {
    const llm = await fake('functions')
    const graph = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
    const traced = await (await open(graph, { mcp: addTool().mcp, trace: true })).turn('2 + 3?')
    const ops = traced.vmTrace!.map((e) => e.op)
    expect(ops.filter((op) => op === 'flowModelRound')).toHaveLength(2)
    expect(ops.filter((op) => op === 'flowToolCall')).toHaveLength(1)
    expect(traced.vmTrace!.find((e) => e.op === 'flowModelRound')!.fuel).toBeGreaterThanOrEqual(100)
    expect(traced.vmTrace!.at(-1)!.fuelTotal).toBeLessThanOrEqual(traced.fuelUsed)
    const plain = await (await open(graph, { mcp: addTool().mcp })).turn('2 + 3?')
    expect(plain.vmTrace).toBeUndefined()
    // The FlowLang trace is there either way.
    expect(plain.trace.map((e) => e.kind)).toEqual(traced.trace.map((e) => e.kind))
  })

  test('the full graph (auto codec, nudge, gate, advertise filter) runs on the VM too', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir)
    const s = await open(graphs(llm.url).full, t.host)
    const turn = await s.turn('2 + 3?')
    expect(turn.error).toBeUndefined()
    expect(turn.text).toBe('The sum is 5.')
    expect(turn.trace.map((e) => e.kind)).toEqual(['tools', 'request', 'response', 'detect', 'tool_use', 'tool_result', 'request', 'response', 'final'])
  })
})
