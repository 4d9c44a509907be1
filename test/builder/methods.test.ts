/**
 * Every builder method (and every core atom method) builds a valid AST that
 * runs on the VM with the expected result. A coverage check makes sure no
 * method of the builder or atom of the table is left without a case.
 */
import { describe, expect, test } from 'bun:test'
import { s } from 'tosijs-schema'
import { Agent, e } from '../../src/builder/index.ts'
import { METHODS } from '../../src/builder/methods.ts'
import { CORE_ATOM_FIELDS } from '../../src/builder/core-atoms.ts'
import { CORE_OPS } from '../../src/ast/nodes.ts'
import { validateAst } from '../../src/ast/validate.ts'
import { AgentVM } from '../../src/full-vm.ts'
import { defineAtom } from '../../src/vm/atoms/define.ts'

function fakeCapabilities() {
  const data = new Map<string, unknown>()
  const logs: unknown[] = []
  return {
    logs,
    fetch: async (url: string, init: { method?: string }) => ({ url, method: init.method ?? 'GET' }),
    store: {
      get: async (k: string) => data.get(k) ?? null,
      set: async (k: string, v: unknown) => { data.set(k, v) },
      query: async (q: unknown) => ({ query: q, hits: data.size }),
      vectorSearch: async (q: { k?: number }) => [{ id: 'doc1', score: 1, k: q.k ?? null }],
    },
    llm: { predict: async (prompt: string) => `echo: ${prompt}` },
    console: { log: (...a: unknown[]) => logs.push(a), warn: (...a: unknown[]) => logs.push(a), error: (...a: unknown[]) => logs.push(a) },
  }
}

interface Case {
  /** The methods this case covers. */
  covers: string[]
  build: () => { toJSON(): unknown }
  args?: Record<string, unknown>
  expected: unknown
  /** Check the result loosely instead of by equality. */
  check?: (result: unknown) => void
}

const child = Agent.take(s.object({ x: s.number })).return(e.parse('x * 2'))

const CASES: Case[] = [
  { covers: ['take', 'return'], build: () => Agent.take(s.object({ a: s.number })).return(e.ident('a')), args: { a: 4 }, expected: 4 },
  { covers: ['meta', 'toJSON'], build: () => Agent.meta({ name: 'named', description: 'd' }).return('ok'), expected: 'ok' },
  { covers: ['as', 'len'], build: () => Agent.len({ value: [1, 2, 3] }).as('n').return(e.ident('n')), expected: 3 },
  { covers: ['let'], build: () => Agent.let('x', 1).let({ y: 2, z: e.parse('x + y') }).return(e.ident('z')), expected: 3 },
  { covers: ['const'], build: () => Agent.const('k', 'v').return(e.ident('k')), expected: 'v' },
  { covers: ['set'], build: () => Agent.let('x', 1).set('x', 5).return(e.ident('x')), expected: 5 },
  { covers: ['expr'], build: () => Agent.let('x', 1).expr('x += 41').return(e.ident('x')), expected: 42 },
  { covers: ['throw', 'try'], build: () => Agent.try({ try: (b) => b.throw('no'), catchParam: 'err', catch: (b) => b.return(e.ident('err')) }), expected: 'no' },
  { covers: ['break', 'while'], build: () => Agent.let('i', 0).while('true', (b) => b.expr('i++').if('i === 3', (c) => c.break())).return(e.ident('i')), expected: 3 },
  { covers: ['continue', 'forOf'], build: () => Agent.let('s', 0).forOf('x', '[1, 2, 3, 4]', (b) => b.if('x === 2', (c) => c.continue()).expr('s += x')).return(e.ident('s')), expected: 8 },
  { covers: ['if'], build: () => Agent.take(s.object({ err: s.object({ message: s.string }) }))
    .if('m.includes("timeout")', { m: 'err.message' }, (b) => b.return('retry'), (b) => b.return('fail')), args: { err: { message: 'timeout!' } }, expected: 'retry' },
  { covers: ['doWhile'], build: () => Agent.let('i', 10).doWhile('i < 5', (b) => b.expr('i++')).return(e.ident('i')), expected: 11 },
  { covers: ['for'], build: () => Agent.let('s', '').for({ init: (b) => b.let('i', 0), condition: 'i < 3', update: 'i++', body: (b) => b.expr('s += i') }).return(e.ident('s')), expected: '012' },
  { covers: ['forIn'], build: () => Agent.let('ks', '').forIn('k', '({ a: 1, b: 2 })', (b) => b.expr('ks += k')).return(e.ident('ks')), expected: 'ab' },
  { covers: ['switch'], build: () => Agent.let('r', 0).switch('"b"', [{ test: '"a"', body: (b) => b.set('r', 1).break() }, { test: '"b"', body: (b) => b.set('r', 2).break() }]).return(e.ident('r')), expected: 2 },
  { covers: ['scope'], build: () => Agent.let('x', 1).scope((b) => b.let('x', 2)).return(e.ident('x')), expected: 1 },
  { covers: ['parallelMap'], build: () => Agent.varSet({ key: 'k', value: 10 }).parallelMap([1, 2, 3], 'x', (b) => b.return(e.parse('x * k + i')), { index: 'i' }).as('out').return(e.ident('out')), expected: [10, 21, 32] },
  { covers: ['parallel'], build: () => Agent.parallel((b) => b.return(1), (b) => b.return(2)).as('both').return(e.ident('both')), expected: [1, 2] },
  { covers: ['map'], build: () => Agent.map([1, 2, 3], 'x', (b) => b.return(e.parse('x * x'))).as('sq').return(e.ident('sq')), expected: [1, 4, 9] },
  { covers: ['filter'], build: () => Agent.filter([1, 2, 3, 4], 'x', 'x % 2 === 0').as('even').return(e.ident('even')), expected: [2, 4] },
  { covers: ['find'], build: () => Agent.take(s.object({ people: s.array(s.object({ name: s.string, age: s.number })) }))
    .find(e.ident('people'), 'p', 'p.age > min', { vars: { min: 30 } }).as('who').return(e.path('who.name')), args: { people: [{ name: 'a', age: 20 }, { name: 'b', age: 40 }] }, expected: 'b' },
  { covers: ['reduce'], build: () => Agent.reduce([1, 2, 3], 'x', 'acc', 10, (b) => b.return(e.parse('acc + x'))).as('total').return(e.ident('total')), expected: 16 },
  { covers: ['memoize'], build: () => Agent.let('calls', 0)
    .forOf('i', '[1, 2, 3]', (b) => b.memoize('k', (c) => c.expr('calls++').return('v'))).return(e.ident('calls')), expected: 1 },
  { covers: ['cache'], build: () => Agent.cache('key', (b) => b.return(7), { ttlMs: 1000 }).as('v').cache('key', (b) => b.return(8)).as('w').return(e.parse('[v, w]')), expected: [7, 7] },
  { covers: ['custom'], build: () => Agent.custom([]).varSet({ key: 'x', value: 4 }).return(e.ident('x')), expected: 4 },
  { covers: ['varGet'], build: () => Agent.let('x', 9).varGet('x').as('y').return(e.ident('y')), expected: 9 },
  { covers: ['varSet', 'args', 'val'], build: () => Agent.take(s.object({ user: s.object({ tags: s.array(s.string) }) }))
    .varSet({ key: 't', value: Agent.args('user.tags.1') }).varSet({ key: 't', value: e.parse('t + "!"') })
    .return(Agent.val('t')), args: { user: { tags: ['a', 'b'] } }, expected: 'b!' },
  { covers: ['varsImport', 'varsExport'], build: () => Agent.varsImport(['a', 'b']).varsExport(['a', 'b']).as('o').return(e.ident('o')), args: { a: 1, b: 2 }, expected: { a: 1, b: 2 } },
  { covers: ['destructure'], build: () => Agent.destructure('let', { $pattern: 'array', elements: ['p', 'q'] }, [1, 2]).return(e.parse('p + q')), expected: 3 },
  { covers: ['atom'], build: () => Agent.atom('len', { value: 'abcd' }).as('n').return(e.ident('n')), expected: 4 },
  { covers: ['step'], build: () => Agent.step({ op: 'len', value: 'ab', result: 'n' }).return(e.ident('n')), expected: 2 },
  { covers: ['ref'], build: () => { const b = Agent.let('x', 3); return b.return(b.ref('x')) }, expected: 3 },
  // --- core atoms -----------------------------------------------------------
  { covers: ['push'], build: () => Agent.let('xs', e.array(1)).push({ list: e.ident('xs'), item: 2 }).return(e.ident('xs')), expected: [1, 2] },
  { covers: ['split', 'join'], build: () => Agent.split({ value: 'a,b,c', separator: ',' }).as('parts').join({ items: e.ident('parts'), separator: '-' }).as('j').return(e.ident('j')), expected: 'a-b-c' },
  { covers: ['pick', 'omit', 'merge', 'keys'], build: () => Agent.let('o', e.parse('({ a: 1, b: 2, c: 3 })'))
    .pick({ object: e.ident('o'), keys: ['a', 'b'] }).as('p').omit({ object: e.ident('o'), keys: ['a'] }).as('q')
    .merge({ objects: [e.ident('p'), e.ident('q')] }).as('m').keys({ object: e.ident('m') }).as('k').return(e.parse('[p, q, k]')),
    expected: [{ a: 1, b: 2 }, { b: 2, c: 3 }, ['a', 'b', 'c']] },
  { covers: ['template'], build: () => Agent.template({ template: 'Hi {{name}}', vars: { name: 'Ada' } }).as('t').return(e.ident('t')), expected: 'Hi Ada' },
  { covers: ['regexMatch'], build: () => Agent.regexMatch({ pattern: '(\\d+)', value: 'abc 42' }).as('m').return(e.parse('m[1]')), expected: '42' },
  { covers: ['jsonParse', 'jsonStringify'], build: () => Agent.jsonParse({ text: '{"a":[1]}' }).as('v').jsonStringify({ value: e.ident('v') }).as('t').return(e.ident('t')), expected: '{"a":[1]}' },
  { covers: ['httpFetch'], build: () => Agent.httpFetch({ url: 'https://x.test/a', method: 'POST' }).as('r').return(e.ident('r')), expected: { url: 'https://x.test/a', method: 'POST' } },
  { covers: ['storeSet', 'storeGet', 'storeQuery', 'storeVectorSearch'], build: () => Agent.storeSet({ key: 'k', value: { n: 1 } }).storeGet({ key: 'k' }).as('v')
    .storeQuery({ query: { prefix: 'k' } }).as('q').storeVectorSearch({ vector: [1, 0], k: 1 }).as('hits').return(e.parse('[v, q.hits, hits[0].id]')), expected: [{ n: 1 }, 1, 'doc1'] },
  { covers: ['llmPredict'], build: () => Agent.llmPredict({ prompt: 'hello' }).as('out').return(e.ident('out')), expected: 'echo: hello' },
  { covers: ['agentRun'], build: () => Agent.agentRun({ agentId: child, input: { x: 21 } }).as('r').return(e.ident('r')), expected: 42 },
  { covers: ['storeProcedure', 'releaseProcedure', 'clearExpiredProcedures'], build: () => Agent.storeProcedure({ ast: child }).as('tok')
    .agentRun({ agentId: e.ident('tok'), input: { x: 5 } }).as('r').releaseProcedure({ token: e.ident('tok') }).as('gone')
    .clearExpiredProcedures().as('cleared').return(e.parse('[r, gone, cleared]')), expected: [10, true, 0] },
  { covers: ['random', 'uuid', 'hash'], build: () => Agent.random({ min: 1, max: 1 }).as('r').uuid().as('id').hash({ value: 'abc' }).as('h')
    .return(e.parse('[r, typeof id, h]')), expected: [1, 'string', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'] },
  { covers: ['consoleLog', 'consoleWarn', 'consoleError'], build: () => Agent.consoleLog({ message: 'a' }).consoleWarn({ message: 'b' }).consoleError({ message: 'c' }).return('logged'), expected: 'logged' },
  { covers: ['Error'], build: () => Agent.try({ try: (b) => b.Error({ message: 'bad input' }), catchParam: 'err', catch: (b) => b.return(e.path('err.message')) }), expected: 'bad input' },
]

describe('every builder method builds a valid AST that runs', () => {
  const vm = new AgentVM()
  for (const c of CASES) {
    test(c.covers.join(', '), async () => {
      const ast = c.build().toJSON()
      expect(validateAst(ast)).toEqual([])
      const res = await vm.run(ast, c.args ?? {}, { capabilities: fakeCapabilities() })
      expect(res.error).toBeUndefined()
      expect(res.result).toEqual(c.expected)
    })
  }

  test('every method and every core atom has a case', () => {
    const covered = new Set(CASES.flatMap((c) => c.covers))
    const all = [...Object.keys(METHODS), ...Object.keys(CORE_ATOM_FIELDS)]
    expect(all.filter((m) => !covered.has(m))).toEqual([])
  })
})

describe('core atom types stay in step with the vocabulary table', () => {
  test('CORE_ATOM_FIELDS lists exactly the all-value core ops, with the same fields and optionality', () => {
    const fromTable: Record<string, Record<string, string>> = {}
    for (const [op, spec] of Object.entries(CORE_OPS)) {
      // statements with builder methods of their own (return, throw, expr) are not atom methods
      if (!Object.values(spec.fields).every((f) => f.kind === 'value') || op in METHODS) continue
      fromTable[op] = Object.fromEntries(Object.entries(spec.fields).map(([k, f]) => [k, f.optional ? 'opt' : 'req']))
    }
    expect(CORE_ATOM_FIELDS as unknown).toEqual(fromTable)
  })
})

describe('vm.Agent', () => {
  const shout = defineAtom('shout', s.object({ text: s.string }), s.string, ({ text }) => text.toUpperCase(), { sync: true })
  const vm = new AgentVM([shout])

  test('custom atoms are methods, and run', async () => {
    const ast = vm.Agent.take(s.object({ who: s.string })).shout({ text: e.parse('`hi ${who}`') }).as('loud').return(e.ident('loud')).toJSON()
    expect(ast.steps[0]).toEqual({ op: 'shout', text: { $expr: 'template', quasis: ['hi ', ''], expressions: [{ $expr: 'ident', name: 'who' }] }, result: 'loud' })
    expect((await vm.run(ast, { who: 'ada' })).result).toBe('HI ADA')
  })

  test('custom atoms are callable inside condition sources', async () => {
    const ast = vm.Agent.let('x', 'a').if('shout({ text: x }) === "A"', (b) => b.return('yes')).return('no').toJSON()
    expect((await vm.run(ast)).result).toBe('yes')
  })

  test('the VM validates args against take()', async () => {
    const ast = vm.Agent.take(s.object({ who: s.string })).return(e.ident('who')).toJSON()
    expect((await vm.run(ast, { who: 3 })).error?.code).toBe('ARGS_INVALID')
  })

  test('the same builder root is returned each time, and core Agent refuses custom atoms', () => {
    expect(vm.Agent).toBe(vm.Agent)
    expect(() => (Agent as any).shout({ text: 'x' })).toThrow(/no method `shout`/)
  })
})
