/**
 * Two-level superinstructions (`(x op1 y) op2 z`, `z op2 (x op1 k)`) and
 * logical operators reading a variable in place (`t && flag`) must
 * give exactly what JavaScript gives, for numbers (the fused path) and for
 * every other kind of operand (the ordinary path it falls back to).
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const INNER = ['+', '-', '*', '/', '%'] as const
const OUTER = ['+', '-', '*', '/', '%', '<', '<=', '>', '>=', '===', '!=='] as const
const SHAPES = [
  (_o1: string, o2: string) => (o2 === '<' ? '(x < 3) && y' : o2 === '>' ? '(x > 3) || y' : o2 === '===' ? 'x && y' : '(x % 2 === 1) || z'),
  (o1: string, o2: string) => `(x ${o1} y) ${o2} z`,
  (o1: string, o2: string) => `(x ${o1} 3) ${o2} z`,
  (o1: string, o2: string) => `(x ${o1} y) ${o2} 7`,
  (o1: string, o2: string) => `z ${o2} (x ${o1} y)`,
  (o1: string, o2: string) => `2.5 ${o2} (x ${o1} 4)`,
]

const value = fc.oneof(
  fc.integer({ min: -50, max: 50 }),
  fc.double({ noNaN: false, min: -1e6, max: 1e6 }),
  fc.constantFrom(0, -0, 1, -1, 0.5, Number.MAX_SAFE_INTEGER),
  fc.constantFrom('3', 'ab', '', null, true, false),
  fc.constantFrom([2], [], { a: 1 }),
)

const vm = new AgentVM()
const programs = new Map<string, { ast: object; native: (a: unknown) => unknown }>()
function program(expr: string) {
  let p = programs.get(expr)
  if (!p) {
    const source = `function f({ x, y, z }) { return { r: ${expr} } }`
    // eslint-disable-next-line no-new-func -- the reference semantics, test only
    p = { ast: transpile(source).ast, native: new Function(`return (${source.replace('function f', 'function')})`)() as (a: unknown) => unknown }
    programs.set(expr, p)
  }
  return p
}

/** Same value, with -0 and NaN told apart as Object.is does. */
function same(a: unknown, b: unknown): boolean {
  return typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : JSON.stringify(a) === JSON.stringify(b)
}

describe('two-level fused operators', () => {
  test('agree with JavaScript on numbers and on every other operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...INNER), fc.constantFrom(...OUTER), fc.integer({ min: 0, max: SHAPES.length - 1 }),
        value, value, value,
        async (o1, o2, shape, x, y, z) => {
          const expr = SHAPES[shape]!(o1, o2)
          const p = program(expr)
          const args = { x, y, z }
          const expected = (p.native(structuredClone(args)) as { r: unknown }).r
          const run = await vm.run(p.ast, args)
          expect(run.error).toBeUndefined()
          const got = (run.result as { r: unknown }).r
          if (!same(got, expected)) throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${String(got)}, JS ${String(expected)}`)
        },
      ),
      { numRuns: 3000, seed: 7 },
    )
  })

  test('in a loop the fused path keeps every iteration exact', async () => {
    const source = `function f({ n }) {
      let hits = 0
      let sum = 0
      for (let i = 0; i < n; i++) {
        if (i % 7 === 3) hits = hits + 1
        sum = sum + ((i * 3) % 11 - 5)
        if ((i + 1) % 5 <= 1) sum = sum - 1
      }
      return { hits, sum }
    }`
    // eslint-disable-next-line no-new-func -- reference semantics, test only
    const native = new Function(`return (${source.replace('function f', 'function')})`)() as (a: unknown) => unknown
    const r = await vm.run(transpile(source).ast, { n: 1000 }, { fuel: 1e6 })
    expect(r.result).toEqual(native({ n: 1000 }) as object)
  })
})
