/** `ajsc flow …`: the real CLI, including one end-to-end run against a local OpenAI-compatible server. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ajsc, ajscAsync } from '../cli/run-cli.ts'
import { validateAst } from '../../src/vm/index.ts'
import { startOpenAIServer, type OpenAIServer } from './openai-server.ts'

const CORPUS = resolve(import.meta.dir, '../fixtures/vendor/flow-spec-v1')
const dir = mkdtempSync(join(tmpdir(), 'ajs-flow-cli-'))
let server: OpenAIServer
beforeAll(async () => { server = await startOpenAIServer() })
afterAll(async () => { await server.close(); rmSync(dir, { recursive: true, force: true }) })

describe('ajsc flow validate', () => {
  test('valid: exit 0; --json gives { valid, problems }', () => {
    const r = ajsc(['flow', 'validate', '--json', join(CORPUS, 'valid/linear_task_worker.json')])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ command: 'flow validate', ok: true, valid: true, format: 'saved-flow', problems: [] })
  })
  test('invalid: exit 1, every problem located with a code frame on stderr', () => {
    const r = ajsc(['flow', 'validate', join(CORPUS, 'invalid/dangling_edge_caught.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('dangling_edge_caught.json:24:19: error DanglingEdgeTarget:')
    expect(r.stderr).toContain('> 24 |         "target": "missing"')
    const j = JSON.parse(ajsc(['flow', 'validate', '--json', join(CORPUS, 'valid/madrid_weather.json')]).stdout)
    expect(j.valid).toBe(false)
    expect(j.problems.map((p: { rule: string; path: string }) => [p.rule, p.path])).toEqual([
      ['UnsupportedSpecVersion', '/spec_version'], ['InvalidVendorNamespace', '/flow/nodes/2/node_type'],
    ])
  })
  test('a SavedFlow without its graph is reported as one (MissingField), not as an unknown format', () => {
    const j = JSON.parse(ajsc(['flow', 'validate', '--json', join(CORPUS, 'valid/scheduled/morning_brief.json')]).stdout)
    expect(j).toMatchObject({ valid: false, format: 'saved-flow' })
    expect(j.problems.map((p: { rule: string; path: string }) => `${p.rule} ${p.path}`)).toEqual(['MissingField /name', 'MissingField /flow'])
  })
  test('usage errors exit 2; a missing file exits 1', () => {
    expect(ajsc(['flow', 'validate']).code).toBe(2)
    expect(ajsc(['flow', 'compile', '--semantics', 'fast', join(CORPUS, 'valid/linear_task_worker.json')]).code).toBe(2)
    expect(ajsc(['flow', 'validate', 'no-such.json']).code).toBe(1)
  })
})

describe('ajsc flow fmt and compile', () => {
  test('fmt prints the normalized document; --write rewrites the file', () => {
    const src = join(CORPUS, 'valid/vendor_node_type_preserved_through_round_trip.json')
    const r = ajsc(['flow', 'fmt', src])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.spec_version).toBe('1')
    expect(doc.flow.nodes[1]).toEqual({ id: 's', node_type: 'slack:send_message', data: { channel: '#ops' }, position: [0, 0] })
    const copy = join(dir, 'copy.json')
    writeFileSync(copy, readFileSync(src))
    expect(ajsc(['flow', 'fmt', '--write', copy]).code).toBe(0)
    expect(readFileSync(copy, 'utf8')).toBe(r.stdout)
    expect(ajsc(['flow', 'fmt', '--write', copy]).stderr).toContain('already formatted')
  })
  test('compile prints a valid ajs/1 AST', () => {
    const r = ajsc(['flow', 'compile', join(CORPUS, 'valid/linear_task_worker.json')])
    expect(r.code).toBe(0)
    const ast = JSON.parse(r.stdout)
    expect(ast.ajs).toBe(1)
    expect(validateAst(ast)).toEqual([])
  })
})

describe('ajsc flow run against a local OpenAI-compatible server', () => {
  test('a Block flow end to end: templates, structured output, loop, events', async () => {
    const file = join(dir, 'blocks.json')
    writeFileSync(file, JSON.stringify({
      name: 'tags',
      global_input_schema: { fields: [{ name: 'text', type: 'string' }] },
      steps: { type: 'h', children: ['split', { type: 'loop', arrayField: 'tags', children: ['shout'] }] },
      blocks: {
        split: { processor_type: 'llm', prompt: '{{initial.text}}', output_schema: { fields: [{ name: 'tags', type: 'list' }] } },
        shout: { processor_type: 'llm', prompt: 'tag {{tags}}', output_schema: { fields: [{ name: 'tag', type: 'string' }, { name: 'words', type: 'integer' }] } },
      },
    }))
    const before = server.requests.length
    const r = await ajscAsync(['flow', 'run', file, '--llm', server.baseUrl, '--model', 'local-test', '--input', '{"text":"red, green"}', '--json'])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.result).toEqual([{ tag: 'tag red', words: 2 }, { tag: 'tag green', words: 2 }])
    expect(report.events.map((e: { type: string }) => e.type).filter((t: string) => t === 'step_completed').length).toBe(5)
    const sent = server.requests.slice(before)
    expect(sent.length).toBe(3)
    expect(sent[0]).toMatchObject({ model: 'local-test', response_format: { type: 'json_schema' } })
  })
  test('a SavedFlow with --trace prints the events; the result is on stdout', async () => {
    const r = await ajscAsync(['flow', 'run', join(CORPUS, 'valid/linear_task_worker.json'), '--llm', server.baseUrl, '--trace'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      outputs: { 'task-worker': 'echo: Pick up the next unstarted Linear issue and attempt to complete it.' },
      last: 'echo: Pick up the next unstarted Linear issue and attempt to complete it.',
      path: ['entry', 'task-worker'],
    })
    expect(r.stderr).toMatch(/step_completed\s+task-worker\s+fuel \d/)
    expect(r.stderr).toMatch(/flow_completed\s+template-linear-task-worker\s+ok/)
  })
  test('a failing run exits 1 with the code and a flag hint', async () => {
    const r = ajsc(['flow', 'run', join(CORPUS, 'valid/linear_task_worker.json')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('error CAPABILITY_MISSING')
    expect(r.stderr).toContain('--llm')
    const cycle = join(dir, 'cycle.json')
    writeFileSync(cycle, readFileSync(join(CORPUS, 'valid/walk_cycle_terminates.json'), 'utf8').replaceAll('"data": {}', '"data": { "prompt": "go" }'))
    const budget = await ajscAsync(['flow', 'run', cycle, '--max-visits', '3', '--llm', server.baseUrl, '--fuel', '10000'])
    expect(budget.code).toBe(1)
    expect(budget.stderr).toContain('error FLOW_VISIT_BUDGET')
    expect(budget.stderr).toContain('raise --max-visits')
  })
})

describe('ajsc flow schedule', () => {
  test('runs the enabled flows of a directory on their schedule and logs each run', async () => {
    const store = join(dir, 'store')
    mkdirSync(store)
    const flow = (id: string, data: Record<string, unknown>, enabled = true) => JSON.stringify({
      id, name: id, created_at: 'c', updated_at: 'u', enabled, flow: { nodes: [{ id: 'e', node_type: 'entry', data }], edges: [] },
    })
    writeFileSync(join(store, 'tick.json'), flow('tick', { schedule_type: 'cron', cron: '* * * * * *' }))
    writeFileSync(join(store, 'off.json'), flow('off', { schedule_type: 'cron', cron: '* * * * * *' }, false))
    writeFileSync(join(store, 'wrong-name.json'), flow('tock', { schedule_type: 'manual' }))
    const r = await ajscAsync(['flow', 'schedule', store, '--duration', '2200', '--json'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.find((l) => l.event === 'rejected')).toMatchObject({ rule: 'InvalidFlowId' })
    expect(lines.find((l) => l.event === 'disabled')).toEqual({ event: 'disabled', flow: 'off' })
    expect(lines.find((l) => l.event === 'scheduled')).toMatchObject({ flow: 'tick', schedule: 'cron * * * * * *' })
    expect(lines.filter((l) => l.event === 'completed' && l.flow === 'tick').length).toBeGreaterThanOrEqual(1)
  })
})
