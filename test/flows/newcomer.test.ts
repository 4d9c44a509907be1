/**
 * Issue 29, items 1 and 2: `ajsc flow validate` refuses what `flow run` / `flow compile` refuse
 * (one checker), and a SavedFlow branch that no edge follows never ends silently.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from '../cli/run-cli.ts'
import { checkFlow, runFlow } from '../../src/flows/index.ts'
import { fakeLLM } from './fake-llm.ts'

const dir = mkdtempSync(join(tmpdir(), 'ajs-flow-newcomer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const write = (name: string, doc: unknown) => {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(doc, null, 2))
  return file
}
const saved = (nodes: Array<[string, string, Record<string, unknown>?]>, edges: Array<[string, string, string?]>) => ({
  id: 'newcomer', name: 'Newcomer', created_at: 'c', updated_at: 'u',
  flow: {
    nodes: nodes.map(([id, node_type, data]) => ({ id, node_type, data: data ?? {} })),
    edges: edges.map(([source, target, handle], i) => ({ id: `e${i}`, source, target, ...(handle ? { source_handle: handle } : {}) })),
  },
})
const code = (content: string, inputs: string[]) => ({ processor_type: 'code', content, input_schema: { fields: inputs.map((name) => ({ name })) } })

/** validate, compile and run all refuse the document, with the same rule. */
function refusedByAll(file: string, rule: string) {
  const v = ajsc(['flow', 'validate', '--json', file])
  expect(v.code).toBe(1)
  const report = JSON.parse(v.stdout)
  expect(report.valid).toBe(false)
  expect(report.problems.map((p: { rule: string }) => p.rule)).toContain(rule)
  const c = ajsc(['flow', 'compile', '--json', file])
  expect(c.code).toBe(1)
  const r = ajsc(['flow', 'run', '--json', file, '--input', '{"a":1}'])
  expect(r.code).toBe(1)
  expect(JSON.stringify(JSON.parse(r.stdout).diagnostics)).toContain(rule)
  return report.problems as Array<{ rule: string; path: string; message: string; hint?: string; line?: number }>
}

describe('1. validate runs every check compile and run make', () => {
  test('a branch condition naming an undeclared variable: InvalidCondition from validate', () => {
    const file = write('condition.json', saved([['in', 'entry'], ['b', 'branch', { condition: 'count > 3' }], ['p', 'prompt', { prompt: 'x' }]], [['in', 'b'], ['b', 'p', 'true']]))
    const [p] = refusedByAll(file, 'InvalidCondition')
    expect(p).toMatchObject({ path: '/flow/nodes/1/data/condition', line: expect.any(Number) })
  })
  test('Python outside the subset in a code block: InvalidCode (AJS7004) from validate', () => {
    const file = write('python.json', { steps: ['a'], blocks: { a: code('class A:\n    pass\nreturn {}', []) } })
    const [p] = refusedByAll(file, 'InvalidCode')
    expect(p!.message).toContain('AJS7004')
  })
  test('a first code block whose parameters are not the global input: BlockInputMismatch with a wiring hint', () => {
    const doc = { global_input_schema: { fields: [{ name: 'x' }, { name: 'extra' }] }, steps: ['a'], blocks: { a: code('return {"y": x}', ['x', 'z']) } }
    const [p] = refusedByAll(write('wiring.json', doc), 'BlockInputMismatch')
    expect(p!.path).toBe('/blocks/a/input_schema')
    expect(p!.message).toContain(`unexpected keyword argument 'extra'`)
    expect(p!.message).toContain(`missing required argument 'z'`)
    expect(p!.hint).toContain('"x", "extra"')
    expect(p!.hint).not.toContain('try/except')
  })
  test('the wiring is followed through llm outputs, passthrough, v containers and loops', () => {
    const llm = (fields: string[]) => ({ processor_type: 'llm', prompt: 'p', output_schema: { fields: fields.map((name) => ({ name })) } })
    const rules = (doc: unknown) => checkFlow(doc).problems.map((p) => `${p.rule} ${p.path}`)
    expect(rules({ steps: ['l', 'pass', 'c'], blocks: { l: llm(['n']), pass: { processor_type: 'passthrough' }, c: code('return {}', ['n']) } })).toEqual([])
    expect(rules({ steps: ['l', 'c'], blocks: { l: llm(['n']), c: code('return {}', ['m']) } })).toEqual(['BlockInputMismatch /blocks/c/input_schema'])
    expect(rules({ steps: [{ type: 'v', children: ['l', 'k'] }, 'c'], blocks: { l: llm(['n']), k: llm(['m']), c: code('return {}', ['l', 'k']) } })).toEqual([])
    expect(rules({ steps: [{ type: 'loop', arrayField: 'xs', children: ['p'] }, 'c'], blocks: { p: { processor_type: 'passthrough' }, c: code('return {}', []) } })).toEqual(['BlockInputMismatch /blocks/c/input_schema'])
    // After a code block the keys are only known at run: nothing is claimed.
    expect(rules({ steps: ['a', 'b'], blocks: { a: code('return {"q": 1}', []), b: code('return {}', ['n']) } })).toEqual([])
  })
  test('at run, a code block fed keys it does not take is FLOW_BLOCK_INPUT with a wiring hint, not an exception to catch', async () => {
    const r = await runFlow({ steps: ['a'], blocks: { a: code('return {"x": x}', ['x']) } }, { x: 1, extra: 2 })
    expect(r.error?.code).toBe('FLOW_BLOCK_INPUT')
    expect(r.error!.message).toContain("TypeError: _block() got an unexpected keyword argument 'extra'")
    expect(r.error!.message).toContain('the global input')
    expect(r.error!.hint).toContain('input_schema')
    expect(r.error!.hint).not.toContain('try/except')
  })
  test('a valid flow stays valid', () => {
    const file = write('ok.json', { global_input_schema: { fields: [{ name: 'x' }] }, steps: ['a'], blocks: { a: code('return {"y": x}', ['x']) } })
    const v = ajsc(['flow', 'validate', file])
    expect(v.code).toBe(0)
    expect(v.stderr).toContain('valid blocks flow')
  })
})

describe('2. a SavedFlow branch no edge follows', () => {
  test('yes/no handles on a branch node: validate refuses them with the true/false fix', () => {
    const doc = saved([['in', 'entry'], ['b', 'branch', { condition: 'Is it sunny?' }], ['y', 'prompt', { prompt: 'sun' }], ['n', 'prompt', { prompt: 'rain' }]],
      [['in', 'b'], ['b', 'y', 'yes'], ['b', 'n', 'no']])
    const problems = refusedByAll(write('yesno.json', doc), 'UnmatchedBranchHandle')
    expect(problems.map((p) => p.path)).toEqual(['/flow/edges/1/source_handle', '/flow/edges/2/source_handle'])
    expect(problems[0]!.hint).toContain('"true"')
    expect(problems[1]!.hint).toContain('"false"')
  })
  test('a comparison decides true/false too; an edge without a handle is never followed', () => {
    const doc = saved([['in', 'entry'], ['b', 'branch', { condition: 'input.n > 3' }], ['y', 'prompt', { prompt: 'big' }]], [['in', 'b'], ['b', 'y', 'big'], ['b', 'y']])
    expect(checkFlow(doc).problems.map((p) => `${p.rule} ${p.path}`)).toEqual(['UnmatchedBranchHandle /flow/edges/1/source_handle', 'UnmatchedBranchHandle /flow/edges/2'])
  })
  test('a value condition may decide any string: accepted, and a decision no edge has is reported by the run', async () => {
    const doc = saved([['in', 'entry'], ['b', 'branch', { condition: 'input.route' }], ['a', 'prompt', { prompt: 'A' }]], [['in', 'b'], ['b', 'a', 'alpha']])
    expect(checkFlow(doc).problems).toEqual([])
    const llm = fakeLLM(() => 'ok')
    const r = await runFlow(doc, { route: 'beta' }, { capabilities: { llm } })
    expect(r.error).toBeUndefined()
    expect(r.warnings).toEqual(['flow branch "b" decided "beta" and no edge has that source_handle ("alpha"): this path ends here'])
    const ok = await runFlow(doc, { route: 'alpha' }, { capabilities: { llm } })
    expect(ok.warnings).toBeUndefined()
    const file = write('route.json', doc)
    const cli = ajsc(['flow', 'run', file, '--input', '{"route":"beta"}'])
    expect(cli.stderr).toContain('warning: flow branch "b" decided "beta"')
  })
})
