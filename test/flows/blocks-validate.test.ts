/** Block flow documents: one case per validation rule (located), round trips, and the format detection. */
import { describe, expect, test } from 'bun:test'
import { FLOW_RULES, FlowError, compileFlow, detectFlowFormat, parseBlockFlow, serializeBlockFlow, validateBlockFlow } from '../../src/flows/index.ts'

const llm = (prompt: string, out: string[] = ['o'], extra: Record<string, unknown> = {}) =>
  ({ processor_type: 'llm', prompt, output_schema: { fields: out.map((name) => ({ name })) }, ...extra })
const flow = (steps: unknown, blocks: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ steps, blocks, ...extra })
const rules = (v: unknown) => validateBlockFlow(v).map((p) => `${p.rule} ${p.path}`)
/** `levels` `h` containers, each the only child of the one around it, around `step`. */
const nested = (levels: number, step: unknown): unknown => {
  let node = step
  for (let i = 0; i < levels; i++) node = { type: 'h', children: [node] }
  return node
}

describe('validateBlockFlow: one case per rule', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['valid', flow(['a'], { a: llm('x') }), []],
    ['UnknownStep', flow(['a', 'ghost'], { a: llm('x') }), ['UnknownStep /steps/1']],
    ['BlockWithoutStep', flow(['a'], { a: llm('x'), lonely: { processor_type: 'passthrough' } }), ['BlockWithoutStep /blocks/lonely']],
    ['DuplicateStepId (a block used twice)', flow({ type: 'h', children: ['a', 'a'] }, { a: llm('x') }), ['DuplicateStepId /steps/children/1']],
    ['DuplicateStepId (container ids)', flow({ type: 'h', id: 'x', children: [{ type: 'v', id: 'x', children: ['a'] }] }, { a: llm('x') }), ['DuplicateStepId /steps/children/0/id']],
    ['DuplicateStepId (container id = block id)', flow({ type: 'h', id: 'a', children: ['a'] }, { a: llm('x') }), ['DuplicateStepId /steps/id']],
    ['EmptyContainer', flow({ type: 'h', children: ['a', { type: 'v', children: [] }] }, { a: llm('x') }), ['EmptyContainer /steps/children/1/children']],
    ['EmptyContainer (root list)', flow([], {}), ['EmptyContainer /steps']],
    ['UnknownContainerType', flow({ type: 'parallel', children: ['a'] }, { a: llm('x') }), ['UnknownContainerType /steps/type']],
    ['MissingArrayField', flow({ type: 'loop', children: ['a'] }, { a: llm('x') }), ['MissingArrayField /steps']],
    ['arrayField on a non-loop', flow({ type: 'h', arrayField: 'xs', children: ['a'] }, { a: llm('x') }), ['WrongType /steps/arrayField']],
    ['UnknownProcessorType', flow(['a'], { a: { processor_type: 'javascript' } }), ['UnknownProcessorType /blocks/a/processor_type']],
    ['MissingPrompt', flow(['a'], { a: { processor_type: 'llm', output_schema: { fields: [{ name: 'o' }] } } }), ['MissingPrompt /blocks/a/prompt']],
    ['MissingCodeBody', flow(['a'], { a: { processor_type: 'code', content: '  ' } }), ['MissingCodeBody /blocks/a/content']],
    ['MissingOutputSchema', flow(['a'], { a: { processor_type: 'llm', prompt: 'x' } }), ['MissingOutputSchema /blocks/a/output_schema']],
    ['InvalidFieldName', flow(['a'], { a: llm('x', ['full name']) }), ['InvalidFieldName /blocks/a/output_schema/fields/0/name']],
    ['DuplicateFieldName', flow(['a'], { a: llm('x', ['o', 'o']) }), ['DuplicateFieldName /blocks/a/output_schema/fields/1/name']],
    ['ReservedFieldName', flow(['a'], { a: { processor_type: 'code', content: 'return {}', input_schema: { fields: [{ name: 'initial' }] } } }), ['ReservedFieldName /blocks/a/input_schema/fields/0']],
    ['UnknownFieldType', flow(['a'], { a: { ...llm('x'), output_schema: { fields: [{ name: 'o', type: 'date' }] } } }), ['UnknownFieldType /blocks/a/output_schema/fields/0/type']],
    ['UnknownTemplateVariable (input_schema)', flow(['a'], { a: llm('{{topic}} {{tpoic}}', ['o'], { input_schema: { fields: [{ name: 'topic' }] } }) }), ['UnknownTemplateVariable /blocks/a/prompt']],
    ['UnknownTemplateVariable (global)', flow(['a'], { a: llm('{{initial.usr}}') }, { global_input_schema: { fields: [{ name: 'user' }] } }), ['UnknownTemplateVariable /blocks/a/prompt']],
    ['InvalidStepId', flow(['__proto__'], JSON.parse('{"__proto__": {"processor_type": "passthrough"}}')), ['InvalidStepId /blocks/__proto__']],
    ['MissingField', { blocks: {} }, ['MissingField /steps']],
    ['MissingField (field name)', flow(['a'], { a: { ...llm('x'), output_schema: { fields: [{ type: 'string' }] } } }), ['MissingField /blocks/a/output_schema/fields/0/name', 'MissingOutputSchema /blocks/a/output_schema']],
    ['WrongType', flow(['a'], { a: llm('x', ['o'], { config: [] }) }, { name: 3 }), ['WrongType /name', 'WrongType /blocks/a/config']],
    ['WrongType (a step)', flow({ type: 'h', children: [42] }, {}), ['WrongType /steps/children/0']],
    ['WrongType (not an object)', null, ['WrongType ']],
    ['NestedTooDeep', flow(nested(401, 'a'), { a: llm('x') }), [`NestedTooDeep /steps${'/children/0'.repeat(400)}`, 'BlockWithoutStep /blocks/a']],
  ]
  for (const [name, value, want] of cases) test(name, () => expect(rules(value)).toEqual(want))

  test('every Block rule in the registry has a case here', () => {
    const covered = new Set(cases.flatMap(([, , want]) => want.map((w) => w.split(' ')[0])))
    const blockRules = Object.entries(FLOW_RULES).filter(([name, spec]) => spec.format === 'blocks' && !spec.meaning.endsWith('(compile time).')).map(([name]) => name)
    for (const rule of blockRules) expect(covered.has(rule)).toBe(true)
  })

  test('problems are located in the text with a code frame', () => {
    const text = JSON.stringify(flow({ type: 'h', children: ['a', 'ghost'] }, { a: llm('x') }), null, 2)
    let error: FlowError | undefined
    try { parseBlockFlow(text, { file: 'f.json' }) } catch (e) { error = e as FlowError }
    expect(error?.problems[0]).toMatchObject({ rule: 'UnknownStep', path: '/steps/children/1', line: 6, column: 6 })
    expect(String(error)).toContain('f.json:6:7: error UnknownStep: step "ghost" has no block in "blocks"')
    expect(String(error)).toContain('hint: add "blocks": { "ghost"')
  })
})

test('containers nested 400 deep compile; 100,000 deep is NestedTooDeep, never a RangeError (10,000 overflowed the host stack)', () => {
  expect(rules(flow(nested(400, 'a'), { a: llm('x') }))).toEqual([])
  expect(() => compileFlow(flow(nested(400, 'a'), { a: llm('x') }))).not.toThrow()
  const deep = flow(nested(100_000, 'a'), { a: llm('x') })
  expect(rules(deep).map((r) => r.split(' ')[0])).toEqual(['NestedTooDeep', 'BlockWithoutStep'])
  let thrown: unknown
  try {
    compileFlow(deep)
  } catch (e) {
    thrown = e
  }
  expect(thrown).toBeInstanceOf(FlowError)
})

describe('Block flow round trip', () => {
  const doc = {
    editor: { zoom: 2 },
    blocks: {
      b: { config: { temperature: 0 }, processor_type: 'llm', prompt: 'P {{x}}', output_schema: { fields: [{ name: 'o', ui: 'wide', type: 'string' }] }, color: 'red' },
      a: { processor_type: 'passthrough' },
    },
    steps: { children: ['a', { type: 'loop', array_field: 'xs', children: ['b'], note: 'n' }], type: 'h' },
    name: 'rt',
  }
  test('parse → serialize → parse is lossless; keys ordered, unknown keys kept, array_field → arrayField', () => {
    const once = parseBlockFlow(doc)
    const text = serializeBlockFlow(once)
    const twice = parseBlockFlow(text)
    expect(twice).toEqual(once)
    expect(serializeBlockFlow(twice)).toBe(text)
    expect(Object.keys(twice)).toEqual(['name', 'steps', 'blocks', 'editor'])
    expect(twice.steps).toEqual({ type: 'h', children: ['a', { type: 'loop', arrayField: 'xs', children: ['b'], note: 'n' }] })
    expect(Object.keys(twice.blocks['b']!)).toEqual(['processor_type', 'prompt', 'output_schema', 'config', 'color'])
    expect(twice.blocks['b']!.output_schema!.fields[0]).toEqual({ name: 'o', type: 'string', ui: 'wide' })
  })
  test('the format is detected', () => {
    expect(detectFlowFormat(doc)).toBe('blocks')
    expect(detectFlowFormat({ flow: { nodes: [], edges: [] } })).toBe('saved-flow')
    expect(detectFlowFormat([1])).toBeUndefined()
    expect(compileFlow(doc).format).toBe('blocks')
    expect(() => compileFlow({ hello: 1 })).toThrow(FlowError)
  })
})
