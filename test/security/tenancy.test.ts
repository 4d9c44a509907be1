/**
 * Hardening, round 2 (issue 12), the host-facing classes: input schemas,
 * custom atoms, transpiling from `vm.run`, AST size checks, the compile
 * cache per limit set, stores and procedures per tenant, one fuel meter for
 * `agentRun` children, and the transpiler's depth guard. Each case asserts
 * its bounded outcome (code, fuel, wall time).
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, MemoryProcedureStore, defineAtom, transpile } from '../../src/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { compileWorkflow } from '../../src/workflows/index.ts'
import { bounded, DEADLINE_MARGIN_MS } from './bounds.ts'
import { bin, call, id, lit, mem, obj, prog, progArgs, ret } from '../vm/ast.ts'

const schemaProgram = (schema: Record<string, unknown>) => progArgs(['s'], [ret(id('s'))], { inputSchema: { type: 'object', properties: { s: schema } } })

describe('input schemas are checked before their patterns run', () => {
  test('an exponential pattern is refused', () => bounded({ program: schemaProgram({ type: 'string', pattern: '^(a|a)*$' }), args: { s: 'a'.repeat(40) + '!' }, expect: { code: 'REGEX_UNSAFE' }, maxFuel: 0 }))
  test('a nested quantifier is refused', () => bounded({ program: schemaProgram({ type: 'string', pattern: '^(a+)+$' }), args: { s: 'a'.repeat(40) + '!' }, expect: { code: 'REGEX_UNSAFE' }, maxFuel: 0 }))
  test('a backreference is refused', () => bounded({ program: schemaProgram({ type: 'string', pattern: '(a)\\1' }), args: { s: 'aa' }, expect: { code: 'REGEX_UNSAFE' }, maxFuel: 0 }))
  test('a polynomial pattern on a long string is refused before it runs', () => bounded({ program: schemaProgram({ type: 'string', pattern: '^\\d+\\d+\\d+$' }), args: { s: '1'.repeat(100_000) + 'x' }, expect: { code: 'ARGS_INVALID' }, maxFuel: 0 }))
  test('format email on a long string is refused before it runs', () => bounded({ program: schemaProgram({ type: 'string', format: 'email' }), args: { s: 'a@'.repeat(100_000) }, expect: { code: 'ARGS_INVALID' }, maxFuel: 0 }))
  test('patterns nested in items and anyOf are found', () => bounded({ program: schemaProgram({ type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^(\\w|\\d)+$' }] } }), args: { s: ['a'] }, expect: { code: 'REGEX_UNSAFE' }, maxFuel: 0 }))
  test('a safe pattern on short strings still validates', async () => {
    await bounded({ program: schemaProgram({ type: 'string', pattern: '^[a-z]+@[a-z]+$' }), args: { s: 'ab@cd' }, expect: { result: 'ab@cd' } })
    await bounded({ program: schemaProgram({ type: 'string', pattern: '^[a-z]+@[a-z]+$' }), args: { s: 'AB' }, expect: { code: 'ARGS_INVALID' } })
  })
  test('an agentRun child with a guest-built unsafe schema', () => {
    const child = schemaProgram({ type: 'string', pattern: '^(a|a)*$' })
    return bounded({ program: prog([ret(call('agentRun', obj({ agentId: lit(child), input: obj({ s: lit('a'.repeat(40) + '!') }) })))]), expect: { code: 'REGEX_UNSAFE' }, maxFuel: 15 })
  })
})

describe('custom atoms: copying their input and output is paid', () => {
  const echo = defineAtom('echo', { type: 'object', properties: { v: {} } }, undefined, ({ v }: any) => v?.length ?? 0, { sync: true })
  const big = defineAtom('bigResult', { type: 'object', properties: {} }, undefined, () => Array.from({ length: 100_000 }, (_, i) => i), { sync: true })
  const machine = new AgentVM({ echo, bigResult: big })
  test('a 100,000-element input per call', async () => {
    const started = performance.now()
    const r = await machine.run('function main() { const a = Array.from({ length: 100000 })\nlet n = 0\nwhile (true) { n += echo({ v: a }) }\nreturn n }', {}, { fuel: 100, timeoutMs: 2_000 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBe(100)
    expect(performance.now() - started).toBeLessThan(2_000 + DEADLINE_MARGIN_MS)
  })
  test('a 100,000-element result per call', async () => {
    const r = await machine.run('function main() { let n = 0\nwhile (true) { n += bigResult({}).length }\nreturn n }', {}, { fuel: 100, timeoutMs: 2_000 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBe(100)
  })
  test('small inputs cost only the atom', async () => {
    const r = await machine.run(prog([ret(call('echo', obj({ v: lit([1, 2, 3]) })))]))
    expect(r.result).toBe(3)
    expect(r.fuelUsed).toBe(1.0404) // atom 1 + return, call, object, literal 0.04 + the literal array's 3 slots + the object's 1
  })
})

describe('vm.run(source): transpiling is bounded by the run and metered', () => {
  const big = 'function main() {\n' + 'let x = 1\n'.repeat(800_000) + 'return x }'
  test('an 8 MB source against a 50 ms timeout', () => bounded({ program: big, options: { fuel: 1e9, timeoutMs: 50 }, expect: { code: 'TIMEOUT' }, maxFuel: 0 }))
  test('a source the fuel budget cannot pay for', () => bounded({ program: big, options: { fuel: 100, timeoutMs: 60_000 }, expect: { code: 'FUEL_EXHAUSTED' }, maxFuel: 100 }))
  test('every run from source pays per character, cached or not', async () => {
    const machine = new AgentVM()
    const src = 'function main() { return 1 }'
    const a = await machine.run(src)
    const b = await machine.run(src)
    const ast = await machine.run(transpile(src).ast)
    expect(a.fuelUsed).toBe(b.fuelUsed)
    expect(a.fuelUsed).toBeCloseTo(ast.fuelUsed + src.length * 0.0001, 10)
  })
  test('sources that fail are not cached; the cache has a size cap', async () => {
    const machine = new AgentVM()
    const cache = (machine as any).sources
    expect((await machine.run('function main() { return 1 }', {}, { limits: { maxAstNodes: 1 } })).error?.code).toBe('AST_TOO_LARGE')
    expect(cache.size).toBe(0)
    expect((await machine.run('function main() { return q( }')).error?.code).toBe('AJS1001')
    expect(cache.size).toBe(0)
    for (let i = 0; i < 300; i++) await machine.run(`function main() { return ${i} }`)
    expect(cache.size).toBe(256)
    const long = 'function main() {\nlet x = 1\n' + 'x = 1\n'.repeat(50_000) + 'return x }'
    expect((await machine.run(long, {}, { fuel: 1e6 })).result).toBe(1)
    expect(cache.get(long)).toBeUndefined() // longer than one cached source may be
  })
})

describe('AST sizes are checked before they are walked', () => {
  test('steps.length = 5e7', () => {
    const steps: unknown[] = [ret(lit(1))]
    steps.length = 5e7
    return bounded({ program: { ajs: 1, op: 'seq', steps }, expect: { code: 'AST_TOO_LARGE' }, maxFuel: 0, options: { timeoutMs: 200 } })
  })
  test('a huge array literal and a huge args list', async () => {
    const elements: unknown[] = []
    elements.length = 5e7
    await bounded({ program: prog([ret({ $expr: 'array', elements })]), expect: { code: 'AST_TOO_LARGE' }, maxFuel: 0, options: { timeoutMs: 200 } })
    const args: unknown[] = []
    args.length = 5e7
    await bounded({ program: prog([ret({ $expr: 'call', callee: 'len', args })]), expect: { code: 'AST_TOO_LARGE' }, maxFuel: 0, options: { timeoutMs: 200 } })
  })
})

describe('the compile cache is keyed per limit set', () => {
  const ast = prog([ret(bin('+', lit(1), bin('+', lit(2), lit(3))))])
  test('compiled under the defaults, then run with maxAstNodes: 5', async () => {
    const machine = new AgentVM()
    expect((await machine.run(ast)).result).toBe(6)
    expect((await machine.run(ast, {}, { limits: { maxAstNodes: 5 } })).error?.code).toBe('AST_TOO_LARGE')
    expect((await machine.run(ast, {}, { limits: { maxAstDepth: 2 } })).error?.code).toBe('AST_TOO_DEEP')
  })
  test('a tight-limit run first does not refuse the program for everyone', async () => {
    const machine = new AgentVM()
    expect((await machine.run(ast, {}, { limits: { maxAstNodes: 5 } })).error?.code).toBe('AST_TOO_LARGE')
    expect((await machine.run(ast)).result).toBe(6)
    expect((await machine.run(ast, {}, { limits: { maxAstNodes: 100 } })).result).toBe(6)
  })
})

describe('stores and procedures: copies, validated options, per-tenant quotas', () => {
  test('the cache op stores a copy, never the live value', async () => {
    const kept = new Map<string, unknown>()
    const store = { get: (k: string) => kept.get(k), set: (k: string, v: unknown) => { kept.set(k, v) } }
    const src = "function main() { const v = cache({ key: 'k' }, () => { return [1, 2] })\nv.push(3, 4, 5)\nreturn v.length }"
    const r = await new AgentVM().run(prog([
      { op: 'cache', key: lit('k'), steps: [ret({ $expr: 'array', elements: [lit(1), lit(2)] })], result: 'v' },
      { op: 'expr', value: { $expr: 'methodCall', object: id('v'), method: 'push', args: [lit(3), lit(4)] } },
      ret(mem(id('v'), 'length')),
    ]), {}, { capabilities: { store } })
    expect(r.error).toBeUndefined()
    expect(r.result).toBe(4)
    expect((kept.get('cache:"k"') as { value: unknown }).value).toEqual([1, 2])
    expect(src.length).toBeGreaterThan(0)
  })
  const storeWith = (opts: Record<string, unknown>) => prog([ret(call('storeProcedure', obj({ ast: lit(prog([ret(lit(1))])), ...opts as Record<string, any> })))])
  const NAN = bin('/', lit(0), lit(0))
  const INF = bin('/', lit(1), lit(0))
  test.each([
    ['maxSize: "nope"', { maxSize: lit('nope') }, 'TYPE_ERROR'], ['maxSize: NaN', { maxSize: NAN }, 'TYPE_ERROR'], ['maxSize: -1', { maxSize: lit(-1) }, 'RANGE_ERROR'],
    ['maxSize: 1e12', { maxSize: lit(1e12) }, 'RANGE_ERROR'], ['ttl: 1e300', { ttl: lit(1e300) }, 'RANGE_ERROR'], ['ttl: "x"', { ttl: lit('x') }, 'TYPE_ERROR'],
    ['ttl: 0', { ttl: lit(0) }, 'RANGE_ERROR'], ['ttl: Infinity', { ttl: INF }, 'TYPE_ERROR'], ['ttl: NaN', { ttl: NAN }, 'TYPE_ERROR'],
  ])('storeProcedure with %s is refused', async (_name, opts, code) => {
    await bounded({ program: storeWith(opts), expect: { code } })
  })
  test('one tenant cannot evict or release another tenant\'s procedures', async () => {
    const shared = new MemoryProcedureStore({ maxEntries: 10, maxEntriesPerOwner: 3 })
    const machine = new AgentVM({}, { procedures: shared })
    const mine: string[] = []
    for (let i = 0; i < 3; i++) mine.push((await machine.run(storeWith({}), {}, { tenant: 'alice' })).result as string)
    for (let i = 0; i < 20; i++) expect((await machine.run(storeWith({}), {}, { tenant: 'mallory' })).error).toBeUndefined()
    for (const token of mine) expect((await machine.run(token)).result).toBe(1)
    expect(shared.countOf('alice')).toBe(3)
    expect(shared.countOf('mallory')).toBe(3)
    const release = (token: string) => prog([ret(call('releaseProcedure', obj({ token: lit(token) })))])
    expect((await machine.run(release(mine[0]!), {}, { tenant: 'mallory' })).result).toBe(false)
    expect((await machine.run(mine[0]!)).result).toBe(1)
    expect((await machine.run(release(mine[0]!), {}, { tenant: 'alice' })).result).toBe(true)
  })
  test('a full store evicts from the tenant holding the most', async () => {
    const shared = new MemoryProcedureStore({ maxEntries: 4, maxEntriesPerOwner: 3 })
    const machine = new AgentVM({}, { procedures: shared })
    const a = (await machine.run(storeWith({}), {}, { tenant: 'a' })).result as string
    for (let i = 0; i < 3; i++) await machine.run(storeWith({}), {}, { tenant: 'b' })
    await machine.run(storeWith({}), {}, { tenant: 'c' })
    expect((await machine.run(a)).result).toBe(1)
    expect([shared.countOf('a'), shared.countOf('b'), shared.countOf('c')]).toEqual([1, 2, 1])
  })
  test('the tenant option is validated', async () => {
    expect((await new AgentVM().run(prog([ret(lit(1))]), {}, { tenant: 5 as any })).error?.code).toBe('OPTIONS_INVALID')
  })
})

describe('parallel agentRun children draw from one fuel meter', () => {
  const spin = prog([{ op: 'while', condition: lit(true), body: [] }])
  const work = prog([{ op: 'varsLet', vars: { i: lit(0) } }, { op: 'while', condition: bin('<', id('i'), lit(2000)), body: [{ op: 'varSet', key: 'i', value: bin('+', id('i'), lit(1)) }] }, ret(id('i'))])
  const fanOut = (child: unknown, n: number) => prog([{ op: 'parallel', branches: Array.from({ length: n }, () => [ret(call('agentRun', obj({ agentId: lit(child), input: obj({}) })))]), result: 'all' }, ret(id('all'))])
  test('20 spinning children under a budget of 1,000', () => bounded({ program: fanOut(spin, 20), options: { fuel: 1_000, timeoutMs: 5_000 }, expect: { code: 'FUEL_EXHAUSTED' }, maxFuel: 1_000 }))
  test('20 children of ~80 fuel each under a budget of 500', () => bounded({ program: fanOut(work, 20), options: { fuel: 500, timeoutMs: 5_000 }, expect: { code: 'FUEL_EXHAUSTED' }, maxFuel: 500 }))
  test('the work all children do together stays within the budget', async () => {
    let calls = 0
    // Asynchronous, so the 20 children interleave (as real sub-agents waiting on I/O do).
    const count = defineAtom('count', { type: 'object', properties: {} }, undefined, async () => ++calls)
    const machine = new AgentVM({ count })
    const worker = prog([{ op: 'while', condition: lit(true), body: [{ op: 'expr', value: call('count', obj({})) }] }])
    const started = performance.now()
    const r = await machine.run(fanOut(worker, 20), {}, { fuel: 1_000, timeoutMs: 5_000 })
    expect(r.error?.code).toBe('FUEL_EXHAUSTED')
    expect(r.fuelUsed).toBeLessThanOrEqual(1_000)
    // agentRun costs 10 per child (200); each call then costs 1 fuel plus its step: the 20 children
    // share the other 800 fuel, so they make fewer than 800 calls in all (each had the whole budget before).
    expect(calls).toBeLessThan(800)
    expect(calls).toBeGreaterThan(600)
    expect(performance.now() - started).toBeLessThan(5_000 + DEADLINE_MARGIN_MS)
  })
  test('children that fit are charged exactly what they used', async () => {
    const fuel = async (n: number) => { const r = await new AgentVM().run(fanOut(work, n), {}, { fuel: 10_000 }); expect(r.error).toBeUndefined(); return r.fuelUsed }
    const [two, three, five] = [await fuel(2), await fuel(3), await fuel(5)]
    // Exactly additive: each further child adds the same fuel, leases returned in full.
    expect(five - three).toBeCloseTo(2 * (three - two), 6)
    expect(three - two).toBeGreaterThan(60)
  })
})

describe('the transpiler has the VM\'s depth guard', () => {
  const chains: Array<[string, string]> = [
    ['+', 'x+'.repeat(200_000) + 'x'], ['.b', 'x' + '.b'.repeat(200_000)], ['?.', 'x' + '?.b'.repeat(200_000)],
    ['??', 'x??'.repeat(200_000) + 'x'], ['-', 'x-'.repeat(200_000) + 'x'], ['[0]', 'x' + '[0]'.repeat(200_000)],
  ]
  test.each(chains)('a 200,000-long %s chain is a located AJS1020, not a host RangeError', (_name, body) => {
    let err: unknown
    try { transpile(`function main(x) {\n  return ${body}\n}`) } catch (e) { err = e }
    expect(err).toBeInstanceOf(TranspileError)
    expect((err as TranspileError).code).toBe('AJS1020')
    expect((err as TranspileError).line).toBe(2)
  })
  // 10,000 nested loops overflowed Bun's stack in lowering (a RangeError, no code); acorn's own guard was AJS1001 "syntax error".
  test.each([['blocks', '{'], ['ifs', 'if (x) {'], ['loops', 'while (x) {'], ['functions', 'const g = () => {']])('%s nested 30,000 deep: AJS1020, located, never a RangeError', (_name, open) => {
    const deep = (n: number) => `function main({ x }) {\n${`${open}\n`.repeat(n)}x++\n${'}\n'.repeat(n)}return { x }\n}`
    const refusal = (n: number) => {
      try { transpile(deep(n)) } catch (e) { return e }
      return undefined
    }
    const far = refusal(30_000)
    expect(far).toBeInstanceOf(TranspileError)
    expect([(far as TranspileError).code, (far as TranspileError).line > 1]).toEqual(['AJS1020', true])
    if (open.startsWith('const')) return // local functions stop at 32 levels (AJS2064), and these are never called
    expect(refusal(3)).toBeUndefined()
    // The 1,001st nested statement, on line 1,002.
    const near = refusal(1_001) as TranspileError
    expect([near.code, near.line, near.message]).toEqual(['AJS1020', 1_002, 'The source nests deeper than 1,000 levels of statements'])
  })
  // The passes before lowering (a helper given a function, a factory, a table of functions, local functions)
  // and the workflow frontend's rewrite walk by recursion: each overflowed the stack on the chains above.
  test.each([
    ['a helper given a function', 'function ap(g, x) { return g(x) }\nfunction main({ x }) {\n  const r = ap((y) => y + 1, x)\n  return { v: BODY }\n}'],
    ['a factory', "const byKey = (k) => (a, b) => a[k] - b[k]\nfunction main({ xs, x }) {\n  xs.sort(byKey('p'))\n  return { v: BODY }\n}"],
    ['a table of functions', 'const T = { a: (x) => x, b: (x) => x + 1 }\nfunction main({ k, x }) {\n  const r = T[k](x)\n  return { v: BODY }\n}'],
  ])('with %s, a 200,000-long chain is AJS1020 too, never a RangeError', (_what, template) => {
    for (const body of ['x+'.repeat(200_000) + 'x', 'x' + '.b'.repeat(200_000)]) {
      let err: unknown
      try { transpile(template.replace('BODY', body)) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS1020')
    }
  })
  test('a workflow module nested too deep is AJS1020, never a RangeError (chains, blocks, a 12,000-branch else-if)', () => {
    const modules = [
      `let x = 1\nexport default { v: ${'x+'.repeat(200_000)}x }`,
      `let x = 0\n${'{\n'.repeat(30_000)}x++\n${'}\n'.repeat(30_000)}export default { x }`,
      `let x = 0\nlet y = 0\n${Array.from({ length: 12_000 }, (_, i) => `if (x === ${i}) { y = ${i} }`).join('\nelse ')}\nexport default { y }`,
    ]
    for (const source of modules) {
      let err: unknown
      try { compileWorkflow(source) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect([(err as TranspileError).code, (err as TranspileError).line > 1]).toEqual(['AJS1020', true])
    }
  })
  test('vm.run of the same source is a result, never a throw', async () => {
    const r = await new AgentVM().run(`function main(x) { return ${'x+'.repeat(200_000)}x }`, {}, { fuel: 1e6 })
    expect(r.error?.code).toBe('AJS1020')
  })
})
