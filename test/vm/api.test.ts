/** Host API: exports, createAgent, tools, isAgentError, RunResult shape, compile cache, entry points. */
import { describe, expect, test } from 'bun:test'
import * as vmEntry from '../../src/vm/index.ts'
import { AgentRunError, AgentVM, coreAtoms, createAgent, defineAtom, getToolDefinitions, isAgentError } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import { AgentVM as FullAgentVM } from '../../src/index.ts'
import { CORE_OPS } from '../../src/ast/nodes.ts'
import { bin, id, lit, prog, progArgs, ret, run } from './ast.ts'

const double = progArgs(['n'], [ret(bin('*', id('n'), lit(2)))])

describe('exports', () => {
  test('ajs-lang/vm exports the runtime API', () => {
    for (const name of ['AgentVM', 'RUN_DEFAULTS', 'isAgentError', 'coreAtoms', 'defineAtom', 'PROCEDURE_TOKEN_PREFIX', 'DEFAULT_PROCEDURE_TTL',
      'DEFAULT_MAX_AST_SIZE', 'MemoryProcedureStore', 'ATOM_COSTS', 'NODE_COST', 'FUEL_UNIT', 'getToolDefinitions', 'createAgent',
      'AgentRunError', 'validateAst', 'AST_FORMAT_VERSION']) {
      expect(name in vmEntry).toBe(true)
    }
    expect(vmEntry.AST_FORMAT_VERSION).toBe(1)
    // tosijs-schema's `s` comes with the schema part (ajs-lang/vm/schema) and the full entry, not the bare VM.
    expect('s' in vmEntry).toBe(false)
    expect(typeof s.object).toBe('function')
  })
  test('coreAtoms: every callable core op, frozen, each with fields, cost and docs', () => {
    expect(Object.isFrozen(coreAtoms)).toBe(true)
    const callable = ['push', 'len', 'split', 'join', 'pick', 'omit', 'merge', 'keys', 'template', 'regexMatch', 'jsonParse', 'jsonStringify',
      'random', 'uuid', 'hash', 'consoleLog', 'consoleWarn', 'consoleError', 'httpFetch', 'storeGet', 'storeSet', 'storeQuery',
      'storeVectorSearch', 'llmPredict', 'agentRun', 'storeProcedure', 'releaseProcedure', 'clearExpiredProcedures']
    expect(Object.keys(coreAtoms).sort()).toEqual(callable.sort())
    for (const [op, def] of Object.entries(coreAtoms)) {
      expect(def.op).toBe(op)
      expect(def.fields).toBe(CORE_OPS[op]!.fields)
      expect(typeof def.docs).toBe('string')
      expect(typeof def.cost).toBe('number')
    }
  })
  test('vm.atoms holds core and custom atoms', () => {
    const mine = defineAtom('mine', s.object({}), s.any, () => 1)
    const machine = new AgentVM({ mine })
    expect(machine.atoms.get('mine')).toBe(mine)
    expect(machine.atoms.get('len')).toBe(coreAtoms.len)
    expect(new AgentVM([mine]).atoms.has('mine')).toBe(true)
  })
})

describe('isAgentError', () => {
  test('true for run errors, false otherwise', async () => {
    const r = await run(prog([{ op: 'throw', value: 'x' }]))
    expect(isAgentError(r.error)).toBe(true)
    expect(isAgentError({ name: 'AgentError', code: 'X', message: '' })).toBe(true)
    expect(isAgentError(new Error('x'))).toBe(false)
    expect(isAgentError({ name: 'AgentError' })).toBe(false)
    expect(isAgentError(null)).toBe(false)
    expect(isAgentError('AgentError')).toBe(false)
  })
})

describe('RunResult', () => {
  test('success: { result, fuelUsed } and no error key', async () => {
    const r = await run(double, { n: 2 })
    expect(r).toEqual({ result: 4, fuelUsed: 0.04 })
  })
  test('failure: error has name, code, message, hint; with loc it has location', async () => {
    const r = await run(prog([{ op: 'throw', value: 'bad', loc: [7, 2] }]))
    expect(r.error).toMatchObject({ name: 'AgentError', code: 'THROWN', message: 'bad', location: '<ajs>:7:3', line: 7, column: 3, op: 'throw' })
    expect(typeof r.error?.hint).toBe('string')
  })
  test('the error location points at the innermost located step', async () => {
    const ast = prog([{ op: 'if', condition: lit(true), loc: [1, 0], then: [{ op: 'throw', value: 'x', loc: [2, 4] }] }])
    expect((await run(ast)).error?.location).toBe('<ajs>:2:5')
  })
  test('in a row of `let`s, an error points at its own step', async () => {
    const bad = { $expr: 'methodCall', object: lit(null), method: 'trim', args: [] }
    const lets = (k: number) => [0, 1, 2].map((i) => ({ op: 'varsLet', vars: { [`v${i}`]: i === k ? bad : lit(i) }, loc: [i + 1, 2] }))
    for (const k of [0, 1, 2]) {
      const e = (await run(prog([...lets(k), ret(id('v2'))]))).error
      expect(e).toMatchObject({ code: 'TYPE_ERROR', location: `<ajs>:${k + 1}:3`, op: 'varsLet' })
    }
    expect((await run(prog([...lets(-1), ret(id('v2'))]))).result).toBe(2)
  })
  test('expression locations are used for errors inside expressions', async () => {
    const ast = prog([{ op: 'return', loc: [1, 0], value: { $expr: 'methodCall', object: lit(null), method: 'trim', args: [], loc: [1, 7] } }])
    const e = (await run(ast)).error
    expect(e?.code).toBe('TYPE_ERROR')
    expect(e?.line).toBe(1)
  })
  test('warnings collect consoleWarn output', async () => {
    const r = await run(prog([{ op: 'consoleWarn', message: 'careful' }]))
    expect(r.warnings).toEqual(['careful'])
  })
  test('the result is JSON-serializable', async () => {
    const r = await run(prog([{ op: 'throw', value: { deep: [1, { x: 2 }] } }]))
    expect(JSON.parse(JSON.stringify(r))).toEqual(r as any)
  })
})

describe('createAgent', () => {
  test('an agent is an async function of args', async () => {
    const machine = new AgentVM()
    const agent = createAgent<number>(double, machine)
    expect(await agent({ n: 5 })).toBe(10)
    expect(await agent({ n: 6 })).toBe(12)
  })
  test('failures reject with AgentRunError carrying the AgentError and fuelUsed', async () => {
    const agent = createAgent(prog([{ op: 'while', condition: lit(true), body: [] }]), new AgentVM(), { fuel: 1 })
    const e: any = await agent().catch((x) => x)
    expect(e).toBeInstanceOf(AgentRunError)
    expect(e.error.code).toBe('FUEL_EXHAUSTED')
    expect(e.fuelUsed).toBe(1)
    expect(e.message).toContain('FUEL_EXHAUSTED')
  })
  test('per-call option overrides', async () => {
    const agent = createAgent(prog([{ op: 'while', condition: lit(true), body: [] }]), new AgentVM(), { fuel: 1 })
    const e: any = await agent({}, { fuel: 2 }).catch((x) => x)
    expect(e.fuelUsed).toBe(2)
  })
  test('from a procedure token', async () => {
    const machine = new AgentVM()
    const t = (await machine.run(prog([{ op: 'storeProcedure', ast: { $expr: 'literal', value: double }, result: 't' }, ret(id('t'))]))).result as string
    expect(await createAgent(t, machine)({ n: 7 })).toBe(14)
  })
  test('from source text with the full AgentVM (ajs-lang), which the runtime-only VM refuses', async () => {
    const full = new FullAgentVM()
    const src = 'function double({ n }) { return n * 2 }'
    expect(await createAgent(src, full)({ n: 8 })).toBe(16)
    expect((await new AgentVM().run(src)).error?.code).toBe('SOURCE_NOT_SUPPORTED')
  })
})

describe('tools', () => {
  test('vm.getTools() describes expression-callable atoms as OpenAI-style tools', () => {
    const search = defineAtom('search', s.object({ q: s.string }), s.array(s.string), () => [], { docs: 'Search the index.' })
    const tools = new AgentVM({ search }).getTools()
    const t = tools.find((x) => x.function.name === 'search')!
    expect(t.type).toBe('function')
    expect(t.function.description).toBe('Search the index.')
    expect(t.function.parameters).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
    const fetchTool = tools.find((x) => x.function.name === 'httpFetch')!
    expect(fetchTool.function.parameters).toMatchObject({ type: 'object', required: ['url'] })
    expect(tools.some((x) => x.function.name === 'if')).toBe(false)
  })
  test('getToolDefinitions describes agents from their inputSchema and description', () => {
    const agent = { ...double, description: 'Doubles n.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }
    expect(getToolDefinitions({ doubler: agent as any, bare: prog([]) })).toEqual([
      { type: 'function', function: { name: 'doubler', description: 'Doubles n.', parameters: agent.inputSchema } },
      { type: 'function', function: { name: 'bare', description: 'bare', parameters: { type: 'object', properties: {} } } },
    ])
  })
})

describe('compile cache', () => {
  test('the same AST object runs many times with the same result and fuel', async () => {
    const machine = new AgentVM()
    const a = await machine.run(double, { n: 1 })
    const b = await machine.run(double, { n: 1 })
    expect(a).toEqual(b)
  })
  test('an invalid AST stays invalid on every run', async () => {
    const machine = new AgentVM()
    const bad = prog([{ op: 'expr' }])
    expect((await machine.run(bad)).error?.code).toBe('AST_INVALID')
    expect((await machine.run(bad)).error?.code).toBe('AST_INVALID')
  })
  test('vm.compile returns a compiled program for valid ASTs and throws for invalid ones', () => {
    const machine = new AgentVM()
    expect(typeof machine.compile(double).run).toBe('function')
    expect(() => machine.compile(prog([{ op: 'expr' }]))).toThrow()
  })
})
