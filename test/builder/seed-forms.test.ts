/**
 * The seed's builder forms (issue 26): `.return(plainJsonSchema)`, body-first
 * and keyless `cache`/`memoize`, a body without `return` yielding its
 * `result`, the mapping form of `varsExport`, `Agent.custom(atoms)`.
 */
import { describe, expect, test } from 'bun:test'
import { Agent, AgentVM, defineAtom, s } from '../../src/index.ts'

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
