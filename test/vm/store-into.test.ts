/**
 * Stores that run as the value's own closure (issue 28, nested-fusion.ts Into): `let a = <expr>`
 * and `b = <expr>` whose value is a specialised shape (nested `(x op y) op z`, `slot op expr`,
 * `expr op slot`, `expr op k`, `k op expr`) store from the value's closure in its store variant.
 * Each must store what JavaScript computes, for numbers and for every other operand kind (the
 * ordinary path), and spend the fuel it spent before.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { operand, same } from './js-reference.ts'

const SHAPES = [
  '(x % 3) + y', '(x * 2) - y', '(x - y) * 3', 'z / (x + 1)', '(x % 4) % y', '(x % y) === 0',
  'x * (1 + (y % 3))', 'x + (y * z - 1)', 'x - (y * 2 + z)',
  '(y * z - 1) + x', '(y - z * 2) - x', '(y + 2 * z) * x',
  'Math.round(x * y) / 100', '(x + y) % 7', '(x - y) * 2', '(y + z) + 1',
  '5 + ((x * 7) % 40)', '3 - x', '2 * (y + z)',
]

interface Program { ast: object; native: (a: unknown) => unknown }
const programs = new Map<string, Program>()
function program(expr: string): Program {
  let p = programs.get(expr)
  if (!p) {
    const source = `function f({ x, y, z }) { let a = ${expr}; let b = 0; b = ${expr}; return { r: [a, b] } }`
    // eslint-disable-next-line no-new-func -- the reference semantics, test only
    p = { ast: transpile(source).ast, native: new Function(`return (${source.replace('function f', 'function')})`)() as (a: unknown) => unknown }
    programs.set(expr, p)
  }
  return p
}

const vm = new AgentVM()
const value = operand(10, 1e3)

describe('stores from the value closure', () => {
  test('store what JavaScript computes, for numbers and every other operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SHAPES), value, value, value, async (expr, x, y, z) => {
        const p = program(expr)
        const args = { x, y, z }
        const expected = (p.native(structuredClone(args)) as { r: unknown[] }).r
        const run = await vm.run(p.ast, args)
        if (run.error) throw new Error(`${expr} with ${JSON.stringify(args)}: ${run.error.code} ${run.error.message}`)
        const got = (run.result as { r: unknown[] }).r
        if (!same(got[0], expected[0]) || !same(got[1], expected[1])) {
          throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${JSON.stringify(got)}, JS ${JSON.stringify(expected)}`)
        }
      }),
      { numRuns: 2000, seed: 28 },
    )
  })

  test('spend the fuel they spent as an expression closure called by the store step', async () => {
    // Every shape stored by `let` and by assignment, for numbers and for other operand kinds (a
    // string's length is charged on `+`); figures measured at the commit before the store variants.
    const src = `function f({ x, y, z }) { let b = 0\n${SHAPES.map((e, i) => `let a${i} = ${e}\nb = ${e}`).join('\n')}\nreturn b }`
    const ast = transpile(src).ast
    expect((await vm.run(ast, { x: 3, y: 4, z: 5 })).fuelUsed).toBe(2.59)
    expect((await vm.run(ast, { x: 'a', y: [2], z: null })).fuelUsed).toBe(2.59384)
  })
})
