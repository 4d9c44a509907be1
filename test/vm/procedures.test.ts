/** Procedure store: tokens, TTL, size cap, vm.run(token), agentRun, capability inheritance, isolation. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, DEFAULT_MAX_AST_SIZE, DEFAULT_PROCEDURE_TTL, MemoryProcedureStore, PROCEDURE_TOKEN_PREFIX } from '../../src/vm/index.ts'
import { bin, call, id, lit, mem, obj, prog, progArgs, ret, run, value } from './ast.ts'

const double = progArgs(['n'], [ret(bin('*', id('n'), lit(2)))])
const store = (ast: unknown, extra: Record<string, unknown> = {}) => prog([{ op: 'storeProcedure', ast: { $expr: 'literal', value: ast }, ...extra, result: 't' }, ret(id('t'))])

describe('storeProcedure', () => {
  test('returns a proc_ token with an unguessable id', async () => {
    const machine = new AgentVM()
    const t1 = await value(store(double), {}, undefined, machine)
    const t2 = await value(store(double), {}, undefined, machine)
    expect(PROCEDURE_TOKEN_PREFIX).toBe('proc_')
    expect(t1).toMatch(/^proc_[0-9a-f-]{36}$/)
    expect(t1).not.toBe(t2)
  })
  test('vm.run(token) runs the stored AST', async () => {
    const machine = new AgentVM()
    const token = await value(store(double), {}, undefined, machine)
    expect(await value(token, { n: 21 }, undefined, machine)).toBe(42)
  })
  test('the token uses the injected uuid', async () => {
    expect(await value(store(double), {}, { uuid: () => 'fixed' })).toBe('proc_fixed')
  })
  test('an invalid AST is refused at store time', async () => {
    const r = await run(store({ ajs: 1, op: 'seq', steps: [{ op: 'nope!' }] }))
    expect(r.error?.code).toBe('AST_INVALID')
    expect(r.error?.op).toBe('storeProcedure')
  })
  test('size cap: default 100 KB, and maxSize', async () => {
    expect(DEFAULT_MAX_AST_SIZE).toBe(102_400)
    const big = prog([ret(lit('x'.repeat(DEFAULT_MAX_AST_SIZE)))])
    expect((await run(store(big), {}, { fuel: 1e6 })).error?.code).toBe('PROCEDURE_TOO_LARGE')
    expect((await run(store(double, { maxSize: 50 }))).error?.code).toBe('PROCEDURE_TOO_LARGE')
  })
  test('cost: 1 + 0.001 per byte of AST JSON', async () => {
    const bytes = JSON.stringify(double).length
    const r = await run(store(double))
    // return step 0.01 + ident 0.01 + storeProcedure step 0.01 + literal 0.01 + copying the literal + 1 + bytes × 0.001
    expect(r.error).toBeUndefined()
    const base = await run(prog([{ op: 'expr', value: { $expr: 'literal', value: double }, result: 't' }, ret(id('t'))]))
    expect(Math.round((r.fuelUsed - base.fuelUsed) * 1e6)).toBe(Math.round((1 + bytes * 0.001) * 1e6))
  })
})

describe('TTL and release', () => {
  test('default TTL is one hour; expiry follows the injected clock', async () => {
    expect(DEFAULT_PROCEDURE_TTL).toBe(3_600_000)
    let now = 1_000
    const procs = new MemoryProcedureStore({ now: () => now })
    const machine = new AgentVM({}, { procedures: procs })
    const token = await value(store(double, { ttl: 500 }), {}, { now: () => now }, machine)
    expect(await value(token, { n: 1 }, undefined, machine)).toBe(2)
    now = 1_499
    expect(await value(token, { n: 2 }, undefined, machine)).toBe(4)
    now = 1_500
    const r = await run(token, { n: 3 }, undefined, machine)
    expect(r.error?.code).toBe('PROCEDURE_NOT_FOUND')
  })
  test('entries record createdAt and expiresAt', async () => {
    const procs = new MemoryProcedureStore({ now: () => 10 })
    const machine = new AgentVM({}, { procedures: procs })
    const token = await value(store(double), {}, { now: () => 10 }, machine)
    expect(await procs.get(token)).toMatchObject({ createdAt: 10, expiresAt: 10 + 3_600_000, ast: double })
  })
  test('releaseProcedure deletes; true then false', async () => {
    const machine = new AgentVM()
    const token = await value(store(double), {}, undefined, machine)
    const rel = prog([{ op: 'releaseProcedure', token, result: 'a' }, { op: 'releaseProcedure', token, result: 'b' }, ret({ $expr: 'array', elements: [id('a'), id('b')] })])
    expect(await value(rel, {}, undefined, machine)).toEqual([true, false])
    expect((await run(token, {}, undefined, machine)).error?.code).toBe('PROCEDURE_NOT_FOUND')
  })
  test('clearExpiredProcedures removes expired entries and reports how many; costs 0.5 + 0.01 per scanned', async () => {
    let now = 0
    const procs = new MemoryProcedureStore({ now: () => now })
    const machine = new AgentVM({}, { procedures: procs })
    await value(store(double, { ttl: 10 }), {}, { now: () => now }, machine)
    await value(store(double, { ttl: 10 }), {}, { now: () => now }, machine)
    await value(store(double, { ttl: 1000 }), {}, { now: () => now }, machine)
    now = 100
    const r = await run(prog([{ op: 'clearExpiredProcedures', result: 'n' }, ret(id('n'))]), {}, { now: () => now }, machine)
    expect(r.result).toBe(2)
    expect(r.fuelUsed).toBe(0.01 + 0.5 + 3 * 0.01 + 0.02)
    expect(procs.size).toBe(1)
  })
  test('max entries: the oldest is evicted', async () => {
    const procs = new MemoryProcedureStore({ maxEntries: 2 })
    const machine = new AgentVM({}, { procedures: procs })
    const t1 = await value(store(double), {}, undefined, machine)
    const t2 = await value(store(double), {}, undefined, machine)
    const t3 = await value(store(double), {}, undefined, machine)
    expect(procs.size).toBe(2)
    expect((await run(t1, { n: 1 }, undefined, machine)).error?.code).toBe('PROCEDURE_NOT_FOUND')
    expect(await value(t2, { n: 1 }, undefined, machine)).toBe(2)
    expect(await value(t3, { n: 1 }, undefined, machine)).toBe(2)
  })
  test('unknown token', async () => {
    const r = await run('proc_does-not-exist')
    expect(r.error?.code).toBe('PROCEDURE_NOT_FOUND')
  })
})

describe('agentRun', () => {
  const caller = (agentId: unknown, input: unknown) => prog([ret(call('agentRun', obj({ agentId: agentId as any, input: input as any })))])
  test('with a token', async () => {
    const machine = new AgentVM()
    const token = await value(store(double), {}, undefined, machine)
    expect(await value(caller(lit(token), obj({ n: lit(5) })), {}, undefined, machine)).toBe(10)
  })
  test('with an AST', async () => {
    expect(await value(caller(lit(double), obj({ n: lit(4) })))).toBe(8)
  })
  test('a stored procedure runs with the caller\'s capabilities, not the storer\'s', async () => {
    const machine = new AgentVM()
    const reader = prog([ret(call('storeGet', obj({ key: lit('who') })))])
    const token = await value(store(reader), {}, { capabilities: { store: { get: async () => 'storer' } } }, machine)
    const r = await value(caller(lit(token), obj({})), {}, { capabilities: { store: { get: async () => 'caller' } } }, machine)
    expect(r).toBe('caller')
    // and a caller without the capability gets CAPABILITY_MISSING
    expect((await run(caller(lit(token), obj({})), {}, undefined, machine)).error?.code).toBe('CAPABILITY_MISSING')
  })
  test('child fuel is charged to the caller; the child shares the budget', async () => {
    const child = prog([ret(lit(1))]) // return 0.01 + literal 0.01
    const r = await run(caller(lit(child), obj({})))
    // return step 0.01 + call node 0.01 + object 0.01 + literal AST 0.01 + object 0.01 + copying the AST literal + agentRun 10 + child 0.02
    expect(r.error).toBeUndefined()
    const spin = prog([{ op: 'while', condition: lit(true), body: [] }])
    const r2 = await run(caller(lit(spin), obj({})), {}, { fuel: 20 })
    expect(r2.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r2.fuelUsed).toBe(20)
  })
  test('a non-token string is refused', async () => {
    expect((await run(caller(lit('some-agent'), obj({})))).error?.code).toBe('PROCEDURE_NOT_FOUND')
  })
  test('the child\'s input schema is enforced', async () => {
    const typed = { ...double, inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }
    expect((await run(caller(lit(typed), obj({ n: lit('x') })))).error?.code).toBe('ARGS_INVALID')
  })
  test('nesting is bounded by limits.maxAgentDepth', async () => {
    const machine = new AgentVM()
    // A procedure that calls itself through a token passed in its input.
    const self = progArgs(['me', 'd'], [ret(call('agentRun', obj({ agentId: id('me'), input: obj({ me: id('me'), d: bin('+', id('d'), lit(1)) }) })))])
    const token = await value(store(self), {}, undefined, machine)
    const r = await run(token, { me: token, d: 0 }, { fuel: 1e6, limits: { maxAgentDepth: 3 } }, machine)
    expect(r.error?.code).toBe('STACK_OVERFLOW')
  })
  test('capabilities.agent.run, when given, handles agentRun', async () => {
    const seen: unknown[] = []
    const agent = { run: async (id: unknown, input: unknown, opts: { signal: AbortSignal }) => { seen.push([id, input, opts.signal instanceof AbortSignal]); return { remote: true } } }
    expect(await value(caller(lit('remote-agent'), obj({ q: lit(1) })), {}, { capabilities: { agent } })).toEqual({ remote: true })
    expect(seen).toEqual([['remote-agent', { q: 1 }, true]])
  })
  test('a child error becomes the caller\'s (catchable) error', async () => {
    const failing = prog([{ op: 'throw', value: 'child failed' }])
    const ast = prog([{ op: 'try', try: [ret(call('agentRun', obj({ agentId: lit(failing) })))], catchParam: 'e', catch: [ret(id('e'))] }])
    expect(await value(ast)).toBe('child failed')
  })
})

describe('store isolation', () => {
  test('VMs given their own stores do not share them', async () => {
    const a = new AgentVM({}, { procedures: new MemoryProcedureStore() })
    const b = new AgentVM({}, { procedures: new MemoryProcedureStore() })
    const token = await value(store(double), {}, undefined, a)
    expect((await run(token, { n: 1 }, undefined, b)).error?.code).toBe('PROCEDURE_NOT_FOUND')
  })
  test('VMs without a procedures option share the process-wide store', async () => {
    const token = await value(store(double), {}, undefined, new AgentVM())
    expect(await value(token, { n: 1 }, undefined, new AgentVM())).toBe(2)
  })
  test('unless the host passes the same store', async () => {
    const shared = new MemoryProcedureStore()
    const a = new AgentVM({}, { procedures: shared })
    const b = new AgentVM({}, { procedures: shared })
    const token = await value(store(double), {}, undefined, a)
    expect(await value(token, { n: 1 }, undefined, b)).toBe(2)
    expect(a.procedures).toBe(shared)
  })
  test('the store is an interface: an async host store works', async () => {
    const data = new Map<string, any>()
    const procedures = {
      get: async (t: string) => data.get(t),
      set: async (t: string, e: any) => { data.set(t, e) },
      delete: async (t: string) => data.delete(t),
      clearExpired: async () => [0, data.size] as [number, number],
    }
    const machine = new AgentVM({}, { procedures })
    const token = await value(store(double), {}, undefined, machine)
    expect(data.has(token)).toBe(true)
    expect(await value(token, { n: 3 }, undefined, machine)).toBe(6)
  })
})

describe('MemoryProcedureStore', () => {
  test('dispose clears', () => {
    const st = new MemoryProcedureStore()
    st.set('proc_a', { ast: {}, createdAt: 0, expiresAt: Date.now() + 1000 })
    expect(st.size).toBe(1)
    st.dispose()
    expect(st.size).toBe(0)
  })
  test('mem helper sanity', () => {
    expect(mem(id('a'), 'b')).toEqual({ $expr: 'member', object: { $expr: 'ident', name: 'a' }, property: 'b' })
  })
})
