/**
 * Adversarial input from the host side of the trust boundary: hostile ASTs,
 * capability return values, procedure tokens, agentRun re-entrancy, and
 * abort/timeout on every exit path. Every case asserts the exact outcome and
 * that the host realm is unchanged.
 */
import { test, expect, describe } from 'bun:test'
import { AgentVM, MemoryProcedureStore, defineAtom, s } from '../../src/index.ts'
import { snapshotHost, expectHostUnchanged } from './helpers.ts'

const prog = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ ajs: 1, op: 'seq', steps, ...extra })
const lit = (value: unknown) => ({ $expr: 'literal', value })
const ret = (value: unknown) => prog([{ op: 'return', value }])
const deep = (n: number, leaf: unknown, wrap: (x: unknown) => unknown) => { let x = leaf; for (let i = 0; i < n; i++) x = wrap(x); return x }

async function expectCode(p: Promise<{ error?: { code: string }; result: unknown }>, code: string) {
  const before = snapshotHost()
  const r = await p
  expect(r.error?.code).toBe(code)
  expect(r.result).toBeNull()
  expectHostUnchanged(before)
}
async function expectResult(p: Promise<{ error?: { code: string }; result: unknown }>, result: unknown) {
  const before = snapshotHost()
  const r = await p
  expect(r.error).toBeUndefined()
  expect(r.result).toEqual(result)
  expectHostUnchanged(before)
}

describe('malformed and hostile ASTs', () => {
  const vm = new AgentVM()
  const cyclic: any = prog([])
  cyclic.steps.push(cyclic)
  const cyclicExpr: any = { $expr: 'binary', op: '+', left: null, right: lit(1) }
  cyclicExpr.left = cyclicExpr
  let dag: any = lit(1)
  for (let i = 0; i < 40; i++) dag = { $expr: 'binary', op: '+', left: dag, right: dag }
  const cases: Array<[string, unknown, string]> = [
    ['null', null, 'AST_INVALID'],
    ['an array', [], 'AST_INVALID'],
    ['a number', 42, 'AST_INVALID'],
    // A root without `ajs` is the seed's dialect (dialect.ts): it runs; test/seed/dialect.test.ts.
    ['future version', { ajs: 99, op: 'seq', steps: [] }, 'AST_VERSION'],
    ['steps not an array', { ajs: 1, op: 'seq', steps: 'x' }, 'AST_INVALID'],
    ['unknown op', prog([{ op: 'evil' }]), 'UNKNOWN_ATOM'],
    ['op named constructor', prog([{ op: 'constructor' }]), 'AST_INVALID'],
    ['op named __proto__', prog([{ op: '__proto__' }]), 'AST_INVALID'],
    ['unknown expression kind', ret({ $expr: 'eval', code: '1' }), 'AST_INVALID'],
    ['ident __proto__', ret({ $expr: 'ident', name: '__proto__' }), 'AST_INVALID'],
    ['member constructor', ret({ $expr: 'member', object: lit({}), property: 'constructor' }), 'AST_INVALID'],
    ['method constructor', ret({ $expr: 'methodCall', object: lit('x'), method: 'constructor', args: [] }), 'AST_INVALID'],
    ['literal with __proto__ key', ret(lit(JSON.parse('{"__proto__": {"polluted": 1}}'))), 'AST_INVALID'],
    ['object key prototype', ret({ $expr: 'object', properties: [{ key: 'prototype', value: lit(1) }] }), 'AST_INVALID'],
    ['Infinity literal', ret(lit(Infinity)), 'AST_INVALID'],
    ['wrong field type', prog([{ op: 'varSet', name: 42, value: 1 }]), 'AST_INVALID'],
    ['unknown binary operator', ret({ $expr: 'binary', op: 'instanceof', left: lit(1), right: lit(1) }), 'AST_INVALID'],
    ['lambda outside a call', ret({ $expr: 'lambda', params: [], body: lit(1) }), 'AST_INVALID'],
    ['unknown root field', prog([], { evil: true }), 'AST_INVALID'],
    ['cyclic step list', cyclic, 'AST_INVALID'],
    ['cyclic expression', ret(cyclicExpr), 'AST_TOO_DEEP'],
    ['shared subtrees 2^40 nodes', ret(dag), 'AST_TOO_LARGE'],
    ['100,000-deep expression', ret(deep(100_000, lit(1), (x) => ({ $expr: 'unary', op: '-', argument: x }))), 'AST_TOO_DEEP'],
    ['100,000-deep steps', prog(deep(100_000, [{ op: 'return', value: 1 }], (x) => [{ op: 'if', condition: lit(true), then: x }]) as unknown[]), 'AST_TOO_DEEP'],
    ['100,000-deep literal', ret(lit(deep(100_000, 1, (x) => [x]))), 'AST_TOO_DEEP'],
    ['enormous step array', prog(Array.from({ length: 1_200_000 }, () => ({ op: 'expr', value: 1 }))), 'AST_TOO_LARGE'],
    ['regex with bad flags', ret({ $expr: 'regex', pattern: 'a', flags: 'gv' }), 'AST_INVALID'],
    ['regex with a backreference', ret({ $expr: 'regex', pattern: '(a+)\\1' }), 'REGEX_UNSAFE'],
  ]
  for (const [name, ast, code] of cases) test(name, () => expectCode(vm.run(ast as any), code), 30_000)
  test('a getter inside the AST is never a way out', async () => {
    const ast: any = prog([{ op: 'return', value: 1 }])
    Object.defineProperty(ast.steps[0], 'value', { get: () => { throw new Error('boom') }, enumerable: true })
    const r = await vm.run(ast)
    expect(r.error?.code).toBeString()
  })
  // The parser's own stack guard: AJS1020 (too deep), no longer AJS1001 (a syntax error) with a syntax hint.
  test('source text 100,000 parentheses deep is a located error', () => expectCode(new AgentVM().run(`function f() { return ${'('.repeat(100000)}1${')'.repeat(100000)} }`), 'AJS1020'))
})

describe('capability return values', () => {
  class Secret { hidden = 1; get leak() { return process } }
  const cases: Array<[string, () => unknown, { code: string } | { result: unknown }]> = [
    ['a function is dropped', () => ({ f: () => 1, a: 1 }), { result: { a: 1 } }],
    ['a getter runs once and only its value is copied', () => { let n = 0; return { get g() { return ++n } } }, { result: { g: 1 } }],
    ['a class instance becomes plain data', () => new Secret(), { result: { hidden: 1 } }],
    ['a cycle is refused', () => { const o: any = { a: [] }; o.a.push(o); for (let i = 0; i < 10; i++) o.a = [o.a]; return o }, { code: 'VALUE_NOT_DATA' }],
    ['a Map is refused', () => new Map([[1, 2]]), { code: 'VALUE_NOT_DATA' }],
    ['a typed array is refused', () => new Uint8Array(4), { code: 'VALUE_NOT_DATA' }],
    ['a BigInt is refused', () => ({ n: 10n }), { code: 'VALUE_NOT_DATA' }],
    ['a throwing proxy is refused', () => new Proxy({}, { ownKeys() { throw new Error('trap') } }), { code: 'VALUE_NOT_DATA' }],
    ['a proxy returns only data', () => new Proxy({ a: 1 }, { get: (t, k) => (k === 'a' ? 2 : undefined) }), { result: { a: 2 } }],
    ['a huge array is refused', () => new Array(2_000_000).fill(0), { code: 'VALUE_TOO_LARGE' }],
    ['a huge string is refused', () => 'x'.repeat(60_000_000), { code: 'VALUE_TOO_LARGE' }],
    ['a deep value is refused', () => deep(10_000, 1, (x) => ({ x })), { code: 'VALUE_TOO_LARGE' }],
    ['a __proto__ key is dropped', () => JSON.parse('{"__proto__": {"polluted": 1}, "ok": true}'), { result: { ok: true } }],
    ['a Date becomes text', () => new Date(0), { result: '1970-01-01T00:00:00.000Z' }],
    ['a symbol is dropped', () => ({ s: Symbol('x'), a: 1 }), { result: { a: 1 } }],
  ]
  for (const [name, make, want] of cases) {
    test(name, async () => {
      const vm = new AgentVM([defineAtom('probe', s.object({}), undefined, () => make())])
      const p = vm.run(ret({ $expr: 'call', callee: 'probe', args: [lit({})] }), {}, { fuel: 1000 })
      if ('code' in want) await expectCode(p, want.code)
      else await expectResult(p, want.result)
    }, 30_000)
  }
  test('the guest cannot mutate what a capability returned to it later', async () => {
    const held = { list: [1, 2] }
    const vm = new AgentVM([defineAtom('probe', s.object({}), undefined, () => held)])
    const r = await vm.run(prog([
      { op: 'constSet', key: 'v', value: { $expr: 'call', callee: 'probe', args: [lit({})] } },
      { op: 'expr', value: { $expr: 'methodCall', object: { $expr: 'member', object: { $expr: 'ident', name: 'v' }, property: 'list' }, method: 'push', args: [lit(3)] } },
      { op: 'return', value: { $expr: 'ident', name: 'v' } },
    ]))
    expect(r.result).toEqual({ list: [1, 2, 3] })
    expect(held).toEqual({ list: [1, 2] })
  })
  test('host args are never mutated', async () => {
    const args = { list: [1, 2] }
    const r = await new AgentVM().run('function f({ list }) { list.push(3)\nreturn list }', args)
    expect(r.result).toEqual([1, 2, 3])
    expect(args).toEqual({ list: [1, 2] })
  })
})

describe('procedure tokens', () => {
  const store = (steps: unknown[]) => prog([{ op: 'return', value: { $expr: 'call', callee: 'storeProcedure', args: [lit({ ast: prog(steps) })] } }])
  test('a guessed token is not found', () => expectCode(new AgentVM().run('proc_00000000-0000-4000-8000-000000000000'), 'PROCEDURE_NOT_FOUND'))
  test('a token prefix alone is not found', () => expectCode(new AgentVM().run('proc_'), 'PROCEDURE_NOT_FOUND'))
  test('tokens are unguessable uuids', async () => {
    const vm = new AgentVM()
    const a = (await vm.run(store([{ op: 'return', value: 1 }]))).result as string
    const b = (await vm.run(store([{ op: 'return', value: 1 }]))).result as string
    expect(a).toMatch(/^proc_[0-9a-f-]{36}$/)
    expect(a).not.toBe(b)
  })
  // Isolation is the `procedures` option: VMs without it share the process-wide procedureStore.
  const isolated = () => new AgentVM({}, { procedures: new MemoryProcedureStore() })
  test('a token from another VM with its own store is not found', async () => {
    const token = (await isolated().run(store([{ op: 'return', value: 7 }]))).result
    await expectCode(isolated().run(token), 'PROCEDURE_NOT_FOUND')
  })
  test('a token runs on its own VM', async () => {
    const vm = new AgentVM()
    const token = (await vm.run(store([{ op: 'return', value: 7 }]))).result
    await expectResult(vm.run(token), 7)
  })
  test('a token expires after its TTL', async () => {
    let now = 1_000
    const vm = new AgentVM({}, { procedures: new MemoryProcedureStore({ now: () => now }) })
    const token = (await vm.run(prog([{ op: 'return', value: { $expr: 'call', callee: 'storeProcedure', args: [lit({ ast: prog([{ op: 'return', value: 1 }]), ttl: 50 })] } }]), {}, { now: () => now })).result
    now += 49
    await expectResult(vm.run(token), 1)
    now += 2
    await expectCode(vm.run(token), 'PROCEDURE_NOT_FOUND')
  })
  test('another tenant with its own store cannot release a token', async () => {
    const mine = isolated()
    const token = (await mine.run(store([{ op: 'return', value: 1 }]))).result
    const other = await isolated().run(prog([{ op: 'return', value: { $expr: 'call', callee: 'releaseProcedure', args: [lit({ token })] } }]))
    expect(other.result).toBe(false)
    await expectResult(mine.run(token), 1)
  })
  test('a stored AST is validated and size-capped', async () => {
    await expectCode(new AgentVM().run(store([{ op: 'constructor' }])), 'AST_INVALID')
    await expectCode(new AgentVM().run(store([{ op: 'return', value: 'x'.repeat(200_000) }])), 'PROCEDURE_TOO_LARGE')
  })
  test('a stored procedure runs with the caller\'s capabilities, not the storer\'s', async () => {
    const vm = new AgentVM()
    const fetchStep = [{ op: 'return', value: { $expr: 'call', callee: 'httpFetch', args: [lit({ url: 'http://x/' })] } }]
    const token = (await vm.run(store(fetchStep), {}, { capabilities: { fetch: async () => ({ status: 200, text: async () => 'secret', headers: new Headers() }) } })).result
    await expectCode(vm.run(token), 'CAPABILITY_MISSING')
  })
})

describe('agentRun re-entrancy', () => {
  const selfCall = (token: string) => prog([{ op: 'return', value: { $expr: 'call', callee: 'agentRun', args: [lit({ agentId: token, input: {} })] } }])
  test('an agent running itself stops at maxAgentDepth', async () => {
    const vm = new AgentVM()
    const inner = { $expr: 'call', callee: 'agentRun', args: [{ $expr: 'object', properties: [{ key: 'agentId', value: { $expr: 'member', object: { $expr: 'ident', name: 'args' }, property: 't' } }, { key: 'input', value: { $expr: 'ident', name: 'args' } }] }] }
    const rec = prog([{ op: 'return', value: inner }], { params: 'args' })
    const token = (await vm.run(prog([{ op: 'return', value: { $expr: 'call', callee: 'storeProcedure', args: [lit({ ast: rec })] } }]))).result as string
    await expectCode(vm.run(token, { t: token }, { fuel: 10_000 }), 'STACK_OVERFLOW')
  })
  test('child runs share the parent fuel: a child loop exhausts the parent', async () => {
    const vm = new AgentVM()
    const loop = prog([{ op: 'while', condition: lit(true), body: [] }])
    const r = await vm.run(prog([{ op: 'return', value: { $expr: 'call', callee: 'agentRun', args: [{ $expr: 'object', properties: [{ key: 'agentId', value: lit(loop) }] }] } }]), {}, { fuel: 50 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBeLessThanOrEqual(50)
  })
  test('a plain string is not run as source by agentRun', () => expectCode(new AgentVM().run(selfCall('function f() { return 1 }')), 'PROCEDURE_NOT_FOUND'))
  test('maxAgentDepth 0 refuses any child', () => expectCode(new AgentVM().run(prog([{ op: 'return', value: { $expr: 'call', callee: 'agentRun', args: [lit({ agentId: prog([{ op: 'return', value: 1 }]) })] } }]), {}, { limits: { maxAgentDepth: 0 } }), 'STACK_OVERFLOW'))
  test('an agent capability receives only data and the run\'s signal', async () => {
    let seen: unknown
    const r = await new AgentVM().run(selfCall('proc_x'), {}, { capabilities: { agent: { run: (id: unknown, input: unknown, o: { signal: AbortSignal }) => { seen = [id, input, o.signal instanceof AbortSignal]; return { ok: 1 } } } } })
    expect(r.result).toEqual({ ok: 1 })
    expect(seen).toEqual(['proc_x', {}, true])
  })
})

describe('abort and timeout on every exit path', () => {
  /** A capability that records its signal and never answers on its own. */
  function hanging() {
    const signals: AbortSignal[] = []
    const atom = defineAtom('hang', s.object({}), undefined, (_i, ctx) => {
      signals.push(ctx.signal)
      return new Promise(() => {})
    }, { timeoutMs: 0 })
    return { atom, signals }
  }
  const callHang = { $expr: 'call', callee: 'hang', args: [lit({})] }
  test('run timeout cancels a waiting capability', async () => {
    const h = hanging()
    await expectCode(new AgentVM([h.atom]).run(ret(callHang), {}, { timeoutMs: 30 }), 'TIMEOUT')
    expect(h.signals.length).toBe(1)
    expect(h.signals[0]!.aborted).toBe(true)
  })
  test('host abort cancels a waiting capability', async () => {
    const h = hanging()
    const ac = new AbortController()
    const p = new AgentVM([h.atom]).run(ret(callHang), {}, { signal: ac.signal, timeoutMs: 60_000 })
    setTimeout(() => ac.abort(), 10)
    await expectCode(p, 'ABORTED')
    expect(h.signals[0]!.aborted).toBe(true)
  })
  test('an already aborted signal stops before running', () => expectCode(new AgentVM().run(ret(lit(1)), {}, { signal: AbortSignal.abort() }), 'ABORTED'))
  // A host timer cannot fire while a synchronous loop holds the thread: the deadline, checked in the loop, ends it.
  test('a synchronous loop after an await ends at the deadline', async () => {
    const vm = new AgentVM([defineAtom('tick', s.object({}), undefined, async () => 1)])
    const loop = prog([{ op: 'expr', value: { $expr: 'call', callee: 'tick', args: [lit({})] } }, { op: 'while', condition: lit(true), body: [] }])
    await expectCode(vm.run(loop, {}, { fuel: 1e12, timeoutMs: 50 }), 'TIMEOUT')
  })
  test('atom timeout cancels that call only', async () => {
    const signals: AbortSignal[] = []
    const slow = defineAtom('slow', s.object({}), undefined, (_i, ctx) => { signals.push(ctx.signal); return new Promise(() => {}) }, { timeoutMs: 20 })
    await expectCode(new AgentVM([slow]).run(ret({ $expr: 'call', callee: 'slow', args: [lit({})] }), {}, { timeoutMs: 5_000 }), 'ATOM_TIMEOUT')
    expect(signals[0]!.aborted).toBe(true)
  })
  test('a failing parallel branch cancels its siblings', async () => {
    const h = hanging()
    const boom = defineAtom('boom', s.object({}), undefined, async () => { throw new Error('x') })
    const ast = prog([{ op: 'parallel', branches: [[{ op: 'expr', value: callHang }], [{ op: 'expr', value: { $expr: 'call', callee: 'boom', args: [lit({})] } }]] }])
    const r = await new AgentVM([h.atom, boom]).run(ast, {}, { timeoutMs: 5_000 })
    expect(r.error?.code).toBe('ATOM_ERROR')
    expect(h.signals[0]!.aborted).toBe(true)
  })
  test('a capability finishing normally still sees its signal aborted once the run ends', async () => {
    const signals: AbortSignal[] = []
    const quick = defineAtom('quick', s.object({}), undefined, async (_i, ctx) => { signals.push(ctx.signal); return 1 })
    await expectResult(new AgentVM([quick]).run(ret({ $expr: 'call', callee: 'quick', args: [lit({})] })), 1)
    expect(signals.length).toBe(1)
  })
  test('a throwing capability is an error result, not a rejection', async () => {
    const bad = defineAtom('bad', s.object({}), undefined, () => { throw new TypeError('host bug') })
    await expectCode(new AgentVM([bad]).run(ret({ $expr: 'call', callee: 'bad', args: [lit({})] })), 'ATOM_ERROR')
  })
  test('child agent is cancelled when the parent times out', async () => {
    const h = hanging()
    const vm = new AgentVM([h.atom])
    const child = prog([{ op: 'return', value: callHang }])
    const r = await vm.run(prog([{ op: 'return', value: { $expr: 'call', callee: 'agentRun', args: [lit({ agentId: child })] } }]), {}, { timeoutMs: 30 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(h.signals[0]!.aborted).toBe(true)
  })
})
