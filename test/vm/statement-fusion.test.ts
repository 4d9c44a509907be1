/**
 * Statement forms of `x op= e`, `x++` / `x--` and the inline `i++` of
 * counting loops must behave exactly as JavaScript for every kind of value,
 * (their fuel is pinned by the workloads test: arith-loop-idiomatic uses all three).
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const vm = new AgentVM()

function compileBoth(source: string) {
  // eslint-disable-next-line no-new-func -- the reference semantics, test only
  const native = new Function(`return (${source.replace(/^function \w+/, 'function')})`)() as (a: unknown) => unknown
  return { ast: transpile(source).ast, native }
}

const value = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.double({ min: -100, max: 100 }),
  fc.constantFrom(0, -0, 0.5, '2', 'ab', '', null, true, false),
  fc.constantFrom([3], [], { a: 1 }),
)

const STATEMENTS = ['x += y', 'x -= y', 'x *= y', 'x /= y', 'x %= y', 'x **= y', 'x++', 'x--', '++x', '--x', 'x += y; x += y']
const programs = new Map(STATEMENTS.map((st) => [st, compileBoth(`function f({ x, y }) { ${st}; return { x } }`)]))

describe('fused statements', () => {
  test('x op= y and x++ / x-- as statements agree with JavaScript', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...STATEMENTS), value, value, async (st, x, y) => {
        const p = programs.get(st)!
        const expected = (p.native(structuredClone({ x, y })) as { x: unknown }).x
        const run = await vm.run(p.ast, { x, y })
        expect(run.error).toBeUndefined()
        const got = (run.result as { x: unknown }).x
        const same = typeof got === 'number' && typeof expected === 'number' ? Object.is(got, expected) : JSON.stringify(got) === JSON.stringify(expected)
        if (!same) throw new Error(`${st} with x=${JSON.stringify(x)}, y=${JSON.stringify(y)}: VM ${String(got)}, JS ${String(expected)}`)
      }),
      { numRuns: 2000, seed: 11 },
    )
  })

  test('counting loops (< <= > >=) test and step i inline, and still follow JS when i stops being a number', async () => {
    const cases = [
      'function f({ n }) { let t = 0; for (let i = 0; i < n; i++) { t += i } return { t } }',
      'function f({ n }) { let t = 0; for (let i = n; i > 0; i--) { t += i } return { t } }',
      "function f({ n }) { let t = 0; for (let i = 0; i < n; i++) { if (i === 3) { i = '7' } t += 1 } return { t } }",
      'function f({ n }) { let t = []; for (let i = 0; i < n; i++) { t.push(i); if (i === 2 && t.length < 4) { i = null } } return { t } }',
      'function f({ n }) { let t = 0; for (let i = 0.5; i < n; i++) { t += i } return { t } }',
      'function f({ n }) { let seen = []; for (let i = 3; i < n; i--) { seen.push(i); if (seen.length > 4) break } return { seen } }',
      'function f({ n }) { let seen = []; for (let i = n; i >= 0; i--) { seen.push(i) } return { seen } }',
      'function f({ n }) { let seen = []; for (let i = n; i > 2; i--) { seen.push(i) } return { seen } }',
      'function f({ n }) { let seen = []; let i = 0; while (i <= n) { seen.push(i); i = i + 2 } return { seen } }',
      "function f({ n }) { let seen = []; for (let i = 0; i <= n; i++) { seen.push(i); if (i === 1) { i = '4' } } return { seen } }",
      "function f({ n }) { let seen = []; let k = '3'; for (let i = 0; i <= k; i++) { seen.push(i) } return { seen } }",
    ]
    for (const source of cases) {
      const p = compileBoth(source)
      const r = await vm.run(p.ast, { n: 6 }, { fuel: 1e5 })
      expect({ source, result: r.result }).toEqual({ source, result: p.native({ n: 6 }) })
    }
  })
  // Fuel: test/vm/workloads.test.ts pins fuelUsed of arith-loop-idiomatic (for, i++, +=) to the last digit.
})

describe('if steps', () => {
  const OPS = ['<', '<=', '>', '>=', '===', '!==']
  const programs = new Map<string, ReturnType<typeof compileBoth>>()
  const program = (op: string, shape: number) => {
    const key = `${op}/${shape}`
    let p = programs.get(key)
    if (!p) {
      const test = shape === 0 ? `x ${op} y` : shape === 1 ? `x ${op} 3` : shape === 2 ? 'x' : `(x ${op} y) || y`
      p = compileBoth(`function f({ x, y }) {
        let r = 0
        if (${test}) { r = 1 } else { r = 2 }
        if (${test}) { r = r + 10 }
        if (${test}) { r = r + 100; r = r * 2 } else { r = r - 1 }
        return { r }
      }`)
      programs.set(key, p)
    }
    return p
  }

  test('agree with JavaScript for every test shape and operand kind', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPS), fc.integer({ min: 0, max: 3 }), value, value, async (op, shape, x, y) => {
        const p = program(op, shape)
        const run = await vm.run(p.ast, { x, y })
        expect(run.error).toBeUndefined()
        // Separate clones: the membrane copies x and y apart even when the host passed one object twice.
        expect(run.result).toEqual(p.native({ x: structuredClone(x), y: structuredClone(y) }) as object)
      }),
      { numRuns: 1500, seed: 5 },
    )
  })

  test('an error inside a one-step branch points at that step', async () => {
    const source = 'function f({ n }) {\n  let o = n\n  if (o > 1) {\n    o.x = 1\n  }\n  return { o }\n}'
    const r = await vm.run(transpile(source).ast, { n: 5 })
    expect(r.error?.code).toBe('TYPE_ERROR')
    expect({ line: r.error?.line, column: r.error?.column, op: r.error?.op }).toEqual({ line: 4, column: 5, op: 'expr' })
  })

  test('the branch block is charged only when taken, as a block', async () => {
    const ast = transpile('function f({ n }) { let r = 0; if (n > 1) { r = 1 } return { r } }').ast
    const taken = await vm.run(ast, { n: 5 })
    const skipped = await vm.run(ast, { n: 0 })
    // The taken branch adds its block: one varSet step, 0.01 (its value `1` is a JSON literal, free).
    expect(Math.round((taken.fuelUsed - skipped.fuelUsed) * 1e6) / 1e6).toBe(0.01)
  })
})
