/**
 * Reads in place (issue 28): an object literal with static keys and a template literal read a
 * variable's value from its slot, and an instance method call reads its receiver from the slot.
 * Each must give what JavaScript gives for every operand kind, and a method on a value of the
 * wrong type must fail as JavaScript throws.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'
import { agrees, operand, program, same } from './js-reference.ts'

const OBJECTS = ['{ a: x, b: y, c: 1, d: typeof x }', '{ x, y, z }', '{ k: z, n: [x, y], m: { y } }', '{}']

const TEMPLATES = ['`${x}`', '`a${x}b${y}c`', '`${x}${x === y}${z}!`', '`<${y}:${[x, 1]}>`']

const METHODS = [
  'x.toUpperCase()', 'x.trim()', 'x.slice(1)', 'x.slice(0, 2)', 'x.join("-")', 'x.join()',
  'x.includes(y)', 'x.indexOf(y)', 'x.toFixed(1)', 'x.toString()', 'x.concat(y)', 'x.at(-1)',
  '[x, y].join(z)', 'String(x).toLowerCase()', 'x.padStart(4)',
]

// Strings and arrays too, so the methods mostly apply; the operand kinds of the other tests besides.
const value = fc.oneof(operand(10, 1e3), fc.string({ maxLength: 6 }), fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 4 }))
const vm = new AgentVM()

describe('reads in place', () => {
  test('object literals with static keys hold what JavaScript puts there', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OBJECTS), value, value, value, async (expr, x, y, z) => agrees(expr, { x, y, z })),
      { numRuns: 1000, seed: 28 },
    )
  })

  test('template literals with variables give JavaScript\'s text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TEMPLATES), value, value, value, async (expr, x, y, z) => agrees(expr, { x, y, z })),
      { numRuns: 1000, seed: 28 },
    )
  })

  test('instance methods on a variable answer as JavaScript, or fail where it throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), value, value, value, async (expr, x, y, z) => {
        const p = program(expr)
        const args = { x, y, z }
        let expected: unknown
        let threw = false
        try { expected = (p.native(structuredClone(args)) as { r: unknown }).r } catch { threw = true }
        const run = await vm.run(p.ast, args)
        if (threw || run.error) {
          if (!threw || !run.error) throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${run.error?.code ?? JSON.stringify(run.result)}, JS ${threw ? 'throws' : JSON.stringify(expected)}`)
          return
        }
        const got = (run.result as { r: unknown }).r
        if (!same(got, expected)) throw new Error(`${expr} with ${JSON.stringify(args)}: VM ${JSON.stringify(got)}, JS ${JSON.stringify(expected)}`)
      }),
      { numRuns: 2000, seed: 28 },
    )
  })

  test('methods called without arguments answer as JavaScript', async () => {
    const zero = ['concat', 'push', 'unshift', 'splice', 'slice', 'reverse', 'sort', 'flat', 'join', 'toString', 'pop', 'shift', 'fill']
    for (const m of zero) {
      await agrees(`[x.${m}(), x.${m}(), x]`, { x: [3, 1, 2], y: 0, z: 0 })
      const ast = transpile(`function f({ x }) { let a = x.${m}(); let b = x.${m}(); return { r: [a, b] } }`).ast
      expect((await vm.run(ast, { x: [3, 1, 2] })).error).toBeUndefined()
    }
  })
})
