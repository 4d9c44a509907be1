/**
 * Operands read in place (issue 28): `slot op k && rest` / `slot op y || rest`, `!flag`,
 * `expr / k`. Each saves a closure call on a hot path; each must give what JavaScript gives for
 * numbers (the in-place path) and for every other operand kind (the ordinary path), and spend the
 * fuel of the ordinary path. Conditionals with literal branches, number constants on the left
 * and constant bounds of Math.min / Math.max are checked alongside.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { agrees, operand } from './js-reference.ts'

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
  // a number constant on the left (read in place), of a variable and of an expression
  (o: string) => `(5 + x) ${o} (2 - (y * z))`,
  (o: string) => `(7 * x) / (3 ${o === '<' || o === '>' ? o : '+'} y * z)`,
  () => `Math.min(25, 4 + x) + Math.max(y * 2, 6) + Math.max(0, z) + Math.min(z, 1)`,
  (o: string) => `x ${o} z * 2 ? 1 : 'no'`,
]

const value = operand(10, 1e3)
const vm = new AgentVM()

describe('operands read in place', () => {
  test('agree with JavaScript on numbers and on every other operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: SHAPES.length - 1 }), fc.constantFrom(...CMP), value, value, value, (shape, o, x, y, z) => agrees(SHAPES[shape]!(o), { x, y, z })),
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
