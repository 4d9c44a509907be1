/**
 * `structuredClone(value)` as JavaScript's for guest data (it was AJS3002 'Unknown function', with a
 * JSON round trip as the hint, which loses NaN, -0, undefined, holes, sharing and cycles).
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const vm = new AgentVM()
async function run(body: string, args: Record<string, unknown> = {}, fuel = 100_000) {
  const { ast } = transpile(`function f({ o = {} }) {\n${body}\n}`)
  return vm.run(ast, args, { fuel })
}
// The same body run by JavaScript, for the answers both must give.
// eslint-disable-next-line no-new-func -- the reference, in the test only
const native = (body: string, o: unknown) => new Function('o', body)(structuredClone(o))

describe('structuredClone', () => {
  const bodies = [
    'const c = structuredClone(o)\nc.b.push(9)\nc.a = 2\nreturn [o, c]',
    'const s = { k: 1 }\nconst c = structuredClone([s, s, { s }])\nc[0].k = 2\nreturn [c[1].k, c[2].s.k, s.k]',
    "const x = { name: 'x' }\nx.self = x\nconst c = structuredClone(x)\nreturn [c.self === c, c !== x, c.name]",
    'const c = structuredClone([0 / 0, -0, undefined, null, 1 / 0])\nreturn [c[0] !== c[0], Object.is(c[1], -0), c.length, 2 in c, c[3], c[4]]',
    'const h = []\nh[3] = 1\nconst c = structuredClone(h)\nreturn [c.length, 0 in c, 3 in c]',
    "return [structuredClone(5), structuredClone('s'), structuredClone(null), structuredClone(true)]",
    "const c = structuredClone({ re: /a+/g, s: 'x' })\nreturn [c.re.test('aa'), c.s]",
  ]
  for (const body of bodies) {
    test(body.split('\n')[0]!, async () => {
      const o = { a: 1, b: [1, 2], n: { deep: [{ x: 1 }] } }
      const r = await run(body, { o })
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual(native(body, o))
    })
  }

  test('a shared structure of 2^40 paths is copied once per part, as JavaScript does', async () => {
    const r = await run('let a = []\nfor (let i = 0; i < 40; i++) { a = [a, a] }\nconst c = structuredClone(a)\nreturn c[0] === c[1]')
    expect(r.result).toBe(true)
  })

  test('too deep is a RANGE_ERROR, not the host stack', async () => {
    const r = await run('let a = []\nfor (let i = 0; i < 100000; i++) { a = [a] }\nreturn structuredClone(a).length', {}, 1e6)
    expect(r.error?.code).toBe('RANGE_ERROR')
  })

  test('every item copied is charged', async () => {
    const small = (await run('const xs = [1, 2, 3]\nreturn structuredClone(xs).length')).fuelUsed
    const big = (await run('const xs = Array.from({ length: 30000 }, (_, i) => i)\nconst t = structuredClone(xs)\nreturn 1', {}, 1e6)).fuelUsed
    const bigNoClone = (await run('const xs = Array.from({ length: 30000 }, (_, i) => i)\nreturn 1', {}, 1e6)).fuelUsed
    expect(big - bigNoClone).toBeGreaterThan(small)
    const out = await run('const xs = Array.from({ length: 30000 }, (_, i) => i)\nconst t = structuredClone(xs)\nreturn 1', {}, bigNoClone + 0.01)
    expect(out.error?.code).toBe('FUEL_EXHAUSTED')
  })
})
