/**
 * Block flows run against a fake `llm` capability: one flow per rule of the
 * Block Runtime Contract (data flow of h / v / loop, templates, structured
 * output with one corrective retry, passthrough, Python code blocks), plus
 * events and limits.
 */
import { describe, expect, test } from 'bun:test'
import { runFlow, type BlockFlow } from '../../src/flows/index.ts'
import { fakeLLM, type Answer } from './fake-llm.ts'

type Fields = Array<{ name: string; type?: string }>
const llm = (prompt: string, fields: Fields | string[], extra: Record<string, unknown> = {}) =>
  ({ processor_type: 'llm', prompt, output_schema: { fields: fields.map((f) => typeof f === 'string' ? { name: f } : f) }, ...extra })
const pass = { processor_type: 'passthrough' }
const code = (content: string, inputs: string[]) => ({ processor_type: 'code', content, input_schema: { fields: inputs.map((name) => ({ name })) } })
/** Answers `fn(prompt)` as JSON for structured calls. */
const model = (fn: (prompt: string, options: Record<string, unknown>, n: number) => unknown) =>
  fakeLLM((p, o, n) => Promise.resolve(fn(p, o, n)).then((v) => (typeof v === 'string' || (v && typeof v === 'object' && 'content' in v) ? v : JSON.stringify(v)) as Answer))

interface Case {
  name: string
  flow: Record<string, unknown>
  input?: Record<string, unknown>
  answer: (prompt: string, options: Record<string, unknown>, n: number) => unknown
  result?: unknown
  error?: string
  prompts?: string[]
  check?: (r: Awaited<ReturnType<typeof runFlow>>, calls: ReturnType<typeof fakeLLM>['calls']) => void
}

const cases: Case[] = [
  {
    name: '1. the first block gets the global input; {{field}} reads pipeline_input',
    flow: { steps: ['greet'], blocks: { greet: llm('Greet {{name}}', ['text']) } },
    input: { name: 'Ada' },
    answer: (p) => ({ text: p.toUpperCase() }),
    result: { text: 'GREET ADA' },
  },
  {
    name: '2. h runs left to right, each block gets the previous output',
    flow: { steps: { type: 'h', children: ['a', 'b', 'c'] }, blocks: { a: llm('A {{x}}', ['y']), b: llm('B {{y}}', ['z']), c: llm('C {{z}}', ['done']) } },
    input: { x: 1 },
    answer: (p) => p.startsWith('A') ? { y: 2 } : p.startsWith('B') ? { z: 3 } : { done: p },
    result: { done: 'C 3' },
    prompts: ['A 1', 'B 2', 'C 3'],
  },
  {
    name: '3. {{initial.field}} reads the global input anywhere in the flow',
    flow: { steps: ['a', 'b'], blocks: { a: llm('first', ['n']), b: llm('{{n}} for {{initial.user}} ({{initial.meta.lang}})', ['out']) } },
    input: { user: 'Ada', meta: { lang: 'en' } },
    answer: (p) => p === 'first' ? { n: 7 } : { out: p },
    result: { out: '7 for Ada (en)' },
  },
  {
    name: '4. the single-brace {field} works where it names something, literal braces stay',
    flow: { steps: ['a'], blocks: { a: llm('Hi {name} from {initial.city}; keep {"json": 1} and {unknown}', ['out']) } },
    input: { name: 'Bo', city: 'Oslo' },
    answer: (p) => ({ out: p }),
    result: { out: 'Hi Bo from Oslo; keep {"json": 1} and {unknown}' },
  },
  {
    name: '5. non-string values are rendered as JSON',
    flow: { steps: ['a'], blocks: { a: llm('Items: {{items}} / {{count}}', ['out']) } },
    input: { items: ['x', 'y'], count: 2 },
    answer: (p) => ({ out: p }),
    result: { out: 'Items: ["x","y"] / 2' },
  },
  {
    name: '6. a missing {{field}} is FLOW_TEMPLATE, before any model call',
    flow: { steps: ['a'], blocks: { a: llm('Hello {{nobody}}', ['out']) } },
    answer: () => ({ out: 'x' }),
    error: 'FLOW_TEMPLATE',
    check: (_r, calls) => expect(calls.length).toBe(0),
  },
  {
    name: '7. an llm block outputs a dict of exactly its output_schema fields, asked with a JSON schema',
    flow: { steps: ['a'], blocks: { a: llm('Classify', [{ name: 'label', type: 'string' }, { name: 'score', type: 'number' }], { model: 'small', config: { temperature: 0.1, max_tokens: 50, editor_color: 'red' } }) } },
    answer: () => ({ label: 'spam', score: 0.9, extra: 'dropped' }),
    result: { label: 'spam', score: 0.9 },
    check: (_r, calls) => {
      const o = calls[0]!.options
      expect(o).toMatchObject({ model: 'small', temperature: 0.1, maxTokens: 50 })
      expect(o['editor_color']).toBeUndefined()
      expect(o['responseFormat']).toEqual({ type: 'json_schema', json_schema: { name: 'output', strict: true, schema: {
        type: 'object', properties: { label: { type: 'string' }, score: { type: 'number' } }, required: ['label', 'score'], additionalProperties: false } } })
      expect(String(o['system'])).toContain('- label (string)')
    },
  },
  {
    name: '8. an invalid answer gets one corrective retry that says what was wrong',
    flow: { steps: ['a'], blocks: { a: llm('Count', [{ name: 'n', type: 'integer' }]) } },
    answer: (_p, _o, n) => n === 1 ? { n: 'three' } : { n: 3 },
    result: { n: 3 },
    check: (_r, calls) => {
      expect(calls.length).toBe(2)
      expect(calls[1]!.prompt).toContain('It was not valid: field "n" must be integer.')
    },
  },
  {
    name: '9. still invalid after the retry: FLOW_LLM_OUTPUT, and the retry costs fuel',
    flow: { steps: ['a'], blocks: { a: llm('Count', [{ name: 'n', type: 'integer' }]) } },
    answer: () => 'I think it is three',
    error: 'FLOW_LLM_OUTPUT',
    check: (r, calls) => {
      expect(calls.length).toBe(2)
      expect(r.fuelUsed).toBeGreaterThanOrEqual(200)
      expect(r.events.find((e) => e.type === 'step_failed')).toMatchObject({ step: 'a', error: { code: 'FLOW_LLM_OUTPUT' } })
    },
  },
  {
    name: '10. a fenced ```json answer is accepted; an optional field may be absent',
    flow: { steps: ['a'], blocks: { a: { ...llm('x', []), output_schema: { fields: [{ name: 'a' }, { name: 'b', required: false }] } } } },
    answer: () => '```json\n{"a": [1]}\n```',
    result: { a: [1] },
  },
  {
    name: '11. passthrough forwards its input unchanged',
    flow: { steps: ['p', 'a'], blocks: { p: pass, a: llm('{{x}}-{{y}}', ['out']) } },
    input: { x: 1, y: 'two' },
    answer: (p) => ({ out: p }),
    result: { out: '1-two' },
  },
  {
    name: '12. v runs its children on the same input and merges { <step_id>: output }',
    flow: { steps: { type: 'v', children: ['en', 'fr'] }, blocks: { en: llm('en {{text}}', ['t']), fr: llm('fr {{text}}', ['t']) } },
    input: { text: 'hello' },
    answer: (p) => ({ t: p }),
    result: { en: { t: 'en hello' }, fr: { t: 'fr hello' } },
  },
  {
    name: '13. v keys nested containers by their index as a string',
    flow: { steps: { type: 'v', children: ['a', { type: 'h', children: ['b', 'c'] }, { type: 'v', children: ['d'] }] },
      blocks: { a: pass, b: llm('b', ['x']), c: llm('c {{x}}', ['y']), d: pass } },
    input: { k: 1 },
    answer: (p) => p === 'b' ? { x: 'X' } : { y: p },
    result: { a: { k: 1 }, 1: { y: 'c X' }, 2: { d: { k: 1 } } },
  },
  {
    name: '14. v children really run concurrently',
    flow: { steps: { type: 'v', children: ['a', 'b'] }, blocks: { a: llm('a', ['v']), b: llm('b', ['v']) } },
    answer: (() => {
      let waiting = 0
      let release: () => void = () => {}
      const both = new Promise<void>((r) => { release = r })
      return (p: string) => { if (++waiting === 2) release(); return both.then(() => ({ v: p })) }
    })(),
    result: { a: { v: 'a' }, b: { v: 'b' } },
  },
  {
    name: '15. the block after v receives the merged dict',
    flow: { steps: [{ type: 'v', children: ['a', 'b'] }, 'join'], blocks: { a: llm('a', ['n']), b: llm('b', ['n']), join: llm('{{a}} + {{b}}', ['sum']) } },
    answer: (p) => p === 'a' ? { n: 1 } : p === 'b' ? { n: 2 } : { sum: p },
    result: { sum: '{"n":1} + {"n":2}' },
  },
  {
    name: '16. a loop gives each child { ...sibling_fields, [arrayField]: item } and outputs the list in order',
    flow: { steps: { type: 'loop', arrayField: 'items', children: ['tr'] }, blocks: { tr: llm('{{items}} in {{lang}}', ['t']) } },
    input: { items: ['a', 'b', 'c'], lang: 'en' },
    answer: (p) => ({ t: p }),
    result: [{ t: 'a in en' }, { t: 'b in en' }, { t: 'c in en' }],
    check: (r) => {
      const done = r.events.flatMap((e) => (e.type === 'step_completed' ? [[e.step, e.iteration]] : []))
      expect(done).toEqual([['tr', 0], ['tr', 1], ['tr', 2], ['/steps', undefined]])
    },
  },
  {
    name: '17. array_field is accepted too, and a loop body is a sequence',
    flow: { steps: { type: 'loop', array_field: 'xs', children: ['p', 'sq'] }, blocks: { p: pass, sq: llm('{{xs}}', [{ name: 'y', type: 'integer' }]) } },
    input: { xs: [2, 3] },
    answer: (p) => ({ y: Number(p) ** 2 }),
    result: [{ y: 4 }, { y: 9 }],
  },
  {
    name: '18. a loop over an empty list outputs []; the next block receives the list',
    flow: { steps: [{ type: 'loop', arrayField: 'xs', children: ['p'] }, 'after'], blocks: { p: pass, after: llm('got {{initial.xs}}', ['n']) } },
    input: { xs: [] },
    answer: (p) => ({ n: p.length }),
    result: { n: 6 },
  },
  {
    name: '19. a loop whose input has no list in its arrayField: FLOW_LOOP_INPUT',
    flow: { steps: { type: 'loop', arrayField: 'items', children: ['p'] }, blocks: { p: pass } },
    input: { items: 'not a list' },
    answer: () => ({}),
    error: 'FLOW_LOOP_INPUT',
  },
  {
    name: '20. a loop inside v inside a loop',
    flow: { steps: { type: 'loop', id: 'outer', arrayField: 'groups', children: [
      { type: 'v', id: 'both', children: ['name', { type: 'loop', arrayField: 'members', children: ['m'] }] },
    ] }, blocks: { name: llm('group {{groups}}', ['g']), m: llm('member {{members}} of {{groups}}', ['x']) } },
    input: { groups: ['g1'], members: ['ann', 'bo'] },
    answer: (p) => p.startsWith('group') ? { g: p } : { x: p },
    result: [{ name: { g: 'group g1' }, 1: [{ x: 'member ann of g1' }, { x: 'member bo of g1' }] }],
  },
  {
    name: '21. global_input_schema checks the input before anything runs',
    flow: { global_input_schema: { fields: [{ name: 'topic', type: 'string' }] }, steps: ['a'], blocks: { a: llm('{{topic}}', ['o']) } },
    input: { topic: 42 },
    answer: () => ({ o: 1 }),
    error: 'ARGS_INVALID',
    check: (_r, calls) => expect(calls.length).toBe(0),
  },
  {
    name: '22. events: every container and block starts and completes, with fuel and tokens',
    flow: { steps: { type: 'h', id: 'main', children: ['a', { type: 'v', id: 'fan', children: ['b', 'c'] }] }, blocks: { a: llm('a', ['x']), b: pass, c: pass } },
    answer: () => ({ content: '{"x": 1}', usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }),
    result: { b: { x: 1 }, c: { x: 1 } },
    check: (r) => {
      expect(r.events.map((e) => `${e.type}${'step' in e ? ` ${e.step}` : ''}`)).toEqual([
        'run_started', 'step_started main', 'step_started a', 'step_completed a', 'step_started fan',
        'step_started b', 'step_completed b', 'step_started c', 'step_completed c', 'step_completed fan', 'step_completed main', 'flow_completed',
      ])
      const a = r.events.find((e) => e.type === 'step_completed' && e.step === 'a') as { fuel: number; tokens: unknown }
      expect(a.tokens).toEqual({ prompt: 5, completion: 2, total: 7 })
      expect(a.fuel).toBeGreaterThanOrEqual(100)
      const main = r.events.find((e) => e.type === 'step_completed' && e.step === 'main') as { fuel: number }
      expect(main.fuel).toBeGreaterThan(a.fuel)
    },
  },
  {
    name: '23. a failing v child fails the container and the flow (first error wins)',
    flow: { steps: { type: 'v', id: 'fan', children: ['ok', 'bad'] }, blocks: { ok: llm('ok', ['v']), bad: llm('{{missing}}', ['v']) } },
    answer: () => ({ v: 1 }),
    error: 'FLOW_TEMPLATE',
    check: (r) => {
      const failed = r.events.filter((e) => e.type === 'step_failed').map((e) => (e as { step: string }).step)
      expect(failed).toContain('bad')
      expect(failed).toContain('fan')
    },
  },
  {
    name: '24. a code block: the contract\'s example wrapper (input_schema fields as parameters, a dict back)',
    flow: { steps: ['person'], blocks: { person: code('full_name = first_name + " " + last_name\nreturn {"full_name": full_name, "is_adult": age >= 18}', ['first_name', 'last_name', 'age']) } },
    input: { first_name: 'Ada', last_name: 'Lovelace', age: 36 },
    answer: () => ({}),
    result: { full_name: 'Ada Lovelace', is_adult: true },
  },
  {
    name: '25. code blocks see initial (the global input) and have Python semantics',
    flow: { steps: ['ask', 'calc'], blocks: { ask: llm('n?', [{ name: 'n', type: 'integer' }]), calc: code('return {"half": n / 2, "floor": n // 2, "label": initial["unit"] * 2, "neg": -n % 3}', ['n']) } },
    input: { unit: 'kg' },
    answer: () => ({ n: 7 }),
    result: { half: 3.5, floor: 3, label: 'kgkg', neg: 2 },
  },
  {
    name: '26. two code blocks may define helpers of the same name',
    flow: { steps: ['a', 'b'], blocks: {
      a: code('def clean(s):\n    return s.strip()\nreturn {"t": clean(t)}', ['t']),
      b: code('def clean(s):\n    return s.upper()\nreturn {"t": clean(t) + "!"}', ['t']),
    } },
    input: { t: '  hi  ' },
    answer: () => ({}),
    result: { t: 'HI!' },
  },
  {
    name: '27. a code block in a loop runs once per item with the sibling fields',
    flow: { steps: { type: 'loop', arrayField: 'n', children: ['sq'] }, blocks: { sq: code('return {"v": n * n, "tag": tag}', ['n', 'tag']) } },
    input: { n: [1, 2, 3], tag: 't' },
    answer: () => ({}),
    result: [{ v: 1, tag: 't' }, { v: 4, tag: 't' }, { v: 9, tag: 't' }],
  },
  {
    name: '28. a code block must return a dict',
    flow: { steps: ['a'], blocks: { a: code('return [x]', ['x']) } },
    input: { x: 1 },
    answer: () => ({}),
    error: 'PY_EXCEPTION',
    check: (r) => expect(r.error?.message).toContain('dict'),
  },
  {
    name: '29. **pipeline_input is strict: a key that is not a parameter is Python\'s TypeError, reported as a wiring mistake',
    flow: { steps: ['a'], blocks: { a: code('return {"x": x}', ['x']) } },
    input: { x: 1, extra: 2 },
    answer: () => ({}),
    error: 'FLOW_BLOCK_INPUT',
    check: (r) => expect(r.error?.message).toEndWith("TypeError: _block() got an unexpected keyword argument 'extra'"),
  },
  {
    name: '30. an exception in a block points at the line in that block',
    flow: { steps: ['ok', 'bad'], blocks: { ok: pass, bad: code('total = 0\nfor k in ks:\n    total += d[k]\nreturn {"total": total}', ['ks', 'd']) } },
    input: { ks: ['a', 'b'], d: { a: 1 } },
    answer: () => ({}),
    error: 'PY_EXCEPTION',
    check: (r) => {
      expect(r.error).toMatchObject({ pythonType: 'KeyError', message: "KeyError: 'b'", location: 'blocks/bad.py:3:14' })
      expect(r.events.find((e) => e.type === 'step_failed')).toMatchObject({ step: 'bad', kind: 'code' })
    },
  },
  {
    name: '31. a code block after a loop receives a list (** needs a mapping): refused before the run (BlockInputMismatch)',
    flow: { steps: [{ type: 'loop', arrayField: 'xs', children: ['p'] }, 'c'], blocks: { p: pass, c: code('return {}', []) } },
    input: { xs: [1] },
    answer: () => ({}),
    error: 'FLOW_INVALID',
    check: (r) => expect(r.error?.details?.[0]!.message).toStartWith('BlockInputMismatch'),
  },
  {
    name: '32. Python outside the subset is refused before anything runs',
    flow: { steps: ['a'], blocks: { a: code('import os\nreturn {}', []) } },
    answer: () => ({}),
    error: 'FLOW_INVALID',
    check: (r, calls) => {
      expect(r.error?.details?.[0]).toMatchObject({ path: '/blocks/a/content' })
      expect(r.error?.details?.[0]!.message).toContain('InvalidCode')
      expect(calls.length).toBe(0)
    },
  },
  {
    name: '33. llm → code → llm: each gets the previous output',
    flow: { steps: ['words', 'count', 'say'], blocks: {
      words: llm('{{text}}', [{ name: 'words', type: 'list' }]),
      count: code('return {"n": len(words), "longest": max(words, key=len)}', ['words']),
      say: llm('{{n}} words, longest {{longest}}', ['line']),
    } },
    input: { text: 'a bb ccc' },
    answer: (p) => p === 'a bb ccc' ? { words: p.split(' ') } : { line: p },
    result: { line: '3 words, longest ccc' },
  },
]

describe('Block flows against a fake llm', () => {
  test('at least 20 flows', () => expect(cases.length).toBeGreaterThanOrEqual(20))
  for (const c of cases) {
    test(c.name, async () => {
      const fake = model(c.answer)
      const r = await runFlow(c.flow as BlockFlow, c.input ?? {}, { capabilities: { llm: fake }, fuel: 10_000 })
      if (c.error) expect(r.error?.code).toBe(c.error)
      else {
        expect(r.error).toBeUndefined()
        expect(r.result).toEqual(c.result)
      }
      if (c.prompts) expect(fake.calls.map((x) => x.prompt)).toEqual(c.prompts)
      if (c.error === 'FLOW_INVALID') expect(r.events).toEqual([]) // refused before running
      else {
        expect(r.events[0]!.type).toBe('run_started')
        expect(r.events.at(-1)).toMatchObject({ type: 'flow_completed', status: c.error ? 'failed' : 'ok' })
      }
      c.check?.(r, fake.calls)
    })
  }
  test('the same flow and input always use the same fuel', async () => {
    const c = cases[19]!
    const a = await runFlow(c.flow, c.input, { capabilities: { llm: model(c.answer) } })
    const b = await runFlow(c.flow, c.input, { capabilities: { llm: model(c.answer) } })
    expect(a.fuelUsed).toBe(b.fuelUsed)
    expect(a.fuelUsed).toBeGreaterThan(300)
  })
})
