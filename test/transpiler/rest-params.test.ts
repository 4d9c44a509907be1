/**
 * Rest parameters of helpers and local functions (lower/functions.ts lowerParams, lower/calls.ts restArguments):
 * a call passes what falls on the rest parameter as one array; side by side with JavaScript, and the refusals.
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const ARGS = { xs: [1, 2, 3], o: { a: 1, b: 2, c: 3 } }
const HELPERS = `
function sum(...nums) { return nums.reduce((a, b) => a + b, 0) }
function tag(label, ...parts) { return label + ': ' + parts.join(', ') + ' (' + parts.length + ')' }
function byFirstTwo(...ab) { return ab[0] - ab[1] }
function shape(a, b, ...r) { return [a, b, r] }
`
const P = (name: string, body: string): Program => ({ name, source: `${HELPERS}\nfunction main({ xs, o }) {\n${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('none-some-and-spread', 'return [sum(), sum(1, 2, 3), sum(...xs), sum(1, ...xs, 4), sum(...xs, ...xs)]'),
  P('after-fixed-parameters', "return [tag('a'), tag('b', 1, 2), shape(), shape(1), shape(1, 2, 3, 4), tag('c', ...xs)]"),
  P('named-as-a-callback-gets-every-argument', 'return [xs.map(sum), [3, 1, 2].sort(byFirstTwo), xs.reduce(shape, 0)]'),
  P('a-local-function-with-captures', "const k = 10\nconst pick = (obj, ...keys) => Object.fromEntries(keys.map((key) => [key, obj[key] + k]))\nconst plus = (...vs) => vs.length + k\nreturn [pick(o, 'a', 'c'), pick(o), xs.map(plus)]"),
]

function refusal(source: string): TranspileError {
  try { transpile(source) } catch (e) { if (e instanceof TranspileError) return e; throw e }
  throw new Error('transpiled')
}

describe('rest parameters', () => {
  testSideBySide(PROGRAMS, AgentVM)

  test('a spread before the rest parameter: AJS2060, located', () => {
    const e = refusal(`${HELPERS}\nfunction main({ xs }) {\n  return tag(...xs)\n}`)
    expect([e.code, e.line, e.column]).toEqual(['AJS2060', 8, 13])
  })

  test('in a callback, or not a name: AJS1005', () => {
    expect(refusal('function main({ xs }) {\n  return xs.map((...v) => v)\n}').code).toBe('AJS1005')
    expect(refusal('function f(...[a, b]) { return a }\nfunction main() { return f(1, 2) }').code).toBe('AJS1005')
  })
})
