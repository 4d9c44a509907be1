/**
 * The seed's builder forms (issue 26): `.return(plainJsonSchema)`, body-first
 * and keyless `cache`/`memoize`, a body without `return` yielding its
 * `result`, the mapping forms of `varsImport` and `varsExport`, `Agent.custom(atoms)`.
 */
import { describe, expect, test } from 'bun:test'
import { Agent, AgentVM, defineAtom, e, s } from '../../src/index.ts'

const vm = new AgentVM()
const memoryStore = () => {
  const data = new Map<string, unknown>()
  return { data, store: { get: async (k: string) => data.get(k), set: async (k: string, v: unknown) => { data.set(k, v) } } }
}

describe('.return(plain JSON Schema)', () => {
  test('returns the named variables, like s.object(...)', async () => {
    const ast = Agent.take(s.object({ x: s.number })).varSet({ key: 'y', value: 2 }).varSet({ key: 'z', value: 3 })
      .return({ properties: { y: {}, z: { type: 'number' } } } as any).toJSON()
    expect((await vm.run(ast, { x: 1 })).result).toEqual({ y: 2, z: 3 })
    const typed = Agent.varSet({ key: 'y', value: 2 }).return({ type: 'object', properties: { y: {} }, required: ['y'] } as any).toJSON()
    expect((await vm.run(typed)).result).toEqual({ y: 2 })
  })
  test('an object with other keys, or properties that are not objects, is data', async () => {
    expect((await vm.run(Agent.return({ properties: { y: {} }, extra: 1 }).toJSON())).result).toEqual({ properties: { y: {} }, extra: 1 })
    expect((await vm.run(Agent.return({ properties: { y: 1 } }).toJSON())).result).toEqual({ properties: { y: 1 } })
  })
})

describe('cache and memoize, body first and keyless', () => {
  let calls = 0
  const tick = defineAtom('tick', s.object({}), s.number, async () => ++calls)

  test('cache(body) derives a stable key: repeated runs of the same program hit the same entry', async () => {
    const { data, store } = memoryStore()
    const build = () => Agent.custom({ tick }).cache((b: any) => b.tick({}).as('result')).as('v').return(s.object({ v: s.number })).toJSON()
    const machine = new AgentVM({ tick })
    calls = 0
    expect((await machine.run(build(), {}, { capabilities: { store } })).result).toEqual({ v: 1 })
    expect((await machine.run(build(), {}, { capabilities: { store } })).result).toEqual({ v: 1 })
    expect(calls).toBe(1)
    expect(data.size).toBe(1)
    expect(build().steps[0]).toMatchObject({ op: 'cache', key: expect.stringMatching(/^body:[0-9a-f]{32}$/) })
  })

  test('cache(body, key, ttlMs) and the key-first form build the same step', () => {
    const body = (b: any) => b.varSet({ key: 'result', value: 1 })
    const seed = Agent.cache(body, 'k', 5000).toJSON().steps[0]
    const ours = Agent.cache('k', body, { ttlMs: 5000 }).toJSON().steps[0]
    expect(seed).toEqual(ours)
    expect(seed).toMatchObject({ key: 'k', ttlMs: 5000 })
  })

  test('memoize(body, key?) and a body without return yields its result variable', async () => {
    const ast = Agent.memoize((b: any) => b.varSet({ key: 'result', value: 41 })).as('a')
      .memoize((b: any) => b.varSet({ key: 'result', value: 1 }), 'k').as('b')
      .memoize('k2', (b: any) => b.return(7)).as('c')
      .return(s.object({ a: s.number, b: s.number, c: s.number })).toJSON()
    expect((await vm.run(ast)).result).toEqual({ a: 41, b: 1, c: 7 })
  })
})

describe('varsExport mapping form', () => {
  test('varsExport({ key: variable })', async () => {
    const ast = Agent.varSet({ key: 'a', value: 5 }).varSet({ key: 'b', value: 6 })
      .varsExport({ u: 'a', w: 'b' } as any).as('out').return(s.object({ out: s.any })).toJSON()
    expect((await vm.run(ast)).result).toEqual({ out: { u: 5, w: 6 } })
  })
})

describe('varsImport mapping form', () => {
  test('varsImport({ variable: argName }) declares the variable from the arg of that name', async () => {
    const ast = Agent.varsImport({ x: 'c' } as any).return(s.object({ x: s.number })).toJSON()
    expect((await vm.run(ast, { c: 5, x: 9 })).result).toEqual({ x: 5 })
    // ajs/1 reaches args by name only: `let x`, then a scope importing `c` and assigning it; `c` stays inside.
    expect(ast.steps.slice(0, 2)).toEqual([
      { op: 'varsLet', vars: { x: { $expr: 'ident', name: 'undefined' } } },
      { op: 'scope', steps: [{ op: 'varsImport', keys: ['c'] }, { op: 'varSet', key: 'x', value: { $expr: 'ident', name: 'c' } }] },
    ])
    expect(() => Agent.varsImport({ x: 'c' } as any).return(s.object({ c: s.number })).toJSON()).toThrow(/not in scope/)
  })

  test('same-named entries, several renames, a missing arg, and a swap', async () => {
    const ast = Agent.varsImport({ a: 'a', x: 'c', y: 'd', m: 'missing' } as any)
      .return(s.object({ a: s.number, x: s.number, y: s.number, m: s.any })).toJSON()
    expect(ast.steps[0]).toEqual({ op: 'varsImport', keys: ['a'] })
    expect((await vm.run(ast, { a: 1, c: 2, d: 3 })).result).toEqual({ a: 1, x: 2, y: 3, m: undefined })
    const swap = Agent.varsImport({ x: 'y', y: 'x' } as any).return(s.object({ x: s.number, y: s.number })).toJSON()
    expect((await vm.run(swap, { x: 1, y: 2 })).result).toEqual({ x: 2, y: 1 })
  })

  test('the imported variable is a let: assignable, and usable in expressions', async () => {
    const ast = Agent.varsImport({ total: 'amount' } as any).varSet({ key: 'total', value: e.binary('+', e.ident('total'), 1) })
      .return(s.object({ total: s.number })).toJSON()
    expect((await vm.run(ast, { amount: 41 })).result).toEqual({ total: 42 })
  })

  test('names that are not identifiers are refused', () => {
    expect(() => Agent.varsImport({ x: 'not a name' } as any)).toThrow()
    expect(() => Agent.varsImport('x' as any)).toThrow(/varsImport/)
  })
})

describe('Agent.custom(atoms)', () => {
  test('a builder over the core atoms plus the given ones', async () => {
    const shout = defineAtom('shout', s.object({ text: s.string }), s.string, async ({ text }) => text.toUpperCase())
    const root = Agent.custom({ shout })
    const ast = root.shout({ text: 'hi' }).as('loud').varSet({ key: 'n', value: 1 }).return(s.object({ loud: s.string, n: s.number })).toJSON()
    expect((await new AgentVM({ shout }).run(ast)).result).toEqual({ loud: 'HI', n: 1 })
    expect(Agent.custom([shout]).shout({ text: 'a' }).toJSON().steps[0]!.op).toBe('shout')
    expect(() => Agent.custom({ nope: 1 } as any)).toThrow(/defineAtom/)
  })
})
