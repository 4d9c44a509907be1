/**
 * The seed's newer run options (issue 26): quotas (per run, children of
 * agentRun included), the shared quotaUsed ledger, timeoutOverrides,
 * membraneMaxBytes, and the effects tag of atoms with EFFECTFUL_CORE_OPS.
 */
import { describe, expect, test } from 'bun:test'
import { Agent, AgentVM, EFFECTFUL_CORE_OPS, coreAtoms, defineAtom, s, transpile } from '../../src/index.ts'
import * as vmEntry from '../../src/vm/index.ts'
import { jsonSize } from '../../src/vm/membrane.ts'

let ticks = 0
const tick = defineAtom('tick', s.object({}), s.number, async () => ++ticks)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const slow = defineAtom('slow', s.object({ ms: s.number }), s.string, async ({ ms }, ctx) => {
  await sleep(ms)
  return ctx.signal.aborted ? 'aborted' : 'done'
}, { timeoutMs: 20 })
const echo = defineAtom('echo', s.object({ value: s.any }), s.any, ({ value }) => value, { sync: true, effects: 'pure' })
const vm = new AgentVM({ tick, slow, echo })

const callsTick = (n: number) => `function f() { let last = 0; for (let i = 0; i < ${n}; i++) { last = tick({}) } return last }`

describe('quotas: maximum calls per atom per run', () => {
  test('each run has its own allowance', async () => {
    ticks = 0
    expect((await vm.run(callsTick(2), {}, { quotas: { tick: 2 } })).result).toBe(2)
    expect((await vm.run(callsTick(2), {}, { quotas: { tick: 2 } })).result).toBe(4)
    const over = await vm.run(callsTick(3), {}, { quotas: { tick: 2 } })
    expect(over.error?.code).toBe('QUOTA_EXCEEDED')
    expect(ticks).toBe(6)
  })

  test('an in-process agentRun child draws on the run it belongs to', async () => {
    const childAst = transpile('function child() { tick({}); return tick({}) }').ast
    const parent = 'function f({ child }) { tick({}); return agentRun({ agentId: child, input: {} }) }'
    expect((await vm.run(parent, { child: childAst }, { quotas: { tick: 3 } })).error).toBeUndefined()
    const r = await vm.run(parent, { child: childAst }, { quotas: { tick: 2 } })
    expect(r.error?.code).toBe('QUOTA_EXCEEDED')
  })
})

describe('quotaUsed: a ledger shared across runs', () => {
  test('several runs draw on one quota; the refused call is not recorded', async () => {
    ticks = 0
    const ledger: Record<string, number> = {}
    const opts = { quotas: { tick: 3 }, quotaUsed: ledger }
    expect((await vm.run(callsTick(2), {}, opts)).result).toBe(2)
    expect(ledger).toEqual({ tick: 2 })
    const second = await vm.run(callsTick(2), {}, opts)
    expect(second.error?.code).toBe('QUOTA_EXCEEDED')
    expect(ledger).toEqual({ tick: 3 })
    expect(ticks).toBe(3)
  })

  test('a ledger that starts full refuses the first call; without quotas it records every atom call', async () => {
    expect((await vm.run(callsTick(1), {}, { quotas: { tick: 5 }, quotaUsed: { tick: 5 } })).error?.code).toBe('QUOTA_EXCEEDED')
    const ledger: Record<string, number> = { other: 7 }
    await vm.run('function f() { tick({}); tick({}); return uuid({}) }', {}, { quotaUsed: ledger })
    expect(ledger).toEqual({ other: 7, tick: 2, uuid: 1 })
  })

  test('concurrent runs on one ledger make no more calls than the quota', async () => {
    ticks = 0
    const ledger: Record<string, number> = {}
    const runs = await Promise.all([1, 2, 3].map(() => vm.run(callsTick(2), {}, { quotas: { tick: 4 }, quotaUsed: ledger })))
    expect(ticks).toBe(4)
    expect(ledger.tick).toBe(4)
    expect(runs.filter((r) => r.error?.code === 'QUOTA_EXCEEDED').length).toBeGreaterThanOrEqual(1)
  })

  test('a ledger that is not a writable object of counts is refused', async () => {
    for (const quotaUsed of ['x', { tick: -1 }, { tick: 'a' }, Object.freeze({})]) {
      expect((await vm.run('function f() { return 1 }', {}, { quotaUsed } as any)).error?.code).toBe('OPTIONS_INVALID')
    }
  })
})

describe('timeoutOverrides: per-atom time limits for one run', () => {
  test('a shorter limit stops the call with ATOM_TIMEOUT; other atoms keep theirs', async () => {
    expect((await vm.run('function f() { return slow({ ms: 5 }) }')).result).toBe('done')
    const r = await vm.run('function f() { return slow({ ms: 200 }) }', {}, { timeoutOverrides: { slow: 10 } })
    expect(r.error?.code).toBe('ATOM_TIMEOUT')
    expect((await vm.run('function f() { return slow({ ms: 5 }) }', {}, { timeoutOverrides: { tick: 1 } })).result).toBe('done')
  })

  test('a longer limit (or 0: only the run deadline) lets a call the atom would stop finish', async () => {
    expect((await vm.run('function f() { return slow({ ms: 60 }) }')).error?.code).toBe('ATOM_TIMEOUT')
    expect((await vm.run('function f() { return slow({ ms: 60 }) }', {}, { timeoutOverrides: { slow: 1000 } })).result).toBe('done')
    expect((await vm.run('function f() { return slow({ ms: 60 }) }', {}, { timeoutOverrides: { slow: 0 } })).result).toBe('done')
  })

  test('invalid overrides are refused', async () => {
    for (const timeoutOverrides of [5, { slow: -1 }, { slow: 'fast' }]) {
      expect((await vm.run('function f() { return 1 }', {}, { timeoutOverrides } as any)).error?.code).toBe('OPTIONS_INVALID')
    }
  })
})

describe('membraneMaxBytes: the ceiling on data crossing the membrane', () => {
  test('size is the length of the JSON text', () => {
    const samples = [null, 1.5, true, 'abc', [], {}, [1, 'a', null, [false]], { a: 1, bb: { c: [1, 2] }, u: undefined }]
    for (const v of samples) expect(jsonSize(v, Infinity)).toBe(JSON.stringify(v).length)
    expect(jsonSize('x'.repeat(1000), 10)).toBeGreaterThan(10)
  })

  test('args over the ceiling are refused before the run', async () => {
    const args = { text: 'x'.repeat(100) }
    expect((await vm.run('function f({ text }) { return text.length }', args, { membraneMaxBytes: 200 })).result).toBe(100)
    const r = await vm.run('function f({ text }) { return text.length }', args, { membraneMaxBytes: 50 })
    expect(r.error?.code).toBe('VALUE_TOO_LARGE')
    expect(r.error?.message).toContain('args')
  })

  test('the result, an atom input and an atom result are checked', async () => {
    const big = 'function f() { return "ab".repeat(100) }'
    expect((await vm.run(big, {}, { membraneMaxBytes: 100 })).error?.code).toBe('VALUE_TOO_LARGE')
    expect((await vm.run(big, {}, { membraneMaxBytes: 1000 })).result).toHaveLength(200)
    const viaAtom = 'function f({ n }) { const v = echo({ value: "ab".repeat(n) }); return v.length }'
    expect((await vm.run(viaAtom, { n: 10 }, { membraneMaxBytes: 100 })).result).toBe(20)
    const r = await vm.run(viaAtom, { n: 100 }, { membraneMaxBytes: 100 })
    expect(r.error?.code).toBe('VALUE_TOO_LARGE')
    expect(r.error?.message).toContain('input of echo')
    const fetchBig = { fetch: async () => ({ status: 200, headers: new Map([['content-type', 'text/plain']]), text: async () => 'z'.repeat(500) }) }
    const got = await vm.run('function f() { return httpFetch({ url: "https://x" }).status }', {}, { membraneMaxBytes: 300, capabilities: fetchBig })
    expect(got.error?.code).toBe('VALUE_TOO_LARGE')
    expect(got.error?.message).toContain('result of httpFetch')
  })

  test('a cache entry is checked on its way to and from the store', async () => {
    const data = new Map<string, unknown>()
    const store = { get: async (k: string) => data.get(k), set: async (k: string, v: unknown) => { data.set(k, v) } }
    const ast = Agent.cache('k', (b: any) => b.varSet({ key: 'result', value: 'y'.repeat(300) })).as('v').return(s.object({ v: s.string })).toJSON()
    const r = await vm.run(ast, {}, { membraneMaxBytes: 200, capabilities: { store } })
    expect(r.error?.code).toBe('VALUE_TOO_LARGE')
    expect(data.size).toBe(0)
  })

  test('not a positive number: refused', async () => {
    for (const membraneMaxBytes of [0, -5, '1kb']) {
      expect((await vm.run('function f() { return 1 }', {}, { membraneMaxBytes } as any)).error?.code).toBe('OPTIONS_INVALID')
    }
  })
})

describe('effects: pure or io', () => {
  test('core atoms are tagged; EFFECTFUL_CORE_OPS lists the io ones', () => {
    expect(coreAtoms.httpFetch!.effects).toBe('io')
    expect(coreAtoms.storeSet!.effects).toBe('io')
    expect(coreAtoms.llmPredict!.effects).toBe('io')
    expect(coreAtoms.len!.effects).toBe('pure')
    expect(coreAtoms.jsonParse!.effects).toBe('pure')
    for (const [op, def] of Object.entries(coreAtoms)) expect([op, def.effects]).toEqual([op, EFFECTFUL_CORE_OPS.has(op) ? 'io' : 'pure'])
    expect(EFFECTFUL_CORE_OPS.has('cache')).toBe(true)
    expect(EFFECTFUL_CORE_OPS.has('memoize')).toBe(false)
    // Derived from the vocabulary's io and procedure categories (define.ts): the same list as it was written out.
    expect([...EFFECTFUL_CORE_OPS]).toEqual([
      'httpFetch', 'storeGet', 'storeSet', 'storeQuery', 'storeVectorSearch', 'llmPredict', 'agentRun',
      'storeProcedure', 'releaseProcedure', 'clearExpiredProcedures', 'cache',
      'random', 'uuid', 'consoleLog', 'consoleWarn', 'consoleError',
    ])
  })

  test('defineAtom takes effects (default io); anything else is refused', () => {
    expect(tick.effects).toBe('io')
    expect(echo.effects).toBe('pure')
    expect(() => defineAtom('odd', s.object({}), s.any, () => 1, { effects: 'maybe' as any })).toThrow(/effects/)
  })

  test('exported from the main entry and from ajs-lang/vm', () => {
    expect(vmEntry.EFFECTFUL_CORE_OPS).toBe(EFFECTFUL_CORE_OPS)
  })
})
