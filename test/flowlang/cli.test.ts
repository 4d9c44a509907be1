/** `ajsc flowlang validate|run` as a user types them (the real CLI process). */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajsc, ajscAsync } from '../cli/run-cli.ts'
import { startFakeOpenAI } from './fake-llm.ts'
import { chainGraph, MCP_FIXTURE } from './helpers.ts'

const CORPUS = resolve(import.meta.dir, '../fixtures/vendor/flowlang')
const dir = mkdtempSync(join(tmpdir(), 'flowlang-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ajsc flowlang validate', () => {
  test('a valid .flow file: exit 0', () => {
    const r = ajsc(['flowlang', 'validate', join(CORPUS, 'ollama-qwen.flow')])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('valid (6 nodes, 5 edges)')
  })

  test('an invalid graph: exit 1, every problem with code, pointer and hint', () => {
    const r = ajsc(['flowlang', 'validate', join(CORPUS, 'graph-json/invalid/multiple-writers.graph.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error FLOW2006: /edges/6: Input `x.stream.delta` has 2 writers')
    expect(r.stderr).toContain('error FLOW3002: /nodes/6:')
  })

  test('--json prints { valid, graph, problems } in the common report', () => {
    const r = ajsc(['flowlang', 'validate', '--json', join(CORPUS, 'graph-json/invalid/port-type-mismatch.graph.json')])
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ command: 'flowlang validate', ok: false, exitCode: 1, valid: false })
    expect(report.problems.map((p: any) => `${p.code} ${p.path}`)).toEqual(['FLOW2005 /edges/1'])
    expect(report.graph.nodes).toHaveLength(6)
    expect(report.diagnostics[0]).toMatchObject({ severity: 'error', code: 'FLOW2005', path: '/edges/1' })
  })

  test('--var sets .flow variables; text problems are located with a frame', () => {
    const r = ajsc(['flowlang', 'validate', '--var', 'provider=lmstudio', join(CORPUS, 'conditional-provider.flow')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('conditional-provider.flow:15:24: error FLOW2002: No node has the id `x`')
    expect(r.stderr).toContain('> 15 | link p.stream.delta -> x.stream.delta')
  })

  test('a flow script, and a missing file', () => {
    const file = join(dir, 'mine.flow.js')
    writeFileSync(file, 'export default function build({ blocks }) {\n  const r = blocks.router.mcpp()\n  return r\n}\n')
    const r = ajsc(['flowlang', 'validate', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('mine.flow.js:2:13: error FLOW4003')
    const missing = ajsc(['flowlang', 'validate', join(dir, 'nope.json'), '--json'])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).diagnostics[0].code).toBe('CLI_NOT_FOUND')
  })
})

describe('ajsc flowlang run', () => {
  test('--llm, --model and --mcp: the answer on stdout, the tool run by the MCP server', async () => {
    const llm = await startFakeOpenAI('functions')
    try {
      const file = join(dir, 'run.json')
      writeFileSync(file, JSON.stringify(chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1')))
      const r = await ajscAsync(['flowlang', 'run', file, '--prompt', 'What is 2 + 3?', '--llm', llm.url, '--model', 'qwen3-8b', '--mcp', `"${process.execPath}" "${MCP_FIXTURE}"`])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('The sum is 5.\n')
      expect(llm.requests[0].model).toBe('qwen3-8b')
      const json = await ajscAsync(['flowlang', 'run', file, '--json', '--prompt', 'What is 2 + 3?', '--llm', llm.url, '--mcp', `${process.execPath} ${MCP_FIXTURE}`])
      expect(JSON.parse(json.stdout)).toMatchObject({ command: 'flowlang run', ok: true, mode: 'normal', answer: 'The sum is 5.', rounds: 2, toolCalls: 1 })
    } finally {
      await llm.close()
    }
  })

  test('a broken flow runs in Safe Mode and says why on stderr; a dead endpoint exits 1 naming --llm', async () => {
    const file = join(dir, 'broken.json')
    const g = chainGraph('protocol.openai', 'codec.mcp_over_functions', 'http://127.0.0.1:9/v1')
    g.edges.pop()
    g.nodes.push({ id: 'z', type: 'codec.nope', options: {} })
    writeFileSync(file, JSON.stringify(g))
    const r = await ajscAsync(['flowlang', 'run', file, '--prompt', 'hi', '--timeout', '5000'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Safe Mode: the flow failed validation: FLOW2001 Unknown block type `codec.nope`')
    expect(r.stderr).toContain('error FLOW6004')
    expect(r.stderr).toContain('--llm URL --model NAME')
    const usage = ajsc(['flowlang', 'run', file])
    expect(usage.code).toBe(2)
    // A missing flow file is the user's CLI_NOT_FOUND (exit 1), not an internal error.
    const missing = ajsc(['flowlang', 'run', join(dir, 'nope.json'), '--prompt', 'hi'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('error CLI_NOT_FOUND')
  })
})
