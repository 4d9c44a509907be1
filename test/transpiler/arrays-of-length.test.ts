/**
 * `new Array(n)` / `Array(n)` filled or read at once (src/transpiler/lower/arrays.ts): JavaScript's
 * results without a hole, side by side with JavaScript; an array of holes kept is still AJS2041.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { n: 4, text: '3', bad: -1 }
const P = (name: string, body: string): Program => ({ name, source: `function main({ n, text, bad }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('fill', "return [new Array(n).fill(0), Array(3).fill('x'), new Array(2).fill(), new Array(0).fill(1)]"),
  P('fill-then-map', 'return new Array(n).fill(0).map((_, i) => i * i)'),
  P('fill-shares-one-object', 'const rows = new Array(2).fill([])\nrows[0].push(1)\nreturn rows'),
  P('spread-and-from', 'return [[...Array(3)], Array.from(new Array(2)), Array.from(Array(n), (_, i) => i + 1)]'),
  P('keys', 'return [[...Array(n).keys()], Array.from(Array(2).keys())]'),
  P('length-of-text', 'return [new Array(text).fill(0), [...Array(text)]]'),
  P('bad-length', 'try { return new Array(bad).fill(0) } catch (e) { return e.name }'),
  P('fraction-length', 'try { return Array(1.5).fill(0) } catch (e) { return e.name }'),
  P('listed', 'return [new Array(), new Array(1, 2), Array(3, 4, 5), Array()]'),
]

describe('an array of n made and filled at once gives JavaScript\'s result', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('an array of holes kept, or filled in part, is still refused (AJS2041)', () => {
    for (const body of ['const a = new Array(n)\nreturn a', 'return new Array(n).fill(0, 1)', 'return Array(n).map((x) => 1)']) {
      let err: unknown
      try { transpile(`function f({ n }) {\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS2041')
    }
  })

  test('a huge length is paid before anything is made', async () => {
    const r = await new AgentVM().run(transpile('function f({ n }) { return new Array(n).fill(0).length }').ast, { n: 4_000_000_000 }, { fuel: 1e6 })
    expect(['FUEL_EXHAUSTED', 'HEAP_LIMIT']).toContain(r.error?.code ?? 'none')
  })
})
