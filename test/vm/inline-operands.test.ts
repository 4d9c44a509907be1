/**
 * Operands read in place (issue 28): `slot op k && rest` / `slot op y || rest`, `!flag`, a
 * conditional whose branches are literals, `expr / k`. Each saves a closure call on a hot path;
 * each must give what JavaScript gives for numbers (the in-place path) and for every other operand
 * kind (the ordinary path), and spend the fuel of the ordinary path (a literal branch still pays).
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const CMP = ['<', '>', '<=', '>=', '===', '!=='] as const
const SHAPES = [
  (o: string) => `(x ${o} 3) && z + 1`,
  (o: string) => `(x ${o} y) || z * 2`,
  (o: string) => `x ${o} y && !z`,
  (o: string) => `!x ${o === '<' ? '||' : '&&'} y`,
  (o: string) => `x ${o} y ? 'yes' : 0`,
  (o: string) => `x ${o} 2 ? null : z`,
  (o: string) => `(x + y) / 4 ${o} z`,
  () => 'Math.round(x * y) / 100',
]

const value = fc.oneof(
  fc.integer({ min: -10, max: 10 }),
  fc.double({ noNaN: false, min: -1e3, max: 1e3 }),
  fc.constantFrom(0, -0, 3, 2, 0.5),
  fc.constantFrom('3', 'ab', '', null, true, false),
  fc.constantFrom([2], [], { a: 1 }),
)

const vm = new AgentVM()
const cache = new Map<string, { ast: object; native: (a: unknown) => unknown }>()
function program(expr: string) {
  let p = cache.get(expr)
  if (!p) {
    const source = `function f({ x, y, z }) { return { r: ${expr} } }`
    // eslint-disable-next-line no-new-func -- the reference semantics, test only
    p = { ast: transpile(source).ast, native: new Function(`return (${source.replace('function f', 'function')})`)() as (a: unknown) => unknown }
    cache.set(expr, p)
  }
  return p
}

const same = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : JSON.stringify(a) === JSON.stringify(b))

describe('operands read in place', () => {
  test('agree with JavaScript on numbers and on every other operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: SHAPES.length - 1 }), fc.constantFrom(...CMP), value, value, value, async (shape, o, x, y, z) => {
        const expr = SHAPES[shape]!(o)
        const p = program(expr)
        const args = { x, y, z }
        const expected = (p.native(structuredClone(args)) as { r: unknown }).r
        const run = await vm.run(p.ast, args)
        expect(run.error).toBeUndefined()
        const got = (run.result as { r: unknown }).r
        if (!same(got, expected)) throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${JSON.stringify(got)}, JS ${JSON.stringify(expected)}`)
      }),
      { numRuns: 2000, seed: 28 },
    )
  })

  test('a literal branch of ?: and the right side of && / || are still paid when taken', async () => {
    const fuel = async (src: string, args: object) => (await vm.run(transpile(src).ast, args)).fuelUsed
    const cond = 'function f({ x }) { return x > 1 ? 5 : 6 }'
    // literal branches cost one node each, whichever is taken
    expect(await fuel(cond, { x: 2 })).toBe(await fuel(cond, { x: 0 }))
    const and = 'function f({ x, z }) { return (x > 1) && z + 1 }'
    // taken right side: `z + 1` is three nodes more than the short circuit
    expect(Math.round((await fuel(and, { x: 2, z: 1 })) * 100) - Math.round((await fuel(and, { x: 0, z: 1 })) * 100)).toBe(3)
  })
})
