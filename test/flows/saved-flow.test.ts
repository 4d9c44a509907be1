/** SavedFlow v1: one case per rule, shape errors, located problems and lossless round trips. */
import { describe, expect, test } from 'bun:test'
import { FlowError, parseSavedFlow, serializeSavedFlow, validateSavedFlow, type SavedFlow } from '../../src/flows/index.ts'

const base = (flow: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  id: 'f', name: 'F', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
  flow: { nodes: [{ id: 'e', node_type: 'entry', data: {} }], edges: [], ...flow }, ...top,
})
const rules = (v: unknown) => validateSavedFlow(v).map((p) => `${p.rule} ${p.path}`)

describe('validateSavedFlow: one case per rule', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['InvalidFlowId (underscore)', base({}, { id: 'a_b' }), ['InvalidFlowId /id']],
    ['InvalidFlowId (64 ok, 65 not)', base({}, { id: 'a'.repeat(65) }), ['InvalidFlowId /id']],
    ['UnsupportedSpecVersion', base({}, { spec_version: '7' }), ['UnsupportedSpecVersion /spec_version']],
    ['MultipleEntryNodes (3)', base({ nodes: ['a', 'b', 'c'].map((id) => ({ id, node_type: 'entry', data: {} })) }), ['MultipleEntryNodes /flow/nodes/1']],
    ['DuplicateNodeId', base({ nodes: [{ id: 'e', node_type: 'entry', data: {} }, { id: 'e', node_type: 'prompt', data: {} }] }), ['DuplicateNodeId /flow/nodes/1/id']],
    ['InvalidVendorNamespace (upper case)', base({ nodes: [{ id: 'n', node_type: 'Acme:x', data: {} }] }), ['InvalidVendorNamespace /flow/nodes/0/node_type']],
    ['InvalidVendorNamespace (bare unknown type)', base({ nodes: [{ id: 'n', node_type: 'end', data: {} }] }), ['InvalidVendorNamespace /flow/nodes/0/node_type']],
    ['InvalidVendorNamespace (empty namespace)', base({ nodes: [{ id: 'n', node_type: ':x', data: {} }] }), ['InvalidVendorNamespace /flow/nodes/0/node_type']],
    ['DuplicateEdgeId', base({ edges: [{ id: 'x', source: 'e', target: 'e' }, { id: 'x', source: 'e', target: 'e' }] }), ['DuplicateEdgeId /flow/edges/1/id']],
    ['DanglingEdgeSource', base({ edges: [{ id: 'x', source: 'nope', target: 'e' }] }), ['DanglingEdgeSource /flow/edges/0/source']],
    ['DanglingEdgeTarget', base({ edges: [{ id: 'x', source: 'e', target: 'nope' }] }), ['DanglingEdgeTarget /flow/edges/0/target']],
    ['every problem, not the first', base({ nodes: [{ id: 'a', node_type: 'entry', data: {} }, { id: 'a', node_type: 'x', data: {} }], edges: [{ id: 'y', source: 'q', target: 'r' }] }, { id: '', spec_version: '2' }),
      ['UnsupportedSpecVersion /spec_version', 'InvalidFlowId /id', 'DuplicateNodeId /flow/nodes/1/id', 'InvalidVendorNamespace /flow/nodes/1/node_type', 'DanglingEdgeSource /flow/edges/0/source', 'DanglingEdgeTarget /flow/edges/0/target']],
    ['MissingField (node data)', base({ nodes: [{ id: 'e', node_type: 'entry' }] }), ['MissingField /flow/nodes/0/data']],
    ['MissingField (several)', { id: 'x' }, ['MissingField /name', 'MissingField /created_at', 'MissingField /updated_at', 'MissingField /flow']],
    ['WrongType (enabled)', base({}, { enabled: 'yes' }), ['WrongType /enabled']],
    ['WrongType (spec_version as a number)', base({}, { spec_version: 1 }), ['WrongType /spec_version']],
    ['WrongType (position)', base({ nodes: [{ id: 'e', node_type: 'entry', data: {}, position: [1] }] }), ['WrongType /flow/nodes/0/position']],
    ['WrongType (handle)', base({ edges: [{ id: 'x', source: 'e', target: 'e', source_handle: 3 }] }), ['WrongType /flow/edges/0/source_handle']],
    ['WrongType (data is an array)', base({ nodes: [{ id: 'e', node_type: 'entry', data: [] }] }), ['WrongType /flow/nodes/0/data']],
    ['WrongType (node is a string)', base({ nodes: ['e'] }), ['WrongType /flow/nodes/0']],
    ['null', null, ['WrongType ']],
    ['a string', 'hello', ['WrongType ']],
    ['a number', 42, ['WrongType ']],
    ['valid: 64-character id, vendor with digits and dashes', base({ nodes: [{ id: 'e', node_type: 'entry', data: {} }, { id: 's', node_type: 'a0_-b:any:thing', data: { x: 1 } }] }, { id: 'A-'.repeat(32) }), []],
  ]
  for (const [name, value, want] of cases) test(name, () => expect(rules(value)).toEqual(want))

  test('UnsupportedSpecVersion names the version', () => {
    expect(validateSavedFlow(base({}, { spec_version: '3' }))[0]!.message).toContain('"3"')
  })
  test('an undefined field counts as missing', () => {
    expect(rules({ ...base(), name: undefined })).toEqual(['MissingField /name'])
  })
})

describe('parseSavedFlow', () => {
  test('applies the defaults', () => {
    const flow = parseSavedFlow(base({ edges: [{ id: 'x', source: 'e', target: 'e' }] }))
    expect(flow.spec_version).toBe('1')
    expect(flow.enabled).toBe(false)
    expect(flow.flow.nodes[0]!.position).toEqual([0, 0])
    expect(flow.flow.edges[0]).toEqual({ id: 'x', source: 'e', target: 'e', source_handle: null, target_handle: null })
  })
  test('throws FlowError with every problem, located in the text, with a code frame', () => {
    const text = JSON.stringify(base({ edges: [{ id: 'x', source: 'e', target: 'ghost' }] }, { id: 'bad id' }), null, 2)
    let error: FlowError | undefined
    try { parseSavedFlow(text, { file: 'my.json' }) } catch (e) { error = e as FlowError }
    expect(error).toBeInstanceOf(FlowError)
    expect(error!.code).toBe('FLOW_INVALID')
    expect(error!.problems.map((p) => p.rule)).toEqual(['InvalidFlowId', 'DanglingEdgeTarget'])
    const lines = text.split('\n')
    const target = error!.problems[1]!
    expect(lines[target.line! - 1]!.slice(target.column!)).toStartWith('"ghost"')
    expect(String(error)).toContain('my.json:2:9: error InvalidFlowId:')
    expect(String(error)).toContain('^')
    expect(String(error)).toContain('hint: rename it, e.g. "bad-id"')
  })
  test('a syntax error points at the offending character', () => {
    let error: FlowError | undefined
    try { parseSavedFlow('{\n  "id": "x",\n  "name": oops\n}') } catch (e) { error = e as FlowError }
    expect(error!.problems[0]).toMatchObject({ rule: 'ParseError', line: 3, column: 10 })
  })
  test('never reaches Object.prototype through a __proto__ key', () => {
    const text = JSON.stringify(base({}, {})).replace('{', '{"__proto__":{"polluted":true},')
    const flow = parseSavedFlow(text)
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.hasOwn(flow, '__proto__')).toBe(true)
    expect(serializeSavedFlow(flow)).toContain('"__proto__"')
  })
  test('does not mutate or share the input', () => {
    const input = base({ nodes: [{ id: 'e', node_type: 'entry', data: { deep: { a: [1] } } }] })
    const before = JSON.stringify(input)
    const flow = parseSavedFlow(input)
    ;(flow.flow.nodes[0]!.data['deep'] as { a: number[] }).a.push(2)
    expect(JSON.stringify(input)).toBe(before)
  })
})

describe('round trip: parse → serialize → parse is lossless', () => {
  const rich = {
    spec_version: '1', id: 'rich', name: 'Rich', created_at: 'c', updated_at: 'u', enabled: true,
    owner: { team: 'ops' },
    flow: {
      layout: 'lr',
      nodes: [
        { id: 'e', node_type: 'entry', data: { schedule_type: 'cron', cron: '0 */5 * * * *' }, position: [1.5, -2], note: 'start' },
        { id: 's', node_type: 'slack:send_message', data: { channel: '#ops', blocks: [{ type: 'section', text: null }], n: 1e21 } },
        { id: 'b', node_type: 'branch', data: { condition: 'input.n > 2' } },
      ],
      edges: [
        { id: 'x', source: 'e', target: 's', source_handle: 'out', target_handle: 'in', color: 'red' },
        { id: 'y', source: 's', target: 'b' },
      ],
    },
  }
  test('unknown keys at every level and vendor data survive verbatim', () => {
    const once = parseSavedFlow(rich)
    const text = serializeSavedFlow(once)
    const twice = parseSavedFlow(text)
    expect(twice).toEqual(once)
    expect(serializeSavedFlow(twice)).toBe(text)
    expect(twice['owner']).toEqual({ team: 'ops' })
    expect(twice.flow['layout']).toBe('lr')
    expect(twice.flow.nodes[0]!['note']).toBe('start')
    expect(twice.flow.edges[0]!['color']).toBe('red')
    expect(twice.flow.nodes[1]).toEqual({ ...rich.flow.nodes[1]!, position: [0, 0] })
  })
  test('spec keys come first in spec order, unknown keys after', () => {
    const text = serializeSavedFlow(parseSavedFlow({ zeta: 1, flow: rich.flow, updated_at: 'u', created_at: 'c', name: 'n', id: 'i' }))
    expect(Object.keys(JSON.parse(text))).toEqual(['spec_version', 'id', 'name', 'created_at', 'updated_at', 'enabled', 'flow', 'zeta'])
    expect(text.endsWith('}\n')).toBe(true)
  })
  test('serialize refuses an invalid flow', () => {
    expect(() => serializeSavedFlow({ ...parseSavedFlow(rich), id: 'no spaces' } as SavedFlow)).toThrow(FlowError)
  })
})
