/**
 * `new Set(xs)` where JavaScript reads its items at once (src/transpiler/lower/sets.ts): the array of
 * its items, side by side with JavaScript, with no part of the VM; one handed on as a value is refused (AJS2055).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { xs: [3, 1, 3, NaN, 2, NaN, -0, 0, '3', 1], s: 'hello', tags: ['a', 'b', 'a'], none: null }
const P = (name: string, body: string): Program => ({ name, source: `function main({ xs, s, tags, none }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('spread-dedupe', 'return [...new Set(xs)]'),
  P('spread-among-items', "return ['start', ...new Set(tags), ...new Set(), 'end']"),
  P('spread-text', 'return [...new Set(s)].join("")'),
  P('spread-null', 'return [[...new Set(none)], [...new Set(undefined)]]'),
  P('spread-call-args', 'return Math.max(...new Set([1, 5, 5, 2]))'),
  P('array-from', 'return Array.from(new Set(tags))'),
  P('array-from-mapped', 'return Array.from(new Set(tags), (t, i) => t + i)'),
  P('size', 'return [new Set(xs).size, new Set(s).size, new Set().size]'),
  P('has', "return [new Set(tags).has('a'), new Set(tags).has('z'), new Set(xs).has(NaN), new Set(xs).has(0)]"),
  P('for-of', 'let out = []\nfor (const x of new Set(tags)) out.push(x.toUpperCase())\nreturn out'),
  P('chained', 'return [...new Set(tags.map((t) => t.length))].map((n) => n * 2)'),
]

describe('a Set read at once gives JavaScript\'s result', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('[...new Set(xs)] is Set.from(xs) in the AST', () => {
    expect(JSON.stringify(transpile('function f({ xs }) { return [...new Set(xs)] }').ast)).toContain('"object":{"$expr":"ident","name":"Set"},"method":"from"')
  })

  test('a new Set handed on as a value is refused, the hint naming the copy (a Set kept in a variable: set-vars.test.ts)', () => {
    for (const body of ['return new Set(xs)', 'return { ...new Set(xs) }', 'return [new Set(xs)]', 'return new Set(xs).add(1)']) {
      let err: unknown
      try { transpile(`function f({ xs }) {\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS2055')
      expect((err as TranspileError).hint).toContain('`[...new Set(xs)')
    }
  })

  test('a long text spread from a Set is paid for per character', async () => {
    const vm = new AgentVM()
    const fuel = async (body: string) => (await vm.run(transpile(`function f({ s }) { return ${body} }`).ast, { s: 'ab'.repeat(500_000) }, { fuel: 1e6 })).fuelUsed
    expect(await fuel('[...new Set(s)].length') - await fuel('s.length')).toBeGreaterThanOrEqual(10)
  })
})
