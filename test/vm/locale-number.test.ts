/**
 * A number's `toLocaleString(locales, options)` is JavaScript's (Intl.NumberFormat), "en" by default on
 * every host; every other value's is too. It was METHOD_NOT_ALLOWED, where models format money with it.
 */
import { describe, expect, test } from 'bun:test'
import { AgentVM } from '../../src/vm/index.ts'
import { transpile } from '../../src/transpiler/index.ts'

const vm = new AgentVM()
async function run(expr: string, args: Record<string, unknown> = {}, fuel = 100_000) {
  const { ast } = transpile(`function f({ n = 0.5, xs = [], o = {} }) { return ${expr} }`)
  return vm.run(ast, args, { fuel })
}
const native = (expr: string, scope: Record<string, unknown>) =>
  // eslint-disable-next-line no-new-func -- the reference, in the test only
  new Function('n', 'xs', 'o', `return ${expr}`)(scope.n ?? 0, scope.xs ?? [], scope.o ?? {})

describe('number toLocaleString', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['n.toLocaleString()', { n: 1234567.891 }],
    ["n.toLocaleString('en-US', { style: 'currency', currency: 'USD' })", { n: 1234.5 }],
    ["n.toLocaleString('de-DE', { style: 'currency', currency: 'EUR' })", { n: -1234.5 }],
    ["n.toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 1 })", { n: 0.2567 }],
    ["n.toLocaleString('en', { style: 'unit', unit: 'kilometer-per-hour' })", { n: 88 }],
    ["n.toLocaleString('en', { notation: 'compact' })", { n: 15300 }],
    ["n.toLocaleString('hi-IN')", { n: 12345678 }],
    ['(n / 0 - n / 0).toLocaleString()', { n: 1 }],
    ["[n, -0, Infinity].map((x) => x.toLocaleString('en', { minimumFractionDigits: 2 }))", { n: 3 }],
    ["xs.toLocaleString('de-DE')", { xs: [1234.5, 'a', null, [5678, true]] }],
  ]
  for (const [expr, args] of cases) {
    test(`${expr} with ${JSON.stringify(args)}`, async () => {
      const r = await run(expr, args)
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual(native(expr.replace(/\(\)$/, "('en')").replace('(undefined,', "('en',"), args))
    })
  }

  test('the default locale is "en" on every host, not the host\'s', async () => {
    expect((await run('n.toLocaleString()', { n: 1234.5 })).result).toBe('1,234.5')
  })

  test("Intl's errors keep their kind", async () => {
    expect((await run("n.toLocaleString('en', { style: 'currency' })")).error?.code).toBe('TYPE_ERROR')
    expect((await run("n.toLocaleString('not a tag!')")).error?.code).toBe('RANGE_ERROR')
    expect((await run("n.toLocaleString('en', { maximumFractionDigits: 500 })")).error?.code).toBe('RANGE_ERROR')
  })

  test('locales and options are checked small before Intl reads them', async () => {
    const r = await run("n.toLocaleString({ length: 1e9, 0: 'en' })")
    expect(r.error?.code).toBe('RANGE_ERROR')
    expect(r.error?.message).toContain('at most 8')
    expect((await run('n.toLocaleString(o)', { o: { 0: 'x'.repeat(100), length: 1 } })).error?.code).toBe('RANGE_ERROR')
  })

  test('naming locales or options is charged on every call, cached or not', async () => {
    const plain = (await run('n.toLocaleString()', { n: 5 })).fuelUsed
    const first = (await run("n.toLocaleString('fr')", { n: 5 })).fuelUsed
    const again = (await run("n.toLocaleString('fr')", { n: 5 })).fuelUsed
    expect(first).toBeGreaterThan(plain)
    expect(again).toBe(first)
  })

  test('an own toString fails an object\'s toLocaleString as in JavaScript', async () => {
    expect((await run('o.toLocaleString()', { o: { toString: 1 } })).error?.code).toBe('TYPE_ERROR')
    expect((await run('o.toLocaleString()', { o: { a: 1 } })).result).toBe('[object Object]')
  })
})
