/** Shared pieces of the FlowLang runtime tests: a recording host with the test MCP server, and graphs. */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ChatMessage, FlowEvent, FlowHost } from '../../src/flowlang/index.ts'

export const MCP_FIXTURE = resolve(import.meta.dir, 'fixtures/mcp-tools.ts')

let n = 0
/** A host whose MCP server logs every execution to a file in `dir`, with sinks recorded. */
export function recordingHost(dir: string, extra: Partial<FlowHost> = {}) {
  const calls = join(dir, `calls-${process.pid}-${++n}.log`)
  const messages: ChatMessage[] = []
  const events: FlowEvent[] = []
  const host: FlowHost = {
    mcpServers: { tools: { command: process.execPath, args: [MCP_FIXTURE], env: { FLOWLANG_CALLS: calls } } },
    onMessage: (m) => messages.push(m),
    onEvent: (e) => events.push(e),
    limits: { timeoutMs: 15_000 },
    ...extra,
  }
  const executed = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [])
  return { host, messages, events, executed, calls }
}

/** protocol → codec → router.mcp → sink, with a family.qwen3 shaper. */
export function chainGraph(protocol: string, codec: string, baseUrl: string, name = 'chain') {
  const g: { version: number; name: string; nodes: Array<{ id: string; type: string; options: Record<string, unknown> }>; edges: Array<{ from: string[]; to: string[] }> } = {
    version: 1,
    name,
    nodes: [
      { id: 'f', type: 'family.qwen3', options: {} },
      { id: 'p', type: protocol, options: { baseUrl, model: 'qwen3' } },
      { id: 'x', type: codec, options: {} },
      { id: 'r', type: 'router.mcp', options: {} },
      { id: 'sink', type: 'sink.ui.messages', options: {} },
    ],
    edges: [
      { from: ['f', 'messages.out'], to: ['p', 'messages.in'] },
      { from: ['p', 'stream.delta'], to: ['x', 'stream.delta'] },
      { from: ['x', 'tool_use.neutral'], to: ['r', 'tool_use.neutral'] },
      { from: ['r', 'tool_result.neutral'], to: ['x', 'tool_result.neutral'] },
      { from: ['x', 'messages.out'], to: ['sink', 'messages.out'] },
    ],
  }
  return g
}
