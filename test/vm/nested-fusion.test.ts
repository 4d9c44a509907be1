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
import { agrees, operand } from './js-reference.ts'

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

const value = operand(50, 1e6)
const vm = new AgentVM()

describe('two-level fused operators', () => {
  test('agree with JavaScript on numbers and on every other operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...INNER), fc.constantFrom(...OUTER), fc.integer({ min: 0, max: SHAPES.length - 1 }),
        value, value, value,
        (o1, o2, shape, x, y, z) => agrees(SHAPES[shape]!(o1, o2), { x, y, z }),
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
