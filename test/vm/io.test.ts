/** I/O atoms through fake capabilities, and the capability contract. */
import { describe, expect, test } from 'bun:test'
import { arr, call, code, id, lit, obj, prog, progArgs, ret, run, value } from './ast.ts'

const step = (op: string, fields: Record<string, unknown>) => ({ op, ...fields, result: 'out' })
const runOne = (op: string, fields: Record<string, unknown>, capabilities: Record<string, unknown>, args: Record<string, unknown> = {}) =>
  run(progArgs(Object.keys(args), [step(op, fields), ret(id('out'))]), args, { capabilities })

function fakeStore() {
  const data = new Map<string, unknown>()
  const calls: unknown[][] = []
  return {
    data, calls,
    get: async (k: string) => { calls.push(['get', k]); return data.get(k) ?? null },
    set: async (k: string, v: unknown) => { calls.push(['set', k, v]); data.set(k, v) },
    query: async (q: unknown) => { calls.push(['query', q]); return [{ id: 1, q }] },
    vectorSearch: async (q: unknown) => { calls.push(['vectorSearch', q]); return [{ id: 'doc', score: 0.9 }] },
  }
}

describe('httpFetch', () => {
  test('passes url, method, headers, body and a signal; Response becomes plain data', async () => {
    const seen: any[] = []
    const fetch = async (url: string, init: any) => {
      seen.push({ url, init })
      return new Response(JSON.stringify({ ok: 1 }), { status: 201, headers: { 'content-type': 'application/json', 'x-a': 'b' } })
    }
    const r = await runOne('httpFetch', { url: 'https://api.test/x', method: 'POST', headers: { a: '1' }, body: { q: 1 } }, { fetch })
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual({ status: 201, ok: true, headers: { 'content-type': 'application/json', 'x-a': 'b' }, body: { ok: 1 } })
    expect(seen[0].url).toBe('https://api.test/x')
    expect(seen[0].init.method).toBe('POST')
    expect(seen[0].init.headers).toEqual({ a: '1' })
    expect(seen[0].init.body).toBe('{"q":1}')
    expect(seen[0].init.signal).toBeInstanceOf(AbortSignal)
  })
  test('non-JSON bodies stay text; a plain-object result passes through as data', async () => {
    const r1 = await runOne('httpFetch', { url: 'u' }, { fetch: async () => new Response('hello', { status: 404 }) })
    expect(r1.result).toMatchObject({ status: 404, ok: false, body: 'hello' })
    const r2 = await runOne('httpFetch', { url: 'u' }, { fetch: async () => ({ custom: true }) })
    expect(r2.result).toEqual({ custom: true })
  })
  test('url must be a string', async () => {
    expect((await runOne('httpFetch', { url: 5 }, { fetch: async () => ({}) })).error?.code).toBe('TYPE_ERROR')
  })
  test('a throwing capability is CAPABILITY_ERROR with the cause code', async () => {
    const err = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })
    const r = await runOne('httpFetch', { url: 'u' }, { fetch: async () => { throw err } })
    expect(r.error?.code).toBe('CAPABILITY_ERROR')
    expect(r.error?.op).toBe('httpFetch')
    expect(r.error?.message).toContain('ECONNREFUSED')
    expect(r.error?.message).toContain('refused')
  })
})

describe('store atoms', () => {
  test('storeSet then storeGet', async () => {
    const store = fakeStore()
    const ast = prog([{ op: 'storeSet', key: 'k', value: { a: [1] } }, step('storeGet', { key: 'k' }), ret(id('out'))])
    const r = await run(ast, {}, { capabilities: { store } })
    expect(r.result).toEqual({ a: [1] })
    expect(store.calls).toEqual([['set', 'k', { a: [1] }], ['get', 'k']])
  })
  test('storeSet value is null; the stored value is a copy (not a guest object)', async () => {
    const store = fakeStore()
    const ast = prog([{ op: 'varsLet', vars: { o: lit({ a: 1 }) } }, step('storeSet', { key: 'k', value: id('o') }), ret(id('out'))])
    const r = await run(ast, {}, { capabilities: { store } })
    expect(r.result).toBe(null)
    expect(store.data.get('k')).toEqual({ a: 1 })
  })
  test('storeQuery and storeVectorSearch', async () => {
    const store = fakeStore()
    expect((await runOne('storeQuery', { query: { where: 'x' } }, { store })).result).toEqual([{ id: 1, q: { where: 'x' } }])
    const r = await runOne('storeVectorSearch', { collection: 'docs', vector: [0.1, 0.2], k: 3 }, { store })
    expect(r.result).toEqual([{ id: 'doc', score: 0.9 }])
    expect(store.calls[1]).toEqual(['vectorSearch', { collection: 'docs', vector: [0.1, 0.2], k: 3, filter: undefined }])
  })
})

describe('llmPredict', () => {
  test('calls llm.predict(prompt, { system, model, ...options, signal })', async () => {
    const seen: any[] = []
    const llm = { predict: async (prompt: string, opts: any) => { seen.push([prompt, opts]); return 'answer' } }
    const r = await runOne('llmPredict', { prompt: 'Q?', system: 'be brief', model: 'm1', options: { temperature: 0 } }, { llm })
    expect(r.result).toBe('answer')
    expect(seen[0][0]).toBe('Q?')
    expect(seen[0][1]).toMatchObject({ system: 'be brief', model: 'm1', temperature: 0 })
    expect(seen[0][1].signal).toBeInstanceOf(AbortSignal)
  })
})

describe('missing capabilities', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['httpFetch', { url: 'u' }, 'capabilities.fetch'],
    ['storeGet', { key: 'k' }, 'capabilities.store.get'],
    ['storeSet', { key: 'k', value: 1 }, 'capabilities.store.set'],
    ['storeQuery', { query: {} }, 'capabilities.store.query'],
    ['storeVectorSearch', { vector: [1] }, 'capabilities.store.vectorSearch'],
    ['llmPredict', { prompt: 'p' }, 'capabilities.llm.predict'],
  ]
  for (const [op, fields, name] of cases) {
    test(`${op} without its capability is CAPABILITY_MISSING naming ${name}`, async () => {
      const r = await runOne(op, fields, {})
      expect(r.error?.code).toBe('CAPABILITY_MISSING')
      expect(r.error?.message).toContain(name)
      expect(r.error?.op).toBe(op)
    })
  }
  test('a store without the needed method is also CAPABILITY_MISSING', async () => {
    const r = await runOne('storeQuery', { query: {} }, { store: { get: async () => 1 } })
    expect(r.error?.code).toBe('CAPABILITY_MISSING')
  })
  test('CAPABILITY_MISSING is catchable', async () => {
    const ast = prog([{ op: 'try', try: [{ op: 'storeGet', key: 'k' }], catchParam: 'e', catch: [ret(id('e'))] }])
    const e = await value(ast)
    expect(e.code).toBe('CAPABILITY_MISSING')
    expect(e.message).toContain('capabilities.store.get')
  })
})

describe('the membrane for capability results', () => {
  test('functions and prototypes are stripped; getters are read once; class instances become plain data', async () => {
    class Thing { x = 1; method() { return 2 } }
    const weird: any = { a: 1, fn: () => 1, nested: new Thing() }
    Object.defineProperty(weird, 'getter', { get: () => 'secret', enumerable: true })
    const r = await runOne('storeGet', { key: 'k' }, { store: { get: async () => weird } })
    expect(r.result).toEqual({ a: 1, getter: 'secret', nested: { x: 1 } })
    expect(Object.getOwnPropertyDescriptor(r.result, 'getter')?.get).toBeUndefined()
  })
  test('a cyclic capability result is VALUE_NOT_DATA', async () => {
    const cyc: any = { a: 1 }
    cyc.self = cyc
    expect((await runOne('storeGet', { key: 'k' }, { store: { get: async () => cyc } })).error?.code).toBe('VALUE_NOT_DATA')
  })
  test('BigInt, Map and typed arrays are not data', async () => {
    expect((await runOne('storeGet', { key: 'k' }, { store: { get: async () => ({ n: 1n }) } })).error?.code).toBe('VALUE_NOT_DATA')
    expect((await runOne('storeGet', { key: 'k' }, { store: { get: async () => new Map() } })).error?.code).toBe('VALUE_NOT_DATA')
    expect((await runOne('storeGet', { key: 'k' }, { store: { get: async () => new Uint8Array(2) } })).error?.code).toBe('VALUE_NOT_DATA')
  })
  test('dates become ISO strings', async () => {
    const r = await runOne('storeGet', { key: 'k' }, { store: { get: async () => ({ at: new Date(0) }) } })
    expect(r.result).toEqual({ at: '1970-01-01T00:00:00.000Z' })
  })
  test('a huge capability result is VALUE_TOO_LARGE', async () => {
    const big = 'x'.repeat(50_000_001)
    expect((await runOne('storeGet', { key: 'k' }, { store: { get: async () => big } })).error?.code).toBe('VALUE_TOO_LARGE')
  })
  test('__proto__ keys from a capability are dropped', async () => {
    const r = await runOne('storeGet', { key: 'k' }, { store: { get: async () => JSON.parse('{"__proto__":{"p":1},"a":2}') } })
    expect(r.result).toEqual({ a: 2 })
  })
  test('the guest cannot mutate the object the capability returned', async () => {
    const held = { list: [1] }
    const ast = prog([step('storeGet', { key: 'k' }), { op: 'push', list: { $expr: 'member', object: id('out'), property: 'list' }, item: 2 }, ret(id('out'))])
    const r = await run(ast, {}, { capabilities: { store: { get: async () => held } } })
    expect(r.result).toEqual({ list: [1, 2] })
    expect(held).toEqual({ list: [1] })
  })
})

describe('io atoms as expressions', () => {
  test('await-free: atoms in expressions are awaited transparently, in order', async () => {
    const order: string[] = []
    const store = { get: async (k: string) => { order.push(k); await new Promise((r) => setTimeout(r, k === 'a' ? 5 : 0)); return k.toUpperCase() } }
    const ast = prog([ret(arr(call('storeGet', obj({ key: lit('a') })), call('storeGet', obj({ key: lit('b') }))))])
    expect(await value(ast, {}, { capabilities: { store } })).toEqual(['A', 'B'])
    expect(order).toEqual(['a', 'b'])
  })
  test('missing capability from an expression call', async () => {
    expect(await code(prog([ret(call('llmPredict', obj({ prompt: lit('x') })))]))).toBe('CAPABILITY_MISSING')
  })
})
