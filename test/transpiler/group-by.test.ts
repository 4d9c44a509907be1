/**
 * `Object.groupBy(items, fn)` (src/transpiler/lower/group-by.ts): JavaScript's groups, side by side with
 * JavaScript (Bun has ES2024's Object.groupBy); other forms refused with the rewrite (AJS2048).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { orders: [{ id: 1, status: 'open', total: 30 }, { id: 2, status: 'done', total: 5 }, { id: 3, status: 'open', total: 12 }, { id: 4, status: 10, total: 1 }], data: { xs: [5, 12, 7, 30, 1] } }
const P = (name: string, body: string): Program => ({ name, source: `function main({ orders, data }) {\n${body}\n}\n`, args: ARGS })

// Groups compared as JSON (JavaScript's object has no prototype; AJS's is a plain object: same keys, order and values).
const PROGRAMS: Program[] = [
  P('by-field', 'return JSON.stringify(Object.groupBy(orders, (o) => o.status))'),
  P('by-index-and-number-keys', "return JSON.stringify(Object.groupBy(data.xs, (x, i) => x > 10 ? 'big' : i))"),
  P('destructured-param', 'const g = Object.groupBy(orders, ({ total }) => total >= 10)\nreturn [Object.keys(g), g.true.map((o) => o.id)]'),
  P('block-body', "return JSON.stringify(Object.groupBy(orders, (o) => { if (o.total > 20) return 'large'; return 'small' }))"),
  P('empty', 'const none = []\nreturn JSON.stringify(Object.groupBy(none, (x) => x))'),
]

describe('Object.groupBy gives JavaScript\'s groups', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('items that are not a variable or a property, or a callback not written in place, are refused', () => {
    for (const body of ['return Object.groupBy(orders.filter((o) => o.total), (o) => o.status)', 'return Object.groupBy(orders)', 'return Object.groupBy(orders, pick)']) {
      let err: unknown
      try { transpile(`function pick(o) { return o.status }\nfunction f({ orders }) {\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS2048')
    }
  })
})
