/** Running SavedFlow v1 documents: prompts, branches, tools, vendor atoms, cycles, both semantics, events. */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { FlowError, compileSavedFlow, runFlow } from '../../src/flows/index.ts'
import { AgentVM, defineAtom, flowAtomsForTest } from './helpers.ts'
import { fakeLLM } from './fake-llm.ts'

const CORPUS = resolve(import.meta.dir, '../fixtures/vendor/flow-spec-v1')
const corpus = (file: string) => readFileSync(resolve(CORPUS, file), 'utf8')

let edgeId = 0
function flowOf(nodes: Array<[string, string, Record<string, unknown>?]>, edges: Array<[string, string, string?]>) {
  return {
    id: 'test-flow', name: 'Test', created_at: 'c', updated_at: 'u',
    flow: {
      nodes: nodes.map(([id, node_type, data]) => ({ id, node_type, data: data ?? {} })),
      edges: edges.map(([source, target, handle]) => ({ id: `e${++edgeId}`, source, target, ...(handle ? { source_handle: handle } : {}) })),
    },
  }
}
const echo = () => fakeLLM((prompt, options) => options['responseFormat'] ? '{"answer": true}' : `did: ${prompt.split('\n')[0]}`)

describe('prompt nodes', () => {
  test('the corpus linear flow runs its prompt through the llm capability', async () => {
    const llm = fakeLLM(() => ({ content: 'done', usage: { prompt_tokens: 12, completion_tokens: 3 } }))
    const r = await runFlow(corpus('valid/linear_task_worker.json'), {}, { capabilities: { llm }, now: () => 5 })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ outputs: { 'task-worker': 'done' }, last: 'done', path: ['entry', 'task-worker'] })
    expect(llm.calls[0]!.prompt).toBe('Pick up the next unstarted Linear issue and attempt to complete it.')
    expect(r.events.map((e) => `${e.type}${'step' in e ? ` ${e.step}` : ''}`)).toEqual([
      'run_started', 'step_started entry', 'step_completed entry', 'step_started task-worker', 'step_completed task-worker', 'flow_completed',
    ])
    const done = r.events.find((e) => e.type === 'step_completed' && e.step === 'task-worker')
    expect(done).toMatchObject({ kind: 'prompt', tokens: { prompt: 12, completion: 3, total: 15 } })
    expect((done as { fuel: number }).fuel).toBeGreaterThanOrEqual(100)
    expect(r.events.at(-1)).toMatchObject({ type: 'flow_completed', status: 'ok', fuelUsed: r.fuelUsed })
  })

  test('persona is the system message; later prompts see the input and the earlier outputs', async () => {
    const llm = echo()
    const flow = flowOf([['e', 'entry'], ['a', 'prompt', { prompt: 'First', persona: 'You are terse.' }], ['b', 'prompt', { prompt: 'Second' }]], [['e', 'a'], ['a', 'b']])
    const r = await runFlow(flow, { city: 'Lisbon' }, { capabilities: { llm } })
    expect(r.result).toMatchObject({ last: 'did: Second', path: ['e', 'a', 'b'] })
    expect(llm.calls[0]!.options).toEqual({ system: 'You are terse.' })
    expect(llm.calls[1]!.options).toEqual({})
    expect(llm.calls[1]!.prompt).toBe('Second\n\nInput of this run (JSON):\n{"city":"Lisbon"}\n\nOutputs of the previous steps:\n[a]\ndid: First')
  })

  test('the same flow and input use the same fuel every time', async () => {
    const flow = corpus('valid/daily-commit-summary.json')
    const a = await runFlow(flow, {}, { capabilities: { llm: echo() } })
    const b = await runFlow(flow, {}, { capabilities: { llm: echo() } })
    expect(a.fuelUsed).toBe(b.fuelUsed)
  })

  test('without an llm capability: CAPABILITY_MISSING, and the open step fails', async () => {
    const r = await runFlow(corpus('valid/linear_task_worker.json'), {})
    expect(r.error?.code).toBe('CAPABILITY_MISSING')
    expect(r.events.filter((e) => e.type === 'step_failed').map((e) => (e as { step: string }).step)).toEqual(['task-worker'])
    expect(r.events.at(-1)).toMatchObject({ type: 'flow_completed', status: 'failed', error: { code: 'CAPABILITY_MISSING' } })
  })
})

describe('branch nodes', () => {
  // A "billing" edge only on a branch whose condition may decide a string (a yes/no branch refuses it: UnmatchedBranchHandle).
  const branchy = (condition: string, billing = false) => flowOf(
    [['e', 'entry'], ['b', 'branch', { condition }], ['yes', 'prompt', { prompt: 'Y' }], ['no', 'prompt', { prompt: 'N' }], ['other', 'prompt', { prompt: 'O' }]],
    [['e', 'b'], ['b', 'yes', 'true'], ['b', 'no', 'false'], ...(billing ? [['b', 'other', 'billing'] as [string, string, string]] : [])],
  )
  test('an AJS expression over the run state picks the edge by source_handle', async () => {
    for (const [n, path] of [[5, ['e', 'b', 'yes']], [1, ['e', 'b', 'no']]] as const) {
      const llm = echo()
      const r = await runFlow(branchy('input.n > 2'), { n }, { capabilities: { llm } })
      expect((r.result as { path: string[] }).path).toEqual([...path])
      expect(llm.calls.length).toBe(1) // only the prompt: the condition never reached the model
    }
  })
  test('a string value names the handle', async () => {
    const r = await runFlow(branchy('input.kind', true), { kind: 'billing' }, { capabilities: { llm: echo() } })
    expect((r.result as { path: string[] }).path).toEqual(['e', 'b', 'other'])
    const none = await runFlow(branchy('input.kind', true), { kind: 'nothing-matches' }, { capabilities: { llm: echo() } })
    expect((none.result as { path: string[] }).path).toEqual(['e', 'b'])
    expect(none.warnings?.[0]).toContain('decided "nothing-matches" and no edge has that source_handle')
  })
  test('other text is a yes/no question for the model, with a JSON schema', async () => {
    const llm = fakeLLM((prompt, options) => options['responseFormat'] ? '{"answer": false}' : 'text')
    const r = await runFlow(branchy('Is the build green?'), {}, { capabilities: { llm } })
    expect((r.result as { path: string[] }).path).toEqual(['e', 'b', 'no'])
    expect(llm.calls[0]!.prompt).toStartWith('Answer yes or no: Is the build green?')
    expect((llm.calls[0]!.options['responseFormat'] as { json_schema: { schema: unknown } }).json_schema.schema).toEqual({
      type: 'object', properties: { answer: { type: 'boolean', description: 'true for yes, false for no' } }, required: ['answer'], additionalProperties: false,
    })
  })
  test('a bad yes/no answer gets one corrective retry, then FLOW_LLM_OUTPUT', async () => {
    const once = fakeLLM((_p, o, n) => o['responseFormat'] ? (n === 1 ? 'yes!' : '{"answer": true}') : 'text')
    expect(((await runFlow(branchy('Ship it?'), {}, { capabilities: { llm: once } })).result as { path: string[] }).path).toEqual(['e', 'b', 'yes'])
    expect(once.calls[1]!.prompt).toContain('It was not valid: the answer is not JSON.')
    const never = fakeLLM(() => '{"answer": "maybe"}')
    const r = await runFlow(branchy('Ship it?'), {}, { capabilities: { llm: never } })
    expect(r.error?.code).toBe('FLOW_LLM_OUTPUT')
    expect(never.calls.length).toBe(2)
  })
  test('a condition with names the run does not have is refused at compile time, with a hint', () => {
    let error: FlowError | undefined
    try { compileSavedFlow(branchy('count > 3')) } catch (e) { error = e as FlowError }
    expect(error?.problems).toEqual([expect.objectContaining({ rule: 'InvalidCondition', path: '/flow/nodes/1/data/condition' })])
    expect(error?.problems[0]!.hint).toContain('input.count > 3')
  })
})

describe('branch_tool and vendor nodes', () => {
  const checkCi = defineAtom('checkCi', { type: 'object', properties: { repo: { type: 'string' } } }, undefined,
    ({ repo }: { repo: string }) => (repo === 'green' ? 'passed' : repo === 'obj' ? { outcome: 'failed', log: 'x' } : 'flaky'), { sync: true })
  const toolFlow = (repo: string) => flowOf(
    [['e', 'entry'], ['t', 'branch_tool', { tool_name: 'checkCi', args: { repo }, branches: { passed: 'deploy', failed: 'on-fail' } }],
      ['deploy', 'prompt', { prompt: 'Deploy' }], ['fix', 'prompt', { prompt: 'Fix' }]],
    [['e', 't'], ['t', 'fix', 'on-fail']],
  )
  test('calls the atom named by tool_name and follows branches[outcome] (node id or edge handle)', async () => {
    const run = (repo: string) => runFlow(toolFlow(repo), {}, { atoms: [checkCi], capabilities: { llm: echo() } })
    expect(((await run('green')).result as { path: string[] }).path).toEqual(['e', 't', 'deploy'])
    const failed = await run('obj')
    expect(failed.result).toMatchObject({ path: ['e', 't', 'fix'], outputs: { t: { outcome: 'failed', log: 'x' } } })
    expect(((await run('other')).result as { path: string[] }).path).toEqual(['e', 't']) // unmapped outcome: the path ends
  })
  test('an unregistered tool refuses the run before it starts (late binding: the VM that runs it decides)', async () => {
    const r = await runFlow(toolFlow('green'), {}, { capabilities: { llm: echo() } })
    expect(r.error).toMatchObject({ code: 'FLOW_UNKNOWN_NODE_TYPE' })
    expect(r.error?.message).toContain('checkCi')
    expect(r.fuelUsed).toBe(0)
    expect(r.events.some((e) => e.type === 'step_started')).toBe(false)
  })
  test('a vendor node runs the custom atom of that exact name with data verbatim; context reaches it', async () => {
    const seen: unknown[] = []
    const slack = defineAtom('slack:send_message', { type: 'object', properties: { channel: { type: 'string' } } }, undefined,
      (input: unknown, ctx) => { seen.push([input, ctx.context['tenant']]); return { ok: true } })
    const r = await runFlow(corpus('valid/vendor_node_type_preserved_through_round_trip.json'), {}, { atoms: [slack], context: { tenant: 'acme' } })
    expect(r.result).toEqual({ outputs: { s: { ok: true } }, last: { ok: true }, path: ['e', 's'] })
    expect(seen).toEqual([[{ channel: '#ops' }, 'acme']])
    const tricky = flowOf([['e', 'entry'], ['s', 'slack:send_message', { channel: '#x', text: { $expr: 'ident', name: 'secret' } }]], [['e', 's']])
    await runFlow(tricky, {}, { atoms: [slack] })
    expect(seen[1]).toEqual([{ channel: '#x', text: { $expr: 'ident', name: 'secret' } }, undefined])
  })
  test('an unknown vendor type is refused before the run starts, reached or not; the compiled AST names it', async () => {
    const r = await runFlow(corpus('valid/vendor_node_type_preserved_through_round_trip.json'), {})
    expect(r.error?.code).toBe('FLOW_UNKNOWN_NODE_TYPE')
    expect(r.error?.message).toContain('slack:send_message')
    expect(r.events.some((e) => e.type === 'step_started')).toBe(false)
    const notReached = flowOf([['e', 'entry'], ['b', 'branch', { condition: 'false' }], ['s', 'acme:thing']], [['e', 'b'], ['b', 's', 'true']])
    expect(compileSavedFlow(notReached).atoms).toEqual(['acme:thing'])
    expect((await runFlow(notReached, {})).error?.message).toContain('acme:thing')
    const thing = defineAtom('acme:thing', { type: 'object' }, undefined, () => 'done')
    expect((await runFlow(notReached, {}, { atoms: [thing] })).error).toBeUndefined()
  })
  test('node ids the VM refuses as keys are refused at compile time', () => {
    const flow = flowOf([['e', 'entry'], ['constructor', 'prompt', { prompt: 'x' }]], [['e', 'constructor']])
    expect(() => compileSavedFlow(flow)).toThrow(/cannot be a key/)
  })
  test('vendor data keys that clash with the step format are refused at compile time', () => {
    const flow = flowOf([['e', 'entry'], ['s', 'acme:thing', { op: 'x' }]], [['e', 's']])
    expect(() => compileSavedFlow(flow, { atoms: ['acme:thing'] })).toThrow(/reserved/)
  })
})

describe('cycles, budgets and semantics', () => {
  test('a cycle runs under the visit budget (default 100, an option)', async () => {
    const flow = corpus('valid/walk_cycle_terminates.json').replaceAll('"data": {}', '"data": { "prompt": "go" }')
    const r = await runFlow(flow, {}, { capabilities: { llm: echo() }, fuel: 1e6 })
    expect(r.error?.code).toBe('FLOW_VISIT_BUDGET')
    const small = await runFlow(flow, {}, { capabilities: { llm: echo() }, maxVisits: 5 })
    expect(small.error?.code).toBe('FLOW_VISIT_BUDGET')
    expect(small.events.filter((e) => e.type === 'step_completed').map((e) => (e as { step: string }).step)).toEqual(['e', 'a', 'b', 'a', 'b'])
  })
  test('a cycle with a branch that leaves it', async () => {
    const flow = flowOf(
      [['e', 'entry'], ['work', 'prompt', { prompt: 'again' }], ['check', 'branch', { condition: 'path.length < 7' }], ['done', 'prompt', { prompt: 'end' }]],
      [['e', 'work'], ['work', 'check'], ['check', 'work', 'true'], ['check', 'done', 'false']],
    )
    const r = await runFlow(flow, {}, { capabilities: { llm: echo() } })
    expect((r.result as { path: string[] }).path).toEqual(['e', 'work', 'check', 'work', 'check', 'work', 'check', 'done'])
  })
  test('no entry: nothing to run, a clear error', async () => {
    const r = await runFlow(corpus('valid/walk_missing_entry_visits_nothing.json'), {})
    expect(r.error).toMatchObject({ code: 'FLOW_NO_ENTRY' })
    expect(r.error?.hint).toContain('entry')
  })
  test("{ semantics: 'reference' }: reachable prompts once each in BFS order, nothing else", async () => {
    const flow = corpus('valid/walk_cycle_terminates.json').replaceAll('"data": {}', '"data": { "prompt": "go" }')
    const llm = echo()
    const r = await runFlow(flow, {}, { capabilities: { llm }, semantics: 'reference' })
    expect(r.result).toMatchObject({ path: ['e', 'a', 'b'] })
    expect(llm.calls.length).toBe(2)
    const orphan = corpus('valid/walk_disconnected_node_skipped.json').replaceAll('"data": {}', '"data": { "prompt": "go" }')
    expect(((await runFlow(orphan, {}, { capabilities: { llm: echo() }, semantics: 'reference' })).result as { path: string[] }).path).toEqual(['e', 'a'])
    let error: FlowError | undefined
    try { compileSavedFlow(corpus('valid/vendor_node_type_preserved_through_round_trip.json'), { semantics: 'reference' }) } catch (e) { error = e as FlowError }
    expect(error?.problems.map((p) => `${p.rule} ${p.path}`)).toEqual(['UnsupportedNodeType /flow/nodes/1/node_type'])
  })
  test('fuel and timeouts end a flow like any program; the open steps fail', async () => {
    const out = await runFlow(corpus('valid/linear_task_worker.json'), {}, { capabilities: { llm: echo() }, fuel: 50 })
    expect(out.error?.code).toBe('FUEL_EXHAUSTED')
    const slow = fakeLLM(() => new Promise(() => {}))
    const r = await runFlow(corpus('valid/linear_task_worker.json'), {}, { capabilities: { llm: slow }, timeoutMs: 30 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.events.find((e) => e.type === 'step_failed')).toMatchObject({ step: 'task-worker', error: { code: 'TIMEOUT' } })
  })
  test('an invalid document is a FLOW_INVALID result with every problem, never an exception', async () => {
    const r = await runFlow(corpus('invalid/duplicate_node_id_caught.json'), {})
    expect(r.error).toMatchObject({ code: 'FLOW_INVALID', details: [{ path: '/flow/nodes/1/id' }] })
    const junk = await runFlow('{ nope', {})
    expect(junk.error?.code).toBe('FLOW_INVALID')
  })
  test('the compiled program runs on any VM that has the flow atoms', async () => {
    const ast = compileSavedFlow(corpus('valid/linear_task_worker.json'))
    const r = await new AgentVM([...flowAtomsForTest]).run(ast, {}, { capabilities: { llm: echo() } })
    expect(r.result).toMatchObject({ last: 'did: Pick up the next unstarted Linear issue and attempt to complete it.' })
  })
})
