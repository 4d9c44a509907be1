/**
 * A function named as an array method's callback (src/transpiler/lower/calls.ts namedCallback):
 * `xs.filter(Boolean)`, `xs.map(Number)`, `xs.map(format)`, `xs.reduce(sum, 0)`, called with every
 * argument the method passes, as JavaScript calls it; side by side with JavaScript.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { xs: ['10', '', '7', null, '0', 'x', '3'], nums: [5, 1, 4] }
const HELPERS = `
function label(v, i) { return i + ':' + v }
function sum(acc, v) { return acc + v }
function byValue(a, b) { return a - b }
function isEven(n) { return n % 2 === 0 }
`
const P = (name: string, body: string): Program => ({ name, source: `${HELPERS}\nfunction main({ xs, nums }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('filter-boolean', 'return xs.filter(Boolean)'),
  P('map-number-string', 'return [xs.map(Number), nums.map(String), xs.filter(Boolean).map(parseFloat)]'),
  P('map-parseInt-takes-the-index-as-radix', "return ['10', '10', '10'].map(parseInt)"),
  P('helpers', 'return [nums.map(label), nums.reduce(sum, 0), nums.toSorted(byValue), nums.some(isEven), nums.findIndex(isEven), nums.flatMap(label)]'),
  P('uri', "return ['a b', 'é'].map(encodeURIComponent).map(decodeURIComponent)"),
]

describe('a function named as a callback is called as JavaScript calls it', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('atoms, async helpers and other globals stay refused (AJS2031)', () => {
    const cases = ['return xs.map(httpFetch)', 'return xs.map(structuredClone)', 'return xs.map(Error)', 'return xs.map(load)']
    for (const body of cases) {
      let err: unknown
      try { transpile(`async function load(x) { return x }\nasync function f({ xs }) {\n${body}\n}`) } catch (e) { err = e }
      expect(err).toBeInstanceOf(TranspileError)
      expect((err as TranspileError).code).toBe('AJS2031')
    }
  })
})
