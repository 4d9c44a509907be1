/** Utility atoms: random, uuid, hash, memoize, cache, console*. */
import { describe, expect, test } from 'bun:test'
import { bin, code, ex, id, let_, lit, prog, ret, run, upd, value } from './ast.ts'

const one = (op: string, fields: Record<string, unknown> = {}, options: any = {}) =>
  value(prog([{ op, ...fields, result: 'out' }, ret(id('out'))]), {}, options)

describe('random and uuid', () => {
  test('random in [0,1) and integers in [min, max]', async () => {
    expect(await one('random', {}, { random: () => 0.999 })).toBe(0.999)
    expect(await one('random', { min: 1, max: 6 }, { random: () => 0 })).toBe(1)
    expect(await one('random', { min: 1, max: 6 }, { random: () => 0.9999 })).toBe(6)
    expect(await one('random', { min: 10, max: 10 }, { random: () => 0.5 })).toBe(10)
    expect(await code(prog([{ op: 'random', min: 5, max: 1 }]))).toBe('RANGE_ERROR')
  })
  test('uuid', async () => {
    expect(await one('uuid', {}, { uuid: () => 'abc' })).toBe('abc')
  })
})

describe('hash', () => {
  test('hex SHA-256 of a string, or of the JSON text of a value', async () => {
    expect(await one('hash', { value: 'abc' })).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(await one('hash', { value: '' })).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    const viaJson = await one('hash', { value: { a: 1 } })
    expect(viaJson).toBe(await one('hash', { value: '{"a":1}' }))
    expect(await one('hash', { value: 'é' })).toBe(new Bun.CryptoHasher('sha256').update('é').digest('hex'))
    const long = 'x'.repeat(1000)
    expect(await one('hash', { value: long })).toBe(new Bun.CryptoHasher('sha256').update(long).digest('hex'))
  })
})

describe('memoize', () => {
  test('runs the body once per key within a run', async () => {
    const body = [ex(upd('++', id('n'))), ret(bin('*', id('k'), lit(10)))]
    const ast = prog([
      let_({ n: lit(0), k: lit(1) }),
      { op: 'memoize', key: id('k'), steps: body, result: 'a' },
      { op: 'memoize', key: id('k'), steps: body, result: 'b' },
      ret({ $expr: 'array', elements: [id('a'), id('b'), id('n')] }),
    ])
    // two different memoize steps are two different memo tables
    expect(await value(ast)).toEqual([10, 10, 2])
  })
  test('a memoize step in a loop reuses its value for a repeated key', async () => {
    const ast = prog([
      let_({ n: lit(0), out: { $expr: 'array', elements: [] } }),
      { op: 'forOf', kind: 'const', target: 'k', iterable: lit(['a', 'b', 'a', 'a']), body: [
        { op: 'memoize', key: id('k'), steps: [ex(upd('++', id('n'))), ret(bin('+', id('k'), id('n')))], result: 'v' },
        ex({ $expr: 'methodCall', object: id('out'), method: 'push', args: [id('v')] }),
      ] },
      ret({ $expr: 'array', elements: [id('out'), id('n')] }),
    ])
    expect(await value(ast)).toEqual([['a1', 'b2', 'a1', 'a1'], 2])
  })
  test('memo does not survive across runs', async () => {
    const ast = prog([let_({ n: lit(0) }), { op: 'memoize', key: 'k', steps: [ex(upd('++', id('n'))), ret(id('n'))], result: 'v' }, ret(id('v'))])
    expect(await value(ast)).toBe(1)
    expect(await value(ast)).toBe(1)
  })
})

describe('cache', () => {
  const cached = (ttlMs?: number) => prog([
    let_({ n: lit(0) }),
    { op: 'cache', key: 'k', ...(ttlMs ? { ttlMs } : {}), steps: [ex(upd('++', id('n'))), ret(lit('computed'))], result: 'v' },
    ret({ $expr: 'array', elements: [id('v'), id('n')] }),
  ])
  test('kept across runs in capabilities.store under cache:<key>, for ttlMs', async () => {
    const data = new Map<string, any>()
    const store = { get: async (k: string) => data.get(k), set: async (k: string, v: unknown) => { data.set(k, v) } }
    let now = 0
    const opts = () => ({ capabilities: { store }, now: () => now })
    expect(await value(cached(100), {}, opts())).toEqual(['computed', 1])
    expect(data.get('cache:"k"')).toEqual({ value: 'computed', expiresAt: 100 })
    now = 99
    expect(await value(cached(100), {}, opts())).toEqual(['computed', 0])
    now = 100
    expect(await value(cached(100), {}, opts())).toEqual(['computed', 1])
  })
  test('without a store it behaves like memoize for the run', async () => {
    expect(await value(cached())).toEqual(['computed', 1])
  })
})

describe('console atoms', () => {
  test('consoleLog / consoleWarn / consoleError go to capabilities.console; warn also to warnings', async () => {
    const lines: string[] = []
    const console = { log: (m: string) => lines.push(`log ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) }
    const r = await run(prog([
      { op: 'consoleLog', message: 'hello' },
      { op: 'consoleWarn', message: { a: 1 } },
      { op: 'consoleError', message: 'bad' },
      ex({ $expr: 'methodCall', object: id('console'), method: 'log', args: [lit('x'), lit(2)] }),
    ]), {}, { capabilities: { console } })
    expect(r.error).toBeUndefined()
    expect(lines).toEqual(['log hello', 'warn {"a":1}', 'error bad', 'log x 2'])
    expect(r.warnings).toEqual(['{"a":1}'])
  })
  test('a throwing console sink does not fail the run; no sink is fine', async () => {
    const console = { log: () => { throw new Error('sink down') } }
    expect((await run(prog([{ op: 'consoleLog', message: 'x' }]), {}, { capabilities: { console } })).error).toBeUndefined()
    expect((await run(prog([{ op: 'consoleLog', message: 'x' }]))).error).toBeUndefined()
  })
  test('console atoms yield null', async () => {
    expect(await one('consoleLog', { message: 'x' })).toBe(null)
  })
})
