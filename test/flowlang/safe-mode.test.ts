/**
 * Safe Mode: a broken flow (or an unsupported tool use) suspends the
 * user's graph, the baseline chain runs and a system message says why;
 * repairs are guarded, re-validated, and a valid one leaves Safe Mode —
 * in process and through a real MCP client talking to
 * `ajsc flowlang serve-tools`.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { FlowSession, validateFlowGraph } from '../../src/flowlang/index.ts'
import { startFakeOpenAI, type FakeLlm, type ToolFormat } from './fake-llm.ts'
import { chainGraph, recordingHost } from './helpers.ts'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')
const dir = mkdtempSync(join(tmpdir(), 'flowlang-safe-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => { for (const c of cleanups.splice(0)) await c() })

async function fake(format: ToolFormat, options: Parameters<typeof startFakeOpenAI>[1] = {}): Promise<FakeLlm> {
  const llm = await startFakeOpenAI(format, options)
  cleanups.push(() => llm.close())
  return llm
}
function track(session: FlowSession): FlowSession {
  cleanups.push(() => session.close())
  return session
}
/** The chain graph with one edge from a misspelled port. */
function broken(baseUrl: string) {
  const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', baseUrl, 'mine')
  g.edges[4] = { from: ['x', 'messages.outt'], to: ['sink', 'messages.out'] }
  return g
}

describe('Safe Mode', () => {
  test('a broken edit falls back to the baseline, says why, and the turn still reaches tools and the sink', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir)
    const session = track(await FlowSession.open({ graph: chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url, 'mine') }, { host: t.host }))
    expect(session.mode).toBe('normal')
    await session.load({ graph: broken(llm.url) })
    expect(session.mode).toBe('safe')
    expect(session.notice).toStartWith('Safe Mode: the flow failed validation: FLOW2003 `codec.mcp_over_functions` has no output port `messages.outt` at /edges/4/from/1.')
    expect(session.notice).toContain('Suggested action: fix the flow file, or call flow_repair')
    expect(t.messages[0]).toEqual({ role: 'system', content: session.notice! })
    expect(session.graph!.name).toBe('baseline')
    expect(session.graph!.nodes.map((n) => n.type)).toEqual(['protocol.openai', 'codec.auto', 'router.mcp', 'sink.ui.messages'])
    expect(session.graph!.nodes[0]!.options.baseUrl).toBe(llm.url)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.mode).toBe('safe')
    expect(turn.notice).toBe(session.notice!)
    expect(turn.text).toBe('The sum is 5.')
    expect(t.messages.at(-1)).toEqual({ role: 'assistant', content: 'The sum is 5.' })
    expect(t.executed()).toHaveLength(1)
  })

  test('a flow script that fails to run starts the session in Safe Mode', async () => {
    const llm = await fake('none')
    const t = recordingHost(dir)
    const source = `export default function build({ blocks }) {\n  const p = blocks.protocol.openai({ baseUrl: '${llm.url}' })\n  throw new Error('no provider configured')\n}`
    const baseline = { type: 'protocol.openai' as const, options: { baseUrl: llm.url } }
    const session = track(await FlowSession.open({ source, filename: 'bad.flow.js' }, { host: t.host, baseline }))
    expect(session.mode).toBe('safe')
    expect(session.problems.map((p) => `${p.name} ${p.path}`)).toEqual(['SCRIPT_RUNTIME 3:2'])
    expect(session.notice).toContain('no provider configured')
    const turn = await session.turn('hi')
    expect(turn.text).toBe('Hello.')
  })

  test('tool calls in a format the codec cannot route: Safe Mode, and the turn runs again on the baseline', async () => {
    const llm = await fake('xml')
    const t = recordingHost(dir)
    const session = track(await FlowSession.open({ graph: chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url) }, { host: t.host }))
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.mode).toBe('safe')
    expect(session.notice).toContain('unsupported tool use: add (xml)')
    expect(turn.text).toBe('The sum is 5.')
    expect(t.executed()).toEqual(['add {"a":2,"b":3}'])
  })

  test('a tool no MCP server offers is an unsupported tool use', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir, { mcpServers: {} })
    const session = track(await FlowSession.open({ graph: chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url) }, { host: t.host }))
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.unsupported).toEqual(['add'])
    expect(session.mode).toBe('safe')
    expect(session.notice).toContain('unsupported tool use: add')
    expect(llm.requests[1].messages.at(-1).content).toBe('unsupported tool use `add`: no MCP server offers it')
  })

  test('session.repair adopts a valid patch and leaves Safe Mode; refuses kernel and base URL changes', async () => {
    const llm = await fake('functions')
    const t = recordingHost(dir)
    const session = track(await FlowSession.open({ graph: broken(llm.url) }, { host: t.host }))
    expect(session.mode).toBe('safe')
    const good = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url)
    const noRouter = await session.repair({ nodes: good.nodes.filter((n) => n.id !== 'r'), edges: good.edges.filter((e) => e.to[0] !== 'r' && e.from[0] !== 'r') })
    expect(noRouter.adopted).toBe(false)
    expect(noRouter.problems.map((p) => p.name)).toEqual(['REPAIR_KERNEL'])
    const moved = await session.repair({ nodes: good.nodes.map((n) => (n.id === 'p' ? { ...n, options: { ...n.options, baseUrl: 'http://evil.example/v1' } } : n)), edges: good.edges })
    expect(moved.problems.map((p) => `${p.name} ${p.path}`)).toEqual(['REPAIR_IMMUTABLE /patch/nodes/1/options/baseUrl'])
    const stillBroken = await session.repair({ nodes: [{ id: 'x', type: 'codec.nope' }] })
    expect(stillBroken.adopted).toBe(false)
    expect(session.mode).toBe('safe')
    const fixed = await session.repair({ edges: good.edges })
    expect(fixed.adopted).toBe(true)
    expect(session.mode).toBe('normal')
    expect(t.messages.at(-1)!.content).toBe('Safe Mode off: the flow `mine` is valid again.')
    expect((await session.turn('What is 2 + 3?')).text).toBe('The sum is 5.')
  })
})

describe('flow_repair through a real MCP client (ajsc flowlang serve-tools)', () => {
  async function connect(root: string): Promise<Client> {
    const client = new Client({ name: 'flowlang-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, 'flowlang', 'serve-tools', '--root', root], stderr: 'pipe' }))
    cleanups.push(() => client.close())
    return client
  }
  const parse = (res: any) => JSON.parse(res.content[0].text)

  test('lists its tools, adopts a valid patch, refuses removing router.mcp, a base URL change and paths outside the root', async () => {
    const root = mkdtempSync(join(dir, 'root-'))
    const file = join(root, 'flow.json')
    writeFileSync(file, JSON.stringify(broken('http://127.0.0.1:9/v1')))
    const client = await connect(root)
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(['flow_repair', 'flow_validate'])
    expect(parse(await client.callTool({ name: 'flow_validate', arguments: { path: 'flow.json' } })).problems.map((p: any) => p.code)).toEqual(['FLOW2003'])

    const good = chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1', 'mine')
    const noRouter = await client.callTool({ name: 'flow_repair', arguments: { path: 'flow.json', patch: { nodes: good.nodes.filter((n) => n.type !== 'router.mcp') } } })
    expect(noRouter.isError).toBe(true)
    expect(parse(noRouter)).toMatchObject({ adopted: false, problems: [{ code: 'FLOW5002', name: 'REPAIR_KERNEL' }] })
    const moved = await client.callTool({ name: 'flow_repair', arguments: { path: 'flow.json', patch: { nodes: good.nodes.map((n) => (n.id === 'p' ? { ...n, options: { base: 'http://10.0.0.1/v1' } } : n)), edges: good.edges } } })
    expect(parse(moved).problems.map((p: any) => p.name)).toEqual(['REPAIR_IMMUTABLE'])
    const outside = await client.callTool({ name: 'flow_repair', arguments: { path: '../x.json', patch: { edges: good.edges } } })
    expect(parse(outside).problems.map((p: any) => p.name)).toEqual(['REPAIR_PATH'])
    const invalid = await client.callTool({ name: 'flow_repair', arguments: { path: 'flow.json', patch: { edges: [good.edges[0]] } } })
    expect(parse(invalid).problems.map((p: any) => p.name)).toEqual(['KERNEL_WIRING', 'KERNEL_WIRING', 'KERNEL_WIRING'])
    expect(validateFlowGraph(JSON.parse(readFileSync(file, 'utf8'))).valid).toBe(false) // nothing written so far

    const ok = await client.callTool({ name: 'flow_repair', arguments: { path: 'flow.json', patch: { edges: good.edges } } })
    expect(ok.isError).toBe(false)
    expect(parse(ok)).toMatchObject({ adopted: true, written: 'flow.json' })
    expect(validateFlowGraph(JSON.parse(readFileSync(file, 'utf8'))).valid).toBe(true)
  })

  test('a session on the file leaves Safe Mode on the turn after flow_repair rewrote it', async () => {
    const llm = await fake('functions')
    const root = mkdtempSync(join(dir, 'root-'))
    const file = join(root, 'flow.json')
    writeFileSync(file, JSON.stringify(broken(llm.url)))
    const t = recordingHost(dir)
    const session = track(await FlowSession.open({ path: file }, { host: t.host }))
    expect(session.mode).toBe('safe')
    const client = await connect(root)
    const good = chainGraph('protocol.openai', 'codec.mcp_over_functions', llm.url, 'mine')
    expect(parse(await client.callTool({ name: 'flow_repair', arguments: { path: 'flow.json', patch: { edges: good.edges } } })).adopted).toBe(true)
    const turn = await session.turn('What is 2 + 3?')
    expect(turn.mode).toBe('normal')
    expect(session.graph!.name).toBe('mine')
    expect(turn.text).toBe('The sum is 5.')
  })

  test('in Safe Mode the model repairs its own flow through router.mcp and the next turn runs the user\'s graph', async () => {
    const root = mkdtempSync(join(dir, 'root-'))
    const file = join(root, 'flow.json')
    // The model's patch: the user's edges with the misspelled port fixed.
    const edges = chainGraph('protocol.openai', 'codec.mcp_over_functions', 'unused').edges
    const repairLlm = await fake('functions', { call: { name: 'flow_repair', arguments: { path: 'flow.json', patch: { edges } } } })
    writeFileSync(file, JSON.stringify(broken(repairLlm.url)))
    const session = track(await FlowSession.open({ path: file }, {
      host: { mcpServers: { flowtools: { command: process.execPath, args: [MAIN, 'flowlang', 'serve-tools', '--root', root] } }, limits: { timeoutMs: 15_000 } },
    }))
    expect(session.mode).toBe('safe')
    const turn = await session.turn('The flow is broken; repair it.')
    expect(turn.mode).toBe('safe')
    expect(JSON.parse(repairLlm.requests[1].messages.at(-1).content)).toMatchObject({ adopted: true, written: 'flow.json' })
    const next = await session.turn('Hello again')
    expect(next.mode).toBe('normal')
    expect(session.graph!.name).toBe('mine')
  })
})
