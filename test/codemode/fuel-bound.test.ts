/**
 * The plan's worst-case fuel (analyzeProgram(...).fuel) against the VM's
 * meter (src/vm/fuel.ts): every program of the corpus runs, and the fuel it
 * used is at most the bound (and the bound is not absurdly loose).
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM, defineAtom, s, transpile } from '../../src/index.ts'
import { analyzeProgram } from '../../src/codemode/index.ts'

const lookup = defineAtom('lookup', s.object({ id: s.number }), s.object({ name: s.string }), async ({ id }) => ({ name: `n${id}` }), { cost: 2, effects: 'pure' })
const atoms = { lookup }

const CORPUS: Array<[string, string, Record<string, unknown>]> = [
  ['straight line', `function f() { const a = 1 + 2 * 3; const b = 'x' + a; return { a, b } }`, {}],
  ['a constant for loop with atom calls', `function f() { const out = []; for (let i = 0; i < 10; i++) { out.push(lookup({ id: i }).name) } return out }`, {}],
  ['nested loops', `function f() { let n = 0; for (let i = 0; i < 5; i++) { for (let j = 0; j <= 4; j++) { n += i * j } } return n }`, {}],
  ['for...of a literal, if/else', `function f() { let s = 0; for (const x of [1, 2, 3, 4, 5, 6]) { if (x % 2 === 0) { s += x } else { s -= 1 } } return s }`, {}],
  ['helpers and callbacks', `function double(x) { return x * 2 }
function f() { const xs = [1, 2, 3, 4].map((x) => double(x)); return { xs, total: [5, 6, 7].reduce((a, b) => a + double(b), 0), big: [1, 2].filter((x) => x > 1) } }`, {}],
  ['try/catch, template, Promise.all over a literal', `function f() {
  let msg
  try { throw new Error('boom') } catch (e) { msg = \`caught \${e.message}\` }
  const names = Promise.all([1, 2, 3].map((id) => lookup({ id })))
  return { msg, names }
}`, {}],
  ['an early return still bounded', `function f() { for (let i = 0; i < 100; i++) { if (i === 3) return i } return -1 }`, {}],
]

describe('the plan fuel bound holds on the VM', () => {
  for (const [name, src, args] of CORPUS) {
    test(name, async () => {
      const { ast } = transpile(src, { atoms })
      const plan = analyzeProgram(ast, atoms)
      expect(typeof plan.fuel).toBe('number')
      const run = await new AgentVM([lookup]).run(ast, args, { fuel: 10_000 })
      expect(run.error).toBeUndefined()
      expect(run.fuelUsed).toBeLessThanOrEqual(plan.fuel as number)
      // Not absurdly loose (an early return is still charged as the whole loop).
      if (!name.includes('early')) expect(plan.fuel as number).toBeLessThan(run.fuelUsed * 10 + 1)
    })
  }

  test('no number where a loop depends on the inputs or has no bound', () => {
    const byInput = analyzeProgram(transpile(`function f({ ids }) { for (const id of ids) lookup({ id }) }`, { atoms }).ast, atoms)
    expect(byInput.fuel).toBe('unbounded')
    expect(byInput.fuelUnboundedBy).toBe('len(ids)')
    const loop = analyzeProgram(transpile(`function f() { let i = 0; while (i < 3) { i++ } }`, { atoms }).ast, atoms)
    expect(loop.fuel).toBe('unbounded')
    expect(loop.fuelUnboundedBy).toStartWith('while at ')
  })
})
