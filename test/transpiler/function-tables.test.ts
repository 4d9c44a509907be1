/**
 * Objects of functions (src/transpiler/function-tables.ts): `const ops = { add: (a, b) => a + b }` with
 * `ops.add(x)`, `ops[k](x)`, `k in ops`, `if (ops[k])`, `Object.keys(ops)`; side by side with JavaScript,
 * and the refusals (AJS2061, AJS2062).
 */
import { describe, expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, runNativeAsync, runVm, testSideBySide } from './differential/harness.ts'

const ARGS = { op: 'mul', steps: [{ tool: 'echo', arg: 'hi' }, { tool: 'twice', arg: 21 }, { tool: 'nope', arg: 1 }] }
const TABLE = "const k = 10\nconst ops = {\n  add: (a, b) => a + b + k,\n  mul: function (a, b) { return a * b },\n  'to-text': (v) => `#${v}`,\n}\n"
const P = (name: string, body: string): Program => ({ name, source: `function main({ op, steps }) {\n${TABLE}${body}\n}\n`, args: ARGS })

const PROGRAMS: Program[] = [
  P('calls-by-name-and-by-key', "return [ops.add(1, 2), ops['mul'](3, 4), ops['to-text'](5), ops[op](6, 7)]"),
  P('keys-in-and-tests', "const other = 'x' + op\nreturn [Object.keys(ops), 'add' in ops, 'nope' in ops, ops[op] ? 'yes' : 'no', !ops[other], ops[op] && ops[op](2, 2)]"),
  P('an-unknown-key-is-a-TypeError', "const bad = op + '!'\ntry { return ops[bad](1) } catch (e) { return [e instanceof TypeError, e.message.startsWith('ops[bad] is not a function')] }"),
  P('in-a-callback-and-a-loop', "const names = ['add', 'mul']\nconst out = []\nfor (const n of names) out.push(ops[n](2, 5))\nreturn [out, names.map((n) => ops[n](1, 1))]"),
]

const MODULE: Program = {
  name: 'at-the-top-level-read-by-a-helper',
  source: "const BASE = 10\nconst tools = { add: (a, b) => a + b + BASE, neg: (a) => -a }\nfunction apply(name, args) { return name in tools ? tools[name](...args) : null }\nfunction main({ steps }) {\n  return [steps.map((s) => apply(s.tool, [s.arg, 1])), Object.keys(tools), tools.neg(3)]\n}\n",
  args: { steps: [{ tool: 'add', arg: 1 }, { tool: 'neg', arg: 5 }, { tool: 'echo', arg: 0 }] },
}

const ASYNC: Program = {
  name: 'async-tools-dispatched-by-step',
  source: "async function main({ steps }) {\n  const tools = { echo: async (x) => `echo:${x}`, twice: async (x) => x * 2 }\n  const out = []\n  for (const s of steps) {\n    if (!tools[s.tool]) { out.push('no tool ' + s.tool); continue }\n    out.push(await tools[s.tool](s.arg))\n  }\n  return out\n}\n",
  args: ARGS,
}

function refusal(source: string): TranspileError {
  try { transpile(source) } catch (e) { if (e instanceof TranspileError) return e; throw e }
  throw new Error('transpiled')
}

describe('objects of functions', () => {
  testSideBySide([...PROGRAMS, MODULE], AgentVM)

  test(ASYNC.name, async () => {
    const native = await runNativeAsync(ASYNC)
    expect(native.ok).toBe(true)
    expect(await runVm(ASYNC, AgentVM)).toEqual(native)
  })

  test('handed on, or a function read as a value: AJS2061, located', () => {
    const e = refusal(`function main({ op }) {\n${TABLE}return { ops }\n}`)
    expect([e.code, e.line]).toEqual(['AJS2061', 8])
    expect(refusal(`function main({ op }) {\n${TABLE}const f = ops.add\nreturn f\n}`).code).toBe('AJS2061')
    expect(refusal(`function main({ op }) {\n${TABLE}return ops[op + 1]\n}`).code).toBe('AJS2061')
  })

  test('what calls by a computed key write out is bounded by the source: AJS2063', () => {
    const keys = Array.from({ length: 400 }, (_, i) => `f${i}: (x) => x + ${i}`).join(', ')
    const calls = Array.from({ length: 300 }, () => 'ops[op](1)').join(' + ')
    const e = refusal(`function main({ op }) {\n  const ops = { ${keys} }\n  return ${calls}\n}`)
    expect([e.code, e.line]).toEqual(['AJS2063', 2])
    // A few calls of a small table are far below it.
    expect(() => transpile(`function main({ op }) {\n  const ops = { ${keys} }\n  return ops[op](1) + ops[op](2)\n}`)).not.toThrow()
  })

  test('a key it does not have: AJS2062 with the nearest', () => {
    const e = refusal(`function main({ op }) {\n${TABLE}return ops.ad(1, 2)\n}`)
    expect(e.code).toBe('AJS2062')
    expect(e.hint).toContain('`add`')
  })
})
