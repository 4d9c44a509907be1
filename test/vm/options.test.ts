/** Run options: defaults, validation, signal, context, quotas, heap, trace, limits, injection. */
import { describe, expect, test } from 'bun:test'
import { AgentVM, RUN_DEFAULTS, defineAtom } from '../../src/vm/index.ts'
import { s } from '../../src/vm/parts/schema.ts'
import { arr, bin, call, code, ex, id, let_, lit, mcall, obj, prog, ret, run, value, while_ } from './ast.ts'

const forever = prog([while_(lit(true), [])])
const never = { get: () => new Promise(() => {}) }

describe('defaults', () => {
  test('documented defaults', () => {
    expect(RUN_DEFAULTS).toEqual({
      fuel: 1000, msPerFuel: 10, maxHeapBytes: 64 * 1024 * 1024, maxCallDepth: 200, maxAgentDepth: 8,
      maxAstNodes: 1_000_000, maxAstDepth: 1000,
    })
    expect(Object.isFrozen(RUN_DEFAULTS)).toBe(true)
  })
  test('default fuel is 1000', async () => {
    const r = await run(forever)
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBe(1000)
  })
  test('default timeout is fuel × 10 ms (fuel 2 → 20 ms while waiting on a capability)', async () => {
    const r = await run(prog([{ op: 'storeGet', key: 'k' }]), {}, { fuel: 2, capabilities: { store: never } })
    expect(r.error?.code).toBe('TIMEOUT')
  })
  test('explicit timeoutMs overrides the derived one', async () => {
    const r = await run(prog([{ op: 'storeGet', key: 'k' }]), {}, { fuel: 1e6, timeoutMs: 20, capabilities: { store: never } })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.error?.message).toContain('20 ms')
  })
})

describe('option validation', () => {
  const bad: Array<[string, unknown]> = [
    ['unknown key', { fuell: 10 }],
    ['negative fuel', { fuel: -1 }],
    ['NaN fuel', { fuel: NaN }],
    ['string timeout', { timeoutMs: '10' }],
    ['signal not an AbortSignal', { signal: {} }],
    ['capabilities not an object', { capabilities: [] }],
    ['context not an object', { context: 'x' }],
    ['cost override not a number', { costOverrides: { len: 'free' } }],
    ['negative cost override', { costOverrides: { len: -1 } }],
    ['quota not a number', { quotas: { len: 'x' } }],
    ['zero maxHeapBytes', { maxHeapBytes: 0 }],
    ['unknown limit', { limits: { maxLoops: 1 } }],
    ['random not a function', { random: 0.5 }],
    ['options not an object', 'fast'],
  ]
  for (const [name, options] of bad) {
    test(`${name} → OPTIONS_INVALID result (never a rejection)`, async () => {
      const r = await run(prog([ret(lit(1))]), {}, options as any)
      expect(r.error?.code).toBe('OPTIONS_INVALID')
      expect(r.result).toBe(null)
      expect(r.fuelUsed).toBe(0)
    })
  }
  test('the message names the unknown key', async () => {
    expect((await run(prog([]), {}, { fuell: 1 } as any)).error?.message).toContain('"fuell"')
  })
  test('runs given only fuel share normalised options, each with its own budget, and bad ones still fail', async () => {
    const spend = prog([while_(lit(true), [])])
    for (const fuel of [3, 3, 5, 3, undefined]) {
      const r = await run(spend, {}, fuel === undefined ? undefined : { fuel })
      expect(r.error?.code).toBe('FUEL_EXHAUSTED')
      expect(r.fuelUsed).toBe(fuel ?? 1000)
    }
    expect(await code(prog([]), {}, { fuel: 3, fuell: 1 } as any)).toBe('OPTIONS_INVALID')
    expect(await code(prog([]), {}, { fuel: -3 })).toBe('OPTIONS_INVALID')
    expect(await code(prog([]), {}, { fuel: 3, limits: { maxAgentDepth: 0 } })).toBe('OK')
    expect(await code(prog([]), {}, { fuel: 3, limits: { maxCallDepth: 0 } })).toBe('OPTIONS_INVALID')
  })
  test('fuel 0 is allowed and runs nothing costly', async () => {
    expect(await code(prog([ret(lit(1))]), {}, { fuel: 0 })).toBe('FUEL_EXHAUSTED')
    expect(await code(prog([]), {}, { fuel: 0 })).toBe('OK')
  })
})

describe('signal', () => {
  test('aborting cancels an in-flight capability: it sees its signal aborted', async () => {
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const fetch = (_url: string, init: { signal: AbortSignal }) => new Promise((_res, rej) => {
      seen = init.signal
      init.signal.addEventListener('abort', () => rej(new Error('aborted by signal')))
      setTimeout(() => controller.abort(), 1)
    })
    const r = await run(prog([{ op: 'httpFetch', url: 'https://x.test' }]), {}, { signal: controller.signal, capabilities: { fetch } })
    expect(r.error?.code).toBe('ABORTED')
    expect(seen?.aborted).toBe(true)
  })
  test('a pre-aborted signal runs nothing', async () => {
    const c = new AbortController()
    c.abort()
    const calls: string[] = []
    const store = { get: async (k: string) => { calls.push(k); return 1 } }
    const r = await run(prog([{ op: 'storeGet', key: 'k' }]), {}, { signal: c.signal, capabilities: { store } })
    expect(r.error?.code).toBe('ABORTED')
    expect(calls).toEqual([])
  })
  test('abort is noticed inside a tight synchronous loop', async () => {
    // The abort comes from inside the loop (a sync host atom), noticed at the next tick, without a pause.
    const c = new AbortController()
    let calls = 0
    const tick = defineAtom('tick', s.object({}), s.number, () => { if (++calls === 3) c.abort(); return calls }, { sync: true })
    const machine = new AgentVM({ tick })
    const ast = prog([while_(lit(true), [{ op: 'tick' }])])
    const r = await run(ast, {}, { signal: c.signal, fuel: 1e9, timeoutMs: 5000 }, machine)
    expect(r.error?.code).toBe('ABORTED')
    expect(calls).toBeLessThan(5000)
  })
  test('ABORTED is not catchable', async () => {
    const c = new AbortController()
    const store = { get: () => { setTimeout(() => c.abort(), 1); return new Promise(() => {}) } }
    const ast = prog([{ op: 'try', try: [{ op: 'storeGet', key: 'k' }], catch: [ret(lit('caught'))] }])
    expect(await code(ast, {}, { signal: c.signal, capabilities: { store } })).toBe('ABORTED')
  })
})

describe('context', () => {
  test('atoms see it; it is frozen', async () => {
    let ctxSeen: any
    const whoami = defineAtom('whoami', s.object({}), s.string, (_i, ctx) => {
      ctxSeen = ctx.context
      return String(ctx.context.userId)
    })
    const machine = new AgentVM({ whoami })
    const r = await run(prog([{ op: 'whoami', result: 'u' }, ret(id('u'))]), {}, { context: { userId: 'user-1', role: 'admin' } }, machine)
    expect(r.result).toBe('user-1')
    expect(Object.isFrozen(ctxSeen)).toBe(true)
    expect(() => { ctxSeen.role = 'root' }).toThrow()
  })
  test('guest code cannot read it: there is no identifier for it', async () => {
    expect(await code(prog([ret(id('context'))]), {}, { context: { secret: 1 } })).toBe('UNKNOWN_IDENTIFIER')
    expect(await code(prog([ret(id('ctx'))]), {}, { context: { secret: 1 } })).toBe('UNKNOWN_IDENTIFIER')
    // and it is not mixed into args
    expect(await value(prog([ret(id('input'))], { params: 'input' }), { a: 1 }, { context: { secret: 1 } })).toEqual({ a: 1 })
  })
  test('the host context object itself is not frozen', async () => {
    const context = { userId: 'u' }
    await run(prog([]), {}, { context })
    expect(Object.isFrozen(context)).toBe(false)
  })
})

describe('quotas', () => {
  test('max calls per atom: the next call fails with QUOTA_EXCEEDED', async () => {
    const ast = prog([
      let_({ i: lit(0) }),
      while_(bin('<', id('i'), lit(5)), [{ op: 'len', value: 'x' }, ex({ $expr: 'update', op: '++', prefix: false, argument: id('i') })]),
      ret(id('i')),
    ])
    expect(await value(ast, {}, { quotas: { len: 5 } })).toBe(5)
    const r = await run(ast, {}, { quotas: { len: 4 } })
    expect(r.error?.code).toBe('QUOTA_EXCEEDED')
    expect(r.error?.message).toContain('len')
  })
  test('quota applies to expression calls too; quota 0 forbids the atom', async () => {
    expect(await code(prog([ret(call('uuid', obj({})))]), {}, { quotas: { uuid: 0 } })).toBe('QUOTA_EXCEEDED')
  })
  test('quotas of other atoms do not interfere', async () => {
    expect(await code(prog([ret(call('uuid', obj({})))]), {}, { quotas: { len: 0 } })).toBe('OK')
  })
})

describe('maxHeapBytes', () => {
  test('a string larger than the ceiling stops the run with HEAP_LIMIT', async () => {
    expect(await code(prog([ret(mcall(lit('ab'), 'repeat', lit(1000)))]), {}, { maxHeapBytes: 1000 })).toBe('HEAP_LIMIT')
    expect(await code(prog([ret(mcall(lit('ab'), 'repeat', lit(100)))]), {}, { maxHeapBytes: 1000 })).toBe('OK')
  })
  test('string concatenation in a loop hits the ceiling', async () => {
    const ast = prog([let_({ s: lit('x') }), while_(lit(true), [ex({ $expr: 'assign', op: '+=', target: id('s'), value: id('s') })])])
    expect(await code(ast, {}, { maxHeapBytes: 10_000, fuel: 1e6 })).toBe('HEAP_LIMIT')
  })
  test('array growth by index hits the ceiling', async () => {
    const ast = prog([let_({ a: arr() }), ex({ $expr: 'assign', op: '=', target: { $expr: 'member', object: id('a'), property: lit(1e6), computed: true }, value: lit(1) })])
    expect(await code(ast, {}, { maxHeapBytes: 10_000, fuel: 1e6 })).toBe('HEAP_LIMIT')
  })
  test('padStart with a huge length is refused before building', async () => {
    expect(await code(prog([ret(mcall(lit('x'), 'padStart', lit(1e9)))]))).toBe('HEAP_LIMIT')
  })
})

describe('trace', () => {
  test('one entry per step with op, fuel, fuelTotal and location', async () => {
    const ast = prog([
      { op: 'varsLet', vars: { a: lit(1) }, loc: [1, 0] },
      { op: 'return', value: bin('+', id('a'), lit(1)), loc: [2, 2] },
    ], { file: 'f.ajs' })
    const r = await run(ast, {}, { trace: true })
    expect(r.result).toBe(2)
    expect(r.trace?.map((t) => t.op)).toEqual(['varsLet', 'return'])
    expect(r.trace?.map((t) => t.location)).toEqual(['f.ajs:1:1', 'f.ajs:2:3'])
    // fuelTotal is the run's meter when the step started (its block already charged): never more than the total, never decreasing.
    const totals = r.trace!.map((t) => t.fuelTotal)
    expect(totals).toEqual([...totals].sort((a, b) => a - b))
    expect(totals[0]).toBeGreaterThan(0)
    expect(totals.at(-1)!).toBeLessThanOrEqual(r.fuelUsed)
    for (const t of r.trace!) expect(t.fuel).toBeGreaterThan(0)
  })
  test('no trace unless asked', async () => {
    expect((await run(prog([ret(lit(1))]))).trace).toBeUndefined()
  })
  test('a failing step is marked with its error code', async () => {
    const r = await run(prog([{ op: 'throw', value: 'x' }]), {}, { trace: true })
    expect(r.trace?.[0]).toMatchObject({ op: 'throw', error: 'THROWN' })
  })
  test('tracing does not change fuelUsed', async () => {
    const ast = prog([let_({ s: lit(0) }), { op: 'map', items: [1, 2, 3], as: 'x', steps: [ret(id('x'))], result: 'm' }, ret(id('m'))])
    const a = await run(ast, {}, { trace: true })
    const b = await run(ast)
    expect(a.fuelUsed).toBe(b.fuelUsed)
  })
})

describe('limits', () => {
  test('maxAstNodes and maxAstDepth refuse large ASTs before running', async () => {
    const deep = (n: number): any => (n === 0 ? lit(1) : bin('+', deep(n - 1), lit(1)))
    const ast = prog([ret(deep(50))])
    expect(await value(ast)).toBe(51)
    const r = await run(prog([ret(deep(50))]), {}, { limits: { maxAstDepth: 20 } })
    expect(r.error?.code).toBe('AST_TOO_DEEP')
    const r2 = await run(prog([ret(deep(50))]), {}, { limits: { maxAstNodes: 30 } })
    expect(r2.error?.code).toBe('AST_TOO_LARGE')
  })
  test('a hostile 100,000-deep AST is refused, not a stack overflow', async () => {
    let e: any = lit(1)
    for (let i = 0; i < 100_000; i++) e = { $expr: 'unary', op: '-', argument: e }
    const r = await run(prog([ret(e)]))
    expect(r.error?.code).toBe('AST_TOO_DEEP')
  })
})

describe('injected nondeterminism', () => {
  test('random feeds Math.random and the random atom', async () => {
    const ast = prog([ret(arr(mcall(id('Math'), 'random'), call('random', obj({})), call('random', obj({ min: lit(1), max: lit(6) }))))])
    expect(await value(ast, {}, { random: () => 0.5 })).toEqual([0.5, 0.5, 4])
  })
  test('now feeds Date.now', async () => {
    expect(await value(prog([ret(mcall(id('Date'), 'now'))]), {}, { now: () => 1234 })).toBe(1234)
  })
  test('uuid feeds the uuid atom', async () => {
    expect(await value(prog([{ op: 'uuid', result: 'u' }, ret(id('u'))]), {}, { uuid: () => 'fixed-id' })).toBe('fixed-id')
  })
  test('defaults: real random numbers and RFC 4122 v4 ids', async () => {
    const [r, u] = await value(prog([ret(arr(call('random', obj({})), call('uuid', obj({}))))]))
    expect(r).toBeGreaterThanOrEqual(0)
    expect(r).toBeLessThan(1)
    expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
